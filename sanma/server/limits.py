"""Rate limits keyed by text (a client address, a guest, an e-mail hash).

``KeyedLimiter`` counts in this process; ``SharedLimiter`` counts on the room bus, so that with
several server processes (scale-out, a Redis bus) a client gets the limit once, not once per
process, and falls back to counting in this process while the bus cannot be reached.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the bus imports this module (its in-process buckets)
    from sanma.server.bus import Bus

log = logging.getLogger(__name__)


class KeyedLimiter:
    """At most ``capacity`` hits per ``window_s`` seconds for each key (a token bucket that
    refills continuously, so a burst of ``capacity`` is followed by a steady rate)."""

    # Above this many keys, full buckets (keys idle for a whole window) are forgotten.
    PRUNE_AT = 10_000

    def __init__(self, capacity: int, window_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        if capacity < 1 or window_s <= 0:
            raise ValueError("capacity >= 1 and window_s > 0")
        self.capacity = float(capacity)
        self.rate = capacity / window_s
        self.clock = clock
        self.buckets: dict[str, tuple[float, float]] = {}

    def hit(self, key: str) -> bool:
        """Count one hit for ``key``; whether it is allowed."""
        now = self.clock()
        tokens, stamp = self.buckets.get(key, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - stamp) * self.rate)
        allowed = tokens >= 1.0
        self.buckets[key] = (tokens - 1.0 if allowed else tokens, now)
        if len(self.buckets) > self.PRUNE_AT:
            self._prune(now)
        return allowed

    def _prune(self, now: float) -> None:
        full = [k for k, (t, s) in self.buckets.items() if t + (now - s) * self.rate >= self.capacity]
        for key in full:
            del self.buckets[key]


class SharedLimiter:
    """At most ``capacity`` hits per ``window_s`` seconds for each key, counted on ``bus`` under
    ``limit:<name>:<key>`` (every process shares the counts).  Should the bus fail, the hit is
    counted in this process instead: a limit still holds, per process, while Redis is down."""

    def __init__(self, bus: Bus | None, name: str, capacity: int, window_s: float) -> None:
        self.bus = bus
        self.name = name
        self.capacity = capacity
        self.window_s = window_s
        self.local = KeyedLimiter(capacity, window_s)

    async def hit(self, key: str) -> bool:
        """Count one hit for ``key``; whether it is allowed."""
        if self.bus is None:
            return self.local.hit(key)
        try:
            return await self.bus.take(f"limit:{self.name}:{key}", self.capacity, self.window_s)
        except Exception:
            log.warning("rate limit %s: the bus failed; counting in this process", self.name, exc_info=True)
            return self.local.hit(key)
