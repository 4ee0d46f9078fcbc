"""The token bucket, the one rate limit of the server (frames per socket, resyncs per guest and
per address, HTTP meters keyed by address, guest or e-mail hash).

- ``TokenBucket``: one bucket, ``rate`` tokens a second up to ``burst``, on an injectable clock;
- ``KeyedLimiter``: one ``TokenBucket`` per key, in this process;
- ``Buckets``: the bus's role of counting hits on buckets every server process shares, with
  ``MemoryBuckets`` (this process alone: ``KeyedLimiter``s) and ``RedisBuckets`` (the same
  arithmetic as a Lua script on Redis's clock, ``REDIS_TAKE_LUA``);
- ``SharedLimiter``: a named limit on a bus's ``Buckets``, so that with several processes a
  client gets the limit once, not once per process; it counts in this process while the bus
  cannot be reached.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

log = logging.getLogger(__name__)

Clock = Callable[[], float]
"""Seconds on a monotonic clock (``time.monotonic``)."""


def _check(capacity: float, rate: float) -> None:
    if capacity < 1 or rate <= 0:
        raise ValueError("a token bucket holds at least 1 token and refills at a positive rate")


class TokenBucket:
    """``rate`` tokens a second on average, ``burst`` at once: a burst of ``burst`` hits is
    followed by a steady ``rate``.

    >>> now = [0.0]
    >>> bucket = TokenBucket(2.0, 1, clock=lambda: now[0])
    >>> bucket.take(), bucket.take(), bucket.wait_s()
    (True, False, 0.5)
    >>> now[0] = 0.5
    >>> bucket.take()
    True
    """

    __slots__ = ("burst", "clock", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float, clock: Clock = time.monotonic) -> None:
        _check(burst, rate)
        self.rate = float(rate)
        self.burst = float(burst)
        self.clock = clock
        self.tokens = float(burst)
        self.stamp = clock()

    def _refill(self) -> float:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + max(0.0, now - self.stamp) * self.rate)
        self.stamp = now
        return now

    def take(self) -> bool:
        """Count one hit now; whether it is allowed (a refused hit costs nothing)."""
        self._refill()
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def wait_s(self) -> float:
        """Seconds until the next hit would be allowed (0: now)."""
        self._refill()
        return max(0.0, (1.0 - self.tokens) / self.rate)

    def full_at(self, now: float) -> bool:
        """Whether the bucket is full again at ``now`` (nothing is lost by forgetting it)."""
        return self.tokens + max(0.0, now - self.stamp) * self.rate >= self.burst


class KeyedLimiter:
    """At most ``capacity`` hits per ``window_s`` seconds for each key: one ``TokenBucket`` of
    ``burst=capacity`` and ``rate=capacity/window_s`` per key."""

    # Above this many keys, full buckets (keys idle for a whole window) are forgotten.
    PRUNE_AT = 10_000

    def __init__(self, capacity: int, window_s: float, clock: Clock = time.monotonic) -> None:
        if capacity < 1 or window_s <= 0:
            raise ValueError("capacity >= 1 and window_s > 0")
        self.capacity = float(capacity)
        self.rate = capacity / window_s
        self.clock = clock
        self.buckets: dict[str, TokenBucket] = {}

    def hit(self, key: str) -> bool:
        """Count one hit for ``key``; whether it is allowed."""
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = TokenBucket(self.rate, self.capacity, self.clock)
        allowed = bucket.take()
        if len(self.buckets) > self.PRUNE_AT:
            self._prune(self.clock())
        return allowed

    def _prune(self, now: float) -> None:
        for key in [k for k, bucket in self.buckets.items() if bucket.full_at(now)]:
            del self.buckets[key]


# -- the buckets every process shares (the bus's bucket role) ---------------------------------


class Buckets(Protocol):
    """Token buckets shared by every server process on one bus."""

    async def take(self, key: str, capacity: int, window_s: float) -> bool:
        """Count one hit on the bucket ``key`` (``capacity`` hits at once, refilled at
        ``capacity`` per ``window_s``); whether the hit is allowed."""


class MemoryBuckets:
    """The buckets of a process alone (``MemoryBus``): one ``KeyedLimiter`` per bucket shape."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self._clock = clock
        self._limiters: dict[tuple[int, float], KeyedLimiter] = {}

    async def take(self, key: str, capacity: int, window_s: float) -> bool:
        """See ``Buckets.take``."""
        shape = (capacity, window_s)
        limiter = self._limiters.get(shape)
        if limiter is None:
            limiter = self._limiters[shape] = KeyedLimiter(capacity, window_s, self._clock)
        return limiter.hit(key)


# ``TokenBucket`` on Redis: `capacity` at once, refilled at capacity/window per millisecond of
# Redis's own clock (the processes' clocks need not agree); forgotten once idle for a window
# (it would be full again by then).  One script: read, refill, take and write back atomically.
REDIS_TAKE_LUA = """
local now_s = redis.call('TIME')
local now = tonumber(now_s[1]) * 1000 + tonumber(now_s[2]) / 1000
local capacity = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local held = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
local tokens = tonumber(held[1]) or capacity
local stamp = tonumber(held[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - stamp) * capacity / window)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(window))
return allowed
"""


class RedisBuckets:
    """The buckets on a Redis server (``RedisBus``): ``REDIS_TAKE_LUA`` on the bus's client."""

    def __init__(self, client: Any) -> None:
        self._take = client.register_script(REDIS_TAKE_LUA)

    async def take(self, key: str, capacity: int, window_s: float) -> bool:
        """See ``Buckets.take``."""
        if capacity < 1 or window_s <= 0:
            raise ValueError("capacity >= 1 and window_s > 0")
        return bool(await self._take(keys=[key], args=[capacity, window_s * 1000]))


class HasBuckets(Protocol):
    """Anything that holds a ``Buckets`` role (a bus)."""

    @property
    def buckets(self) -> Buckets:
        """The shared token buckets."""


class SharedLimiter:
    """At most ``capacity`` hits per ``window_s`` seconds for each key, counted on the bus's
    buckets under ``limit:<name>:<key>`` (every process shares the counts).  Should the bus
    fail, the hit is counted in this process instead: a limit still holds, per process, while
    Redis is down."""

    def __init__(self, bus: HasBuckets | None, name: str, capacity: int, window_s: float) -> None:
        self.buckets = None if bus is None else bus.buckets
        self.name = name
        self.capacity = capacity
        self.window_s = window_s
        self.local = KeyedLimiter(capacity, window_s)

    async def hit(self, key: str) -> bool:
        """Count one hit for ``key``; whether it is allowed."""
        if self.buckets is None:
            return self.local.hit(key)
        try:
            return await self.buckets.take(f"limit:{self.name}:{key}", self.capacity, self.window_s)
        except Exception:
            log.warning("rate limit %s: the bus failed; counting in this process", self.name, exc_info=True)
            return self.local.hit(key)
