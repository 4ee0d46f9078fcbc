"""What a rate-limit hit costs: the in-process bucket, the in-process bus, and the shared
bucket on a real Redis (a scratch ``redis-server`` on a free loopback port).

Each variant counts ``--hits`` hits over ``--keys`` keys (one per simulated client) and prints
the median cost per hit and its ratio to the in-process bucket.  A request to a limited route
pays one hit per key it is limited by (two for a room join: address and guest).

    .venv/bin/python bench/limits.py --hits 20000 --keys 500
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sanma.server.bus import MemoryBus, RedisBus
from sanma.server.limits import KeyedLimiter, SharedLimiter
from tests.services import scratch_redis


async def per_hit_us(hit: Callable[[str], Any], hits: int, keys: int, rounds: int = 5) -> float:
    """The median over ``rounds`` of the mean microseconds per hit."""
    samples = []
    for r in range(rounds):
        start = time.perf_counter()
        for i in range(hits):
            result = hit(f"client-{r}-{i % keys}")
            if asyncio.iscoroutine(result):
                await result
        samples.append((time.perf_counter() - start) / hits * 1e6)
    return statistics.median(samples)


async def run(hits: int, keys: int, redis_url: str) -> None:
    local = KeyedLimiter(1_000_000, 60.0)
    memory = SharedLimiter(MemoryBus(), "bench", 1_000_000, 60.0)
    redis_bus = RedisBus(redis_url)
    shared = SharedLimiter(redis_bus, "bench", 1_000_000, 60.0)
    try:
        await shared.hit("warm-up")
        rows = [
            ("in-process bucket (KeyedLimiter)", await per_hit_us(local.hit, hits, keys)),
            ("in-process bus (MemoryBuckets.take)", await per_hit_us(memory.hit, hits, keys)),
            ("shared on Redis (RedisBuckets.take)", await per_hit_us(shared.hit, hits, keys)),
        ]
    finally:
        await redis_bus.close()
    base = rows[0][1]
    print(f"{hits} hits over {keys} keys, median of 5 rounds")
    for name, us in rows:
        print(f"  {name:36s} {us:8.2f} us/hit  {us / base:7.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hits", type=int, default=20_000)
    parser.add_argument("--keys", type=int, default=500)
    args = parser.parse_args()
    with scratch_redis() as url:
        asyncio.run(run(args.hits, args.keys, url))


if __name__ == "__main__":
    main()
