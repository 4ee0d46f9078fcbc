"""Quick match across server processes (``docs/quick.md``): two ``sanma serve`` processes on
one PostgreSQL and one Redis share one queue: players waiting on both sit at one table, and
when the process that makes the tables is killed while players wait, the other one seats them
(a player whose socket died with it queues again on the other at once)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from sanma.server.quick import MATCHMAKER
from sanma.server.rooms.remote import lease_key
from tests.fixtures.quick import Queuer
from tests.fixtures.scaleout import Node

QUICK_ENV = {"SANMA_QUICK_TICK": "0.1", "SANMA_QUICK_WAIT": "60", "SANMA_BOT_WORKERS": "1"}


def guest(node: Node) -> str:
    r = httpx.post(f"{node.http}/api/guest")
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


@pytest.fixture
def quick_nodes(database_url: str, redis_url: str, tmp_path: Path) -> Iterator[tuple[Node, Node]]:
    """node-a, then node-b once node-a makes the tables (it holds the matchmaker's lease)."""
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    r.flushdb()
    a = Node("node-a", database_url, redis_url, tmp_path, **QUICK_ENV)
    try:
        deadline = time.monotonic() + 10
        while r.get(MATCHMAKER) != "node-a":
            assert time.monotonic() < deadline, "node-a did not take the matchmaker's lease"
            time.sleep(0.05)
        b = Node("node-b", database_url, redis_url, tmp_path, **QUICK_ENV)
    except BaseException:
        a.stop()
        raise
    try:
        yield a, b
    finally:
        a.stop()
        b.stop()
        r.close()


def test_players_waiting_on_two_processes_sit_at_one_table(quick_nodes, redis_url):
    a, b = quick_nodes
    queuers = [Queuer(a.ws, guest(a)), Queuer(b.ws, guest(b)), Queuer(b.ws, guest(b))]
    seated = [q.until("seated") for q in queuers]
    assert len({s["match"] for s in seated}) == 1
    assert sorted(s["seat"] for s in seated) == [0, 1, 2]
    # node-a made the table; it runs on node-b, where two of its three players wait.
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    assert r.get(MATCHMAKER) == "node-a" and r.get(lease_key(seated[0]["match"])) == "node-b"
    r.close()


def test_the_other_process_seats_the_waiting_when_the_matchmaker_dies(quick_nodes, redis_url):
    a, b = quick_nodes
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    stranded = guest(a)
    Queuer(a.ws, stranded).until("queued")
    waiting = Queuer(b.ws, guest(b))
    waiting.until("queued")
    a.kill()  # the matchmaker, and the stranded player's socket with it
    assert len(r.keys("quick:ticket:*")) == 2  # the dead socket's ticket has not lapsed yet
    # The stranded player queues again on node-b at once: nobody listens for its old ticket.
    again = Queuer(b.ws, stranded)
    assert again.until("queued", "error")["t"] == "queued"
    third = Queuer(b.ws, guest(b))
    seated = [q.until("seated", timeout=30) for q in (waiting, again, third)]
    assert len({s["match"] for s in seated}) == 1
    assert r.get(MATCHMAKER) == "node-b"
    r.close()
