"""Friend rooms end to end on a real uvicorn (tests/fixtures/server.py's ``LiveServer``): the lobby
API (codes, seats, host controls, limits, expiry, restart), matches with two and three humans
where every frame of every seat is checked against the stored log redacted for that seat,
turn timers and autoplay, disconnects and presence, and bad answers."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from sanma.engine.events import HandStarted, MatchEnded, MatchStarted
from sanma.engine.visibility import redact
from sanma.server.api.rooms import CODE_ALPHABET, CODE_LENGTH
from sanma.server.codec import event_to_wire
from sanma.server.settings import Settings
from sanma.store import db
from sanma.store import rooms as room_store
from sanma.store.matches import get_match, players_of
from tests.fixtures.rooms import Api, Player, play_all
from tests.fixtures.server import SEEDS, LiveServer, check_frames_against_log, choose, free_port, full_log


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        port=free_port(),
        data_dir=tmp_path / "data",
        bot_delay_s=0.0,
        rate_per_s=200.0,
        rate_burst=400,
        turn_s=60.0,
        bank_s=0.0,
        away_grace_s=60.0,
    )


@pytest.fixture
def server(settings: Settings) -> Iterator[LiveServer]:
    live = LiveServer(settings, seed_source=lambda: SEEDS[0])
    yield live
    live.stop()


def kinds(room: dict[str, Any]) -> list[str]:
    return [s["kind"] for s in room["seats"]]


def open_room(live: LiveServer, humans: int, bots: dict[int, str] | None = None) -> tuple[list[Api], dict[str, Any]]:
    """A one-hand room with ``humans`` guests in seats 0.. and bots elsewhere, started."""
    host = Api(live)
    room = host.ok("POST", "", {"length": "one-hand", "red_fives": True}, 201)
    apis = [host]
    for _ in range(humans - 1):
        guest = Api(live)
        guest.ok("POST", f"/{room['code']}/join")
        apis.append(guest)
    for seat, level in (bots or {}).items():
        host.ok("POST", f"/{room['code']}/bots", {"seat": seat, "level": level})
    room = host.ok("POST", f"/{room['code']}/start")
    assert room["status"] == "playing" and room["match"]
    return apis, room


# -- lobby -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_lobby_code_seats_host_controls_and_start(server, settings):
    host, friend, late = Api(server), Api(server), Api(server)
    room = host.ok("POST", "", {"length": "one-hand", "red_fives": False}, 201)
    code = room["code"]
    assert len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)
    assert room["invite"] == f"/?room={code}"
    assert (room["status"], room["you"], room["host"], kinds(room)) == ("lobby", 0, 0, ["human", "empty", "empty"])
    assert (room["length"], room["red_fives"]) == ("one-hand", False)

    joined = friend.ok("POST", f"/{code.lower()}/join", {"seat": 2})  # codes are read case-blind
    assert (joined["you"], joined["host"], kinds(joined)) == (2, 0, ["human", "empty", "human"])
    assert friend.ok("POST", f"/{code}/join")["you"] == 2  # joining again changes nothing
    assert [s["you"] for s in joined["seats"]] == [False, False, True]
    friend.refused("POST", f"/{code}/bots", {"seat": 1, "level": "beginner"}, 403, "not_host")
    friend.refused("POST", f"/{code}/start", None, 403, "not_host")
    host.refused("POST", f"/{code}/start", None, 409, "not_ready")
    host.refused("POST", f"/{code}/bots", {"seat": 2, "level": "beginner"}, 409, "seat_taken")
    host.refused("POST", f"/{code}/bots", {"seat": 1, "level": "grandmaster"}, 422, "bad_schema")
    with_bot = host.ok("POST", f"/{code}/bots", {"seat": 1, "level": "beginner"})
    assert kinds(with_bot) == ["human", "bot", "human"] and with_bot["seats"][1]["level"] == "beginner"
    late.refused("POST", f"/{code}/join", None, 409, "room_full")
    host.ok("DELETE", f"/{code}/bots/1")
    friend.ok("POST", f"/{code}/seat", {"seat": 1})
    assert kinds(late.ok("POST", f"/{code}/join")) == ["human", "human", "human"]  # three humans, no bot
    late.refused("POST", "/ZZZZZZ/join", None, 404, "no_room")

    started = host.ok("POST", f"/{code}/start")
    assert started["status"] == "playing" and started["match"]
    assert friend.ok("GET", f"/{code}")["match"] == started["match"]
    Api(server).refused("POST", f"/{code}/join", None, 409, "room_started")
    host.refused("POST", f"/{code}/leave", None, 409, "room_started")
    engine = db.open_engine(settings.db_url)
    try:
        record = get_match(engine, started["match"])
        assert record is not None and record.kind == "room" and record.rules["red_fives"] is False
        seated = [(p.seat, p.guest_id is not None, p.bot_level) for p in players_of(engine, started["match"])]
        assert seated == [(0, True, None), (1, True, None), (2, True, None)]
    finally:
        engine.dispose()


def test_host_leaving_passes_the_role_and_an_empty_room_closes(server):
    host, friend = Api(server), Api(server)
    code = host.ok("POST", "", {"seat": 1}, 201)["code"]
    friend.ok("POST", f"/{code}/join")
    left = host.ok("POST", f"/{code}/leave")
    assert left == {"code": code, "closed": False}
    room = friend.ok("GET", f"/{code}")
    assert (room["host"], room["you"]) == (0, 0)
    friend.ok("POST", f"/{code}/bots", {"seat": 2, "level": "normal"})  # the new host's controls work
    host.refused("POST", f"/{code}/leave", None, 403, "not_seated")
    assert friend.ok("POST", f"/{code}/leave") == {"code": code, "closed": True}
    friend.refused("GET", f"/{code}", None, 404, "no_room")


@pytest.mark.slow
def test_the_host_removes_a_guest_who_may_not_join_again(server):
    host, friend, other = Api(server), Api(server), Api(server)
    code = host.ok("POST", "", None, 201)["code"]
    friend.ok("POST", f"/{code}/join", {"seat": 1})
    other.ok("POST", f"/{code}/join", {"seat": 2})
    friend.refused("DELETE", f"/{code}/seats/2", None, 403, "not_host")
    host.refused("DELETE", f"/{code}/seats/0", None, 409, "no_guest")  # not oneself
    removed = host.ok("DELETE", f"/{code}/seats/1")
    assert kinds(removed) == ["human", "empty", "human"] and removed["removed"] is False
    host.refused("DELETE", f"/{code}/seats/1", None, 409, "no_guest")  # empty now
    seen = friend.ok("GET", f"/{code}")
    assert (seen["you"], seen["removed"]) == (None, True)
    friend.refused("POST", f"/{code}/join", None, 403, "removed")
    friend.refused("POST", f"/{code}/join", {"seat": 1}, 403, "removed")
    friend.refused("POST", f"/{code}/leave", None, 403, "not_seated")
    assert other.ok("GET", f"/{code}")["removed"] is False
    host.ok("POST", f"/{code}/bots", {"seat": 1, "level": "normal"})
    host.refused("DELETE", f"/{code}/seats/1", None, 409, "no_guest")  # a bot has its own route
    host.ok("DELETE", f"/{code}/bots/1")
    newcomer = Api(server)
    assert newcomer.ok("POST", f"/{code}/join")["you"] == 1  # the seat is free for anyone else
    started = host.ok("POST", f"/{code}/start")
    host.refused("DELETE", f"/{code}/seats/2", None, 409, "room_started")  # the lobby only
    assert started["status"] == "playing"
    # The removed guest may not watch the match either; any other guest may.
    assert friend.ok("GET", f"/{code}")["match"] is None
    barred = Player(server, friend.token, started["match"])
    refused = barred.recv()
    assert (refused["t"], refused["code"]) == ("error", "no_match")
    watcher = Player(server, Api(server).token, started["match"])
    assert watcher.until("welcome")["spectator"] is True
    barred.close()
    watcher.close()


@pytest.mark.slow
def test_after_its_match_the_room_reopens_for_a_rematch_with_the_same_seats(server):
    (host, friend), room = open_room(server, 2, {2: "beginner"})
    code, first = room["code"], room["match"]
    friend.refused("POST", f"/{code}/reopen", None, 409, "room_started")  # still being played
    play_all([Player(server, api.token, first) for api in (host, friend)])
    assert host.ok("GET", f"/{code}")["status"] == "ended"
    Api(server).refused("POST", f"/{code}/reopen", None, 403, "not_seated")
    again = friend.ok("POST", f"/{code}/reopen")  # any seated guest, not only the host
    assert (again["status"], again["match"], again["host"], again["you"]) == ("lobby", None, 0, 1)
    assert kinds(again) == ["human", "human", "bot"] and again["seats"][2]["level"] == "beginner"
    assert host.ok("POST", f"/{code}/reopen")["status"] == "lobby"  # again: nothing changes
    friend.refused("POST", f"/{code}/start", None, 403, "not_host")
    second = host.ok("POST", f"/{code}/start")
    assert second["status"] == "playing" and second["match"] not in (None, first)
    assert friend.ok("GET", f"/{code}")["match"] == second["match"]


@pytest.mark.slow
def test_the_host_changes_the_options_in_the_lobby_and_the_match_follows_them(server, settings):
    host, friend = Api(server), Api(server)
    code = host.ok("POST", "", {"length": "east-south", "red_fives": True}, 201)["code"]
    friend.ok("POST", f"/{code}/join")
    friend.refused("POST", f"/{code}/options", {"length": "one-hand"}, 403, "not_host")
    host.refused("POST", f"/{code}/options", {"length": "west"}, 422, "bad_schema")
    host.refused("POST", f"/{code}/options", {"red_fives": "no"}, 422, "bad_schema")
    changed = host.ok("POST", f"/{code}/options", {"length": "one-hand"})
    assert (changed["length"], changed["red_fives"]) == ("one-hand", True)  # the other one unchanged
    changed = host.ok("POST", f"/{code}/options", {"red_fives": False})
    assert (changed["length"], changed["red_fives"]) == ("one-hand", False)
    assert (friend.ok("GET", f"/{code}")["length"], friend.ok("GET", f"/{code}")["red_fives"]) == ("one-hand", False)
    host.ok("POST", f"/{code}/bots", {"seat": 2, "level": "beginner"})
    started = host.ok("POST", f"/{code}/start")
    host.refused("POST", f"/{code}/options", {"length": "east"}, 409, "room_started")
    engine = db.open_engine(settings.db_url)
    try:
        record = get_match(engine, started["match"])
        assert record is not None and record.rules["length"] == "one-hand" and record.rules["red_fives"] is False
    finally:
        engine.dispose()


@pytest.mark.slow
def test_the_host_hands_the_role_to_another_guest(server):
    host, friend = Api(server), Api(server)
    code = host.ok("POST", "", None, 201)["code"]
    friend.ok("POST", f"/{code}/join", {"seat": 2})
    friend.refused("POST", f"/{code}/host", {"seat": 2}, 403, "not_host")
    host.refused("POST", f"/{code}/host", {"seat": 0}, 409, "no_guest")  # oneself
    host.refused("POST", f"/{code}/host", {"seat": 1}, 409, "no_guest")  # an empty seat
    host.refused("POST", f"/{code}/host", {}, 409, "no_guest")
    handed = host.ok("POST", f"/{code}/host", {"seat": 2})
    assert (handed["host"], handed["you"]) == (2, 0) and [s["host"] for s in handed["seats"]] == [False, False, True]
    host.refused("POST", f"/{code}/bots", {"seat": 1, "level": "normal"}, 403, "not_host")  # not any more
    friend.ok("POST", f"/{code}/bots", {"seat": 1, "level": "normal"})
    assert friend.ok("POST", f"/{code}/start")["status"] == "playing"


@pytest.mark.slow
def test_room_lookups_are_rate_limited_wrong_codes_included(settings):
    live = LiveServer(settings.with_changes(room_joins_per_min=4))
    try:
        host, prober = Api(live), Api(live)
        code = host.ok("POST", "", None, 201)["code"]
        for _ in range(4):
            prober.refused("POST", "/AAAAAA/join", None, 404, "no_room")
        prober.refused("POST", f"/{code}/join", None, 429, "rate_limited")  # the right code, too late
        # The limit is per guest and per client address: a fresh guest from the same address is also held.
        Api(live).refused("GET", f"/{code}", None, 429, "rate_limited")
        assert host.ok("GET", f"/{code}")["you"] == 0  # a seated guest's own look-ups do not count
    finally:
        live.stop()


@pytest.mark.slow
def test_idle_rooms_expire_and_are_swept(settings):
    live = LiveServer(settings.with_changes(room_idle_s=1.0))
    try:
        host = Api(live)
        code = host.ok("POST", "", None, 201)["code"]
        time.sleep(1.2)
        host.refused("GET", f"/{code}", None, 404, "no_room")
        time.sleep(0.3)
        host.ok("POST", "", None, 201)  # a create sweeps (at most every idle/4 s)
        engine = db.open_engine(settings.db_url)
        try:
            assert room_store.get_room(engine, code) is None
        finally:
            engine.dispose()
    finally:
        live.stop()


@pytest.mark.slow
def test_a_lobby_survives_a_restart(settings):
    live = LiveServer(settings)
    host, friend = Api(live), Api(live)
    code = host.ok("POST", "", {"length": "east"}, 201)["code"]
    friend.ok("POST", f"/{code}/join")
    host.ok("POST", f"/{code}/bots", {"seat": 2, "level": "expert"})
    before = friend.ok("GET", f"/{code}")
    live.stop()
    live = LiveServer(settings)
    try:
        host.live = friend.live = live
        assert friend.ok("GET", f"/{code}") == before
        assert host.ok("POST", f"/{code}/start")["status"] == "playing"
    finally:
        live.stop()


def test_the_lobby_is_in_the_openapi_schema(server):
    paths = httpx.get(f"{server.http}/api/openapi.json").json()["paths"]
    for path in ("/api/rooms", "/api/rooms/{code}", "/api/rooms/{code}/join", "/api/rooms/{code}/start"):
        assert path in paths
    assert "404" in paths["/api/rooms/{code}/join"]["post"]["responses"]


# -- matches ---------------------------------------------------------------------------------


def check_every_seat(players: dict[int, Player], settings: Settings, match: str) -> None:
    """Each seat's frames: its own redaction of the stored log, and nothing else hidden."""
    for seat, player in players.items():
        log = check_frames_against_log(player, settings, match, seat)  # type: ignore[arg-type]
        assert isinstance(log[-1], MatchEnded)
        fair = {"fair_match", "fair_hand", "fair_reveal", "fair_seed"}  # the walls' proofs (docs/protocol.md)
        assert {f["t"] for f in player.frames} <= {"welcome", "event", "prompt", "presence", "expired", "error"} | fair


@pytest.mark.slow
def test_three_humans_every_frame_of_every_seat_redacted(server, settings):
    apis, room = open_room(server, 3)
    match = room["match"]
    players = {seat: Player(server, api.token, match) for seat, api in enumerate(apis)}
    for seat, player in players.items():
        welcome = player.until("welcome")
        assert (welcome["seat"], welcome["kind"]) == (seat, "room")
    play_all(list(players.values()))
    check_every_seat(players, settings, match)
    for player in players.values():
        player.close()


@pytest.mark.slow
def test_two_humans_and_a_bot_and_answers_only_for_ones_own_seat(server, settings):
    apis, room = open_room(server, 2, bots={2: "beginner"})
    match = room["match"]
    stranger = Player(server, Api(server).token, match)
    assert stranger.until("welcome")["spectator"] is True  # not seated: a spectator
    stranger.send({"t": "act", "seq": 1, "a": {"type": "pass"}})
    assert stranger.until("error")["code"] == "spectator"
    shown = stranger.events()  # live: the match so far, the dealer's first draw included, as nobody's
    assert [f["e"]["type"] for f in shown] == ["MatchStarted", "HandStarted", "TileDrawn"]
    assert shown[2]["e"]["tile"] == "?"
    stranger.close()
    a, b = (Player(server, api.token, match) for api in apis)
    assert a.until("welcome")["seat"] == 0 and b.until("welcome")["seat"] == 1
    first = a.until("prompt")  # seat 0 deals first
    presence = [a.recv() for _ in range(3)]
    assert [(p["t"], p["seat"]) for p in presence] == [("presence", 0), ("presence", 1), ("presence", 2)]
    assert (presence[0]["state"], presence[2]["state"]) == ("connected", "bot")
    # Seat 1 answering with seat 0's seq: seat 1 has no open prompt, so it is stale.
    b.send({"t": "act", "seq": first["seq"], "a": first["default"]})
    assert b.until("error")["code"] == "stale_seq"
    a.send({"t": "act", "seq": first["seq"], "a": first["default"]})
    a.send({"t": "act", "seq": first["seq"], "a": first["default"]})  # a duplicate
    assert a.until("error")["code"] == "stale_seq"
    a.answered.add(first["seq"])
    a.send({"t": "resync", "from": a.events()[-1]["v"] + 1})  # the prompt until() may have skipped
    play_all([a, b])
    check_every_seat({0: a, 1: b}, settings, match)
    discards = [f for f in a.events() if f["e"]["type"] == "TileDiscarded"]
    assert discards[0]["e"]["seat"] == 0  # the first answer counted once


# -- display names --------------------------------------------------------------------------

HOSTILE_NAME = "<script>x</script>"


@pytest.mark.slow
def test_seats_and_welcomes_carry_display_names(server):
    host, friend, unnamed = Api(server), Api(server), Api(server)
    for api, name in ((host, "Ana"), (friend, HOSTILE_NAME)):
        r = httpx.post(f"{server.http}/api/account/name", json={"name": name}, headers=api.headers)
        assert r.status_code == 200, r.text
    room = host.ok("POST", "", {"length": "one-hand", "red_fives": True}, 201)
    code = room["code"]
    assert [s["name"] for s in room["seats"]] == ["Ana", None, None]
    friend.ok("POST", f"/{code}/join")
    host.ok("POST", f"/{code}/bots", {"seat": 2, "level": "expert"})
    seen = unnamed.ok("GET", f"/{code}")  # a stranger's view: names, no "you"
    assert [(s["kind"], s["name"], s["level"], s["you"]) for s in seen["seats"]] == [
        ("human", "Ana", None, False),
        ("human", HOSTILE_NAME, None, False),  # user text comes back verbatim: the client escapes it
        ("bot", None, "expert", False),
    ]
    room = host.ok("POST", f"/{code}/start")
    expected = [
        {"seat": 0, "name": "Ana", "bot_level": None},
        {"seat": 1, "name": HOSTILE_NAME, "bot_level": None},
        {"seat": 2, "name": None, "bot_level": "expert"},
    ]
    seated = Player(server, friend.token, room["match"])
    welcome = seated.until("welcome")
    assert (welcome["seat"], welcome["players"]) == (1, expected)
    seated.close()
    watcher = Player(server, unnamed.token, room["match"])  # a spectator gets the same list
    welcome = watcher.until("welcome")
    assert welcome["spectator"] is True and welcome["players"] == expected
    watcher.close()


def test_an_unnamed_guest_has_a_null_name_and_practice_has_no_players(server):
    host, friend = Api(server), Api(server)
    room = host.ok("POST", "", None, 201)
    room = friend.ok("POST", f"/{room['code']}/join")
    assert [(s["kind"], s["name"], s["you"]) for s in room["seats"]] == [
        ("human", None, False),
        ("human", None, True),
        ("empty", None, False),
    ]
    r = httpx.post(f"{server.http}/api/practice", json={}, headers=host.headers)
    assert r.status_code in (200, 201), r.text
    practice = Player(server, host.token, r.json()["match"])
    welcome = practice.until("welcome")
    assert welcome["kind"] == "practice" and "players" not in welcome
    practice.close()


# -- timers, autoplay, disconnects ----------------------------------------------------------


@pytest.mark.slow
def test_turn_timer_then_bank_then_autoplay_until_the_player_returns(settings):
    fast = settings.with_changes(turn_s=0.3, bank_s=0.4, timeouts_to_auto=2, away_grace_s=60.0)
    live = LiveServer(fast, seed_source=lambda: SEEDS[0])
    try:
        (host,), room = open_room(live, 1, bots={1: "beginner", 2: "beginner"})
        match = room["match"]
        p = Player(live, host.token, match)
        first = p.until("prompt")
        # The seat's clock runs from the prompt on, connected or not: a client that joins late
        # (a slow start under load) sees part of it spent, never more than it was given.
        assert 0 < first["timer"]["bank_s"] <= 0.4 and 0 <= first["timer"]["turn_s"] <= 0.3
        expired = p.until("expired")
        assert (expired["seq"], expired["a"]) == (first["seq"], first["default"])
        # The expiry came after the turn time and the whole bank: the next prompt has no bank
        # left (the server's own clock says so; a wall-clock bound here failed under load).
        second = p.until("prompt")
        assert second["timer"]["bank_s"] == 0  # the bank is spent for this hand
        assert p.until("expired")["seq"] == second["seq"]
        assert p.until("presence") == {"t": "presence", "seat": 0, "state": "auto"}  # two in a row
        p.close()
        # Autoplay plays on meanwhile; a reconnect gives the seat back with the whole table.
        again = Player(live, host.token, match)
        assert again.until("welcome")["seat"] == 0
        while (frame := again.recv())["t"] != "presence":
            pass
        assert frame == {"t": "presence", "seat": 0, "state": "connected"}
        again.play()
        assert again.error is None and again.ended()
        check_every_seat({0: again}, fast, match)
        again.close()
    finally:
        live.stop()


@pytest.mark.slow
def test_a_disconnected_seat_plays_on_and_the_others_see_it(settings):
    live = LiveServer(settings.with_changes(away_grace_s=0.2), seed_source=lambda: SEEDS[1])
    try:
        apis, room = open_room(live, 2, bots={2: "beginner"})
        match = room["match"]
        a = Player(live, apis[0].token, match)
        b = Player(live, apis[1].token, match)
        b.until("welcome")
        while a.recv() != {"t": "presence", "seat": 1, "state": "connected"}:
            pass
        b.close()
        while a.recv() != {"t": "presence", "seat": 1, "state": "away"}:
            pass
        a.send({"t": "resync", "from": a.events()[-1]["v"] + 1})  # the prompt the loops above skipped
        a.play()
        assert a.error is None and a.ended()
        check_every_seat({0: a}, live.settings, match)
        back = Player(live, apis[1].token, match)
        assert back.until("welcome")["seat"] == 1
        while not back.ended():
            back.recv()
        check_every_seat({1: back}, live.settings, match)
    finally:
        live.stop()


@pytest.mark.slow
def test_bad_frames_from_one_seat_get_errors_a_flood_closes_it_and_the_table_plays_on(settings):
    live = LiveServer(
        settings.with_changes(rate_per_s=5.0, rate_burst=10, away_grace_s=0.2), seed_source=lambda: SEEDS[0]
    )
    try:
        apis, room = open_room(live, 2, bots={2: "beginner"})
        match = room["match"]
        a = Player(live, apis[0].token, match)
        first = a.until("prompt")  # seat 0's
        b = Player(live, apis[1].token, match)
        b.until("welcome")
        bad: list[tuple[str, str]] = [
            ("not json", "bad_json"),
            ("x" * (settings.max_frame_bytes + 1), "too_big"),
            (json.dumps({"t": "act", "seq": first["seq"], "seat": 0, "a": first["default"]}), "bad_schema"),
            (json.dumps({"t": "act", "seq": first["seq"], "a": first["default"]}), "stale_seq"),  # seat 0's prompt
            (json.dumps({"t": "hello", "token": apis[0].token, "match": match}), "already_joined"),
        ]
        for text, code in bad:
            b.send(text)
            assert b.until("error")["code"] == code, text
        with pytest.raises(ConnectionClosed):  # a flood: rate_limited errors, then a close
            b.send_many([json.dumps({"t": "ping"})] * 600)
            while True:
                b.recv(timeout=10)
        while a.recv() != {"t": "presence", "seat": 1, "state": "away"}:
            pass
        assert not any(f["t"] == "error" for f in a.frames)
        a.send({"t": "resync", "from": a.events()[-1]["v"] + 1})
        a.play(pace_s=0.25)
        assert a.error is None and a.ended()
        check_every_seat({0: a}, live.settings, match)
        assert first in a.frames and a.events()[[f["v"] for f in a.events()].index(first["v"] + 1)]["e"]["seat"] == 0
    finally:
        live.stop()


def test_each_guest_gets_its_own_seat_wherever_the_host_sits(server):
    host, friend = Api(server), Api(server)
    code = host.ok("POST", "", {"length": "one-hand", "seat": 2}, 201)["code"]
    friend.ok("POST", f"/{code}/join")  # the first empty seat: 0
    host.ok("POST", f"/{code}/bots", {"seat": 1, "level": "beginner"})
    match = host.ok("POST", f"/{code}/start")["match"]
    for api, seat in ((host, 2), (friend, 0)):
        p = Player(server, api.token, match)
        welcome = p.until("welcome")
        assert (welcome["seat"], welcome["kind"]) == (seat, "room")
        hands = p.until("event")
        while hands["e"]["type"] != "HandStarted":
            hands = p.until("event")
        assert [set(h) == {"?"} for h in hands["e"]["hands"]] == [s != seat for s in range(3)]
        p.close()


@pytest.mark.slow
def test_racing_joins_fill_the_last_seat_once(server):
    host = Api(server)
    code = host.ok("POST", "", None, 201)["code"]
    host.ok("POST", f"/{code}/bots", {"seat": 1, "level": "beginner"})
    guests = [Api(server) for _ in range(6)]
    results: list[httpx.Response] = []
    gate = threading.Barrier(len(guests))

    def join(api: Api) -> None:
        gate.wait()
        results.append(api.call("POST", f"/{code}/join"))

    threads = [threading.Thread(target=join, args=(g,)) for g in guests]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(r.status_code for r in results) == [200] + [409] * 5
    assert {r.json()["error"] for r in results if r.status_code == 409} == {"room_full"}
    room = host.ok("GET", f"/{code}")
    winner = next(r.json() for r in results if r.status_code == 200)
    assert kinds(room) == ["human", "bot", "human"] and winner["you"] == 2


@pytest.mark.slow
def test_a_spectator_sees_each_event_as_it_happens_and_nothing_concealed(server, settings):
    host = Api(server)
    code = host.ok("POST", "", {"length": "one-hand"}, 201)["code"]
    for seat in (1, 2):
        host.ok("POST", f"/{code}/bots", {"seat": seat, "level": "beginner"})
    room = host.ok("POST", f"/{code}/start")
    assert room["open_hands"] is False  # the default: live, the public view
    match = room["match"]
    player = Player(server, host.token, match)
    watcher = Player(server, Api(server).token, match)
    welcome = watcher.until("welcome")
    assert welcome["spectator"] is True and "open_hands" not in welcome
    prompts = 0
    while not player.ended():
        frame = player.recv()
        if frame["t"] != "prompt":
            continue
        # The table waits for this seat: the spectator has every event up to now already.
        while not watcher.events() or watcher.events()[-1]["v"] < frame["v"]:
            watcher.recv(timeout=10)
        assert watcher.events()[-1]["v"] == frame["v"]
        prompts += 1
        player.send({"t": "act", "seq": frame["seq"], "a": choose(frame)})
    while not watcher.ended():
        watcher.recv()
    assert prompts > 5
    log = full_log(settings, match)
    frames = watcher.events()
    assert [f["v"] for f in frames] == list(range(1, len(log) + 1))
    for f in frames:
        assert f["e"] == event_to_wire(redact(log[f["v"] - 1], None), True)  # no concealed tile, no seed
    player.close()
    watcher.close()


def open_view(event: Any) -> dict[str, Any]:
    """What an open-hands spectator is sent: every tile, never the seed."""
    return event_to_wire(redact(event, None) if isinstance(event, MatchStarted) else event, True)


@pytest.mark.slow
def test_with_open_hands_a_spectator_sees_every_tile_a_whole_hand_behind(server, settings):
    host = Api(server)
    code = host.ok("POST", "", {"length": "east"}, 201)["code"]
    for seat in (1, 2):
        host.ok("POST", f"/{code}/bots", {"seat": seat, "level": "beginner"})
    assert host.ok("POST", f"/{code}/options", {"open_hands": True})["open_hands"] is True
    match = host.ok("POST", f"/{code}/start")["match"]
    player = Player(server, host.token, match)
    watcher = Player(server, Api(server).token, match)
    welcome = watcher.until("welcome")
    assert welcome["spectator"] is True and welcome["open_hands"] is True

    def read() -> None:
        while not watcher.ended():
            watcher.recv(timeout=120)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    hand_start, prompts = 0, 0
    while not player.ended():
        frame = player.recv()
        if frame["t"] == "event" and frame["e"]["type"] == "HandStarted":
            hand_start = frame["v"]
        elif frame["t"] == "prompt":
            # The table waits for this seat: nothing of the hand in play has reached the spectator.
            assert all(f["v"] < hand_start for f in list(watcher.frames) if f["t"] == "event"), hand_start
            prompts += 1
            player.send({"t": "act", "seq": frame["seq"], "a": choose(frame)})
        elif frame["t"] == "hand_break":
            player.send({"t": "next_hand", "v": frame["v"]})
    reader.join(timeout=120)
    assert watcher.ended() and prompts > 10
    log = full_log(settings, match)
    assert sum(isinstance(e, HandStarted) for e in log) >= 2
    frames = watcher.events()
    assert [f["v"] for f in frames] == list(range(1, len(log) + 1))
    assert [f["e"] for f in frames] == [open_view(e) for e in log]
    assert all("?" not in hand for f in frames if f["e"]["type"] == "HandStarted" for hand in f["e"]["hands"])
    player.close()
    watcher.close()
