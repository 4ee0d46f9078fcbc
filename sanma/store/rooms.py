"""Friend rooms' lobbies (``rooms``): who sits where, the host, the options, the match once started.

A room changes by read-modify-write: ``save_room`` writes only when the row still has the
version that was read, so two processes (or two requests) changing one room cannot
overwrite each other; the loser reads again and retries (``server/rooms/lobby.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from sanma.store.tables import rooms


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat of a lobby: empty (both ``None``), a guest, or a bot of ``bot_level``."""

    guest_id: str | None = None
    bot_level: str | None = None

    @property
    def empty(self) -> bool:
        """Whether nobody sits here."""
        return self.guest_id is None and self.bot_level is None


EMPTY = Seat()


@dataclass(frozen=True, slots=True)
class RoomRecord:
    """One stored room; ``seats`` has three entries, by seat."""

    code: str
    host_guest: str
    options: dict[str, Any]
    seats: tuple[Seat, Seat, Seat]
    timers: dict[str, Any]
    status: str  # "lobby" | "playing" | "ended"
    match_id: str | None
    version: int
    created_at: datetime
    updated_at: datetime
    barred: frozenset[str] = frozenset()  # guests the host removed: they may not join again

    def without_guest(self, index: int) -> RoomRecord:
        """A copy where the guest at seat ``index`` was removed by the host (and is barred)."""
        guest = self.seats[index].guest_id
        assert guest is not None and guest != self.host_guest
        return replace(self.with_seat(index, EMPTY), barred=self.barred | {guest})

    def seat_of(self, guest_id: str) -> int | None:
        """The seat of ``guest_id`` in this room, or ``None``."""
        for i, seat in enumerate(self.seats):
            if seat.guest_id == guest_id:
                return i
        return None

    def with_seat(self, index: int, seat: Seat) -> RoomRecord:
        """A copy with seat ``index`` replaced."""
        seats = list(self.seats)
        seats[index] = seat
        return replace(self, seats=(seats[0], seats[1], seats[2]))


def seats_to_json(seats: tuple[Seat, ...]) -> str:
    """The stored form of a room's seats (``privacy`` writes it too, when a guest leaves)."""
    out: list[dict[str, str] | None] = []
    for s in seats:
        if s.guest_id is not None:
            out.append({"guest": s.guest_id})
        elif s.bot_level is not None:
            out.append({"bot": s.bot_level})
        else:
            out.append(None)
    return json.dumps(out)


def _seats_from_json(text: str) -> tuple[Seat, Seat, Seat]:
    raw = json.loads(text)
    seats = [EMPTY if s is None else Seat(s.get("guest"), s.get("bot")) for s in raw]
    return seats[0], seats[1], seats[2]


def room_from_row(row: Any) -> RoomRecord:
    """A ``RoomRecord`` from a row of ``rooms`` (``privacy`` reads rows of its own)."""
    return RoomRecord(
        code=row["code"],
        host_guest=row["host_guest"],
        options=json.loads(row["options"]),
        seats=_seats_from_json(row["seats"]),
        timers=json.loads(row["timers"]),
        status=row["status"],
        match_id=row["match_id"],
        version=int(row["version"]),
        created_at=_aware(row["created_at"]),
        updated_at=_aware(row["updated_at"]),
        barred=frozenset(json.loads(row["barred"])),
    )


def _aware(moment: datetime) -> datetime:
    # SQLite hands timestamps back without their zone; they were written in UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def create_room(
    engine: Engine, *, code: str, host_guest: str, options: dict[str, Any], timers: dict[str, Any], host_seat: int = 0
) -> RoomRecord | None:
    """Store a new lobby with the host at ``host_seat``; ``None`` when ``code`` is taken."""
    now = datetime.now(UTC)
    record = RoomRecord(code, host_guest, options, (EMPTY, EMPTY, EMPTY), timers, "lobby", None, 1, now, now)
    record = record.with_seat(host_seat, Seat(host_guest, None))
    try:
        with engine.begin() as conn:
            conn.execute(
                insert(rooms).values(
                    code=code,
                    host_guest=host_guest,
                    options=json.dumps(options, sort_keys=True),
                    seats=seats_to_json(record.seats),
                    timers=json.dumps(timers, sort_keys=True),
                    barred="[]",
                    status=record.status,
                    match_id=None,
                    version=1,
                    created_at=now,
                    updated_at=now,
                )
            )
    except IntegrityError:
        return None
    return record


def get_room(engine: Engine, code: str) -> RoomRecord | None:
    """The room with ``code``, or ``None``."""
    if not code or len(code) > 8:
        return None
    with engine.connect() as conn:
        row = conn.execute(select(rooms).where(rooms.c.code == code)).mappings().first()
    return None if row is None else room_from_row(row)


def all_rooms(engine: Engine, limit: int = 500) -> list[RoomRecord]:
    """The stored rooms, the most recently changed first (``sanma admin rooms``)."""
    with engine.connect() as conn:
        rows = conn.execute(select(rooms).order_by(rooms.c.updated_at.desc()).limit(limit)).mappings().all()
    return [room_from_row(row) for row in rows]


def room_of_match(engine: Engine, match_id: str) -> RoomRecord | None:
    """The room whose match is ``match_id``, or ``None``."""
    with engine.connect() as conn:
        row = conn.execute(select(rooms).where(rooms.c.match_id == match_id)).mappings().first()
    return None if row is None else room_from_row(row)


def save_room(engine: Engine, room: RoomRecord) -> RoomRecord | None:
    """Write ``room`` over the stored row if that row is still at ``room.version``; returns the
    saved record (version + 1, fresh ``updated_at``), or ``None`` when someone changed it first."""
    now = datetime.now(UTC)
    saved = replace(room, version=room.version + 1, updated_at=now)
    with engine.begin() as conn:
        done = conn.execute(
            update(rooms)
            .where(rooms.c.code == room.code, rooms.c.version == room.version)
            .values(
                host_guest=saved.host_guest,
                options=json.dumps(saved.options, sort_keys=True),
                seats=seats_to_json(saved.seats),
                barred=json.dumps(sorted(saved.barred)),
                status=saved.status,
                match_id=saved.match_id,
                version=saved.version,
                updated_at=now,
            )
        )
    return saved if done.rowcount == 1 else None


def delete_room(engine: Engine, code: str, version: int) -> bool:
    """Remove a room still at ``version``; whether it was removed."""
    with engine.begin() as conn:
        done = conn.execute(delete(rooms).where(rooms.c.code == code, rooms.c.version == version))
    return done.rowcount == 1


def touch_match_room(engine: Engine, match_id: str, *, ended: bool) -> None:
    """Mark the room of ``match_id`` active now (and ``ended`` when its match ended)."""
    values: dict[str, Any] = {"updated_at": datetime.now(UTC), "version": rooms.c.version + 1}
    if ended:
        values["status"] = "ended"
    with engine.begin() as conn:
        conn.execute(update(rooms).where(rooms.c.match_id == match_id).values(**values))


def sweep_idle(engine: Engine, idle_s: float, now: datetime | None = None) -> int:
    """Delete the rooms not playing a match that nobody touched for ``idle_s`` seconds; how many."""
    cutoff = (now or datetime.now(UTC)) - timedelta(seconds=idle_s)
    with engine.begin() as conn:
        done = conn.execute(delete(rooms).where(rooms.c.status != "playing", rooms.c.updated_at < cutoff))
    return int(done.rowcount)
