"""Guest identity: a random token handed out once; only its SHA-256 is stored."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Engine, insert, select

from sanma.store.tables import guests


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


def _now() -> datetime:
    return datetime.now(UTC)
