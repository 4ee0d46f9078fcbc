"""Load benchmark of the quick match (``docs/quick.md``): guests queuing in waves.

The generator starts ``sanma serve`` on a scratch PostgreSQL (``--nodes 2``: two processes
sharing it and a scratch ``redis-server``, each guest queuing on one of them in turn), makes
``--guests`` guests, and queues them over ``/ws/quick`` in ``--waves`` waves ``--gap``
seconds apart (East, red fives, the longest wait: every table is three people).  It measures
each guest's time from its queue frame to its ``seated`` frame (p50, p99, max), then checks
that every guest was seated exactly once (the ``seated`` frames, and ``match_players`` in the
database: one quick seat per guest), ends every match through the operator's route, and
counts the rank changes (one row per guest: none lost, none doubled).

    .venv/bin/python bench/quick_load.py --nodes 1 --guests 300
    .venv/bin/python bench/quick_load.py --nodes 2 --guests 300
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from sqlalchemy import func, select  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from bench.load import Node  # noqa: E402
from sanma.arena.stats import percentile  # noqa: E402
from sanma.store import db  # noqa: E402
from sanma.store.tables import match_players, matches, rank_changes  # noqa: E402
from tests.services import free_port, scratch_postgres, scratch_redis  # noqa: E402

ADMIN = "quick-load-admin-token-0123456789"


async def queue_one(ws_url: str, token: str) -> tuple[float, dict[str, Any]]:
    """Queue one guest; the seconds to its seat and its ``seated`` frame."""
    async with connect(ws_url.removesuffix("/ws") + "/ws/quick", max_size=None) as ws:
        started = time.perf_counter()
        await ws.send(json.dumps({"t": "queue", "token": token, "length": "east", "red_fives": True, "wait_s": 600}))
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 120))
            if frame["t"] == "seated":
                return time.perf_counter() - started, frame
            if frame["t"] != "queued":
                raise RuntimeError(f"unexpected frame {frame}")


async def run(args: argparse.Namespace, nodes: list[Any]) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=30) as http:
        tokens = []
        for i in range(args.guests):
            r = await http.post(f"{nodes[i % len(nodes)].http}/api/guest")
            r.raise_for_status()
            tokens.append(r.json()["token"])
    per_wave = -(-args.guests // args.waves)
    tasks = []
    for w in range(args.waves):
        for i in range(w * per_wave, min(args.guests, (w + 1) * per_wave)):
            tasks.append(asyncio.create_task(queue_one(nodes[i % len(nodes)].ws, tokens[i])))
        await asyncio.sleep(args.gap)
    results = await asyncio.gather(*tasks)
    waits = sorted(r[0] * 1000 for r in results)
    matches_seen: dict[str, set[int]] = {}
    for _, frame in results:
        matches_seen.setdefault(frame["match"], set()).add(frame["seat"])
    return {
        "guests": args.guests,
        "seated": len(results),
        "tables": len(matches_seen),
        "full_tables": sum(1 for seats in matches_seen.values() if seats == {0, 1, 2}),
        "seat_p50_ms": percentile(waits, 50),
        "seat_p99_ms": percentile(waits, 99),
        "seat_max_ms": waits[-1],
        "match_ids": sorted(matches_seen),
    }


def end_all(nodes: list[Any], match_ids: list[str]) -> None:
    for i, match in enumerate(match_ids):
        node = nodes[i % len(nodes)]
        r = httpx.post(
            f"http://127.0.0.1:{node.metrics_port}/admin/matches/{match}/end",
            headers={"Authorization": f"Bearer {ADMIN}"},
            json={"reason": "bench"},
            timeout=30,
        )
        r.raise_for_status()


def count(database_url: str, guests: int, match_ids: list[str]) -> dict[str, Any]:
    engine = db.open_engine(database_url)
    deadline = time.monotonic() + 120
    try:
        with engine.connect() as conn:
            seats = conn.execute(
                select(match_players.c.guest_id, func.count())
                .join(matches, matches.c.id == match_players.c.match_id)
                .where(matches.c.kind == "quick", match_players.c.guest_id.is_not(None))
                .group_by(match_players.c.guest_id)
            ).all()
        while True:
            with engine.connect() as conn:
                ended = conn.execute(
                    select(func.count())
                    .select_from(matches)
                    .where(matches.c.kind == "quick", matches.c.status == "ended")
                ).scalar_one()
                changes = conn.execute(select(func.count()).select_from(rank_changes)).scalar_one()
            if ended == len(match_ids) or time.monotonic() > deadline:
                break
            time.sleep(0.5)
    finally:
        engine.dispose()
    return {
        "guests_with_a_seat": len(seats),
        "seated_twice": sum(1 for _, n in seats if n > 1),
        "matches_ended": ended,
        "rank_changes": changes,
        "rank_changes_lost": guests - changes,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=1, choices=[1, 2])
    parser.add_argument("--guests", type=int, default=300)
    parser.add_argument("--waves", type=int, default=6)
    parser.add_argument("--gap", type=float, default=1.0, help="seconds between waves")
    parser.add_argument("--pg-dir", help="parent folder of the scratch PostgreSQL (e.g. /dev/shm)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="sanma-quick-load-"))
    with contextlib.ExitStack() as stack:
        database_url = stack.enter_context(scratch_postgres(args.pg_dir))
        engine = db.open_engine(database_url)
        db.upgrade(engine)
        engine.dispose()
        redis_url = stack.enter_context(scratch_redis()) if args.nodes > 1 else ""
        env = {
            "SANMA_DATABASE_URL": database_url,
            "SANMA_REDIS_URL": redis_url,
            "SANMA_BOT_DELAY": "0.5",
            "SANMA_BOT_WORKERS": "1",
            "SANMA_QUICK_TICK": "0.2",
            "SANMA_QUICK_WAIT_CHOICES": "600",
            "SANMA_ADMIN_TOKEN": ADMIN,
            # Every guest comes from 127.0.0.1: no per-address cap or meter applies here.
            "SANMA_WS_PER_ADDRESS": "1000000",
            "SANMA_GUESTS_PER_ADDRESS_PER_H": "1000000",
            "SANMA_HTTP_CONNECTIONS_PER_ADDRESS": "1000000",
            "SANMA_RATE_PER_S": "1000",
        }
        nodes = []
        for name in ("node-a", "node-b")[: args.nodes]:
            port = free_port()
            node = Node(name, {**env, "SANMA_METRICS_PORT": str(port)}, folder)
            node.metrics_port = port  # type: ignore[attr-defined]
            nodes.append(node)
        for node in nodes:
            node.wait_ready()
        try:
            out = asyncio.run(run(args, nodes))
            end_all(nodes, out["match_ids"])
            out.update(count(database_url, args.guests, out["match_ids"]))
        finally:
            for node in nodes:
                node.stop()
    del out["match_ids"]
    out["nodes"] = args.nodes
    print(json.dumps(out), flush=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0 if out["seated_twice"] == 0 and out["rank_changes_lost"] == 0 and out["seated"] == args.guests else 1


if __name__ == "__main__":
    raise SystemExit(main())
