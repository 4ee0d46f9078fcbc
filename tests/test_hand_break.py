"""The break between hands over real sockets (``docs/rooms.md``, "Between hands"): no event of
hand N+1 exists before every human is ready (practice: the player pressed "Next hand"; a
room: all pressed, or its countdown ran out), no seat clock runs meanwhile, and a table
rebuilt from the store between hands is still in its break."""

from __future__ import annotations

import time
from typing import Any

import pytest

from sanma.engine.replay import replay
from sanma.server.settings import Settings
from sanma.store import db
from sanma.store.matches import event_count
from tests.fixtures.hand_break import play_to_break
from tests.fixtures.rooms import Api, Player
from tests.fixtures.server import SEEDS, Client, LiveServer, free_port, full_log, new_guest, new_match


@pytest.fixture
def settings(tmp_path: Any) -> Settings:
    return Settings(port=free_port(), data_dir=tmp_path / "data", bot_delay_s=0.0, rate_per_s=200.0, rate_burst=400)


def stored(settings: Settings, match: str) -> int:
    engine = db.open_engine(settings.db_url)
    try:
        return event_count(engine, match)
    finally:
        engine.dispose()


@pytest.mark.slow
def test_practice_deals_the_next_hand_only_after_next_hand(settings):
    live = LiveServer(settings, seed_source=lambda: SEEDS[0])
    try:
        token = new_guest(live)
        match = new_match(live, token, length="east")
        client = Client(live, token, match)
        brk, _ = play_to_break(client)
        end_v = client.events()[-1]["v"]
        # Before: the next hand's HandStarted came right after the result, bots already playing.
        assert brk == {"t": "hand_break", "v": end_v, "ready": [], "waiting": [0], "left_s": None}
        assert stored(settings, match) == end_v  # the next deal is not even stored
        with pytest.raises(TimeoutError):
            client.ws.recv(timeout=1.0)  # nothing comes while the player reads the panel
        client.send({"t": "next_hand", "v": end_v - 1})  # a press for an older point: ignored
        client.send({"t": "next_hand", "v": end_v})
        first = client.until("event")
        assert (first["v"], first["e"]["type"]) == (end_v + 1, "HandStarted")
        client.until("prompt")
        assert len(full_log(settings, match)) > end_v + 1  # the deal is stored once dealt, and replays
        client.close()
    finally:
        live.stop()


def test_bad_next_hand_frames_get_typed_errors(settings):
    live = LiveServer(settings, seed_source=lambda: SEEDS[0])
    try:
        token = new_guest(live)
        client = Client(live, token, new_match(live, token))
        client.until("prompt")
        bad_frames = [{"t": "next_hand"}, {"t": "next_hand", "v": -1}, {"t": "next_hand", "v": "7"}]
        bad_frames.append({"t": "resume", "x": 1})
        for bad in bad_frames:
            client.send(bad)
            error = client.until("error")
            assert error["code"] == "bad_schema", (bad, error)
        # Good ones outside a break or off autoplay change nothing and get no error (before:
        # unknown frame types, bad_schema).
        client.send({"t": "next_hand", "v": 1})
        client.send({"t": "resume"})
        client.send({"t": "ping"})
        while (frame := client.recv())["t"] != "pong":
            assert frame["t"] != "error", frame
        client.close()
    finally:
        live.stop()


def room_with_two(live: LiveServer, break_s: int) -> tuple[list[Api], str]:
    host = Api(live)
    code = host.ok("POST", "", {"length": "east", "break_s": break_s}, 201)["code"]
    guest = Api(live)
    guest.ok("POST", f"/{code}/join")
    host.ok("POST", f"/{code}/bots", {"seat": 2, "level": "beginner"})
    room = host.ok("POST", f"/{code}/start")
    assert room["break_s"] == break_s
    return [host, guest], room["match"]


def drive_to_break(players: list[Player]) -> dict[int, dict[str, Any]]:
    """Both seats answer their prompts until each got the break's frame; each seat's frame."""
    got: dict[int, dict[str, Any]] = {}
    while len(got) < len(players):
        for i, p in enumerate(players):
            if i in got:
                continue
            try:
                frame = p.recv(timeout=0.05)
            except TimeoutError:
                continue
            if frame["t"] == "prompt" and frame["seq"] not in p.answered:
                p.answered.add(frame["seq"])
                p.send({"t": "act", "seq": frame["seq"], "a": dict(frame["default"])})
            elif frame["t"] == "hand_break":
                got[i] = frame
    return got


def first_prompt(players: list[Player]) -> dict[str, Any]:
    """The first prompt either seat gets from now on."""
    while True:
        for p in players:
            try:
                frame = p.recv(timeout=0.05)
            except TimeoutError:
                continue
            if frame["t"] == "prompt":
                return frame


@pytest.mark.slow
def test_a_room_deals_when_every_human_pressed_and_the_clock_stands_still(settings):
    # Timers far shorter than the break: before, the seats' prompts of the next hand ran out
    # behind the panel (expired frames, then autoplay).
    fast = settings.with_changes(turn_s=1.0, bank_s=1.0, timeouts_to_auto=1, away_grace_s=60.0)
    live = LiveServer(fast, seed_source=lambda: SEEDS[0])
    try:
        (host, guest), match = room_with_two(live, 60)
        players = [Player(live, host.token, match), Player(live, guest.token, match)]
        breaks = drive_to_break(players)
        end_v = players[0].events()[-1]["v"]
        for frame in breaks.values():
            assert (frame["v"], frame["ready"], frame["waiting"]) == (end_v, [], [0, 1])
            assert 55 < frame["left_s"] <= 60
        players[0].send({"t": "next_hand", "v": end_v})
        for p in players:  # everyone sees who is ready
            assert p.until("hand_break")["ready"] == [0]
        # Seat 1 reads on for longer than a whole turn and bank: nothing runs out meanwhile.
        time.sleep(2.5)
        players[1].send({"t": "next_hand", "v": end_v})
        for p in players:
            first = p.until("event")
            assert (first["v"], first["e"]["type"]) == (end_v + 1, "HandStarted")
            seen = [f for f in p.frames if f["t"] in ("expired", "presence", "prompt")]
            assert not [f for f in seen if f["t"] == "expired"], seen
            assert {"t": "presence", "seat": players.index(p), "state": "auto"} not in seen
        # The first prompt of the new hand has a full bank and (nearly) its whole turn.
        prompt = first_prompt(players)
        assert prompt["v"] > end_v and prompt["timer"]["bank_s"] == 1.0 and prompt["timer"]["turn_s"] > 0.5
        for p in players:
            p.close()
    finally:
        live.stop()


@pytest.mark.slow
def test_a_room_deals_at_its_countdown_and_an_absent_seat_counts_as_ready(settings):
    live = LiveServer(settings.with_changes(turn_s=60.0, away_grace_s=0.1), seed_source=lambda: SEEDS[0])
    try:
        (host, guest), match = room_with_two(live, 5)
        players = [Player(live, host.token, match), Player(live, guest.token, match)]
        breaks = drive_to_break(players)
        end_v = players[0].events()[-1]["v"]
        assert breaks[0]["left_s"] is not None and breaks[0]["left_s"] <= 5
        started = time.monotonic()
        first = players[0].until("event")  # nobody pressed: the countdown deals
        assert (first["v"], first["e"]["type"]) == (end_v + 1, "HandStarted")
        assert time.monotonic() - started > 2.5  # not before the countdown (5 s, less the driving)
        # The next break: seat 1 has gone (away counts as ready), seat 0 presses: dealt at once.
        players[1].close()
        assert players[0].until("presence") == {"t": "presence", "seat": 1, "state": "away"}
        while True:
            frame = players[0].recv()
            if frame["t"] == "prompt":
                players[0].send({"t": "act", "seq": frame["seq"], "a": dict(frame["default"])})
            elif frame["t"] == "hand_break":
                break
        assert frame["ready"] == [1] and frame["waiting"] == [0]
        players[0].send({"t": "next_hand", "v": frame["v"]})
        nxt = players[0].until("event")
        assert (nxt["v"], nxt["e"]["type"]) == (frame["v"] + 1, "HandStarted")
        players[0].close()
    finally:
        live.stop()


@pytest.mark.slow
def test_a_table_rebuilt_between_hands_still_waits_or_deals_if_its_countdown_passed(settings):
    live = LiveServer(settings, seed_source=lambda: SEEDS[0])
    token = new_guest(live)
    match = new_match(live, token, length="east")
    client = Client(live, token, match)
    play_to_break(client)
    end_v = client.events()[-1]["v"]
    client.close()
    (host, guest), room_match = room_with_two(live, 5)
    players = [Player(live, host.token, room_match), Player(live, guest.token, room_match)]
    drive_to_break(players)
    room_end = players[0].events()[-1]["v"]
    for p in players:
        p.close()
    live.stop()

    live = LiveServer(settings)  # the same database, a new process state
    try:
        # Practice: the rebuilt table is in its break, the next deal not stored nor sent.
        again = Client(live, token, match, last_v=end_v)
        assert again.until("welcome")["v"] == end_v
        assert again.until("hand_break") == {"t": "hand_break", "v": end_v, "ready": [], "waiting": [0], "left_s": None}
        with pytest.raises(TimeoutError):
            again.ws.recv(timeout=1.0)
        assert stored(settings, match) == end_v
        again.send({"t": "next_hand", "v": end_v})
        first = again.until("event")
        assert (first["v"], first["e"]["type"]) == (end_v + 1, "HandStarted")
        again.until("prompt")
        again.close()
        # Its whole log (the held deal stored when dealt) replays.
        assert len(replay(full_log(settings, match)).events) >= end_v + 1
        # The room's countdown (5 s) ran out while no process had it: dealt at the first hello.
        time.sleep(5.5)
        back = Player(live, host.token, room_match, last_v=room_end)
        assert back.until("welcome")["v"] >= room_end  # the deal may already be made as it joins
        nxt = back.until("event")
        assert (nxt["v"], nxt["e"]["type"]) == (room_end + 1, "HandStarted")
        back.close()
    finally:
        live.stop()


def play(seed: int) -> list[Any]:
    """An east match of three beginner bots (wins, draws and calls, as a table gets them)."""
    from sanma.bots.registry import make_bot
    from sanma.engine.match import Match
    from sanma.engine.rules import Rules
    from sanma.engine.visibility import redact

    match = Match(seed, Rules(length="east"))
    bots = [make_bot("beginner", s, seed * 3 + s) for s in range(3)]
    seen = 0
    while not match.finished:
        for event in match.events[seen:]:
            for bot in bots:
                bot.observe(redact(event, bot.seat))
        seen = len(match.events)
        seat = match.awaiting()[0]
        match.apply(seat, bots[seat].decide(match.legal_actions(seat)))
    return match.events


@pytest.mark.parametrize("seed", range(6))
def test_a_log_that_ends_with_a_hands_result_deals_the_same_next_hand_again(seed):
    # What a table between hands stores: the result, not the deal (rooms/handbreak.py).
    from sanma.engine.events import HandAborted, HandDrawn, HandStarted, HandWon
    from sanma.server.rooms.handbreak import replay_stored, split_deal

    events = play(seed)
    starts = [i for i, e in enumerate(events) if isinstance(e, HandStarted)][1:]
    assert starts
    for start in starts:
        end = start  # the log of a break: everything before the next HandStarted
        assert isinstance(events[end - 1], HandWon | HandDrawn | HandAborted)
        match, stored = replay_stored(events[:end])
        assert stored == end and match.events[: len(events)] == events[: len(match.events)]
        assert isinstance(match.events[end], HandStarted) and not match.finished
    assert split_deal(events[starts[0] - 1 : starts[0] + 2]) == (
        events[starts[0] - 1 : starts[0]],
        events[starts[0] : starts[0] + 2],
    )
