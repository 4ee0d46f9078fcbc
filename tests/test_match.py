"""The match: what happens between hands (renchan, honba, deposits, bust, all-last, the
one-hand match), final standings, and whole matches from scripted deals."""

from __future__ import annotations

import pytest

from sanma.engine.actions import Discard, NineTerminals, Pass, Tsumo
from sanma.engine.errors import IllegalAction, SanmaError
from sanma.engine.events import HandAborted, HandStarted, HandWon, MatchEnded, MatchStarted
from sanma.engine.kyoku import KyokuResult
from sanma.engine.match import Match, Table, advance, rank, standings
from sanma.engine.rules import DEFAULT, PRESETS, Rules
from sanma.engine.tiles import EAST, SOUTH
from tests.fixtures.match import (
    ONE_HAND,
    chiihou_deal,
    play_defaults_until_a_win,
    scripted_deal,
    tenhou_deal,
)

EAST_SOUTH = DEFAULT
EAST_ONLY = DEFAULT.with_options(length="east")


def result(
    outcome: str = "won",
    deltas: tuple[int, int, int] = (0, 0, 0),
    *,
    repeats: bool = False,
    honba: int = 0,
    deposits_left: int = 0,
    riichi_paid: tuple[int, int, int] = (0, 0, 0),
) -> KyokuResult:
    """A hand's result as ``Kyoku`` would report it."""
    return KyokuResult(
        outcome=outcome,  # type: ignore[arg-type]
        deltas=deltas,
        riichi_paid=riichi_paid,
        dealer_repeats=repeats,
        next_honba=honba,
        deposits_left=deposits_left,
    )


def table(
    wind: int = EAST, dealer: int = 0, scores: tuple[int, int, int] = (35000, 35000, 35000), honba: int = 0
) -> Table:
    return Table(wind, dealer, honba, 0, scores, 4)


# -- between hands -------------------------------------------------------------------------


def test_non_dealer_win_passes_the_deal_and_clears_honba() -> None:
    nxt, over = advance(table(honba=2), result(deltas=(-8600, 8600, 0), honba=0), EAST_SOUTH)
    assert not over
    assert nxt == Table(EAST, 1, 0, 0, (26400, 43600, 35000), 5)


def test_dealer_win_repeats_with_one_more_honba() -> None:
    nxt, over = advance(
        table(dealer=1, honba=1), result(deltas=(-6000, 12000, -6000), repeats=True, honba=2), EAST_SOUTH
    )
    assert not over
    assert (nxt.dealer, nxt.honba, nxt.round_wind, nxt.hand_index) == (1, 2, EAST, 5)


def test_draw_carries_deposits_and_riichi_payments_leave_the_scores() -> None:
    drawn = result("drawn", (1000, 1000, -2000), honba=1, deposits_left=2, riichi_paid=(1, 1, 0))
    nxt, over = advance(table(dealer=0), drawn, EAST_SOUTH)
    assert not over
    assert nxt.scores == (35000, 35000, 33000)
    assert (nxt.deposits, nxt.honba, nxt.dealer) == (2, 1, 1)
    assert sum(nxt.scores) + 1000 * nxt.deposits == 105_000


def test_east_three_passes_to_south_one_in_east_south() -> None:
    nxt, over = advance(table(EAST, 2), result("drawn", honba=1), EAST_SOUTH)
    assert not over
    assert (nxt.round_wind, nxt.dealer, nxt.honba) == (SOUTH, 0, 1)


def test_east_match_ends_when_east_three_passes() -> None:
    final, over = advance(table(EAST, 2), result(deltas=(3900, -3900, 0)), EAST_ONLY)
    assert over
    assert final.scores == (38900, 31100, 35000)


def test_south_three_passing_ends_east_south() -> None:
    _, over = advance(table(SOUTH, 2), result(deltas=(3900, -3900, 0)), EAST_SOUTH)
    assert over


def test_all_last_dealer_win_in_first_place_ends() -> None:
    _, over = advance(
        table(SOUTH, 2, (30000, 30000, 45000)), result(deltas=(-1000, -1000, 2000), repeats=True), EAST_SOUTH
    )
    assert over


def test_all_last_dealer_tenpai_not_first_goes_on() -> None:
    drawn = result("drawn", (-2000, 1000, 1000), repeats=True, honba=1)
    nxt, over = advance(table(SOUTH, 2, (30000, 45000, 30000)), drawn, EAST_SOUTH)
    assert not over
    assert (nxt.round_wind, nxt.dealer, nxt.honba) == (SOUTH, 2, 1)


def test_all_last_tie_for_first_goes_to_the_earlier_seat() -> None:
    # The dealer (seat 2) ties seat 0 for first: seat 0 ranks higher, so the match goes on.
    drawn = result("drawn", (-2000, -2000, 4000), repeats=True, honba=1)
    nxt, over = advance(table(EAST, 2, (42000, 32000, 36000)), drawn, EAST_ONLY)
    assert nxt.scores == (40000, 30000, 40000)
    assert not over


def test_all_last_abortive_draw_is_replayed() -> None:
    nxt, over = advance(table(EAST, 2, (20000, 20000, 65000)), result("aborted", repeats=True, honba=1), EAST_ONLY)
    assert not over
    assert (nxt.dealer, nxt.honba) == (2, 1)


def test_bust_ends_at_once_and_zero_is_not_bust() -> None:
    _, over = advance(table(), result(deltas=(36000, -36000, 0)), EAST_SOUTH)
    assert over
    nxt, over = advance(table(), result(deltas=(35000, -35000, 0)), EAST_SOUTH)
    assert not over
    assert nxt.scores[1] == 0


def test_one_hand_match_replays_abortive_draws_only() -> None:
    nxt, over = advance(table(), result("aborted", repeats=True, honba=1), ONE_HAND)
    assert not over
    assert (nxt.dealer, nxt.honba, nxt.hand_index) == (0, 1, 5)
    _, over = advance(table(), result("drawn", honba=1), ONE_HAND)
    assert over
    _, over = advance(table(), result(deltas=(12000, -6000, -6000), repeats=True, honba=1), ONE_HAND)
    assert over


def test_leftover_deposits_go_to_first_place() -> None:
    drawn = result("drawn", (-1000, 2000, -1000), honba=1, deposits_left=3, riichi_paid=(1, 1, 0))
    final, over = advance(table(EAST, 2, (40000, 40000, 22000)), drawn, EAST_ONLY)
    assert over
    # After the draw: 38000, 41000, 21000 with 3 deposits on the table.
    assert final.scores == (38000, 44000, 21000)
    assert final.deposits == 0
    assert sum(final.scores) == 103_000  # the table started this hand with 3,000 less than 105,000


# -- standings -----------------------------------------------------------------------------


def test_rank_ties_by_seat_order() -> None:
    assert rank((35000, 35000, 35000)) == (0, 1, 2)
    assert rank((20000, 42500, 42500)) == (1, 2, 0)


def test_standings_default_uma_and_one_hand_without_uma() -> None:
    points = (52300, 31200, 21500)
    assert [(s.placement, s.final_score) for s in standings(points, EAST_SOUTH)] == [(1, 32.3), (2, -3.8), (3, -28.5)]
    assert [s.final_score for s in standings(points, ONE_HAND)] == [17.3, -3.8, -13.5]
    assert sum(s.final_score for s in standings(points, EAST_SOUTH)) == pytest.approx(0)


def test_standings_follow_the_preset() -> None:
    tenhou = PRESETS["tenhou"]
    got = standings((50000, 30000, 25000), tenhou)
    assert [s.final_score for s in got] == [
        (50000 - tenhou.return_points) / 1000 + tenhou.uma[0],
        (30000 - tenhou.return_points) / 1000 + tenhou.uma[1],
        (25000 - tenhou.return_points) / 1000 + tenhou.uma[2],
    ]


# -- whole matches from scripted deals -------------------------------------------------------


def test_match_seed_must_not_be_negative() -> None:
    with pytest.raises(SanmaError):
        Match(-1)


def test_repeated_dealer_yakuman_busts_the_match_in_east_one() -> None:
    match = Match(7, EAST_SOUTH, deals=lambda i: tenhou_deal(0))
    for _ in range(3):
        assert Tsumo() in match.legal_actions(0)
        match.apply(0, Tsumo())
        match.check_invariants()
    assert match.finished
    ended = match.events[-1]
    assert isinstance(ended, MatchEnded)
    # Each tenhou: both others pay 16,000 (tsumo loss) plus 100 per honba.
    assert ended.points == (131_600, -13_300, -13_300)
    assert ended.placements == (1, 2, 3)
    assert [e.honba for e in match.events if isinstance(e, HandStarted)] == [0, 1, 2]
    with pytest.raises(IllegalAction):
        match.apply(0, Discard(0))


def test_one_hand_match_replays_nine_terminals_then_ends_without_uma() -> None:
    deals = {0: scripted_deal({0: "19m19p19s1234567z"}), 1: tenhou_deal(0)}
    match = Match(1, ONE_HAND, deals=deals.__getitem__)
    assert NineTerminals() in match.legal_actions(0)
    events = match.apply(0, NineTerminals())
    assert isinstance(events[0], HandAborted)
    restart = events[1]
    assert isinstance(restart, HandStarted)
    assert (restart.dealer, restart.honba) == (0, 1)
    assert not match.finished
    match.apply(0, Tsumo())
    assert match.finished
    assert match.standings is not None
    scores = [s.final_score for s in match.standings]
    assert scores == [(p - 35000) / 1000 for p in match.scores]  # no uma in a one-hand match


def test_east_match_all_last_dealer_win_in_first_ends_it() -> None:
    rules = EAST_ONLY.with_options(starting_points=100_000, return_points=100_000)
    deals = [chiihou_deal(0, 1), chiihou_deal(1, 0), tenhou_deal(2)]
    match = Match(3, rules, deals=deals.__getitem__)
    labels = []
    while not match.finished:
        labels.append(match.table.label)
        play_defaults_until_a_win(match)
        match.check_invariants()
    assert labels == ["E1-0", "E2-0", "E3-0"]
    wins = [e for e in match.events if isinstance(e, HandWon)]
    assert [(w.seat, w.score.yakuman) for w in wins] == [(1, 1), (0, 1), (2, 1)]
    # E1: seat 1 chiihou (dealer 16,000, other 8,000); E2: seat 0 chiihou; E3: dealer tenhou.
    assert match.scores == (92_000, 92_000, 116_000)
    assert match.standings is not None
    assert [s.placement for s in match.standings] == [2, 3, 1]


def test_all_last_dealer_win_not_in_first_goes_on() -> None:
    rules = EAST_ONLY.with_options(starting_points=100_000, return_points=100_000)
    # E1 seat 1 wins, E2 dealer 1 tenhou twice, then E2-2 seat 2 wins, E3 dealer 2 tenhou (not first).
    deals = [chiihou_deal(0, 1), tenhou_deal(1), tenhou_deal(1), chiihou_deal(1, 2), tenhou_deal(2), chiihou_deal(2, 0)]
    match = Match(3, rules, deals=deals.__getitem__)
    labels = []
    while not match.finished:
        labels.append(match.table.label)
        play_defaults_until_a_win(match)
        match.check_invariants()
    assert labels == ["E1-0", "E2-0", "E2-1", "E2-2", "E3-0", "E3-1"]
    assert isinstance(match.events[0], MatchStarted)
    assert isinstance(match.events[-1], MatchEnded)


def test_pass_is_no_turn_action() -> None:
    match = Match(5)
    seat = match.awaiting()[0]
    before = match.state_key()
    with pytest.raises(IllegalAction):
        match.apply(seat, Pass())
    assert match.state_key() == before


def test_copy_is_independent() -> None:
    match = Match(11, Rules())
    twin = match.copy()
    assert twin == match
    seat = match.awaiting()[0]
    default = match.legal_actions(seat).default
    assert default is not None
    match.apply(seat, default)
    assert twin != match
    twin.apply(seat, default)
    assert twin == match
