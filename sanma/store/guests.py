"""Guest identity: a random token handed out once; only its SHA-256 is stored."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Engine, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from sanma.store.tables import guest_bars, guests


@dataclass(frozen=True, slots=True)
class NewGuest:
    """A guest just created: ``token`` is shown to the browser once and never stored."""

    id: str
    token: str


def token_hash(token: str) -> str:
    """The stored form of a token (SHA-256, hex).

    >>> len(token_hash("abc"))
    64
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_guest(engine: Engine) -> NewGuest:
    """A new guest with a fresh random token (32 bytes, URL-safe)."""
    guest = NewGuest(id=uuid.uuid4().hex, token=secrets.token_urlsafe(32))
    with engine.begin() as conn:
        conn.execute(insert(guests).values(id=guest.id, token_hash=token_hash(guest.token), created_at=_now()))
    return guest


def guest_for_token(engine: Engine, token: str) -> str | None:
    """The id of the guest holding ``token``, or ``None``."""
    if not token or len(token) > 256:
        return None
    with engine.connect() as conn:
        row = conn.execute(select(guests.c.id).where(guests.c.token_hash == token_hash(token))).first()
    return None if row is None else str(row[0])


@dataclass(frozen=True, slots=True)
class SignedIn:
    """The guest a token names, and whether an operator barred it (``sanma admin bar``)."""

    id: str
    barred: bool


def signed_in(engine: Engine, token: str) -> SignedIn | None:
    """The guest holding ``token`` and its bar, in one query; ``None``: no such token."""
    if not token or len(token) > 256:
        return None
    query = (
        select(guests.c.id, guest_bars.c.guest_id)
        .select_from(guests.outerjoin(guest_bars, guest_bars.c.guest_id == guests.c.id))
        .where(guests.c.token_hash == token_hash(token))
    )
    with engine.connect() as conn:
        row = conn.execute(query).first()
    return None if row is None else SignedIn(str(row[0]), row[1] is not None)


def guest_exists(engine: Engine, guest_id: str) -> bool:
    """Whether a guest of this id exists."""
    with engine.connect() as conn:
        return conn.execute(select(guests.c.id).where(guests.c.id == guest_id)).first() is not None


def bar_guest(engine: Engine, guest_id: str, reason: str) -> bool:
    """Bar ``guest_id`` (a guest barred again gets the new reason); ``False``: no such guest."""
    if not guest_exists(engine, guest_id):
        return False
    try:
        with engine.begin() as conn:
            conn.execute(insert(guest_bars).values(guest_id=guest_id, reason=reason, barred_at=_now()))
    except IntegrityError:  # barred already: the newer reason stands
        with engine.begin() as conn:
            conn.execute(update(guest_bars).where(guest_bars.c.guest_id == guest_id).values(reason=reason))
    return True


def unbar_guest(engine: Engine, guest_id: str) -> bool:
    """Lift the bar of ``guest_id``; ``False``: it was not barred."""
    with engine.begin() as conn:
        return conn.execute(delete(guest_bars).where(guest_bars.c.guest_id == guest_id)).rowcount > 0


def _now() -> datetime:
    return datetime.now(UTC)
