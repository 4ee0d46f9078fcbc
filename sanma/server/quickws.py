"""The quick match's front door (``docs/quick.md``): the queue socket ``/ws/quick`` and the
start of a table the matchmaker found (``server/quick.py``).

A player waits on a socket of its own: the first frame queues it (checked here like every
frame on ``/ws``: size, JSON, schema, a rate limit), the socket renews the player's ticket
every second and sends ``queued``, and when the matchmaker publishes the player's table it
sends ``seated`` and closes.  A closed socket gives the ticket up at once; a socket whose
process died leaves a ticket that lapses within ``TICKET_TTL_S`` (or is taken over by the
player's next socket).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any, Final

from starlette.websockets import WebSocket, WebSocketDisconnect

from sanma.engine.match import Match
from sanma.engine.rules import DEFAULT
from sanma.server import netaddr, protocol
from sanma.server.api.deps import Services
from sanma.server.bus import Subscription
from sanma.server.codec import rules_to_json
from sanma.server.limits import TokenBucket
from sanma.server.protocol import ProtocolError
from sanma.server.quick import Matchmaker, Queue, Table, Ticket, guest_channel, new_socket_id
from sanma.server.rooms.clock import TurnTimers
from sanma.server.rooms.fairwalls import new_salt
from sanma.server.rooms.quick import quick_timers
from sanma.store import matches as match_store
from sanma.store import ranks as rank_store
from sanma.store.guests import signed_in
from sanma.store.ladder import LENGTHS, bot_level_for
from sanma.store.matches import SeatPlayer

log = logging.getLogger(__name__)

ALREADY_QUEUED: Final = "already_queued"
QUICK_FAILED: Final = "quick_failed"
MAX_FRAME_BYTES: Final = 1024
KEEP_S: Final = 1.0  # the ticket's renewal and the ``queued`` frames
TAKEN_WAIT_S: Final = 10.0  # how long a socket whose ticket was taken waits for its table


@dataclass(frozen=True, slots=True)
class QueueAsk:
    """The first frame: queue the guest holding ``token`` for a table of ``length`` with or
    without red fives, waiting ``wait_s`` for people."""

    token: str
    length: str
    red_fives: bool
    wait_s: float


class Leave:
    """Leave the queue."""


class Ping:
    """Keep-alive."""


def parse_frame(text: str, wait_choices: tuple[float, ...]) -> QueueAsk | Leave | Ping:
    """Check and read one frame of the queue socket (``ProtocolError``: what is wrong).

    >>> parse_frame('{"t":"queue","token":"x","length":"east","red_fives":true,"wait_s":20}', (20.0,))
    QueueAsk(token='x', length='east', red_fives=True, wait_s=20.0)
    """
    if len(text.encode("utf-8")) > MAX_FRAME_BYTES:
        raise ProtocolError(protocol.TOO_BIG, f"frames are at most {MAX_FRAME_BYTES} bytes")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError(protocol.BAD_JSON, "the frame is not JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError(protocol.BAD_SCHEMA, "a frame is a JSON object")
    kind = data.get("t")
    if kind in ("leave", "ping"):
        if set(data) != {"t"}:
            raise ProtocolError(protocol.BAD_SCHEMA, f"a {kind} frame has no other field")
        return Leave() if kind == "leave" else Ping()
    if kind != "queue":
        raise ProtocolError(protocol.BAD_SCHEMA, f"unknown frame type {kind!r:.20}")
    if set(data) != {"t", "token", "length", "red_fives", "wait_s"}:
        raise ProtocolError(protocol.BAD_SCHEMA, "a queue frame has token, length, red_fives and wait_s")
    token, length, red, wait = data["token"], data["length"], data["red_fives"], data["wait_s"]
    if not isinstance(token, str) or not 0 < len(token) <= 256:
        raise ProtocolError(protocol.BAD_SCHEMA, "token is a non-empty string")
    if length not in LENGTHS:
        raise ProtocolError(protocol.BAD_SCHEMA, f"length is one of {', '.join(LENGTHS)}")
    if not isinstance(red, bool):
        raise ProtocolError(protocol.BAD_SCHEMA, "red_fives is true or false")
    if isinstance(wait, bool) or not isinstance(wait, int | float) or float(wait) not in wait_choices:
        raise ProtocolError(protocol.BAD_SCHEMA, f"wait_s is one of {', '.join(f'{c:g}' for c in wait_choices)}")
    return QueueAsk(token, length, red, float(wait))


def _frame(t: str, **fields: Any) -> str:
    return protocol.wire_text({"t": t, **fields})


class QuickGate:
    """The quick match of one server process: its matchmaker and its queue sockets."""

    def __init__(self, app: Services) -> None:
        self.app = app
        rooms = app.rooms
        assert rooms.bus is not None, "the rooms have a bus (a memory one for a process alone)"
        self.matchmaker = Matchmaker(rooms.bus, rooms.node, self.start_table, tick_s=app.settings.quick_tick_s)
        self.queue: Queue = self.matchmaker.queue
        self.bus = rooms.bus
        self._counted_at = float("-inf")
        self._counts: dict[tuple[str, bool], int] = {}
        self._here: collections.Counter[str] = collections.Counter(dict.fromkeys(LENGTHS, 0))

    def waiting_here(self) -> dict[str, int]:
        """Players waiting on this process's queue sockets, by length (the metrics' gauge)."""
        return dict(self._here)

    async def waiting(self) -> dict[tuple[str, bool], int]:
        """Players waiting per pool (read from the bus at most once a second per process)."""
        now = time.monotonic()
        if now - self._counted_at >= KEEP_S:
            self._counted_at = now
            counts: dict[tuple[str, bool], int] = {}
            for t in await self.queue.tickets():
                counts[t.pool] = counts.get(t.pool, 0) + 1
            self._counts = counts
        return self._counts

    # -- a table ---------------------------------------------------------------------------------

    async def start_table(self, table: Table) -> tuple[str, dict[str, int]]:
        """Store the table's match (``kind="quick"``: its players in random seats, bots of the
        level its ranks call for in the others, the server's timers) with its first events, and
        start its room here.  The players' seats, by guest."""
        app = self.app
        first = table.tickets[0]
        rules = DEFAULT.with_options(length=first.length, red_fives=first.red_fives)
        seats = [0, 1, 2]
        secrets.SystemRandom().shuffle(seats)
        level = bot_level_for([t.rank for t in table.tickets])
        by_guest = {t.guest: seats[i] for i, t in enumerate(table.tickets)}
        players = [SeatPlayer(seat, guest, None) for guest, seat in by_guest.items()]
        players += [SeatPlayer(seat, None, level) for seat in seats[len(table.tickets) :]]
        s = app.settings
        timers = quick_timers(TurnTimers(s.turn_s, s.bank_s, s.timeouts_to_auto, s.away_grace_s), s.quick_abandon_s)
        seed = app.seed_source()
        record = await asyncio.to_thread(
            match_store.create_match,
            app.engine,
            guest_id=first.guest,
            rules=rules_to_json(rules),
            seed=seed,
            bot_level=level if len(table.tickets) < 3 else "none",
            human_seat=by_guest[first.guest],
            kind="quick",
            players=sorted(players, key=lambda p: p.seat),
            timers=timers,
        )
        # The room's task runs from now on, joined or not (the salt: rooms/fairwalls.py).
        await app.rooms.open_new(record, Match(seed, rules, salt=new_salt()))
        log.info(
            "quick match %s: %d players seated",
            record.id,
            len(table.tickets),
            extra={"event": "quick_seated", "match": record.id, "players": len(table.tickets)},
        )
        return record.id, by_guest

    # -- the queue socket ------------------------------------------------------------------------

    async def serve(self, websocket: WebSocket) -> None:
        """Run one queue socket until it closes."""
        await websocket.accept()
        waiter = _Waiter(self, websocket)
        try:
            await waiter.run()
        except WebSocketDisconnect:
            pass
        finally:
            await waiter.done()


class _Waiter:
    """One queue socket: its first frame, then the wait."""

    def __init__(self, gate: QuickGate, websocket: WebSocket) -> None:
        self.gate = gate
        self.ws = websocket
        settings = gate.app.settings
        self.address = netaddr.client_key(websocket.scope, settings)
        self.bucket = TokenBucket(settings.rate_per_s, settings.rate_burst)
        self.ticket: Ticket | None = None
        self.sub: Subscription | None = None
        self.closed = False

    async def send(self, text: str) -> None:
        with contextlib.suppress(Exception):
            await self.ws.send_text(text)

    async def refuse(self, code: str, detail: str) -> None:
        await self.send(protocol.Error(code, detail).encode())

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(Exception):
                await self.ws.close()

    async def receive(self) -> QueueAsk | Leave | Ping | None:
        """The next valid frame (``None``: the socket closed); bad frames are answered here."""
        settings = self.gate.app.settings
        while True:
            message = await self.ws.receive()
            if message["type"] == "websocket.disconnect":
                return None
            if not self.bucket.take():
                await self.refuse(protocol.RATE_LIMITED, "too many frames; slow down")
                continue
            text = message.get("text")
            if text is None:
                await self.refuse(protocol.BAD_FRAME, "only text frames are accepted")
                continue
            try:
                return parse_frame(text, settings.quick_wait_choices)
            except ProtocolError as exc:
                await self.refuse(exc.code, exc.detail)

    async def run(self) -> None:
        settings = self.gate.app.settings
        try:
            first = await asyncio.wait_for(self.receive(), settings.hello_timeout_s)
        except TimeoutError:
            await self.refuse(protocol.BAD_SCHEMA, f"no queue frame within {settings.hello_timeout_s:g} s")
            return await self.close()
        if not isinstance(first, QueueAsk):
            if first is not None:
                await self.refuse(protocol.HELLO_FIRST, "send a queue frame first")
            return await self.close()
        guest = await self.admit(first)
        if guest is None:
            return await self.close()
        if await self.resumed(guest):
            return
        await self.wait(first, guest)

    async def admit(self, ask: QueueAsk) -> str | None:
        """The guest of ``ask``'s token, if it may queue (else the refusal is sent)."""
        signed = await asyncio.to_thread(signed_in, self.gate.app.engine, ask.token)
        if signed is None:
            await self.refuse(protocol.UNAUTHORIZED, "unknown guest token")
            return None
        if signed.barred:
            await self.refuse(protocol.BARRED, "this guest was barred by the server's operator")
            return None
        return signed.id

    async def resumed(self, guest: str) -> bool:
        """A guest with a quick match still being played goes back to it (``seated``)."""
        playing = await asyncio.to_thread(match_store.playing_seat, self.gate.app.engine, guest, "quick")
        if playing is None:
            return False
        await self.seated(*playing)
        return True

    async def seated(self, match_id: str, seat: int) -> None:
        await self.send(_frame("seated", match=match_id, seat=seat))
        await self.close()

    async def wait(self, ask: QueueAsk, guest: str) -> None:
        me = await asyncio.to_thread(rank_store.ranked, self.gate.app.engine, guest, ask.length)
        ticket = Ticket(
            guest,
            ask.length,
            ask.red_fives,
            ask.wait_s,
            time.time(),
            self.address,
            me.rating.mu,
            me.standing.rank,
            new_socket_id(),
            self.gate.app.rooms.node,
        )
        if not await self.gate.queue.join(ticket):
            await self.refuse(ALREADY_QUEUED, "you are already looking for a table on another socket (tab or window)")
            return await self.close()
        self.ticket = ticket
        self.gate._here[ask.length] += 1
        try:
            self.sub = await self.gate.bus.pubsub.subscribe(guest_channel(guest))
            reader = asyncio.create_task(self._read(), name="quick-reader")
            try:
                await self._wait_for_table(ticket, reader)
            finally:
                reader.cancel()
        finally:
            self.gate._here[ask.length] -= 1

    async def _read(self) -> None:
        """The client's frames while it waits: ``leave`` and ``ping``."""
        while True:
            frame = await self.receive()
            if frame is None or isinstance(frame, Leave):
                if frame is not None and self.ticket is not None and await self.gate.queue.leave(self.ticket):
                    self.ticket = None
                    await self.send(_frame("left"))
                await self.close()
                return
            if isinstance(frame, Ping):
                await self.send(protocol.Pong().encode())
            else:
                await self.refuse(protocol.ALREADY_JOINED, "this socket is already queued")

    async def _wait_for_table(self, ticket: Ticket, reader: asyncio.Task[None]) -> None:
        assert self.sub is not None
        while not reader.done():
            await self.send(await self._queued(ticket))
            message: dict[str, Any] | None
            try:
                message = await asyncio.wait_for(self.sub.get(), KEEP_S)
            except TimeoutError:
                if await self.gate.queue.keep(ticket) or reader.done():
                    continue
                message = await self._taken(ticket)
                if message is None:  # it had lapsed (a stall): queue again, as long waited
                    if not await self.gate.queue.join(ticket):
                        await self.refuse(ALREADY_QUEUED, "you are already looking for a table on another socket")
                        return await self.close()
                    continue
            if await self._act(message, ticket):
                return

    async def _taken(self, ticket: Ticket) -> dict[str, Any] | None:
        """The ticket is gone: taken for a table (its message is on its way, or was sent before
        this socket listened: the store has the match) or lapsed.  The matchmaker's message,
        a ``seated`` one made from the store, or ``None`` after ``TAKEN_WAIT_S`` of neither
        (the matchmaker died before storing the match, or nobody took the ticket)."""
        assert self.sub is not None
        for _ in range(round(TAKEN_WAIT_S / KEEP_S)):
            playing = await asyncio.to_thread(match_store.playing_seat, self.gate.app.engine, ticket.guest, "quick")
            if playing is not None:
                return {"kind": "seated", "match": playing[0], "seat": playing[1]}
            with contextlib.suppress(TimeoutError):
                return await asyncio.wait_for(self.sub.get(), KEEP_S)
        return None

    async def _act(self, message: dict[str, Any], ticket: Ticket) -> bool:
        """A message from the matchmaker; whether the wait is over."""
        if message.get("kind") == "seated":
            self.ticket = None
            self.gate.app.rooms.metrics.quick_seated(ticket.length, time.time() - ticket.since)
            await self.seated(str(message["match"]), int(message["seat"]))
            return True
        if message.get("kind") == "failed":
            self.ticket = None
            await self.refuse(QUICK_FAILED, "the table could not be started; queue again")
            await self.close()
            return True
        return False

    async def _queued(self, ticket: Ticket) -> str:
        waiting = (await self.gate.waiting()).get(ticket.pool, 1)
        return _frame(
            "queued",
            length=ticket.length,
            red_fives=ticket.red_fives,
            wait_s=ticket.wait_s,
            waited_s=round(max(0.0, time.time() - ticket.since), 1),
            waiting=max(1, waiting),
        )

    async def done(self) -> None:
        """The socket is closing: its ticket leaves the queue, its subscription ends."""
        if self.ticket is not None:
            with contextlib.suppress(Exception):
                await self.gate.queue.leave(self.ticket)
        if self.sub is not None:
            await self.sub.close()
        await self.close()
