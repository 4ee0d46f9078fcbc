"""Matches and their durable event logs (``match_events``: one row per event, numbered ``v``)."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, func, insert, select, update

from sanma.store.tables import match_events, matches


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One stored match (the log is read separately with ``load_events``)."""

    id: str
    guest_id: str
    kind: str
    rules: dict[str, Any]
    seed: int
    bot_level: str
    human_seat: int
    status: str
    created_at: datetime
    updated_at: datetime


def create_match(
    engine: Engine, *, guest_id: str, rules: dict[str, Any], seed: int, bot_level: str, human_seat: int
) -> MatchRecord:
    """Store a new practice match (status ``playing``, empty log) and return it."""
    now = datetime.now(UTC)
    record = MatchRecord(
        uuid.uuid4().hex, guest_id, "practice", rules, seed, bot_level, human_seat, "playing", now, now
    )
    with engine.begin() as conn:
        conn.execute(
            insert(matches).values(
                id=record.id,
                guest_id=guest_id,
                kind=record.kind,
                rules=json.dumps(rules, sort_keys=True),
                seed=str(seed),
                bot_level=bot_level,
                human_seat=human_seat,
                status=record.status,
                created_at=now,
                updated_at=now,
            )
        )
    return record


def get_match(engine: Engine, match_id: str) -> MatchRecord | None:
    """The match with ``match_id``, or ``None``."""
    if not match_id or len(match_id) > 32:
        return None
    with engine.connect() as conn:
        row = conn.execute(select(matches).where(matches.c.id == match_id)).mappings().first()
    if row is None:
        return None
    return MatchRecord(
        id=row["id"],
        guest_id=row["guest_id"],
        kind=row["kind"],
        rules=json.loads(row["rules"]),
        seed=int(row["seed"]),
        bot_level=row["bot_level"],
        human_seat=int(row["human_seat"]),
        status=row["status"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def append_events(engine: Engine, match_id: str, first_v: int, events: list[dict[str, Any]], *, ended: bool) -> None:
    """Append ``events`` (JSON-ready dicts) as versions ``first_v``, ``first_v + 1``, ...

    The primary key (match, v) makes a second writer of the same version fail instead of
    forking the log.  ``ended`` marks the match over in the same transaction."""
    now = datetime.now(UTC)
    with engine.begin() as conn:
        if events:
            rows = [
                {"match_id": match_id, "v": first_v + i, "event": json.dumps(e, separators=(",", ":"))}
                for i, e in enumerate(events)
            ]
            conn.execute(insert(match_events), rows)
        values: dict[str, Any] = {"updated_at": now}
        if ended:
            values["status"] = "ended"
        conn.execute(update(matches).where(matches.c.id == match_id).values(**values))


def load_events(engine: Engine, match_id: str) -> list[dict[str, Any]]:
    """The whole log of a match, in order (``v`` = index + 1)."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(match_events.c.v, match_events.c.event)
            .where(match_events.c.match_id == match_id)
            .order_by(match_events.c.v)
        ).all()
    out: list[dict[str, Any]] = []
    for expected, (v, text) in enumerate(rows, start=1):
        if v != expected:
            raise ValueError(f"match {match_id}: event log has a gap at v={expected}")
        out.append(json.loads(text))
    return out


def event_count(engine: Engine, match_id: str) -> int:
    """How many events the stored log holds."""
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).where(match_events.c.match_id == match_id)).scalar_one())


def latest_playing(engine: Engine, guest_id: str) -> str | None:
    """The id of the guest's most recent match still being played, if any."""
    with engine.connect() as conn:
        row = conn.execute(
            select(matches.c.id)
            .where(matches.c.guest_id == guest_id, matches.c.status == "playing")
            .order_by(matches.c.created_at.desc())
        ).first()
    return None if row is None else str(row[0])
