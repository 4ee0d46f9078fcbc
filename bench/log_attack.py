"""Issue 23's log attack, measured from outside a real ``sanma serve`` on loopback.

The script starts one ``sanma serve`` (from this checkout, or from ``--server-root``: another
checkout's files, e.g. a ``git worktree`` of the commit before a change) on a scratch SQLite
database, then, while a bystander plays a practice table through the WebSocket (action-to-event
latency: the player sends its answer -> the first event it caused arrives) and pings
``GET /api/health`` every ``--ping-every`` seconds:

- ``quiet``: ``--window`` seconds with no attack (the floor);
- ``open 3273``: six concurrent ``POST /api/replays/open`` of a 3,273-hand tenhou.net/6 log,
  each from its own guest (about 1.7 MB: the hands of a real Tenhou log repeated);
- ``open 64``: the same with a 64-hand log;
- ``keep``: one guest ``POST /api/replays`` 30 logs padded with spaces to just under 2 MiB,
  then four ``GET /api/replays`` at once: the server's RSS before and after (and its peak,
  sampled every 50 ms), the SQLite file's size after the saves and after deleting them.

Each upload reports its status, seconds to answer and answer bytes; each wave the server's CPU
seconds per upload (utime + stime from ``/proc`` of the server and its child processes, the
wave's span less the bystander's quiet rate).  Every request has a timeout, and the whole run
stops itself after ``--deadline`` seconds.  Loopback only.

    .venv/bin/python bench/log_attack.py                                  # this checkout
    .venv/bin/python bench/log_attack.py --server-root /tmp/wt-before     # another checkout
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from sanma.arena.stats import percentile  # noqa: E402
from tests.services import free_port  # noqa: E402

SOURCE = ROOT.parent / "shared" / "testdata" / "tenhou3p_json" / "2025020203gm-00b9-0000-bea67528.json"
LOG_MAX_BYTES = 2 * 1024 * 1024  # the routes' body cap (server/api/replays.py)
TICK_S = os.sysconf("SC_CLK_TCK")


# -- the server and /proc ---------------------------------------------------------------------


class Server:
    """One ``sanma serve`` on loopback with a scratch SQLite database in ``folder``."""

    def __init__(self, root: Path, folder: Path, bot_delay_s: float) -> None:
        self.port = free_port()
        self.folder = folder
        self.log = (folder / "server.log").open("w")
        env = {**os.environ, "PYTHONPATH": str(root), "SANMA_DATA_DIR": str(folder / "data")}
        env |= {"SANMA_BOT_DELAY": str(bot_delay_s), "SANMA_DATABASE_URL": ""}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sanma", "serve", "--host", "127.0.0.1", "--port", str(self.port)],
            cwd=root,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.http = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}/ws"

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited; see {self.folder / 'server.log'}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.http}/api/health", timeout=1).status_code == 200:
                    return
            time.sleep(0.2)
        raise RuntimeError("the server did not start within 90 s")

    def database_bytes(self) -> int:
        """The SQLite file and its write-ahead log, if any."""
        data = self.folder / "data"
        return sum(p.stat().st_size for p in data.glob("sanma.db*"))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()  # the fields after the command's name


def tree(pid: int) -> list[int]:
    """``pid`` and every live descendant (worker pools, their resource tracker)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None:
            parents[int(entry.name)] = int(fields[1])
    found, frontier = [pid], [pid]
    while frontier:
        frontier = [child for child, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def cpu_s(pid: int) -> float:
    """CPU seconds of the server's process tree: each live process's own, plus what its
    children that ended were charged (cutime, cstime)."""
    total = 0
    for each in tree(pid):
        if (fields := _stat(each)) is not None:
            total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    return total / TICK_S


def rss_mb(pid: int) -> float:
    """Resident memory of one process (MB; 0 once it is gone)."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def tree_rss_mb(pid: int) -> float:
    """Resident memory of the server and its child processes (worker pools), added up."""
    return sum(rss_mb(each) for each in tree(pid))


# -- the logs ---------------------------------------------------------------------------------


def repeated_log(source: dict[str, Any], hands: int) -> str:
    """``source``'s hands repeated (in order, cyclically) up to ``hands`` hands."""
    own = source["log"]
    repeated = {**source, "log": [own[i % len(own)] for i in range(hands)]}
    return json.dumps(repeated, ensure_ascii=False, separators=(",", ":"))


def padded_log(source: dict[str, Any], index: int) -> str:
    """``source`` as it is, a distinct title, padded with spaces to just under the body cap."""
    text = json.dumps({**source, "title": [f"padded {index}", ""]}, ensure_ascii=False)
    return text + " " * (LOG_MAX_BYTES - 1024 - len(text.encode()))


# -- the bystander ----------------------------------------------------------------------------


@dataclass
class Samples:
    acts: list[tuple[float, float]] = field(default_factory=list)  # (when, ms)
    pings: list[tuple[float, float]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def between(self, start: float, end: float) -> dict[str, Any]:
        acts = [ms for at, ms in self.acts if start <= at <= end]
        pings = [ms for at, ms in self.pings if start <= at <= end]
        # A frozen table answers few acts: their rate says so where their latency cannot.
        rate = round(len(acts) / max(end - start, 1e-9), 2)
        return {"acts": summary(acts), "acts_per_s": rate, "pings": summary(pings)}


def summary(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    return {
        "n": len(values),
        "p50": round(percentile(ordered, 50), 1),
        "p99": round(percentile(ordered, 99), 1),
        "max": round(ordered[-1], 1),
    }


async def new_guest(http: httpx.AsyncClient, server: Server) -> str:
    r = await http.post(f"{server.http}/api/guest")
    r.raise_for_status()
    return str(r.json()["token"])


async def bystander(server: Server, http: httpx.AsyncClient, samples: Samples, stop: asyncio.Event) -> None:
    """A practice table played through the WebSocket, answering each prompt with its default
    after 0.1 s; a new match when one ends."""
    token = await new_guest(http, server)
    headers = {"Authorization": f"Bearer {token}"}
    while not stop.is_set():
        r = await http.post(f"{server.http}/api/practice", json={"length": "east"}, headers=headers)
        if r.status_code != 201:
            samples.errors.append(f"practice: {r.status_code}")
            await asyncio.sleep(2)
            continue
        match = r.json()["match"]
        with contextlib.suppress(ConnectionClosed, OSError, TimeoutError):
            async with connect(server.ws, max_size=None, open_timeout=60) as ws:
                await play(ws, token, match, samples, stop)


async def play(ws: Any, token: str, match: str, samples: Samples, stop: asyncio.Event) -> None:
    await ws.send(json.dumps({"t": "hello", "token": token, "match": match, "last_v": 0}))
    v, pending = 0, None  # pending: (the v answered at, when sent)
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            frame = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
            if frame["t"] == "event":
                v = max(v, frame["v"])
                if pending is not None and frame["v"] > pending[0]:
                    now = time.monotonic()
                    samples.acts.append((now, (now - pending[1]) * 1000))
                    pending = None
                if frame["e"]["type"] == "MatchEnded":
                    return
            elif frame["t"] == "prompt" and frame["v"] == v:
                await asyncio.sleep(0.1)
                pending = (frame["v"], time.monotonic())
                await ws.send(json.dumps({"t": "act", "seq": frame["seq"], "a": frame["default"]}))


async def pinger(server: Server, samples: Samples, every_s: float, stop: asyncio.Event) -> None:
    async with httpx.AsyncClient(timeout=300) as http:
        while not stop.is_set():
            sent = time.monotonic()
            try:
                await http.get(f"{server.http}/api/health")
            except httpx.HTTPError as exc:
                samples.errors.append(f"ping: {type(exc).__name__}")
            now = time.monotonic()
            samples.pings.append((now, (now - sent) * 1000))
            await asyncio.sleep(max(0.0, every_s - (now - sent)))


# -- the attack -------------------------------------------------------------------------------


async def upload(http: httpx.AsyncClient, url: str, token: str, body: bytes) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    sent = time.monotonic()
    try:
        r = await http.post(url, content=body, headers=headers)
    except httpx.HTTPError as exc:
        return {"status": type(exc).__name__, "s": round(time.monotonic() - sent, 2), "bytes": 0}
    answer = {"status": r.status_code, "s": round(time.monotonic() - sent, 2), "bytes": len(r.content)}
    if r.status_code >= 400:
        with contextlib.suppress(ValueError):
            answer["code"] = r.json().get("error")
            answer["detail"] = str(r.json().get("detail", ""))[:100]
    return answer


async def open_wave(
    server: Server, http: httpx.AsyncClient, tokens: list[str], body: bytes, quiet_cpu_per_s: float
) -> dict[str, Any]:
    """Every guest of ``tokens`` opens ``body`` at once."""
    url = f"{server.http}/api/replays/open"
    cpu0, start = cpu_s(server.proc.pid), time.monotonic()
    answers = await asyncio.gather(*(upload(http, url, t, body) for t in tokens))
    cpu1, end = cpu_s(server.proc.pid), time.monotonic()
    spent = (cpu1 - cpu0) - quiet_cpu_per_s * (end - start)
    return {
        "log_bytes": len(body),
        "uploads": answers,
        "wall_s": round(end - start, 2),
        "cpu_s_per_upload": round(spent / len(tokens), 2),
        "span": (start, end),
    }


async def keep_wave(server: Server, http: httpx.AsyncClient, token: str, source: dict[str, Any]) -> dict[str, Any]:
    """30 padded logs kept, then the list read four times at once; then every kept log deleted."""
    pid, headers = server.proc.pid, {"Authorization": f"Bearer {token}"}
    start = time.monotonic()
    saves = [await upload(http, f"{server.http}/api/replays", token, padded_log(source, i).encode()) for i in range(30)]
    saved_s = time.monotonic() - start
    kept_db = server.database_bytes()
    await asyncio.sleep(1.0)
    rss_before, peak, listing = rss_mb(pid), [rss_mb(pid)], True

    async def sample() -> None:
        while listing:
            peak.append(rss_mb(pid))
            await asyncio.sleep(0.05)

    sampler = asyncio.create_task(sample())
    sent = time.monotonic()
    lists = await asyncio.gather(*(listing_of(http, server, headers) for _ in range(4)))
    list_s = time.monotonic() - sent
    listing = False
    await sampler
    await asyncio.sleep(1.0)
    rss_after = rss_mb(pid)
    ids = [item["id"] for item in lists[0].json()["logs"]] if lists[0].status_code == 200 else []
    for log_id in ids:
        await http.delete(f"{server.http}/api/replays/{log_id}", headers=headers)
    return {
        "saves": _count(saves),
        "saves_s": round(saved_s, 2),
        "list_status": [r.status_code for r in lists],
        "list_bytes": len(lists[0].content),
        "list_s": round(list_s, 2),  # with the waits for the meter, if any
        "rss_mb_before": round(rss_before, 1),
        "rss_mb_peak": round(max(peak), 1),
        "rss_mb_after": round(rss_after, 1),
        "db_bytes_kept": kept_db,
        "db_bytes_after_delete": server.database_bytes(),
        "deleted": len(ids),
    }


async def listing_of(http: httpx.AsyncClient, server: Server, headers: dict[str, str]) -> httpx.Response:
    """``GET /api/replays``, asked again while a log meter refuses it (429), for up to 90 s:
    the saves before may have spent the guest's minute, and the list's memory is the point."""
    deadline = time.monotonic() + 90
    while True:
        r = await http.get(f"{server.http}/api/replays", headers=headers)
        if r.status_code != 429 or time.monotonic() > deadline:
            return r
        await asyncio.sleep(float(r.headers.get("retry-after", "5")))


def _count(answers: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for a in answers:
        key = f"{a['status']} {a.get('code', '')}".strip()
        counts[key] = counts.get(key, 0) + 1
    return counts


async def attack(server: Server, args: argparse.Namespace, source: dict[str, Any]) -> dict[str, Any]:
    samples, stop = Samples(), asyncio.Event()
    report: dict[str, Any] = {"load_before": os.getloadavg()[0]}
    async with httpx.AsyncClient(timeout=args.timeout) as http:
        players = [
            asyncio.create_task(bystander(server, http, samples, stop)),
            asyncio.create_task(pinger(server, samples, args.ping_every, stop)),
        ]
        try:
            tokens = [await new_guest(http, server) for _ in range(6)]
            await asyncio.sleep(3)  # the first match under way
            cpu0, start = cpu_s(server.proc.pid), time.monotonic()
            await asyncio.sleep(args.window)
            quiet_rate = (cpu_s(server.proc.pid) - cpu0) / (time.monotonic() - start)
            report["quiet"] = samples.between(start, time.monotonic()) | {"cpu_cores": round(quiet_rate, 3)}
            for hands in (3273, 64):
                body = repeated_log(source, hands).encode()
                wave = await open_wave(server, http, tokens, body, quiet_rate)
                wave |= samples.between(*wave.pop("span"))
                report[f"open {hands}"] = wave
                await asyncio.sleep(2)
            report["keep"] = await keep_wave(server, http, tokens[0], source)
        finally:
            stop.set()
            for task in players:
                task.cancel()
            await asyncio.gather(*players, return_exceptions=True)
    report["rss_mb_server_and_children_at_end"] = round(tree_rss_mb(server.proc.pid), 1)
    report["errors"] = samples.errors[:20]
    report["load_after"] = os.getloadavg()[0]
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server-root", type=Path, default=ROOT, help="the checkout whose server runs")
    parser.add_argument("--source", type=Path, default=SOURCE, help="a real tenhou.net/6 log whose hands are repeated")
    parser.add_argument("--window", type=float, default=15.0, help="seconds of the quiet window")
    parser.add_argument("--ping-every", type=float, default=0.1)
    parser.add_argument("--bot-delay", type=float, default=0.2)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds any one request may take")
    parser.add_argument("--deadline", type=float, default=900.0, help="the whole run stops after this")
    parser.add_argument("--out", type=Path, help="also write the report here (JSON)")
    args = parser.parse_args()
    if not args.source.is_file():
        sys.exit(f"no source log at {args.source} (the shared test logs): pass --source FILE.json")
    source = json.loads(args.source.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="sanma-logattack-") as scratch:
        server = Server(args.server_root.resolve(), Path(scratch), args.bot_delay)
        try:
            server.wait_ready()
            commit = subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"], cwd=args.server_root, capture_output=True, text=True
            ).stdout.strip()
            report = {"server": f"{args.server_root} ({commit})"}
            report |= asyncio.run(asyncio.wait_for(attack(server, args, source), args.deadline))
        finally:
            server.stop()
    text = json.dumps(report, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
