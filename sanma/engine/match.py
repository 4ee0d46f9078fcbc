"""A whole match: hands in sequence, renchan, honba, deposits, bust, all-last, uma.

A ``Match`` owns the current ``Kyoku`` and starts the next one when a hand ends, so a
caller only ever asks ``legal_actions(seat)`` and calls ``apply(seat, action)``.
Everything is decided from the seed and the actions: the same seed and actions give
the same event log, which is how replays and reconnects work.

What happens between two hands (spec section 9) is one pure function, ``advance``, from
the table before a hand and the hand's ``KyokuResult`` to the table of the next hand, or
to the end of the match.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from sanma.engine.actions import Action
from sanma.engine.errors import IllegalAction, SanmaError
from sanma.engine.events import Event, HandStarted, MatchEnded, MatchStarted
from sanma.engine.kyoku import Kyoku, KyokuResult, LegalActions
from sanma.engine.rules import DEFAULT, Rules
from sanma.engine.tiles import EAST, SEATS, SOUTH, TileKind
from sanma.engine.wall import WALL_ALGORITHM, Deal, deal_from_seed

OPERATOR = "operator"
"""``MatchEnded.reason`` of a match ended by ``Match.end_now`` (the rules' own end: ``"rules"``)."""
DealSource = Callable[[int], Deal]
"""Gives the deal of hand number ``hand_index`` (0-based, repeats included)."""


@dataclass(frozen=True, slots=True)
class Standing:
    """One seat's place at the end of a match."""

    seat: int
    points: int
    placement: int  # 1, 2 or 3
    final_score: float  # (points - return points) / 1000 + uma


@dataclass(frozen=True, slots=True)
class Table:
    """Where the match stands before a hand: who deals, the counters, everyone's points.

    ``hand_index`` counts every hand played (repeats and abortive draws included): it
    picks the seeded deal.
    """

    round_wind: TileKind
    dealer: int
    honba: int
    deposits: int
    scores: tuple[int, int, int]
    hand_index: int = 0

    @classmethod
    def first(cls, rules: Rules) -> Table:
        """East 1, no honba, no deposits, everyone on the starting points."""
        p = rules.starting_points
        return cls(EAST, 0, 0, 0, (p, p, p))

    @property
    def label(self) -> str:
        """``"E1"``..``"S3"`` plus the honba, e.g. ``"E2-1"``."""
        wind = "E" if self.round_wind == EAST else "S"
        return f"{wind}{self.dealer + 1}-{self.honba}"


def rank(points: tuple[int, ...]) -> tuple[int, ...]:
    """Seats from first to last place; equal points rank by seat order from the first
    dealer (seat 0 first).

    >>> rank((30000, 40000, 30000))
    (1, 0, 2)
    """
    return tuple(sorted(SEATS, key=lambda s: (-points[s], s)))


def standings(points: tuple[int, int, int], rules: Rules) -> tuple[Standing, ...]:
    """Placement and final score of each seat, in seat order.  A one-hand match has no uma.

    >>> [s.final_score for s in standings((45000, 35000, 25000), Rules())]
    [25.0, 0.0, -25.0]
    """
    order = rank(points)
    one_hand = rules.length == "one-hand"
    out: list[Standing] = []
    for seat in SEATS:
        place = order.index(seat)
        uma = 0 if one_hand else rules.uma[place]
        # Points are multiples of 100, so one decimal is exact; round() drops float noise.
        score = round((points[seat] - rules.return_points) / 1000 + uma, 1)
        out.append(Standing(seat, points[seat], place + 1, score))
    return tuple(out)


def _last_round(rules: Rules) -> TileKind:
    return SOUTH if rules.length == "east-south" else EAST


def _match_over(table: Table, result: KyokuResult, scores: tuple[int, int, int], rules: Rules) -> bool:
    """Whether the hand just played (at ``table``) ends the match, given the scores after it."""
    if min(scores) < 0:
        return True
    if rules.length == "one-hand":
        return result.outcome != "aborted"
    last_hand = table.round_wind == _last_round(rules) and table.dealer == SEATS[-1]
    if not last_hand:
        return False
    if not result.dealer_repeats:
        return True
    # All-last: a dealer who won or was tenpai and is now first ends the match; an
    # abortive draw is simply replayed.
    return result.outcome != "aborted" and rank(scores)[0] == table.dealer


def _deposits_to_first(scores: tuple[int, int, int], deposits: int) -> tuple[int, int, int]:
    """The final points: the riichi deposits left on the table go to first place (spec 9)."""
    first = rank(scores)[0]
    s0, s1, s2 = (p + 1000 * deposits if s == first else p for s, p in enumerate(scores))
    return s0, s1, s2


def advance(table: Table, result: KyokuResult, rules: Rules) -> tuple[Table, bool]:
    """The table after a hand played at ``table`` ended with ``result``, and whether the
    match is over.  When it is over the returned table holds the final scores (deposits
    left on the table went to first place) and no deposits."""
    scores = (
        table.scores[0] + result.deltas[0] - 1000 * result.riichi_paid[0],
        table.scores[1] + result.deltas[1] - 1000 * result.riichi_paid[1],
        table.scores[2] + result.deltas[2] - 1000 * result.riichi_paid[2],
    )
    if _match_over(table, result, scores, rules):
        final = _deposits_to_first(scores, result.deposits_left)
        return replace(table, scores=final, deposits=0, honba=result.next_honba), True
    dealer, round_wind = table.dealer, table.round_wind
    if not result.dealer_repeats:
        dealer = (dealer + 1) % 3
        if dealer == 0:
            round_wind = SOUTH
    nxt = Table(round_wind, dealer, result.next_honba, result.deposits_left, scores, table.hand_index + 1)
    return nxt, False


def without_abandoned_hand(events: Sequence[Event]) -> list[Event]:
    """``events`` without the hand an operator's end abandoned (``Match.end_now``: from the
    last ``HandStarted`` to the ``MatchEnded``), for what reads only whole hands (the
    tenhou.net/6 export, the review); the log as it is when no hand was abandoned."""
    end = events[-1] if events else None
    if not isinstance(end, MatchEnded) or end.reason != OPERATOR:
        return list(events)
    start = max(i for i, e in enumerate(events) if isinstance(e, HandStarted))
    return [*events[:start], end]


class Match:
    """A match from its seed: call ``apply`` for the awaited seats until ``finished``.

    ``deals`` replaces the seeded walls (tests and recorded games); the seed is still
    recorded in ``MatchStarted``.  Seeds are non-negative so that redaction can use -1.
    ``salt``: the fair-wall salt the server drew (``fairness.py``), recorded in
    ``MatchStarted`` so that a match rebuilt from its log commits to the same values.
    """

    def __init__(self, seed: int, rules: Rules = DEFAULT, *, deals: DealSource | None = None, salt: str = "") -> None:
        if seed < 0:
            raise SanmaError(f"a match seed is a non-negative integer, not {seed}")
        self.seed = seed
        self.rules = rules
        self._deals = deals
        self.table = Table.first(rules)
        self.standings: tuple[Standing, ...] | None = None
        self.events: list[Event] = [MatchStarted(seed=seed, rules=rules, wall_algorithm=WALL_ALGORITHM, salt=salt)]
        self.kyoku = self._start_kyoku()
        self.events += self.kyoku.events

    # -- queries ---------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """Whether the match has ended."""
        return self.standings is not None

    @property
    def scores(self) -> tuple[int, int, int]:
        """Everyone's points now (riichi deposits already taken off)."""
        return self.table.scores if self.finished else self.kyoku.scores

    @property
    def deposits(self) -> int:
        """Riichi deposits on the table now."""
        return 0 if self.finished else self.kyoku.deposits

    def awaiting(self) -> tuple[int, ...]:
        """Seats whose decision is pending (none once the match has ended)."""
        return () if self.finished else self.kyoku.awaiting()

    def legal_actions(self, seat: int) -> LegalActions:
        """What ``seat`` may do now (empty when it has nothing to decide)."""
        if self.finished:
            return LegalActions.none()
        return self.kyoku.legal_actions(seat)

    def deal(self) -> Deal:
        """The deal of the current hand."""
        if self._deals is not None:
            return self._deals(self.table.hand_index)
        return deal_from_seed(self.seed, self.table.hand_index)

    # -- the one mutation ------------------------------------------------------------

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply one seat's action; when it ends the hand, start the next one (or end the
        match).  Raises ``IllegalAction`` and changes nothing if the action is not legal."""
        if self.finished:
            raise IllegalAction("the match has ended")
        new_events = self.kyoku.apply(seat, action)
        result = self.kyoku.result
        if result is not None:
            new_events += self._after_hand(result)
        self.events += new_events
        return new_events

    def end_now(self) -> list[Event]:
        """End the match where it stands (an operator's end): the hand in progress, if any, is
        abandoned with no result (its riichi deposits stay on the table), and the match ends as
        the rules end it, from the points as they are: deposits on the table go to first place.
        Returns the ``MatchEnded`` (``reason`` ``"operator"``), or ``[]`` if the match had ended."""
        if self.finished:
            return []
        final = _deposits_to_first(self.kyoku.scores, self.kyoku.deposits)
        self.table = replace(self.table, scores=final, deposits=0)
        ended = [self._end(reason=OPERATOR)]
        self.events += ended
        return list(ended)

    # -- copies and checks -----------------------------------------------------------

    def copy(self) -> Match:
        """An independent copy: applying actions to one never changes the other."""
        m = Match.__new__(Match)
        m.seed, m.rules, m._deals, m.table, m.standings = self.seed, self.rules, self._deals, self.table, self.standings
        m.events = list(self.events)
        m.kyoku = self.kyoku.copy()
        return m

    def state_key(self) -> tuple[object, ...]:
        """Everything that defines the state, as a comparable value."""
        return (self.seed, self.rules, self.table, self.standings, tuple(self.events), self.kyoku.state_key())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Match):
            return NotImplemented
        return self.state_key() == other.state_key()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def check_invariants(self) -> None:
        """The hand's invariants, plus points + deposits equal to the starting total
        (``AssertionError`` otherwise)."""
        self.kyoku.check_invariants()
        total = 3 * self.rules.starting_points
        assert sum(self.scores) + 1000 * self.deposits == total, "match points + deposits not conserved"
        assert self.finished == isinstance(self.events[-1], MatchEnded), "MatchEnded must close the log"

    # -- hand transitions ------------------------------------------------------------

    def _start_kyoku(self) -> Kyoku:
        t = self.table
        return Kyoku.start(
            self.deal(),
            rules=self.rules,
            round_wind=t.round_wind,
            dealer=t.dealer,
            honba=t.honba,
            deposits=t.deposits,
            scores=t.scores,
        )

    def _after_hand(self, result: KyokuResult) -> list[Event]:
        self.table, over = advance(self.table, result, self.rules)
        if over:
            return [self._end()]
        self.kyoku = self._start_kyoku()
        return list(self.kyoku.events)

    def _end(self, reason: str = "rules") -> MatchEnded:
        self.standings = standings(self.table.scores, self.rules)
        return MatchEnded(
            points=self.table.scores,
            placements=tuple(s.placement for s in self.standings),
            final_scores=tuple(s.final_score for s in self.standings),
            reason=reason,
        )
