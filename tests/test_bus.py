"""The bus contract (``sanma/server/bus.py``), the same tests on ``MemoryBus`` and on ``RedisBus``
against a real ``redis-server`` started on a free loopback port (skipped locally without
the binary, a failure in CI)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
import redis.exceptions

from sanma.server.bus import Bus, MemoryBus, RedisBus, open_bus
from sanma.server.limits import SharedLimiter
from tests.services import free_port, scratch_redis


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with scratch_redis() as url:
        yield url


# Two handles on one bus: for Redis, two clients (as two processes would have); the memory
# bus is one process, so both handles are the same object.
Pair = Callable[[], tuple[Bus, Bus]]


@pytest.fixture(params=["memory", "redis"])
def pair(request: pytest.FixtureRequest) -> Pair:
    if request.param == "memory":

        def make_memory() -> tuple[Bus, Bus]:
            bus = MemoryBus()
            return bus, bus

        return make_memory
    url = request.getfixturevalue("redis_url")

    def make_redis() -> tuple[Bus, Bus]:
        return RedisBus(url), RedisBus(url)

    return make_redis


def run(pair: Pair, body: Callable[[Bus, Bus], Awaitable[None]]) -> None:
    async def main() -> None:
        a, b = pair()
        try:
            await body(a, b)
        finally:
            await a.close()
            if b is not a:
                await b.close()

    asyncio.run(main())


async def take(sub: Any, n: int, timeout: float = 5.0) -> list[dict[str, Any]]:
    return [await asyncio.wait_for(sub.get(), timeout) for _ in range(n)]


def test_a_message_published_after_subscribe_arrives_in_order(pair):
    async def body(a: Bus, b: Bus) -> None:
        sub = await a.pubsub.subscribe("room:1")
        other = await a.pubsub.subscribe("room:2")
        sent = [{"op": "act", "n": i, "nested": {"tiles": ["1m", "?"]}} for i in range(50)]
        for message in sent:
            assert await b.pubsub.publish("room:1", message) == 1  # one listening bus
        assert await take(sub, 50) == sent
        await b.pubsub.publish("room:2", {"op": "leave"})
        assert await take(other, 1) == [{"op": "leave"}]
        assert sub._queue.empty()  # nothing of room:2 leaked into room:1

    run(pair, body)


def test_every_subscriber_of_a_channel_gets_each_message(pair):
    async def body(a: Bus, b: Bus) -> None:
        first, second = await a.pubsub.subscribe("conn:n:1"), await a.pubsub.subscribe("conn:n:1")
        third = await b.pubsub.subscribe("conn:n:1")
        receivers = await b.pubsub.publish("conn:n:1", {"t": "event", "v": 1})
        assert receivers == (1 if a is b else 2)  # buses (processes), not subscriptions
        for sub in (first, second, third):
            assert await take(sub, 1) == [{"t": "event", "v": 1}]

    run(pair, body)


def test_publish_many_keeps_order_across_channels(pair):
    async def body(a: Bus, b: Bus) -> None:
        x, y = await a.pubsub.subscribe("x"), await a.pubsub.subscribe("y")
        items = [("x" if i % 3 else "y", {"i": i}) for i in range(30)]
        assert await b.pubsub.publish_many(items) == [1] * 30
        assert await b.pubsub.publish_many([]) == []
        assert await take(x, 20) == [m for c, m in items if c == "x"]
        assert await take(y, 10) == [m for c, m in items if c == "y"]
        assert await b.pubsub.publish_many([("x", {"i": -1}), ("nobody", {})]) == [1, 0]
        assert await take(x, 1) == [{"i": -1}]

    run(pair, body)


def test_closing_a_subscription_stops_it_and_unsubscribes(pair):
    async def body(a: Bus, b: Bus) -> None:
        sub = await a.pubsub.subscribe("room:9")
        received: list[dict[str, Any]] = []

        async def read() -> None:
            async for message in sub:
                received.append(message)

        reader = asyncio.create_task(read())
        await b.pubsub.publish("room:9", {"n": 1})
        await asyncio.sleep(0.2)
        await sub.close()
        await asyncio.wait_for(reader, 5)  # the iterator ends on close
        assert received == [{"n": 1}]
        with pytest.raises(EOFError):
            await sub.get()
        await asyncio.sleep(0.1)  # Redis confirms the unsubscribe
        assert await b.pubsub.publish("room:9", {"n": 2}) == 0  # nobody listens any more
        again = await a.pubsub.subscribe("room:9")
        assert await b.pubsub.publish("room:9", {"n": 3}) == 1
        assert await take(again, 1) == [{"n": 3}]

    run(pair, body)


def test_a_message_is_a_json_object(pair):
    async def body(a: Bus, b: Bus) -> None:
        sub = await a.pubsub.subscribe("c")
        message: dict[str, Any] = {"list": [1, 2]}
        await b.pubsub.publish("c", message)
        got = await take(sub, 1)
        message["list"].append(3)  # the subscriber never shares the publisher's object
        assert got == [{"list": [1, 2]}]
        with pytest.raises(TypeError):
            await b.pubsub.publish("c", [1, 2])  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            await b.pubsub.publish("c", {"x": object()})

    run(pair, body)


def test_a_lease_is_exclusive_until_released(pair):
    async def body(a: Bus, b: Bus) -> None:
        assert await a.leases.owner("lease:room:1") is None
        assert await a.leases.acquire("lease:room:1", "node-a", 10)
        assert not await b.leases.acquire("lease:room:1", "node-b", 10)
        assert not await a.leases.acquire("lease:room:1", "node-a", 10)  # not re-entrant either
        assert await b.leases.owner("lease:room:1") == "node-a"
        assert not await b.leases.release("lease:room:1", "node-b")  # only the owner releases
        assert await b.leases.owner("lease:room:1") == "node-a"
        assert await a.leases.release("lease:room:1", "node-a")
        assert not await a.leases.release("lease:room:1", "node-a")
        assert await b.leases.owner("lease:room:1") is None
        assert await b.leases.acquire("lease:room:1", "node-b", 10)
        assert await a.leases.owner("lease:room:1") == "node-b"

    run(pair, body)


def test_release_all_gives_up_every_lease_or_none(pair):
    """The quick match takes three tickets at once: all of them, or (one was left or taken
    meanwhile) none, so nobody is seated at a table that is not there."""

    async def body(a: Bus, b: Bus) -> None:
        keys = ["t:1", "t:2", "t:3"]
        for i, key in enumerate(keys):
            assert await a.leases.acquire(key, f"o{i}", 10)
        assert await b.leases.release_all([], [])
        assert not await b.leases.release_all(keys, ["o0", "o1", "wrong"])
        assert await a.leases.owners(keys) == ["o0", "o1", "o2"]  # none was given up
        assert await a.leases.release("t:2", "o1")  # one leaves meanwhile
        assert not await b.leases.release_all(keys, ["o0", "o1", "o2"])
        assert await a.leases.owners(keys) == ["o0", None, "o2"]
        assert await b.leases.release_all(["t:1", "t:3"], ["o0", "o2"])
        assert await a.leases.owners(keys) == [None, None, None]
        with pytest.raises(ValueError):
            await b.leases.release_all(keys, ["o0"])

    run(pair, body)


@pytest.mark.slow
def test_only_the_owner_renews_and_a_lease_expires_without_renewal(pair):
    async def body(a: Bus, b: Bus) -> None:
        assert await a.leases.acquire("lease:x", "node-a", 0.4)
        assert not await b.leases.renew("lease:x", "node-b", 5)
        for _ in range(3):  # kept alive past its first TTL by renewing
            await asyncio.sleep(0.2)
            assert await a.leases.renew("lease:x", "node-a", 0.4)
        assert await b.leases.owner("lease:x") == "node-a"
        await asyncio.sleep(0.6)  # no renewal: it expires
        assert await b.leases.owner("lease:x") is None
        assert not await a.leases.renew("lease:x", "node-a", 0.4)  # too late: not the owner any more
        assert await b.leases.acquire("lease:x", "node-b", 5)
        assert not await a.leases.renew("lease:x", "node-a", 5)
        assert await a.leases.owner("lease:x") == "node-b"

    run(pair, body)


def test_renew_many_renews_only_the_owners_live_leases(pair):
    async def body(a: Bus, b: Bus) -> None:
        assert await a.leases.acquire("lease:m1", "node-a", 0.5)
        assert await b.leases.acquire("lease:m2", "node-b", 5)
        assert await a.leases.acquire("lease:m3", "node-a", 0.5)
        assert await a.leases.renew_many([], "node-a", 5) == []
        assert await a.leases.renew_many(["lease:m1", "lease:m2", "lease:m3", "lease:none"], "node-a", 5) == [
            True,
            False,
            True,
            False,
        ]
        await asyncio.sleep(0.7)  # past the first TTL: the renewed leases live on
        assert [await b.leases.owner(f"lease:m{i}") for i in (1, 2, 3)] == ["node-a", "node-b", "node-a"]

    run(pair, body)


def test_owners_and_a_shared_set(pair):
    async def body(a: Bus, b: Bus) -> None:
        assert await a.leases.acquire("lease:o1", "node-a", 5)
        assert await b.leases.acquire("lease:o3", "node-b", 5)
        assert await b.leases.owners(["lease:o1", "lease:o2", "lease:o3"]) == ["node-a", None, "node-b"]
        assert await b.leases.owners([]) == []
        assert await a.sets.members("rooms:live") == set()
        await a.sets.add_member("rooms:live", "m1")
        await b.sets.add_member("rooms:live", "m2")
        await b.sets.add_member("rooms:live", "m1")
        assert await b.sets.members("rooms:live") == {"m1", "m2"}
        await a.sets.remove_member("rooms:live", "m1")
        await a.sets.remove_member("rooms:live", "absent")
        assert await b.sets.members("rooms:live") == {"m2"}

    run(pair, body)


def test_listeners_counts_listening_buses(pair):
    async def body(a: Bus, b: Bus) -> None:
        assert await b.pubsub.listeners([]) == []
        assert await b.pubsub.listeners(["conn:x:1", "conn:x:2"]) == [0, 0]
        sub = await a.pubsub.subscribe("conn:x:1")
        await a.pubsub.subscribe("conn:x:1")  # a second local subscriber: still one bus
        assert await b.pubsub.listeners(["conn:x:1", "conn:x:2"]) == [1, 0]
        await sub.close()
        assert await b.pubsub.listeners(["conn:x:1"]) == [1]

    run(pair, body)


def test_concurrent_acquires_give_exactly_one_owner(pair):
    async def body(a: Bus, b: Bus) -> None:
        for round_ in range(5):
            key = f"lease:race:{round_}"
            results = await asyncio.gather(
                *(bus.leases.acquire(key, f"node-{i}", 5) for i, bus in enumerate([a, b, a, b, a, b]))
            )
            assert sum(results) == 1
            winner = results.index(True)
            assert await a.leases.owner(key) == f"node-{winner}"

    run(pair, body)


@pytest.mark.slow
def test_take_counts_one_token_bucket_for_every_process(pair):
    async def body(a: Bus, b: Bus) -> None:
        # 3 at once, then one more per 20 s: a fourth hit, on either handle, is refused.
        assert [
            await a.buckets.take("limit:t:k", 3, 60),
            await b.buckets.take("limit:t:k", 3, 60),
            await a.buckets.take("limit:t:k", 3, 60),
        ] == [
            True,
            True,
            True,
        ]
        assert not await b.buckets.take("limit:t:k", 3, 60)
        assert not await a.buckets.take("limit:t:k", 3, 60)
        assert await b.buckets.take("limit:t:other", 3, 60)  # each key has its own bucket
        # Refilled with time: 2 at once, one more per second.
        assert await a.buckets.take("limit:t:r", 2, 2.0) and await b.buckets.take("limit:t:r", 2, 2.0)
        assert not await a.buckets.take("limit:t:r", 2, 2.0)
        await asyncio.sleep(1.2)
        assert await b.buckets.take("limit:t:r", 2, 2.0)
        assert not await a.buckets.take("limit:t:r", 2, 2.0)
        with pytest.raises(ValueError):
            await a.buckets.take("limit:t:bad", 0, 60)

    run(pair, body)


def test_a_shared_limit_counts_in_the_process_while_the_bus_is_down():
    async def main() -> None:
        down = RedisBus(f"redis://127.0.0.1:{free_port()}")  # nothing listens there
        limiter = SharedLimiter(down, "t", 2, 60.0)
        try:
            assert [await limiter.hit("k") for _ in range(3)] == [True, True, False]
            assert await limiter.hit("other")
        finally:
            await down.close()

    asyncio.run(main())


@pytest.mark.slow
def test_a_redis_that_stops_answering_holds_no_call_for_ever():
    # A real listening socket that accepts connections and never replies: a hung server.
    with socket.socket() as mute:
        mute.bind(("127.0.0.1", 0))
        mute.listen(16)
        port = mute.getsockname()[1]

        async def main() -> None:
            bus = RedisBus(f"redis://127.0.0.1:{port}", command_timeout_s=0.3)
            limiter = SharedLimiter(bus, "t", 1, 60.0)
            try:
                # Each gives up after the command timeout (the 10 s guard only turns a hang
                # into a failure): the ping says no, the limit is counted in the process.
                assert await asyncio.wait_for(bus.ping(), 10) is False
                assert await asyncio.wait_for(limiter.hit("k"), 10) is True
                assert await asyncio.wait_for(limiter.hit("k"), 10) is False
                with pytest.raises(redis.exceptions.TimeoutError):  # Redis's own, not the guard's
                    await asyncio.wait_for(bus.leases.owner("lease:x"), 10)
            finally:
                await bus.close()

        asyncio.run(main())


def test_bad_ttl_and_url_are_refused():
    with pytest.raises(ValueError):
        asyncio.run(MemoryBus().leases.acquire("k", "o", 0))
    assert isinstance(open_bus(None), MemoryBus)
    assert isinstance(open_bus("memory://"), MemoryBus)
    with pytest.raises(ValueError):
        open_bus("amqp://localhost")
