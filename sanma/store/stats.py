"""A player's statistics (issue 27): one summary row per seat of a match, written once when the
match ends (``write_summary``, called by ``matches.append_events`` in the ending transaction;
migration 0013 fills the rows of matches that ended before it), and the figures of a guest
summed over those rows in SQL (``player_stats``: one GROUP BY, then an ordered LIMIT for the
trend).  docs/stats.md says exactly what each figure counts.

The summary is read from the stored event log (the codec's JSON form: ``{"t": "HandWon", ...}``),
not from engine objects: the store needs nothing but the log it already holds.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, Final

from sqlalchemy import Connection, Engine, case, func, insert, select

from sanma.store.tables import match_events, match_players, match_stats, matches

# The counters of one seat of one match, summed over a player's matches: their names are the
# columns of ``match_stats`` (and of ``Totals``) one for one.
COUNTERS: Final = (
    "hands",
    "wins",
    "tsumo_wins",
    "deal_ins",
    "riichi_hands",
    "called_hands",
    "kita",
    "win_points",
    "deal_in_points",
    "draws",
    "draws_tenpai",
)
TREND_LENGTH: Final = 200  # the placements the trend is drawn from (its windows: 50 and 200)
OPEN_CALLS: Final = frozenset({"pon", "daiminkan"})  # a kakan adds to a pon already counted


@dataclass(frozen=True, slots=True)
class SeatSummary:
    """One seat's part of a finished match, as ``match_stats`` keeps it."""

    seat: int
    placement: int
    final_score: float
    hands: int = 0
    wins: int = 0
    tsumo_wins: int = 0
    deal_ins: int = 0
    riichi_hands: int = 0
    called_hands: int = 0
    kita: int = 0
    win_points: int = 0
    deal_in_points: int = 0
    draws: int = 0
    draws_tenpai: int = 0


class _Tally:
    """The counters of the three seats while the log is walked.  What happens in a hand is
    held apart (``hand``: kita counts, ``riichi``, ``called``, ``won``, ``dealt_in``: once per
    hand) and folded in when its result comes, so a hand the operator abandoned counts for
    nothing."""

    def __init__(self) -> None:
        self.counts = [dict.fromkeys(COUNTERS, 0) for _ in range(3)]
        self.start()

    def start(self) -> None:
        self.ended = False
        self.kita = [0, 0, 0]
        self.riichi: set[int] = set()
        self.called: set[int] = set()

    def add(self, seat: int, name: str, n: int = 1) -> None:
        self.counts[seat][name] += n

    def end_hand(self) -> None:
        """The hand's result came (its first result event): every seat played one more hand."""
        if self.ended:
            return  # the second HandWon of a double ron
        self.ended = True
        for seat in range(3):
            self.add(seat, "hands")
            self.add(seat, "kita", self.kita[seat])
            self.add(seat, "riichi_hands", seat in self.riichi)
            self.add(seat, "called_hands", seat in self.called)


def summarize(events: Iterable[Mapping[str, Any]]) -> list[SeatSummary] | None:
    """The three seats' summaries of a stored log, or ``None`` when it has no ``MatchEnded``.

    A hand counts once its result is logged (a hand the operator abandoned does not); a double
    ron is one hand and one deal-in, and a win for each winner."""
    tally = _Tally()
    ended: Mapping[str, Any] | None = None
    for e in events:
        t = e.get("t")
        if t == "HandStarted":
            tally.start()
        elif t == "TileDiscarded" and e.get("riichi"):
            tally.riichi.add(e["seat"])
        elif t == "MeldCalled" and e["meld"]["type"] in OPEN_CALLS:
            tally.called.add(e["seat"])
        elif t == "KitaDeclared":
            tally.kita[e["seat"]] += 1
        elif t == "HandWon":
            _won(tally, e)
        elif t == "HandDrawn":
            tally.end_hand()
            for seat in range(3):
                tally.add(seat, "draws")
                tally.add(seat, "draws_tenpai", seat in e["tenpai"])
        elif t == "HandAborted":
            tally.end_hand()
        elif t == "MatchEnded":
            ended = e
    if ended is None:
        return None
    return [
        SeatSummary(seat, int(ended["placements"][seat]), float(ended["final_scores"][seat]), **tally.counts[seat])
        for seat in range(3)
    ]


def _won(tally: _Tally, e: Mapping[str, Any]) -> None:
    double = tally.ended  # the second winner of a double ron: the discarder dealt in once
    tally.end_hand()
    winner, payer, deltas = e["seat"], e["from_seat"], e["deltas"]
    tally.add(winner, "wins")
    # What the win brought the winner: the hand, honba and the riichi deposits it collected.
    tally.add(winner, "win_points", deltas[winner])
    if payer == winner:
        tally.add(winner, "tsumo_wins")
        return
    tally.add(payer, "deal_ins", not double)
    tally.add(payer, "deal_in_points", -deltas[payer])  # what the discarder paid (a pao share is not theirs)


def write_summary(conn: Connection, match_id: str, ended_at: datetime) -> bool:
    """Summarize the stored log of ``match_id`` into ``match_stats`` in ``conn``'s transaction;
    whether it had a ``MatchEnded`` (no rows otherwise)."""
    match = conn.execute(
        select(matches.c.kind, matches.c.bot_level, matches.c.rules, matches.c.coached).where(matches.c.id == match_id)
    )
    kind, level, rules, coached = match.one()
    texts = conn.execute(
        select(match_events.c.event).where(match_events.c.match_id == match_id).order_by(match_events.c.v)
    ).scalars()
    summary = summarize(json.loads(text) for text in texts)
    if summary is None:
        return False
    rows = summary_rows(match_id, kind, level, length_of(rules), ended_at, summary, coached=bool(coached))
    conn.execute(insert(match_stats), rows)
    return True


def summary_rows(
    match_id: str,
    kind: str,
    bot_level: str,
    length: str,
    ended_at: datetime,
    summary: Sequence[SeatSummary],
    *,
    coached: bool = False,
) -> list[dict[str, Any]]:
    """The ``match_stats`` rows of a summary.  The bot level names a practice match's mode
    (its bots are all of it); a room's seats may differ, so a room has none.  ``coached``:
    the match's own mark (``matches.coached``), copied so coached matches group apart."""
    level = bot_level if kind == "practice" else None
    common = {
        "match_id": match_id,
        "kind": kind,
        "bot_level": level,
        "length": length,
        "ended_at": ended_at,
        "coached": coached,
    }
    return [{**common, **{f.name: getattr(s, f.name) for f in fields(s)}} for s in summary]


def length_of(rules_text: str | None) -> str:
    """A match's length from its stored rules (``""`` when they name none)."""
    rules = json.loads(rules_text or "{}")
    return str(rules.get("length", "")) if isinstance(rules, dict) else ""


# -- a player's figures ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Totals:
    """The sums of one mode and length (or of all): every figure is a ratio of two of them."""

    kind: str
    bot_level: str | None
    length: str
    coached: bool  # practice matches with the coach on are a group of their own
    matches: int
    firsts: int
    seconds: int
    thirds: int
    placement_sum: int
    final_score_sum: float
    hands: int
    wins: int
    tsumo_wins: int
    deal_ins: int
    riichi_hands: int
    called_hands: int
    kita: int
    win_points: int
    deal_in_points: int
    draws: int
    draws_tenpai: int

    def plus(self, other: Totals) -> Totals:
        """Both groups' sums (the labels of ``self``)."""
        sums = {f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self) if f.name in _SUMMED}
        return Totals(self.kind, self.bot_level, self.length, self.coached, **sums)


_LABELS: Final = ("kind", "bot_level", "length", "coached")
_SUMMED: Final = frozenset(f.name for f in fields(Totals)) - set(_LABELS)
ALL: Final = Totals("all", None, "all", False, *(0 for _ in _SUMMED))


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A guest's totals by mode and length (most played first), all of them together, and the
    placements of its last ``TREND_LENGTH`` matches, oldest first."""

    groups: tuple[Totals, ...]
    total: Totals
    recent: tuple[int, ...]


def player_stats(engine: Engine, guest_id: str, trend: int = TREND_LENGTH) -> PlayerStats:
    """The sums of every finished match in which ``guest_id`` had a seat (any kind), and the
    placements of its last ``trend`` matches."""
    mine = (match_stats.c.match_id == match_players.c.match_id) & (match_stats.c.seat == match_players.c.seat)
    labels = [match_stats.c[name] for name in _LABELS]

    def placed(n: int) -> Any:
        return func.sum(case((match_stats.c.placement == n, 1), else_=0))

    sums = [
        func.count(),
        placed(1),
        placed(2),
        placed(3),
        func.sum(match_stats.c.placement),
        func.sum(match_stats.c.final_score),
        *(func.sum(match_stats.c[name]) for name in COUNTERS),
    ]
    with engine.connect() as conn:
        rows = conn.execute(
            select(*labels, *sums)
            .join(match_players, mine)
            .where(match_players.c.guest_id == guest_id)
            .group_by(*labels)
        ).all()
        recent = conn.execute(
            select(match_stats.c.placement)
            .join(match_players, mine)
            .where(match_players.c.guest_id == guest_id)
            .order_by(match_stats.c.ended_at.desc(), match_stats.c.match_id.desc())
            .limit(trend)
        ).scalars()
        placements = tuple(int(p) for p in recent)[::-1]
    groups = tuple(
        sorted(
            (
                Totals(kind, level, length, bool(coached), *(_number(v) for v in values))
                for kind, level, length, coached, *values in rows
            ),
            key=lambda g: (-g.matches, g.kind, g.bot_level or "", g.length, g.coached),
        )
    )
    total = ALL
    for group in groups:
        total = total.plus(group)
    return PlayerStats(groups, total, placements)


def _number(value: Any) -> Any:
    # PostgreSQL sums integers as NUMERIC (Decimal): integers stay integers, the score a float.
    if value is None:
        return 0
    return float(value) if not float(value).is_integer() else int(value)


def figures(t: Totals) -> dict[str, float | None]:
    """The figures of ``docs/stats.md`` from a group's sums (``None``: nothing to divide by)."""

    def ratio(top: float, bottom: int) -> float | None:
        return top / bottom if bottom else None

    return {
        "avg_placement": ratio(t.placement_sum, t.matches),
        "avg_final_score": ratio(t.final_score_sum, t.matches),
        "win_rate": ratio(t.wins, t.hands),
        "deal_in_rate": ratio(t.deal_ins, t.hands),
        "tsumo_share": ratio(t.tsumo_wins, t.wins),
        "riichi_rate": ratio(t.riichi_hands, t.hands),
        "call_rate": ratio(t.called_hands, t.hands),
        "kita_per_hand": ratio(t.kita, t.hands),
        "avg_win": ratio(t.win_points, t.wins),
        "avg_deal_in": ratio(t.deal_in_points, t.deal_ins),
        "draw_tenpai_rate": ratio(t.draws_tenpai, t.draws),
    }
