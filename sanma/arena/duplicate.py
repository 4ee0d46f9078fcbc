"""Duplicate-seed matches between any three players.

Each *seed group* is one match seed played once per seat rotation: in rotation ``r`` player
``i`` sits in seat ``(i + r) % 3``, so over a group every player sits in every seat once on
the same walls (hand ``k`` of every rotation is dealt from the same seeded wall), and the
luck of the deal cancels out of the comparison.  With six rotations the three mirrored
orders follow (in rotation ``3 + r`` player ``i`` sits in seat ``(r - i) % 3``), so that each
player also sits after each other player equally often.

Every event goes to every player through ``redact(event, seat)``; awaited seats are asked
through ``ask`` (a player that raises, answers illegally or overruns its budget gets the
default action, and the match goes on).  Groups are independent tasks for a process pool,
and results are merged in seed order, so the statistics do not depend on the number of
workers.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from sanma.arena.stats import CI_METHOD, AnswerCounts, PlayerMatch, PlayerSummary, summarise
from sanma.bots.base import Player, ask
from sanma.engine.events import Event, HandStarted, HandWon, MatchEnded, MeldCalled, TileDiscarded
from sanma.engine.hand import MeldType
from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.engine.tiles import SEATS
from sanma.engine.visibility import redact

PlayerFactory = Callable[[int, int], Player]
"""Builds a player for ``(seat, seed)``.  Must be picklable (a class, a module-level function
or a ``functools.partial`` of one) to run in worker processes."""

ROTATIONS: Final = 3  # the default: the three cyclic orders
ROTATION_CHOICES: Final = (3, 6)  # ... or all six seat orders
SEED_MASK: Final = (1 << 63) - 1


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player taking part: the name reports show and how to build it for a seat."""

    name: str
    factory: PlayerFactory


@dataclass(frozen=True, slots=True)
class ArenaConfig:
    """What to play: three entrants, ``groups`` seed groups (3 matches each) under ``rules``."""

    entrants: tuple[Entrant, Entrant, Entrant]
    groups: int
    rules: Rules
    seed: int = 0
    budget_s: float | None = None
    first_group: int = 0  # to continue a run: groups first_group .. first_group + groups - 1
    rotations: int = ROTATIONS  # seat orders per seed: 3 (cyclic) or 6 (cyclic and mirrored)

    def __post_init__(self) -> None:
        if self.rotations not in ROTATION_CHOICES:
            raise ValueError(f"rotations is one of {ROTATION_CHOICES}")

    @property
    def matches(self) -> int:
        """Matches in all: one per seed group and rotation."""
        return self.groups * self.rotations


def seat_of(player: int, rotation: int) -> int:
    """The seat player ``player`` takes in rotation ``rotation`` (0-2 cyclic, 3-5 mirrored).

    >>> [seat_of(0, r) for r in range(6)], [seat_of(2, r) for r in range(6)]
    ([0, 1, 2, 0, 1, 2], [2, 0, 1, 1, 2, 0])
    """
    return (player + rotation) % 3 if rotation < 3 else (rotation - player) % 3


def player_at(seat: int, rotation: int) -> int:
    """The player sitting in ``seat`` in rotation ``rotation`` (inverse of ``seat_of``)."""
    return (seat - rotation) % 3 if rotation < 3 else (rotation - seat) % 3


def _mix(*parts: int) -> int:
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") & SEED_MASK


def group_seed(base_seed: int, group: int) -> int:
    """The match seed of seed group ``group`` of an arena run seeded with ``base_seed``
    (hashed, so that runs with nearby base seeds share no walls)."""
    return _mix(base_seed, group)


def bot_seed(match_seed: int, player: int) -> int:
    """The seed player ``player`` gets in every rotation of a match seed (the same in each
    rotation, so a deterministic player meets the same walls with the same habits)."""
    return _mix(match_seed, player, 0xB07)


# -- one match --------------------------------------------------------------------------------


@dataclass(slots=True)
class MatchOutcome:
    """One match of a seed group; the lists are indexed by player (not seat)."""

    rotation: int
    tallies: list[PlayerMatch]
    answers: list[AnswerCounts]
    latencies_s: list[list[float]]


def win_value(event: HandWon, dealer: int) -> int:
    """What a win is worth: all that the payers hand over (honba included, riichi deposits
    on the table not)."""
    tsumo = event.seat == event.from_seat
    return event.score.payments.total(tsumo, event.seat == dealer)


def tally(events: Sequence[Event]) -> list[PlayerMatch]:
    """Per-seat tallies of a whole match from its full log."""
    out = [PlayerMatch() for _ in SEATS]
    dealer = 0
    riichi: set[int] = set()
    calls: set[int] = set()
    dealt_in: set[int] = set()

    def close_hand() -> None:
        for s in riichi:
            out[s].riichi += 1
        for s in calls:
            out[s].calls += 1
        for s in dealt_in:
            out[s].deal_ins += 1
        riichi.clear()
        calls.clear()
        dealt_in.clear()

    for e in events:
        if isinstance(e, HandStarted):
            close_hand()
            dealer = e.dealer
            for t in out:
                t.hands += 1
        elif isinstance(e, TileDiscarded) and e.riichi:
            riichi.add(e.seat)
        elif isinstance(e, MeldCalled) and e.meld.type in (MeldType.PON, MeldType.DAIMINKAN):
            calls.add(e.seat)
        elif isinstance(e, HandWon):
            out[e.seat].wins += 1
            out[e.seat].win_points += win_value(e, dealer)
            if e.from_seat != e.seat:
                dealt_in.add(e.from_seat)
        elif isinstance(e, MatchEnded):
            for s in SEATS:
                out[s].placement = e.placements[s]
                out[s].final_score = e.final_scores[s]
                out[s].points = e.points[s]
    close_hand()
    return out


def play_match(
    entrants: Sequence[Entrant],
    match_seed: int,
    rules: Rules,
    rotation: int = 0,
    budget_s: float | None = None,
) -> MatchOutcome:
    """Play one whole match with the entrants seated for ``rotation``."""
    players: list[Player] = []
    try:
        for seat in SEATS:
            p = player_at(seat, rotation)
            players.append(entrants[p].factory(seat, bot_seed(match_seed, p)))
        return _play(players, match_seed, rules, rotation, budget_s)
    finally:
        for player in players:
            # A player that fails to close must not lose the match's results.
            with contextlib.suppress(Exception):
                player.close()


@dataclass(slots=True)
class PlayedMatch:
    """A finished match and how each seat answered; the lists are indexed by seat."""

    match: Match
    answers: list[AnswerCounts]
    latencies_s: list[list[float]]


def play_seated(players: Sequence[Player], match_seed: int, rules: Rules, budget_s: float | None = None) -> PlayedMatch:
    """Play one whole match between ``players`` in seat order, the arena's loop: every event
    goes to every player through ``redact``, each awaited seat is asked through ``ask``.  The
    players are not closed (whoever built them does that)."""
    answers = [AnswerCounts() for _ in SEATS]
    latencies: list[list[float]] = [[] for _ in SEATS]
    match = Match(match_seed, rules)

    def tell(events: Sequence[Event]) -> None:
        for event in events:
            for seat, player in enumerate(players):
                try:
                    player.observe(redact(event, seat))
                except Exception:  # counted; the player plays on with what it has
                    answers[seat].observe_error += 1

    tell(match.events)
    while not match.finished:
        seat = match.awaiting()[0]
        answer = ask(players[seat], match.legal_actions(seat), budget_s)
        counts = answers[seat]
        setattr(counts, answer.status, getattr(counts, answer.status) + 1)
        latencies[seat].append(answer.seconds)
        tell(match.apply(seat, answer.action))
    return PlayedMatch(match, answers, latencies)


def _play(players: list[Player], match_seed: int, rules: Rules, rotation: int, budget_s: float | None) -> MatchOutcome:
    played = play_seated(players, match_seed, rules, budget_s)
    by_seat = tally(played.match.events)
    order = [seat_of(p, rotation) for p in SEATS]  # by seat until here, by player from here
    return MatchOutcome(
        rotation=rotation,
        tallies=[by_seat[s] for s in order],
        answers=[played.answers[s] for s in order],
        latencies_s=[played.latencies_s[s] for s in order],
    )


# -- seed groups and the whole run -------------------------------------------------------------


@dataclass(slots=True)
class GroupResult:
    """The matches of one seed group, in rotation order."""

    group: int
    seed: int
    matches: list[MatchOutcome]


def play_group(config: ArenaConfig, group: int) -> GroupResult:
    """Play every rotation of seed group ``group``."""
    seed = group_seed(config.seed, group)
    matches = [play_match(config.entrants, seed, config.rules, r, config.budget_s) for r in range(config.rotations)]
    return GroupResult(group, seed, matches)


ProgressCallback = Callable[[int, int], None]
"""Called with (groups done, groups in all) as groups finish."""


@dataclass(slots=True)
class ArenaResult:
    """All groups of a run, in seed order, and how long it took."""

    config: ArenaConfig
    groups: list[GroupResult]
    workers: int = 1
    elapsed_s: float = 0.0
    _summaries: list[PlayerSummary] | None = field(default=None, repr=False)

    def summaries(self) -> list[PlayerSummary]:
        """One summary per entrant, in the order given."""
        if self._summaries is None:
            self._summaries = [self._summary(p) for p in SEATS]
        return self._summaries

    def _summary(self, p: int) -> PlayerSummary:
        per_group = [[m.tallies[p] for m in g.matches] for g in self.groups]
        answers = AnswerCounts()
        latencies: list[float] = []
        for g in self.groups:
            for m in g.matches:
                answers.add(m.answers[p])
                latencies += m.latencies_s[p]
        return summarise(self.config.entrants[p].name, per_group, answers, latencies)

    def extended(self, more: ArenaResult) -> ArenaResult:
        """This run followed by ``more``, its continuation (the next seed groups of the same
        configuration), as one run."""
        cfg = self.config
        if replace(more.config, groups=cfg.groups, first_group=cfg.first_group) != cfg:
            raise ValueError("only a continuation of the same configuration can extend a run")
        if more.config.first_group != cfg.first_group + cfg.groups:
            raise ValueError("the continuation must start at the next seed group")
        config = replace(cfg, groups=cfg.groups + more.config.groups)
        return ArenaResult(config, self.groups + more.groups, self.workers, self.elapsed_s + more.elapsed_s)

    def seat_counts(self) -> list[list[int]]:
        """How many matches each player played in each seat (``[player][seat]``)."""
        counts = [[0, 0, 0] for _ in SEATS]
        for g in self.groups:
            for m in g.matches:
                for p in SEATS:
                    counts[p][seat_of(p, m.rotation)] += 1
        return counts

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data.  Everything but ``timing`` and each player's
        ``latency_ms`` is a function of the configuration alone."""
        cfg = self.config
        seats = self.seat_counts()
        players = []
        for p, s in enumerate(self.summaries()):
            players.append(
                {
                    "player": s.name,
                    "index": p,
                    "matches": s.matches,
                    "hands": s.hands,
                    "matches_per_seat": seats[p],
                    "placements": list(s.placements),
                    "placement_by_group": [round(x, 6) for x in s.placement_by_group],  # bench/arena_pair.py
                    **{key: est.as_dict() for key, est in s.estimates.items()},
                    "answers": {
                        "decisions": s.answers.decisions,
                        "ok": s.answers.ok,
                        "error": s.answers.error,
                        "illegal": s.answers.illegal,
                        "overrun": s.answers.overrun,
                        "observe_error": s.answers.observe_error,
                    },
                    "latency_ms": s.latency_ms,
                }
            )
        return {
            "config": {
                "players": [e.name for e in cfg.entrants],
                "seed": cfg.seed,
                "seed_groups": cfg.groups,
                "first_group": cfg.first_group,
                "matches": cfg.matches,
                "rotations": cfg.rotations,
                "rules": cfg.rules.preset,
                "length": cfg.rules.length,
                "red_fives": cfg.rules.red_fives,
                "budget_ms": None if cfg.budget_s is None else round(cfg.budget_s * 1000, 3),
            },
            "ci_method": CI_METHOD,
            "definitions": DEFINITIONS,
            "players": players,
            "timing": {"workers": self.workers, "elapsed_s": round(self.elapsed_s, 3)},
        }


DEFINITIONS: Final = {
    "placement": "mean placement (1-3) per match",
    "final_score": "mean final score per match: (points - return points)/1000 + uma",
    "win_rate": "hands won / hands played",
    "deal_in_rate": "hands in which the player's discard or kita was ronned / hands played",
    "riichi_rate": "hands with a riichi declaration / hands played",
    "call_rate": "hands with at least one pon or open kan / hands played",
    "win_value": "points the payers handed over per win (honba included, riichi deposits not)",
    "latency_ms": "seconds per decision (ask) in milliseconds, nearest-rank percentiles over all decisions",
}


def run_arena(config: ArenaConfig, workers: int = 1, progress: ProgressCallback | None = None) -> ArenaResult:
    """Play every seed group, in ``workers`` processes (1: in this process), and merge the
    results in seed order."""
    if len(config.entrants) != 3:
        raise ValueError("an arena match needs exactly three players")
    if config.groups < 1:
        raise ValueError("an arena run needs at least one seed group")
    start = time.perf_counter()
    results: list[GroupResult | None] = [None] * config.groups
    indices = range(config.first_group, config.first_group + config.groups)
    done = 0
    if workers <= 1:
        for i, g in enumerate(indices):
            results[i] = play_group(config, g)
            done += 1
            if progress:
                progress(done, config.groups)
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(play_group, config, g): i for i, g in enumerate(indices)}
            for future in concurrent.futures.as_completed(futures):
                results[futures[future]] = future.result()
                done += 1
                if progress:
                    progress(done, config.groups)
    groups = [r for r in results if r is not None]
    return ArenaResult(config, groups, max(1, workers), time.perf_counter() - start)
