"""What the operator's ``sanma admin matches`` reads: the matches being played, each with its
players and the length of its stored log, in a few queries whatever their number."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, func, select

from sanma.store.tables import match_events, match_players, matches


@dataclass(frozen=True, slots=True)
class LiveMatch:
    """One match being played: ``seats`` holds each seat's guest id or ``bot:<level>``."""

    id: str
    kind: str
    created_at: datetime
    updated_at: datetime
    events: int
    seats: tuple[str, ...]


def playing_matches(engine: Engine, limit: int = 500) -> list[LiveMatch]:
    """The matches whose status is ``playing``, the most recently active first."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(matches.c.id, matches.c.kind, matches.c.created_at, matches.c.updated_at)
            .where(matches.c.status == "playing")
            .order_by(matches.c.updated_at.desc())
            .limit(limit)
        ).all()
        ids = [row[0] for row in rows]
        if not ids:
            return []
        counts: dict[str, int] = dict(
            conn.execute(
                select(match_events.c.match_id, func.count())
                .where(match_events.c.match_id.in_(ids))
                .group_by(match_events.c.match_id)
            ).all()
        )
        seats: dict[str, list[tuple[int, str]]] = {}
        for match_id, seat, guest, level in conn.execute(
            select(
                match_players.c.match_id, match_players.c.seat, match_players.c.guest_id, match_players.c.bot_level
            ).where(match_players.c.match_id.in_(ids))
        ):
            seats.setdefault(match_id, []).append((int(seat), guest or f"bot:{level}"))
    return [
        LiveMatch(
            id=match_id,
            kind=kind,
            created_at=created,
            updated_at=updated,
            events=int(counts.get(match_id, 0)),
            seats=tuple(who for _seat, who in sorted(seats.get(match_id, []))),
        )
        for match_id, kind, created, updated in rows
    ]
