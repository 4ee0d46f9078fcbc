"""The ladder (``store/ladder.py``, ``docs/ranks.md``): the documented table as vectors, then
invariants over random sequences of placements; the hidden rating's direction."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sanma.store.ladder import LADDER, RANKS, Rating, Standing, after, bot_level_for, earned, rated

K6, K1, D1, D2, D3, D10 = (RANKS.index(c) for c in ("6k", "1k", "1d", "2d", "3d", "10d"))

# (rank, points, placement, length) -> (rank, points) after, read off docs/ranks.md.
VECTORS = [
    (K6, 0, 1, "east", K6 + 1, 0),  # 20 points: promoted to 5 kyu, which starts at 0
    (K6, 0, 2, "east", K6, 10),
    (K6, 10, 3, "east", K6, 10),  # a kyu third costs nothing
    (K6, 0, 1, "east-south", K6 + 1, 0),
    (K6, 0, 2, "east-south", K6, 15),
    (K1, 50, 2, "east", D1, 100),  # 60 reached: 1 dan starts at 100
    (D1, 0, 3, "east", D1, 0),  # the floor: 1 dan does not fall
    (D1, 190, 1, "east", D2, 200),
    (D2, 10, 3, "east", D1, 100),  # -20 falls below 0: down to 1 dan, which starts at 100
    (D2, 30, 3, "east-south", D2, 0),  # -30 to exactly 0: no fall
    (D2, 20, 3, "east-south", D1, 100),
    (D2, 30, 3, "east", D2, 10),
    (D3, 100, 1, "east-south", D3, 145),
    (D10, 1000, 1, "east", D10, 1030),  # the top: no promotion
    (D10, 50, 3, "east", D10 - 1, 900),
]


@pytest.mark.parametrize(("rank", "points", "placement", "length", "rank_after", "points_after"), VECTORS)
def test_the_documented_table(rank, points, placement, length, rank_after, points_after):
    moved = after(Standing(rank, points, 7), placement, length)
    assert (moved.rank, moved.points, moved.games) == (rank_after, points_after, 8)


def test_the_codes_and_the_points_per_place():
    assert RANKS[0] == "6k" and RANKS[5] == "1k" and RANKS[6] == "1d" and RANKS[-1] == "10d"
    assert [earned(D2, p, "east") for p in (1, 2, 3)] == [30, 0, -20]
    assert [earned(D2, p, "east-south") for p in (1, 2, 3)] == [45, 0, -30]
    assert Standing().code == "6k" and Standing().promote_at == 20 and Standing(D10).promote_at is None


@given(st.lists(st.tuples(st.integers(1, 3), st.sampled_from(["east", "east-south"])), max_size=200))
def test_any_run_of_matches_stays_on_the_ladder(run):
    s = Standing()
    for placement, length in run:
        moved = after(s, placement, length)
        assert abs(moved.rank - s.rank) <= 1  # one step at most
        assert moved.games == s.games + 1
        assert moved.points >= 0 and (
            LADDER[moved.rank].promote_at is None or moved.points < LADDER[moved.rank].promote_at
        )
        if LADDER[s.rank].floor:
            assert moved.rank >= s.rank  # a floor rank never falls
        if placement == 1:
            assert (moved.rank, moved.points) >= (s.rank, s.points)  # first place never costs
        s = moved


def test_the_rating_rewards_first_place_and_bots_are_matched_to_ranks():
    new = Rating(25.0, 25 / 3)
    first, second, third = rated([new, new, new], [1, 2, 3])
    assert first.mu > second.mu > third.mu and all(r.sigma < new.sigma for r in (first, second, third))
    tied = rated([new, new, new], [1, 3, 3])
    assert tied[1].mu == pytest.approx(tied[2].mu)
    assert bot_level_for([K6, K1]) == "normal" and bot_level_for([D1]) == "expert" and bot_level_for([D10]) == "master"
