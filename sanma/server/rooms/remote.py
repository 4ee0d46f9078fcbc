"""A room run by another server process, reached over the bus (``docs/protocol.md``, "The room bus").

``RemoteRoom`` offers the gateway the same calls as a local room (``join``, ``submit``,
``resync``, ``leave``, ``set_speed``, ``next_hand``, ``resume``, ``set_coach``, ``send_stamp``),
so ``ws.py`` never knows where a room runs.  Each call becomes a message on ``room:<id>`` (a
class of ``busframes.py``); the owner's ``RoomHost`` turns it into the same call on the real
room, whose frames (already redacted for the seat, JSON text) come back on
``conn:<node>:<conn>`` and are pushed to the local outbox in order.

Should the owner die, ``RoomHost``'s watchdog takes the room over (from the durable log) and
calls ``fail_over``: every connection joins the new room with the last version it was sent,
so the client gets a ``welcome``, the events it missed and the prompt, and plays on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from sanma.server import protocol
from sanma.server.aio import cancel_and_wait
from sanma.server.bus import PubSub, Subscription
from sanma.server.rooms import busframes
from sanma.server.rooms.table import Outbox
from sanma.store.matches import MatchRecord

log = logging.getLogger(__name__)


def room_channel(match_id: str) -> str:
    """Where calls on a room are published (its owner listens)."""
    return f"room:{match_id}"


def conn_channel(node: str, conn: str) -> str:
    """Where a room's frames for one connection of ``node`` are published."""
    return f"conn:{node}:{conn}"


def lease_key(match_id: str) -> str:
    """The Redis key of a room's lease (the value names the owning node)."""
    return f"lease:room:{match_id}"


class Room(Protocol):
    """What the gateway calls on a room, local or remote."""

    id: str
    record: MatchRecord
    failed: BaseException | None

    @property
    def v(self) -> int:
        """The version of the last published event."""

    def join(self, outbox: Outbox, last_v: int, seat: int | None = None) -> None:
        """Attach a connection of ``seat`` (from the hello's token; ``None``: the owner's
        seat) that already has the events up to ``last_v``."""

    def watch(self, outbox: Outbox, last_v: int) -> None:
        """Attach a spectator of a friend room's match (live, nothing concealed; open hands a hand behind)."""

    def submit(self, outbox: Outbox, seq: int, action: dict[str, Any]) -> None:
        """An answer to prompt ``seq``."""

    def resync(self, outbox: Outbox, from_v: int) -> None:
        """Send the events from ``from_v`` again, then the prompt."""

    def leave(self, outbox: Outbox) -> None:
        """Detach a connection."""

    def set_speed(self, speed: str) -> None:
        """Pace the bots."""

    def next_hand(self, outbox: Outbox, v: int) -> None:
        """The connection's seat is ready for the next hand (it has the events up to ``v``)."""

    def resume(self, outbox: Outbox) -> None:
        """The connection's seat is taken back from autoplay."""

    def set_coach(self, outbox: Outbox, on: bool) -> None:
        """Turn the coach on or off for the connection's seat (``no_coach`` where the match
        offers none)."""

    def send_stamp(self, outbox: Outbox, stamp: str) -> None:
        """The connection's seat sends a stamp to the table (``no_stamps`` where it may not)."""

    def end_now(self, reason: str) -> None:
        """The operator ends the match now (``sanma admin end``; ``reason`` is for the log)."""


@dataclass(slots=True)
class _Link:
    """One local connection to the remote room."""

    conn: str
    last_v: int
    seat: int | None
    watching: bool = False  # a spectator's connection (``watch``), not a seat's
    sub: Subscription | None = None
    relay: asyncio.Task[None] | None = None


class RemoteRoom:
    """A room whose owner is another process (``owner``); see the module docstring.

    ``v`` is the stored log's length when the handle was made: the owner stores each event
    before sending it, so a client can never hold more, and the gateway's ``last_v`` check
    stays right."""

    def __init__(self, record: MatchRecord, v: int, owner: str, pubsub: PubSub, node: str) -> None:
        self.record = record
        self.id = record.id
        self.owner = owner
        self.failed: BaseException | None = None
        # True once a call reached no listening process: the owner may be dead.
        self.orphaned = False
        self._v = v
        self._pubsub = pubsub
        self._node = node
        self._links: dict[Outbox, _Link] = {}
        self._ever_joined = False
        self.ticks = 0  # keeper ticks seen (RoomHost forgets a handle nobody joined)
        self._target: Room | None = None
        self._sends: asyncio.Queue[Callable[[], Awaitable[None]] | None] = asyncio.Queue()
        self._sender: asyncio.Task[None] | None = None

    @property
    def v(self) -> int:
        """The version known when the handle was made (or the new room's after a fail-over)."""
        return self._target.v if self._target is not None else self._v

    @property
    def idle(self) -> bool:
        """Whether every connection that joined has left (the handle can be forgotten)."""
        return self._ever_joined and not self._links

    @property
    def joined(self) -> bool:
        """Whether any connection ever joined through this handle."""
        return self._ever_joined

    @property
    def moved(self) -> bool:
        """Whether the connections were moved to another room by ``fail_over``."""
        return self._target is not None

    # -- the gateway's calls -----------------------------------------------------------------

    def join(self, outbox: Outbox, last_v: int, seat: int | None = None) -> None:
        """Listen on a fresh connection channel, then ask the owner to join it for ``seat``
        (the gateway found it from the hello's token)."""
        if self._target is not None:
            self._target.join(outbox, last_v, seat)
            return
        self._link(outbox, _Link(uuid.uuid4().hex, last_v, seat))

    def watch(self, outbox: Outbox, last_v: int) -> None:
        """Listen on a fresh connection channel, then ask the owner to attach it as a spectator
        (the gateway found that the guest has no seat in this friend room's match)."""
        if self._target is not None:
            self._target.watch(outbox, last_v)
            return
        self._link(outbox, _Link(uuid.uuid4().hex, last_v, None, watching=True))

    def _link(self, outbox: Outbox, link: _Link) -> None:
        self._links[outbox] = link
        self._ever_joined = True

        async def subscribe_then_join() -> None:
            link.sub = await self._pubsub.subscribe(conn_channel(self._node, link.conn))
            link.relay = asyncio.create_task(self._relay(outbox, link), name=f"relay-{self.id}-{link.conn}")
            await self._join_call(link)()

        self._send(subscribe_then_join)

    def submit(self, outbox: Outbox, seq: int, action: dict[str, Any]) -> None:
        """Forward an answer to the owner."""
        if self._target is not None:
            self._target.submit(outbox, seq, action)
            return
        link = self._links.get(outbox)
        if link is not None:
            self._send(lambda: self._call(busframes.Act(self._node, link.conn, seq, action)))

    def resync(self, outbox: Outbox, from_v: int) -> None:
        """Forward a resync to the owner."""
        if self._target is not None:
            self._target.resync(outbox, from_v)
            return
        link = self._links.get(outbox)
        if link is not None:
            self._send(lambda: self._call(busframes.Resync(self._node, link.conn, from_v)))

    def end_now(self, reason: str) -> None:
        """Forward the operator's end to the owner (``End`` on the room's channel)."""
        if self._target is not None:
            self._target.end_now(reason)
            return
        self._send(lambda: self._call(busframes.End(reason)))

    def set_speed(self, speed: str) -> None:
        """Forward the bots' pace to the owner."""
        if self._target is not None:
            self._target.set_speed(speed)
            return
        self._send(lambda: self._call(busframes.Speed(self._node, speed)))

    def next_hand(self, outbox: Outbox, v: int) -> None:
        """Forward a seat's "Next hand" to the owner (as an answer travels)."""
        if self._target is not None:
            self._target.next_hand(outbox, v)
            return
        link = self._links.get(outbox)
        if link is not None:
            self._send(lambda: self._call(busframes.NextHand(self._node, link.conn, v)))

    def resume(self, outbox: Outbox) -> None:
        """Forward a seat's return from autoplay to the owner."""
        if self._target is not None:
            self._target.resume(outbox)
            return
        link = self._links.get(outbox)
        if link is not None:
            self._send(lambda: self._call(busframes.Resume(self._node, link.conn)))

    def set_coach(self, outbox: Outbox, on: bool) -> None:
        """Forward a seat's coach toggle to the owner, whose table answers (``coach_state``,
        then ``coach`` frames, or ``no_coach``) through the relay."""
        if self._target is not None:
            self._target.set_coach(outbox, on)
            return
        link = self._links.get(outbox)
        if link is not None:
            self._send(lambda: self._call(busframes.Coach(self._node, link.conn, on)))

    def send_stamp(self, outbox: Outbox, stamp: str) -> None:
        """Forward a seat's stamp to the owner, whose table refuses, limits or shows it; the
        ``stamp`` frames reach this process's connections through their relays."""
        if self._target is not None:
            self._target.send_stamp(outbox, stamp)
            return
        link = self._links.get(outbox)
        if link is not None:
            self._send(lambda: self._call(busframes.Stamp(self._node, link.conn, stamp)))

    def leave(self, outbox: Outbox) -> None:
        """Tell the owner, then stop listening on the connection's channel."""
        if self._target is not None:
            self._target.leave(outbox)
            self._links.pop(outbox, None)
            return
        link = self._links.pop(outbox, None)
        if link is None:
            return

        async def leave_then_close() -> None:
            await self._call(busframes.Leave(self._node, link.conn))
            await self._unlink(link)

        self._send(leave_then_close)
        if not self._links:
            self._sends.put_nowait(None)  # the sender stops once its queue is done

    # -- fail-over -----------------------------------------------------------------------------

    async def fail_over(self, target: Room) -> None:
        """Move every connection to ``target`` (the room that took over), each at the last
        version it was sent; later calls go straight to ``target``."""
        if self._target is not None:
            return
        links = list(self._links.items())
        # No await from here to the last join: a call the gateway makes meanwhile would reach
        # ``target`` before its connection joined, and a relay still running could push an
        # old frame after the new room's welcome.  A frame the relay had not pushed yet is not
        # lost: the join asks the new room for everything after ``last_v``.
        for _outbox, link in links:
            if link.relay is not None:
                link.relay.cancel()
        self._target = target
        for outbox, link in links:
            if link.watching:
                target.watch(outbox, link.last_v)
            else:
                target.join(outbox, link.last_v, link.seat)
        self._sends.put_nowait(None)
        for _outbox, link in links:
            await cancel_and_wait(link.relay)
            if link.sub is not None:
                await link.sub.close()

    async def rejoin(self) -> None:
        """Ask the (same) owner again for every connection: an earlier call reached nobody."""
        self.orphaned = False
        for link in list(self._links.values()):
            self._send(self._join_call(link))

    def _join_call(self, link: _Link) -> Callable[[], Awaitable[None]]:
        """The call that attaches ``link`` on the owner (first, or again after a lost call)."""
        if link.watching:
            return lambda: self._call(busframes.Watch(self._node, link.conn, link.last_v))
        return lambda: self._call(busframes.Join(self._node, link.conn, link.last_v, link.seat))

    async def close(self) -> None:
        """Stop relaying (server shutdown)."""
        for link in list(self._links.values()):
            await self._unlink(link)
        self._links.clear()
        if self._sender is not None and not self._sender.done():
            self._sends.put_nowait(None)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._sender, 2.0)

    # -- plumbing ------------------------------------------------------------------------------

    def _send(self, work: Callable[[], Awaitable[None]]) -> None:
        """Run bus work in call order (a join's subscribe comes before its publish, and an
        answer never overtakes the join it follows)."""
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._run_sends(), name=f"remote-{self.id}")
        self._sends.put_nowait(work)

    async def _run_sends(self) -> None:
        while True:
            work = await self._sends.get()
            if work is None:
                if self._sends.empty():
                    return
                continue
            if self._target is not None:
                continue  # moved: the new room got every connection with its version
            try:
                await work()
            except asyncio.CancelledError:
                raise
            except Exception:  # the bus is down: the watchdog notices the lease, the client retries
                log.warning("remote room %s: bus call failed", self.id, exc_info=True)
                self.orphaned = True

    async def _call(self, message: busframes.RoomMessage) -> None:
        if await self._pubsub.publish(room_channel(self.id), message.to_wire()) == 0:
            self.orphaned = True

    async def _relay(self, outbox: Outbox, link: _Link) -> None:
        assert link.sub is not None
        async for frame in link.sub:
            if frame.get("t") == "event" and isinstance(frame.get("v"), int):
                link.last_v = max(link.last_v, frame["v"])
            outbox.push(protocol.wire_text(frame))  # the owner's frame, as the owner encoded it

    async def _unlink(self, link: _Link) -> None:
        if link.sub is not None:
            await link.sub.close()
        if link.relay is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(link.relay, 2.0)
