"""Matches and their durable event logs (``match_events``: one row per event, numbered ``v``)."""

from __future__ import annotations

import json
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    LargeBinary,
    cast,
    delete,
    func,
    insert,
    literal,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from sanma.store import ranks, stats
from sanma.store.tables import accounts, guests, match_events, match_players, match_shares, matches, saved_logs


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
    timers: dict[str, Any] | None = None  # a practice match's chosen turn timers


@dataclass(frozen=True, slots=True)
class SeatPlayer:
    """Who sits at ``seat``: a guest (``guest_id``) or a bot (``bot_level``)."""

    seat: int
    guest_id: str | None
    bot_level: str | None


def create_match(
    engine: Engine,
    *,
    guest_id: str,
    rules: dict[str, Any],
    seed: int,
    bot_level: str,
    human_seat: int,
    kind: str = "practice",
    players: list[SeatPlayer] | None = None,
    timers: dict[str, Any] | None = None,
) -> MatchRecord:
    """Store a new match (status ``playing``, empty log) and return it.

    ``guest_id`` owns the match (the practice player, a room's host) and sits at
    ``human_seat``; ``players`` says who sits at each seat (default: the owner at
    ``human_seat``, bots of ``bot_level`` elsewhere)."""
    now = datetime.now(UTC)
    record = MatchRecord(
        uuid.uuid4().hex, guest_id, kind, rules, seed, bot_level, human_seat, "playing", now, now, timers
    )
    if players is None:
        players = [
            SeatPlayer(s, guest_id, None) if s == human_seat else SeatPlayer(s, None, bot_level) for s in range(3)
        ]
    if sorted(p.seat for p in players) != [0, 1, 2] or any(
        (p.guest_id is None) == (p.bot_level is None) for p in players
    ):
        raise ValueError("players: one per seat 0, 1, 2, each a guest or a bot")
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
                timers=None if timers is None else json.dumps(timers, sort_keys=True),
            )
        )
        conn.execute(
            insert(match_players),
            [
                {"match_id": record.id, "seat": p.seat, "guest_id": p.guest_id, "bot_level": p.bot_level}
                for p in players
            ],
        )
        if kind == "quick":  # every player has a ladder row before the end updates it
            ranks.ensure(conn, [p.guest_id for p in players if p.guest_id is not None], rules["length"], now)
    return record


def players_of(engine: Engine, match_id: str) -> list[SeatPlayer]:
    """Who sits where in a match, by seat."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(match_players.c.seat, match_players.c.guest_id, match_players.c.bot_level)
            .where(match_players.c.match_id == match_id)
            .order_by(match_players.c.seat)
        ).all()
    return [SeatPlayer(int(seat), guest, level) for seat, guest, level in rows]


def result_of(engine: Engine, match_id: str) -> dict[str, Any] | None:
    """A finished match's result (``points``, ``placements``, ``final_scores`` by seat), else ``None``."""
    with engine.connect() as conn:
        text = conn.execute(select(matches.c.result).where(matches.c.id == match_id)).scalar_one_or_none()
    return None if text is None else dict(json.loads(text))


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
        timers=None if row["timers"] is None else json.loads(row["timers"]),
    )


def append_events(
    engine: Engine,
    match_id: str,
    first_v: int,
    events: list[dict[str, Any]],
    *,
    ended: bool,
    abandoned: frozenset[int] = frozenset(),
) -> None:
    """Append ``events`` (JSON-ready dicts) as versions ``first_v``, ``first_v + 1``, ...

    The primary key (match, v) makes a second writer of the same version fail instead of
    forking the log.  ``ended`` marks the match over in the same transaction, with its result
    taken from the ``MatchEnded`` event among ``events`` and its seats' summaries
    (``stats.write_summary``) read from the whole log, and a quick match's rank changes
    (``ranks.settle``; ``abandoned``: the human seats whose players were gone at the end)."""
    now = datetime.now(UTC)
    with engine.begin() as conn:
        if events:
            rows = [
                {"match_id": match_id, "v": first_v + i, "event": json.dumps(e, separators=(",", ":"))}
                for i, e in enumerate(events)
            ]
            conn.execute(insert(match_events), rows)
        values: dict[str, Any] = {"updated_at": now}
        final = [e for e in events if e.get("t") == "MatchEnded"] if ended else []
        if ended:
            values["status"] = "ended"
        if final:
            result = {k: final[-1][k] for k in ("points", "placements", "final_scores")}
            values["result"] = json.dumps(result, separators=(",", ":"))
        conn.execute(update(matches).where(matches.c.id == match_id).values(**values))
        if final:
            # Each seat's statistics row and a quick match's rank changes, in this transaction:
            # an ended match has its rows, once.
            stats.write_summary(conn, match_id, now)
            ranks.settle(conn, match_id, now, abandoned)


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
    """The id of the most recent match still being played in which the guest has a seat
    (a practice match, or a friend room's match whoever hosts it), if any."""
    with engine.connect() as conn:
        row = conn.execute(
            select(matches.c.id)
            .join(match_players, match_players.c.match_id == matches.c.id)
            .where(match_players.c.guest_id == guest_id, matches.c.status == "playing")
            .order_by(matches.c.created_at.desc())
        ).first()
    return None if row is None else str(row[0])


def playing_seat(engine: Engine, guest_id: str, kind: str) -> tuple[str, int] | None:
    """The most recent match of ``kind`` still being played in which the guest has a seat, with
    that seat (``None``: none)."""
    with engine.connect() as conn:
        row = conn.execute(
            select(matches.c.id, match_players.c.seat)
            .join(match_players, match_players.c.match_id == matches.c.id)
            .where(match_players.c.guest_id == guest_id, matches.c.status == "playing", matches.c.kind == kind)
            .order_by(matches.c.created_at.desc())
        ).first()
    return None if row is None else (str(row[0]), int(row[1]))


def playing_among(engine: Engine, match_ids: list[str]) -> set[str]:
    """Those of ``match_ids`` still being played (the creation meters count them)."""
    if not match_ids:
        return set()
    with engine.connect() as conn:
        rows = conn.execute(select(matches.c.id).where(matches.c.id.in_(match_ids), matches.c.status == "playing"))
        return {str(r[0]) for r in rows}


def mark_coached(engine: Engine, match_id: str) -> None:
    """Mark a practice match as coached (its player turned the coach on at least once;
    migration 0014): once, idempotent; the statistics keep such matches apart."""
    with engine.begin() as conn:
        conn.execute(update(matches).where(matches.c.id == match_id, matches.c.coached.is_(False)).values(coached=True))


def coached_among(engine: Engine, match_ids: list[str]) -> set[str]:
    """Those of ``match_ids`` that were coached (the history marks them)."""
    if not match_ids:
        return set()
    with engine.connect() as conn:
        rows = conn.execute(select(matches.c.id).where(matches.c.id.in_(match_ids), matches.c.coached.is_(True)))
        return {str(r[0]) for r in rows}


# -- shared replays and saved logs (migration 0007) ------------------------------------------


def share_match(engine: Engine, match_id: str, guest_id: str) -> str:
    """The share id of ``guest_id``'s link to ``match_id``, made on the first call (128 random
    bits: the link is the only key, so it must not be guessable).  Sharing again gives the same
    link; a race of two first calls keeps one (the unique constraint)."""
    for _ in range(2):
        found = _share_of(engine, match_id, guest_id)
        if found is not None:
            return found
        share = secrets.token_hex(16)
        try:
            with engine.begin() as conn:
                conn.execute(
                    insert(match_shares).values(
                        id=share, match_id=match_id, guest_id=guest_id, created_at=datetime.now(UTC)
                    )
                )
            return share
        except IntegrityError:
            continue  # the other call won: read its id
    raise RuntimeError("share_match: no row after two tries")


def _share_of(engine: Engine, match_id: str, guest_id: str) -> str | None:
    with engine.connect() as conn:
        found = conn.execute(
            select(match_shares.c.id).where(match_shares.c.match_id == match_id, match_shares.c.guest_id == guest_id)
        ).scalar_one_or_none()
    return None if found is None else str(found)


def unshare_match(engine: Engine, match_id: str, guest_id: str) -> bool:
    """Stop sharing: the link stops working.  Whether there was one."""
    with engine.begin() as conn:
        gone = conn.execute(
            delete(match_shares).where(match_shares.c.match_id == match_id, match_shares.c.guest_id == guest_id)
        )
    return bool(gone.rowcount)


def shared_match(engine: Engine, share_id: str) -> tuple[str, str] | None:
    """``(match_id, guest_id)`` of a share link, or ``None``."""
    if not share_id or len(share_id) > 32:
        return None
    with engine.connect() as conn:
        row = conn.execute(
            select(match_shares.c.match_id, match_shares.c.guest_id).where(match_shares.c.id == share_id)
        ).first()
    return None if row is None else (str(row[0]), str(row[1]))


class LogQuotaExceeded(Exception):
    """A guest's kept logs are at their cap: ``what`` says which (how many, or how many bytes)
    and ``limit`` is that cap."""

    def __init__(self, what: Literal["count", "bytes"], limit: int) -> None:
        super().__init__(f"kept logs are at their cap of {limit} ({what})")
        self.what: Literal["count", "bytes"] = what
        self.limit = limit


@dataclass(frozen=True, slots=True)
class SavedLog:
    """An opened tenhou.net/6 log a player kept: ``log`` is the text as sent, ``opened`` the
    viewer's answer zlib-compressed (``None`` for a row kept before migration 0010)."""

    id: str
    title: str
    preset: str
    log: str
    created_at: datetime
    opened: bytes | None


@dataclass(frozen=True, slots=True)
class SavedLogItem:
    """One line of a guest's kept logs: no text, no answer (``size`` is what it costs the quota)."""

    id: str
    title: str
    preset: str
    created_at: datetime
    size: int


def save_log(
    engine: Engine,
    guest_id: str,
    *,
    title: str,
    preset: str,
    log: str,
    opened: bytes | None = None,
    max_count: int | None = None,
    max_bytes: int | None = None,
) -> SavedLog:
    """Keep an opened log in ``guest_id``'s history, within the guest's caps (``None``: no cap)
    on how many logs and how many bytes (texts plus answers) are kept.  Raises
    ``LogQuotaExceeded`` past either; the check and the insert are one transaction, so two
    saves at once cannot both pass the cap."""
    saved = SavedLog(uuid.uuid4().hex, title[:200], preset, log, datetime.now(UTC), opened)
    size = _cost(log, opened)
    if max_bytes is not None and size > max_bytes:
        raise LogQuotaExceeded("bytes", max_bytes)
    with engine.begin() as conn:
        _lock_guest(conn, guest_id)
        values: dict[str, Any] = {"id": saved.id, "guest_id": guest_id, "title": saved.title, "preset": preset}
        values |= {"log": log, "created_at": saved.created_at, "opened": opened, "size": size}
        source = select(*(literal(v, saved_logs.c[k].type).label(k) for k, v in values.items()))
        mine = saved_logs.c.guest_id == guest_id
        if max_count is not None:
            source = source.where(select(func.count()).where(mine).scalar_subquery() < max_count)
        if max_bytes is not None:
            used = select(func.coalesce(func.sum(saved_logs.c.size), 0)).where(mine).scalar_subquery()
            source = source.where(used + size <= max_bytes)
        # RETURNING, not the row count: psycopg counts -1 rows for an INSERT ... SELECT.
        done = conn.execute(insert(saved_logs).from_select(list(values), source).returning(saved_logs.c.id)).first()
        if done is None:
            raise _which_cap(conn, guest_id, max_count, max_bytes)
    return saved


def _cost(log: str, opened: bytes | None) -> int:
    return len(log.encode()) + len(opened or b"")


def _lock_guest(conn: Connection, guest_id: str) -> None:
    # PostgreSQL: saves of one guest queue on the guest's row, so each one's check sees the
    # rows the one before committed.  SQLite has no row locks and needs none here: the check
    # and the insert are one INSERT ... SELECT, which holds the database's write lock from its
    # first read (and a plain SELECT first would only open a read that a writer may outdate).
    if conn.dialect.name != "sqlite":
        conn.execute(select(guests.c.id).where(guests.c.id == guest_id).with_for_update())


def _which_cap(conn: Connection, guest_id: str, max_count: int | None, max_bytes: int | None) -> LogQuotaExceeded:
    count = conn.execute(select(func.count()).where(saved_logs.c.guest_id == guest_id)).scalar_one()
    if max_count is not None and count >= max_count:
        return LogQuotaExceeded("count", max_count)
    assert max_bytes is not None, "the insert was refused by one of the two caps"
    return LogQuotaExceeded("bytes", max_bytes)


def saved_logs_of(engine: Engine, guest_id: str) -> list[SavedLogItem]:
    """The logs ``guest_id`` kept, newest first, without their texts or answers."""
    columns = [saved_logs.c[name] for name in ("id", "title", "preset", "created_at", "size")]
    with engine.connect() as conn:
        rows = conn.execute(
            select(*columns).where(saved_logs.c.guest_id == guest_id).order_by(saved_logs.c.created_at.desc())
        ).all()
    return [SavedLogItem(str(i), str(t), str(p), _utc(at), int(size)) for i, t, p, at, size in rows]


def saved_log(engine: Engine, log_id: str, guest_id: str) -> SavedLog | None:
    """One kept log of ``guest_id``, or ``None`` (another player's is ``None`` too)."""
    if not log_id or len(log_id) > 32:
        return None
    with engine.connect() as conn:
        row = (
            conn.execute(select(saved_logs).where(saved_logs.c.id == log_id, saved_logs.c.guest_id == guest_id))
            .mappings()
            .first()
        )
    if row is None:
        return None
    opened = None if row["opened"] is None else bytes(row["opened"])  # psycopg answers a memoryview
    return SavedLog(row["id"], row["title"], row["preset"], row["log"], _utc(row["created_at"]), opened)


def store_opened(engine: Engine, log_id: str, guest_id: str, opened: bytes) -> None:
    """Keep the viewer's answer of a log kept before migration 0010 (its size grows by the
    answer's; a later quota check counts it).  Another guest's log is left alone."""
    with engine.begin() as conn:
        conn.execute(
            update(saved_logs)
            .where(saved_logs.c.id == log_id, saved_logs.c.guest_id == guest_id)
            .values(opened=opened, size=_text_bytes(conn) + len(opened))
        )


def _text_bytes(conn: Connection) -> ColumnElement[int]:
    # Bytes, not characters (the quota counts what is stored); a text-to-bytea cast in
    # PostgreSQL would read backslashes as escapes, so it has its own function.
    if conn.dialect.name == "sqlite":
        return func.length(cast(saved_logs.c.log, LargeBinary))
    return func.octet_length(saved_logs.c.log)


def delete_saved_log(engine: Engine, log_id: str, guest_id: str) -> bool:
    """Forget a kept log; whether it existed."""
    with engine.begin() as conn:
        gone = conn.execute(delete(saved_logs).where(saved_logs.c.id == log_id, saved_logs.c.guest_id == guest_id))
    return bool(gone.rowcount)


def _utc(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)  # SQLite keeps no time zone: it was UTC


def seat_labels(engine: Engine, match_id: str) -> list[tuple[int, str | None, str | None]]:
    """``(seat, display name, bot level)`` of each seat of a match (a guest without a chosen
    name has ``None`` for both)."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(match_players.c.seat, accounts.c.display_name, match_players.c.bot_level)
            .outerjoin(accounts, accounts.c.guest_id == match_players.c.guest_id)
            .where(match_players.c.match_id == match_id)
            .order_by(match_players.c.seat)
        ).all()
    return [(int(seat), name, level) for seat, name, level in rows]
