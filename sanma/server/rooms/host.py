"""This process's part in a group of server processes that share rooms over a bus
(``docs/server.md``, "Scale-out").

A room is run by exactly one process, its owner, which holds the lease ``lease:room:<id>``
(value: the node id) and renews it every ``lease_ttl_s / 3`` seconds.  ``RoomHost``:

- ``claim`` takes a room's lease and listens on ``room:<id>`` (messages wait until ``serve``
  names the room, so a join sent while the room is being rebuilt is not lost);
- ``serve`` turns each message on ``room:<id>`` into the same call on the real room, with a
  ``BusOutbox`` that publishes the room's frames to ``conn:<node>:<conn>``;
- ``remote`` gives a ``RemoteRoom`` for a room another process owns;
- a keeper task renews the leases (a lost lease stops the room here: no two writers),
  watches the owners of the remote rooms this process relays (when an owner's lease is gone,
  because it died or stalled past its TTL, it takes the room over from the durable log and
  moves the connections to it), and adopts rooms listed in ``rooms:live`` that nobody owns,
  so that a room plays on (timers, bots, away seats) even with no player connected;
- a remote connection whose process stopped listening (it died: a frame for it reaches
  nobody, or the keeper finds no listener on its channel) is forgotten by the room, so its
  seat shows away.

With ``MemoryBus`` (no ``SANMA_REDIS_URL``) the process is alone: every claim succeeds and
nothing is ever remote.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import secrets
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from sanma.server import protocol
from sanma.server.aio import cancel_and_wait
from sanma.server.bus import Bus, PubSub, Subscription, open_bus
from sanma.server.metrics import Metrics
from sanma.server.rooms import busframes
from sanma.server.rooms.remote import RemoteRoom, Room, conn_channel, lease_key, room_channel
from sanma.store.matches import MatchRecord

log = logging.getLogger(__name__)

Takeover = Callable[[str], Awaitable[Room | None]]
"""``RoomRegistry.get``: the room of a match, claimed and rebuilt here when nobody owns it."""
Lost = Callable[[str], Awaitable[None]]
"""Called when this process lost a room's lease: stop the room here."""
Current = Callable[[str], Awaitable[bool]]
"""Whether this process's room still holds the whole stored log (nobody wrote while its lease
had lapsed): then it may take the lease again and go on."""


def new_node_id() -> str:
    """A node id unique to this process run: host name, pid and random bits."""
    return f"{socket.gethostname()[:24]}-{os.getpid()}-{secrets.token_hex(3)}"


class _Publisher:
    """One ordered queue of ``(channel, frame)`` for the whole process, published in batches
    (one round trip per batch on Redis); order is kept per channel and overall."""

    def __init__(self, pubsub: PubSub, gone: Callable[[str], None]) -> None:
        self._pubsub = pubsub
        self._gone = gone  # told each channel a frame reached nobody on (its connection went)
        self._queue: asyncio.Queue[tuple[str, str] | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    def put(self, channel: str, frame: str) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="bus-publisher")
        self._queue.put_nowait((channel, frame))

    async def _run(self) -> None:
        while (item := await self._queue.get()) is not None:
            batch = [item]
            while not self._queue.empty() and len(batch) < 512:
                more = self._queue.get_nowait()
                if more is None:
                    self._queue.put_nowait(None)
                    break
                batch.append(more)
            try:
                receivers = await self._pubsub.publish_many(batch)
            except Exception:  # the bus is down: the frames are lost, the log is not (resync)
                log.warning("bus: %d frame(s) could not be published", len(batch), exc_info=True)
                continue
            for channel in {c for (c, _), n in zip(batch, receivers, strict=True) if n == 0}:
                self._gone(channel)

    async def close(self) -> None:
        if self._task is not None:
            self._queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._task, 5.0)


class BusOutbox:
    """The outbox of a connection held by another process: each frame goes to its channel."""

    def __init__(self, publisher: _Publisher, channel: str) -> None:
        self._publisher = publisher
        self.channel = channel

    def push(self, frame: protocol.ServerFrame) -> None:
        """Publish ``frame`` to the connection's channel (never blocks)."""
        self._publisher.put(self.channel, protocol.encode(frame))

    def push_many(self, frames: list[str]) -> None:
        """Publish a backlog, frame by frame in order."""
        for frame in frames:
            self._publisher.put(self.channel, frame)


LIVE_ROOMS = "rooms:live"
"""The set of rooms whose match is being played (every process adopts those nobody owns)."""


@dataclass(slots=True)
class _Served:
    """A room this process owns: its channel subscription, listener and remote outboxes."""

    sub: Subscription
    room: Room | None = None
    ended: bool = False  # its match ended (and it left LIVE_ROOMS)
    task: asyncio.Task[None] | None = None
    outboxes: dict[tuple[str, str], BusOutbox] = field(default_factory=dict)


class RoomHost:
    """See the module docstring.  ``bind`` connects it to the registry (which sets ``metrics``)."""

    metrics: Metrics = Metrics()

    def __init__(self, bus: Bus, node: str | None = None, *, lease_ttl_s: float = 10.0) -> None:
        if lease_ttl_s <= 0:
            raise ValueError("lease_ttl_s is positive")
        self.bus = bus
        self.node = node or new_node_id()
        self.lease_ttl_s = lease_ttl_s
        self.tick_s = lease_ttl_s / 3
        self.adopt_per_tick = 25
        self._served: dict[str, _Served] = {}
        self._remotes: set[RemoteRoom] = set()
        self._publisher = _Publisher(bus.pubsub, self._connection_gone)
        # conn channel -> (room, (node, conn)) of every remote connection joined here
        self._channels: dict[str, tuple[str, tuple[str, str]]] = {}
        self._keeper: asyncio.Task[None] | None = None
        self._takeover: Takeover | None = None
        self._lost: Lost | None = None
        self._current: Current | None = None

    @classmethod
    def open(cls, redis_url: str | None, node: str | None = None, *, lease_ttl_s: float = 10.0) -> RoomHost:
        """A host on ``open_bus(redis_url)`` (``MemoryBus`` when empty)."""
        return cls(open_bus(redis_url), node, lease_ttl_s=lease_ttl_s)

    def bind(self, takeover: Takeover, lost: Lost, current: Current | None = None) -> None:
        """Tell the host how to rebuild a room here, how to stop one, and how to check that a
        room whose lease lapsed is still current (the registry's job)."""
        self._takeover, self._lost, self._current = takeover, lost, current

    @property
    def owned(self) -> list[str]:
        """The ids of the rooms this process owns now."""
        return list(self._served)

    # -- owning --------------------------------------------------------------------------------

    async def claim(self, match_id: str) -> bool:
        """Take the room's lease (or find it already ours) and listen on its channel;
        ``False``: another live process owns it."""
        if match_id in self._served:
            return True
        key = lease_key(match_id)
        if not await self.bus.leases.acquire(key, self.node, self.lease_ttl_s):
            if await self.bus.leases.owner(key) != self.node:
                return False
            await self.bus.leases.renew(key, self.node, self.lease_ttl_s)
        sub = await self.bus.pubsub.subscribe(room_channel(match_id))
        self._served[match_id] = _Served(sub)
        await self.bus.sets.add_member(LIVE_ROOMS, match_id)
        self._start_keeper()
        return True

    def serve(self, room: Room) -> None:
        """Start (or redirect) the listener of a claimed room; connections of other processes
        that joined a previous room of this id are forgotten (that room told them it failed)."""
        served = self._served.get(room.id)
        if served is None:
            raise KeyError(f"room {room.id} is not claimed by this process")
        served.room = room
        self._forget_outboxes(served)
        if served.task is None:
            served.task = asyncio.create_task(self._listen(room.id, served), name=f"host-{room.id}")

    async def abandon(self, match_id: str) -> None:
        """Stop listening and give the lease back (the room could not be built, or shutdown)."""
        served = self._served.pop(match_id, None)
        if served is None:
            return
        self._forget_outboxes(served)
        await served.sub.close()
        await cancel_and_wait(served.task)
        with contextlib.suppress(Exception):
            await self.bus.leases.release(lease_key(match_id), self.node)

    async def _listen(self, match_id: str, served: _Served) -> None:
        async for data in served.sub:
            try:
                message = busframes.parse(data)
            except busframes.BadBusMessage as exc:  # logged and dropped: the listener reads on
                log.warning("room %s: bus message refused (%s)", match_id, exc)
                continue
            try:
                await self._dispatch(match_id, served, message)
            except Exception:  # a message the room cannot take never stops the listener
                log.warning("room %s: bus message %r refused", match_id, message, exc_info=True)

    async def _dispatch(self, match_id: str, served: _Served, message: busframes.RoomMessage | busframes.Bar) -> None:
        room = served.room
        if room is None:
            return
        match message:
            case busframes.Probe():
                return
            case busframes.Speed(speed=speed):
                room.set_speed(speed)
                return
            case busframes.End(reason=reason):
                room.end_now(reason)
                return
            case busframes.Bar():
                return  # not a room's message (it travels on ADMIN_CHANNEL)
            case busframes.Join() | busframes.Watch():
                await self._attach(match_id, served, message)
                return
        key = (message.node, message.conn)
        box = served.outboxes.get(key)
        if box is None:
            return  # a connection this room never saw join (it joined a previous room)
        match message:
            case busframes.Act(seq=seq, action=action):
                room.submit(box, seq, action)
            case busframes.Resync(from_v=from_v):
                room.resync(box, from_v)
            case busframes.NextHand(v=v):
                room.next_hand(box, v)
            case busframes.Resume():
                room.resume(box)
            case busframes.Coach(on=on):
                room.set_coach(box, on)
            case busframes.Stamp(stamp=stamp):
                room.send_stamp(box, stamp)
            case busframes.Leave():
                served.outboxes.pop(key, None)
                self._channels.pop(box.channel, None)
                room.leave(box)

    async def _attach(self, match_id: str, served: _Served, message: busframes.Join | busframes.Watch) -> None:
        """Join a remote connection to the room (rebuilt here first when it had failed)."""
        room = served.room
        if room is not None and room.failed is not None and self._takeover is not None:
            await self._takeover(match_id)  # rebuilt here from the log; serve() swapped the room
            room = served.room
        assert room is not None
        key = (message.node, message.conn)
        box = served.outboxes.get(key) or BusOutbox(self._publisher, conn_channel(*key))
        served.outboxes[key] = box
        self._channels[box.channel] = (match_id, key)
        if isinstance(message, busframes.Watch):
            room.watch(box, message.last_v)  # a friend room's only (the gateway checked)
        else:
            room.join(box, message.last_v, message.seat)

    def _forget_outboxes(self, served: _Served) -> None:
        for box in served.outboxes.values():
            self._channels.pop(box.channel, None)
        served.outboxes.clear()

    def _connection_gone(self, channel: str) -> None:
        """A frame for a remote connection reached nobody: its process died (or it is leaving).
        The room forgets it, so its seat shows away and plays on as the room's rules say."""
        found = self._channels.pop(channel, None)
        if found is None:
            return
        match_id, key = found
        served = self._served.get(match_id)
        box = served.outboxes.pop(key, None) if served is not None else None
        if served is not None and served.room is not None and box is not None:
            served.room.leave(box)

    # -- remote rooms --------------------------------------------------------------------------

    async def remote(self, record: MatchRecord, v: int) -> RemoteRoom:
        """A handle on a room another process owns (watched: should the owner go, the room is
        taken over and the handle's connections moved)."""
        owner = await self.bus.leases.owner(lease_key(record.id))
        room = RemoteRoom(record, v, owner or "", self.bus.pubsub, self.node)
        if owner is None:
            room.orphaned = True  # the lease expired meanwhile: the next tick takes it over
        self._remotes.add(room)
        self._start_keeper()
        return room

    # -- the keeper ----------------------------------------------------------------------------

    def start(self) -> None:
        """Start the keeper now (at server startup), so this process adopts orphaned rooms
        even before it has a room of its own."""
        self._start_keeper()

    def _start_keeper(self) -> None:
        if self._keeper is None:
            self._keeper = asyncio.create_task(self._keep(), name="room-host-keeper")

    async def _keep(self) -> None:
        while True:
            await asyncio.sleep(self.tick_s)
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("room host: keeper tick failed", exc_info=True)

    async def tick(self) -> None:
        """Renew this process's leases, check the owners of the rooms it relays, and adopt
        rooms still being played that nobody owns (their owner died with no player elsewhere)."""
        owned = list(self._served)
        kept = await self.bus.leases.renew_many([lease_key(m) for m in owned], self.node, self.lease_ttl_s)
        for match_id, ok in zip(owned, kept, strict=True):
            if not ok and match_id in self._served:
                if await self._retake(match_id):
                    continue
                log.warning("room %s: lease lost; stopping it here", match_id, extra=_handed(match_id, "lost"))
                self.metrics.handed_over("lost")
                await self.abandon(match_id)
                if self._lost is not None:
                    await self._lost(match_id)
        for remote in list(self._remotes):
            remote.ticks += 1
            # Forget handles whose connections all left, moved, or that nobody joined (a refused hello).
            if remote.idle or remote.moved or (remote.ticks > 1 and not remote.joined):
                self._remotes.discard(remote)
                continue
            owner = await self.bus.leases.owner(lease_key(remote.id))
            if owner != remote.owner or owner is None:
                await self._take_over(remote)
            elif remote.orphaned and await self._probe(remote.id) > 0:
                await remote.rejoin()  # the owner listens now: ask again
        # Remote connections whose process stopped listening (it died): let them go now,
        # rather than at the room's next frame, which a pending prompt may hold back a while.
        channels = list(self._channels)
        for channel, n in zip(channels, await self.bus.pubsub.listeners(channels), strict=True):
            if n == 0:
                self._connection_gone(channel)
        for match_id, served in list(self._served.items()):
            if not served.ended and getattr(served.room, "finished", False):
                served.ended = True
                await self.bus.sets.remove_member(LIVE_ROOMS, match_id)
        await self._adopt_orphans()

    async def _probe(self, match_id: str) -> int:
        """How many processes listen on the room's channel (a ``Probe`` that does nothing)."""
        return await self.bus.pubsub.publish(room_channel(match_id), busframes.Probe().to_wire())

    async def _retake(self, match_id: str) -> bool:
        """A lease that lapsed without anybody taking it (the loop was held up past the TTL; with
        the in-process bus nobody else can): take it again and go on, if nobody wrote the log
        meanwhile.  ``False``: the room is another's now, or has moved on: stop it here."""
        key = lease_key(match_id)
        if not await self.bus.leases.acquire(key, self.node, self.lease_ttl_s):
            return False
        if self._current is not None and not await self._current(match_id):
            return False  # abandon() gives the lease back
        log.warning("room %s: its lease lapsed and nobody took it; taken again", match_id)
        return True

    async def _adopt_orphans(self) -> None:
        """Take over (a share of) the live rooms whose lease lapsed: their timers and bots play
        on even when no player of theirs is connected anywhere."""
        if self._takeover is None:
            return
        candidates = sorted(await self.bus.sets.members(LIVE_ROOMS) - set(self._served))
        if not candidates:
            return
        owners = await self.bus.leases.owners([lease_key(m) for m in candidates])
        orphans = [m for m, owner in zip(candidates, owners, strict=True) if owner is None]
        # Shuffled, and a few per tick, so that the surviving processes share a dead one's rooms.
        random.shuffle(orphans)
        for match_id in orphans[: self.adopt_per_tick]:
            try:
                room = await self._takeover(match_id)
            except Exception:
                log.warning("room %s: could not be adopted", match_id, exc_info=True)
                continue
            if room is None:  # no such match (any more)
                await self.bus.sets.remove_member(LIVE_ROOMS, match_id)
            else:
                log.info("room %s: adopted (its owner is gone)", match_id, extra=_handed(match_id, "taken"))
                self.metrics.handed_over("taken")

    async def _take_over(self, remote: RemoteRoom) -> None:
        if self._takeover is None:
            return
        target = await self._takeover(remote.id)
        if target is None:
            return
        log.info(
            "room %s: owner %s gone; connections moved",
            remote.id,
            remote.owner or "?",
            extra=_handed(remote.id, "taken"),
        )
        self.metrics.handed_over("taken")
        self._remotes.discard(remote)
        await remote.fail_over(target)

    async def close(self) -> None:
        """Stop the keeper, give every lease back (so others take the rooms at once), close the bus."""
        await cancel_and_wait(self._keeper)
        for remote in list(self._remotes):
            await remote.close()
        self._remotes.clear()
        for match_id in list(self._served):
            await self.abandon(match_id)
        await self._publisher.close()
        await self.bus.close()


def _handed(match_id: str, direction: str) -> dict[str, str]:
    """The log fields of a lease handed over (``taken`` here, or ``lost`` to another process)."""
    return {"event": "lease_handed_over", "match": match_id, "direction": direction}
