"""Four log faults found by replaying another engine's games (issue 14), each on a log
written for it: the physical North a kita sets aside, nagashi mangan, a counted yakuman,
and an open kan whose replacement draw wins with or without the trailing 0.

The logs are written here (by hand, or played on a scripted deal and exported), so these
tests need nothing from ``../shared/testdata``.
"""

from __future__ import annotations

import copy
import json

import pytest

from sanma.engine.actions import Discard, Kan, Kita, Tsumo
from sanma.engine.events import HandDrawn, HandStarted, HandWon, KitaDeclared, TileDiscarded, TileDrawn
from sanma.engine.formats.mjai import read_all, write_all
from sanma.engine.formats.tenhou6 import (
    RecordedGame,
    check_game,
    export_hand,
    parse_game,
    parse_hand,
    replay_hand,
    rules_for,
    yaku_texts,
)
from sanma.engine.kyoku import Kyoku
from sanma.engine.legality import kita_tile
from sanma.engine.rules import PRESETS
from sanma.engine.scoring import Payments, Score
from sanma.engine.tiles import EAST, NORTH, kind_of, parse_kind
from sanma.engine.visibility import redact_all
from tests.fixtures.kyoku import N1_NO_P, NEUTRAL0, NEUTRAL1, NEUTRAL2, act, autoplay, pass_all, start

TENHOU = PRESETS["tenhou"]


def _game(*hands: list[object], rule: str = "三鳳南喰赤") -> RecordedGame:
    data = {
        "ver": 2.3,
        "ref": "",
        "log": list(hands),
        "rule": {"disp": rule, "aka53": 1, "aka52": 1, "aka51": 0},
        "name": ["A", "B", "C", ""],
    }
    return parse_game(json.loads(json.dumps(data, ensure_ascii=False)), source="written")


def _replays(game: RecordedGame) -> None:
    checks = check_game(game, rules_for(game))
    assert [c.detail for c in checks] == [""] * len(checks)


# -- 1. which North a kita sets aside ---------------------------------------------------------

# Seat 0 (dealer) is dealt a North, draws a second one and sets the fresh one aside (f44),
# draws its replacement and discards the dealt North; seat 1 then wins by tsumo on 5s
# (tanki, menzen tsumo + ittsu: 30 fu 3 han, 1000-2000).
KITA_THEN_NORTH_DISCARD: list[object] = [
    [0, 0, 0],
    [35000, 35000, 35000, 0],
    [46],
    [],
    [44, 11, 11, 19, 19, 32, 33, 34, 36, 37, 38, 45, 46],
    [44, 47],
    ["f44", 44],
    [21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 35],
    [35],
    [],
    [41, 41, 42, 42, 43, 43, 45, 46, 47, 47, 11, 19, 39],
    [],
    [],
    [],
    [],
    [],
    ["和了", [-2000, 3000, -1000, 0], [1, 1, 1, "30符3飜1000-2000点", "門前清自摸和(1飜)", "一気通貫(2飜)"]],
]


def test_kita_of_a_fresh_north_then_the_dealt_one_is_discarded() -> None:
    game = _game(KITA_THEN_NORTH_DISCARD)
    hand = game.hands[0]
    kita_at = next(i for i, (_, a) in enumerate(hand.actions) if isinstance(a, Kita))
    north_discard = hand.actions[kita_at + 1][1]
    assert isinstance(north_discard, Discard) and kind_of(north_discard.tile) == NORTH
    # The dealt North is the one discarded: the kita took the North just drawn.
    assert north_discard.tile in hand.deal.hands[0]
    _replays(game)
    check = replay_hand(hand, rules_for(game))
    kita = next(e for e in check.events if isinstance(e, KitaDeclared))
    assert kita.tile == hand.deal.live[0]  # the fresh North


def test_kita_of_a_dealt_north_takes_the_lowest() -> None:
    # The same hand, but seat 0 sets a dealt North aside before it draws one: two dealt
    # Norths, the kita takes the lower and the discard is the other dealt copy.
    raw = copy.deepcopy(KITA_THEN_NORTH_DISCARD)
    raw[4] = [44, 44, 11, 19, 19, 32, 33, 34, 36, 37, 38, 45, 46]
    raw[5] = [21, 47]
    raw[6] = ["f44", 44]
    game = _game(raw)
    hand = game.hands[0]
    norths = sorted(t for t in hand.deal.hands[0] if kind_of(t) == NORTH)
    check = replay_hand(hand, rules_for(game))
    assert check.match, check.detail
    kita = next(e for e in check.events if isinstance(e, KitaDeclared))
    discard = next(e for e in check.events if isinstance(e, TileDiscarded) and e.seat == 0)
    assert (kita.tile, discard.tile) == (norths[0], norths[1])


def test_one_kita_rule_for_the_engine_and_both_readers() -> None:
    assert kita_tile([92, 95, 3], 95) == 95  # the drawn North
    assert kita_tile([95, 93, 3], 3) == 93  # else the lowest
    with pytest.raises(ValueError):
        kita_tile([3, 4], 4)
    # The engine and the mjai reader name the same physical North for the same game.
    k = start(["123456789p11s2s4z", NEUTRAL1, NEUTRAL2], "4z ? ? 4z", reps="3z 7z", rules=TENHOU)
    act(k, 0, Kita())  # the drawn North (the dealt one stays)
    dealt = next(t for t in k.hand(0) if kind_of(t) == NORTH)
    act(k, 0, Discard(dealt))
    pass_all(k)
    autoplay(k)
    # The mjai reader numbers copies its own way; it too sets aside the North just drawn
    # and so still holds the dealt one for the discard.
    mine = read_all(write_all(redact_all(k.events, 0), TENHOU.red_fives), TENHOU, seat=0)
    at = next(i for i, e in enumerate(mine) if isinstance(e, KitaDeclared))
    kita, before, after = mine[at], mine[at - 1], mine[at + 2]
    assert isinstance(kita, KitaDeclared) and isinstance(before, TileDrawn) and kita.tile == before.tile
    assert isinstance(after, TileDiscarded) and kind_of(after.tile) == NORTH and not after.tsumogiri
    start_event = mine[0]
    assert isinstance(start_event, HandStarted) and after.tile in start_event.hands[0]


# -- 2. nagashi mangan -------------------------------------------------------------------------


def _nagashi_hand() -> Kyoku:
    # Seat 1 draws only terminals and honors and lets each go; nobody calls, the wall runs out.
    seat1 = ["1m", "9m", "1p", "9p", "1s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z", "1m", "9m", "1p", "9p", "1s"]
    tokens = [seat1[i // 3] if i % 3 == 1 else "?" for i in range(55)]
    k = start([NEUTRAL0, NEUTRAL1, NEUTRAL2], " ".join(tokens), rules=TENHOU)
    result = autoplay(k)
    assert result.nagashi == (1,)
    assert result.deltas == (-4000, 6000, -2000)  # a non-dealer mangan tsumo, no honba
    assert result.reason == "nagashi"
    return k


def test_nagashi_mangan_exports_and_replays_as_nagashi() -> None:
    k = _nagashi_hand()
    drawn = k.events[-1]
    assert isinstance(drawn, HandDrawn) and drawn.reason == "exhaustive" and drawn.nagashi == (1,)
    exported = export_hand(k.events, TENHOU)
    assert exported[16] == ["流し満貫", [-4000, 6000, -2000, 0]]
    hand = parse_hand(json.loads(json.dumps(exported, ensure_ascii=False)), index=0)
    assert (hand.result.outcome, hand.result.reason) == ("drawn", "nagashi")
    check = replay_hand(hand, TENHOU)
    assert check.match, check.detail
    assert check.result is not None and check.result.nagashi == (1,)


def test_nagashi_reason_differs_from_a_plain_draw() -> None:
    # The log says 流局 where the engine finds nagashi: reported, not matched.
    exported = export_hand(_nagashi_hand().events, TENHOU)
    exported[16] = ["流局", [-4000, 6000, -2000, 0]]
    check = replay_hand(parse_hand(exported, index=0), TENHOU)
    assert check.differences == ("reason: engine nagashi, log exhaustive",)


# -- 3. counted yakuman ------------------------------------------------------------------------


def _counted_yakuman() -> Kyoku:
    # Dealer: double riichi on the first discard, ippatsu tsumo on 1p: double riichi 2,
    # ippatsu 1, menzen tsumo 1, pinfu 1, chinitsu 6, ittsu 2, dora 3 (three 5p under a 4p
    # indicator) = 16 han, a yakuman by count; each non-dealer pays 16000.
    k = start(["23456789p234p55p", N1_NO_P, "19m19s123456s126z"], "1z 7z 7z 1p", dora="4p", ura="1z", rules=TENHOU)
    act(k, 0, Discard(k.hand(0)[-1], riichi=True))  # the drawn 1z
    pass_all(k)
    for seat in (1, 2):
        act(k, seat, k.legal_actions(seat).default)  # type: ignore[arg-type]
        pass_all(k)
    act(k, 0, Tsumo())
    return k


def test_counted_yakuman_export_then_import_keeps_han_yaku_and_points() -> None:
    k = _counted_yakuman()
    won = k.events[-1]
    assert isinstance(won, HandWon)
    score = won.score
    assert (score.han, score.yakuman, score.limit, score.counted_yakuman) == (16, 1, "yakuman", True)
    assert won.deltas == (33000, -16000, -16000)  # and the dealer's own riichi stick
    exported = export_hand(k.events, TENHOU)
    info = exported[16][2]
    assert info[3] == "役満16000点∀"
    assert not any("役満" in y for y in info[4:]), info  # every yaku with its han
    hand = parse_hand(json.loads(json.dumps(exported, ensure_ascii=False)), index=0)
    (win,) = hand.result.wins
    assert (win.han, win.yakuman, win.limit) == (16, 1, "yakuman")
    assert sum(h for _, h in win.yaku) == 16 and len(win.yaku) == len(score.yaku)
    assert win.deltas == won.deltas
    check = replay_hand(hand, TENHOU)
    assert check.match, check.detail


@pytest.mark.parametrize("word", ["役満", "数え役満"])
def test_counted_yakuman_read_from_a_written_log(word: str) -> None:
    exported = export_hand(_counted_yakuman().events, TENHOU)
    exported[16][2][3] = f"{word}16000点∀"
    hand = parse_hand(exported, index=0)
    (win,) = hand.result.wins
    assert (win.han, win.yakuman, win.fu) == (16, 1, 0)
    assert replay_hand(hand, TENHOU).match


def test_yaku_texts_mark_only_a_true_yakuman() -> None:
    true = Score(13, 0, 1, "yakuman", (("daisangen", 13),), 8000, Payments(), 0)
    assert yaku_texts(true, EAST, EAST) == ["大三元(役満)"]
    counted = Score(13, 40, 1, "yakuman", (("riichi", 1), ("chinitsu", 6), ("dora", 6)), 8000, Payments(), 0)
    assert not true.counted_yakuman and counted.counted_yakuman
    assert yaku_texts(counted, EAST, EAST) == ["立直(1飜)", "清一色(6飜)", "ドラ(6飜)"]


# -- 4. an open kan whose replacement draw wins ------------------------------------------------


def _open_kan_rinshan() -> Kyoku:
    k = start([NEUTRAL0, "111z23456789p99s", "1359p1359s23567z"], "?", reps="1p", dora="7s", rules=TENHOU)
    act(k, 0, Discard(next(t for t in k.hand(0) if kind_of(t) == parse_kind("1z"))))
    act(k, 1, Kan(parse_kind("1z")))
    act(k, 1, Tsumo())
    assert k.result is not None and "rinshan" in {n for n, _ in k.result.wins[0].score.yaku}
    return k


@pytest.mark.parametrize("trailing_zero", [True, False])
def test_open_kan_replacement_win_with_or_without_the_zero(trailing_zero: bool) -> None:
    k = _open_kan_rinshan()
    exported = export_hand(k.events, TENHOU)
    assert exported[9] == [0]  # seat 1's discards: the open kan's 0, nothing else
    if not trailing_zero:
        exported[9] = []
    hand = parse_hand(exported, index=0)
    assert [type(a).__name__ for _, a in hand.actions] == ["Discard", "Kan", "Tsumo"]
    check = replay_hand(hand, TENHOU)
    assert check.match, check.detail
    assert check.events[1:] == tuple(k.events[1:])  # the same play (the deal lists only drawn tiles)


def test_a_missing_zero_before_a_discard_is_still_refused() -> None:
    k = start([NEUTRAL0, "111z2345679p99s1s", "1359p1359s23567z"], "?", reps="8p", dora="7s", rules=TENHOU)
    act(k, 0, Discard(next(t for t in k.hand(0) if kind_of(t) == parse_kind("1z"))))
    act(k, 1, Kan(parse_kind("1z")))
    autoplay(k)
    exported = export_hand(k.events, TENHOU)
    assert exported[9][0] == 0
    exported[9] = exported[9][1:]
    with pytest.raises(ValueError, match="followed by a 0"):
        parse_hand(exported, index=0)


def test_phase_says_turn_window_or_over() -> None:
    k = start([NEUTRAL0, NEUTRAL1, "1359p1359s11567z"], "?")
    assert k.phase == "turn"
    act(k, 0, Discard(next(t for t in k.hand(0) if kind_of(t) == parse_kind("1z"))))
    assert k.phase == "window" and k.awaiting() == (2,)  # seat 2 may pon the 1z
    pass_all(k)
    assert k.phase == "turn"
    autoplay(k)
    assert k.phase == "over"
