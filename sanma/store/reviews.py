"""The master's reviews (``match_reviews``, migrations 0009 and 0011): asked for, claimed by a
worker, kept once done.

A review is the review of one seat of one ended match, so its key is ``(match_id, seat)``:
asked again it is found, never computed twice.  Its life: ``queued`` (asked) -> ``running``
(a server process claimed it: ``node`` and ``lease_until``, renewed while it runs) ->
``done`` (``result``) or ``failed`` (``error``).  A process that dies leaves its rows
``running`` with a lease that runs out; ``recover`` puts such rows back in the queue, or
marks them failed once they have been started ``max_attempts`` times (a review that kills
its worker must not loop for ever).  A done review records the master that computed it
(``result["reviewer"]``): asked again under another master it is ``outdated`` and computed again.

The queue is fair: a guest has one review unfinished at most, and an address (the asker's
``netaddr.client_key``, kept in ``address``) only a few, so that fresh guests of one address
cannot fill the queue; and ``claim_next`` serves the addresses in turn (the one with the fewest
reviews running or finished in the last ``FAIR_S`` first, the oldest of its reviews first), so a
queue of one address's reviews does not hold back another address's single one.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Literal

from sqlalchemy import Connection, Engine, and_, case, func, insert, or_, select, update

from sanma.store.tables import guests, match_reviews

State = Literal["queued", "running", "done", "failed"]
UNFINISHED: Final = ("queued", "running")
FINISHED: Final = ("done", "failed")
FAIR_S: Final = 600.0
"""The claim serves first the address with the fewest reviews running or finished this long ago
at most (seconds): about ten reviews' time."""


@dataclass(frozen=True, slots=True)
class ReviewRow:
    """One review as stored."""

    match_id: str
    seat: int
    guest_id: str
    address: str | None  # the asker's netaddr.client_key (None: asked before migration 0011)
    state: State
    done: int
    total: int
    attempts: int
    node: str | None
    result: dict[str, Any] | None
    error: str | None
    created_at: datetime
    updated_at: datetime


Refusal = Literal["busy", "address", "full"]


class ReviewRefused(Exception):
    """A review that may not be queued now: ``reason`` is ``busy`` (the guest already has one
    queued or running), ``address`` (its address has ``per_address`` queued or running) or
    ``full`` (the queue holds ``queue_cap`` reviews)."""

    def __init__(self, reason: Refusal, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


# SQLite has no row locks: requests of one process are made one at a time, so that two
# requests of one guest cannot both see "nothing unfinished" (PostgreSQL: the guest's row lock,
# and a lock on the address for two guests of one address).
_REQUESTS = threading.Lock()


def _utc(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)  # SQLite keeps no time zone: it was UTC


def _row(row: Any) -> ReviewRow:
    return ReviewRow(
        match_id=row["match_id"],
        seat=int(row["seat"]),
        guest_id=row["guest_id"],
        address=row["address"],
        state=row["state"],
        done=int(row["done"]),
        total=int(row["total"]),
        attempts=int(row["attempts"]),
        node=row["node"],
        result=None if row["result"] is None else json.loads(row["result"]),
        error=row["error"],
        created_at=_utc(row["created_at"]),
        updated_at=_utc(row["updated_at"]),
    )


def _key(match_id: str, seat: int) -> Any:
    return and_(match_reviews.c.match_id == match_id, match_reviews.c.seat == seat)


def get_review(engine: Engine, match_id: str, seat: int) -> ReviewRow | None:
    """The review of ``seat`` in ``match_id``, or ``None`` (never asked)."""
    with engine.connect() as conn:
        row = conn.execute(select(match_reviews).where(_key(match_id, seat))).mappings().first()
    return None if row is None else _row(row)


def outdated(row: ReviewRow, current: str) -> bool:
    """A done review computed by another master than ``current`` (or stored before results
    named their master): what it says is no longer what the master would say."""
    return row.state == "done" and (row.result or {}).get("reviewer") != current


def request_review(
    engine: Engine,
    match_id: str,
    seat: int,
    guest_id: str,
    *,
    address: str,
    total: int,
    queue_cap: int,
    per_address: int,
    current: str,
) -> tuple[ReviewRow, bool]:
    """The review of ``seat`` in ``match_id`` asked by ``guest_id`` from ``address`` (its
    ``netaddr.client_key``): the stored one when there is one (done, queued or running; a
    failed one, or a done one ``outdated`` against the ``current`` master, is queued again),
    else a new queued row.  ``(row, queued_now)``.  Raises ``ReviewRefused`` when the guest
    already has another review unfinished, the address ``per_address`` of them, or the queue
    is full."""
    with _REQUESTS, engine.begin() as conn:
        conn.execute(select(guests.c.id).where(guests.c.id == guest_id).with_for_update())
        found = conn.execute(select(match_reviews).where(_key(match_id, seat))).mappings().first()
        if found is not None and found["state"] != "failed" and not outdated(_row(found), current):
            return _row(found), False
        _lock_address(conn, address)
        _check_room(conn, guest_id, address, queue_cap, per_address)
        now = datetime.now(UTC)
        values = {"state": "queued", "done": 0, "total": total, "node": None, "lease_until": None, "address": address}
        values |= {"result": None, "error": None, "updated_at": now}
        if found is None:
            conn.execute(
                insert(match_reviews).values(
                    match_id=match_id, seat=seat, guest_id=guest_id, attempts=0, created_at=now, **values
                )
            )
        else:
            conn.execute(update(match_reviews).where(_key(match_id, seat)).values(attempts=0, **values))
        row = conn.execute(select(match_reviews).where(_key(match_id, seat))).mappings().one()
    return _row(row), True


def _lock_address(conn: Connection, address: str) -> None:
    """PostgreSQL: hold ``address``'s lock until the transaction ends, so that two guests of one
    address asking at once in two server processes are counted one after the other."""
    if conn.dialect.name == "postgresql":
        conn.execute(select(func.pg_advisory_xact_lock(func.hashtext(f"sanma-review:{address}"))))


def _check_room(conn: Connection, guest_id: str, address: str, queue_cap: int, per_address: int) -> None:
    unfinished = match_reviews.c.state.in_(UNFINISHED)
    mine = conn.execute(select(func.count()).where(match_reviews.c.guest_id == guest_id, unfinished)).scalar_one()
    if mine:
        raise ReviewRefused("busy", "one review at a time: wait until the one asked for is done")
    here = conn.execute(select(func.count()).where(match_reviews.c.address == address, unfinished)).scalar_one()
    if here >= per_address:
        raise ReviewRefused(
            "address", f"{here} reviews asked from this address are unfinished: ask again once one is done"
        )
    queued = conn.execute(select(func.count()).where(match_reviews.c.state == "queued")).scalar_one()
    if queued >= queue_cap:
        raise ReviewRefused("full", f"{queued} reviews are waiting for a worker: ask again in a minute")


def _served(since: datetime) -> Any:
    """How many reviews of the queued row's address are running or finished since ``since``
    (the reviews asked before migration 0011, of no address, are one address)."""
    other = match_reviews.alias("served")
    recent = or_(other.c.state == "running", and_(other.c.state.in_(FINISHED), other.c.updated_at >= since))
    same = func.coalesce(other.c.address, "") == func.coalesce(match_reviews.c.address, "")
    return select(func.count()).select_from(other).where(same, recent).scalar_subquery()


def claim_next(engine: Engine, node: str, lease_s: float, *, fair_s: float = FAIR_S) -> ReviewRow | None:
    """Take a queued review for ``node`` (``running``, leased for ``lease_s``), or ``None``
    when none is queued: the oldest one of the address with the fewest reviews running or
    finished in the last ``fair_s`` seconds (the addresses in turn).  A row another process
    took first is skipped."""
    for _ in range(5):
        now = datetime.now(UTC)
        with engine.connect() as conn:
            oldest = conn.execute(
                select(match_reviews.c.match_id, match_reviews.c.seat)
                .where(match_reviews.c.state == "queued")
                .order_by(
                    _served(now - timedelta(seconds=fair_s)), match_reviews.c.updated_at, match_reviews.c.match_id
                )
                .limit(1)
            ).first()
        if oldest is None:
            return None
        with engine.begin() as conn:
            took = conn.execute(
                update(match_reviews)
                .where(_key(oldest[0], int(oldest[1])), match_reviews.c.state == "queued")
                .values(
                    state="running",
                    node=node,
                    lease_until=now + timedelta(seconds=lease_s),
                    attempts=match_reviews.c.attempts + 1,
                    done=0,
                    updated_at=now,
                )
            )
            if took.rowcount == 1:
                row = conn.execute(select(match_reviews).where(_key(oldest[0], int(oldest[1])))).mappings().one()
                return _row(row)
    return None


def _mine(match_id: str, seat: int, node: str) -> Any:
    return and_(_key(match_id, seat), match_reviews.c.state == "running", match_reviews.c.node == node)


def renew(engine: Engine, match_id: str, seat: int, node: str, *, done: int, total: int, lease_s: float) -> bool:
    """Record a running review's progress and extend ``node``'s lease; ``False``: ``node``
    no longer holds it (its lease ran out and another process took it over)."""
    now = datetime.now(UTC)
    with engine.begin() as conn:
        hit = conn.execute(
            update(match_reviews)
            .where(_mine(match_id, seat, node))
            .values(done=done, total=total, lease_until=now + timedelta(seconds=lease_s), updated_at=now)
        )
    return bool(hit.rowcount)


def finish(engine: Engine, match_id: str, seat: int, node: str, result: dict[str, Any]) -> bool:
    """Keep a review's result (``done``); ``False`` when ``node`` no longer held it."""
    now = datetime.now(UTC)
    with engine.begin() as conn:
        hit = conn.execute(
            update(match_reviews)
            .where(_mine(match_id, seat, node))
            .values(
                state="done",
                result=json.dumps(result, separators=(",", ":"), ensure_ascii=False),
                done=match_reviews.c.total,
                node=None,
                lease_until=None,
                updated_at=now,
            )
        )
    return bool(hit.rowcount)


def fail(engine: Engine, match_id: str, seat: int, node: str, error: str) -> bool:
    """Mark a review ``failed`` with ``error``; ``False`` when ``node`` no longer held it."""
    with engine.begin() as conn:
        hit = conn.execute(
            update(match_reviews)
            .where(_mine(match_id, seat, node))
            .values(state="failed", error=error[:2000], node=None, lease_until=None, updated_at=datetime.now(UTC))
        )
    return bool(hit.rowcount)


def release(engine: Engine, match_id: str, seat: int, node: str) -> bool:
    """Put a review ``node`` runs back in the queue (the server is stopping): the start it
    had does not count as an attempt."""
    with engine.begin() as conn:
        hit = conn.execute(
            update(match_reviews)
            .where(_mine(match_id, seat, node))
            .values(
                state="queued",
                node=None,
                lease_until=None,
                done=0,
                attempts=case((match_reviews.c.attempts > 0, match_reviews.c.attempts - 1), else_=0),
                updated_at=datetime.now(UTC),
            )
        )
    return bool(hit.rowcount)


def recover(
    engine: Engine, *, max_attempts: int, everything: bool = False, spare: str | None = None
) -> tuple[int, int]:
    """Running reviews whose process is gone (its lease ran out; ``everything``: every running
    one, for a server that is the database's only process and has just started): queued again,
    or ``failed`` once started ``max_attempts`` times.  ``spare``: the asking process, whose own
    reviews are alive whatever their lease says.  ``(queued again, failed)``."""
    now = datetime.now(UTC)
    gone = match_reviews.c.state == "running"
    if not everything:
        gone = and_(gone, or_(match_reviews.c.lease_until.is_(None), match_reviews.c.lease_until < now))
    if spare is not None:
        gone = and_(gone, or_(match_reviews.c.node.is_(None), match_reviews.c.node != spare))
    lapsed = {"node": None, "lease_until": None, "updated_at": now}
    with engine.begin() as conn:
        failed = conn.execute(
            update(match_reviews)
            .where(gone, match_reviews.c.attempts >= max_attempts)
            .values(
                state="failed", error="the server stopped while computing this review, every time it tried", **lapsed
            )
        ).rowcount
        queued = conn.execute(
            update(match_reviews)
            .where(gone, match_reviews.c.attempts < max_attempts)
            .values(state="queued", done=0, **lapsed)
        ).rowcount
    return int(queued), int(failed)


def retry(engine: Engine, match_id: str, seat: int, node: str, *, max_attempts: int, error: str) -> State | None:
    """After ``node``'s worker died under a review: queued again, or ``failed`` with ``error``
    once it has been started ``max_attempts`` times.  The state it is left in (``None``:
    ``node`` no longer held it)."""
    row = get_review(engine, match_id, seat)
    if row is None or row.state != "running" or row.node != node:
        return None
    if row.attempts >= max_attempts:
        return "failed" if fail(engine, match_id, seat, node, error) else None
    with engine.begin() as conn:
        hit = conn.execute(
            update(match_reviews)
            .where(_mine(match_id, seat, node))
            .values(state="queued", node=None, lease_until=None, done=0, updated_at=datetime.now(UTC))
        )
    return "queued" if hit.rowcount else None
