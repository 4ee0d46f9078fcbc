"""Arena statistics: per-player tallies of a match, and means with 95% confidence intervals.

The unit of a duplicate design is the *seed group*: one seed played once per seat rotation.
The three matches of a group share their walls, so they are not independent samples; the
group is.  Every interval here therefore treats each group as one sample:

* a per-match quantity (placement, final score) is averaged inside each group, and the
  interval is the normal approximation over the group means: ``mean +- 1.96 * sd / sqrt(n)``;
* a rate (wins per hand, points per win, ...) is a ratio of sums, and its interval is the
  normal approximation of the ratio estimator with groups as clusters (the linearised or
  "delta method" variance ``sum((y_g - R x_g)^2) / (n (n - 1) xbar^2)``), which weighs each
  group by how many hands it had instead of pretending every hand is independent.

With fewer than two groups there is no interval (``low``/``high`` are ``None``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from typing import Final

Z95: Final = 1.959963984540054  # two-sided 95% quantile of the normal distribution

CI_METHOD: Final = (
    "95% normal-approximation intervals with the seed group (one seed, all seat rotations) as the "
    "sample unit: per-match values are averaged per group, rates are ratios of group sums "
    "(cluster/delta-method variance)"
)


@dataclass(slots=True)
class PlayerMatch:
    """One player's tallies from one match (counts of hands, not of events)."""

    placement: int = 0
    final_score: float = 0.0
    points: int = 0
    hands: int = 0
    wins: int = 0
    deal_ins: int = 0  # hands in which one of the player's discards (or kita) was ronned
    riichi: int = 0  # hands in which the player declared riichi
    calls: int = 0  # hands in which the player called a pon or an open kan
    win_points: int = 0  # the value of all its wins (see duplicate.win_value)


@dataclass(slots=True)
class AnswerCounts:
    """How a player's answers went: ``ask`` statuses, plus events its ``observe`` refused."""

    ok: int = 0
    error: int = 0
    illegal: int = 0
    overrun: int = 0
    observe_error: int = 0

    def add(self, other: AnswerCounts) -> None:
        """Add ``other``'s counts to these."""
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    @property
    def decisions(self) -> int:
        """Every time the player was asked."""
        return self.ok + self.error + self.illegal + self.overrun


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean with its 95% interval over ``n`` samples (``None`` where it is undefined)."""

    mean: float | None
    low: float | None
    high: float | None
    n: int

    def excludes(self, value: float) -> bool:
        """Whether the interval lies wholly on one side of ``value``.

        >>> Estimate(1.8, 1.7, 1.9, 100).excludes(2.0), Estimate(1.95, 1.85, 2.05, 100).excludes(2.0)
        (True, False)
        """
        if self.low is None or self.high is None:
            return False
        return value < self.low or value > self.high

    def as_dict(self, digits: int = 4) -> dict[str, float | int | None]:
        """JSON form, rounded."""

        def r(x: float | None) -> float | None:
            return None if x is None else round(x, digits)

        return {"mean": r(self.mean), "low": r(self.low), "high": r(self.high), "n": self.n}


def mean_estimate(values: Sequence[float]) -> Estimate:
    """Mean of per-group values with a normal-approximation 95% interval.

    >>> e = mean_estimate([1.0, 2.0, 3.0])
    >>> e.mean, round(e.low, 3), round(e.high, 3)
    (2.0, 0.868, 3.132)
    """
    n = len(values)
    if n == 0:
        return Estimate(None, None, None, 0)
    mean = math.fsum(values) / n
    if n < 2:
        return Estimate(mean, None, None, n)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = Z95 * math.sqrt(var / n)
    return Estimate(mean, mean - half, mean + half, n)


def ratio_estimate(numerators: Sequence[float], denominators: Sequence[float]) -> Estimate:
    """``sum(numerators) / sum(denominators)`` with a 95% interval, each index one cluster.

    >>> e = ratio_estimate([1, 3], [10, 10])
    >>> e.mean, round(e.low, 4), round(e.high, 4)
    (0.2, 0.004, 0.396)
    """
    n = len(numerators)
    if n != len(denominators):
        raise ValueError("numerators and denominators must pair up")
    total_x = math.fsum(denominators)
    if n == 0 or total_x == 0:
        return Estimate(None, None, None, n)
    ratio = math.fsum(numerators) / total_x
    if n < 2:
        return Estimate(ratio, None, None, n)
    mean_x = total_x / n
    residuals = math.fsum((y - ratio * x) ** 2 for y, x in zip(numerators, denominators, strict=True))
    half = Z95 * math.sqrt(residuals / (n * (n - 1))) / mean_x
    return Estimate(ratio, ratio - half, ratio + half, n)


def percentile(sorted_values: Sequence[float], q: float) -> float | None:
    """The nearest-rank ``q``-th percentile (0 < q <= 100) of already sorted values.

    >>> percentile([1.0, 2.0, 3.0, 4.0], 50), percentile([1.0, 2.0, 3.0, 4.0], 99), percentile([], 50)
    (2.0, 4.0, None)
    """
    if not sorted_values:
        return None
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


RATES: Final = {
    # name: (numerator field, denominator field)
    "win_rate": ("wins", "hands"),
    "deal_in_rate": ("deal_ins", "hands"),
    "riichi_rate": ("riichi", "hands"),
    "call_rate": ("calls", "hands"),
    "win_value": ("win_points", "wins"),
}
MEANS: Final = ("placement", "final_score")


@dataclass(slots=True)
class PlayerSummary:
    """Everything the arena reports about one player."""

    name: str
    matches: int
    hands: int
    estimates: dict[str, Estimate]
    placements: tuple[int, int, int]  # how many firsts, seconds, thirds
    answers: AnswerCounts
    # The mean placement of each seed group: the sample of the placement estimate, kept so
    # that two runs on the same walls can be paired.
    placement_by_group: tuple[float, ...] = ()
    latency_ms: dict[str, float | int | None] = field(default_factory=dict)


def summarise(
    name: str,
    groups: Sequence[Sequence[PlayerMatch]],
    answers: AnswerCounts | None = None,
    latencies_s: Iterable[float] = (),
) -> PlayerSummary:
    """One player's summary from its matches, grouped by seed group (each inner sequence is
    one group: the matches it played on that seed, one per rotation), its answer counts and
    the seconds each of its decisions took."""
    estimates: dict[str, Estimate] = {}
    by_group: dict[str, list[float]] = {}
    for key in MEANS:
        by_group[key] = [math.fsum(getattr(m, key) for m in g) / len(g) for g in groups if g]
        estimates[key] = mean_estimate(by_group[key])
    for key, (num, den) in RATES.items():
        ys = [float(sum(getattr(m, num) for m in g)) for g in groups]
        xs = [float(sum(getattr(m, den) for m in g)) for g in groups]
        estimates[key] = ratio_estimate(ys, xs)
    every = [m for g in groups for m in g]
    places = tuple(sum(m.placement == p for m in every) for p in (1, 2, 3))
    lat = sorted(latencies_s)
    latency_ms: dict[str, float | int | None] = {"decisions": len(lat)}
    for label, q in (("p50", 50.0), ("p99", 99.0), ("max", 100.0)):
        v = percentile(lat, q)
        latency_ms[label] = None if v is None else round(v * 1000, 3)
    return PlayerSummary(
        name=name,
        matches=len(every),
        hands=sum(m.hands for m in every),
        estimates=estimates,
        placements=(places[0], places[1], places[2]),
        answers=answers if answers is not None else AnswerCounts(),
        latency_ms=latency_ms,
        placement_by_group=tuple(by_group["placement"]),
    )
