"""Stamps at the table (docs/rooms.md, "Stamps"), over real sockets: a seated player of a friend
room sends one of the fixed stamps, every seat and spectator is sent it with the sender's seat;
practice and spectators are refused (``no_stamps``), an unknown stamp is ``bad_schema``, a seat's
allowance is shared by its sockets, and nothing reaches the match log.  Also through a second
server process (the room bus)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from sanma.server import protocol
from sanma.server.protocol import ProtocolError, SendStamp, parse_client_frame
from sanma.server.rooms import busframes
from sanma.server.rooms.friend import FriendSeating
from sanma.server.rooms.practice import PracticeSeating
from sanma.server.rooms.table import STAMP_BURST
from sanma.store import db
from sanma.store.matches import event_count
from tests.fixtures.rooms import Api, Player
from tests.fixtures.scaleout import Node
from tests.fixtures.server import LiveServer, new_guest, new_match, serving


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from serving(tmp_path_factory.mktemp("stamps") / "data")


def _room(live: LiveServer) -> tuple[Api, Api, str]:
    """A started friend room: the host at seat 0, a friend at seat 1, a bot at seat 2, no turn
    clock (a prompt waits for its player); the host, the friend and the match."""
    host, friend = Api(live), Api(live)
    code = host.ok("POST", "", {"length": "one-hand", "red_fives": True, "turn_timer": "off"}, 201)["code"]
    friend.ok("POST", f"/{code}/join")
    host.ok("POST", f"/{code}/bots", {"seat": 2, "level": "beginner"})
    match = host.ok("POST", f"/{code}/start")["match"]
    return host, friend, match


def _stamps(player: Player) -> list[dict[str, Any]]:
    return [f for f in player.frames if f["t"] == "stamp"]


def _recv_until(player: Player, wanted: int, t: str = "stamp") -> list[dict[str, Any]]:
    """Read until ``wanted`` frames of type ``t`` arrived; those frames."""
    while len(got := [f for f in player.frames if f["t"] == t]) < wanted:
        player.recv(timeout=20)
    return got


def test_the_stamp_frame_is_checked() -> None:
    assert parse_client_frame('{"t":"stamp","id":"nice"}', 4096) == SendStamp("nice")
    for bad in (
        '{"t":"stamp"}',
        '{"t":"stamp","id":"boo"}',  # not one of the stamps: no free text
        '{"t":"stamp","id":7}',
        '{"t":"stamp","id":"nice","seat":1}',  # the seat comes from the connection, never a message
    ):
        with pytest.raises(ProtocolError) as caught:
            parse_client_frame(bad, 4096)
        assert caught.value.code == protocol.BAD_SCHEMA
    assert len(protocol.STAMPS) == 8 and len(set(protocol.STAMPS)) == 8


def test_only_a_table_with_somebody_to_react_to_allows_stamps() -> None:
    assert (PracticeSeating().allows_stamps, FriendSeating().allows_stamps) == (False, True)


def test_a_seated_players_stamp_reaches_every_seat_and_spectator(live: LiveServer) -> None:
    host, friend, match = _room(live)
    a, b = Player(live, host.token, match), Player(live, friend.token, match)
    watcher = Player(live, new_guest(live), match)
    try:
        welcomes = [p.until("welcome") for p in (a, b, watcher)]
        assert [w.get("stamps") for w in welcomes] == [True, True, None]  # a spectator may not send
        assert welcomes[2]["spectator"] is True
        b.send({"t": "stamp", "id": "nice"})
        for p in (a, b, watcher):  # the sender's own connection too: it shows beside its seat
            assert _recv_until(p, 1) == [{"t": "stamp", "seat": 1, "id": "nice"}]
        watcher.send({"t": "stamp", "id": "wow"})
        assert watcher.until("error")["code"] == protocol.NO_STAMPS
        b.send({"t": "stamp", "id": "boo"})
        error = b.until("error")
        assert error["code"] == protocol.BAD_SCHEMA
        a.send({"t": "stamp", "id": "gg"})
        assert _recv_until(b, 2)[-1] == {"t": "stamp", "seat": 0, "id": "gg"}
        assert all(f["seat"] != 2 for p in (a, b, watcher) for f in _stamps(p))
    finally:
        for p in (a, b, watcher):
            p.close()


def test_practice_has_no_stamps(live: LiveServer) -> None:
    token = new_guest(live)
    player = Player(live, token, new_match(live, token))
    try:
        assert "stamps" not in player.until("welcome")
        player.send({"t": "stamp", "id": "hello"})
        error = player.until("error")
        assert (error["code"], error.get("about")) == (protocol.NO_STAMPS, "stamp")
    finally:
        player.close()


def test_a_seats_allowance_is_shared_by_its_sockets_and_nothing_is_stored(live: LiveServer) -> None:
    """Two sockets of one seat draw on one allowance (STAMP_BURST at once, then one every few
    seconds): the burst from the first leaves the second refused; the other seat is not.  The
    table waits for the dealer's first discard meanwhile, and its stored log does not grow."""
    host, friend, match = _room(live)
    first, second = Player(live, host.token, match), Player(live, host.token, match)
    other = Player(live, friend.token, match)
    engine = db.open_engine(live.settings.db_url)
    try:
        for p in (second, other):
            p.until("welcome")  # attached: each is sent every stamp from now on
        first.until("prompt")  # seat 0 deals: nothing moves until it discards (no turn clock)
        stored = event_count(engine, match)
        for _ in range(STAMP_BURST):
            first.send({"t": "stamp", "id": "hello"})
        _recv_until(other, STAMP_BURST)
        for _ in range(5):  # the refill (one per 3 s) cannot cover five at once
            second.send({"t": "stamp", "id": "thanks"})
        refused = _recv_until(second, 1, "error")
        assert refused[0]["code"] == protocol.RATE_LIMITED and refused[0]["about"] == "stamp"
        assert refused[0]["retry_ms"] > 0
        other.send({"t": "stamp", "id": "sorry"})  # another seat's allowance is its own
        assert {"t": "stamp", "seat": 1, "id": "sorry"} in _recv_until(first, STAMP_BURST + 1)
        assert event_count(engine, match) == stored  # not an event: never in the match log
        assert not [f for f in first.frames if f["t"] == "event" and f["v"] > stored]
    finally:
        engine.dispose()
        for p in (first, second, other):
            p.close()


def test_the_bus_message_is_checked() -> None:
    message = busframes.Stamp("n1", "c1", "gg")
    assert message.to_wire() == {"op": "stamp", "node": "n1", "conn": "c1", "id": "gg"}
    assert busframes.parse(message.to_wire()) == message
    for bad in (
        {"op": "stamp", "node": "n1", "conn": "c1"},
        {"op": "stamp", "node": "n1", "conn": "c1", "id": "boo"},
        {"op": "stamp", "node": "n1", "conn": "c1", "id": 3},
        {"op": "stamp", "node": "n1", "id": "gg"},
    ):
        with pytest.raises(busframes.BadBusMessage):
            busframes.parse(bad)


# -- through another server process ------------------------------------------------------------


def _ws(node: Node, token: str, match: str) -> Any:
    ws = connect(node.ws, max_size=None, legacy=True)
    ws.send(json.dumps({"t": "hello", "token": token, "match": match, "last_v": 0}))
    return ws


def _until(ws: Any, t: str) -> dict[str, Any]:
    while (frame := json.loads(ws.recv(timeout=20)))["t"] != t:
        pass
    return dict(frame)


@pytest.mark.slow
def test_a_stamp_crosses_the_room_bus_both_ways(nodes: tuple[Node, Node]) -> None:
    """A's room, its host playing through B: the stamp travels to A's table over the bus, which
    shows it to the friend on A and, through B's relay, to the host; practice through B is
    refused by A's table."""
    a, b = nodes
    host, friend = (httpx.post(f"{n.http}/api/guest").json()["token"] for n in (a, a))

    def call(token: str, path: str, body: Any = None) -> dict[str, Any]:
        r = httpx.post(f"{a.http}/api/rooms{path}", json=body, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code in (200, 201), r.text
        return dict(r.json())

    code = call(host, "", {"length": "one-hand", "red_fives": True, "turn_timer": "off"})["code"]
    call(friend, f"/{code}/join")
    call(host, f"/{code}/bots", {"seat": 2, "level": "beginner"})
    match = call(host, f"/{code}/start")["match"]
    on_a = _ws(a, friend, match)  # A creates and owns the room
    assert _until(on_a, "welcome")["stamps"] is True
    on_b = _ws(b, host, match)
    assert _until(on_b, "welcome")["stamps"] is True  # relayed: A's table built it
    on_b.send(json.dumps({"t": "stamp", "id": "hello"}))
    assert _until(on_a, "stamp") == {"t": "stamp", "seat": 0, "id": "hello"}
    assert _until(on_b, "stamp") == {"t": "stamp", "seat": 0, "id": "hello"}
    on_a.send(json.dumps({"t": "stamp", "id": "thanks"}))
    assert _until(on_b, "stamp") == {"t": "stamp", "seat": 1, "id": "thanks"}
    for ws in (on_a, on_b):
        ws.close()
    token = httpx.post(f"{a.http}/api/guest").json()["token"]
    body = {"length": "one-hand", "red_fives": True, "level": "beginner"}
    r = httpx.post(f"{a.http}/api/practice", json=body, headers={"Authorization": f"Bearer {token}"})
    practice = _ws(b, token, r.json()["match"])
    _until(practice, "welcome")
    practice.send(json.dumps({"t": "stamp", "id": "hello"}))
    assert _until(practice, "error")["code"] == protocol.NO_STAMPS  # decided by A's table
    practice.close()
