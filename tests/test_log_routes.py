"""The log routes cannot freeze the server (issue 23): a real ``sanma serve`` (and uvicorn in a
thread where the test reads the app's state), real HTTP and WebSockets on loopback.

- six uploads of a 3,273-hand log, or of a 64-hand one (the costliest log accepted), held in
  flight by a stopped log worker, leave a practice table and a friend room playing, and are
  answered once the worker goes on: the work runs in the worker process, never on the loop (the
  latency this leaves a table is measured by ``bench/log_attack.py``, not asserted here);
- each malformed body gets its typed 422 with the security headers;
- kept logs: a cap per guest (count and bytes), a list without texts, a second read without work;
- every log route counts on the meters (429 past their numbers); a full queue answers 503.

The logs are real-shaped: a seeded match exported by the engine (``tenhou6.export_game``), its
hands repeated to the length wanted.
"""

from __future__ import annotations

import asyncio
import functools
import json
import math
import os
import re
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, text

from sanma.engine.formats import tenhou6
from sanma.engine.rules import DEFAULT
from sanma.server.settings import Settings
from sanma.store import db
from sanma.store.guests import create_guest
from tests.fixtures.replays import hands_of, played_match, store_ended
from tests.fixtures.rooms import Api
from tests.fixtures.server import Client, LiveServer, choose, new_guest, new_match, serving
from tests.services import ServeProcess, free_port

SECURITY = {"x-content-type-options": "nosniff", "x-frame-options": "DENY", "referrer-policy": "no-referrer"}


@functools.cache
def exported() -> dict[str, Any]:
    """A seeded East-South match exported by the engine (tenhou.net/6)."""
    match = played_match(3, "east-south")
    return tenhou6.export_game(hands_of(match.events), DEFAULT, names=["A", "B", "C"], rule_name="三般南喰赤")


def tenhou_log(hands: int, *, pad: int = 0) -> str:
    """A tenhou.net/6 log of ``hands`` hands: those of ``exported``, repeated; ``pad`` spaces
    of JSON whitespace make the file larger, not the log."""
    game = dict(exported())
    recorded: list[Any] = game["log"]
    game["log"] = [recorded[i % len(recorded)] for i in range(hands)]
    game.pop("sc", None)  # the repeated hands do not lead to the match's final points
    return json.dumps(game, ensure_ascii=False, separators=(",", ":")) + " " * pad


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}


def post_log(http: str, path: str, token: str, body: str | bytes) -> httpx.Response:
    data = body.encode() if isinstance(body, str) else body
    return httpx.post(f"{http}{path}", content=data, headers=auth(token), timeout=120)


def get(http: str, path: str, token: str | None = None) -> httpx.Response:
    return httpx.get(f"{http}{path}", headers=auth(token) if token else {}, timeout=60)


# -- six uploads in flight: the tables go on -----------------------------------------------------


class Uploads:
    """``count`` threads, each posting ``body`` to ``/api/replays/open`` again and again until
    ``stop``; the answers' (status, error code)."""

    def __init__(self, serve: ServeProcess, token: str, body: bytes, count: int) -> None:
        self.answers: list[tuple[int, str | None]] = []
        self.failures: list[BaseException] = []
        self._stop = threading.Event()
        self._args = (serve.http, token, body)
        self.threads = [threading.Thread(target=self._loop, daemon=True) for _ in range(count)]
        for thread in self.threads:
            thread.start()

    def _loop(self) -> None:
        http, token, body = self._args
        try:
            while not self._stop.is_set():
                r = post_log(http, "/api/replays/open", token, body)
                # A 200 is not parsed: the test's own threads share its GIL with the players.
                self.answers.append((r.status_code, None if r.status_code == 200 else r.json()["error"]))
        except BaseException as exc:
            self.failures.append(exc)

    def stop(self) -> None:
        self._stop.set()
        for thread in self.threads:
            thread.join(timeout=180)


class FriendRoom:
    """A friend room (one guest, two bots) played in a thread as fast as it prompts; the time
    each frame arrived."""

    def __init__(self, serve: ServeProcess) -> None:
        host = Api(serve)  # a real server: what the helper reads is there
        code = host.ok("POST", "", {"length": "east-south"}, 201)["code"]
        for seat in (1, 2):
            host.ok("POST", f"/{code}/bots", {"seat": seat, "level": "beginner"})
        match = host.ok("POST", f"/{code}/start")["match"]
        self.client = Client(serve, host.token, match)
        self.arrived: list[float] = []
        self.ended = False
        self.failure: BaseException | None = None
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._play, daemon=True)
        self.thread.start()

    def _play(self) -> None:
        seen = 0
        try:
            while not self._stop.is_set() and not self.ended:
                frame = self.client.recv()
                self.arrived.append(time.monotonic())
                if frame["t"] == "event":
                    seen = frame["v"]
                    self.ended = frame["e"]["type"] == "MatchEnded"
                elif frame["t"] == "hand_break":  # no panel to read: ready for the next hand at once
                    self.client.send({"t": "next_hand", "v": frame["v"]})
                elif frame["t"] == "prompt" and frame["v"] == seen:
                    self.client.send({"t": "act", "seq": frame["seq"], "a": choose(frame)})
        except BaseException as exc:
            self.failure = exc

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(timeout=60)
        self.client.close()


def practice_latencies(serve: ServeProcess, token: str, count: int, enough: Callable[[], bool]) -> list[float]:
    """Seconds from each action sent at a practice table to the first event after it, for at
    least ``count`` actions and until ``enough()`` (a new match when one ends)."""
    out: list[float] = []

    def done() -> bool:
        return len(out) >= count and enough()

    while not done():
        client = Client(serve, token, new_match(serve, token, length="east-south"))
        seen, ended = 0, False
        while not ended and not done():
            frame = client.recv()
            if frame["t"] == "event":
                seen, ended = frame["v"], frame["e"]["type"] == "MatchEnded"
            elif frame["t"] == "hand_break":
                client.send({"t": "next_hand", "v": frame["v"]})
            elif frame["t"] == "prompt" and frame["v"] == seen:
                sent = time.monotonic()
                client.send({"t": "act", "seq": frame["seq"], "a": choose(frame)})
                while (frame := client.recv())["t"] != "event":
                    assert frame["t"] != "error", frame
                out.append(time.monotonic() - sent)
                seen, ended = frame["v"], frame["e"]["type"] == "MatchEnded"
        client.close()
    return out


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[ServeProcess]:
    # The database in memory-backed files where there are (/dev/shm): the timing is about where
    # the log work runs, not about the disk's fsync under whatever else the machine writes.
    shm = Path("/dev/shm")
    data = Path(tempfile.mkdtemp(prefix="sanma-logs-", dir=shm if shm.is_dir() else tmp_path))
    env = {
        "SANMA_DATA_DIR": str(data),
        "SANMA_BOT_DELAY": "0",
        "SANMA_RATE_PER_S": "500",
        "SANMA_RATE_BURST": "1000",
        # The meters out of the way: this is about where the work runs, not about the meters.
        "SANMA_LOGS_PER_GUEST_PER_MIN": "1000000",
        "SANMA_LOGS_PER_ADDRESS_PER_MIN": "1000000",
        "SANMA_PRACTICE_PER_GUEST_PER_MIN": "1000",
    }
    process = ServeProcess(free_port(), env, tmp_path / "serve.log")
    yield process
    process.stop()
    shutil.rmtree(data, ignore_errors=True)


def children(pid: int) -> set[int]:
    """The processes ``pid`` started (its direct children), from ``/proc``."""
    tasks = Path(f"/proc/{pid}/task").iterdir()
    return {int(child) for task in tasks for child in (task / "children").read_text().split()}


def log_workers(serve: ServeProcess, before: set[int]) -> set[int]:
    """The server's children started since ``before`` that are neither bot workers (the server
    logs each one's pid) nor multiprocessing's helpers: the log workers.  The bot workers'
    forkserver starts with the first bot worker, which may come after ``before`` was taken."""
    bots = {int(pid) for pid in re.findall(r"bot worker \d+ started \(pid (\d+)\)", serve.log_path.read_text())}
    new = children(serve.proc.pid) - before - bots
    helpers = (b"multiprocessing.resource_tracker", b"multiprocessing.forkserver")
    return {pid for pid in new if not any(h in Path(f"/proc/{pid}/cmdline").read_bytes() for h in helpers)}


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.parametrize(("hands", "expected"), [(3273, (422, "too_many_hands")), (64, (200, None))])
def test_uploads_held_in_flight_leave_the_tables_alone(serve, hands, expected):
    """Six uploads wait on a log worker that is stopped (SIGSTOP): none is answered, and a
    practice table and a friend room play on. Once the worker goes on, each gets its answer.
    Nothing here is timed: whether the log work costs the loop time is measured by
    ``bench/log_attack.py`` (its figures are in docs/benchmarks.md)."""
    body = tenhou_log(hands).encode()
    assert len(body) < 2 * 1024 * 1024
    uploader, player = new_guest(serve), new_guest(serve)
    friend = FriendRoom(serve)  # its bots start the bot workers
    wait_for(lambda: len(friend.arrived) >= 10 or friend.failure is not None, "the friend room's first frames")
    before = children(serve.proc.pid)
    first = post_log(serve.http, "/api/replays/open", uploader, body)  # the log worker is started
    assert (first.status_code, first.json().get("error")) == expected, first.text[:300]
    workers = log_workers(serve, before)
    assert len(workers) == 1, workers  # SANMA_LOG_WORKERS defaults to 1
    for pid in workers:
        os.kill(pid, signal.SIGSTOP)
    uploads: Uploads | None = None
    try:
        uploads = Uploads(serve, uploader, body, count=6)
        frames = len(friend.arrived)
        latencies = practice_latencies(serve, player, count=40, enough=lambda: True)
        wait_for(lambda: len(friend.arrived) > frames + 10 or friend.ended, "the friend room's frames")
        assert len(latencies) >= 40
        assert uploads.answers == [] and not uploads.failures, (uploads.answers, uploads.failures)
    finally:
        for pid in workers:
            os.kill(pid, signal.SIGCONT)
        if uploads is not None:
            wait_for(lambda: len(uploads.answers) >= 6 or bool(uploads.failures), "six answers")
            uploads.stop()
        friend.stop()
    assert not uploads.failures and not friend.failure, (uploads.failures, friend.failure)
    assert set(uploads.answers) == {expected}, set(uploads.answers)


# -- malformed bodies ---------------------------------------------------------------------------


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    yield from serving(
        tmp_path / "data",
        None,
        saved_logs_per_guest=3,
        saved_log_bytes_per_guest=400_000,
        logs_per_guest_per_min=1000,
        logs_per_address_per_min=1000,
    )


MALFORMED = {
    "deep nesting": ('{"log":' + "[" * 100_000 + "]" * 100_000 + "}", "too_deep"),
    "a 5,000-digit integer": ('{"log":[],"sc":[' + "7" * 5000 + "]}", "huge_number"),
    "1e999": ('{"log":[],"sc":[1e999,0,0,0,0,0,0,0]}', "not_finite"),
    "NaN": ('{"log":[],"sc":[NaN,0,0,0,0,0,0,0]}', "not_finite"),
    "-Infinity": ('{"log":[],"sc":[-Infinity,0,0,0,0,0,0,0]}', "not_finite"),
    "65 hands": (tenhou_log(65), "too_many_hands"),
}


@pytest.mark.slow
@pytest.mark.parametrize("path", ["/api/replays/open", "/api/replays"])
def test_each_malformed_body_gets_its_typed_422_with_the_security_headers(live, path):
    token = new_guest(live)
    for what, (body, code) in MALFORMED.items():
        r = post_log(live.http, path, token, body)
        assert (r.status_code, r.json()["error"]) == (422, code), (what, r.text[:300])
        assert {k: r.headers.get(k) for k in SECURITY} == SECURITY, what
        assert "content-security-policy" in r.headers
    assert get(live.http, "/api/replays", token).json() == {"logs": []}  # nothing refused was kept


# -- kept logs ----------------------------------------------------------------------------------


def guest_token(live: LiveServer) -> tuple[Engine, str, str]:
    engine = db.open_engine(live.settings.db_url)
    guest = create_guest(engine)
    return engine, guest.id, guest.token


def jobs(live: LiveServer) -> int:
    return int(live.app.state.log_work.jobs)


@pytest.mark.slow
def test_kept_logs_are_capped_per_guest_listed_without_texts_and_read_again_without_work(live):
    engine, _, token = guest_token(live)
    small = tenhou_log(6)
    kept = []
    for _ in range(3):
        r = post_log(live.http, "/api/replays", token, small)
        assert r.status_code == 201, r.text[:300]
        kept.append(r.json())
    r = post_log(live.http, "/api/replays", token, small)
    assert (r.status_code, r.json()["error"]) == (409, "log_quota") and r.json()["detail"].startswith(
        "count: at most 3"
    )
    # The list carries each log's size, never its text.
    listed = get(live.http, "/api/replays", token)
    assert [item["id"] for item in listed.json()["logs"]] == [k["id"] for k in reversed(kept)]
    assert all(item["size"] > len(small) for item in listed.json()["logs"])
    assert len(listed.content) < 3 * 300

    # Bytes: another guest, whose one padded log (1.5 MiB of whitespace) is past 400,000 bytes.
    _, _, other = guest_token(live)
    assert post_log(live.http, "/api/replays", other, small).status_code == 201
    short_list = len(get(live.http, "/api/replays", other).content)
    r = post_log(live.http, "/api/replays", other, tenhou_log(6, pad=1_500_000))
    assert (r.status_code, r.json()["error"]) == (409, "log_quota")
    assert r.json()["detail"].startswith("bytes:")
    assert post_log(live.http, "/api/replays", other, tenhou_log(6, pad=200_000)).status_code == 201
    longer = get(live.http, "/api/replays", other).content
    assert len(longer) - short_list < 300, "the list grew with the texts"  # one more line, not 200 kB

    # Reading a kept log is a lookup: no job for the pool, the answer kept at saving.
    before = jobs(live)
    for _ in range(2):
        again = get(live.http, f"/api/replays/{kept[0]['id']}", token)
        assert again.status_code == 200 and again.json() == kept[0]
    assert jobs(live) == before
    # A log kept before answers were kept is opened once, then read like the others.
    with engine.begin() as conn:
        conn.execute(text("UPDATE saved_logs SET opened = NULL WHERE id = :id"), {"id": kept[1]["id"]})
    for _ in range(2):
        assert get(live.http, f"/api/replays/{kept[1]['id']}", token).json() == kept[1]
    assert jobs(live) == before + 1
    engine.dispose()


# -- meters and the queue -----------------------------------------------------------------------


@pytest.mark.slow
def test_every_log_route_counts_on_the_guest_and_address_meters(tmp_path):
    settings = Settings(
        port=free_port(), data_dir=tmp_path / "data", logs_per_guest_per_min=1, logs_per_address_per_min=7
    )
    live = LiveServer(settings)
    engine = db.open_engine(settings.db_url)
    try:
        log = tenhou_log(6)
        # From 127.0.0.1, one guest per route: its second request is past the guest's meter.
        for route in ("open", "keep", "list", "kept", "replay", "tenhou6", "log.jsonl"):
            guest = create_guest(engine)
            match, _ = store_ended(engine, 5, guest.id)
            if route == "kept":  # keeping it is the guest's one request
                kept = post_log(live.http, "/api/replays", guest.token, log).json()["id"]
            else:
                assert _log_route(live.http, route, guest.token, match, log).status_code in (200, 201), route
            r = _log_route(live.http, route, guest.token, match, log, kept=kept if route == "kept" else "")
            assert (r.status_code, r.json()["error"]) == (429, "rate_limited"), route
        # From 127.0.0.2, a share link (no guest): past the address's meter, whoever asks.
        guest = create_guest(engine)
        match, _ = store_ended(engine, 5, guest.id)
        share = httpx.post(f"{live.http}/api/matches/{match}/share", headers=auth(guest.token)).json()["share"]
        with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2")) as other:
            answers = [other.get(f"{live.http}/api/shared/{share}").status_code for _ in range(8)]
        assert answers == [200] * 7 + [429], answers
    finally:
        engine.dispose()
        live.stop()


def _log_route(http: str, route: str, token: str, match: str, log: str, kept: str = "") -> httpx.Response:
    if route in ("open", "keep"):
        return post_log(http, "/api/replays/open" if route == "open" else "/api/replays", token, log)
    paths = {"list": "/api/replays", "kept": f"/api/replays/{kept}"}
    return get(http, paths.get(route, f"/api/matches/{match}/{route}"), token)


@pytest.mark.slow
def test_a_full_queue_answers_log_busy_with_retry_after(tmp_path):
    settings = Settings(port=free_port(), data_dir=tmp_path / "data", log_queue=1, logs_per_guest_per_min=1000)
    live = LiveServer(settings)
    try:
        token = new_guest(live)
        body = tenhou_log(64)
        statuses: list[httpx.Response] = []
        start = threading.Barrier(4)

        def upload() -> None:
            start.wait()
            statuses.append(post_log(live.http, "/api/replays/open", token, body))

        threads = [threading.Thread(target=upload) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        busy = [r for r in statuses if r.status_code == 503]
        assert busy and all(r.json()["error"] == "log_busy" and int(r.headers["retry-after"]) > 0 for r in busy)
        assert any(r.status_code == 200 for r in statuses)
    finally:
        live.stop()


@pytest.mark.slow
def test_a_job_past_its_wall_clock_stops_its_worker_and_the_next_runs():
    from sanma.server.logwork import LogFault, LogWork

    async def main() -> None:
        work = LogWork(workers=1, queue_cap=2, cpu_s=5.0, wall_s=1.0)
        try:
            with pytest.raises(LogFault) as caught:
                await work.run(time.sleep, 30)  # asleep: no CPU spent, only time
            assert caught.value.code == "log_too_costly"
            assert await work.run(math.factorial, 5) == 120  # a new pool took its place
        finally:
            await work.close()

    asyncio.run(main())
