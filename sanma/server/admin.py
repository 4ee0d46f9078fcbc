"""The operator's actions (``sanma admin``; ``docs/server.md``, "Administration"): list the
friend rooms and the matches being played, end a match, close a friend room, bar or unbar a
guest.  Each action writes one log line (event ``admin``: ``action``, ``target``, ``reason``).

Served under ``/admin/`` on the metrics port (``serve_metrics``: loopback by default, never on
the public port) when ``SANMA_ADMIN_TOKEN`` is set, for a request that carries it as a bearer
token.  Everything is in the shared store or goes over the bus, so any process of a group
answers for all of them: a match another process owns is ended by an ``End`` message on its
room's channel (as a player's answer travels), and a bar reaches every process's sockets by a
``Bar`` message on ``ADMIN_CHANNEL``.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
from typing import Any

from sanma.server.aio import cancel_and_wait
from sanma.server.bus import Subscription
from sanma.server.rooms import RoomRegistry, busframes
from sanma.server.rooms.remote import lease_key, room_channel
from sanma.server.ws import close_guest
from sanma.store import guests as guest_store
from sanma.store import matches as match_store
from sanma.store import rooms as room_store
from sanma.store.admin import playing_matches

log = logging.getLogger("sanma.admin")

MAX_REASON = 200  # characters of a reason kept in the log and the store
RETRY_S = 5.0  # between two tries to listen on a bus that does not answer


class AdminError(Exception):
    """An action refused: ``status`` with ``{"error": code, "detail": detail}``."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail


class Admin:
    """The actions, on this process's registry (its store and bus)."""

    def __init__(self, rooms: RoomRegistry, token: str | None) -> None:
        self.rooms = rooms
        self.token = token
        self._listener: asyncio.Task[None] | None = None
        self._sub: Subscription | None = None

    # -- the bus: bars reach every process ------------------------------------------------------

    def start(self) -> None:
        """Listen on ``ADMIN_CHANNEL`` (every process does, admin routes or not), from a task of
        its own: a bus that does not answer yet never holds the server's start-up."""
        if self.rooms.bus is not None and self._listener is None:
            self._listener = asyncio.create_task(self._listen(), name="admin-listener")

    async def _listen(self) -> None:
        bus = self.rooms.bus
        assert bus is not None
        while self._sub is None:
            try:
                self._sub = await bus.pubsub.subscribe(busframes.ADMIN_CHANNEL)
            except Exception as exc:  # Redis is down: the door still checks the store; try again
                log.warning("admin: cannot listen on the bus yet (%s); retrying", type(exc).__name__)
                await asyncio.sleep(RETRY_S)
        async for data in self._sub:
            try:
                message = busframes.parse(data)
            except busframes.BadBusMessage as exc:
                log.warning("admin: bus message refused (%s)", exc)
                continue
            if isinstance(message, busframes.Bar):
                close_guest(self.rooms, message.guest)

    async def close(self) -> None:
        """Stop listening (shutdown)."""
        if self._sub is not None:
            await self._sub.close()
        await cancel_and_wait(self._listener)

    # -- the actions ----------------------------------------------------------------------------

    async def list_rooms(self) -> list[dict[str, Any]]:
        """The stored friend rooms: code, status, host, seats, match."""
        found = await asyncio.to_thread(room_store.all_rooms, self.rooms.engine)
        return [
            {
                "code": room.code,
                "status": room.status,
                "host": room.host_guest,
                "seats": [s.guest_id or (f"bot:{s.bot_level}" if s.bot_level else None) for s in room.seats],
                "match": room.match_id,
                "updated_at": room.updated_at.isoformat(),
            }
            for room in found
        ]

    async def list_matches(self) -> list[dict[str, Any]]:
        """The matches being played: id, kind, events stored, seats, and the process that owns
        the room now (``null``: nobody; the next hello or a keeper rebuilds it)."""
        found = await asyncio.to_thread(playing_matches, self.rooms.engine)
        owners: list[str | None] = [None] * len(found)
        bus = self.rooms.bus
        if bus is not None and found:
            owners = await bus.leases.owners([lease_key(m.id) for m in found])
        return [
            {
                "match": m.id,
                "kind": m.kind,
                "events": m.events,
                "seats": list(m.seats),
                "node": owner,
                "updated_at": m.updated_at.isoformat(),
            }
            for m, owner in zip(found, owners, strict=True)
        ]

    async def end(self, match_id: str, reason: str) -> dict[str, Any]:
        """End a match being played now, wherever its room runs."""
        record = await asyncio.to_thread(match_store.get_match, self.rooms.engine, match_id)
        if record is None:
            raise AdminError(404, "no_match", f"no match {match_id!r}")
        if record.status != "playing":
            raise AdminError(409, "ended", f"match {match_id} has ended already")
        await self._end_match(match_id, reason)
        _logged("end", match_id, reason)
        return {"match": match_id, "ended": True}

    async def _end_match(self, match_id: str, reason: str) -> None:
        bus = self.rooms.bus
        owner = None if bus is None else await bus.leases.owner(lease_key(match_id))
        if bus is not None and owner is not None and owner != self.rooms.node:
            reached = await bus.pubsub.publish(room_channel(match_id), busframes.End(reason).to_wire())
            if reached == 0:
                raise AdminError(503, "unreachable", f"the process owning match {match_id} does not answer; retry")
            return
        room = await self.rooms.get(match_id)  # here, rebuilt from the store if not in memory
        if room is None:
            raise AdminError(404, "no_match", f"no match {match_id!r}")
        room.end_now(reason)

    async def close_room(self, code: str, reason: str) -> dict[str, Any]:
        """Close a friend room: its match (if one is being played) ends, then the room is deleted;
        its players' next look at the lobby finds no room."""
        code = code.strip().upper()
        for _ in range(8):
            room = await asyncio.to_thread(room_store.get_room, self.rooms.engine, code)
            if room is None:
                raise AdminError(404, "no_room", "no such room")
            if room.status == "playing" and room.match_id is not None:
                record = await asyncio.to_thread(match_store.get_match, self.rooms.engine, room.match_id)
                if record is not None and record.status == "playing":
                    await self._end_match(room.match_id, reason)
            if await asyncio.to_thread(room_store.delete_room, self.rooms.engine, room.code, room.version):
                _logged("close", room_ref(code), reason)
                return {"room": code, "closed": True, "match": room.match_id}
        raise AdminError(409, "busy", "the room kept changing; try again")

    async def bar(self, guest: str, reason: str) -> dict[str, Any]:
        """Bar a guest: its token is refused from now on, and its open sockets (on every process) close."""
        if not await asyncio.to_thread(guest_store.bar_guest, self.rooms.engine, guest, reason):
            raise AdminError(404, "no_guest", f"no guest {guest!r}")
        closed = close_guest(self.rooms, guest)
        bus = self.rooms.bus
        if bus is not None:  # the other processes' sockets (this one's listener finds none left)
            await bus.pubsub.publish(busframes.ADMIN_CHANNEL, busframes.Bar(guest).to_wire())
        _logged("bar", guest, reason)
        return {"guest": guest, "barred": True, "sockets_closed_here": closed}

    async def unbar(self, guest: str, reason: str) -> dict[str, Any]:
        """Lift a guest's bar."""
        if not await asyncio.to_thread(guest_store.unbar_guest, self.rooms.engine, guest):
            raise AdminError(404, "not_barred", f"guest {guest!r} is not barred")
        _logged("unbar", guest, reason)
        return {"guest": guest, "barred": False}

    # -- the routes -----------------------------------------------------------------------------

    async def answer(self, method: str, path: str, authorization: str, body: bytes) -> tuple[int, bytes]:
        """Answer one request to ``/admin/...`` (the metrics listener read it): status, JSON body."""
        try:
            self._check_token(authorization)
            status, found = 200, await self._route(method, path.rstrip("/").split("/")[2:], body)
        except AdminError as exc:
            status, found = exc.status, {"error": exc.code, "detail": exc.detail}
        return status, json.dumps(found).encode()

    def _check_token(self, authorization: str) -> None:
        scheme, _, given = authorization.partition(" ")
        if self.token is None or scheme.lower() != "bearer" or not hmac.compare_digest(given.strip(), self.token):
            raise AdminError(401, "unauthorized", "send Authorization: Bearer <SANMA_ADMIN_TOKEN>")

    async def _route(self, method: str, parts: list[str], body: bytes) -> dict[str, Any]:
        match method, parts:
            case "GET", ["rooms"]:
                return {"rooms": await self.list_rooms()}
            case "GET", ["matches"]:
                return {"matches": await self.list_matches()}
            case "POST", ["matches", match_id, "end"]:
                return await self.end(match_id, _reason(body))
            case "POST", ["rooms", code, "close"]:
                return await self.close_room(code, _reason(body))
            case "POST", ["guests", guest, "bar"]:
                return await self.bar(guest, _reason(body))
            case "POST", ["guests", guest, "unbar"]:
                return await self.unbar(guest, _reason(body))
        raise AdminError(404, "not_found", f"no admin route {method} /admin/{'/'.join(parts)}")


def _reason(body: bytes) -> str:
    """The ``reason`` of a request's JSON body (empty when none)."""
    if not body.strip():
        return ""
    try:
        data = json.loads(body)
    except ValueError:
        raise AdminError(400, "bad_json", "the body is not JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("reason", ""), str):
        raise AdminError(400, "bad_schema", 'the body is {"reason": "..."}')
    return str(data.get("reason", ""))[:MAX_REASON]


def room_ref(code: str) -> str:
    """A room as the logs name it: a digest of its code (the code lets anyone join)."""
    return hashlib.sha256(code.encode()).hexdigest()[:10]


def _logged(action: str, target: str, reason: str) -> None:
    log.info(
        "admin: %s %s (%s)",
        action,
        target,
        reason or "no reason given",
        extra={"event": "admin", "action": action, "target": target, "reason": reason},
    )
