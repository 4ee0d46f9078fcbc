"""Accounts: profiles, linked e-mail (hashed), one-time codes, coins, cosmetics, match history.

Every rule that must hold under concurrency is enforced by the database, not by reading
first: one check-in per guest and day is the primary key of ``checkins``; a purchase is a
conditional ``UPDATE ... WHERE coins >= price`` (and a CHECK keeps the balance >= 0); owning
an item twice is the primary key of ``owned_items``; a code is spent by a conditional
``UPDATE ... WHERE used = false``.  Every change of coins writes a ``coin_ledger`` row in
the same transaction, so the ledger always sums to the balance.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, and_, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from sanma.store.guests import token_hash
from sanma.store.tables import (
    accounts,
    checkins,
    coin_ledger,
    email_codes,
    guests,
    match_players,
    matches,
    owned_items,
)


class AccountError(Exception):
    """A refused account change; ``code`` is the API's error code."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code


@dataclass(frozen=True, slots=True)
class Account:
    """What an account holds (a guest without a row has the defaults)."""

    guest_id: str
    display_name: str | None
    email_hint: str | None
    coins: int
    tile_back: str | None
    cloth: str | None
    owned: tuple[str, ...]
    last_checkin: date | None
    streak: int


@dataclass(frozen=True, slots=True)
class Checkin:
    """The answer to a check-in: ``granted`` is false when the day was already claimed."""

    granted: bool
    day: date
    coins: int
    streak: int
    balance: int


@dataclass(frozen=True, slots=True)
class LedgerRow:
    """One grant (positive ``delta``) or spend (negative)."""

    delta: int
    reason: str
    item: str | None
    at: datetime


@dataclass(frozen=True, slots=True)
class HistorySeat:
    """Who sat at a seat of a past match: a guest (with its display name, if any) or a bot."""

    seat: int
    guest_id: str | None
    name: str | None
    bot_level: str | None


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """A finished match as one of its players sees it."""

    match_id: str
    kind: str
    rules: dict[str, Any]
    started_at: datetime
    ended_at: datetime
    seat: int
    seats: tuple[HistorySeat, ...]
    result: dict[str, Any]


# -- values --------------------------------------------------------------------------------


def email_hash(email: str) -> str:
    """The stored form of an address (SHA-256 of the normalised text, hex)."""
    return hashlib.sha256(normalise_email(email).encode("utf-8")).hexdigest()


def normalise_email(email: str) -> str:
    """Trimmed and lower-cased (addresses are matched case-insensitively).

    >>> normalise_email("  Ann@Example.ORG ")
    'ann@example.org'
    """
    return email.strip().lower()


def email_hint(email: str) -> str:
    """A masked form to show the owner which address is linked.

    >>> email_hint("annabel@example.org")
    'a***l@example.org'
    """
    local, _, domain = normalise_email(email).partition("@")
    masked = local[0] + "***" + (local[-1] if len(local) > 1 else "")
    return f"{masked}@{domain}"[:64]


def new_code(digits: int = 8) -> str:
    """A one-time code of ``digits`` decimal digits from ``secrets``."""
    return "".join(str(secrets.randbelow(10)) for _ in range(digits))


def _code_hash(salt: str, code: str) -> str:
    return hashlib.sha256(f"{salt}:{code}".encode()).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(moment: datetime) -> datetime:
    # SQLite hands timestamps back without a zone; they were written in UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


# -- the account row -----------------------------------------------------------------------


def _ensure(engine: Engine, guest_id: str) -> None:
    """Create the guest's account row unless it exists (a race is settled by the key)."""
    with engine.connect() as conn:
        if conn.execute(select(accounts.c.guest_id).where(accounts.c.guest_id == guest_id)).first():
            return
    try:
        with engine.begin() as conn:
            conn.execute(insert(accounts).values(guest_id=guest_id, coins=0, created_at=_now()))
    except IntegrityError:
        pass  # someone else created it first


def get_account(engine: Engine, guest_id: str) -> Account:
    """The account of ``guest_id`` (defaults when it never used an account feature)."""
    with engine.connect() as conn:
        row = conn.execute(select(accounts).where(accounts.c.guest_id == guest_id)).mappings().first()
        owned = conn.execute(
            select(owned_items.c.item).where(owned_items.c.guest_id == guest_id).order_by(owned_items.c.bought_at)
        ).scalars()
        owned_ids = tuple(str(i) for i in owned)
        last = conn.execute(
            select(checkins.c.day, checkins.c.streak)
            .where(checkins.c.guest_id == guest_id)
            .order_by(checkins.c.day.desc())
            .limit(1)
        ).first()
    return Account(
        guest_id=guest_id,
        display_name=None if row is None else row["display_name"],
        email_hint=None if row is None else row["email_hint"],
        coins=0 if row is None else int(row["coins"]),
        tile_back=None if row is None else row["tile_back"],
        cloth=None if row is None else row["cloth"],
        owned=owned_ids,
        last_checkin=None if last is None else last[0],
        streak=0 if last is None else int(last[1]),
    )


def display_names(engine: Engine, guest_ids: list[str]) -> dict[str, str | None]:
    """The display name of each of ``guest_ids`` (``None``: none chosen), in one query."""
    names: dict[str, str | None] = dict.fromkeys(guest_ids)
    if not names:
        return names
    with engine.connect() as conn:
        rows = conn.execute(
            select(accounts.c.guest_id, accounts.c.display_name).where(accounts.c.guest_id.in_(list(names)))
        ).all()
    names.update({guest: name for guest, name in rows})
    return names


def set_display_name(engine: Engine, guest_id: str, name: str) -> None:
    """Store an already validated display name."""
    _ensure(engine, guest_id)
    with engine.begin() as conn:
        conn.execute(update(accounts).where(accounts.c.guest_id == guest_id).values(display_name=name))


# -- coins ---------------------------------------------------------------------------------


def check_in(engine: Engine, guest_id: str, day: date, reward: dict[int, int] | None = None) -> Checkin:
    """Claim ``day``'s coins once.  ``reward`` maps a streak to coins (see ``checkin_reward``).

    The insert into ``checkins`` comes first in the transaction: of any number of
    simultaneous calls exactly one gets past the primary key; the others find the day taken."""
    _ensure(engine, guest_id)
    with engine.connect() as conn:
        before = conn.execute(
            select(checkins.c.streak).where(checkins.c.guest_id == guest_id, checkins.c.day == day - timedelta(days=1))
        ).scalar_one_or_none()
    streak = 1 if before is None else int(before) + 1
    coins = checkin_reward(streak)
    try:
        with engine.begin() as conn:
            conn.execute(insert(checkins).values(guest_id=guest_id, day=day, streak=streak, coins=coins))
            conn.execute(
                insert(coin_ledger).values(
                    guest_id=guest_id, delta=coins, reason="checkin", item=None, created_at=_now()
                )
            )
            conn.execute(update(accounts).where(accounts.c.guest_id == guest_id).values(coins=accounts.c.coins + coins))
            balance = _balance(conn, guest_id)
        return Checkin(True, day, coins, streak, balance)
    except IntegrityError:
        with engine.connect() as conn:
            taken = conn.execute(
                select(checkins.c.streak, checkins.c.coins).where(
                    checkins.c.guest_id == guest_id, checkins.c.day == day
                )
            ).one()
            return Checkin(False, day, int(taken[1]), int(taken[0]), _balance(conn, guest_id))


CHECKIN_BASE = 100
CHECKIN_STEP = 20
CHECKIN_MAX_STREAK_BONUS = 6


def checkin_reward(streak: int) -> int:
    """Coins for a check-in on day ``streak`` of a run of consecutive days: 100, then 20 more
    for each further day, up to 220 from the seventh day on.

    >>> [checkin_reward(s) for s in (1, 2, 7, 30)]
    [100, 120, 220, 220]
    """
    return CHECKIN_BASE + CHECKIN_STEP * min(max(streak - 1, 0), CHECKIN_MAX_STREAK_BONUS)


def _balance(conn: Connection, guest_id: str) -> int:
    return int(conn.execute(select(accounts.c.coins).where(accounts.c.guest_id == guest_id)).scalar_one())


def buy(engine: Engine, guest_id: str, item: str, price: int) -> int:
    """Spend ``price`` coins on ``item``; the new balance.  Refused (``AccountError``) with
    ``not_enough_coins`` or ``already_owned``; a refusal changes nothing."""
    _ensure(engine, guest_id)
    try:
        with engine.begin() as conn:
            conn.execute(insert(owned_items).values(guest_id=guest_id, item=item, bought_at=_now()))
            spent = conn.execute(
                update(accounts)
                .where(accounts.c.guest_id == guest_id, accounts.c.coins >= price)
                .values(coins=accounts.c.coins - price)
            )
            if spent.rowcount != 1:
                raise AccountError("not_enough_coins", f"{item} costs {price} coins")
            conn.execute(
                insert(coin_ledger).values(guest_id=guest_id, delta=-price, reason="buy", item=item, created_at=_now())
            )
            return _balance(conn, guest_id)
    except IntegrityError:
        raise AccountError("already_owned", f"{item} is already yours") from None


def equip(engine: Engine, guest_id: str, slot: str, item: str | None) -> None:
    """Wear ``item`` in ``slot`` (``tile_back`` or ``cloth``); ``None``: the default.  The
    caller checks that the item fits the slot and is free or owned (``owns``)."""
    if slot not in ("tile_back", "cloth"):
        raise ValueError(f"unknown slot {slot!r}")
    _ensure(engine, guest_id)
    with engine.begin() as conn:
        conn.execute(update(accounts).where(accounts.c.guest_id == guest_id).values({slot: item}))


def owns(engine: Engine, guest_id: str, item: str) -> bool:
    """Whether ``guest_id`` bought ``item``."""
    with engine.connect() as conn:
        found = conn.execute(
            select(owned_items.c.item).where(owned_items.c.guest_id == guest_id, owned_items.c.item == item)
        ).first()
    return found is not None


def ledger(engine: Engine, guest_id: str) -> list[LedgerRow]:
    """Every grant and spend of the guest, oldest first."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(coin_ledger.c.delta, coin_ledger.c.reason, coin_ledger.c.item, coin_ledger.c.created_at)
            .where(coin_ledger.c.guest_id == guest_id)
            .order_by(coin_ledger.c.id)
        ).all()
    return [LedgerRow(int(d), str(r), i, _aware(at)) for d, r, i, at in rows]


def ledger_sum(engine: Engine, guest_id: str) -> int:
    """The sum of the guest's ledger (equals the balance)."""
    with engine.connect() as conn:
        total = conn.execute(
            select(func.coalesce(func.sum(coin_ledger.c.delta), 0)).where(coin_ledger.c.guest_id == guest_id)
        )
        return int(total.scalar_one())


# -- e-mail codes --------------------------------------------------------------------------


def account_for_email(engine: Engine, email: str) -> str | None:
    """The guest whose account has ``email`` linked, or ``None``."""
    with engine.connect() as conn:
        found = conn.execute(select(accounts.c.guest_id).where(accounts.c.email_hash == email_hash(email))).first()
    return None if found is None else str(found[0])


def store_code(
    engine: Engine,
    purpose: str,
    email: str,
    guest_id: str | None,
    code: str,
    ttl_s: float,
    requester: str | None = None,
) -> None:
    """Keep a salted hash of ``code`` for ``email``: valid ``ttl_s`` seconds, once.  Earlier
    codes of the same purpose and address asked by the same ``requester`` stop working (only
    its latest counts); other askers' codes are left alone (``requester=None``: every earlier
    code stops working)."""
    now = _now()
    salt = secrets.token_hex(16)
    earlier = and_(email_codes.c.purpose == purpose, email_codes.c.email_hash == email_hash(email))
    if requester is not None:
        earlier = and_(earlier, email_codes.c.requester == requester)
    with engine.begin() as conn:
        conn.execute(update(email_codes).where(earlier).values(used=True))
        conn.execute(
            insert(email_codes).values(
                id=uuid.uuid4().hex,
                purpose=purpose,
                email_hash=email_hash(email),
                guest_id=guest_id,
                code_hash=_code_hash(salt, code),
                salt=salt,
                attempts=0,
                used=False,
                expires_at=now + timedelta(seconds=ttl_s),
                created_at=now,
                requester=requester,
            )
        )


_DUMMY_SALT = "0" * 32


def spend_code(
    engine: Engine,
    purpose: str,
    email: str,
    code: str,
    max_attempts: int,
    guest_id: str | None = None,
    requester: str | None = None,
) -> str | None:
    """The guest the code was issued for, when ``code`` is the latest live code of
    ``purpose`` for ``email`` (and, when given, was asked for by ``guest_id``; with
    ``requester``, the latest of the codes that requester asked for: a code is tried and spent
    only by its asker); the code is then spent.  ``None`` otherwise.  Every try counts against
    the code, which dies after ``max_attempts`` tries; the comparison is constant-time."""
    now = _now()
    live = and_(
        email_codes.c.purpose == purpose,
        email_codes.c.email_hash == email_hash(email),
        email_codes.c.used.is_(False),
    )
    if requester is not None:
        live = and_(live, email_codes.c.requester == requester)
    with engine.begin() as conn:
        # Count the try first (a write opens the transaction, so SQLite serialises it at once).
        counted = conn.execute(
            update(email_codes)
            .where(live, email_codes.c.attempts < max_attempts)
            .values(attempts=email_codes.c.attempts + 1)
        )
        row = (
            conn.execute(select(email_codes).where(live).order_by(email_codes.c.created_at.desc()).limit(1))
            .mappings()
            .first()
        )
        if row is None:
            # Compare anyway so that a missing code costs what a wrong one costs.
            hmac.compare_digest(_code_hash(_DUMMY_SALT, code), _code_hash(_DUMMY_SALT, "x"))
            return None
        right = hmac.compare_digest(_code_hash(row["salt"], code), row["code_hash"])
        alive = counted.rowcount >= 1 and int(row["attempts"]) <= max_attempts and _aware(row["expires_at"]) > now
        if not (right and alive) or row["guest_id"] is None:
            return None
        if guest_id is not None and row["guest_id"] != guest_id:
            return None
        spent = conn.execute(
            update(email_codes).where(email_codes.c.id == row["id"], email_codes.c.used.is_(False)).values(used=True)
        )
        return str(row["guest_id"]) if spent.rowcount == 1 else None


def link_email(engine: Engine, guest_id: str, email: str) -> None:
    """Link ``email`` to the guest's account (replacing an earlier link); ``AccountError``
    ``email_taken`` when another account has it (the caller proved it owns the address)."""
    _ensure(engine, guest_id)
    try:
        with engine.begin() as conn:
            conn.execute(
                update(accounts)
                .where(accounts.c.guest_id == guest_id)
                .values(email_hash=email_hash(email), email_hint=email_hint(email))
            )
    except IntegrityError:
        raise AccountError("email_taken", "another account has this address; recover that account instead") from None


def recover(engine: Engine, account_id: str, previous_guest: str | None) -> str:
    """A new token for ``account_id`` (its earlier token stops working: the account moves to
    this browser).  When the browser had another guest without a linked address, that guest's
    finished matches move into the account's history and the guest is retired; its coins and
    cosmetics do not move (else fresh guests could farm check-ins into one account)."""
    token = secrets.token_urlsafe(32)
    with engine.begin() as conn:
        conn.execute(update(guests).where(guests.c.id == account_id).values(token_hash=token_hash(token)))
        if previous_guest is not None and previous_guest != account_id:
            linked = conn.execute(
                select(accounts.c.email_hash).where(accounts.c.guest_id == previous_guest)
            ).scalar_one_or_none()
            if linked is None:
                _absorb(conn, account_id, previous_guest)
    return token


def _absorb(conn: Connection, account_id: str, previous_guest: str) -> None:
    ended = select(matches.c.id).where(matches.c.status == "ended")
    conn.execute(
        update(match_players)
        .where(and_(match_players.c.guest_id == previous_guest, match_players.c.match_id.in_(ended)))
        .values(guest_id=account_id)
    )
    conn.execute(
        update(matches)
        .where(matches.c.guest_id == previous_guest, matches.c.status == "ended")
        .values(guest_id=account_id)
    )
    # Retired: a hash no token has.
    conn.execute(
        update(guests).where(guests.c.id == previous_guest).values(token_hash=token_hash(secrets.token_hex(32)))
    )


# -- history -------------------------------------------------------------------------------


def seats_of(conn: Connection, ids: list[str]) -> dict[str, list[HistorySeat]]:
    """Who sat at each seat of the matches ``ids``, in seat order (one query)."""
    seats: dict[str, list[HistorySeat]] = {i: [] for i in ids}
    if ids:
        for match_id, seat, guest, level, name in conn.execute(
            select(
                match_players.c.match_id,
                match_players.c.seat,
                match_players.c.guest_id,
                match_players.c.bot_level,
                accounts.c.display_name,
            )
            .outerjoin(accounts, accounts.c.guest_id == match_players.c.guest_id)
            .where(match_players.c.match_id.in_(ids))
            .order_by(match_players.c.match_id, match_players.c.seat)
        ):
            seats[match_id].append(HistorySeat(int(seat), guest, name, level))
    return seats


def history(engine: Engine, guest_id: str, limit: int = 50, offset: int = 0) -> list[HistoryEntry]:
    """The guest's finished matches (any seat, practice or room), newest first."""
    with engine.connect() as conn:
        rows = (
            conn.execute(
                select(
                    matches.c.id,
                    matches.c.kind,
                    matches.c.rules,
                    matches.c.created_at,
                    matches.c.updated_at,
                    matches.c.result,
                    func.min(match_players.c.seat).label("seat"),
                )
                .join(match_players, match_players.c.match_id == matches.c.id)
                .where(match_players.c.guest_id == guest_id, matches.c.status == "ended")
                .group_by(
                    matches.c.id,
                    matches.c.kind,
                    matches.c.rules,
                    matches.c.created_at,
                    matches.c.updated_at,
                    matches.c.result,
                )
                .order_by(matches.c.created_at.desc(), matches.c.id)
                .limit(limit)
                .offset(offset)
            )
            .mappings()
            .all()
        )
        seats = seats_of(conn, [r["id"] for r in rows])
    return [
        HistoryEntry(
            match_id=r["id"],
            kind=r["kind"],
            rules=json.loads(r["rules"]),
            started_at=_aware(r["created_at"]),
            ended_at=_aware(r["updated_at"]),
            seat=int(r["seat"]),
            seats=tuple(seats[r["id"]]),
            result={} if r["result"] is None else json.loads(r["result"]),
        )
        for r in rows
    ]


def seat_of(engine: Engine, match_id: str, guest_id: str) -> int | None:
    """The (first) seat ``guest_id`` had in ``match_id``, or ``None``."""
    with engine.connect() as conn:
        seat = conn.execute(
            select(func.min(match_players.c.seat)).where(
                match_players.c.match_id == match_id, match_players.c.guest_id == guest_id
            )
        ).scalar_one_or_none()
    return None if seat is None else int(seat)
