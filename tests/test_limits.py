"""The one token bucket (``sanma/server/limits.py``) on a clock of our own: times in, answers out.
The shared buckets on Redis run the same tests in ``tests/test_bus.py``."""

from __future__ import annotations

import asyncio

import pytest

from sanma.server.limits import KeyedLimiter, MemoryBuckets, TokenBucket


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_allows_its_burst_then_its_rate_and_never_holds_more_than_the_burst():
    clock = Clock()
    bucket = TokenBucket(rate=4.0, burst=2, clock=clock)
    assert [bucket.take() for _ in range(3)] == [True, True, False]
    assert bucket.wait_s() == pytest.approx(0.25)
    clock.now += 0.25
    assert bucket.take() and not bucket.take()
    clock.now += 60.0  # a long pause refills to the burst, not beyond
    assert [bucket.take() for _ in range(3)] == [True, True, False]
    clock.now -= 5.0  # a clock that steps back adds nothing (and takes nothing)
    assert not bucket.take()


def test_a_keyed_limiter_counts_each_key_alone_and_forgets_only_full_buckets():
    clock = Clock()
    limiter = KeyedLimiter(2, 10.0, clock)  # 2 at once, one more every 5 s
    assert [limiter.hit("a") for _ in range(3)] == [True, True, False]
    assert limiter.hit("b")
    clock.now += 5.0
    assert limiter.hit("a") and not limiter.hit("a")
    limiter.PRUNE_AT = 1  # type: ignore[misc]
    clock.now += 7.0  # "b" is full again, "a" is not: only "b" may be forgotten
    limiter.hit("c")
    assert "a" in limiter.buckets and "b" not in limiter.buckets


def test_in_process_buckets_keep_one_limiter_per_shape():
    clock = Clock()
    buckets = MemoryBuckets(clock)

    async def main() -> list[bool]:
        return [
            await buckets.take("k", 1, 60.0),
            await buckets.take("k", 1, 60.0),
            await buckets.take("k", 5, 60.0),  # another shape: another bucket
        ]

    assert asyncio.run(main()) == [True, False, True]


def test_bad_buckets_are_refused():
    with pytest.raises(ValueError):
        TokenBucket(0.0, 1)
    with pytest.raises(ValueError):
        TokenBucket(1.0, 0)
    with pytest.raises(ValueError):
        KeyedLimiter(0, 1.0)
    with pytest.raises(ValueError):
        KeyedLimiter(1, 0.0)
