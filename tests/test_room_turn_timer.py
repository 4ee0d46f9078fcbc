"""The room's turn timer chosen by its host (``docs/rooms.md``, "Turn timer") over real
sockets: "5+10" runs out as configured whatever the server's own timers, "off" never plays
a connected seat's turn for it yet still plays the turn of a seat that left (the away
grace), only the host changes it, in the lobby, and bad values get a typed error."""

from __future__ import annotations

import time
from typing import Any

import pytest

from sanma.server.settings import Settings
from tests.fixtures.rooms import Api, Player
from tests.fixtures.server import SEEDS, LiveServer, free_port


@pytest.fixture
def settings(tmp_path: Any) -> Settings:
    # The server's own timers are short: a room that follows them instead of its host's
    # choice times out within a second.
    return Settings(
        port=free_port(),
        data_dir=tmp_path / "data",
        bot_delay_s=0.0,
        rate_per_s=200.0,
        rate_burst=400,
        turn_s=0.3,
        bank_s=0.0,
        away_grace_s=0.3,
    )


def start(live: LiveServer, turn_timer: str | None, humans: int = 1) -> tuple[list[Api], dict[str, Any]]:
    """A one-hand room with ``humans`` guests from seat 0 and beginner bots elsewhere, the host
    choosing ``turn_timer`` (``None``: not chosen), started."""
    host = Api(live)
    body: dict[str, Any] = {"length": "one-hand"}
    if turn_timer is not None:
        body["turn_timer"] = turn_timer
    room = host.ok("POST", "", body, 201)
    assert room["turn_timer"] == turn_timer
    apis = [host]
    for _ in range(humans - 1):
        apis.append(Api(live))
        apis[-1].ok("POST", f"/{room['code']}/join")
    for seat in range(humans, 3):
        host.ok("POST", f"/{room['code']}/bots", {"seat": seat, "level": "beginner"})
    return apis, host.ok("POST", f"/{room['code']}/start")


@pytest.mark.slow
def test_the_default_is_the_servers_timers_and_only_the_host_changes_them_in_the_lobby(tmp_path):
    live = LiveServer(Settings(port=free_port(), data_dir=tmp_path / "data", turn_s=10.0, bank_s=20.0))
    try:
        host, friend = Api(live), Api(live)
        room = host.ok("POST", "", None, 201)
        code = room["code"]
        assert (room["turn_timer"], room["timers"]) == (None, {"turn_s": 10.0, "bank_s": 20.0})
        friend.ok("POST", f"/{code}/join")
        friend.refused("POST", f"/{code}/options", {"turn_timer": "off"}, 403, "not_host")
        for bad in ("5+5", "10", 10, ""):
            host.refused("POST", f"/{code}/options", {"turn_timer": bad}, 422, "bad_schema")
        host.refused("POST", "", {"turn_timer": "30+60"}, 422, "bad_schema")
        changed = host.ok("POST", f"/{code}/options", {"turn_timer": "20+40"})
        assert (changed["turn_timer"], changed["timers"]) == ("20+40", {"turn_s": 20.0, "bank_s": 40.0})
        changed = host.ok("POST", f"/{code}/options", {"turn_timer": "off"})
        assert (changed["turn_timer"], changed["timers"]) == ("off", {"turn_s": None, "bank_s": None})
        # The others see it; another option left out keeps it.
        assert friend.ok("GET", f"/{code}")["turn_timer"] == "off"
        assert host.ok("POST", f"/{code}/options", {"break_s": 30})["turn_timer"] == "off"
        host.ok("POST", f"/{code}/bots", {"seat": 2, "level": "beginner"})
        assert host.ok("POST", f"/{code}/start")["status"] == "playing"
        host.refused("POST", f"/{code}/options", {"turn_timer": "5+10"}, 409, "room_started")
    finally:
        live.stop()


@pytest.mark.slow
def test_a_room_of_5_plus_10_times_out_as_configured(settings):
    live = LiveServer(settings, seed_source=lambda: SEEDS[0])
    try:
        (host,), room = start(live, "5+10")
        p = Player(live, host.token, room["match"])
        first = p.until("prompt")
        asked = time.monotonic()
        assert first["timer"]["bank_s"] == 10.0 and 4.0 < first["timer"]["turn_s"] <= 5.0
        expired = p.until("expired")
        # The server's own 0.3 s would have run out long before: the room's 5 + 10 s held.
        assert expired["seq"] == first["seq"] and time.monotonic() - asked >= 14.0
        second = p.until("prompt")
        assert second["timer"]["bank_s"] == 0 and second["timer"]["turn_s"] > 4.0  # the bank is spent
    finally:
        live.stop()


@pytest.mark.slow
def test_off_never_plays_a_connected_seat_yet_plays_on_when_it_leaves(settings):
    live = LiveServer(settings, seed_source=lambda: SEEDS[0])
    try:
        (host, friend), room = start(live, "off", humans=2)
        match = room["match"]
        a, b = Player(live, host.token, match), Player(live, friend.token, match)
        first = a.until("prompt")
        assert "timer" not in first  # no clock shown
        # Ten times the server's own turn: nothing expires while seat 0 stays connected.
        with pytest.raises(TimeoutError):
            while True:
                assert a.recv(timeout=3.0)["t"] != "expired"
        a.close()
        # Gone, its turn is played after the away grace and seat 1 sees the table go on.
        while True:
            frame = b.recv()
            if frame["t"] == "prompt" and frame["seq"] not in b.answered:
                b.answered.add(frame["seq"])
                b.send({"t": "act", "seq": frame["seq"], "a": dict(frame["default"])})
            if frame["t"] == "event" and frame["e"]["type"] == "TileDiscarded" and frame["e"]["seat"] == 0:
                break
        back = Player(live, host.token, match)
        assert back.until("welcome")["seat"] == 0
    finally:
        live.stop()
