"""Audit of the engine against shared/spec/sanma-rules.md, statement by statement.

Each test names the rule it proves in its docstring (section and wording); docs/rules-notes.md
("Spec coverage") maps every statement of sections 1-9 and 12 to the test that covers it.
Scenarios run on scripted deals through the helpers of tests/test_kyoku.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from sanma.engine import tiles as T
from sanma.engine.actions import Discard, Kan, Kita, NineTerminals, Pass, Pon, Ron, Tsumo
from sanma.engine.events import (
    DoraRevealed,
    HandStarted,
    HandWon,
    KitaDeclared,
    MeldCalled,
    RiichiAccepted,
    TileDiscarded,
    TileDrawn,
)
from sanma.engine.hand import MeldType
from sanma.engine.kyoku import Kyoku
from sanma.engine.rules import DEFAULT
from sanma.engine.tiles import NORTH, dora_of, kind_of, parse_kind
from sanma.engine.wall import LIVE_WALL_SIZE, deal_from_seed
from tests.fixtures.kyoku import (
    ITTSU_4Z,
    ITTSU_7Z,
    ITTSU_9S,
    NEUTRAL0,
    NEUTRAL1,
    NEUTRAL2,
    PAO_HANDS,
    _feed_three_dragons,
    act,
    autoplay,
    discard,
    pass_all,
    start,
    tile,
    turn,
)
from tests.fixtures.selfplay import play_kyoku

# NEUTRAL0 with its 5z swapped for a North: seat 0 may declare kita.
N0_NORTH = "19m2468p2468s134z"
# NEUTRAL1 with its North swapped for 7z.
N1_NO_NORTH = "19m1357p1357s267z"
# ITTSU_4Z in sou: ittsu, tanki North.
ITTSU_S_4Z = "123456789s123p4z"


def yaku_of(k: Kyoku, index: int = 0) -> dict[str, int]:
    assert k.result is not None and k.result.wins
    return dict(k.result.wins[index].score.yaku)


def kind(name: str) -> int:
    return parse_kind(name)


# -- section 1: kan dora timing --------------------------------------------------------------------


def test_rinshan_win_after_a_closed_kan_counts_its_indicator() -> None:
    """§1 Closed kan: its indicator is revealed at once, so a rinshan win counts it."""
    k = start(["2222s345678p99s5z", NEUTRAL1, NEUTRAL2], "5z", reps="9s", dora="1z8s")
    act(k, 0, Kan(kind("2s")))
    assert len(k.dora_indicators()) == 2
    act(k, 0, Tsumo())
    yaku = yaku_of(k)
    assert yaku["rinshan"] == 1 and yaku["dora"] == 3  # indicator 8s: the three 9s


def test_ron_on_the_discard_after_an_open_kan_counts_its_indicator() -> None:
    """§1 Open kan: the indicator turns when the kan player next discards, before a ron on it."""
    k = start([NEUTRAL0, "111z23456789p99s", ITTSU_9S], "?", reps="9s", dora="6z8s")
    discard(k, 0, "1z")
    act(k, 1, Kan(kind("1z")))
    assert len(k.dora_indicators()) == 1
    discard(k, 1, "9s")
    assert len(k.dora_indicators()) == 2
    act(k, 2, Ron())
    assert yaku_of(k)["dora"] == 2  # 8s makes 9s dora: the tanki pair


def test_kita_after_an_open_kan_first_reveals_its_indicator() -> None:
    """§1/§3 An open kan's pending indicator turns when its player declares kita; kita itself
    reveals none; kita is legal after a kan's replacement draw."""
    k = start([NEUTRAL0, "111z23456789p99s", "1359p1359s23567z"], "?", reps="4z7z", dora="7s")
    discard(k, 0, "1z")
    act(k, 1, Kan(kind("1z")))
    assert Kita() in k.legal_actions(1)
    mark = len(k.events)
    act(k, 1, Kita())
    assert [type(e) for e in k.events[mark:]] == [DoraRevealed, KitaDeclared, TileDrawn]
    assert len(k.dora_indicators()) == 2


def test_a_second_kan_reveals_the_pending_indicator_before_its_own() -> None:
    """§1 Open kan, then a closed kan by the same player: the open kan's indicator turns first
    (before the second kan's replacement draw), then the closed kan's at once."""
    k = start([NEUTRAL0, "111z7777s3456p99s", "1359p1359s23567z"], "?", reps="7z7z", dora="6s")
    discard(k, 0, "1z")
    act(k, 1, Kan(kind("1z")))
    mark = len(k.events)
    act(k, 1, Kan(kind("7s")))
    assert [type(e) for e in k.events[mark:]] == [DoraRevealed, MeldCalled, DoraRevealed, TileDrawn]
    assert len(k.dora_indicators()) == 3


def test_rinshan_after_an_added_kan_does_not_count_its_indicator() -> None:
    """§1 A win on the replacement tile of an added kan comes before its indicator (and its ura)."""
    k = start([NEUTRAL0, "22s123456789p5z7z", NEUTRAL2], "? ? ? 2s", reps="5z", dora="1z4z")
    discard(k, 0, "2s")
    act(k, 1, Pon(kind("2s")))
    turn(k, 1, "7z")
    turn(k, 2)
    turn(k, 0)
    act(k, 1, Kan(kind("2s")))
    assert Tsumo() in k.legal_actions(1)
    act(k, 1, Tsumo())
    yaku = yaku_of(k)
    assert yaku["rinshan"] == 1 and "dora" not in yaku  # 4z would make the 5z pair dora
    assert len(k.dora_indicators()) == 1


def test_kita_reveals_no_indicator() -> None:
    """§1 Kita reveals no indicator."""
    k = start([N0_NORTH, NEUTRAL1, NEUTRAL2], "7z")
    act(k, 0, Kita())
    assert len(k.dora_indicators()) == 1
    assert not any(isinstance(e, DoraRevealed) for e in k.events)


def test_kan_needs_a_live_tile() -> None:
    """§1/§3 A kan needs at least one tile left in the live wall: none after the last draw."""
    hands = ["2222s2468p19m135z", NEUTRAL1, NEUTRAL2]
    k = start(hands, "7z", live_size=2)
    assert k.live_left == 1 and Kan(kind("2s")) in k.legal_actions(0)
    k = start(hands, "7z", live_size=1)
    assert k.live_left == 0 and not any(isinstance(a, Kan) for a in k.legal_actions(0))


# -- section 2: calls ------------------------------------------------------------------------------


def test_no_chi() -> None:
    """§2 No chi: a discard only a sequence could use opens no window."""
    k = start([NEUTRAL0, "23p19m57p357s1246z", NEUTRAL2], "1p")
    discard(k, 0, "1p")
    assert k.awaiting() == (1,)
    last = k.events[-1]
    assert isinstance(last, TileDrawn) and last.seat == 1


def test_north_can_be_ponned_and_kanned() -> None:
    """§2 North may be discarded, ponned and kanned (open or closed) like any honor."""
    k = start([N0_NORTH, "444z19m357p357s12z", NEUTRAL2], "7z")
    discard(k, 0, "4z")
    legal = k.legal_actions(1)
    assert Pon(kind("4z")) in legal and Kan(kind("4z")) in legal
    k = start(["4444z19m2468p246s", N1_NO_NORTH, NEUTRAL2], "7z")
    assert Kan(kind("4z")) in k.legal_actions(0) and Kita() in k.legal_actions(0)
    act(k, 0, Kan(kind("4z")))
    meld = k.melds(0)[0]
    assert meld.type is MeldType.ANKAN and meld.kind == kind("4z")


def test_kita_ends_the_first_go_around_for_everyone() -> None:
    """§2/§3 A kita is a call for the first go-around: no chiihou, no nine terminals and no
    double riichi after it (a kita ends it for everyone)."""
    k = start([N0_NORTH, ITTSU_9S, NEUTRAL2], "7z 9s", reps="7z")
    act(k, 0, Kita())
    turn(k, 0)
    assert Tsumo() in k.legal_actions(1)
    act(k, 1, Tsumo())
    assert "chiihou" not in yaku_of(k)

    k = start([N0_NORTH, "19m19p19s12356z37p", NEUTRAL2], "7z 5p", reps="7z")
    act(k, 0, Kita())
    turn(k, 0)
    assert NineTerminals() not in k.legal_actions(1)

    k = start([N0_NORTH, ITTSU_9S, NEUTRAL2], "6z 7z 8p 8p 9s", reps="5p")
    act(k, 0, Kita())
    turn(k, 0)
    turn(k, 1, "7z", riichi=True)
    turn(k, 2)
    turn(k, 0)
    act(k, 1, Tsumo())
    yaku = yaku_of(k)
    assert yaku["riichi"] == 1 and "double_riichi" not in yaku and yaku["ippatsu"] == 1


def test_own_kita_spoils_one_s_first_draw() -> None:
    """§2 A replacement draw is not a first draw: no nine terminals after one's own kita."""
    k = start(["19m19p19s12345z4z6z", NEUTRAL1, NEUTRAL2], "7z", reps="7z")
    assert NineTerminals() in k.legal_actions(0)
    act(k, 0, Kita())
    assert NineTerminals() not in k.legal_actions(0)


def test_same_wind_by_all_three_and_three_riichi_do_not_abort() -> None:
    """§8 Not in sanma: four winds, four riichi. All three discard North on the first
    go-around, each as a riichi declaration: the hand goes on."""
    hands = [ITTSU_7Z, "123456789s123p6z", "111m999m555z666z7z"]
    k = start(hands, "4z 4z 4z")
    for seat in (0, 1, 2):
        turn(k, seat, "4z", riichi=True)
    assert k.result is None and k.awaiting() == (0,)
    assert k.deposits == 3 and k.scores == (34_000, 34_000, 34_000)


# -- section 3: kita -------------------------------------------------------------------------------


def test_kita_repeats_and_north_dora_counts_per_extracted_north() -> None:
    """§3 Kita is repeatable while you hold North; with a West indicator every extracted North
    is also a dora; each extracted North is 1 han (not a yaku); rinshan after kita."""
    k = start(["123456789p11s4z4z", NEUTRAL1, NEUTRAL2], "2s", reps="3s4s", dora="3z")
    act(k, 0, Kita())
    assert Kita() in k.legal_actions(0)
    act(k, 0, Kita())
    assert len(k.kita_tiles(0)) == 2 and k.live_left == 52
    act(k, 0, Tsumo())
    yaku = yaku_of(k)
    assert yaku["kita"] == 2 and yaku["dora"] == 2 and yaku["rinshan"] == 1 and yaku["ittsu"] == 2


def test_kita_with_one_live_tile_then_rinshan_is_not_haitei() -> None:
    """§3 With 1 tile left kita is allowed and its replacement empties the live wall; a win on
    a replacement tile is rinshan, never haitei."""
    k = start([ITTSU_4Z, NEUTRAL1, NEUTRAL2], "9s", reps="9s", live_size=2)
    assert k.live_left == 1 and Kita() in k.legal_actions(0)
    act(k, 0, Kita())
    assert k.live_left == 0
    act(k, 0, Tsumo())
    yaku = yaku_of(k)
    assert yaku["rinshan"] == 1 and "haitei" not in yaku


def test_after_a_kita_empties_the_wall_the_discard_is_houtei_and_no_more_kita() -> None:
    """§3 With 0 tiles left there is no kita; the discard after a kita that emptied the live
    wall is the last discard (houtei), and the hand ends drawn after it."""
    k = start(["19m2468p2468s344z", NEUTRAL1, ITTSU_9S], "7z", reps="9s", live_size=2)
    act(k, 0, Kita())
    assert k.live_left == 0
    assert Kita() not in k.legal_actions(0)  # a second North is still in hand
    discard(k, 0, "9s")
    act(k, 2, Ron())
    assert yaku_of(k)["houtei"] == 1

    k = start(["19m2468p2468s344z", NEUTRAL1, NEUTRAL2], "7z", reps="9s", live_size=2)
    act(k, 0, Kita())
    discard(k, 0, "9s")
    pass_all(k)
    assert k.result is not None and k.result.outcome == "drawn"


def test_ron_on_a_kita_is_a_ron_from_the_kita_player_and_not_nukidora() -> None:
    """§3 Another player may ron the extracted North: it is the winner's hand tile (no kita
    han for the winner, its dora counted as a hand tile), the kita player pays as a
    discarder, no chankan and no houtei even with one live tile left."""
    k = start([N0_NORTH, ITTSU_4Z, NEUTRAL2], "7z", dora="3z", live_size=2)
    act(k, 0, Kita())
    assert k.legal_actions(1).actions == (Ron(), Pass())
    act(k, 1, Ron())
    r = k.result
    assert r is not None and r.wins[0].from_seat == 0
    yaku = yaku_of(k)
    assert yaku == {"ittsu": 2, "dora": 2}  # the North pair is dora; no kita, chankan, houtei
    assert r.deltas == (-8000, 8000, 0)  # 4 han 40 fu: mangan from the kita player


def test_double_ron_on_a_kita() -> None:
    """§2/§3 Double ron on a kita: the kita player pays each winner as a discarder; honba and
    deposits go to the winner nearest in turn order."""
    k = start([N0_NORTH, ITTSU_4Z, ITTSU_S_4Z], "7z", honba=2, deposits=1)
    act(k, 0, Kita())
    assert k.awaiting() == (1, 2)
    act(k, 2, Ron())
    act(k, 1, Ron())
    r = k.result
    assert r is not None and [w.seat for w in r.wins] == [1, 2]
    assert all(w.from_seat == 0 for w in r.wins)
    assert r.deltas == (-2600 - 400 - 2600, 2600 + 400 + 1000, 2600)
    assert r.next_honba == 0 and r.deposits_left == 0 and not r.dealer_repeats


def test_kita_window_offers_no_pon() -> None:
    """§3 The window after a kita offers only ron or pass: no pon or kan of an extracted North."""
    k = start([N0_NORTH, "44z19m357p357s123z", NEUTRAL2], "7z")
    act(k, 0, Kita())
    assert k.awaiting() == (0,)
    last = k.events[-1]
    assert isinstance(last, TileDrawn) and last.replacement


def test_north_in_own_discards_blocks_a_kita_ron() -> None:
    """§3/§5 A player with North among their own discards cannot ron an extracted North."""
    k = start([N0_NORTH, ITTSU_4Z, NEUTRAL2], "7z 4z 8p 8p")
    turn(k, 0)
    assert Tsumo() in k.legal_actions(1)
    turn(k, 1, "4z")  # declines the win: North is now in its discards
    turn(k, 2)
    act(k, 0, Kita())
    assert k.awaiting() == (0,)  # no ron offered
    status = k.win_status(1)
    assert status.furiten == "discard" and status.waits == (kind("4z"),)


def test_passing_a_kita_ron_in_riichi_is_riichi_furiten() -> None:
    """§3/§5 A riichi player who passes a winning extracted North is in riichi furiten."""
    k = start([N0_NORTH, ITTSU_4Z, NEUTRAL2], "6z 7z 8p 8p")
    turn(k, 0)
    turn(k, 1, "7z", riichi=True)
    turn(k, 2)
    act(k, 0, Kita())
    act(k, 1, Pass())
    assert k.win_status(1).furiten == "riichi"


def test_kita_of_a_winning_draw_in_riichi_is_riichi_furiten() -> None:
    """§5 Riichi furiten: a winning draw that the riichi player sets aside as kita."""
    k = start([NEUTRAL0, ITTSU_4Z, NEUTRAL2], "6z 7z 8p 8p 4z", reps="9p")
    turn(k, 0)
    turn(k, 1, "7z", riichi=True)
    turn(k, 2)
    turn(k, 0)
    legal = k.legal_actions(1)
    assert Tsumo() in legal and Kita() in legal
    act(k, 1, Kita())
    assert k.win_status(1).furiten == "riichi"


def test_own_kita_is_no_discard_for_furiten() -> None:
    """§3 A North you extract yourself never counts as your discard: it does not make you
    furiten on North; the winner's own extracted North counts as kita."""
    k = start([NEUTRAL0, ITTSU_4Z, NEUTRAL2], "6z 4z 4z", reps="7z")
    turn(k, 0)
    act(k, 1, Kita())  # sets aside the drawn North instead of winning with it
    assert k.river(1) == ()
    turn(k, 1, "7z")
    assert k.win_status(1).furiten == "none"
    discard(k, 2, "4z")
    assert Ron() in k.legal_actions(1)
    act(k, 1, Ron())
    yaku = yaku_of(k)
    assert yaku["kita"] == 1 and yaku["ittsu"] == 2


def test_the_kita_player_s_own_ippatsu_ends_with_its_kita() -> None:
    """§3 Once everyone has passed, the kita cancels ippatsu for the kita player too."""
    k = start([NEUTRAL0, ITTSU_9S, NEUTRAL2], "6z 7z 8p 8p 4z", reps="9s")
    turn(k, 0)
    turn(k, 1, "7z", riichi=True)
    turn(k, 2)
    turn(k, 0)
    act(k, 1, Kita())
    act(k, 1, Tsumo())
    yaku = yaku_of(k)
    assert yaku["rinshan"] == 1 and yaku["kita"] == 1 and "ippatsu" not in yaku


# -- section 4: riichi -------------------------------------------------------------------------------


def test_riichi_after_a_closed_kan_is_allowed_but_not_double() -> None:
    """§4 Riichi needs a closed hand: closed kans allowed. §2 a kan ends the first go-around,
    so a riichi on the first discard after it is not double riichi."""
    k = start(["2222s345678p99s5z", NEUTRAL1, NEUTRAL2], "5z 6z 8p 9s", reps="7z")
    act(k, 0, Kan(kind("2s")))
    assert Discard(tile(k, 0, "7z"), riichi=True) in k.legal_actions(0)
    turn(k, 0, "7z", riichi=True)
    turn(k, 1)
    turn(k, 2)
    act(k, 0, Tsumo())
    yaku = yaku_of(k)
    assert yaku["riichi"] == 1 and yaku["ippatsu"] == 1 and "double_riichi" not in yaku


def test_riichi_is_shape_tenpai_even_without_yaku() -> None:
    """§5 Tenpai (for riichi) is by shape alone: a closed hand with no yaku may declare riichi."""
    k = start(["123p456p789s234s7z", NEUTRAL1, NEUTRAL2], "6z")
    assert Discard(tile(k, 0, "6z"), riichi=True) in k.legal_actions(0)


def test_no_riichi_when_the_only_wait_is_a_fifth_copy() -> None:
    """§5 A kind of which you hold all four copies is never a wait, so no riichi on it."""
    k = start(["2222s999m456p789p", NEUTRAL1, NEUTRAL2], "7z")
    legal = k.legal_actions(0)
    assert Discard(tile(k, 0, "7z"), riichi=True) not in legal
    assert Discard(tile(k, 0, "2s"), riichi=True) in legal  # tanki 7z is a real wait


def test_a_pon_cancels_ippatsu() -> None:
    """§4 Ippatsu: no call in between. A pon by another player cancels it."""
    k = start(["19m2468p2468s155z", ITTSU_9S, NEUTRAL2], "6z 7z 5z 9s")
    turn(k, 0)
    turn(k, 1, "7z", riichi=True)
    discard(k, 2, "5z")
    act(k, 0, Pon(kind("5z")))
    turn(k, 0, "1m")
    act(k, 1, Tsumo())
    yaku = yaku_of(k)
    assert yaku["double_riichi"] == 2 and "ippatsu" not in yaku


def test_ippatsu_ends_with_the_riichi_player_s_next_discard() -> None:
    """§4 Ippatsu: a win within one go-around; after the riichi player's next discard it is gone."""
    k = start([NEUTRAL0, ITTSU_9S, NEUTRAL2], "6z 7z 8p 8p 6z 8s 9s")
    turn(k, 0)
    turn(k, 1, "7z", riichi=True)
    turn(k, 2)
    turn(k, 0)
    turn(k, 1)
    turn(k, 2)
    discard(k, 0, "9s")
    act(k, 1, Ron())
    yaku = yaku_of(k)
    assert yaku["double_riichi"] == 2 and "ippatsu" not in yaku


# -- section 5: tenpai and furiten -------------------------------------------------------------------


def test_tenpai_without_yaku_counts_at_an_exhaustive_draw() -> None:
    """§5 Tenpai for noten payments is by shape alone: a hand without yaku is tenpai."""
    k = start([NEUTRAL0, NEUTRAL1, "123p456p789s234s7z"], "6p 6s 6p", live_size=3)
    r = autoplay(k)
    assert r.tenpai == (2,) and r.deltas == (-1000, -1000, 2000)


def test_four_copies_with_extracted_norths_is_no_wait() -> None:
    """§5 A kind of which you hold all four copies (counting extracted ones) is never a wait:
    a North tanki with three Norths set aside is not tenpai (no riichi, noten at the draw)."""
    k = start(["123456789p4444z", N1_NO_NORTH, NEUTRAL2], "1s", reps="2s3s7z", live_size=6)
    for _ in range(3):
        act(k, 0, Kita())
    assert len(k.kita_tiles(0)) == 3
    assert Discard(tile(k, 0, "7z"), riichi=True) not in k.legal_actions(0)
    discard(k, 0, "7z")
    pass_all(k)
    assert k.win_status(0).waits == ()
    r = autoplay(k)
    assert r.outcome == "drawn" and 0 not in r.tenpai


# -- section 6: pao ------------------------------------------------------------------------------------


def test_pao_when_the_liable_player_deals_in_it_pays_all() -> None:
    """§6 Pao on a ron by the liable player's own discard: the discarder pays all (and honba)."""
    k = start(PAO_HANDS, "5z 6z ? 7z ? 9s", honba=1)
    _feed_three_dragons(k)
    turn(k, 2)
    discard(k, 0, "9s")
    act(k, 1, Ron())
    r = k.result
    assert r is not None and r.wins[0].pao_seat == 0
    assert r.deltas == (-32_200, 32_200, 0)


def test_no_pao_for_a_rinshan_win_after_an_open_kan() -> None:
    """§6 No pao for a rinshan win after a daiminkan: the two others pay a normal tsumo."""
    k = start([NEUTRAL0, "111z23456789p99s", "1359p1359s23567z"], "?", reps="1p", dora="7s")
    discard(k, 0, "1z")
    act(k, 1, Kan(kind("1z")))
    act(k, 1, Tsumo())
    r = k.result
    assert r is not None and r.wins[0].pao_seat is None
    assert r.deltas[0] < 0 and r.deltas[2] < 0 and r.deltas[0] < r.deltas[2]  # dealer pays more


# -- section 7: payments at the end of a hand --------------------------------------------------------------


def test_nagashi_for_two_players_with_honba_and_deposits() -> None:
    """§7 Nagashi mangan: several players can qualify; each gets a mangan tsumo with tsumo loss,
    no honba bonus; deposits stay; dealer repeats only if tenpai; honba +1."""
    k = start([NEUTRAL0, NEUTRAL1, NEUTRAL2], "1p 9p 5s", live_size=3, honba=2, deposits=1)
    r = autoplay(k)
    assert r.nagashi == (0, 1) and r.tenpai == ()
    assert r.deltas == (8000 - 4000, 6000 - 4000, -4000 - 2000)
    assert not r.dealer_repeats and r.next_honba == 3 and r.deposits_left == 1


def test_nagashi_is_not_spoiled_by_one_s_own_riichi() -> None:
    """§7 Nagashi: the player's own riichi does not disqualify; it replaces noten payments and
    the riichi deposit stays on the table."""
    k = start([NEUTRAL0, NEUTRAL1, ITTSU_9S], "5p 5s 1m 6p 6s 9m", live_size=6)
    turn(k, 0)
    turn(k, 1)
    turn(k, 2, "1m", riichi=True)
    r = autoplay(k)
    assert r.nagashi == (2,) and r.tenpai == (2,)
    assert r.deltas == (-4000, -2000, 6000) and r.riichi_paid == (0, 0, 1) and r.deposits_left == 1


def test_ura_indicators_are_shown_only_for_a_riichi_winner() -> None:
    """§7 What is shown at a win: the ura indicators only for a riichi winner."""
    k = start([NEUTRAL0, ITTSU_7Z, NEUTRAL2], "? 5z ? ? 7z", dora="7s")
    turn(k, 0)
    turn(k, 1, "5z", riichi=True)
    turn(k, 2)
    turn(k, 0)
    act(k, 1, Tsumo())
    won = [e for e in k.events if isinstance(e, HandWon)]
    assert len(won[0].ura_indicators) == 1
    k = start([NEUTRAL0, NEUTRAL1, ITTSU_9S], "9s")
    discard(k, 0, "9s")
    act(k, 2, Ron())
    won = [e for e in k.events if isinstance(e, HandWon)]
    assert won[0].ura_indicators == ()


# -- section 8: abortive draws ------------------------------------------------------------------------


def test_a_ron_on_the_discard_after_the_fourth_kan_wins() -> None:
    """§8 Four kans by two players abort only when the discard after the fourth kan is not ronned."""
    k = start(["1111p2222p19m135z", "3333p4444p19m246z", "123456789s5559p"], "8s 8s", reps="7z7z6z9p", deposits=1)
    act(k, 0, Kan(kind("1p")))
    act(k, 0, Kan(kind("2p")))
    turn(k, 0)
    act(k, 1, Kan(kind("3p")))
    act(k, 1, Kan(kind("4p")))
    discard(k, 1, "9p")
    assert k.legal_actions(2).actions == (Ron(), Pass())  # no pon of it
    act(k, 2, Ron())
    r = k.result
    assert r is not None and r.outcome == "won" and "ittsu" in yaku_of(k)


def test_four_kan_abort_carries_the_deposits() -> None:
    """§8 Abortive draws: no points move, dealer repeats, honba +1, deposits carried."""
    k = start(["1111p2222p19m135z", "3333p4444p19m246z", "5689p1359s13577z"], "5s 5s", deposits=2, honba=1)
    act(k, 0, Kan(kind("1p")))
    act(k, 0, Kan(kind("2p")))
    turn(k, 0)
    act(k, 1, Kan(kind("3p")))
    act(k, 1, Kan(kind("4p")))
    turn(k, 1)
    r = k.result
    assert r is not None and r.reason == "four_kans"
    assert r.deltas == (0, 0, 0) and r.deposits_left == 2 and r.next_honba == 2 and r.dealer_repeats


def test_chankan_inside_the_ippatsu_window_keeps_ippatsu() -> None:
    """§4 Ippatsu: no call in between. A robbed added kan never stood, so a chankan inside
    the window keeps ippatsu (and scores chankan)."""
    k = start([NEUTRAL0, "19m357p357s123z22s", "123456789p13s55z"], "? ? ? 2s")
    discard(k, 0, "2s")
    act(k, 2, Pass())
    act(k, 1, Pon(kind("2s")))
    turn(k, 1, "1m")
    turn(k, 2, riichi=True)
    turn(k, 0)
    act(k, 1, Kan(kind("2s")))
    act(k, 2, Ron())
    yaku = yaku_of(k)
    assert {"riichi", "ippatsu", "chankan", "ittsu"} <= set(yaku)


# -- section 1: the tile set and the wall ----------------------------------------------------------


def test_tile_set_and_wall_sizes() -> None:
    """§1 108 tiles (man 1 and 9 only), 27 kinds x 4; one red 5p and one red 5s, no red man;
    dead wall 14; live wall 55 after the deal."""
    assert T.TILE_COUNT == 108 and T.KIND_COUNT == 27
    assert [T.kind_name(k) for k in range(2)] == ["1m", "9m"]
    assert sorted(T.kind_name(T.kind_of(t)) for t in T.RED_TILES) == ["5p", "5s"]
    deal = deal_from_seed(3, 0)
    assert len(deal.live) == LIVE_WALL_SIZE == 108 - 14 - 3 * 13
    assert len(deal.replacements[:4]) + len(deal.dora_indicators) + len(deal.ura_indicators) == 14
    k = Kyoku.start(
        deal, rules=DEFAULT, round_wind=T.EAST, dealer=0, honba=0, deposits=0, scores=(35_000, 35_000, 35_000)
    )
    assert k.live_left == 54 and len(k.hand(0)) == 14  # the dealer drew first


def test_four_copies_with_a_pon_is_no_wait() -> None:
    """§5 A kind of which you hold all four copies (melded ones counted) is never a wait:
    a tanki on the last 9s beside a pon of 9s is noten at the exhaustive draw."""
    k = start(["19m2468p2468s13z9s", "999s123456789p4z", "1359p1358s13567z"], "7z", live_size=3)
    discard(k, 0, "9s")
    act(k, 1, Pon(kind("9s")))
    turn(k, 1, "4z")
    assert k.win_status(1).waits == ()
    r = autoplay(k)
    assert r.outcome == "drawn" and 1 not in r.tenpai


@pytest.mark.parametrize(("hand", "offered"), [(ITTSU_4Z, True), ("123p456p789s234s4z", False)])
def test_passing_a_kita_ron_is_temporary_furiten(hand: str, offered: bool) -> None:
    """§3 A player who could have won on the extracted North and did not is in temporary
    furiten, also when the pass was forced by no yaku."""
    k = start([N0_NORTH, hand, NEUTRAL2], "7z")
    act(k, 0, Kita())
    assert (k.awaiting() == (1,)) is offered
    if offered:
        act(k, 1, Pass())
    assert k.win_status(1).furiten == "temporary"


def test_passing_a_chankan_in_riichi_is_riichi_furiten() -> None:
    """§5 Riichi furiten: passing an added kan's tile."""
    k = start([NEUTRAL0, "19m357p357s123z22s", "123456789p13s55z"], "? ? ? 2s")
    discard(k, 0, "2s")
    act(k, 2, Pass())
    act(k, 1, Pon(kind("2s")))
    turn(k, 1, "1m")
    turn(k, 2, riichi=True)
    turn(k, 0)
    act(k, 1, Kan(kind("2s")))
    act(k, 2, Pass())
    assert k.win_status(2).furiten == "riichi"


def test_a_closed_kan_by_another_player_cancels_ippatsu() -> None:
    """§4 Ippatsu: no kan in between."""
    k = start(["444s2468p19m135z6z", ITTSU_9S, NEUTRAL2], "7z 7z 8p 4s 9s", reps="6z")
    turn(k, 0)
    turn(k, 1, "7z", riichi=True)
    turn(k, 2)
    act(k, 0, Kan(kind("4s")))
    turn(k, 0)
    act(k, 1, Tsumo())
    yaku = yaku_of(k)
    assert yaku["double_riichi"] == 2 and "ippatsu" not in yaku


def test_discard_furiten_lifts_when_the_waits_change() -> None:
    """§5 Discard furiten: no ron until your waits change."""
    k = start([NEUTRAL0, NEUTRAL1, ITTSU_9S], "6z 6z 9s 8p 8p 7z 7z")
    turn(k, 0)
    turn(k, 1)
    turn(k, 2, "9s")  # declines the tsumo: waits 9s with 9s in the discards
    assert k.win_status(2).furiten == "discard"
    turn(k, 0)
    turn(k, 1)
    turn(k, 2, "9s")  # now tanki 7z
    status = k.win_status(2)
    assert status.waits == (kind("7z"),) and status.furiten == "none"
    discard(k, 0, "7z")
    assert Ron() in k.legal_actions(2)


def test_pao_for_daisuushii_on_a_tsumo() -> None:
    """§6 Pao: the player whose discard completed the fourth wind set pays the whole tsumo
    (a double yakuman here, with tsumo loss)."""
    hands = ["19m2468p246s1357z", "11z22z33z44z1m4s7s1p9s", "13589p1359s246z7z"]
    k = start(hands, "5p 6p 6s 8s 5s 2p 2s 9s", dora="6z")
    for feeder, wind, drop in ((0, "1z", "1m"), (2, "2z", "4s"), (0, "3z", "7s"), (2, "4z", "1p")):
        assert k.awaiting() == (feeder,)
        discard(k, feeder, wind)
        act(k, 1, Pon(kind(wind)))
        turn(k, 1, drop)
        if wind == "2z":
            turn(k, 2)
    turn(k, 2)
    turn(k, 0)
    act(k, 1, Tsumo())
    r = k.result
    assert r is not None and r.wins[0].pao_seat == 2 and "daisuushii" in yaku_of(k)
    assert r.deltas == (0, 48_000, -48_000)


def test_nagashi_is_not_spoiled_by_one_s_own_pon() -> None:
    """§7 Nagashi: the player's own calls do not disqualify; a discard called by others does."""
    k = start([NEUTRAL0, NEUTRAL1, "1359p1359s11567z"], "6p 6s 5p", live_size=3)
    discard(k, 0, "1z")
    act(k, 2, Pon(kind("1z")))
    turn(k, 2, "9p")
    r = autoplay(k)
    assert r.nagashi == (2,)
    assert r.deltas == (-4000, -2000, 6000)


# -- an independent reading of the event log ---------------------------------------------------------


def _check_hand_log(events: Sequence[object]) -> int:
    """Re-derive from the event log alone what sections 1-4 say about every win and every
    indicator, and compare with what the engine recorded.  Returns the number of wins checked."""
    started = events[0]
    assert isinstance(started, HandStarted)
    live_left = started.live_size
    indicators = [started.dora_indicator]
    kita: list[int] = [0, 0, 0]
    discarded = [False, False, False]
    riichi_at: dict[int, int] = {}  # seat -> index of its RiichiAccepted
    double = [False, False, False]
    interrupted_since: list[int] = []  # indices of calls and kita (they end ippatsu/first go-around)
    pending: dict[int, int] = {}  # seat -> open/added kans whose indicator is not yet turned
    last_draw: dict[int, TileDrawn] = {}
    wins = 0
    for i, ev in enumerate(events[1:], start=1):
        if isinstance(ev, TileDrawn):
            live_left -= 1
            last_draw[ev.seat] = ev
        elif isinstance(ev, DoraRevealed):
            indicators.append(ev.indicator)
        elif isinstance(ev, TileDiscarded | KitaDeclared | MeldCalled) and pending.get(ev.seat):
            # §1: the pending indicator turns just before the kan player's next discard, kita or kan.
            turned = 0
            j = i - 1
            while isinstance(events[j], DoraRevealed):
                turned += 1
                j -= 1
            assert turned == pending.pop(ev.seat), f"event {i}: pending kan indicator not turned first"
        if isinstance(ev, KitaDeclared):
            assert live_left >= 1, "kita with an empty live wall"
            kita[ev.seat] += 1
            interrupted_since.append(i)
        elif isinstance(ev, MeldCalled):
            interrupted_since.append(i)
            if ev.meld.type in (MeldType.DAIMINKAN, MeldType.KAKAN):
                pending[ev.seat] = pending.get(ev.seat, 0) + 1
                assert live_left >= 1, "kan with an empty live wall"
            elif ev.meld.type is MeldType.ANKAN and i + 1 < len(events) and not isinstance(events[i + 1], HandWon):
                assert isinstance(events[i + 1], DoraRevealed), "a closed kan turns its indicator at once"
        elif isinstance(ev, TileDiscarded):
            if ev.riichi:
                double[ev.seat] = not discarded[ev.seat] and not interrupted_since
            discarded[ev.seat] = True
        elif isinstance(ev, RiichiAccepted):
            riichi_at[ev.seat] = i
        elif isinstance(ev, HandWon):
            wins += 1
            source = next(e for e in reversed(events[:i]) if not isinstance(e, HandWon))
            _check_win(ev, source, i, live_left, indicators, kita, riichi_at, double, interrupted_since, events)
            assert ev.seat != ev.from_seat or last_draw[ev.seat].tile == ev.tile
    return wins


def _check_win(
    ev: HandWon,
    source: object,
    index: int,
    live_left: int,
    indicators: list[int],
    kita: list[int],
    riichi_at: dict[int, int],
    double: list[bool],
    interrupted_since: list[int],
    events: Sequence[object],
) -> None:
    yaku = dict(ev.score.yaku)
    tsumo = ev.seat == ev.from_seat
    rinshan = tsumo and isinstance(source, TileDrawn) and source.replacement
    riichi = ev.seat in riichi_at
    assert len(ev.ura_indicators) == (len(indicators) if riichi else 0)
    if ev.score.yakuman:
        return
    expected = {
        "rinshan": rinshan,
        "haitei": tsumo and not rinshan and live_left == 0,
        "houtei": not tsumo and isinstance(source, TileDiscarded) and live_left == 0,
        "chankan": isinstance(source, MeldCalled) and not tsumo,
        "menzen_tsumo": tsumo and all(not m.is_open for m in ev.melds),
    }
    if riichi:
        since = riichi_at[ev.seat]
        own_discards = [e for e in events[since:index] if isinstance(e, TileDiscarded) and e.seat == ev.seat]
        calls = [j for j in interrupted_since if since < j < index]
        # A ron on the kita itself (or a chankan) comes before that call stood.
        if calls and not tsumo and calls[-1] == index - 1:
            calls = calls[:-1]
        expected["ippatsu"] = not own_discards and not calls
        expected["double_riichi"] = double[ev.seat]
        expected["riichi"] = not double[ev.seat]
    for name, want in expected.items():
        assert (name in yaku) is want, f"{name}: expected {want}, got {ev.score.yaku}"
    tiles = [*ev.hand, ev.tile, *(t for m in ev.melds for t in m.tiles)]
    want_dora = sum(kind_of(t) == dora_of(kind_of(x)) for x in indicators for t in tiles)
    want_dora += kita[ev.seat] * sum(dora_of(kind_of(x)) == NORTH for x in indicators)
    assert yaku.get("dora", 0) == want_dora, (yaku, [kind_of(x) for x in indicators])
    assert yaku.get("kita", 0) == kita[ev.seat]


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["default", "tenhou"])
def test_event_logs_of_random_hands_follow_the_rules(preset: str) -> None:
    """§1-§4 on 300 random hands: every win's rinshan, haitei, houtei, chankan, menzen tsumo,
    riichi/double riichi, ippatsu, dora, kita and ura match an independent reading of the
    event log; every indicator turns when §1 says; no kan or kita on an empty live wall."""
    wins = 0
    for seed in range(300):
        kyoku = play_kyoku(1000 + seed, preset, checked=False)  # the log is what is audited
        wins += _check_hand_log(kyoku.events)
    assert wins > 60
