"""Match history: every finished match of the account (its replay and downloads: ``replays.py``),
and the statistics summed over them (``store/stats.py``; docs/stats.md)."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from sanma.server.api.deps import ERRORS, AppServices, Guest
from sanma.store import accounts as store
from sanma.store import matches as matches_store
from sanma.store import ranks as ranks_store
from sanma.store import stats as stats_store

router = APIRouter(prefix="/api", tags=["history"], responses=ERRORS)


class SeatInfo(BaseModel):
    """Who sat at a seat: a player (its display name, if chosen) or a bot of ``bot_level``."""

    seat: int
    name: str | None
    bot_level: str | None
    you: bool


class RankChangeView(BaseModel):
    """What a quick match changed on the account's ladder (``docs/ranks.md``): ``delta`` the
    points its placement earned, before any promotion or demotion; ``abandoned``: the player
    had left, and was placed last."""

    length: str
    placement: int
    abandoned: bool
    rank_before: str
    points_before: int
    rank_after: str
    points_after: int
    delta: int


class PastMatch(BaseModel):
    """A finished match as the account saw it."""

    match: str
    kind: str = Field(description="practice, room or quick")
    rules: dict[str, Any]
    started_at: datetime
    ended_at: datetime
    seat: int = Field(description="the account's seat")
    seats: list[SeatInfo]
    placement: int | None = Field(description="1, 2 or 3")
    points: int | None
    final_score: float | None = Field(description="(points - 35,000)/1,000 + placement bonus")
    result: dict[str, Any] = Field(description="points, placements, final_scores by seat")
    coached: bool = Field(False, description="a practice match in which the coach was turned on")
    rank_change: RankChangeView | None = Field(default=None, description="a quick match's move on the ladder")


class History(BaseModel):
    """Newest first."""

    matches: list[PastMatch]


def _rank_change(change: ranks_store.RankChange | None) -> RankChangeView | None:
    if change is None:
        return None
    return RankChangeView(
        length=change.length,
        placement=change.placement,
        abandoned=change.abandoned,
        rank_before=change.before.code,
        points_before=change.before.points,
        rank_after=change.after.code,
        points_after=change.after.points,
        delta=change.delta,
    )


def _pick(values: object, seat: int) -> Any:
    return values[seat] if isinstance(values, list) and 0 <= seat < len(values) else None


@router.get("/account/history")
async def history(
    guest: Guest,
    app: AppServices,
    limit: int = Query(50, ge=1, le=200),
    offset: int = Query(0, ge=0, le=1_000_000),
) -> History:
    """The account's finished matches (practice and rooms), newest first."""
    entries = await asyncio.to_thread(store.history, app.engine, guest, limit, offset)
    ids = [e.match_id for e in entries]
    coached = await asyncio.to_thread(matches_store.coached_among, app.engine, ids)
    moves = await asyncio.to_thread(ranks_store.changes_among, app.engine, guest, ids)
    out = []
    for e in entries:
        seats = [SeatInfo(seat=s.seat, name=s.name, bot_level=s.bot_level, you=s.guest_id == guest) for s in e.seats]
        out.append(
            PastMatch(
                match=e.match_id,
                kind=e.kind,
                rules=e.rules,
                started_at=e.started_at,
                ended_at=e.ended_at,
                seat=e.seat,
                seats=seats,
                placement=_pick(e.result.get("placements"), e.seat),
                points=_pick(e.result.get("points"), e.seat),
                final_score=_pick(e.result.get("final_scores"), e.seat),
                result=e.result,
                coached=e.match_id in coached,
                rank_change=_rank_change(moves.get(e.match_id)),
            )
        )
    return History(matches=out)


class StatsGroup(BaseModel):
    """One mode and length (``kind`` ``all``: every match together): the sums, then the figures
    made from them (docs/stats.md; ``null``: nothing to divide by yet)."""

    kind: str = Field(description="practice, room or all")
    bot_level: str | None = Field(description="a practice match's bot level; null for rooms and all")
    length: str = Field(description="one-hand, east, east-south or all")
    coached: bool = Field(description="practice matches in which the coach was on (a group of their own)")
    matches: int
    placements: list[int] = Field(description="how many 1st, 2nd and 3rd places")
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
    figures: dict[str, float | None] = Field(
        description="avg_placement, avg_final_score, win_rate, deal_in_rate, tsumo_share, riichi_rate, call_rate,"
        " kita_per_hand, avg_win, avg_deal_in, draw_tenpai_rate"
    )


class Stats(BaseModel):
    """The account's statistics: by mode and length (most played first), all together, and the
    placements of the last 200 matches, oldest first (the trend)."""

    groups: list[StatsGroup]
    total: StatsGroup
    recent: list[int]


def _group(t: stats_store.Totals) -> StatsGroup:
    counters = {name: getattr(t, name) for name in stats_store.COUNTERS}
    return StatsGroup(
        kind=t.kind,
        bot_level=t.bot_level,
        length=t.length,
        coached=t.coached,
        matches=t.matches,
        placements=[t.firsts, t.seconds, t.thirds],
        placement_sum=t.placement_sum,
        final_score_sum=t.final_score_sum,
        figures=stats_store.figures(t),
        **counters,
    )


@router.get("/account/stats")
async def stats(guest: Guest, app: AppServices) -> Stats:
    """The account's statistics over every finished match it sat in (practice and rooms)."""
    found = await asyncio.to_thread(stats_store.player_stats, app.engine, guest)
    return Stats(groups=[_group(g) for g in found.groups], total=_group(found.total), recent=list(found.recent))
