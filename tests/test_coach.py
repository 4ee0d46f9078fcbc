"""The coach (``sanma.bots.coach``): its first choice is the master's answer, its figures
match counts made here independently, and it reads only what the seat sees."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from sanma.bots.coach import CHOICES, advise, reasons_for, safety_class, same_choice
from sanma.bots.heuristics import know, winning_action
from sanma.bots.master import LearnedMaster
from sanma.engine.actions import Action, Discard, Kan, Pass, Pon
from sanma.engine.events import Event, HandStarted, MatchStarted, RiichiAccepted, TileDiscarded, TileDrawn
from sanma.engine.match import Match
from sanma.engine.replay import replay
from sanma.engine.rules import Rules
from sanma.engine.shanten import is_complete, shanten
from sanma.engine.tiles import EAST, KIND_COUNT, kind_of, parse_kind, parse_tiles
from sanma.engine.visibility import redact
from sanma.server.codec import action_to_wire
from sanma.server.protocol import CoachToggle, ProtocolError, parse_client_frame
from sanma.server.settings import Settings
from sanma.store import db
from sanma.store.tables import match_stats, matches
from tests.fixtures.rooms import Api, Player
from tests.fixtures.selfplay import choose as random_choice
from tests.fixtures.server import Client, LiveServer, choose, free_port, full_log, new_guest, new_match


def _bot(seat: int, events: list[Event]) -> LearnedMaster:
    bot = LearnedMaster(seat)
    for e in events:
        bot.observe(e)
    return bot


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 4])
def test_the_first_choice_is_the_masters_answer_in_seeded_self_play(seed: int) -> None:
    """Random self-play drives the match; at every decision of every seat the coach's first
    choice equals a fresh master's ``decide`` on the same events, every choice is legal, and
    the others follow the master's prices when priced, else its policy's probabilities."""
    rng = random.Random(seed)
    match = Match(seed, Rules(length="one-hand"))
    seen: list[list[Event]] = [[], [], []]
    coaches = [LearnedMaster(s) for s in range(3)]
    checked = unpriced = 0

    def fold(events: list[Event]) -> None:
        for e in events:
            for s in range(3):
                r = redact(e, s)
                seen[s].append(r)
                coaches[s].observe(r)

    fold(list(match.events))
    while not match.finished:
        seat = match.awaiting()[0]
        legal = match.legal_actions(seat)
        advice = advise(coaches[seat], legal)
        master = _bot(seat, seen[seat]).decide(legal)
        assert same_choice(advice.actions[0], master), (advice.actions, master)
        assert all(a in legal for a in advice.actions)
        assert len(advice.choices) == len(advice.actions) >= 1
        coach = coaches[seat]
        if advice.priced:
            values = [coach.last_values[a] for a in advice.actions[1:]]
            assert values == sorted(values, reverse=True)
        elif winning_action(legal) is None:
            # unpriced: the policy's order, over every kind of action (calls and pass too)
            odds = [coach.last_probabilities[a] for a in advice.actions]
            assert odds == sorted(odds, reverse=True), (advice.actions, odds)
            choices: list[Action] = []
            for a in legal:
                choices += [] if any(same_choice(a, b) for b in choices) else [a]
            assert len(advice.actions) == min(CHOICES, len(choices))
            unpriced += 1
        checked += 1
        fold(match.apply(seat, random_choice(rng, match.kyoku, seat)))
    assert checked > 20 and unpriced > 10


# -- hand-made positions -------------------------------------------------------------------------


def _position(hand0: str, discards: list[tuple[int, str, bool]], indicator: str = "1z") -> LearnedMaster:
    """Seat 0 holds ``hand0`` (14 tiles, the last one drawn) after the other seats' ``discards``
    ``(seat, tile, riichi)``; the other hands are hidden, as seat 0 sees them."""
    tiles = parse_tiles(hand0)
    rules = Rules()
    events: list[Event] = [MatchStarted(seed=1, rules=rules, wall_algorithm="x")]
    dora = parse_tiles(indicator)[0]
    events.append(HandStarted(EAST, 0, 0, 0, (35000, 35000, 35000), (tuple(tiles[:13]), (), ()), dora, "", 55))
    for seat, tile, riichi in discards:
        # Another physical copy than seat 0's: the seat's fold checks the windows it sees.
        first = parse_tiles(tile)[0]
        copy = next(t for t in range(first - first % 4, first - first % 4 + 4) if t not in tiles)
        events.append(TileDiscarded(seat, copy, False, riichi))
        if riichi:
            events.append(RiichiAccepted(seat))
    events.append(TileDrawn(0, tiles[13]))
    return _bot(0, events)


def _improving(counts: list[int], seen: list[int], melds: int = 0) -> tuple[int, int]:
    """Kinds whose draw lowers the shanten of the 13-tile ``counts`` and their copies not in
    ``seen``: counted draw by draw with ``shanten`` itself."""
    base = shanten(counts, melds)
    kinds = tiles = 0
    for kind in range(KIND_COUNT):
        left = 4 - seen[kind]
        if left <= 0:
            continue
        counts[kind] += 1
        if shanten(counts, melds) < base:
            kinds, tiles = kinds + 1, tiles + left
        counts[kind] -= 1
    return kinds, tiles


def test_speed_counts_the_improving_tiles_and_the_waits() -> None:
    bot = _position("19m2378p34589s1255z", [(1, "4p", False), (2, "9s", False)])
    k = know(bot.view)
    seen = [k.counts[i] + k.visible[i] for i in range(KIND_COUNT)]
    for tile in set(bot.view.hand):
        kind = kind_of(tile)
        reason = reasons_for(bot, Discard(tile))
        counts = k.counts[:]
        counts[kind] -= 1
        assert reason.speed is not None
        assert reason.speed.shanten == shanten(counts)
        if reason.speed.shanten > 0:
            assert (reason.speed.kinds, reason.speed.tiles) == _improving(counts, seen)
    # 9m goes: 123p 789p 345s 55z 11m waits on 1m or 5z (shanpon)
    tenpai = _position("123789p345s55z119m", [(1, "1m", False)])
    reason = reasons_for(tenpai, Discard(parse_tiles("9m")[0]))
    counts = know(tenpai.view).counts[:]
    counts[parse_kind("9m")] -= 1
    waits = [w for w in range(KIND_COUNT) if is_complete([*counts[:w], counts[w] + 1, *counts[w + 1 :]])]
    assert reason.speed is not None and reason.speed.shanten == 0
    assert reason.speed.waits == ("1m", "5z") and len(waits) == 2
    assert reason.speed.tiles == (4 - 2 - 1) + (4 - 2)  # 1m: two held, one in a river; 5z: two held
    assert reason.speed.kinds == 2


def test_safety_classes_against_a_riichi() -> None:
    # seat 1 discards 3p then riichi on 2s; seat 2 lets 6p go after the riichi (genbutsu too)
    bot = _position(
        "19m1469p2578s1235z",
        [(1, "3p", False), (2, "1z", False), (1, "2s", True), (2, "6p", False)],
    )
    k = know(bot.view)
    safe = frozenset(parse_kind(t) for t in ("3p", "2s", "6p"))

    def cls(tile: str) -> tuple[str, int]:
        r = reasons_for(bot, Discard(parse_tiles(tile)[0]))
        assert [s.seat for s in r.safety] == [1]  # seat 2 is not threatening
        return r.safety[0].kind, r.safety[0].seen

    assert cls("6p") == ("genbutsu", 0)  # passed after the riichi
    assert cls("9p") == ("suji", 0)  # 6p is genbutsu: 78p-9p is killed
    assert cls("4p") == ("dangerous", 0)  # 1p and 7p are not genbutsu
    assert cls("5s") == ("dangerous", 0)  # 2s is genbutsu, 8s is not: half suji is not suji
    assert cls("1z") == ("honor", 3)  # one held, one in seat 2's river (not seat 1's: not genbutsu)
    assert safety_class(k, parse_kind("1m"), safe) == "honor"
    assert safety_class(k, parse_kind("5s"), safe | {parse_kind("8s")}) == "suji"
    assert safety_class(k, parse_kind("9p"), safe) == "suji"


def test_no_safety_while_nobody_threatens_and_value_notes() -> None:
    bot = _position("19m1469p2578s1235z", [(1, "3p", False)], indicator="3p")  # 4p is dora
    r = reasons_for(bot, Discard(parse_tiles("1z")[0]))
    assert r.safety == ()
    assert r.tile == "1z" and not r.riichi
    assert [(n.code, n.n) for n in r.value] == [("dora_kept", 1)]
    r = reasons_for(bot, Discard(parse_tiles("4p")[0]))
    assert [(n.code, n.n) for n in r.value] == [("dora_lost", 1)]
    r = reasons_for(bot, Discard(parse_tiles("5z")[0]))  # white: a single, no value pair
    assert "pair_lost" not in [n.code for n in r.value]


def _window(hand0: str, offered: str) -> LearnedMaster:
    """Seat 0 holds the 13 tiles ``hand0`` and seat 1 has just discarded ``offered``."""
    tiles = parse_tiles(hand0)
    events: list[Event] = [MatchStarted(seed=1, rules=Rules(), wall_algorithm="x")]
    dora = parse_tiles("1z")[0]
    events.append(HandStarted(EAST, 0, 0, 0, (35000, 35000, 35000), (tuple(tiles), (), ()), dora, "", 55))
    first = parse_tiles(offered)[0]
    copy = next(t for t in range(first - first % 4, first - first % 4 + 4) if t not in tiles)
    events.append(TileDiscarded(1, copy, False, False))
    return _bot(0, events)


def test_a_pon_and_a_pass_get_the_speed_they_leave() -> None:
    bot = _window("19m2378p345s5566z", "5z")
    k = know(bot.view)
    seen = [k.counts[i] + k.visible[i] for i in range(KIND_COUNT)]
    # pass: the hand as it stands, its improving tiles counted draw by draw
    stay = reasons_for(bot, Pass()).speed
    assert stay is not None and stay.shanten == shanten(k.counts) == 2
    assert (stay.kinds, stay.tiles) == _improving(k.counts[:], seen)
    # pon: two 5z go into the meld, then the best discard (never the called kind)
    pon = reasons_for(bot, Pon(parse_kind("5z"))).speed
    after = k.counts[:]
    after[parse_kind("5z")] -= 2
    best = min(
        shanten([*after[:d], after[d] - 1, *after[d + 1 :]], 1)
        for d in range(KIND_COUNT)
        if after[d] and d != parse_kind("5z")
    )
    assert pon is not None and pon.shanten == best == 1
    assert reasons_for(bot, Kan(parse_kind("5z"))).speed is None  # a kan is named only


# -- the server ----------------------------------------------------------------------------------


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(port=free_port(), data_dir=tmp_path / "data", bot_delay_s=0.0, rate_per_s=200.0, rate_burst=400)


def _seat_events(settings: Settings, match: str, v: int, seat: int) -> list[Event]:
    """What ``seat`` saw of the match's first ``v`` events (its own redacted log)."""
    return [redact(e, seat) for e in full_log(settings, match)[:v]]


def _next_prompt(client: Client, advice: dict[int, dict[str, Any]]) -> dict[str, Any] | None:
    """The next prompt (``None``: the match ended), keeping the coach frames by seq."""
    while True:
        frame = client.recv()
        if frame["t"] == "prompt":
            return frame
        if frame["t"] == "coach":
            advice[frame["seq"]] = frame
        elif frame["t"] == "event" and frame["e"]["type"] == "MatchEnded":
            return None
        elif frame["t"] == "hand_break":
            client.send({"t": "next_hand", "v": frame["v"]})


def _coach_of(client: Client, seq: int, advice: dict[int, dict[str, Any]]) -> dict[str, Any]:
    while seq not in advice:
        frame = client.recv()
        if frame["t"] == "coach":
            advice[frame["seq"]] = frame
        else:
            assert frame["t"] in ("event", "coach_state"), frame
    return advice[seq]


def test_the_coach_at_a_practice_table_advises_as_the_master_from_the_seats_view(settings: Settings) -> None:
    """The toggle turns the coach on (the match is marked coached); each prompt's coach frame
    follows it with the master's answer first and nothing but what a fold of the seat's own
    redacted log gives (so no hidden tile); the stats keep the coached match apart."""
    live = LiveServer(settings)
    try:
        token = new_guest(live)
        match = new_match(live, token)
        client = Client(live, token, match)
        client.send({"t": "coach", "on": True})
        coached = 0
        advice: dict[int, dict[str, Any]] = {}
        while (prompt := _next_prompt(client, advice)) is not None:
            frame = _coach_of(client, prompt["seq"], advice)
            events = _seat_events(settings, match, prompt["v"], 0)
            legal = replay(full_log(settings, match)[: prompt["v"]]).legal_actions(0)
            master = _bot(0, events).decide(legal)
            assert frame["choices"][0]["a"] == action_to_wire(master, True)
            expected = advise(_bot(0, events), legal)
            pairs = zip(expected.as_dict()["choices"], expected.actions, strict=True)
            wire = [c | {"a": action_to_wire(a, True)} for c, a in pairs]
            assert frame["choices"] == wire and frame["shanten"] == expected.shanten
            coached += 1
            client.send({"t": "act", "seq": prompt["seq"], "a": choose(prompt)})
        client.close()
        assert coached > 3
        assert [f["on"] for f in client.frames if f["t"] == "coach_state"] == [True]
        engine = db.open_engine(settings.db_url)
        try:
            with engine.connect() as conn:
                assert conn.execute(select(matches.c.coached).where(matches.c.id == match)).scalar_one() is True
                flags = conn.execute(select(match_stats.c.coached).where(match_stats.c.match_id == match)).scalars()
                assert set(flags) == {True}
        finally:
            engine.dispose()
        auth = {"Authorization": f"Bearer {token}"}
        stats = httpx.get(f"{live.http}/api/account/stats", headers=auth).json()
        assert [(g["kind"], g["bot_level"], g["coached"]) for g in stats["groups"]] == [("practice", "beginner", True)]
        history = httpx.get(f"{live.http}/api/account/history", headers=auth).json()
        assert [m["coached"] for m in history["matches"]] == [True]
    finally:
        live.stop()


def test_no_coach_frame_without_the_toggle_and_none_in_a_friend_room(settings: Settings) -> None:
    live = LiveServer(settings)
    try:
        token = new_guest(live)
        client = Client(live, token, new_match(live, token))
        prompt = client.next_prompt_or_end()
        assert prompt is not None
        client.send({"t": "act", "seq": prompt["seq"], "a": choose(prompt)})
        client.next_prompt_or_end()  # only events in between: no coach frame
        client.close()
        host = Api(live)
        room = host.ok("POST", "", {"length": "one-hand", "red_fives": True}, 201)
        for seat in (1, 2):
            host.ok("POST", f"/{room['code']}/bots", {"seat": seat, "level": "beginner"})
        room = host.ok("POST", f"/{room['code']}/start")
        player = Player(live, host.token, room["match"])
        player.send({"t": "coach", "on": True})
        error = player.until("error")
        assert error["code"] == "no_coach"
    finally:
        live.stop()


def test_the_coach_frame_is_validated() -> None:
    assert parse_client_frame('{"t":"coach","on":true}', 4096) == CoachToggle(True)
    for bad in ('{"t":"coach"}', '{"t":"coach","on":1}', '{"t":"coach","on":true,"seat":1}'):
        with pytest.raises(ProtocolError):
            parse_client_frame(bad, 4096)
