"""An operator's end (``Match.end_now``, ``sanma admin end``): the hand in progress is abandoned,
the match ends from the points as they stand (deposits on the table go to first place, as at
a normal end); the log replays, and opens in every reader: the store's codec, the table's
rebuild, the replay viewer's job, the tenhou.net/6 export (the abandoned hand left out), the
mjai export and the review."""

from __future__ import annotations

import json
import random

import pytest

from sanma.engine.actions import Action, Discard, NineTerminals, Pass, Ron, Tsumo
from sanma.engine.errors import InvalidLog
from sanma.engine.events import Event, HandStarted, MatchEnded, RiichiAccepted
from sanma.engine.formats import mjai, tenhou6
from sanma.engine.match import OPERATOR, Match, standings, without_abandoned_hand
from sanma.engine.replay import replay
from sanma.engine.rules import DEFAULT
from sanma.engine.shanten import shanten
from sanma.engine.tiles import counts_of_tiles, tile_name
from sanma.engine.wall import deal_from_seed
from sanma.server import logwork, reviewer
from sanma.server.codec import event_from_store, event_to_store, rules_to_json
from sanma.server.rooms.handbreak import replay_stored
from tests.fixtures.match import ONE_HAND, TENHOU, scripted_deal, tenhou_deal

TENPAI_ON_NORTH = "789p123s456s789s4z"  # 13 tiles waiting on a North (tanki)
NINE_KINDS = "19m19p19s1234567z"  # nine terminals on the first draw


def pass_window(match: Match) -> None:
    """Every awaited seat passes, if a discard opened a window."""
    if match.kyoku.phase == "window":
        for seat in match.awaiting():
            match.apply(seat, Pass())


def two_riichi_sticks() -> Match:
    """East 1: the dealer (seat 0) and seat 1 declare riichi on their first discards; seat 2
    has just drawn: two deposits on the table, 34,000 / 34,000 / 35,000."""
    deal = scripted_deal({0: TENHOU, 1: TENPAI_ON_NORTH}, ["5z", "6z"])
    match = Match(3, deals=lambda i: deal)
    for seat, tile in ((0, "5z"), (1, "6z")):
        riichi = [a for a in match.legal_actions(seat) if isinstance(a, Discard) and a.riichi]
        match.apply(seat, next(a for a in riichi if _named(a, tile)))
        pass_window(match)
    assert match.awaiting() == (2,) and match.deposits == 2
    return match


def _named(action: Discard, name: str) -> bool:
    return tile_name(action.tile, True) == name


def test_end_mid_hand_gives_the_deposits_to_first_place() -> None:
    match = two_riichi_sticks()
    assert match.scores == (34000, 34000, 35000)
    before = len(match.events)
    events = match.end_now()
    assert match.finished and match.events[before:] == events
    (ended,) = events
    assert isinstance(ended, MatchEnded) and ended.reason == OPERATOR
    # Seat 2 is first: it takes both sticks, as leftover deposits at a normal end.
    assert ended.points == (34000, 34000, 37000) and sum(ended.points) == 3 * DEFAULT.starting_points
    assert ended.placements == (2, 3, 1)
    assert match.standings == standings((34000, 34000, 37000), DEFAULT)
    assert ended.final_scores == tuple(s.final_score for s in match.standings)
    assert match.awaiting() == () and not list(match.legal_actions(2))
    match.check_invariants()


def test_end_in_a_break_takes_the_deposits_carried_to_the_next_deal() -> None:
    """The hand ended (an abortive draw after a riichi) and the next one is dealt: the stick
    it carries goes to first place (ties: the earlier seat)."""
    deals = {0: scripted_deal({0: TENHOU, 1: NINE_KINDS}, ["5z", "8p"]), 1: deal_from_seed(9, 1)}
    match = Match(3, deals=deals.__getitem__)
    riichi = next(a for a in match.legal_actions(0) if isinstance(a, Discard) and a.riichi and _named(a, "5z"))
    match.apply(0, riichi)
    pass_window(match)
    match.apply(1, NineTerminals())
    assert match.table.hand_index == 1  # the next hand is dealt: a table would hold it in its break
    assert match.deposits == 1 and match.scores == (34000, 35000, 35000)
    (ended,) = match.end_now()
    assert isinstance(ended, MatchEnded)
    assert ended.points == (34000, 36000, 35000) and ended.placements == (3, 1, 2)


def test_a_finished_match_ends_no_more() -> None:
    match = Match(1, ONE_HAND, deals=lambda i: tenhou_deal(0))
    match.apply(0, Tsumo())
    assert match.finished
    events = list(match.events)
    assert match.end_now() == []
    assert match.events == events
    again = two_riichi_sticks()
    again.end_now()
    assert again.end_now() == []


def test_the_log_replays_and_the_store_keeps_the_reason() -> None:
    match = two_riichi_sticks()
    match.end_now()
    deal = match.deal()
    assert replay(match.events, deals=lambda i: deal) == match
    stored = [event_to_store(e) for e in match.events]
    assert stored[-1]["reason"] == OPERATOR
    assert replay([event_from_store(e) for e in stored], deals=lambda i: deal) == match


def test_a_stored_end_without_a_reason_reads_as_the_rules_end() -> None:
    old = {"t": "MatchEnded", "points": [45000, 35000, 25000], "placements": [1, 2, 3], "final_scores": [1, 2, 3]}
    ended = event_from_store(old)
    assert isinstance(ended, MatchEnded) and ended.reason == "rules"


def test_a_rules_end_in_the_middle_of_a_hand_is_refused() -> None:
    match = two_riichi_sticks()
    (ended,) = match.end_now()
    assert isinstance(ended, MatchEnded)
    forged = [*match.events[:-1], MatchEnded(ended.points, ended.placements, ended.final_scores)]
    deal = match.deal()
    with pytest.raises(InvalidLog, match="the rules give"):
        replay(forged, deals=lambda i: deal)


# -- a seeded match, as the server stores it -------------------------------------------------------


def choose(rng: random.Random, match: Match, seat: int) -> Action:
    """Toward tenpai, riichi when it can, a win when offered: hands end and sticks get paid."""
    legal = match.legal_actions(seat)
    actions = list(legal)
    wins = [a for a in actions if isinstance(a, Tsumo | Ron)]
    if wins:
        return wins[0]
    riichi = [a for a in actions if isinstance(a, Discard) and a.riichi]
    if riichi:
        return rng.choice(riichi)
    discards = [a for a in actions if isinstance(a, Discard)]
    if not discards:
        assert legal.default is not None
        return legal.default
    hand, melds = match.kyoku.hand(seat), len(match.kyoku.melds(seat))

    def after(d: Discard) -> int:
        return shanten(counts_of_tiles(t for t in hand if t != d.tile), melds)

    best = min(after(d) for d in discards)
    return rng.choice([d for d in discards if after(d) == best])


def ended_with_a_stick(seed: int) -> Match:
    """A seeded East match played until, after at least one whole hand, a riichi stick lies
    on the table in the middle of a hand; then the operator ends it."""
    rng = random.Random(seed)
    match = Match(seed, DEFAULT.with_options(length="east"))
    while not match.finished:
        hands = sum(isinstance(e, HandStarted) for e in match.events)
        if hands > 1 and match.deposits and match.kyoku.phase == "turn":
            match.end_now()
            return match
        seat = match.awaiting()[0]
        match.apply(seat, choose(rng, match, seat))
    raise AssertionError(f"seed {seed}: no stick mid-hand after the first hand")


@pytest.fixture(scope="module")
def seeded() -> Match:
    for seed in range(40):
        try:
            return ended_with_a_stick(seed)
        except AssertionError:
            continue
    raise AssertionError("no seed gave a stick mid-hand")


def test_a_seeded_log_rebuilds_as_a_finished_table(seeded: Match) -> None:
    stored = [event_from_store(event_to_store(e)) for e in seeded.events]
    rebuilt, count = replay_stored(stored)
    assert rebuilt == seeded and rebuilt.finished and count == len(stored)
    assert any(isinstance(e, RiichiAccepted) for e in _abandoned(seeded.events))


def _abandoned(events: list[Event]) -> list[Event]:
    start = max(i for i, e in enumerate(events) if isinstance(e, HandStarted))
    return events[start:-1]


def test_without_abandoned_hand_cuts_only_an_operators_end(seeded: Match) -> None:
    cut = without_abandoned_hand(seeded.events)
    assert cut == [*seeded.events[: len(seeded.events) - len(_abandoned(seeded.events)) - 1], seeded.events[-1]]
    whole = Match(1, ONE_HAND, deals=lambda i: tenhou_deal(0))
    whole.apply(0, Tsumo())
    assert without_abandoned_hand(whole.events) == whole.events


def test_the_tenhou6_export_leaves_the_abandoned_hand_out_and_opens_again(seeded: Match) -> None:
    stored = [event_to_store(e) for e in seeded.events]
    rules = rules_to_json(seeded.rules)
    data = json.loads(logwork.tenhou6_job("m1", stored, rules, ["a", "b", "c"]))
    hands = sum(isinstance(e, HandStarted) for e in seeded.events)
    assert len(data["log"]) == hands - 1  # every whole hand, not the abandoned one
    ended = seeded.events[-1]
    assert isinstance(ended, MatchEnded)
    assert data["sc"][0:6:2] == list(ended.points)
    game = tenhou6.parse_game(data, source="export")
    assert len(game.hands) == hands - 1
    _, _, answer = logwork.open_job(json.dumps(data), None, max_hands=100, max_bytes=1 << 24, packed=False)
    assert json.loads(answer)["events"]


def test_the_replay_viewer_and_mjai_read_the_whole_log(seeded: Match) -> None:
    stored = [event_to_store(e) for e in seeded.events]
    rules = rules_to_json(seeded.rules)
    shown = json.loads(logwork.replay_job("m1", stored, rules, seat=0, is_open=True, names=[None] * 3, bots=[None] * 3))
    assert shown["events"][-1]["type"] == "MatchEnded" and shown["events"][-1]["reason"] == OPERATOR
    assert len(shown["events"]) == len(seeded.events)
    out = mjai.write_all(seeded.events, seeded.rules.red_fives)
    # The abandoned hand is written up to where it stopped, closed, then the game's end.
    assert [e["type"] for e in out[-2:]] == ["end_kyoku", "end_game"]
    assert out[-3]["type"] not in ("hora", "ryukyoku")
    assert out[-1]["scores"] == list(seeded.events[-1].points)  # type: ignore[union-attr]


@pytest.mark.slow
def test_the_review_skips_the_abandoned_hand(seeded: Match) -> None:
    stored = [event_to_store(e) for e in seeded.events]
    start = _abandoned(seeded.events)[0]
    assert isinstance(start, HandStarted)
    abandoned = f"E{start.dealer + 1}-{start.honba}"
    for seat in range(3):
        found = reviewer.compute(("m1", seat), stored, seat)
        assert found["decisions"] > 0
        assert abandoned not in {m["hand"] for m in found["mistakes"]}, seat
