"""The room bus: what the server processes share (``docs/server.md``, "Scale-out"), split by role.

A caller asks only for the role it uses:

- ``bus.pubsub`` (``PubSub``): channels of JSON objects, in publish order per channel
  (``rooms/remote.py``, ``rooms/host.py``);
- ``bus.leases`` (``Leases``): a key with an owner and a time to live: ``acquire`` is atomic
  (one owner at a time), ``renew`` and ``release`` act only for the current owner, and a lease
  that is not renewed expires (``rooms/host.py``, the meters);
- ``bus.sets`` (``Sets``): shared sets of strings with no expiry (``rooms:live``);
- ``bus.buckets`` (``limits.Buckets``): token buckets every process shares (``limits.SharedLimiter``).

Each role has an in-process implementation and one on Redis; ``MemoryBus`` (the default: a
single server needs nothing else) and ``RedisBus`` (redis-py asyncio on ``redis://``) put the
four together on one connection.  ``tests/test_bus.py`` runs the same tests on both.  Both
send messages as JSON text, so a subscriber never shares an object with the publisher.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Protocol

from sanma.server.aio import cancel_and_wait
from sanma.server.limits import Buckets, MemoryBuckets, RedisBuckets

log = logging.getLogger(__name__)

_END: Any = object()  # queued by close(): the subscription's iterator stops there

Message = dict[str, Any] | str
"""A bus message: a JSON object, or its JSON text already (a room's shared event frame)."""

# Renew (set the TTL again) only while the key still names the caller as its owner.
_RENEW_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
# Delete every key only if each still names its given owner (all or none).
_RELEASE_ALL_LUA = """
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) ~= ARGV[i] then
    return 0
  end
end
redis.call('DEL', unpack(KEYS))
return 1
"""
# Delete only the caller's own lease, never one another process took over meanwhile.
_RELEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


def _encode(message: Message) -> str:
    if isinstance(message, str):  # already JSON text of an object (a room's shared event frame)
        return message
    if not isinstance(message, dict):
        raise TypeError("a bus message is a JSON object (dict)")
    return json.dumps(message, separators=(",", ":"))


def _ttl_ms(ttl_s: float) -> int:
    if ttl_s <= 0:
        raise ValueError("a lease's time to live is positive")
    return max(1, round(ttl_s * 1000))


# -- the roles -------------------------------------------------------------------------------


class PubSub(Protocol):
    """Channels of JSON objects.  Subscriptions of one process share one upstream subscription
    per channel; ``publish`` answers how many processes (buses) were listening."""

    async def publish(self, channel: str, message: Message) -> int:
        """Send ``message`` to every subscriber of ``channel``; the number of buses that got it."""

    async def publish_many(self, items: Sequence[tuple[str, Message]]) -> list[int]:
        """Publish ``(channel, message)`` pairs in order, in one round trip where the bus can;
        for each, how many buses got it."""

    async def subscribe(self, channel: str) -> Subscription:
        """Start receiving ``channel``: every message published after this returns arrives."""

    async def listeners(self, channels: list[str]) -> list[int]:
        """How many buses (processes) listen on each channel now (one round trip)."""


class Leases(Protocol):
    """Keys with one owner and a time to live."""

    async def acquire(self, key: str, owner: str, ttl_s: float) -> bool:
        """Take the lease ``key`` for ``owner`` if nobody holds it (atomic)."""

    async def renew(self, key: str, owner: str, ttl_s: float) -> bool:
        """Extend ``owner``'s lease by ``ttl_s`` from now; ``False`` if it is not ``owner``'s any more."""

    async def renew_many(self, keys: list[str], owner: str, ttl_s: float) -> list[bool]:
        """``renew`` each key (in one round trip where the bus can); the results in order."""

    async def release(self, key: str, owner: str) -> bool:
        """Give the lease up, only if ``owner`` holds it."""

    async def release_all(self, keys: list[str], owners: list[str]) -> bool:
        """Give up every lease of ``keys`` at once, each only if its owner in ``owners`` holds
        it: all of them (``True``) or, when one is not held so, none (atomic)."""

    async def owner(self, key: str) -> str | None:
        """Who holds the lease ``key`` now (``None``: nobody, or it expired)."""

    async def owners(self, keys: list[str]) -> list[str | None]:
        """``owner`` of each key (in one round trip where the bus can)."""


class Sets(Protocol):
    """Sets of strings shared by every process (no expiry)."""

    async def add_member(self, key: str, member: str) -> None:
        """Put ``member`` in the set ``key``."""

    async def remove_member(self, key: str, member: str) -> None:
        """Take ``member`` out of the set ``key``."""

    async def members(self, key: str) -> set[str]:
        """The members of the set ``key``."""


class Bus:
    """The four roles on one connection, plus its health and its end."""

    pubsub: PubSub
    leases: Leases
    sets: Sets
    buckets: Buckets

    async def ping(self) -> bool:
        """Whether the bus answers now (the in-process bus always does)."""
        return True

    async def close(self) -> None:
        """Close every subscription and the connection."""


# -- subscriptions ---------------------------------------------------------------------------


class Subscription:
    """The messages of one channel from the moment ``subscribe`` returned, in publish order.

    ``await sub.get()`` takes the next one; ``async for message in sub`` reads until
    ``close()``.  Messages are queued without bound: a subscriber must keep reading."""

    def __init__(self, channel: str, on_close: Callable[[Subscription], Any]) -> None:
        self.channel = channel
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._on_close = on_close
        self.closed = False

    def deliver(self, text: str) -> None:
        """Queue one message (JSON text as it came off the bus)."""
        if not self.closed:
            self._queue.put_nowait(text)

    async def get(self) -> dict[str, Any]:
        """The next message; ``EOFError`` once the subscription is closed and drained."""
        item = await self._queue.get()
        if item is _END:
            self._queue.put_nowait(_END)  # every later get() stops too
            raise EOFError(f"subscription to {self.channel} is closed")
        message: dict[str, Any] = json.loads(item)
        return message

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[dict[str, Any]]:
        while True:
            try:
                yield await self.get()
            except EOFError:
                return

    async def close(self) -> None:
        """Stop receiving; a reader waiting in ``get`` wakes up with ``EOFError``."""
        if self.closed:
            return
        self.closed = True
        self._queue.put_nowait(_END)
        result = self._on_close(self)
        if asyncio.iscoroutine(result):
            await result


class _LocalChannels:
    """The subscribers of this process, per channel (both pub/subs keep them alike)."""

    def __init__(self) -> None:
        self._local: dict[str, set[Subscription]] = {}

    def _add_local(self, channel: str) -> tuple[Subscription, bool]:
        """A new local subscription; the flag says whether it is the channel's first."""
        sub = Subscription(channel, self._drop_local)
        subs = self._local.setdefault(channel, set())
        subs.add(sub)
        return sub, len(subs) == 1

    async def _drop_local(self, sub: Subscription) -> None:
        subs = self._local.get(sub.channel)
        if subs is None:
            return
        subs.discard(sub)
        if not subs:
            del self._local[sub.channel]
            await self._last_gone(sub.channel)

    async def _last_gone(self, channel: str) -> None:
        """The last local subscriber of ``channel`` left (Redis unsubscribes upstream)."""
        return None

    def _dispatch(self, channel: str, text: str) -> int:
        subs = self._local.get(channel, ())
        for sub in list(subs):
            sub.deliver(text)
        return 1 if subs else 0

    async def close_all(self) -> None:
        """Close every local subscription."""
        for subs in list(self._local.values()):
            for sub in list(subs):
                await sub.close()


# -- in this process -------------------------------------------------------------------------


class MemoryPubSub(_LocalChannels):
    """Channels of a process alone: a process is its only listener."""

    async def publish(self, channel: str, message: Message) -> int:
        """See ``PubSub.publish``."""
        return self._dispatch(channel, _encode(message))

    async def publish_many(self, items: Sequence[tuple[str, Message]]) -> list[int]:
        """See ``PubSub.publish_many``."""
        return [self._dispatch(channel, _encode(message)) for channel, message in items]

    async def subscribe(self, channel: str) -> Subscription:
        """See ``PubSub.subscribe``."""
        sub, _first = self._add_local(channel)
        return sub

    async def listeners(self, channels: list[str]) -> list[int]:
        """See ``PubSub.listeners``."""
        return [1 if self._local.get(c) else 0 for c in channels]


class MemoryLeases:
    """Leases of a process alone, expiring on the monotonic clock."""

    def __init__(self) -> None:
        self._leases: dict[str, tuple[str, float]] = {}

    def _holder(self, key: str) -> str | None:
        held = self._leases.get(key)
        if held is None:
            return None
        if held[1] <= time.monotonic():
            del self._leases[key]
            return None
        return held[0]

    def _hold(self, key: str, owner: str, ttl_s: float) -> None:
        self._leases[key] = (owner, time.monotonic() + _ttl_ms(ttl_s) / 1000)

    async def acquire(self, key: str, owner: str, ttl_s: float) -> bool:
        """See ``Leases.acquire``."""
        _ttl_ms(ttl_s)
        if self._holder(key) is not None:
            return False
        self._hold(key, owner, ttl_s)
        return True

    async def renew(self, key: str, owner: str, ttl_s: float) -> bool:
        """See ``Leases.renew``."""
        _ttl_ms(ttl_s)
        if self._holder(key) != owner:
            return False
        self._hold(key, owner, ttl_s)
        return True

    async def renew_many(self, keys: list[str], owner: str, ttl_s: float) -> list[bool]:
        """See ``Leases.renew_many``."""
        return [await self.renew(key, owner, ttl_s) for key in keys]

    async def release(self, key: str, owner: str) -> bool:
        """See ``Leases.release``."""
        if self._holder(key) != owner:
            return False
        del self._leases[key]
        return True

    async def release_all(self, keys: list[str], owners: list[str]) -> bool:
        """See ``Leases.release_all`` (nothing awaits between the check and the deletion)."""
        if len(keys) != len(owners):
            raise ValueError("one owner per key")
        if any(self._holder(key) != owner for key, owner in zip(keys, owners, strict=True)):
            return False
        for key in keys:
            del self._leases[key]
        return True

    async def owner(self, key: str) -> str | None:
        """See ``Leases.owner``."""
        return self._holder(key)

    async def owners(self, keys: list[str]) -> list[str | None]:
        """See ``Leases.owners``."""
        return [self._holder(key) for key in keys]


class MemorySets:
    """Sets of a process alone."""

    def __init__(self) -> None:
        self._sets: dict[str, set[str]] = {}

    async def add_member(self, key: str, member: str) -> None:
        """See ``Sets.add_member``."""
        self._sets.setdefault(key, set()).add(member)

    async def remove_member(self, key: str, member: str) -> None:
        """See ``Sets.remove_member``."""
        self._sets.get(key, set()).discard(member)

    async def members(self, key: str) -> set[str]:
        """See ``Sets.members``."""
        return set(self._sets.get(key, ()))


class MemoryBus(Bus):
    """The in-process bus: a process is its only member."""

    def __init__(self) -> None:
        self.pubsub = self._pubsub = MemoryPubSub()
        self.leases = MemoryLeases()
        self.sets = MemorySets()
        self.buckets = MemoryBuckets()

    async def close(self) -> None:
        """See ``Bus.close``."""
        await self._pubsub.close_all()


# -- on Redis --------------------------------------------------------------------------------


class RedisPubSub(_LocalChannels):
    """Channels on Redis.  One pub/sub connection per process carries every channel the
    process listens to; a reader task hands each message to the local subscribers of its
    channel.  ``subscribe`` returns once Redis has confirmed the subscription, so a message
    published afterwards, from any process, is received."""

    def __init__(self, client: Any, listener: Any) -> None:
        super().__init__()
        self._redis = client
        # The pub/sub connection waits for messages as long as none come: a client of its own
        # with no read timeout.
        self._listener = listener
        self._pubsub = listener.pubsub()
        self._reader: asyncio.Task[None] | None = None
        self._confirmed: dict[str, asyncio.Event] = {}
        self._upstream_lock = asyncio.Lock()

    async def publish(self, channel: str, message: Message) -> int:
        """See ``PubSub.publish``."""
        return int(await self._redis.publish(channel, _encode(message)))

    async def publish_many(self, items: Sequence[tuple[str, Message]]) -> list[int]:
        """See ``PubSub.publish_many`` (one pipeline, no transaction: order is kept either way)."""
        if not items:
            return []
        async with self._redis.pipeline(transaction=False) as pipe:
            for channel, message in items:
                pipe.publish(channel, _encode(message))
            return [int(n) for n in await pipe.execute()]

    async def subscribe(self, channel: str) -> Subscription:
        """See ``PubSub.subscribe``."""
        async with self._upstream_lock:
            sub, first = self._add_local(channel)
            if first:
                confirmed = self._confirmed[channel] = asyncio.Event()
                await self._pubsub.subscribe(channel)
                if self._reader is None:
                    self._reader = asyncio.create_task(self._read(), name="redis-bus-reader")
                await asyncio.wait_for(confirmed.wait(), timeout=10.0)
            else:
                # Another local subscriber asked first: wait for its confirmation too.
                pending = self._confirmed.get(channel)
                if pending is not None:
                    await asyncio.wait_for(pending.wait(), timeout=10.0)
        return sub

    async def listeners(self, channels: list[str]) -> list[int]:
        """See ``PubSub.listeners`` (``PUBSUB NUMSUB``)."""
        if not channels:
            return []
        counts = dict(await self._redis.pubsub_numsub(*channels))
        return [int(counts.get(c, 0)) for c in channels]

    async def _last_gone(self, channel: str) -> None:
        async with self._upstream_lock:
            if channel not in self._local:
                self._confirmed.pop(channel, None)
                with contextlib.suppress(Exception):
                    await self._pubsub.unsubscribe(channel)

    async def _read(self) -> None:
        while True:
            try:
                message = await self._pubsub.get_message(timeout=None)
            except asyncio.CancelledError:
                raise
            except Exception:  # the connection dropped: redis-py reconnects and resubscribes
                log.warning("redis bus: pub/sub read failed; retrying", exc_info=True)
                await asyncio.sleep(0.2)
                continue
            if message is not None:
                self._received(message)

    def _received(self, message: dict[str, Any]) -> None:
        kind, channel = message.get("type"), message.get("channel")
        if kind == "message" and isinstance(channel, str):
            self._dispatch(channel, message["data"])
        elif kind == "subscribe" and isinstance(channel, str):
            event = self._confirmed.get(channel)
            if event is not None:
                event.set()

    async def close(self) -> None:
        """Close every subscription, the reader and the pub/sub connection."""
        await self.close_all()
        await cancel_and_wait(self._reader)
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()


class RedisLeases:
    """Leases on Redis: ``SET key owner NX PX ttl``; renew and release run as Lua scripts that
    first check the owner."""

    def __init__(self, client: Any) -> None:
        self._redis = client
        self._renew = client.register_script(_RENEW_LUA)
        self._release = client.register_script(_RELEASE_LUA)
        self._release_all = client.register_script(_RELEASE_ALL_LUA)

    async def acquire(self, key: str, owner: str, ttl_s: float) -> bool:
        """See ``Leases.acquire``."""
        return bool(await self._redis.set(key, owner, nx=True, px=_ttl_ms(ttl_s)))

    async def renew(self, key: str, owner: str, ttl_s: float) -> bool:
        """See ``Leases.renew``."""
        return bool(await self._renew(keys=[key], args=[owner, _ttl_ms(ttl_s)]))

    async def renew_many(self, keys: list[str], owner: str, ttl_s: float) -> list[bool]:
        """See ``Leases.renew_many`` (one pipeline)."""
        if not keys:
            return []
        ttl_ms = _ttl_ms(ttl_s)
        async with self._redis.pipeline(transaction=False) as pipe:
            for key in keys:
                await self._renew(keys=[key], args=[owner, ttl_ms], client=pipe)
            results = await pipe.execute()
        return [bool(r) for r in results]

    async def release(self, key: str, owner: str) -> bool:
        """See ``Leases.release``."""
        return bool(await self._release(keys=[key], args=[owner]))

    async def release_all(self, keys: list[str], owners: list[str]) -> bool:
        """See ``Leases.release_all`` (one Lua script)."""
        if len(keys) != len(owners):
            raise ValueError("one owner per key")
        if not keys:
            return True
        return bool(await self._release_all(keys=keys, args=owners))

    async def owner(self, key: str) -> str | None:
        """See ``Leases.owner``."""
        value = await self._redis.get(key)
        return None if value is None else str(value)

    async def owners(self, keys: list[str]) -> list[str | None]:
        """See ``Leases.owners`` (one ``MGET``)."""
        if not keys:
            return []
        return [None if v is None else str(v) for v in await self._redis.mget(keys)]


class RedisSets:
    """Sets on Redis (``SADD``, ``SREM``, ``SMEMBERS``)."""

    def __init__(self, client: Any) -> None:
        self._redis = client

    async def add_member(self, key: str, member: str) -> None:
        """See ``Sets.add_member``."""
        await self._redis.sadd(key, member)

    async def remove_member(self, key: str, member: str) -> None:
        """See ``Sets.remove_member``."""
        await self._redis.srem(key, member)

    async def members(self, key: str) -> set[str]:
        """See ``Sets.members``."""
        return {str(m) for m in await self._redis.smembers(key)}


class RedisBus(Bus):
    """The bus on a Redis server (``redis://host:port/db``)."""

    def __init__(self, url: str, *, command_timeout_s: float = 5.0, connect_timeout_s: float = 2.0) -> None:
        import redis.asyncio as aioredis

        self.url = url
        # A Redis that stops answering (not refusing) must not hold a request, a keeper tick or
        # a rate limit for ever: every command gives up after ``command_timeout_s``.
        self._redis = aioredis.Redis.from_url(
            url, decode_responses=True, socket_timeout=command_timeout_s, socket_connect_timeout=connect_timeout_s
        )
        self._listener = aioredis.Redis.from_url(url, decode_responses=True, socket_connect_timeout=connect_timeout_s)
        self.pubsub = self._pubsub = RedisPubSub(self._redis, self._listener)
        self.leases = RedisLeases(self._redis)
        self.sets = RedisSets(self._redis)
        self.buckets = RedisBuckets(self._redis)

    async def ping(self) -> bool:
        """See ``Bus.ping`` (``PING``, refused or failed: ``False``)."""
        try:
            return bool(await self._redis.ping())
        except Exception:
            return False

    async def close(self) -> None:
        """See ``Bus.close``."""
        await self._pubsub.close()
        for client in (self._listener, self._redis):
            with contextlib.suppress(Exception):
                await client.aclose()


def open_bus(url: str | None) -> Bus:
    """The bus for ``url``: ``redis://``/``rediss://``/``unix://`` gives a ``RedisBus``;
    empty, ``None`` or ``memory://`` the in-process ``MemoryBus``.

    >>> type(open_bus("")).__name__
    'MemoryBus'
    """
    if not url or url.startswith("memory://"):
        return MemoryBus()
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisBus(url)
    raise ValueError(f"unsupported bus URL {url!r} (redis://... or empty)")
