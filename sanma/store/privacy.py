"""A player's own data: everything held about an account (``export``) and its deletion
(``delete_account``).  docs/accounts.md, "Your data".

An account is one guest id (recovery gives it a new token, never a new id), so every row
that belongs to it is keyed by that id.  Deletion keeps the matches the account sat in, for
the other players' history and replays, but gives its seats to a fresh guest that nobody
can sign in as and that has no name: an anonymous seat.
"""

from __future__ import annotations

import json
import secrets
import uuid
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import Connection, Engine, Select, and_, delete, insert, or_, select, update

from sanma.store.accounts import AccountError, seats_of
from sanma.store.guests import token_hash
from sanma.store.rooms import EMPTY, RoomRecord, room_from_row, seats_to_json
from sanma.store.tables import (
    accounts,
    checkins,
    coin_ledger,
    drills,
    email_codes,
    guests,
    match_players,
    match_reviews,
    match_shares,
    matches,
    owned_items,
    rank_changes,
    ranks,
    rooms,
    saved_logs,
)

EXPORT_FORMAT = "sanma-account-export"
EXPORT_VERSION = 1

# What the export leaves out of the rows it shows, and why (docs/accounts.md says the same).
LEFT_OUT = {
    "guests.token_hash": "the sign-in token's hash: a secret, useless to read",
    "accounts.email_hash": "the lookup form of the linked address; the address itself is never stored",
    "email_codes.code_hash, salt, email_hash": "the codes' secrets",
    "matches.seed": "of a running match it would reveal the wall; an ended match's is in its log download",
    "match_events": "each match's log is its own download (GET /api/matches/{id}/log.jsonl)",
    "other seats' guest ids": "other players' identities: only the names their table shows",
    "saved_logs.opened": "the viewer's answer kept with a log: made again from the log",
    "match_reviews.node, lease_until": "which server process worked on a review",
}


def _iso(value: Any) -> Any:
    """JSON-ready: timestamps in ISO 8601 UTC (SQLite hands them back without a zone)."""
    if isinstance(value, datetime):
        return (value if value.tzinfo is not None else value.replace(tzinfo=UTC)).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value


def _rows(conn: Connection, query: Select[Any]) -> list[dict[str, Any]]:
    return [{k: _iso(v) for k, v in row.items()} for row in conn.execute(query).mappings()]


def _json(text: str | None) -> Any:
    return None if text is None else json.loads(text)


# -- export ---------------------------------------------------------------------------------


def export(engine: Engine, guest_id: str) -> dict[str, Any]:
    """Every row held about ``guest_id``, as one JSON-ready document (``LEFT_OUT``: the
    fields it omits).  Other players appear only as the names their table shows."""
    with engine.connect() as conn:
        guest = _rows(conn, select(guests.c.id, guests.c.created_at).where(guests.c.id == guest_id))
        account = _rows(
            conn,
            select(accounts).where(accounts.c.guest_id == guest_id),
        )
        for row in account:
            row.pop("email_hash", None)
        return {
            "format": EXPORT_FORMAT,
            "version": EXPORT_VERSION,
            "exported_at": _iso(datetime.now(UTC)),
            "guest": guest[0] if guest else {"id": guest_id},
            "account": account[0] if account else None,
            "coin_ledger": _rows(conn, _mine(coin_ledger, guest_id).order_by(coin_ledger.c.id)),
            "checkins": _rows(conn, _mine(checkins, guest_id).order_by(checkins.c.day)),
            "owned_items": _rows(conn, _mine(owned_items, guest_id).order_by(owned_items.c.bought_at)),
            "email_codes": _codes(conn, guest_id),
            "matches": _matches(conn, guest_id),
            "rooms": _rooms(conn, guest_id),
            "match_shares": _rows(conn, _mine(match_shares, guest_id).order_by(match_shares.c.created_at)),
            "saved_logs": _rows(
                conn,
                select(*[c for c in saved_logs.c if c.name != "opened"])
                .where(saved_logs.c.guest_id == guest_id)
                .order_by(saved_logs.c.created_at),
            ),
            "match_reviews": _reviews(conn, guest_id),
            "drills": _rows(conn, _mine(drills, guest_id).order_by(drills.c.day, drills.c.slot)),
            "ranks": _rows(conn, _mine(ranks, guest_id).order_by(ranks.c.length)),
            "rank_changes": _rows(conn, _mine(rank_changes, guest_id).order_by(rank_changes.c.at)),
            "left_out": LEFT_OUT,
        }


def _mine(table: Any, guest_id: str) -> Select[Any]:
    return select(table).where(table.c.guest_id == guest_id)


def _codes_of(guest_id: str) -> Any:
    """The codes issued for the account, and those it asked for (bound to it as requester)."""
    return or_(email_codes.c.guest_id == guest_id, email_codes.c.requester == f"guest:{guest_id}")


def _codes(conn: Connection, guest_id: str) -> list[dict[str, Any]]:
    shown = [email_codes.c[n] for n in ("id", "purpose", "attempts", "used", "expires_at", "created_at")]
    return _rows(conn, select(*shown).where(_codes_of(guest_id)).order_by(email_codes.c.created_at))


def _seated_in(guest_id: str) -> Any:
    return select(match_players.c.match_id).where(match_players.c.guest_id == guest_id)


def _matches(conn: Connection, guest_id: str) -> list[dict[str, Any]]:
    """Each match the account sat in or owns: the stored row (less the seed), every seat as
    its table names it, and which seats were the account's."""
    found = (
        conn.execute(
            select(matches)
            .where(or_(matches.c.id.in_(_seated_in(guest_id)), matches.c.guest_id == guest_id))
            .order_by(matches.c.created_at, matches.c.id)
        )
        .mappings()
        .all()
    )
    seats = {
        match_id: [
            {
                "seat": h.seat,
                "you": h.guest_id == guest_id,
                "name": h.name if h.guest_id else None,
                "bot_level": h.bot_level,
            }
            for h in held
        ]
        for match_id, held in seats_of(conn, [m["id"] for m in found]).items()
    }
    out = []
    for m in found:
        row = {k: _iso(v) for k, v in m.items() if k not in ("seed", "guest_id", "rules", "result", "timers")}
        row |= {"rules": _json(m["rules"]), "result": _json(m["result"]), "timers": _json(m["timers"])}
        row["owner"] = m["guest_id"] == guest_id
        row["seats"] = seats[m["id"]]
        row["your_seats"] = [s["seat"] for s in seats[m["id"]] if s["you"]]
        out.append(row)
    return out


def _rooms_of(conn: Connection, guest_id: str) -> list[RoomRecord]:
    """The rooms the account hosts, sits in or was barred from (ids are hex: no LIKE escapes)."""
    mentioned = f'%"{guest_id}"%'
    rows = conn.execute(
        select(rooms).where(
            or_(rooms.c.host_guest == guest_id, rooms.c.seats.like(mentioned), rooms.c.barred.like(mentioned))
        )
    ).mappings()
    return [r for r in map(room_from_row, rows) if _mentions(r, guest_id)]


def _mentions(room: RoomRecord, guest_id: str) -> bool:
    return room.host_guest == guest_id or room.seat_of(guest_id) is not None or guest_id in room.barred


def _rooms(conn: Connection, guest_id: str) -> list[dict[str, Any]]:
    return [
        {
            "code": r.code,
            "status": r.status,
            "options": r.options,
            "host": r.host_guest == guest_id,
            "seat": r.seat_of(guest_id),
            "barred": guest_id in r.barred,
            "match_id": r.match_id,
            "created_at": _iso(r.created_at),
            "updated_at": _iso(r.updated_at),
        }
        for r in _rooms_of(conn, guest_id)
    ]


def _reviews(conn: Connection, guest_id: str) -> list[dict[str, Any]]:
    shown = [c for c in match_reviews.c if c.name not in ("node", "lease_until", "result")]
    rows = conn.execute(select(*shown, match_reviews.c.result).where(match_reviews.c.guest_id == guest_id)).mappings()
    return [{k: _iso(v) for k, v in r.items() if k != "result"} | {"result": _json(r["result"])} for r in rows]


# -- deletion -------------------------------------------------------------------------------


def running_room_match(engine: Engine, guest_id: str) -> str | None:
    """A room match the account is seated in that has not ended (or a room of its starting one)."""
    with engine.connect() as conn:
        return _running(conn, guest_id)


def _running(conn: Connection, guest_id: str) -> str | None:
    match = conn.execute(
        select(matches.c.id).where(
            matches.c.id.in_(_seated_in(guest_id)), matches.c.status == "playing", matches.c.kind != "practice"
        )
    ).first()
    if match is not None:
        return str(match[0])
    for room in _rooms_of(conn, guest_id):
        if room.status in ("starting", "playing") and room.seat_of(guest_id) is not None:
            return room.match_id or room.code
    return None


def delete_account(engine: Engine, guest_id: str) -> str:
    """Delete the account ``guest_id`` in one transaction; the id of the anonymous guest that
    now holds its seats.  Gone: the profile, linked address, coins and ledger, check-ins,
    cosmetics, codes, share links, kept logs, asked reviews, drills, its ranks and their changes (it
    leaves the leaderboards), its seats in lobbies, the guest
    and its token.  Kept: every match it sat in, with its seats given to a fresh anonymous
    guest (no name, no token).  ``AccountError`` ``match_running`` while it sits in a room
    match that has not ended (the other players' match would lose a seat's owner mid-play);
    ``no_account`` when the guest is already gone."""
    anonymous = uuid.uuid4().hex
    with engine.begin() as conn:
        # PostgreSQL: hold the guest's row, so a review or a kept log asked at this moment waits.
        held = conn.execute(select(guests.c.id).where(guests.c.id == guest_id).with_for_update()).first()
        if held is None:
            raise AccountError("no_account", "no such account")
        running = _running(conn, guest_id)
        if running is not None:
            raise AccountError("match_running", f"finish the room match {running} first")
        conn.execute(
            insert(guests).values(
                id=anonymous, token_hash=token_hash(secrets.token_hex(32)), created_at=datetime.now(UTC)
            )
        )
        conn.execute(update(match_players).where(match_players.c.guest_id == guest_id).values(guest_id=anonymous))
        conn.execute(update(matches).where(matches.c.guest_id == guest_id).values(guest_id=anonymous))
        _leave_rooms(conn, guest_id)
        conn.execute(delete(email_codes).where(_codes_of(guest_id)))
        tables = (match_shares, saved_logs, match_reviews, drills, ranks, rank_changes, coin_ledger, checkins)
        for table in (*tables, owned_items, accounts):
            conn.execute(delete(table).where(table.c.guest_id == guest_id))
        conn.execute(delete(guests).where(guests.c.id == guest_id))
    return anonymous


def _leave_rooms(conn: Connection, guest_id: str) -> None:
    """Out of every lobby or ended room: its seat emptied, off the barred list; a host hands the
    room to the next guest seated after it (as leaving does), and a room left with no guest
    closes.  The version moves on, so a lobby change read before this one is tried again."""
    for room in _rooms_of(conn, guest_id):
        mine = room.seat_of(guest_id)
        seats = [EMPTY if s.guest_id == guest_id else s for s in room.seats]
        start = 0 if mine is None else mine
        heirs = [g for k in (1, 2) if (g := seats[(start + k) % 3].guest_id) is not None]
        same = and_(rooms.c.code == room.code, rooms.c.version == room.version)
        if room.host_guest == guest_id and not heirs:
            conn.execute(delete(rooms).where(same))
            continue
        host = heirs[0] if room.host_guest == guest_id else room.host_guest
        conn.execute(
            update(rooms)
            .where(same)
            .values(
                host_guest=host,
                seats=seats_to_json((seats[0], seats[1], seats[2])),
                barred=json.dumps(sorted(room.barred - {guest_id})),
                version=room.version + 1,
            )
        )


__all__ = ["EXPORT_FORMAT", "EXPORT_VERSION", "LEFT_OUT", "delete_account", "export", "running_room_match"]
