"""Scenario tests of one hand on scripted deals (sanma-rules.md sections 1-8).

Deals are written in mpsz: three 13-tile hands, then the live draws in order (``?`` is a
filler tile), replacement draws and indicators.  Filler comes from the tiles left over,
in a fixed order, so every scenario is deterministic.
"""

from __future__ import annotations

import pytest

from sanma.engine.actions import Discard, Kan, Kita, NineTerminals, Pass, Pon, Ron, Tsumo
from sanma.engine.errors import IllegalAction
from sanma.engine.events import (
    DoraRevealed,
    HandAborted,
    HandDrawn,
    HandWon,
    KitaDeclared,
    MeldCalled,
    RiichiAccepted,
    TileDiscarded,
    TileDrawn,
)
from sanma.engine.furiten import kan_keeps_readings
from sanma.engine.hand import MeldType
from sanma.engine.kyoku import Kyoku, KyokuResult
from sanma.engine.rules import DEFAULT, PRESETS
from sanma.engine.shanten import waits
from sanma.engine.tiles import (
    TILE_COUNT,
    counts_of_kinds,
    is_red,
    kind_of,
    parse,
    parse_kind,
)
from tests.fixtures.kyoku import (
    ITTSU_4Z,
    ITTSU_7Z,
    ITTSU_9S,
    N1_NO_P,
    NEUTRAL0,
    NEUTRAL1,
    NEUTRAL2,
    PAO_HANDS,
    _feed_three_dragons,
    act,
    autoplay,
    discard,
    make_deal,
    pass_all,
    start,
    tile,
    turn,
)

# -- helpers ------------------------------------------------------------------------------


def yaku_names(result: KyokuResult, index: int = 0) -> set[str]:
    return {name for name, _ in result.wins[index].score.yaku}


def kinds(text: str) -> tuple[int, ...]:
    return tuple(k for k, _ in parse(text))


N0_NO_2P = "19m468p2468s1357z"
N2_LOW_P = "5689p1359s13577z"
N1_NO_15P = "2357p23578s2467z"


def test_make_deal_uses_every_tile_once() -> None:
    deal = make_deal([NEUTRAL0, NEUTRAL1, NEUTRAL2], "9s ? 9s", reps="4z")
    every = [t for h in deal.hands for t in h] + list(deal.live) + list(deal.replacements[:4])
    every += list(deal.dora_indicators) + list(deal.ura_indicators)
    assert sorted(every) == list(range(TILE_COUNT))


# -- start, legal actions, defaults -------------------------------------------------------


def test_start_deals_and_dealer_draws() -> None:
    k = start([NEUTRAL0, NEUTRAL1, NEUTRAL2], "5p")
    assert k.awaiting() == (0,)
    assert len(k.hand(0)) == 14 and len(k.hand(1)) == 13
    assert isinstance(k.events[1], TileDrawn) and k.events[1].seat == 0
    assert k.live_left == 54
    assert k.legal_actions(0).default == Discard(tile(k, 0, "5p"))
    assert len(k.legal_actions(1)) == 0 and len(k.legal_actions(2)) == 0


def test_discard_choices_are_distinct_and_red_five_is_its_own_choice() -> None:
    k = start(["0p55p2468s19m1357z", N1_NO_P, "2346p12349s1357z"], "5p")
    legal = k.legal_actions(0)
    fives = [a for a in legal if isinstance(a, Discard) and kind_of(a.tile) == parse_kind("5p")]
    assert len(fives) == 2  # the red one and one plain one
    drawn = k.events[-1]
    assert isinstance(drawn, TileDrawn) and Discard(drawn.tile) in fives
    # Any other plain 5p is the same choice and is accepted (a replayer may name it).
    other = [t for t in k.hand(0) if kind_of(t) == parse_kind("5p") and t != drawn.tile and not is_red(t)]
    assert Discard(other[0]) not in list(legal) and Discard(other[0]) in legal
    act(k, 0, Discard(other[0]))
    last = [e for e in k.events if isinstance(e, TileDiscarded)][-1]
    assert last.tile == other[0] and not last.tsumogiri


def test_illegal_action_leaves_state_unchanged() -> None:
    k = start([NEUTRAL0, NEUTRAL1, NEUTRAL2], "5p")
    before = k.copy()
    for seat, action in [
        (0, Ron()),
        (0, Tsumo()),
        (0, Pass()),
        (1, Discard(tile(k, 1, "1m"))),
        (0, Discard(tile(k, 1, "1m"))),
        (0, Pon(parse_kind("1m"))),
        (0, Kita()),
        (0, Kan(parse_kind("1m"))),
        (0, NineTerminals()),
        (0, Discard(tile(k, 0, "5p"), riichi=True)),
    ]:
        with pytest.raises(IllegalAction):
            k.apply(seat, action)
        assert k == before
    k.check_invariants()


# -- priorities, double ron, deposits and honba ---------------------------------------------


def test_ron_beats_pon_and_waits_for_every_answer() -> None:
    k = start([NEUTRAL0, "19m357p357s123z99s", ITTSU_9S], "9s")
    discard(k, 0, "9s")
    assert k.awaiting() == (1, 2)
    assert Pon(parse_kind("9s")) in k.legal_actions(1)
    assert k.legal_actions(1).default == Pass()
    assert Ron() in k.legal_actions(2) and k.legal_actions(2).default == Pass()
    act(k, 1, Pon(parse_kind("9s")))
    assert k.result is None and k.awaiting() == (2,)
    act(k, 2, Ron())
    r = k.result
    assert r is not None and r.outcome == "won" and [w.seat for w in r.wins] == [2]
    assert "ittsu" in yaku_names(r)
    assert r.deltas == (-2600, 0, 2600)  # 2 han 40 fu
    assert not any(isinstance(e, MeldCalled) for e in k.events)


def test_pon_happens_when_the_ron_passes() -> None:
    k = start([NEUTRAL0, "19m357p357s123z99s", ITTSU_9S], "9s")
    discard(k, 0, "9s")
    act(k, 2, Pass())
    act(k, 1, Pon(parse_kind("9s")))
    assert isinstance(k.events[-1], MeldCalled) and k.awaiting() == (1,)
    assert k.win_status(2).furiten == "temporary"


def test_double_ron_deposits_and_honba_go_to_the_nearest_winner() -> None:
    k = start([NEUTRAL0, ITTSU_9S, ITTSU_9S], "9s", honba=2, deposits=1)
    discard(k, 0, "9s")
    act(k, 2, Ron())
    act(k, 1, Ron())
    r = k.result
    assert r is not None and [w.seat for w in r.wins] == [1, 2]
    assert r.deltas == (-2600 - 400 - 2600, 2600 + 400 + 1000, 2600)
    assert r.next_honba == 0 and r.deposits_left == 0 and not r.dealer_repeats
    assert [e.seat for e in k.events if isinstance(e, HandWon)] == [1, 2]


def test_dealer_in_a_double_ron_repeats() -> None:
    k = start([ITTSU_9S, NEUTRAL1, ITTSU_9S], "? 9s", honba=1)
    turn(k, 0)
    discard(k, 1, "9s")
    act(k, 0, Ron())
    act(k, 2, Ron())
    r = k.result
    assert r is not None and r.dealer_repeats and r.next_honba == 2
    # Seat 2 sits nearer to the discarder (seat 1) and takes the honba.
    assert r.deltas == (3900, -3900 - 2600 - 200, 2600 + 200)


# -- kans, chankan, kan dora ----------------------------------------------------------------


def test_chankan_on_an_added_kan_before_its_dora() -> None:
    k = start([NEUTRAL0, "19m357p357s123z22s", "123456789p13s55z"], "? ? ? 2s")
    discard(k, 0, "2s")
    assert Ron() in k.legal_actions(2)  # kanchan 2s with ittsu
    act(k, 2, Pass())
    act(k, 1, Pon(parse_kind("2s")))
    turn(k, 1, "1m")
    turn(k, 2)  # seat 2's own discard ends its temporary furiten
    turn(k, 0)
    assert Kan(parse_kind("2s")) in k.legal_actions(1)
    act(k, 1, Kan(parse_kind("2s")))
    last = k.events[-1]
    assert isinstance(last, MeldCalled) and last.meld.type is MeldType.KAKAN
    assert k.legal_actions(2).actions == (Ron(), Pass())
    act(k, 2, Ron())
    r = k.result
    assert r is not None and "chankan" in yaku_names(r)
    assert not any(isinstance(e, DoraRevealed) for e in k.events)


def test_added_kan_dora_waits_for_the_next_discard() -> None:
    k = start([NEUTRAL0, "19m357p357s123z22s", NEUTRAL2], "? ? ? 2s", reps="7p")
    discard(k, 0, "2s")
    act(k, 1, Pon(parse_kind("2s")))
    turn(k, 1, "1m")
    turn(k, 2)
    turn(k, 0)
    act(k, 1, Kan(parse_kind("2s")))
    drawn = k.events[-1]
    assert isinstance(drawn, TileDrawn) and drawn.replacement
    assert len(k.dora_indicators()) == 1
    discard(k, 1)
    index = max(i for i, e in enumerate(k.events) if isinstance(e, TileDiscarded))
    assert isinstance(k.events[index - 1], DoraRevealed)
    assert len(k.dora_indicators()) == 2


def test_open_kan_then_rinshan_win_never_reveals_its_dora() -> None:
    k = start([NEUTRAL0, "111z23456789p99s", "1359p1359s23567z"], "?", reps="1p", dora="7s")
    discard(k, 0, "1z")
    act(k, 1, Kan(parse_kind("1z")))
    assert isinstance(k.events[-1], TileDrawn) and k.events[-1].replacement
    assert Tsumo() in k.legal_actions(1)
    act(k, 1, Tsumo())
    r = k.result
    assert r is not None and {"rinshan", "round_wind"} <= yaku_names(r)
    assert not any(isinstance(e, DoraRevealed) for e in k.events)


def test_closed_kan_reveals_at_once() -> None:
    k = start(["1111p2468s19m135z", N1_NO_15P, "3579p3579s13577z"], "5p")
    act(k, 0, Kan(parse_kind("1p")))
    assert [type(e) for e in k.events[-3:]] == [MeldCalled, DoraRevealed, TileDrawn]
    assert len(k.dora_indicators()) == 2


def test_kokushi_robs_a_closed_kan_but_not_under_tenhou() -> None:
    hands = [NEUTRAL0, "777z2468p2468s19m", "19m19p19s1234566z"]
    k = start(hands, "? 7z")
    turn(k, 0)
    act(k, 1, Kan(parse_kind("7z")))
    assert k.awaiting() == (2,) and k.legal_actions(2).actions == (Ron(), Pass())
    act(k, 2, Ron())
    r = k.result
    assert r is not None and r.wins[0].score.yakuman >= 1 and "kokushi" in yaku_names(r)
    assert not any(isinstance(e, DoraRevealed) for e in k.events)  # the robbed kan never stood

    t = start(hands, "? 7z", rules=PRESETS["tenhou"])
    turn(t, 0)
    act(t, 1, Kan(parse_kind("7z")))
    assert t.awaiting() == (1,)
    assert isinstance(t.events[-1], TileDrawn) and t.events[-1].replacement


def test_four_kans_by_two_players_abort_after_the_discard() -> None:
    k = start(["1111p2222p19m135z", "3333p4444p19m246z", N2_LOW_P], "5s 5s")
    act(k, 0, Kan(parse_kind("1p")))
    act(k, 0, Kan(parse_kind("2p")))
    turn(k, 0)
    act(k, 1, Kan(parse_kind("3p")))
    act(k, 1, Kan(parse_kind("4p")))
    assert len(k.dora_indicators()) == 5
    assert not any(isinstance(a, Kan) for a in k.legal_actions(1))
    discard(k, 1)
    pass_all(k)
    r = k.result
    assert r is not None and r.outcome == "aborted" and r.reason == "four_kans"
    assert r.deltas == (0, 0, 0) and r.dealer_repeats and r.next_honba == 1
    assert isinstance(k.events[-1], HandAborted)


def test_four_kans_by_one_player_do_not_abort_and_allow_suukantsu() -> None:
    k = start(["1111p2222p3333p5z", N1_NO_P, N2_LOW_P], "4p", reps="4p4p4p5z")
    for name in ("1p", "2p", "3p", "4p"):
        act(k, 0, Kan(parse_kind(name)))
    assert k.result is None and Tsumo() in k.legal_actions(0)
    status = k.win_status(0)
    assert status.complete and status.score is not None
    assert "suukantsu" in {y for y, _ in status.score.yaku}
    discard(k, 0, "5z")  # decline: the hand goes on
    pass_all(k)
    assert k.result is None and k.awaiting() == (1,)


# -- kita ---------------------------------------------------------------------------------


def test_kita_then_rinshan_tsumo() -> None:
    k = start(["123456789p11s23s", NEUTRAL1, NEUTRAL2], "4z", reps="4s")
    assert Kita() in k.legal_actions(0)
    act(k, 0, Kita())
    assert isinstance(k.events[-2], KitaDeclared)
    assert isinstance(k.events[-1], TileDrawn) and k.events[-1].replacement
    assert k.live_left == 53  # the replacement shortened the live wall
    act(k, 0, Tsumo())
    r = k.result
    assert r is not None
    names = yaku_names(r)
    assert {"rinshan", "kita", "ittsu", "menzen_tsumo"} <= names and "tenhou" not in names


@pytest.mark.parametrize("keeps", [True, False])
def test_ron_on_a_kita_keeps_ippatsu_per_rules_and_is_not_chankan(keeps: bool) -> None:
    rules = DEFAULT.with_options(kita_ron_keeps_ippatsu=keeps)
    k = start([NEUTRAL0, ITTSU_4Z, NEUTRAL2], "? ? ? 4z", rules=rules)
    turn(k, 0)
    turn(k, 1, riichi=True)
    turn(k, 2)
    act(k, 0, Kita())
    assert k.awaiting() == (1,) and k.legal_actions(1).actions == (Ron(), Pass())
    act(k, 1, Ron())
    r = k.result
    assert r is not None and r.wins[0].from_seat == 0
    names = yaku_names(r)
    assert "double_riichi" in names and "chankan" not in names and "houtei" not in names
    assert ("ippatsu" in names) is keeps


def test_a_kita_that_stands_cancels_ippatsu() -> None:
    k = start([NEUTRAL0, ITTSU_9S, NEUTRAL2], "? ? ? 4z 9s")
    turn(k, 0)
    turn(k, 1, riichi=True)
    turn(k, 2)
    act(k, 0, Kita())
    turn(k, 0)
    act(k, 1, Tsumo())
    r = k.result
    assert r is not None and "ippatsu" not in yaku_names(r) and "double_riichi" in yaku_names(r)


def test_ippatsu_tsumo_without_interruption() -> None:
    k = start([NEUTRAL0, ITTSU_9S, NEUTRAL2], "? ? ? ? 9s")
    turn(k, 0)
    turn(k, 1, riichi=True)
    turn(k, 2)
    turn(k, 0)
    act(k, 1, Tsumo())
    assert k.result is not None and {"ippatsu", "double_riichi", "menzen_tsumo"} <= yaku_names(k.result)


def test_no_kita_kan_or_tsumo_after_a_pon() -> None:
    k = start([NEUTRAL0, "19m357p357s4z99s13z", "123456789p123s2z"], "9s")
    discard(k, 0, "9s")
    act(k, 1, Pon(parse_kind("9s")))
    assert all(isinstance(a, Discard) for a in k.legal_actions(1))


def test_after_riichi_only_a_drawn_north_may_be_set_aside() -> None:
    k = start([NEUTRAL0, "123456789p12s4z" + "4z", NEUTRAL2], "? 9s ? ? 6p ? ? 4z", dora="7s")
    turn(k, 0)
    assert Kita() in k.legal_actions(1)
    turn(k, 1, "9s", riichi=True)  # waits 3s with the Norths as the pair
    turn(k, 2)
    turn(k, 0)
    assert Kita() not in k.legal_actions(1)  # holds North, but drew 6p
    turn(k, 1)
    turn(k, 2)
    turn(k, 0)
    assert Kita() in k.legal_actions(1)  # drew the last North


# -- pon, kuikae, defaults --------------------------------------------------------------------


def test_kuikae_is_refused_and_default_after_pon() -> None:
    k = start([NEUTRAL0, "999s19m357p357s12z", ITTSU_7Z], "9s")
    discard(k, 0, "9s")
    act(k, 1, Pon(parse_kind("9s")))
    legal = k.legal_actions(1)
    assert all(kind_of(a.tile) != parse_kind("9s") for a in legal if isinstance(a, Discard))
    with pytest.raises(IllegalAction):
        k.apply(1, Discard(tile(k, 1, "9s")))
    # Default: the last tile of the sorted hand that may be discarded (2z here).
    assert legal.default == Discard(tile(k, 1, "2z"))


def test_pon_with_or_without_the_red_five_are_two_choices() -> None:
    k = start([NEUTRAL0, "0p55p19m37p357s123z", "1369p1359s13567z"], "5p")
    discard(k, 0, "5p")
    legal = k.legal_actions(1)
    assert Pon(parse_kind("5p"), red=True) in legal and Pon(parse_kind("5p"), red=False) in legal
    act(k, 1, Pon(parse_kind("5p"), red=True))
    assert k.melds(1)[0].red_count() == 1


def test_no_call_on_the_last_discard() -> None:
    k = start([NEUTRAL0, "19m357p357s123z99s", NEUTRAL2], "? ? 9s", live_size=3)
    turn(k, 0)
    turn(k, 1)
    assert k.live_left == 0
    discard(k, 2, "9s")
    assert k.result is not None and k.result.outcome == "drawn"


# -- riichi -------------------------------------------------------------------------------------


def test_riichi_deposit_and_restrictions() -> None:
    k = start([NEUTRAL0, ITTSU_7Z, NEUTRAL2], "? 5z ? 8p 8s", dora="7s")
    turn(k, 0)
    riichi = [a for a in k.legal_actions(1) if isinstance(a, Discard) and a.riichi]
    assert {kind_of(a.tile) for a in riichi} == {parse_kind("5z"), parse_kind("7z")}
    turn(k, 1, "5z", riichi=True)
    assert any(isinstance(e, RiichiAccepted) and e.seat == 1 for e in k.events)
    assert k.scores[1] == 34_000 and k.deposits == 1
    turn(k, 2)
    turn(k, 0)
    legal = k.legal_actions(1)
    assert [a for a in legal if isinstance(a, Discard)] == [Discard(tile(k, 1, "8s"))]
    with pytest.raises(IllegalAction):
        k.apply(1, Discard(tile(k, 1, "7z")))


def test_riichi_needs_points_and_three_live_tiles() -> None:
    hands = [NEUTRAL0, ITTSU_7Z, NEUTRAL2]

    def riichi_offered(k: Kyoku) -> bool:
        return any(isinstance(a, Discard) and a.riichi for a in k.legal_actions(1))

    for scores, live_size, left, offered in [
        ((35_000, 999, 35_000), 55, 53, False),
        ((35_000, 1000, 35_000), 55, 53, True),
        ((35_000, 35_000, 35_000), 5, 3, True),
        ((35_000, 35_000, 35_000), 4, 2, False),
    ]:
        k = start(hands, "? 5z", scores=scores, live_size=live_size, dora="7s")
        turn(k, 0)
        assert k.live_left == left and riichi_offered(k) is offered


def test_no_riichi_with_an_open_hand() -> None:
    k = start([NEUTRAL0, "19m357p357s123z99s", ITTSU_9S], "9s")
    discard(k, 0, "9s")
    act(k, 2, Pass())
    act(k, 1, Pon(parse_kind("9s")))
    turn(k, 1, "1m")
    turn(k, 2)
    turn(k, 0)
    assert not any(isinstance(a, Discard) and a.riichi for a in k.legal_actions(1))


def test_ron_on_the_riichi_discard_pays_no_deposit() -> None:
    k = start([ITTSU_7Z, NEUTRAL1, ITTSU_9S], "9s", dora="7s")
    discard(k, 0, "9s", riichi=True)
    act(k, 2, Ron())
    r = k.result
    assert r is not None and r.riichi_paid == (0, 0, 0)
    assert r.deltas == (-2600, 0, 2600)
    assert not any(isinstance(e, RiichiAccepted) for e in k.events)


def test_riichi_paid_is_outside_the_deltas() -> None:
    k = start([NEUTRAL0, ITTSU_7Z, NEUTRAL2], "? 5z ? ? 7z", dora="7s")
    turn(k, 0)
    turn(k, 1, "5z", riichi=True)
    turn(k, 2)
    turn(k, 0)
    act(k, 1, Tsumo())
    r = k.result
    assert r is not None and r.riichi_paid == (0, 1, 0)
    assert sum(r.deltas) == 1000  # the winner took back the deposit it paid
    assert k.scores[1] == 35_000 + r.deltas[1] - 1000


def test_closed_kan_after_riichi_only_when_waits_and_readings_stay() -> None:
    ok = start([N0_NO_2P, "222p456p789p123s4z", NEUTRAL2], "? 5z ? ? 2p", dora="7s")
    turn(ok, 0)
    turn(ok, 1, "5z", riichi=True)
    turn(ok, 2)
    turn(ok, 0)
    assert Kan(parse_kind("2p")) in ok.legal_actions(1)
    refused = start([N0_NO_2P, "2223p456789s999m", NEUTRAL2], "? 5z ? ? 2p", dora="7s")
    turn(refused, 0)
    turn(refused, 1, "5z", riichi=True)
    turn(refused, 2)
    turn(refused, 0)
    assert not any(isinstance(a, Kan) for a in refused.legal_actions(1))


# -- furiten -----------------------------------------------------------------------------------


def test_discard_furiten_blocks_ron_and_shows_why() -> None:
    nobetan = "123456789p6789s"  # waits 6s and 9s
    k = start([NEUTRAL0, "19m357p357s123z99s", nobetan], "? ? 6s 9s")
    turn(k, 0)
    turn(k, 1)
    assert Tsumo() in k.legal_actions(2)
    turn(k, 2, "6s")  # declines the tsumo: 6s is now among its own discards
    assert k.win_status(2).furiten == "discard"
    discard(k, 0, "9s")
    assert k.awaiting() == (1,)  # only the pon; no ron for seat 2
    status = k.win_status(2)
    assert status.complete and status.reason == "furiten" and status.furiten == "discard"
    assert status.waits == kinds("6s9s")


def test_temporary_furiten_until_own_discard() -> None:
    k = start([NEUTRAL0, NEUTRAL1, ITTSU_9S], "9s 9s ? 9s")
    discard(k, 0, "9s")
    act(k, 2, Pass())
    assert k.win_status(2).furiten == "temporary"
    discard(k, 1, "9s")
    drawn = k.events[-1]
    assert isinstance(drawn, TileDrawn) and drawn.seat == 2  # no ron was offered
    turn(k, 2)
    assert k.win_status(2).furiten == "none"
    discard(k, 0, "9s")
    assert Ron() in k.legal_actions(2)


def test_no_yaku_forces_a_pass_and_temporary_furiten() -> None:
    no_yaku = "123p456p789s234s7z"  # tanki 7z, closed, no yaku on a ron
    k = start([NEUTRAL0, "19m357p357s246z77z", no_yaku], "7z")
    discard(k, 0, "7z")
    assert k.awaiting() == (1,)  # seat 1 may pon; seat 2 may not ron
    status = k.win_status(2)
    assert status.complete and status.reason == "no_yaku" and status.score is None
    act(k, 1, Pass())
    assert k.win_status(2).furiten == "temporary"


def test_riichi_furiten_after_passing_a_winning_tile() -> None:
    k = start([NEUTRAL0, NEUTRAL1, ITTSU_9S], "? ? ? 9s ? ? 9s ? 9s")
    turn(k, 0)
    turn(k, 1)
    turn(k, 2, riichi=True)
    discard(k, 0, "9s")
    act(k, 2, Pass())
    assert k.win_status(2).furiten == "riichi"
    turn(k, 1)
    turn(k, 2)
    assert k.win_status(2).furiten == "riichi"  # its own discard does not clear it
    discard(k, 0, "9s")
    assert 2 not in k.awaiting()
    pass_all(k)
    turn(k, 1)
    assert Tsumo() in k.legal_actions(2)  # tsumo is always allowed


def test_riichi_furiten_after_declining_a_winning_draw() -> None:
    k = start([NEUTRAL0, NEUTRAL1, ITTSU_9S], "? ? ? ? ? 9s")
    turn(k, 0)
    turn(k, 1)
    turn(k, 2, riichi=True)
    turn(k, 0)
    turn(k, 1)
    assert Tsumo() in k.legal_actions(2)
    turn(k, 2)  # tsumogiri the winning 9s
    assert k.win_status(2).furiten == "riichi"


def test_a_kind_held_four_times_is_never_a_wait() -> None:
    k = start([NEUTRAL0, N1_NO_15P, "1111p999m456s789s"], "", live_size=3)
    assert k.win_status(2).waits == ()
    r = autoplay(k)
    assert 2 not in r.tenpai


# -- first go-around -------------------------------------------------------------------------


def test_nine_terminals() -> None:
    k = start(["19m19p19s12345z26p", NEUTRAL1, NEUTRAL2], "7z", honba=1, deposits=2)
    legal = k.legal_actions(0)
    assert NineTerminals() in legal and legal.default != NineTerminals()
    act(k, 0, NineTerminals())
    r = k.result
    assert r is not None and r.outcome == "aborted" and r.reason == "nine_terminals"
    assert r.deltas == (0, 0, 0) and r.dealer_repeats and r.next_honba == 2 and r.deposits_left == 2
    last = k.events[-1]
    assert isinstance(last, HandAborted) and last.seat == 0 and len(last.hand) == 14


@pytest.mark.parametrize("call", [False, True])
def test_nine_terminals_not_after_a_call(call: bool) -> None:
    k = start([NEUTRAL0, "19m19p19s12356z37p", "55z2468p2468s137z"], "")
    discard(k, 0, "5z")
    act(k, 2, Pon(parse_kind("5z")) if call else Pass())
    if call:
        turn(k, 2)
        turn(k, 0)
    assert (NineTerminals() in k.legal_actions(1)) is not call


def test_tenhou_and_chiihou() -> None:
    k = start([ITTSU_9S, NEUTRAL1, NEUTRAL2], "9s")
    act(k, 0, Tsumo())
    assert k.result is not None and "tenhou" in yaku_names(k.result)
    k = start([NEUTRAL0, ITTSU_9S, NEUTRAL2], "? 9s")
    turn(k, 0)
    act(k, 1, Tsumo())
    assert k.result is not None and "chiihou" in yaku_names(k.result)


# -- end of the wall -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tenpai", "deltas"),
    [
        ((), (0, 0, 0)),
        ((0,), (2000, -1000, -1000)),
        ((1,), (-1000, 2000, -1000)),
        ((0, 2), (1000, -2000, 1000)),
        ((0, 1, 2), (0, 0, 0)),
    ],
)
def test_exhaustive_draw_noten_payments(tenpai: tuple[int, ...], deltas: tuple[int, int, int]) -> None:
    tenpai_hands = ["123p456p789p111z2z", "123s456s789s444z2z", "111m999m555z666z7z"]
    noten_hands = [NEUTRAL0, NEUTRAL1, NEUTRAL2]
    hands = [tenpai_hands[s] if s in tenpai else noten_hands[s] for s in range(3)]
    k = start(hands, "6p 6s 6p", live_size=3, honba=1, deposits=1, dora="7p")
    r = autoplay(k)
    assert r.outcome == "drawn" and r.reason == "exhaustive"
    assert r.tenpai == tenpai and r.deltas == deltas and r.nagashi == ()
    assert r.dealer_repeats is (0 in tenpai)
    assert r.next_honba == 2 and r.deposits_left == 1
    drawn = k.events[-1]
    assert isinstance(drawn, HandDrawn)
    assert all((len(h) > 0) is (s in tenpai) for s, h in enumerate(drawn.tenpai_hands))


def test_nagashi_mangan_replaces_noten_payments() -> None:
    k = start([NEUTRAL0, NEUTRAL1, "123s456s789s444z2z"], "5p 1p 5s", live_size=3, honba=1)
    r = autoplay(k)
    assert r.nagashi == (1,) and r.tenpai == (2,)
    assert r.deltas == (-4000, 6000, -2000)
    assert r.next_honba == 2 and not r.dealer_repeats


def test_haitei_and_houtei() -> None:
    k = start([NEUTRAL0, NEUTRAL1, ITTSU_9S], "? ? ? ? ? 9s", live_size=6)
    for seat in (0, 1, 2, 0, 1):
        turn(k, seat)
    assert k.live_left == 0
    act(k, 2, Tsumo())
    assert k.result is not None and "haitei" in yaku_names(k.result)
    k = start([ITTSU_9S, NEUTRAL1, NEUTRAL2], "? ? 9s", live_size=3)
    turn(k, 0)
    turn(k, 1)
    discard(k, 2, "9s")
    act(k, 0, Ron())
    assert k.result is not None and "houtei" in yaku_names(k.result)


# -- pao -----------------------------------------------------------------------------------------


def test_pao_tsumo_liable_seat_pays_everything() -> None:
    k = start(PAO_HANDS, "5z 6z ? 7z ? ? 9s", honba=1)
    _feed_three_dragons(k)
    turn(k, 2)
    turn(k, 0)
    act(k, 1, Tsumo())
    r = k.result
    assert r is not None and "daisangen" in yaku_names(r) and r.wins[0].pao_seat == 0
    assert r.deltas == (-24_200, 24_200, 0)


def test_pao_ron_discarder_and_liable_pay_half_each() -> None:
    k = start(PAO_HANDS, "5z 6z ? 7z 9s", honba=1)
    _feed_three_dragons(k)
    discard(k, 2, "9s")
    act(k, 1, Ron())
    r = k.result
    assert r is not None and r.wins[0].pao_seat == 0
    assert r.deltas == (-16_000, 32_200, -16_200)


# -- win status, copies -----------------------------------------------------------------------


def test_win_status_waits_and_score() -> None:
    k = start([NEUTRAL0, NEUTRAL1, ITTSU_9S], "9s")
    status = k.win_status(2)
    assert status.waits == kinds("9s") and status.furiten == "none" and not status.complete
    discard(k, 0, "9s")
    status = k.win_status(2)
    assert status.complete and status.reason is None and status.score is not None
    assert status.score.han == 2


def test_copy_is_independent() -> None:
    k = start([NEUTRAL0, NEUTRAL1, NEUTRAL2], "5p")
    twin = k.copy()
    assert twin == k
    discard(twin, 0)
    assert twin != k and k.awaiting() == (0,)
    k.check_invariants()


@pytest.mark.parametrize(
    ("hand", "kan", "keeps"),
    [
        ("222p456p789p123s4z", "2p", True),
        # Waits stay 7p after a kan of 1p, but 11p+123p+444p is another reading: refused.
        ("1112344489p111z", "1p", False),
        ("2223457888p111z", "8p", False),
    ],
)
def test_riichi_kan_must_keep_every_reading(hand: str, kan: str, keeps: bool) -> None:
    counts = counts_of_kinds(kinds(hand))
    hand_waits = waits(counts, 0)
    assert hand_waits
    assert kan_keeps_readings(counts, parse_kind(kan), hand_waits) is keeps
