"""Quick match over HTTP (``docs/quick.md``): what the start screen shows before a player
queues (the waits offered, how many wait, the player's ranks) and the leaderboards.  Queuing
itself is the socket ``/ws/quick`` (``server/quickws.py``)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field

from sanma.server.api.deps import ERRORS, AppServices, Guest
from sanma.server.quickws import QuickGate
from sanma.store import ranks as store
from sanma.store.ladder import LENGTHS, Standing

router = APIRouter(prefix="/api", tags=["quick match"], responses=ERRORS)

Length = Literal["east", "east-south"]


class RankView(BaseModel):
    """A player's standing on one ladder (``docs/ranks.md``)."""

    rank: str = Field(description='a rank code: "6k" ... "1k", then "1d" ... "10d"')
    points: int
    promote_at: int | None = Field(description="the points that promote; null at the top rank")
    games: int


def rank_view(standing: Standing) -> RankView:
    """The wire form of a standing."""
    return RankView(rank=standing.code, points=standing.points, promote_at=standing.promote_at, games=standing.games)


class QuickInfo(BaseModel):
    """What the start screen shows before a quick match."""

    wait_s: float = Field(description="the default wait for people before bots take the empty seats")
    wait_choices: list[float]
    waiting: dict[str, int] = Field(description="players waiting now, by length")
    ranks: dict[str, RankView] = Field(description="your standing, by length")


class BoardEntryView(BaseModel):
    """One line of a leaderboard (``name``: the display name, null when none is chosen)."""

    place: int
    name: str | None
    rank: str
    points: int
    games: int
    you: bool


class Leaderboard(BaseModel):
    """The top of one length's ladder, and the caller's own line (null: not played yet)."""

    length: Length
    top: list[BoardEntryView]
    you: BoardEntryView | None


def gate(request: Request) -> QuickGate:
    """The app's quick-match gate."""
    found: QuickGate = request.app.state.quick
    return found


@router.get("/quick")
async def quick_info(guest: Guest, app: AppServices, request: Request) -> QuickInfo:
    """The waits offered, how many wait per length, your ranks."""
    counts = await gate(request).waiting()
    waiting = {length: sum(n for (pool, _), n in counts.items() if pool == length) for length in LENGTHS}
    standings = await asyncio.to_thread(store.standings, app.engine, guest)
    return QuickInfo(
        wait_s=app.settings.quick_wait_s,
        wait_choices=list(app.settings.quick_wait_choices),
        waiting=waiting,
        ranks={length: rank_view(s) for length, s in standings.items()},
    )


@router.get("/ranks/leaderboard")
async def leaderboard(guest: Guest, app: AppServices, length: Annotated[Length, Query()] = "east") -> Leaderboard:
    """The top 100 of a length's ladder (rank, then points, then matches) and your line."""
    top, you = await asyncio.to_thread(store.leaderboard, app.engine, length, guest)

    def view(e: store.BoardEntry) -> BoardEntryView:
        s = e.standing
        return BoardEntryView(
            place=e.place, name=e.name, rank=s.code, points=s.points, games=s.games, you=e.guest_id == guest
        )

    return Leaderboard(length=length, top=[view(e) for e in top], you=None if you is None else view(you))
