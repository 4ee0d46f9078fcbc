"""Rooms: the live matches of this server process, each run by its own asyncio task.

``RoomRegistry`` creates practice rooms and finds them again; a room not in memory (after
a restart, or after it failed) is rebuilt from the store on first use.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from sqlalchemy import Engine

from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.server.aio import cancel_and_wait
from sanma.server.bus import Bus
from sanma.server.codec import event_to_store, rules_to_json
from sanma.server.metrics import Metrics
from sanma.server.rooms.clock import TurnTimers
from sanma.server.rooms.fairwalls import new_salt
from sanma.server.rooms.host import RoomHost
from sanma.server.rooms.remote import RemoteRoom, Room
from sanma.server.rooms.seating import BotFactory
from sanma.server.rooms.table import TableRoom
from sanma.store import matches as store

__all__ = ["RemoteRoom", "Room", "RoomHost", "RoomRegistry", "TableRoom"]

log = logging.getLogger(__name__)


class RoomRegistry:
    """The rooms of this process, by match id."""

    def __init__(
        self,
        engine: Engine,
        make_bot: BotFactory,
        *,
        bot_delay_s: float,
        bot_budget_s: float,
        host: RoomHost | None = None,
        keep_ended_s: float = 300.0,
        practice_idle_s: float = 600.0,
        metrics: Metrics | None = None,
    ) -> None:
        self._engine = engine
        self._make_bot = make_bot
        self._timing: dict[str, float] = {"bot_delay_s": bot_delay_s, "bot_budget_s": bot_budget_s}
        self._rooms: dict[str, TableRoom] = {}
        self._lock = asyncio.Lock()
        # Rooms whose match ended stay this long (the end panels, late reconnects), then are
        # dropped: a later hello rebuilds them from the store. Keeps memory and the collector's
        # work proportional to the live matches, not to every match ever played here.
        self.keep_ended_s = keep_ended_s
        self._ended_at: dict[str, float] = {}
        # A practice match nobody is connected to leaves memory after this long (0: never): it
        # waits for its player in the store, and the next hello rebuilds it.
        self.practice_idle_s = practice_idle_s
        self._janitor: asyncio.Task[None] | None = None
        # Scale-out (rooms/host.py): which process owns each room; None = this process alone.
        self._host = host
        # The app's instruments (server/metrics.py): the rooms, the host and the sockets count into them.
        self.metrics = metrics or Metrics()
        if host is not None:
            host.bind(self.get, self._lose, self._still_current)
            host.metrics = self.metrics

    @property
    def engine(self) -> Engine:
        """The store's database engine."""
        return self._engine

    @property
    def node(self) -> str:
        """This process's name on the bus ("" without a room host)."""
        return "" if self._host is None else self._host.node

    @property
    def bus(self) -> Bus | None:
        """The bus the server processes share (``None`` without a room host)."""
        return None if self._host is None else self._host.bus

    async def create_practice(
        self, *, guest_id: str, rules: Rules, level: str, human_seat: int, seed: int, timers: TurnTimers | None = None
    ) -> TableRoom:
        """Store a new practice match with its first events, and start its room (``timers``:
        the turn timers the player chose; none by default)."""
        match = Match(seed, rules, salt=new_salt())  # the salt is stored with MatchStarted
        record = await asyncio.to_thread(
            store.create_match,
            self._engine,
            guest_id=guest_id,
            rules=rules_to_json(rules),
            seed=seed,
            bot_level=level,
            human_seat=human_seat,
            timers=None if timers is None else timers.to_json(),
        )
        return await self.open_new(record, match)

    async def open_new(self, record: store.MatchRecord, match: Match) -> TableRoom:
        """Store the first events of the new match ``record`` (``match`` as it starts) and start
        its room here, without reading back what was just written."""
        first = [event_to_store(e) for e in match.events]
        await asyncio.to_thread(store.append_events, self._engine, record.id, 1, first, ended=False)
        self.started(record.id, record.kind, len(first))
        room = await asyncio.to_thread(TableRoom.open, record, match, self._engine, self._make_bot, **self._timing)
        if self._host is not None:
            await self._host.claim(record.id)  # a new id: nobody else can hold its lease
            self._host.serve(room)
        async with self._lock:
            await self._drop_ended()
            self._run(room)
        return room

    async def get(self, match_id: str) -> TableRoom | RemoteRoom | None:
        """The room of ``match_id``, rebuilt from the store when not live (``None``: no such match).
        With a host, a room another live process owns is a ``RemoteRoom``; one nobody owns
        (new, or its owner died) is claimed and rebuilt here."""
        async with self._lock:
            await self._drop_ended()
            room = self._rooms.get(match_id)
            if room is not None and room.failed is None:
                room.touch()  # not idle: a hello joins it now
                return room
            record = await asyncio.to_thread(store.get_match, self._engine, match_id)
            if record is None:
                return None
            if self._host is not None and not await self._host.claim(match_id):
                count = await asyncio.to_thread(store.event_count, self._engine, match_id)
                return await self._host.remote(record, count)
            try:
                stored: list[dict[str, Any]] = await asyncio.to_thread(store.load_events, self._engine, match_id)
                room = await asyncio.to_thread(
                    TableRoom.rebuild, record, stored, self._engine, self._make_bot, **self._timing
                )
            except BaseException:
                if self._host is not None:
                    await self._host.abandon(match_id)
                raise
            if self._host is not None:
                self._host.serve(room)
            self._run(room)
            return room

    def started(self, match_id: str, kind: str, events: int) -> None:
        """A new match of ``kind`` was stored with its first ``events``: counted and logged."""
        self.metrics.appended(events)
        self.metrics.match(kind, "started")
        log.info(
            "room %s: match started (%s)",
            match_id,
            kind,
            extra={"event": "match_started", "match": match_id, "kind": kind},
        )

    def tables(self) -> dict[tuple[str, str], int]:
        """The rooms in memory by ``(kind, state)``: ``playing`` or ``ended``."""
        counts: dict[tuple[str, str], int] = {}
        for room in self._rooms.values():
            key = (room.kind, "ended" if room.match.finished else "playing")
            counts[key] = counts.get(key, 0) + 1
        return counts

    def _run(self, room: TableRoom) -> None:
        room.metrics = self.metrics
        self._rooms[room.id] = room
        self._ended_at.pop(room.id, None)

        def ended(_task: asyncio.Task[None]) -> None:
            if self._rooms.get(room.id) is room and room.failed is None:
                self._ended_at[room.id] = time.monotonic()

        room.start().add_done_callback(ended)

    async def _drop_ended(self) -> None:
        """(Under the lock.) Forget the rooms whose match ended more than ``keep_ended_s`` ago (and give their
        leases back); connections still holding one keep it until they close."""
        cutoff = time.monotonic() - self.keep_ended_s
        for match_id in [m for m, at in self._ended_at.items() if at <= cutoff]:
            del self._ended_at[match_id]
            self._rooms.pop(match_id, None)
            if self._host is not None:
                await self._host.abandon(match_id)

    async def _drop_idle(self) -> None:
        """(Under the lock.) Stop and forget the practice rooms nobody has been connected to for
        ``practice_idle_s`` that wait for their player (everything played is in the store)."""
        if self.practice_idle_s <= 0:
            return
        cutoff = time.monotonic() - self.practice_idle_s
        idle = [
            room
            for room in self._rooms.values()
            if room.seating.leaves_memory_when_idle
            and room.failed is None
            and room.idle_since is not None
            and room.idle_since <= cutoff
            and room.waits_for_humans
        ]
        for room in idle:
            self._rooms.pop(room.id, None)
            self._ended_at.pop(room.id, None)
            await room.stop()
            if self._host is not None:
                await self._host.abandon(room.id)

    async def sweep(self) -> None:
        """Drop the ended rooms past ``keep_ended_s`` and the idle practice rooms (the janitor
        does it every few seconds; a test may call it)."""
        async with self._lock:
            await self._drop_ended()
            await self._drop_idle()

    async def _sweep_forever(self) -> None:
        period = max(0.05, min(30.0, self.practice_idle_s / 4 or 30.0, self.keep_ended_s / 4 or 30.0))
        while True:
            await asyncio.sleep(period)
            try:
                await self.sweep()
            except Exception:
                log.warning("rooms: the sweep failed", exc_info=True)

    async def _still_current(self, match_id: str) -> bool:
        """Whether this process's room of ``match_id`` still holds the whole stored log (its
        lease lapsed, and nobody wrote meanwhile): then it may go on."""
        room = self._rooms.get(match_id)
        if room is None or room.failed is not None:
            return False
        count = await asyncio.to_thread(store.event_count, self._engine, match_id)
        return room.v <= count <= room.v + room.storing

    @property
    def live_count(self) -> int:
        """How many rooms this process holds in memory now."""
        return len(self._rooms)

    def start(self) -> None:
        """Start the host's keeper (server startup; without it, it starts with the first room)
        and the janitor that drops ended and idle rooms."""
        if self._host is not None:
            self._host.start()
        if self._janitor is None:
            self._janitor = asyncio.create_task(self._sweep_forever(), name="rooms-janitor")

    async def _lose(self, match_id: str) -> None:
        """Another process took the room over (this one lost its lease): stop it here, and
        tell its connections, which reconnect and reach the new owner."""
        room = self._rooms.pop(match_id, None)
        self._ended_at.pop(match_id, None)
        if room is not None:
            await room.stop()
            room.fail(RuntimeError("the room moved to another server process"), "the match moved; reconnect to resume")

    async def close(self) -> None:
        """Stop every room task (server shutdown)."""
        await cancel_and_wait(self._janitor)
        rooms, self._rooms = list(self._rooms.values()), {}
        for room in rooms:
            await room.stop()
        if self._host is not None:
            await self._host.close()  # after the rooms stopped: then the leases go
