"""The quick match's ladder and hidden rating, pure (``docs/ranks.md`` is their table in words).

A player's ``Standing`` on one length's ladder (East, East-South) moves after each finished
quick match by the points its placement earns at its rank (``earned``): up a rank when the
points reach the rank's ``promote_at``, down one when they fall below zero, except on the
floor ranks (every kyu and 1 dan), where they stop at zero.  Beside it, a hidden skill rating
(openskill's Plackett-Luce model, three players each on a team of one) that only matchmaking
reads; a bot's rating is fixed by its level and never moves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from openskill.models import PlackettLuce

RANKS: Final = ("6k", "5k", "4k", "3k", "2k", "1k", "1d", "2d", "3d", "4d", "5d", "6d", "7d", "8d", "9d", "10d")
LENGTHS: Final = ("east", "east-south")
# East-South matches are longer, so their places move the ladder further.
LENGTH_FACTOR: Final = {"east": 2, "east-south": 3}  # halves: 1.0 and 1.5


@dataclass(frozen=True, slots=True)
class Step:
    """One rank of the ladder: the points that promote (``None``: the top), the points a player
    starts it with, the East points a first and a second place earn and a third place costs,
    and whether it is a floor (points stop at zero: no demotion)."""

    promote_at: int | None
    start: int
    first: int
    second: int
    third: int
    floor: bool


def _kyu(promote_at: int) -> Step:
    return Step(promote_at, 0, 20, 10, 0, True)


def _dan(number: int) -> Step:
    promote_at = None if number == 10 else 200 * number
    return Step(promote_at, 100 * number, 30, 0, -10 * number, number == 1)


LADDER: Final = (
    _kyu(20),
    _kyu(20),
    _kyu(40),
    _kyu(40),
    _kyu(60),
    _kyu(60),
    *(_dan(n) for n in range(1, 11)),
)
assert len(LADDER) == len(RANKS)


@dataclass(frozen=True, slots=True)
class Standing:
    """A player on one ladder: rank index into ``RANKS``, points at that rank, matches counted."""

    rank: int = 0
    points: int = 0
    games: int = 0

    @property
    def code(self) -> str:
        """The rank's code (``"6k"`` ... ``"10d"``)."""
        return RANKS[self.rank]

    @property
    def promote_at(self) -> int | None:
        """The points that take the player up a rank (``None`` at the top)."""
        return LADDER[self.rank].promote_at


def earned(rank: int, placement: int, length: str) -> int:
    """The points a ``placement`` (1..3) earns at ``rank`` in a match of ``length``."""
    step = LADDER[rank]
    east = (step.first, step.second, step.third)[placement - 1]
    return east * LENGTH_FACTOR[length] // 2


def after(standing: Standing, placement: int, length: str) -> Standing:
    """``standing`` after one match placed ``placement``: the points added, then at most one
    promotion (starting the next rank's points) or demotion (starting the lower rank's)."""
    step = LADDER[standing.rank]
    points = standing.points + earned(standing.rank, placement, length)
    rank = standing.rank
    if step.promote_at is not None and points >= step.promote_at:
        rank += 1
        points = LADDER[rank].start
    elif points < 0:
        if step.floor:
            points = 0
        else:
            rank -= 1
            points = LADDER[rank].start
    return Standing(rank, points, standing.games + 1)


# -- the hidden rating --------------------------------------------------------------------------

_MODEL: Final = PlackettLuce()
NEW_RATING: Final = (_MODEL.mu, _MODEL.sigma)  # 25, 25/3
# A bot's fixed rating by level, near what a human who places as it does would reach.
BOT_RATINGS: Final = {"beginner": (15.0, 1.0), "normal": (22.0, 1.0), "expert": (28.0, 1.0), "master": (30.0, 1.0)}


@dataclass(frozen=True, slots=True)
class Rating:
    """A hidden skill rating: ``mu`` the estimate, ``sigma`` its uncertainty."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """A cautious single number (``mu - 3 sigma``), what matchmaking compares."""
        return self.mu - 3 * self.sigma


def rated(ratings: list[Rating], placements: list[int]) -> list[Rating]:
    """The three seats' ratings after a match placed them ``placements`` (1..3; equal numbers
    tie, as two abandoned seats both placed last do)."""
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    result = _MODEL.rate(teams, ranks=[float(p) for p in placements])
    return [Rating(team[0].mu, team[0].sigma) for team in result]


def bot_rating(level: str) -> Rating:
    """The fixed rating of a bot of ``level``."""
    mu, sigma = BOT_RATINGS.get(level, BOT_RATINGS["normal"])
    return Rating(mu, sigma)


def bot_level_for(ranks: list[int]) -> str:
    """The bots that fill a quick table whose humans hold ``ranks``: the Normal bot for kyu
    tables, the Expert from 1 dan, the master from 4 dan (by the humans' mean rank)."""
    mean = sum(ranks) / len(ranks)
    if mean >= RANKS.index("4d"):
        return "master"
    if mean >= RANKS.index("1d"):
        return "expert"
    return "normal"
