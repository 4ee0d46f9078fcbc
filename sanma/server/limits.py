"""A small in-process rate limiter keyed by text (a client address, a guest, an e-mail hash).

One process only: with several server processes (scale-out) each keeps its own counts, so a
client can get up to that many times the limit; docs/accounts.md says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable


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
