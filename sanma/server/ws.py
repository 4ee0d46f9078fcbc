"""The WebSocket gateway (``/ws``): validates every frame, authenticates the hello, and
hands answers to the room.  The seat comes from the match the guest owns, never from a
message.  Nothing a client sends can crash the room or the server: a bad frame gets an
``error`` frame and is otherwise ignored."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from sanma.server import protocol
from sanma.server.protocol import Act, Hello, Ping, ProtocolError, Resync, Speed, TokenBucket
from sanma.server.rooms import Room, RoomRegistry
from sanma.server.rooms.table import TableRoom
from sanma.server.settings import Settings
from sanma.store import rooms as room_store
from sanma.store.guests import guest_for_token
from sanma.store.matches import players_of

log = logging.getLogger(__name__)

# Rate-limited frames in a row before the connection is closed (policy violation).
FLOOD_CLOSE_AFTER = 200


class Connection:
    """One socket's outgoing queue, drained by its own writer task, so that a room can
    push frames without ever waiting for a slow client."""

    def __init__(self, websocket: WebSocket) -> None:
        self._ws = websocket
        self._queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._writer = asyncio.create_task(self._write())

    def push(self, frame: dict[str, Any]) -> None:
        """Queue ``frame`` to be sent."""
        self._queue.put_nowait(frame)

    async def _write(self) -> None:
        while (frame := await self._queue.get()) is not None:
            try:
                await self._ws.send_text(json.dumps(frame, separators=(",", ":")))
            except Exception:  # the peer went away; the reader notices and cleans up
                return

    async def close(self) -> None:
        """Flush what is queued, then stop the writer."""
        self._queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._writer, timeout=2.0)


async def serve_socket(websocket: WebSocket, settings: Settings, rooms: RoomRegistry) -> None:
    """Run one client connection until it closes."""
    await websocket.accept()
    conn = Connection(websocket)
    bucket = TokenBucket(settings.rate_per_s, settings.rate_burst)
    room: Room | None = None
    flooded = 0
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            if not bucket.take():
                flooded += 1
                if flooded >= FLOOD_CLOSE_AFTER:
                    await websocket.close(code=1008)
                    break
                conn.push(protocol.error_frame(protocol.RATE_LIMITED, "too many frames; slow down"))
                continue
            flooded = 0
            text = message.get("text")
            if text is None:
                conn.push(protocol.error_frame(protocol.BAD_FRAME, "only text frames are accepted"))
                continue
            try:
                frame = protocol.parse_client_frame(text, settings.max_frame_bytes)
                room = await _handle(frame, conn, room, rooms)
            except ProtocolError as exc:
                conn.push(protocol.error_frame(exc.code, exc.detail))
    except WebSocketDisconnect:
        pass
    finally:
        if room is not None:
            room.leave(conn)
        await conn.close()


async def _handle(frame: protocol.ClientFrame, conn: Connection, room: Room | None, rooms: RoomRegistry) -> Room | None:
    """Act on one valid frame; returns the connection's room (set by a hello)."""
    if isinstance(frame, Ping):
        conn.push({"t": "pong"})
        return room
    if isinstance(frame, Hello):
        if room is not None:
            raise ProtocolError(protocol.ALREADY_JOINED, "this connection has already joined a match")
        return await _join(frame, conn, rooms)
    if room is None:
        raise ProtocolError(protocol.HELLO_FIRST, "send a hello first")
    if room.failed is not None:
        raise ProtocolError(protocol.ROOM_FAILED, "the match stopped; reconnect to resume")
    if isinstance(frame, Act):
        room.submit(conn, frame.seq, frame.action)
    elif isinstance(frame, Resync):
        room.resync(conn, frame.from_v)
    elif isinstance(frame, Speed):
        room.set_speed(frame.speed)
    return room


async def _join(hello: Hello, conn: Connection, rooms: RoomRegistry) -> Room:
    engine = rooms.engine
    guest = await asyncio.to_thread(guest_for_token, engine, hello.token)
    if guest is None:
        raise ProtocolError(protocol.UNAUTHORIZED, "unknown guest token")
    try:
        room = await rooms.get(hello.match)
    except Exception:  # e.g. a stored log that no longer replays: this match only
        log.exception("match %s could not be rebuilt", hello.match)
        raise ProtocolError(protocol.ROOM_FAILED, "this match could not be resumed") from None
    # The same answer for a match that does not exist and one the guest has no seat in.
    seat = None if room is None else await _seat_of(room, guest, engine)
    if room is not None and seat is None and room.record.kind == "room" and not await _removed(room, guest, engine):
        # A friend room's match: watched a hand behind (docs/rooms.md), here or through the bus.
        room.watch(conn, hello.last_v)
        return room
    if room is None or seat is None:
        raise ProtocolError(protocol.NO_MATCH, "no such match for this guest")
    if hello.last_v > room.v:
        raise ProtocolError(protocol.BAD_SCHEMA, f"last_v {hello.last_v} is ahead of the match (v={room.v})")
    room.join(conn, hello.last_v, seat)  # a RemoteRoom passes the seat on to the room's owner
    return room


async def _removed(room: Room, guest: str, engine: Any) -> bool:
    """Whether the host removed ``guest`` from the lobby of this friend room's match: such a
    guest may not watch it either."""
    lobby = await asyncio.to_thread(room_store.room_of_match, engine, room.id)
    return lobby is not None and guest in lobby.barred


async def _seat_of(room: Any, guest: str, engine: Any) -> int | None:
    """The guest's seat in the room's match: the seat always comes from the token, never a message."""
    if isinstance(room, TableRoom):
        seat: int | None = room.seat_of_guest(guest)
        return seat
    record = room.record
    if record.kind != "room":
        return int(record.human_seat) if record.guest_id == guest else None
    players = await asyncio.to_thread(players_of, engine, record.id)
    return next((p.seat for p in players if p.guest_id == guest), None)
