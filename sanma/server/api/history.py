"""Match history: every finished match of the account (its replay and downloads: ``replays.py``)."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from sanma.server.api.deps import ERRORS, AppServices, Guest
from sanma.store import accounts as store

router = APIRouter(prefix="/api", tags=["history"], responses=ERRORS)


class SeatInfo(BaseModel):
    """Who sat at a seat: a player (its display name, if chosen) or a bot of ``bot_level``."""

    seat: int
    name: str | None
    bot_level: str | None
    you: bool


class PastMatch(BaseModel):
    """A finished match as the account saw it."""

    match: str
    kind: str = Field(description="practice or room")
    rules: dict[str, Any]
    started_at: datetime
    ended_at: datetime
    seat: int = Field(description="the account's seat")
    seats: list[SeatInfo]
    placement: int | None = Field(description="1, 2 or 3")
    points: int | None
    final_score: float | None = Field(description="(points - 35,000)/1,000 + placement bonus")
    result: dict[str, Any] = Field(description="points, placements, final_scores by seat")


class History(BaseModel):
    """Newest first."""

    matches: list[PastMatch]


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
            )
        )
    return History(matches=out)
