"""Durability with a real process: ``sanma serve`` on a SQLite file, a room with two human
clients and a bot, some steps played, then ``kill -9``; a new process on the same database,
both clients reconnect with their last ``v`` and the match goes on from the same point to its
end.  Every event any client was sent before the kill is in the stored log (events are stored
before they are sent), and every frame of both seats is the stored log redacted for the seat."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from sanma.engine.events import MatchEnded
from sanma.server.settings import Settings
from sanma.store import db
from sanma.store.matches import load_events
from tests.fixtures.rooms import Player, play_all
from tests.fixtures.server import check_frames_against_log, choose, free_port, full_log
from tests.services import ServeProcess


class Serve(ServeProcess):
    """``sanma serve`` as a child process on one SQLite file."""

    def __init__(self, db_url: str, port: int, log: Path) -> None:
        env = {
            "SANMA_DATABASE_URL": db_url,
            "SANMA_BOT_DELAY": "0",
            "SANMA_RATE_PER_S": "500",
            "SANMA_RATE_BURST": "1000",
            "SANMA_TURN": "120",
            "SANMA_AWAY_GRACE": "120",  # a seat waits for its player to come back
        }
        super().__init__(port, env, log)


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{(tmp_path / 'rooms.db').as_posix()}"


@pytest.fixture
def serve(db_url: str, tmp_path: Path) -> Iterator[list[Serve]]:
    started: list[Serve] = []
    yield started
    for proc in started:
        proc.stop()


def post(live: Serve, token: str, path: str, body: object = None, status: int = 200) -> dict[str, object]:
    r = httpx.post(f"{live.http}/api{path}", json=body, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == status, r.text
    return dict(r.json())


def drive(players: list[Player], answers: int) -> None:
    """Answer prompts on both connections, in whatever order they come, ``answers`` times."""
    done = 0
    while done < answers:
        for p in players:
            try:
                frame = p.recv(timeout=0.05)
            except TimeoutError:
                continue
            if frame["t"] == "prompt" and frame["seq"] not in p.answered:
                p.answered.add(frame["seq"])
                p.send({"t": "act", "seq": frame["seq"], "a": choose(frame)})
                done += 1


def drain(player: Player) -> None:
    """Read what the dying server still sent, until the socket closes."""
    try:
        while True:
            player.recv(timeout=5)
    except (ConnectionClosed, TimeoutError, OSError):
        pass


@pytest.mark.slow
def test_kill_9_mid_room_and_resume_on_the_same_database(serve, db_url, tmp_path):
    port = free_port()
    live = Serve(db_url, port, tmp_path / "serve.log")
    serve.append(live)
    tokens = [str(httpx.post(f"{live.http}/api/guest").json()["token"]) for _ in range(2)]
    room = post(live, tokens[0], "/rooms", {"length": "one-hand"}, 201)
    code = room["code"]
    post(live, tokens[1], f"/rooms/{code}/join")
    post(live, tokens[0], f"/rooms/{code}/bots", {"seat": 2, "level": "beginner"})
    match = str(post(live, tokens[0], f"/rooms/{code}/start")["match"])
    before = [Player(live, tokens[s], match) for s in range(2)]  # type: ignore[arg-type]
    drive(before, 8)
    live.kill()
    for p in before:
        drain(p)
        p.close()

    engine = db.open_engine(db_url)
    try:
        stored = len(load_events(engine, match))
    finally:
        engine.dispose()
    sent = max(f["v"] for p in before for f in p.events())
    assert sent <= stored  # nothing a client saw is missing from the log

    live = Serve(db_url, port, tmp_path / "serve.log")
    serve.append(live)
    after = []
    for seat, p in enumerate(before):
        last_v = p.events()[-1]["v"]
        again = Player(live, tokens[seat], match, last_v=last_v)  # type: ignore[arg-type]
        welcome = again.until("welcome")
        # The first reconnect rebuilds the room at the stored log; a bot whose turn it was then
        # plays on at once, so a welcome may already be past it (the no-gap check and the
        # check against the log below hold every event across the restart).
        assert welcome["seat"] == seat
        assert welcome["v"] >= stored
        again.frames = p.frames + again.frames
        # A prompt asked again by the new process (an answer the old one never stored) is answered again.
        again.answered = set()
        after.append(again)
    play_all(after)
    settings = Settings(database_url=db_url)
    for seat, p in enumerate(after):
        versions = [f["v"] for f in p.events()]
        assert sorted(set(versions)) == list(range(1, versions[-1] + 1))  # no gap across the restart
        log = check_frames_against_log(p, settings, match, seat)  # type: ignore[arg-type]
        assert isinstance(log[-1], MatchEnded)
        p.close()
    assert len(full_log(settings, match)) >= stored
    room_now = httpx.get(f"{live.http}/api/rooms/{code}", headers={"Authorization": f"Bearer {tokens[0]}"}).json()
    assert room_now["status"] == "ended"
