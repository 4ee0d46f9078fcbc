"""Load benchmark of the game server: simulated players on loopback WebSockets at a human pace.

The generator (this process, asyncio + the ``websockets`` client) starts the server itself:
``sanma serve`` processes on a scratch PostgreSQL (and a scratch ``redis-server`` when there
are two processes), bots pacing at ``--pace`` seconds (``SANMA_BOT_DELAY``) and each
simulated player answering every prompt ``--pace`` seconds after it arrives (the prompt's
default: discard the drawn tile, or pass), so every seat acts about once per ``--pace``.
A table is one practice match (one client, two Beginner bots) kept going: when its match
ends, the player starts another.

``ramp``: for each N in ``--steps``, grow to N concurrent tables, wait ``--warmup`` seconds,
then measure ``--window`` seconds: action-to-broadcast latency (client sends its answer ->
the first event it caused arrives) p50/p99/max, and server CPU seconds per table-minute
(user + system of the server processes, psutil).  With ``--nodes 2`` the tables alternate
between two processes sharing Redis and PostgreSQL; ``--cross`` connects each player to the
process that does NOT own its room (every frame relayed over Redis).

``kill``: two processes, ``--tables`` tables spread over both; after ``--warmup`` seconds
process A gets SIGKILL; its players reconnect to B (the players on B whose rooms A owned are
moved by B), play ``--after`` seconds more, then every event any client was sent is checked
against the database (same event at the same ``v``, redacted for the seat): lost must be 0.

    .venv/bin/python bench/load.py ramp --nodes 1 --steps 50,100,200,300,400
    .venv/bin/python bench/load.py ramp --nodes 2 --steps 100,200,300,400,600
    .venv/bin/python bench/load.py kill --tables 100
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import psutil  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from sanma.arena.stats import percentile  # noqa: E402
from sanma.engine.replay import replay  # noqa: E402
from sanma.engine.visibility import redact  # noqa: E402
from sanma.server.codec import event_from_store, event_to_wire  # noqa: E402
from sanma.store import db  # noqa: E402
from sanma.store.matches import load_events  # noqa: E402
from tests.services import free_port, scratch_postgres, scratch_redis  # noqa: E402

LATENCY_TARGET_MS = 100.0


class Node:
    """One ``sanma serve`` process."""

    def __init__(self, name: str, env: dict[str, str], folder: Path) -> None:
        self.name = name
        self.port = free_port()
        self.log = (folder / f"{name}.log").open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sanma", "serve", "--host", "127.0.0.1", "--port", str(self.port)],
            cwd=ROOT,
            env={**os.environ, **env, "SANMA_NODE_ID": name},
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.ps = psutil.Process(self.proc.pid)
        self.http = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}/ws"
        self.alive = True

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited; see its log")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.http}/api/health", timeout=1).status_code == 200:
                    return
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} did not start")
            time.sleep(0.1)

    def cpu_s(self) -> float:
        if not self.alive:
            return 0.0
        times = self.ps.cpu_times()
        return float(times.user + times.system)

    def kill(self) -> None:
        self.alive = False
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


@dataclass
class Table:
    """One simulated player and the match it plays."""

    index: int
    node: Node  # where the player connects
    owner: Node  # where the match was created (its room's first owner)
    token: str = ""
    match: str = ""
    seat: int = 0
    v: int = 0
    acts: int = 0  # answers whose first event came back (acknowledged)
    matches: list[str] = field(default_factory=list)
    # Every event frame received, per match: {match: {v: event}} (the kill check).
    seen: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)


@dataclass
class Stats:
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (when, ms)
    errors: list[str] = field(default_factory=list)


class Load:
    """The simulated players."""

    def __init__(self, nodes: list[Node], pace_s: float, length: str, keep_events: bool) -> None:
        self.nodes = nodes
        self.pace_s = pace_s
        self.length = length
        self.keep_events = keep_events
        self.tables: list[Table] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.stats = Stats()
        self.stop = asyncio.Event()
        self.http = httpx.AsyncClient(timeout=30)

    async def new_match(self, table: Table) -> None:
        if not table.token:
            r = await self.http.post(f"{table.owner.http}/api/guest")
            r.raise_for_status()
            table.token = r.json()["token"]
        body = {"length": self.length, "red_fives": True, "level": "beginner", "seat": table.index % 3}
        r = await self.http.post(
            f"{table.owner.http}/api/practice", json=body, headers={"Authorization": f"Bearer {table.token}"}
        )
        r.raise_for_status()
        table.match, table.seat, table.v = r.json()["match"], r.json()["seat"], 0
        table.matches.append(table.match)
        table.seen[table.match] = {}

    async def add(self, count: int, cross: bool) -> None:
        """Start ``count`` more tables, alternating over the live nodes, 20 at a time."""
        live = [n for n in self.nodes if n.alive]
        fresh = []
        for _ in range(count):
            i = len(self.tables)
            owner = live[i % len(live)]
            node = live[(i + 1) % len(live)] if cross and len(live) > 1 else owner
            table = Table(i, node, owner)
            self.tables.append(table)
            fresh.append(table)
        gate = asyncio.Semaphore(20)

        async def start(table: Table) -> None:
            async with gate:
                await self.new_match(table)
            self.tasks.append(asyncio.create_task(self.play(table)))

        await asyncio.gather(*(start(t) for t in fresh))

    async def play(self, table: Table) -> None:
        while not self.stop.is_set():
            try:
                async with connect(table.node.ws, max_size=None, open_timeout=30) as ws:
                    await self.session(table, ws)
            except (ConnectionClosed, OSError, TimeoutError) as exc:
                if self.stop.is_set():
                    return
                if not table.node.alive:  # its process is gone: go to a live one
                    table.node = next(n for n in self.nodes if n.alive)
                self.stats.errors.append(f"table {table.index}: {type(exc).__name__}")
                await asyncio.sleep(0.5)

    async def session(self, table: Table, ws: Any) -> None:
        await ws.send(json.dumps({"t": "hello", "token": table.token, "match": table.match, "last_v": table.v}))
        answer: asyncio.Task[None] | None = None
        pending: tuple[int, float] | None = None  # (v answered at, when sent)

        async def reply(prompt: dict[str, Any]) -> None:
            nonlocal pending
            await asyncio.sleep(self.pace_s)
            pending = (prompt["v"], time.monotonic())
            await ws.send(json.dumps({"t": "act", "seq": prompt["seq"], "a": prompt["default"]}))

        try:
            async for text in ws:
                frame = json.loads(text)
                kind = frame["t"]
                if kind == "event":
                    v = frame["v"]
                    if v <= table.v:
                        continue
                    if v > table.v + 1:
                        await ws.send(json.dumps({"t": "resync", "from": table.v + 1}))
                        continue
                    table.v = v
                    if self.keep_events:
                        table.seen[table.match][v] = frame["e"]
                    if pending is not None and v > pending[0]:
                        now = time.monotonic()
                        self.stats.latencies.append((now, (now - pending[1]) * 1000))
                        table.acts += 1
                        pending = None
                    if frame["e"]["type"] == "MatchEnded":
                        await self.new_match(table)
                        return  # reconnect to the new match
                elif kind == "prompt" and frame["v"] == table.v:
                    if answer is not None:
                        answer.cancel()
                    answer = asyncio.create_task(reply(frame))
                elif kind == "error" and frame["code"] not in ("stale_seq",):
                    self.stats.errors.append(f"table {table.index}: {frame['code']}")
        finally:
            if answer is not None:
                answer.cancel()

    async def close(self) -> None:
        self.stop.set()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.http.aclose()


def cpu_total(nodes: list[Node]) -> float:
    return sum(n.cpu_s() for n in nodes)


async def measure(load: Load, tables: int, warmup_s: float, window_s: float) -> dict[str, Any]:
    await asyncio.sleep(warmup_s)
    me = psutil.Process()
    cpu0, t0, gen0 = cpu_total(load.nodes), time.monotonic(), sum(me.cpu_times()[:2])
    await asyncio.sleep(window_s)
    cpu1, t1, gen1 = cpu_total(load.nodes), time.monotonic(), sum(me.cpu_times()[:2])
    ms = sorted(m for when, m in load.stats.latencies if t0 <= when <= t1)
    return {
        "tables": tables,
        "acts": len(ms),
        "acts_per_s": len(ms) / (t1 - t0),
        "p50_ms": percentile(ms, 50),
        "p99_ms": percentile(ms, 99),
        "max_ms": ms[-1] if ms else None,
        "cpu_s_per_table_min": (cpu1 - cpu0) / (tables * (t1 - t0) / 60),
        "cpu_cores": (cpu1 - cpu0) / (t1 - t0),
        "generator_cores": (gen1 - gen0) / (t1 - t0),
        "loadavg": os.getloadavg()[0],  # the whole machine's: other work shares its cores
    }


def start_nodes(count: int, database_url: str, redis_url: str, pace_s: float, folder: Path) -> list[Node]:
    env = {
        "SANMA_DATABASE_URL": database_url,
        "SANMA_REDIS_URL": redis_url,
        "SANMA_BOT_DELAY": str(pace_s),
        "SANMA_LEASE_TTL": "5",
    }
    nodes = [Node(f"node-{'ab'[i]}", env, folder) for i in range(count)]
    for node in nodes:
        node.wait_ready()
    return nodes


def fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


async def ramp(args: argparse.Namespace, nodes: list[Node]) -> list[dict[str, Any]]:
    load = Load(nodes, args.pace, args.length, keep_events=False)
    rows: list[dict[str, Any]] = []
    try:
        for n in [int(s) for s in args.steps.split(",")]:
            began = time.monotonic()
            await load.add(n - len(load.tables), args.cross)
            row = await measure(load, n, args.warmup, args.window)
            row["ramp_s"] = time.monotonic() - began - args.warmup - args.window
            rows.append(row)
            print(
                f"{n:5d} tables  {row['acts_per_s']:7.1f} acts/s  p50 {fmt(row['p50_ms'])} ms  "
                f"p99 {fmt(row['p99_ms'])} ms  max {fmt(row['max_ms'])} ms  "
                f"cpu {row['cpu_s_per_table_min']:.3f} s/table-min ({row['cpu_cores']:.2f} cores, "
                f"generator {row['generator_cores']:.2f})  "
                f"load avg {row['loadavg']:.1f}",
                flush=True,
            )
            if row["p99_ms"] is None or row["p99_ms"] >= args.stop_ms:
                break
    finally:
        await load.close()
    errors = load.stats.errors
    print(f"errors: {len(errors)} {errors[:5]}")
    return rows


async def kill(args: argparse.Namespace, nodes: list[Node], database_url: str) -> dict[str, Any]:
    load = Load(nodes, args.pace, args.length, keep_events=True)
    try:
        await load.add(args.tables, args.cross)
        await asyncio.sleep(args.warmup)
        a = nodes[0]
        owned_by_a = sum(1 for t in load.tables if t.owner is a)
        acts_before = sum(t.acts for t in load.tables)
        v_at_kill = {t.index: (t.match, t.v) for t in load.tables}
        a.kill()
        print(f"killed {a.name} (owner of {owned_by_a} of {len(load.tables)} tables) at {acts_before} acts", flush=True)
        await asyncio.sleep(args.after)
    finally:
        await load.close()
    resumed = sum(1 for t in load.tables if (t.match, t.v) != v_at_kill[t.index] and t.owner is a)
    engine = db.open_engine(database_url)
    seen = lost = changed = 0
    try:
        for table in load.tables:
            for match, frames in table.seen.items():
                stored = load_events(engine, match)
                log = replay([event_from_store(e) for e in stored]).events if stored else []
                for v, wire in frames.items():
                    seen += 1
                    if v > len(log):
                        lost += 1
                    elif event_to_wire(redact(log[v - 1], table.seat), True) != wire:
                        changed += 1
    finally:
        engine.dispose()
    result = {
        "tables": len(load.tables),
        "owned_by_killed": owned_by_a,
        "resumed": resumed,
        "acts_acknowledged": sum(t.acts for t in load.tables),
        "acts_before_kill": acts_before,
        "events_seen": seen,
        "lost": lost,
        "changed": changed,
        "errors": len(load.stats.errors),
    }
    print(json.dumps(result), flush=True)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["ramp", "kill"])
    parser.add_argument("--nodes", type=int, default=1, choices=[1, 2])
    parser.add_argument("--steps", default="50,100,200,300,400")
    parser.add_argument("--tables", type=int, default=100, help="kill: tables")
    parser.add_argument("--pace", type=float, default=2.0, help="seconds per action of each seat")
    parser.add_argument("--length", default="east-south")
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument("--window", type=float, default=30.0)
    parser.add_argument("--after", type=float, default=30.0, help="kill: seconds played after the kill")
    parser.add_argument("--cross", action="store_true", help="players connect to the process not owning the room")
    parser.add_argument("--stop-ms", type=float, default=LATENCY_TARGET_MS * 3, help="stop ramping above this p99")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--pg-dir", help="parent folder of the scratch PostgreSQL (e.g. /dev/shm: no disk fsync)")
    args = parser.parse_args()
    nodes_wanted = 2 if args.mode == "kill" else args.nodes
    folder = Path(tempfile.mkdtemp(prefix="sanma-load-"))
    with contextlib.ExitStack() as stack:
        database_url = stack.enter_context(scratch_postgres(args.pg_dir))
        engine = db.open_engine(database_url)
        db.upgrade(engine)
        engine.dispose()
        redis_url = stack.enter_context(scratch_redis()) if nodes_wanted > 1 else ""
        nodes = start_nodes(nodes_wanted, database_url, redis_url, args.pace, folder)
        try:
            cores = psutil.cpu_count()
            print(f"{nodes_wanted} server process(es), {cores} cores, pace {args.pace} s, logs in {folder}")
            if args.mode == "ramp":
                out: Any = asyncio.run(ramp(args, nodes))
            else:
                out = asyncio.run(kill(args, nodes, database_url))
        finally:
            for node in nodes:
                node.stop()
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
