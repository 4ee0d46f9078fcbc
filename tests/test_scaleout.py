"""Scale-out end to end: two real ``sanma serve`` processes sharing a scratch PostgreSQL and a
scratch ``redis-server``.  A match created through process A is played through process B
(frames relayed over Redis); killing A with SIGKILL mid-match, B takes the room over from
the durable log and the match goes on to its end with every event already sent unchanged.
Also: two players of one friend room on different processes, adoption of a room nobody is
connected to, and two Chromium pages on the two processes playing one room.  Skipped
locally without redis-server/PostgreSQL (or Chromium), a failure in CI."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from websockets.sync.client import connect

from sanma.engine.events import MatchEnded
from sanma.engine.replay import replay
from sanma.engine.visibility import redact
from sanma.server.bus import MemoryBus
from sanma.server.codec import action_to_wire, event_to_wire
from sanma.server.protocol import wire_text
from sanma.server.rooms.host import LIVE_ROOMS, RoomHost
from sanma.server.rooms.remote import RemoteRoom
from sanma.store import db
from sanma.store.matches import MatchRecord, load_events
from sanma.store.tables import matches
from tests.fixtures.browser import DESKTOP, PHONE, open_page
from tests.fixtures.room_pages import play_both_to_the_end
from tests.fixtures.scaleout import LEASE_TTL_S, OPERATOR, Node, Player, new_practice, node_pair, stored_log
from tests.services import scratch_redis


def run_in_own_loop(main: Any) -> None:
    """``main()`` on an event loop of its own thread (the module's Playwright fixture keeps an
    event loop running on the main thread, where ``asyncio.run`` refuses to start).  The
    tasks left afterwards are cancelled and must end within 10 s: one that ignores its
    cancellation fails the test by name instead of hanging it."""

    async def run() -> None:
        try:
            await main()
        finally:
            current = asyncio.current_task()
            left = [t for t in asyncio.all_tasks() if t is not current]
            for task in left:
                task.cancel()
            if left:
                _, stuck = await asyncio.wait(left, timeout=10.0)
                assert not stuck, f"tasks that ignored their cancellation: {[t.get_name() for t in stuck]}"

    def own_loop() -> None:
        # Not asyncio.run: its own clean-up would wait for a stuck task for ever.
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(run())
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()

    with ThreadPoolExecutor(1) as pool:
        pool.submit(own_loop).result()


def check_against_log(frames: list[dict[str, Any]], log: list[Any], seat: int | None) -> None:
    """Every event frame is the stored event at its ``v`` redacted for the seat (so nothing
    sent was lost or changed), every ``v`` was sent, and each prompt lists the legal actions."""
    seen: set[int] = set()
    for frame in frames:
        if frame["t"] == "event":
            assert frame["e"] == event_to_wire(redact(log[frame["v"] - 1], seat), True)
            seen.add(frame["v"])
        elif frame["t"] == "prompt":
            state = replay(log[: frame["v"]])
            assert frame["legal"] == [action_to_wire(a, True) for a in state.legal_actions(seat)]
    assert seen == set(range(1, len(log) + 1))


def _coached(engine: Any, match: str) -> bool:
    with engine.connect() as conn:
        return bool(conn.execute(select(matches.c.coached).where(matches.c.id == match)).scalar_one())


def lease_owner(redis_url: str, match: str) -> str | None:
    import redis

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        value = client.get(f"lease:room:{match}")
        return None if value is None else str(value)
    finally:
        client.close()


class TestOnOnePair:
    """The tests that neither kill a process nor need settings of their own share one pair (a
    pair takes seconds to start); each plays its own match or room.  A class, so that the pair
    is stopped before the tests below start theirs: those take the same names, and every live
    process adopts the rooms whose owner died."""

    @pytest.fixture(scope="class")
    @classmethod
    def nodes(
        cls, database_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
    ) -> Iterator[tuple[Node, Node]]:
        with node_pair(database_url, redis_url, tmp_path_factory.mktemp("pair")) as pair:
            yield pair

    @pytest.mark.slow
    def test_a_match_created_on_one_process_is_played_through_another(self, nodes, database_url, redis_url):
        a, b = nodes
        token, match = new_practice(a)
        assert lease_owner(redis_url, match) == "node-a"  # the creator owns the room
        player = Player(b, token, match)
        welcome = json.loads(player.ws.recv(timeout=20))
        assert (welcome["t"], welcome["match"], welcome["seat"]) == ("welcome", match, 0)
        player.frames.append(welcome)
        assert player.play(player.next_prompt_or_end()) is None
        player.close()
        log = stored_log(database_url, match)
        assert isinstance(log[-1], MatchEnded)
        check_against_log(player.frames, log, 0)
        assert lease_owner(redis_url, match) == "node-a"  # B only relayed

    @pytest.mark.slow
    def test_next_hand_reaches_the_owner_over_the_bus(self, nodes, database_url, redis_url):
        # The break between hands (docs/rooms.md): a player on B is in A's break, and its
        # "Next hand" travels over the room bus to A, which deals only then.
        a, b = nodes
        token, match = new_practice(a, length="east")
        ws = connect(b.ws, max_size=None, legacy=True)
        ws.send(json.dumps({"t": "hello", "token": token, "match": match, "last_v": 0}))
        end_v = 0
        while True:
            frame = json.loads(ws.recv(timeout=20))
            if frame["t"] == "prompt":
                ws.send(json.dumps({"t": "act", "seq": frame["seq"], "a": frame["default"]}))
            elif frame["t"] == "event":
                end_v = frame["v"]
            elif frame["t"] == "hand_break":
                break
        assert frame == {"t": "hand_break", "v": end_v, "ready": [], "waiting": [0], "left_s": None}
        with pytest.raises(TimeoutError):
            ws.recv(timeout=1.0)  # A deals nothing while the player reads
        engine = db.open_engine(database_url)
        try:
            assert len(load_events(engine, match)) == end_v  # the next deal is not even stored
        finally:
            engine.dispose()
        ws.send(json.dumps({"t": "next_hand", "v": end_v}))
        ready = json.loads(ws.recv(timeout=20))  # A heard it: the seat is ready
        assert (ready["t"], ready["ready"], ready["waiting"]) == ("hand_break", [0], [])
        first = json.loads(ws.recv(timeout=20))
        assert (first["t"], first["v"], first["e"]["type"]) == ("event", end_v + 1, "HandStarted")
        ws.close()
        assert lease_owner(redis_url, match) == "node-a"  # B only relayed

    @pytest.mark.slow
    def test_the_coach_reaches_a_player_through_another_process(self, nodes, database_url, redis_url):
        # docs/coach.md: the toggle travels to the owner (A) over the room bus, and A's table
        # sends the coach's frames back through B's relay; the match is marked coached.
        a, b = nodes
        token, match = new_practice(a)
        ws = connect(b.ws, max_size=None, legacy=True)
        ws.send(json.dumps({"t": "hello", "token": token, "match": match, "last_v": 0}))
        assert json.loads(ws.recv(timeout=20))["t"] == "welcome"
        ws.send(json.dumps({"t": "coach", "on": True}))
        prompts: dict[int, dict[str, Any]] = {}
        states: list[bool] = []
        while True:
            try:
                frame = json.loads(ws.recv(timeout=15))
            except TimeoutError:  # no advice for this prompt (a late coach sends none): play on
                last = prompts[max(prompts)]
                ws.send(json.dumps({"t": "act", "seq": last["seq"], "a": last["default"]}))
                continue
            assert not (frame["t"] == "event" and frame["e"]["type"] == "MatchEnded"), "no coach frame all match"
            if frame["t"] == "prompt":
                prompts[frame["seq"]] = frame
            elif frame["t"] == "coach_state":
                states.append(frame["on"])
            elif frame["t"] == "hand_break":
                ws.send(json.dumps({"t": "next_hand", "v": frame["v"]}))
            elif frame["t"] == "coach":
                break
        assert states == [True]
        assert frame["seq"] in prompts  # the advice on a prompt the player was sent
        assert frame["choices"] and frame["choices"][0]["a"] in prompts[frame["seq"]]["legal"]
        ws.close()
        engine = db.open_engine(database_url)
        try:
            deadline = time.monotonic() + 10
            while not _coached(engine, match):  # marked off the loop, just after the toggle
                assert time.monotonic() < deadline, "the match was never marked coached"
                time.sleep(0.1)
        finally:
            engine.dispose()
        assert lease_owner(redis_url, match) == "node-a"  # B only relayed

    @pytest.mark.slow
    def test_a_friend_room_played_through_another_process_has_no_coach(self, nodes):
        a, b = nodes
        host = httpx.post(f"{a.http}/api/guest").json()["token"]
        auth = {"Authorization": f"Bearer {host}"}
        r = httpx.post(f"{a.http}/api/rooms", json={"length": "one-hand", "red_fives": True}, headers=auth)
        code = r.json()["code"]
        for seat in (1, 2):
            r = httpx.post(f"{a.http}/api/rooms/{code}/bots", json={"seat": seat, "level": "beginner"}, headers=auth)
            assert r.status_code == 200, r.text
        match = httpx.post(f"{a.http}/api/rooms/{code}/start", headers=auth).json()["match"]
        ws = connect(b.ws, max_size=None, legacy=True)  # the host plays A's room through B
        ws.send(json.dumps({"t": "hello", "token": host, "match": match, "last_v": 0}))
        assert json.loads(ws.recv(timeout=20))["t"] == "welcome"
        ws.send(json.dumps({"t": "coach", "on": True}))
        while (frame := json.loads(ws.recv(timeout=20)))["t"] != "error":
            assert frame["t"] not in ("coach", "coach_state"), frame
        assert frame["code"] == "no_coach"  # decided by A's table, sent back through B
        ws.close()

    @pytest.mark.slow
    def test_two_players_of_one_friend_room_on_different_processes_play_a_full_hand(self, nodes, database_url):
        a, b = nodes
        host, guest = (httpx.post(f"{n.http}/api/guest").json()["token"] for n in (a, b))

        def call(node: Node, token: str, path: str, body: Any = None) -> dict[str, Any]:
            r = httpx.post(f"{node.http}/api/rooms{path}", json=body, headers={"Authorization": f"Bearer {token}"})
            assert r.status_code in (200, 201), r.text
            return dict(r.json())

        code = call(a, host, "", {"length": "one-hand", "red_fives": True})["code"]
        call(b, guest, f"/{code}/join")  # the lobby is in the shared database
        call(a, host, f"/{code}/bots", {"seat": 2, "level": "beginner"})
        match = call(a, host, f"/{code}/start")["match"]
        players = {0: Player(a, host, match), 1: Player(b, guest, match)}  # seat 1 reaches A's room through B
        # A guest with no seat watches through B, too: nothing concealed (live: tests/test_watch_scaleout.py).
        watcher = Player(b, httpx.post(f"{b.http}/api/guest").json()["token"], match)
        errors: list[BaseException] = []

        def play(player: Player) -> None:
            try:
                assert player.play(player.next_prompt_or_end(timeout=60)) is None
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=play, args=(p,), daemon=True) for p in players.values()]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=180)
        assert not errors, errors
        log = stored_log(database_url, match)
        assert isinstance(log[-1], MatchEnded)
        for seat, player in players.items():
            assert next(f for f in player.frames if f["t"] == "welcome")["seat"] == seat
            check_against_log(player.frames, log, seat)
            player.close()
        assert watcher.next_prompt_or_end(timeout=30) is None  # the one hand, once the match ended
        assert next(f for f in watcher.frames if f["t"] == "welcome")["spectator"] is True
        check_against_log(watcher.frames, log, None)  # redacted for nobody
        watcher.close()


@pytest.mark.slow
@pytest.mark.parametrize("reconnect", [True, False], ids=["player-reconnects", "player-stays"])
def test_killing_the_owner_mid_match_loses_nothing(nodes, database_url, redis_url, reconnect):
    a, b = nodes
    token, match = new_practice(a, seat=1)
    player = Player(b, token, match)
    prompt = player.play(player.next_prompt_or_end(), steps=3)
    assert prompt is not None, "the match ended too early for this test"
    before = [f for f in player.frames if f["t"] == "event"]
    a.kill()
    assert lease_owner(redis_url, match) == "node-a"  # a dead owner's lease lingers until its TTL
    if reconnect:
        player.close()
        player = Player(b, token, match, last_v=before[-1]["v"])
        assert json.loads(player.ws.recv(timeout=20))["t"] == "welcome"
    # Else B's watchdog sees the lease lapse, takes the room and moves the connection:
    # a welcome, the events the player lacks, then the prompt again.
    again = player.next_prompt_or_end(timeout=LEASE_TTL_S * 10)
    assert again is not None and again["v"] == prompt["v"]
    assert again["legal"] == prompt["legal"]
    assert lease_owner(redis_url, match) == "node-b"
    assert player.play(again) is None
    player.close()
    log = stored_log(database_url, match)
    assert isinstance(log[-1], MatchEnded)
    check_against_log(before + player.frames, log, 1)


@pytest.mark.slow
def test_a_room_whose_owner_died_is_adopted_and_plays_on_with_nobody_connected(database_url, redis_url, tmp_path):
    # A friend room's away seat plays on by default actions after a grace: the match runs
    # by itself, so only adoption (no hello anywhere) can carry it on after its owner dies.
    fast = {"SANMA_AWAY_GRACE": "0.4", "SANMA_TURN": "5", "SANMA_BANK": "0"}
    a = Node("node-a", database_url, redis_url, tmp_path, **fast)
    b = Node("node-b", database_url, redis_url, tmp_path, **fast)
    try:
        token = httpx.post(f"{a.http}/api/guest").json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        code = httpx.post(f"{a.http}/api/rooms", json={"length": "one-hand"}, headers=auth).json()["code"]
        for seat in (1, 2):
            r = httpx.post(f"{a.http}/api/rooms/{code}/bots", json={"seat": seat, "level": "beginner"}, headers=auth)
            assert r.status_code == 200, r.text
        match = httpx.post(f"{a.http}/api/rooms/{code}/start", headers=auth).json()["match"]
        player = Player(a, token, match)
        assert player.play(player.next_prompt_or_end(), steps=2) is not None
        player.close()
        a.kill()
        before = len(stored_log(database_url, match))
        deadline = time.monotonic() + 90
        while True:
            log = stored_log(database_url, match)
            if isinstance(log[-1], MatchEnded):
                break
            assert time.monotonic() < deadline, f"the match did not go on (v={len(log)})"
            time.sleep(0.5)
        assert len(log) > before
        assert lease_owner(redis_url, match) == "node-b"
        check_against_log(player.frames, log[: player.v], 0)
    finally:
        a.stop()
        b.stop()


@pytest.mark.slow
def test_both_processes_are_ready_and_share_the_rate_limits(database_url, redis_url, tmp_path):
    # 4 room look-ups a minute per guest and address: 2 through each process use them all up,
    # where per-process counting would allow 4 more on the other process.
    low = {"SANMA_ROOM_JOINS_PER_MIN": "4", "SANMA_ACCOUNT_WRITES_PER_MIN": "3"}
    a = Node("node-a", database_url, redis_url, tmp_path, **low)
    b = Node("node-b", database_url, redis_url, tmp_path, **low)
    try:
        for node in (a, b):  # ready: PostgreSQL and Redis answer (the node's name: for the operator)
            ready = httpx.get(f"{node.http}/api/ready", headers={"Authorization": f"Bearer {OPERATOR}"}).json()
            assert (ready["ok"], ready["bus"], ready["node"]) == (True, "redis", node.name)
        token = httpx.post(f"{a.http}/api/guest").json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        for node in (a, b, a, b):
            assert httpx.post(f"{node.http}/api/rooms/AAAAAA/join", headers=auth).status_code == 404
        for node in (a, b):
            r = httpx.post(f"{node.http}/api/rooms/AAAAAA/join", headers=auth)
            assert (r.status_code, r.json()["error"]) == (429, "rate_limited")
        names = [httpx.post(f"{n.http}/api/account/name", json={"name": "Ana"}, headers=auth) for n in (b, a, b, a)]
        assert [r.status_code for r in names] == [200, 200, 200, 429]
    finally:
        a.stop()
        b.stop()


@pytest.mark.slow
def test_two_browsers_on_two_processes_play_one_room_to_the_end(browser, database_url, redis_url, tmp_path):
    """The issue's end-to-end check: Chromium pages on different processes, one room, a full hand."""
    slow = {"SANMA_TURN": "60", "SANMA_BANK": "30"}  # the pages click at their own pace
    a = Node("node-a", database_url, redis_url, tmp_path, **slow)
    b = Node("node-b", database_url, redis_url, tmp_path, **slow)
    try:
        host = open_page(browser, a, DESKTOP, lang="en")
        host.wait_for_selector("[data-room-cmd=open]")
        host.click("[data-room-cmd=open]")
        host.click("button[data-room-opt=length][data-value=one-hand]")
        host.click("[data-room-cmd=create]")
        code = host.inner_text("#room-code-shown")
        friend = open_page(browser, b, PHONE, lang="en")
        friend.wait_for_selector("[data-room-cmd=open]")
        friend.goto(f"{b.http}/?room={code}")  # the invite link, opened on the other process
        friend.wait_for_selector("#room-code-shown")
        host.wait_for_function("() => document.querySelectorAll('.room-seat.human').length === 2", timeout=20_000)
        host.select_option('select[data-room-level="2"]', "beginner")
        host.click('[data-room-cmd=add-bot][data-seat="2"]')
        host.wait_for_selector(".room-seat.bot")
        host.click("[data-room-cmd=start]")
        for page in (host, friend):
            page.wait_for_selector(".hand-tile", timeout=30_000)
        friend.wait_for_selector('[data-presence-seat="0"][data-state=connected]', timeout=20_000)
        counts = play_both_to_the_end([host, friend])
        assert counts.get("match-end") == 2, counts
        match = host.evaluate("() => localStorage.getItem('sanma.match')")
        assert match and match == friend.evaluate("() => localStorage.getItem('sanma.match')")
        assert lease_owner(redis_url, match) == "node-a"  # the friend's seat was relayed by B
        assert isinstance(stored_log(database_url, match)[-1], MatchEnded)
        for page in (host, friend):
            assert page.errors == [], page.errors
            page.close()
    finally:
        a.stop()
        b.stop()


@pytest.mark.slow
def test_when_a_relaying_process_dies_the_owner_sees_its_player_away(database_url, redis_url, tmp_path):
    a = Node("node-a", database_url, redis_url, tmp_path, SANMA_AWAY_GRACE="0.3")
    b = Node("node-b", database_url, redis_url, tmp_path, SANMA_AWAY_GRACE="0.3")
    try:
        host, guest = (httpx.post(f"{n.http}/api/guest").json()["token"] for n in (a, b))
        auth = {"Authorization": f"Bearer {host}"}
        code = httpx.post(f"{a.http}/api/rooms", json={"length": "one-hand"}, headers=auth).json()["code"]
        r = httpx.post(f"{b.http}/api/rooms/{code}/join", headers={"Authorization": f"Bearer {guest}"})
        assert r.status_code == 200, r.text
        httpx.post(f"{a.http}/api/rooms/{code}/bots", json={"seat": 2, "level": "beginner"}, headers=auth)
        match = httpx.post(f"{a.http}/api/rooms/{code}/start", headers=auth).json()["match"]
        player, friend = Player(a, host, match), Player(b, guest, match)
        states: dict[int, str] = {}

        def presence_until(who: Player, seat: int, state: str) -> None:
            deadline = time.monotonic() + 30
            while states.get(seat) != state:
                assert time.monotonic() < deadline, f"seat {seat} never {state}: {states}"
                frame = json.loads(who.ws.recv(timeout=30))
                who.frames.append(frame)
                if frame["t"] == "presence":
                    states[frame["seat"]] = frame["state"]
                elif frame["t"] == "prompt" and frame["v"] == who.v:
                    who.answer(frame)
                elif frame["t"] == "event":
                    who.v = max(who.v, frame["v"])

        presence_until(player, 1, "connected")  # the friend's join reached A through Redis
        b.kill()
        presence_until(player, 1, "away")  # a frame for it reached nobody: A let the connection go
        friend.close()
        assert player.play(player.next_prompt_or_end(timeout=60)) is None  # the away seat plays on
        assert isinstance(stored_log(database_url, match)[-1], MatchEnded)
    finally:
        a.stop()
        b.stop()


# -- the seam in one process: two RoomHosts on one MemoryBus (no Redis, no database) --------


class FakeRoom:
    """Records the calls a RoomHost makes; answers a join with a welcome and its backlog."""

    def __init__(self, match_id: str, frames: int) -> None:
        self.id = match_id
        self.record = MatchRecord(match_id, "g", "practice", {}, 1, "beginner", 0, "playing", NOW, NOW)
        self.failed: BaseException | None = None
        self.finished = False
        self.log = [{"t": "event", "v": v, "e": {"type": "X"}} for v in range(1, frames + 1)]
        self.outboxes: dict[Any, int | None] = {}
        self.calls: list[tuple[Any, ...]] = []

    @property
    def v(self) -> int:
        return len(self.log)

    def join(self, outbox: Any, last_v: int, seat: int | None = None) -> None:
        self.calls.append(("join", last_v, seat))
        self.outboxes[outbox] = seat
        outbox.push(wire_text({"t": "welcome", "v": self.v, "seat": seat}))
        for frame in self.log[last_v:]:
            outbox.push(wire_text(frame))

    def submit(self, outbox: Any, seq: int, action: dict[str, Any]) -> None:
        self.calls.append(("act", seq, action))
        self.log.append({"t": "event", "v": self.v + 1, "e": {"type": "Acted", "seq": seq}})
        for box in self.outboxes:
            box.push(wire_text(self.log[-1]))

    def watch(self, outbox: Any, last_v: int) -> None:
        self.calls.append(("watch", last_v))
        self.outboxes[outbox] = None
        outbox.push(wire_text({"t": "welcome", "v": self.v, "spectator": True}))
        for frame in self.log[last_v:]:
            outbox.push(wire_text(frame))

    def resync(self, outbox: Any, from_v: int) -> None:
        self.calls.append(("resync", from_v))

    def leave(self, outbox: Any) -> None:
        self.calls.append(("leave",))
        self.outboxes.pop(outbox, None)

    def set_speed(self, speed: str) -> None:
        self.calls.append(("speed", speed))

    def set_coach(self, outbox: Any, on: bool) -> None:
        self.calls.append(("coach", on))
        outbox.push(wire_text({"t": "coach_state", "on": on}))  # only to the connection that asked


NOW = datetime.now(UTC)


class Inbox:
    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    def push(self, frame: str) -> None:
        self.frames.append(json.loads(frame))  # frames arrive as their JSON text


async def settle(until: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


def rebuild_on(host: RoomHost, owned: FakeRoom) -> list[FakeRoom]:
    """Bind ``host`` to take ``owned``'s room over as a fresh fake "rebuilt from the log" (or
    relay to it while another process holds it); the rooms it rebuilt, in order."""
    rebuilt: list[FakeRoom] = []

    async def takeover(match_id: str) -> Any:
        if await host.claim(match_id):
            room = FakeRoom(match_id, frames=len(owned.log))
            host.serve(room)
            rebuilt.append(room)
            return room
        return await host.remote(owned.record, owned.v)

    async def lost(_match_id: str) -> None:
        return None

    host.bind(takeover, lost)
    return rebuilt


def test_remote_room_relays_calls_and_frames_and_fails_over_to_a_rebuilt_room():
    async def main() -> None:
        bus = MemoryBus()
        a, b = RoomHost(bus, "a", lease_ttl_s=0.3), RoomHost(bus, "b", lease_ttl_s=0.3)
        owned = FakeRoom("m1", frames=3)
        rebuilt = rebuild_on(b, owned)
        assert await a.claim("m1") and not await b.claim("m1")
        a.serve(owned)
        assert await bus.sets.members(LIVE_ROOMS) == {"m1"}
        remote = await b.remote(owned.record, owned.v)
        assert isinstance(remote, RemoteRoom) and remote.owner == "a" and remote.v == 3
        inbox = Inbox()
        remote.join(inbox, 1, 2)
        await settle(lambda: len(inbox.frames) == 3)
        assert inbox.frames == [{"t": "welcome", "v": 3, "seat": 2}, *owned.log[1:]]
        remote.submit(inbox, 7, {"type": "pass"})
        remote.resync(inbox, 2)
        remote.set_speed("fast")
        await settle(lambda: len(owned.calls) == 4)
        assert owned.calls == [("join", 1, 2), ("act", 7, {"type": "pass"}), ("resync", 2), ("speed", "fast")]
        await settle(lambda: len(inbox.frames) == 4)
        assert inbox.frames[-1]["e"] == {"type": "Acted", "seq": 7}
        remote.set_coach(inbox, True)  # the owner's answer comes back through the relay
        await settle(lambda: len(inbox.frames) == 5)
        assert owned.calls[-1] == ("coach", True) and inbox.frames[-1] == {"t": "coach_state", "on": True}

        # The owner dies without a word: its keeper stops, its lease lapses; B's keeper moves
        # the connection to the room it rebuilt, at the last version the connection was sent.
        a._keeper.cancel()  # type: ignore[union-attr]
        a._served.clear()
        await settle(lambda: remote.moved, timeout=5)
        assert await bus.leases.owner("lease:room:m1") == "b"
        assert rebuilt and rebuilt[0].calls == [("join", 4, 2)]
        assert inbox.frames[-1] == {"t": "welcome", "v": 4, "seat": 2}
        remote.submit(inbox, 8, {"type": "pass"})  # straight to the new room now
        assert rebuilt[0].calls[-1] == ("act", 8, {"type": "pass"})
        remote.set_coach(inbox, True)
        assert rebuilt[0].calls[-1] == ("coach", True)
        assert inbox.frames[-1] == {"t": "coach_state", "on": True}
        remote.leave(inbox)
        assert rebuilt[0].calls[-1] == ("leave",)

        # A finished match leaves rooms:live at the next tick.
        rebuilt[0].finished = True
        await b.tick()
        assert await bus.sets.members(LIVE_ROOMS) == set()
        await b.close()

    run_in_own_loop(main)


def test_a_spectator_watches_through_a_remote_room_and_keeps_watching_after_a_fail_over():
    async def main() -> None:
        bus = MemoryBus()
        a, b = RoomHost(bus, "a", lease_ttl_s=0.3), RoomHost(bus, "b", lease_ttl_s=0.3)
        owned = FakeRoom("m3", frames=2)
        rebuilt = rebuild_on(b, owned)
        assert await a.claim("m3")
        a.serve(owned)
        remote = await b.remote(owned.record, owned.v)
        watcher = Inbox()
        remote.watch(watcher, 1)
        await settle(lambda: len(watcher.frames) == 2)
        assert owned.calls == [("watch", 1)]  # watched, never joined to a seat
        assert watcher.frames == [{"t": "welcome", "v": 2, "spectator": True}, owned.log[1]]
        owned.submit(next(iter(owned.outboxes)), 5, {"type": "pass"})  # a later frame is relayed
        await settle(lambda: len(watcher.frames) == 3)

        a._keeper.cancel()  # type: ignore[union-attr]
        a._served.clear()
        await settle(lambda: remote.moved, timeout=5)
        assert rebuilt and rebuilt[0].calls == [("watch", 3)]  # from the last version it was sent
        remote.leave(watcher)
        assert rebuilt[0].calls[-1] == ("leave",)
        await b.close()

    run_in_own_loop(main)


def test_a_relayed_connection_that_reaches_nobody_is_let_go():
    async def main() -> None:
        bus = MemoryBus()
        a, b = RoomHost(bus, "a"), RoomHost(bus, "b")
        room = FakeRoom("m2", frames=1)
        assert await a.claim("m2")
        a.serve(room)
        remote = await b.remote(room.record, room.v)
        inbox = Inbox()
        remote.join(inbox, 0)
        await settle(lambda: len(inbox.frames) == 2)
        assert len(room.outboxes) == 1
        await remote.close()  # B stops listening without a leave (as if it died)
        room.submit(next(iter(room.outboxes)), 1, {"type": "pass"})  # a frame for nobody
        await settle(lambda: not room.outboxes)
        assert room.calls[-1] == ("leave",)
        await a.close()
        await b.close()

    run_in_own_loop(main)


# -- leases through a stalled event loop (issue 15) -----------------------------------------------


@pytest.mark.slow
def test_a_stalled_loop_keeps_its_leases_on_memory_and_on_redis():
    """A process's event loop that stands still longer than a lease lives (a burst of work):
    the lease lapses (renewals run on the loop only) and nobody took it meanwhile, so the next
    tick takes it again.  Either way the room is not stopped here."""
    with scratch_redis() as url:
        for bus_url in ("", url):

            async def main(bus_url: str = bus_url) -> None:
                host = RoomHost.open(bus_url, "a", lease_ttl_s=1.5)
                room = FakeRoom("m9", frames=1)
                lost: list[str] = []

                async def takeover(_match_id: str) -> Any:
                    return None

                async def gone(match_id: str) -> None:
                    lost.append(match_id)

                host.bind(takeover, gone)
                assert await host.claim("m9")
                host.serve(room)
                host.start()
                # The loop stands still for three leases' time.
                time.sleep(4.5)
                assert await host.bus.leases.owner("lease:room:m9") is None  # it lapsed
                await host.tick()
                assert lost == [] and host.owned == ["m9"]
                assert await host.bus.leases.owner("lease:room:m9") == "a"
                await host.close()

            run_in_own_loop(main)


@pytest.mark.slow
def test_a_lease_taken_by_another_process_during_a_stall_stops_the_room_here():
    """If another process took the lapsed lease meanwhile (a player of the room connected
    there), the stalled process must not take it back: it stops its room (no two writers)."""
    with scratch_redis() as url:

        async def main() -> None:
            host = RoomHost.open(url, "a", lease_ttl_s=1.0)
            lost: list[str] = []

            async def takeover(_match_id: str) -> Any:
                return None

            async def gone(match_id: str) -> None:
                lost.append(match_id)

            host.bind(takeover, gone)
            assert await host.claim("m9")
            host.serve(FakeRoom("m9", frames=1))
            host.start()
            time.sleep(1.5)  # the loop stands still past the lease's life
            assert await host.bus.leases.acquire("lease:room:m9", "b", 30.0)
            await host.tick()
            assert lost == ["m9"] and host.owned == []
            assert await host.bus.leases.owner("lease:room:m9") == "b"
            await host.close()

        run_in_own_loop(main)
