"""The WebSocket gateway (``/ws``): validates every frame, authenticates the hello, and
hands answers to the room.  The seat comes from the match the guest owns, never from a
message.  Nothing a client sends can crash the room or the server: a bad frame gets an
``error`` frame and is otherwise ignored.

The work one connection can cause is bounded (``docs/server.md``, "Limits of one connection"):

- frames in are rate-limited per connection; resyncs are served at most ``RESYNC_PER_S`` times
  a second per guest (all its sockets together) and ``RESYNC_PER_ADDRESS_S`` per client
  address, a connection's only once its previous one's frames are written, and the resyncs
  a connection asks meanwhile merge into one;
- frames out wait in a bounded queue: a client that reads too slowly is closed
  (``CLOSE_TOO_SLOW``) instead of holding memory, and reconnects with its last ``v``; the room
  encodes each event once per seat (``rooms/audience.py``), so a frame costs a socket nothing
  but the write, and the writer yields to the event loop after every frame;
- sockets per guest and per client address are capped, and a socket that has not joined a
  match within ``hello_timeout_s`` is closed (``CLOSE_HELLO_TIMEOUT``).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import weakref
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from starlette.websockets import WebSocket, WebSocketDisconnect
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from sanma.server import netaddr, protocol
from sanma.server.limits import TokenBucket
from sanma.server.metrics import Metrics
from sanma.server.protocol import (
    Act,
    CoachToggle,
    Hello,
    NextHand,
    Ping,
    ProtocolError,
    Resume,
    Resync,
    SendStamp,
    ServerFrame,
    Speed,
)
from sanma.server.rooms import Room, RoomRegistry
from sanma.server.rooms.matchlog import StoreSeatRecords
from sanma.server.rooms.table import TableRoom, seating_for
from sanma.server.settings import Settings
from sanma.store.guests import signed_in

log = logging.getLogger(__name__)

# Rate-limited frames in a row before the connection is closed (policy violation).
FLOOD_CLOSE_AFTER = 200
# Resyncs served per second (and at once) per guest, all its sockets together, and per client
# address: a client asks one after a gap, which is rare; more wait, merged into the pending one.
RESYNC_PER_S = 1.0
RESYNC_BURST = 2
RESYNC_PER_ADDRESS_S = 4.0
RESYNC_ADDRESS_BURST = 8
# Marks a text frame that was not UTF-8 (``WebSocketProtocol``; the gateway answers ``bad_frame``).
BAD_UTF8 = "sanma.bad_utf8"


def client_key(websocket: WebSocket, settings: Settings) -> str:
    """The key the per-address socket cap counts on (``netaddr``: the peer, or the client a
    trusted proxy names)."""
    return netaddr.client_key(websocket.scope, settings)


class Connection:
    """One socket's outgoing queue, drained by its own writer task, so that a room can
    push frames without ever waiting for a slow client.  ``push`` never blocks: past
    ``max_queue`` frames waiting, the client is closed as too slow."""

    def __init__(self, websocket: WebSocket, max_queue: int = 1024, metrics: Metrics | None = None) -> None:
        self._ws = websocket
        self.max_queue = max_queue
        self._metrics = metrics
        self.kind = "unjoined"  # then "player" or "watcher" (the sockets gauge, server/metrics.py)
        self.guest: str | None = None  # whose socket, once a hello was accepted (an operator's bar closes it)
        self._queue: collections.deque[ServerFrame] = collections.deque()
        self._ready = asyncio.Event()
        self._ending = False  # close() asked: the writer stops once the queue is empty
        self.dead = False  # no more frames go out (gone, kicked, or too slow)
        self.pushed = 0  # frames queued so far
        self._backlog_end = 0  # ``pushed`` after the last backlog
        self.sent = 0  # frames written so far
        self.kicked: int | None = None  # the close code the server closed it with
        self._progress = asyncio.Event()  # set by the writer after each frame (resync waits on it)
        self._resync_from: int | None = None  # a resync asked for and not served yet
        self._resync_mark = 0  # ``pushed`` after the last served resync: it is written once ``sent`` reaches it
        # The resync allowances this connection draws on (its guest's and its address's, set at join).
        self.resync_buckets: list[TokenBucket] = [TokenBucket(RESYNC_PER_S, RESYNC_BURST)]
        self._resyncer: asyncio.Task[None] | None = None
        self.resyncs = 0  # resyncs served
        self._writer = asyncio.create_task(self._write(), name="ws-writer")
        self._kicker: asyncio.Task[None] | None = None

    def push(self, frame: ServerFrame) -> None:
        """Queue ``frame`` to be sent (a ``protocol.Frame``, or JSON text shared with other connections)."""
        if self.dead:
            return
        if self.behind >= self.max_queue:
            self.kick(protocol.CLOSE_TOO_SLOW, "too slow: reconnect and resume from your last v")
            return
        if isinstance(frame, protocol.Error) and self._metrics is not None:
            self._metrics.socket_error(frame.code)
        self._queue.append(frame)
        self.pushed += 1
        self._ready.set()

    def push_many(self, frames: list[str]) -> None:
        """Queue a backlog (a join's or a resync's events): it does not count against
        ``max_queue`` (the frames are the room's own, shared), the frames after it do."""
        if self.dead or not frames:
            return
        self._queue.extend(frames)
        self.pushed += len(frames)
        self._backlog_end = self.pushed
        self._ready.set()

    @property
    def queued(self) -> int:
        """Frames waiting to be written."""
        return len(self._queue)

    @property
    def behind(self) -> int:
        """Frames waiting that came after the last backlog: how far the client is behind."""
        return len(self._queue) - max(0, self._backlog_end - self.sent)

    async def _write(self) -> None:
        while True:
            while not self._queue:
                if self._ending or self.dead:
                    return
                self._ready.clear()
                await self._ready.wait()
            if self.dead:
                return
            frame = self._queue.popleft()
            try:
                await self._ws.send_text(protocol.encode(frame))
            except Exception:  # the peer went away; the reader notices and cleans up
                self.dead = True
                self._queue.clear()
                return
            self.sent += 1
            self._progress.set()
            # A socket that takes everything never suspends ``send_text``: yield, so that one
            # client's backlog never holds the event loop (the other rooms and sockets run).
            await asyncio.sleep(0)

    def kick(self, code: int, reason: str) -> None:
        """Close the socket with ``code`` now, dropping what is queued (not awaited)."""
        if self.dead:
            return
        self.dead = True
        self.kicked = code
        if self._metrics is not None:
            self._metrics.socket_error(f"close_{code}")
        self._queue.clear()
        self._ready.set()
        self._writer.cancel()  # it may wait on a socket that does not read
        self._kicker = asyncio.create_task(self._close_socket(code, reason), name="ws-kick")

    async def _close_socket(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._ws.close(code=code, reason=reason), timeout=2.0)

    # -- resync: one pending per connection ----------------------------------------------------

    def ask_resync(self, room: Room, from_v: int) -> None:
        """Ask ``room`` for the events from ``from_v`` on again: served once the previous
        resync's frames are written and the connection's resync allowance has a token; the
        resyncs asked meanwhile merge into this one (the earliest ``from_v``)."""
        self._resync_from = from_v if self._resync_from is None else min(self._resync_from, from_v)
        if self._resyncer is None or self._resyncer.done():
            self._resyncer = asyncio.create_task(self._serve_resyncs(room), name="ws-resync")

    async def _serve_resyncs(self, room: Room) -> None:
        while self._resync_from is not None and not self.dead:
            while self.sent < self._resync_mark and not self.dead:
                self._progress.clear()
                await self._progress.wait()
            wait = max(bucket.wait_s() for bucket in self.resync_buckets)
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            from_v, self._resync_from = self._resync_from, None
            if self.dead or room.failed is not None:
                return
            for bucket in self.resync_buckets:
                bucket.take()
            self.resyncs += 1
            room.resync(self, from_v)
            self._resync_mark = self.pushed

    async def close(self) -> None:
        """Flush what is queued (2 s at most), then stop the writer."""
        self._ending = True
        self._ready.set()
        if not self._writer.done():
            await asyncio.wait({self._writer}, timeout=2.0)
        self.dead = True
        for task in (self._writer, self._resyncer):
            if task is not None and not task.done():
                task.cancel()
        if self._kicker is not None and not self._kicker.done():
            await asyncio.wait({self._kicker}, timeout=3.0)


class SocketBook:
    """The open sockets of one app: per client address (from the accept) and per guest (from
    the hello), for the caps; and every live ``Connection`` (tests and benchmarks look)."""

    def __init__(self) -> None:
        self.by_address: collections.Counter[str] = collections.Counter()
        self.by_guest: collections.Counter[str] = collections.Counter()
        self.connections: set[Connection] = set()
        # The resync allowances, per guest and per address (kept while a socket of theirs is open).
        self._resyncs: dict[str, TokenBucket] = {}

    def resync_buckets(self, guest: str, address: str) -> list[TokenBucket]:
        """The shared resync allowances of ``guest`` and of ``address``."""
        found = []
        for key, rate, burst in (
            (f"guest:{guest}", RESYNC_PER_S, RESYNC_BURST),
            (f"address:{address}", RESYNC_PER_ADDRESS_S, RESYNC_ADDRESS_BURST),
        ):
            bucket = self._resyncs.get(key)
            if bucket is None:
                bucket = self._resyncs[key] = TokenBucket(rate, burst)
            found.append(bucket)
        return found

    def drop_guest(self, guest: str) -> None:
        """A joined socket of ``guest`` closed."""
        self._drop(self.by_guest, guest)
        if guest not in self.by_guest:
            self._resyncs.pop(f"guest:{guest}", None)

    def drop_address(self, address: str) -> None:
        """A socket from ``address`` closed."""
        self._drop(self.by_address, address)
        if address not in self.by_address:
            self._resyncs.pop(f"address:{address}", None)

    @staticmethod
    def _drop(counter: collections.Counter[str], key: str) -> None:
        counter[key] -= 1
        if counter[key] <= 0:
            del counter[key]


def close_guest(rooms: RoomRegistry, guest: str) -> int:
    """Close every socket of ``guest`` on this process (``CLOSE_BARRED``: the operator barred
    it; its next hello is refused); how many were open."""
    mine = [conn for conn in socket_book(rooms).connections if conn.guest == guest]
    for conn in mine:
        conn.kick(protocol.CLOSE_BARRED, "barred by the server's operator")
    return len(mine)


_BOOKS: weakref.WeakKeyDictionary[RoomRegistry, SocketBook] = weakref.WeakKeyDictionary()


def socket_kinds(rooms: RoomRegistry) -> dict[str, int]:
    """The app's open sockets by kind: ``unjoined`` (no hello accepted yet), ``player``, ``watcher``."""
    return dict(collections.Counter(conn.kind for conn in socket_book(rooms).connections))


def socket_book(rooms: RoomRegistry) -> SocketBook:
    """The socket book of the app whose registry is ``rooms``."""
    book = _BOOKS.get(rooms)
    if book is None:
        book = _BOOKS[rooms] = SocketBook()
    return book


class _Refused(ProtocolError):
    """A hello refused with a close of the socket (a cap)."""

    def __init__(self, code: str, detail: str, close_code: int) -> None:
        super().__init__(code, detail)
        self.close_code = close_code


async def serve_socket(websocket: WebSocket, settings: Settings, rooms: RoomRegistry) -> None:
    """Run one client connection until it closes."""
    book = socket_book(rooms)
    address = client_key(websocket, settings)
    await websocket.accept()
    if book.by_address[address] >= settings.ws_per_address:
        rooms.metrics.socket_error(f"close_{protocol.CLOSE_TOO_MANY}")
        with contextlib.suppress(Exception):
            await websocket.close(code=protocol.CLOSE_TOO_MANY, reason="too many sockets from this address")
        return
    book.by_address[address] += 1
    conn = Connection(websocket, settings.ws_queue_frames, rooms.metrics)
    book.connections.add(conn)
    bucket = TokenBucket(settings.rate_per_s, settings.rate_burst)
    session = _Session(address=address, per_guest=settings.ws_per_guest)
    flooded = 0
    loop = asyncio.get_running_loop()

    def hello_overdue() -> None:
        if session.guest is None:
            conn.kick(protocol.CLOSE_HELLO_TIMEOUT, f"no hello within {settings.hello_timeout_s:g} s")

    deadline = loop.call_later(settings.hello_timeout_s, hello_overdue)
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            if conn.dead:
                continue  # kicked: wait for the disconnect
            if not bucket.take():
                flooded += 1
                if flooded >= FLOOD_CLOSE_AFTER:
                    conn.kick(protocol.CLOSE_FLOOD, "flood")
                    continue
                retry_ms = max(1, round(bucket.wait_s() * 1000))
                conn.push(protocol.Error(protocol.RATE_LIMITED, "too many frames; slow down", retry_ms=retry_ms))
                continue
            flooded = 0
            text = message.get("text")
            if text is None:
                detail = "a text frame is UTF-8" if message.get(BAD_UTF8) else "only text frames are accepted"
                conn.push(protocol.Error(protocol.BAD_FRAME, detail))
                continue
            try:
                frame = protocol.parse_client_frame(text, settings.max_frame_bytes)
                await _handle(frame, conn, session, rooms, settings, book)
            except _Refused as exc:
                conn.push(protocol.Error(exc.code, exc.detail))
                await conn.close()  # the error frame first
                with contextlib.suppress(Exception):
                    await websocket.close(code=exc.close_code, reason=exc.detail[:120])
                break
            except ProtocolError as exc:
                conn.push(protocol.Error(exc.code, exc.detail))
    except WebSocketDisconnect:
        pass
    finally:
        deadline.cancel()
        if session.room is not None:
            session.room.leave(conn)
        await conn.close()
        book.connections.discard(conn)
        book.drop_address(address)
        if session.guest is not None:
            book.drop_guest(session.guest)


@dataclass(slots=True)
class _Session:
    """What a connection joined: the room and the guest, once a hello was accepted."""

    address: str
    per_guest: int
    room: Room | None = None
    guest: str | None = None


async def _handle(
    frame: protocol.ClientFrame,
    conn: Connection,
    session: _Session,
    rooms: RoomRegistry,
    settings: Settings,
    book: SocketBook,
) -> None:
    """Act on one valid frame (a hello sets the session's room)."""
    room = session.room
    if isinstance(frame, Ping):
        conn.push(protocol.Pong())
        return
    if isinstance(frame, Hello):
        if room is not None:
            raise ProtocolError(protocol.ALREADY_JOINED, "this connection has already joined a match")
        await _join(frame, conn, session, rooms, settings, book)
        return
    if room is None:
        raise ProtocolError(protocol.HELLO_FIRST, "send a hello first")
    if room.failed is not None:
        raise ProtocolError(protocol.ROOM_FAILED, "the match stopped; reconnect to resume")
    if isinstance(frame, Act):
        room.submit(conn, frame.seq, frame.action)
    elif isinstance(frame, Resync):
        conn.ask_resync(room, frame.from_v)
    elif isinstance(frame, Speed):
        room.set_speed(frame.speed)
    elif isinstance(frame, NextHand):
        room.next_hand(conn, frame.v)
    elif isinstance(frame, Resume):
        room.resume(conn)
    elif isinstance(frame, CoachToggle):
        room.set_coach(conn, frame.on)  # the owner's table decides (``no_coach`` in a friend room), even over the bus
    elif isinstance(frame, SendStamp):
        room.send_stamp(conn, frame.stamp)  # the owner's table decides and limits (``docs/rooms.md``, "Stamps")


async def _join(
    hello: Hello, conn: Connection, session: _Session, rooms: RoomRegistry, settings: Settings, book: SocketBook
) -> None:
    engine = rooms.engine
    signed = await asyncio.to_thread(signed_in, engine, hello.token)
    if signed is None:
        raise ProtocolError(protocol.UNAUTHORIZED, "unknown guest token")
    if signed.barred:
        raise _Refused(protocol.BARRED, "this guest was barred by the server's operator", protocol.CLOSE_BARRED)
    guest = signed.id
    if book.by_guest[guest] >= settings.ws_per_guest:
        raise _Refused(protocol.TOO_MANY_SOCKETS, "too many sockets for this guest", protocol.CLOSE_TOO_MANY)
    try:
        room = await rooms.get(hello.match)
    except Exception:  # e.g. a stored log that no longer replays: this match only
        log.exception("match %s could not be rebuilt", hello.match)
        raise ProtocolError(protocol.ROOM_FAILED, "this match could not be resumed") from None
    # The same answer for a match that does not exist and one the guest has no seat in.
    seat = None if room is None else await _seat_of(room, guest, engine)
    if room is not None and seat is None and await _may_watch(room, guest, engine):
        # A friend room's match: watched live, or open hands a hand behind (docs/rooms.md), here or through the bus.
        _count_guest(book, session, guest, room, conn)
        conn.kind = "watcher"
        room.watch(conn, hello.last_v)
        return
    if room is None or seat is None:
        raise ProtocolError(protocol.NO_MATCH, "no such match for this guest")
    if hello.last_v > room.v:
        raise ProtocolError(protocol.BAD_SCHEMA, f"last_v {hello.last_v} is ahead of the match (v={room.v})")
    _count_guest(book, session, guest, room, conn)
    conn.kind = "player"
    room.join(conn, hello.last_v, seat)  # a RemoteRoom passes the seat on to the room's owner


def _count_guest(book: SocketBook, session: _Session, guest: str, room: Room, conn: Connection) -> None:
    if book.by_guest[guest] >= session.per_guest:  # checked again: hellos of one guest may overlap
        raise _Refused(protocol.TOO_MANY_SOCKETS, "too many sockets for this guest", protocol.CLOSE_TOO_MANY)
    book.by_guest[guest] += 1
    session.room, session.guest = room, guest
    conn.guest = guest
    conn.resync_buckets = book.resync_buckets(guest, session.address)


async def _may_watch(room: Room, guest: str, engine: Engine) -> bool:
    """Whether ``guest`` (no seat in the match) may watch it: a friend room's match, unless the
    host removed the guest from its lobby."""
    if not seating_for(room.record.kind).watchable:
        return False
    barred = await asyncio.to_thread(StoreSeatRecords(engine).barred, room.id)
    return guest not in barred


async def _seat_of(room: Room, guest: str, engine: Engine) -> int | None:
    """The guest's seat in the room's match: the seat always comes from the token, never a message."""
    if isinstance(room, TableRoom):
        return room.seat_of_guest(guest)
    seating = seating_for(room.record.kind)
    return await asyncio.to_thread(seating.seat_of_guest, room.record, guest, StoreSeatRecords(engine))


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (websockets, sans-I/O) with two changes for abusive peers
    (``server/serving.py`` serves the app with it):

    - a text frame that is not UTF-8 reaches the app as a message marked ``BAD_UTF8`` (the
      gateway answers ``bad_frame``) instead of a logged traceback per frame;
    - closing a socket whose peer stopped reading (the transport's buffer is full) aborts the
      connection, since a close frame could never be written to it."""

    def send_receive_event_to_app(self) -> None:
        if self.curr_msg_data_type != "text" or self.close_sent:
            super().send_receive_event_to_app()
            return
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        event: Any
        try:
            event = {"type": "websocket.receive", "text": data.decode()}
        except UnicodeDecodeError:
            event = {"type": "websocket.receive", "bytes": bytes(data), BAD_UTF8: True}
        self.queue.put_nowait(event)
        if not self.read_paused:  # as uvicorn's: one message at a time
            self.read_paused = True
            self.transport.pause_reading()

    async def send(self, message: Any) -> None:
        if (
            message.get("type") == "websocket.close"
            and self.handshake_complete
            and not self.close_sent
            and not self.writable.is_set()
        ):
            self.queue.put_nowait({"type": "websocket.disconnect", "code": int(message.get("code", 1000))})
            self.close_sent = True
            self.transport.abort()
            return
        await super().send(message)
