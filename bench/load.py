"""Load benchmark of the game server: simulated players on loopback WebSockets at a human pace.

The generator (this process, asyncio + the ``websockets`` client) starts the server itself:
``sanma serve`` processes on a scratch PostgreSQL (and a scratch ``redis-server`` when there
are two processes), bots pacing at ``--pace`` seconds (``SANMA_BOT_DELAY``) and each
simulated player answering every prompt ``--pace`` seconds after it arrives (the prompt's
default: discard the drawn tile, or pass), so every seat acts about once per ``--pace``.
A table is one practice match (one client, two bots of ``--level``, Beginner by default;
``--bot-workers N``: the servers' ``SANMA_BOT_WORKERS``, 0 for bots in threads) kept going: when its match
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
    .venv/bin/python bench/load.py attack --tables 200

``attack``: one process, ``--tables`` tables at a human pace; a window is measured, then one
guest opens ``--sockets`` sockets on its own practice match of ``--events`` events (played
first at the ``instant`` bot speed) and sends ``{"t":"resync","from":1}`` ``--per-s`` times a
second on each, reading everything (issue 15's resync attack); a window is measured during
the attack and one after it.  Rooms stopped (``room_failed`` frames, "lease lost" in the
server's log) are counted.

``--gc-freeze S`` runs the servers with ``SANMA_GC_FREEZE=S`` (``server/gcpolicy.py``; 30 as the
server's default, 0 for the interpreter's collector);
``--pg-dir /dev/shm`` keeps PostgreSQL's files in memory (no disk fsync in the latency).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
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


CGROUP_CPU = Path("/sys/fs/cgroup/cpu")
"""cgroup v1's ``cpu`` controller, where a process's CPU share can be capped (root only)."""

QUOTA_PERIOD_US = 10_000
"""The CFS period of a capped process: short, so a throttled process waits a few ms at most."""


class CpuCap:
    """A cgroup (v1 ``cpu``) holding one server process and the workers it starts, capped at
    ``cores`` of CPU time: a dedicated core of a given speed, on a machine with fewer cores
    than processes and workers (what ``--cpu-per-node`` emulates)."""

    def __init__(self, name: str, cores: float) -> None:
        if not (CGROUP_CPU / "cpu.cfs_quota_us").exists():
            raise SystemExit(f"--cpu-per-node needs cgroup v1's cpu controller at {CGROUP_CPU} (and root)")
        self.folder = CGROUP_CPU / f"sanma-load-{name}-{os.getpid()}"
        self.folder.mkdir()
        (self.folder / "cpu.cfs_period_us").write_text(str(QUOTA_PERIOD_US))
        quota = round(cores * QUOTA_PERIOD_US)
        (self.folder / "cpu.cfs_quota_us").write_text(str(quota))
        burst = self.folder / "cpu.cfs_burst_us"
        if burst.exists():  # unused quota carries over (up to one period's): a bot's burst runs on
            burst.write_text(str(quota))

    def add(self, pid: int) -> None:
        """Move ``pid`` (all its threads) here; the processes it starts later stay here."""
        (self.folder / "cgroup.procs").write_text(str(pid))

    def throttled_s(self) -> float:
        """Seconds the group was held back by its quota so far."""
        stat = dict(line.split() for line in (self.folder / "cpu.stat").read_text().splitlines())
        return int(stat.get("throttled_time", 0)) / 1e9

    def remove(self) -> None:
        with contextlib.suppress(OSError):  # a worker still exiting keeps it a moment
            self.folder.rmdir()


class Node:
    """One ``sanma serve`` process (in its own ``CpuCap`` when ``cpu_cores`` is given)."""

    def __init__(
        self, name: str, env: dict[str, str], folder: Path, root: Path = ROOT, cpu_cores: float | None = None
    ) -> None:
        self.name = name
        self.port = free_port()
        self.log = (folder / f"{name}.log").open("w")
        self.cap = CpuCap(name, cpu_cores) if cpu_cores else None
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sanma", "serve", "--host", "127.0.0.1", "--port", str(self.port)],
            cwd=root,  # ``-m`` imports the ``sanma`` of the working folder first
            env={**os.environ, **env, "SANMA_NODE_ID": name},
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        if self.cap is not None:  # before it serves, so its bot workers start inside
            self.cap.add(self.proc.pid)
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
        """CPU seconds of the server and its worker processes (the bots think in them)."""
        if not self.alive:
            return 0.0
        total = 0.0
        for proc in (self.ps, *self.ps.children(recursive=True)):
            with contextlib.suppress(psutil.Error):
                times = proc.cpu_times()
                total += times.user + times.system
        return total

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
        if self.cap is not None:
            self.cap.remove()


@dataclass
class Client:
    """One simulated player (one WebSocket) and what it was sent."""

    index: int
    table: Table
    node: Node  # where it connects
    token: str = ""
    match: str = ""
    seat: int = 0
    v: int = 0
    acts: int = 0  # answers whose first event came back (acknowledged)
    # Every event frame received, per match: {match: (seat, {v: event})} (the kill check).
    seen: dict[str, tuple[int, dict[int, dict[str, Any]]]] = field(default_factory=dict)


@dataclass
class Table:
    """One match at a time: a practice match (one client, two Beginner bots) or a friend room
    of three clients; when a match ends, the table starts another."""

    index: int
    owner: Node  # where its matches are created (their rooms' first owner)
    kind: str
    clients: list[Client] = field(default_factory=list)
    match: str = ""
    seats: dict[str, int] = field(default_factory=dict)  # token -> seat in the current match
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass
class Stats:
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (when, ms)
    pings: list[tuple[float, float]] = field(default_factory=list)  # (when, ms)
    errors: list[str] = field(default_factory=list)


class Load:
    """The simulated players."""

    def __init__(self, nodes: list[Node], args: argparse.Namespace, keep_events: bool) -> None:
        self.nodes = nodes
        self.pace_s = args.pace
        self.length = args.length
        self.level = args.level
        self.kind = args.kind
        self.keep_events = keep_events
        self.tables: list[Table] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.stats = Stats()
        self.stop = asyncio.Event()
        self.http = httpx.AsyncClient(timeout=60)
        self.ping_every_s = 10.0

    async def post(self, node: Node, path: str, token: str | None = None, body: Any = None) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = await self.http.post(f"{node.http}{path}", json=body, headers=headers)
        r.raise_for_status()
        return dict(r.json())

    async def new_match(self, table: Table) -> None:
        """Create the table's next match (through its owner) and seat its clients."""
        for client in table.clients:
            if not client.token:
                client.token = (await self.post(table.owner, "/api/guest"))["token"]
        host = table.clients[0]
        options = {"length": self.length, "red_fives": True}
        if table.kind == "practice":
            body = {**options, "level": self.level, "seat": table.index % 3}
            created = await self.post(table.owner, "/api/practice", host.token, body)
            table.match, table.seats = created["match"], {host.token: created["seat"]}
        else:
            room = await self.post(table.owner, "/api/rooms", host.token, {**options, "seat": 0})
            seats = {host.token: 0}
            for guest in table.clients[1:]:
                seats[guest.token] = (await self.post(table.owner, f"/api/rooms/{room['code']}/join", guest.token))[
                    "you"
                ]
            started = await self.post(table.owner, f"/api/rooms/{room['code']}/start", host.token)
            table.match, table.seats = started["match"], seats

    async def add(self, count: int, cross: bool) -> None:
        """Start ``count`` more tables, alternating over the live nodes, 20 at a time."""
        live = [n for n in self.nodes if n.alive]
        fresh = []
        for _ in range(count):
            i = len(self.tables)
            owner = live[i % len(live)]
            node = live[(i + 1) % len(live)] if cross and len(live) > 1 else owner
            table = Table(i, owner, self.kind)
            table.clients = [Client(i * 3 + k, table, node) for k in range(1 if self.kind == "practice" else 3)]
            self.tables.append(table)
            fresh.append(table)
        gate = asyncio.Semaphore(20)

        async def start(table: Table) -> None:
            async with gate:
                await self.new_match(table)
            for client in table.clients:
                self.tasks.append(asyncio.create_task(self.play(client)))

        await asyncio.gather(*(start(t) for t in fresh))

    def follow(self, client: Client) -> None:
        """Point the client at its table's current match."""
        table = client.table
        if client.match != table.match:
            client.match, client.seat, client.v = table.match, table.seats[client.token], 0
            client.seen[client.match] = (client.seat, {})

    async def play(self, client: Client) -> None:
        while not self.stop.is_set():
            self.follow(client)
            try:
                async with connect(client.node.ws, max_size=None, open_timeout=30) as ws:
                    await self.session(client, ws)
            except (ConnectionClosed, OSError, TimeoutError) as exc:
                if self.stop.is_set():
                    return
                if not client.node.alive:  # its process is gone: go to a live one
                    client.node = next(n for n in self.nodes if n.alive)
                self.stats.errors.append(f"client {client.index}: {type(exc).__name__}")
                await asyncio.sleep(0.5)

    async def session(self, client: Client, ws: Any) -> None:
        hello = {"t": "hello", "token": client.token, "match": client.match, "last_v": client.v}
        await ws.send(json.dumps(hello))
        answer: asyncio.Task[None] | None = None
        pending: tuple[int, float] | None = None  # (v answered at, when sent)

        ping_sent: float | None = None

        async def ping() -> None:
            # A ping's round trip is the floor under any latency here: what this machine's
            # scheduling costs two processes, without the room, the store or the engine.
            nonlocal ping_sent
            await asyncio.sleep(random.uniform(0, self.ping_every_s))
            while True:
                ping_sent = time.monotonic()
                await ws.send('{"t":"ping"}')
                await asyncio.sleep(self.ping_every_s)

        pinger = asyncio.create_task(ping())

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
                    if v <= client.v:
                        continue
                    if v > client.v + 1:
                        await ws.send(json.dumps({"t": "resync", "from": client.v + 1}))
                        continue
                    client.v = v
                    if self.keep_events:
                        client.seen[client.match][1][v] = frame["e"]
                    if pending is not None and v > pending[0]:
                        now = time.monotonic()
                        self.stats.latencies.append((now, (now - pending[1]) * 1000))
                        client.acts += 1
                        pending = None
                    if frame["e"]["type"] == "MatchEnded":
                        async with client.table.lock:  # the first client to see the end starts the next
                            if client.table.match == client.match:
                                await self.new_match(client.table)
                        return  # reconnect to the new match
                elif kind == "pong" and ping_sent is not None:
                    now = time.monotonic()
                    self.stats.pings.append((now, (now - ping_sent) * 1000))
                    ping_sent = None
                elif kind == "prompt" and frame["v"] == client.v:
                    if answer is not None:
                        answer.cancel()
                    answer = asyncio.create_task(reply(frame))
                elif kind == "hand_break":  # a simulated player reads no panel: ready at once
                    await ws.send(json.dumps({"t": "next_hand", "v": frame["v"]}))
                elif kind == "error" and frame["code"] not in ("stale_seq",):
                    self.stats.errors.append(f"client {client.index}: {frame['code']}")
        finally:
            pinger.cancel()
            if answer is not None:
                answer.cancel()

    @property
    def clients(self) -> list[Client]:
        return [c for t in self.tables for c in t.clients]

    async def close(self) -> None:
        self.stop.set()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.http.aclose()


def cpu_total(nodes: list[Node]) -> float:
    return sum(n.cpu_s() for n in nodes)


def throttled_total(nodes: list[Node]) -> float:
    return sum(node.cap.throttled_s() for node in nodes if node.cap is not None and node.alive)


async def measure(load: Load, tables: int, warmup_s: float, window_s: float) -> dict[str, Any]:
    await asyncio.sleep(warmup_s)
    me = psutil.Process()
    cpu0, t0, gen0 = cpu_total(load.nodes), time.monotonic(), sum(me.cpu_times()[:2])
    held0 = throttled_total(load.nodes)
    await asyncio.sleep(window_s)
    cpu1, t1, gen1 = cpu_total(load.nodes), time.monotonic(), sum(me.cpu_times()[:2])
    held1 = throttled_total(load.nodes)
    ms = sorted(m for when, m in load.stats.latencies if t0 <= when <= t1)
    pings = sorted(m for when, m in load.stats.pings if t0 <= when <= t1)
    return {
        "tables": tables,
        "acts": len(ms),
        "acts_per_s": len(ms) / (t1 - t0),
        "p50_ms": percentile(ms, 50),
        "p99_ms": percentile(ms, 99),
        "max_ms": ms[-1] if ms else None,
        "ping_p50_ms": percentile(pings, 50),
        "ping_p99_ms": percentile(pings, 99),
        "cpu_s_per_table_min": (cpu1 - cpu0) / (tables * (t1 - t0) / 60),
        "cpu_cores": (cpu1 - cpu0) / (t1 - t0),
        "generator_cores": (gen1 - gen0) / (t1 - t0),
        "throttled_share": (held1 - held0) / (t1 - t0),  # capped nodes: time held back by the quota
        "rss_mb": sum(n.ps.memory_info().rss for n in load.nodes if n.alive) / 2**20,
        "loadavg": os.getloadavg()[0],  # the whole machine's: other work shares its cores
    }


def start_nodes(
    count: int,
    database_url: str,
    redis_url: str,
    pace_s: float,
    folder: Path,
    gc_freeze_s: float,
    root: Path = ROOT,
    bot_workers: int | None = None,
    cpu_cores: float | None = None,
) -> list[Node]:
    env = {
        "SANMA_GC_FREEZE": str(gc_freeze_s),
        "SANMA_DATABASE_URL": database_url,
        "SANMA_REDIS_URL": redis_url,
        "SANMA_BOT_DELAY": str(pace_s),
        "SANMA_LEASE_TTL": "5",
        "SANMA_ROOM_JOINS_PER_MIN": "100000",  # one loopback address creates every room
        # Every simulated player comes from 127.0.0.1: no per-address cap or meter applies here
        # (an older server ignores the names it does not know).
        "SANMA_WS_PER_ADDRESS": "1000000",
        "SANMA_WS_PER_GUEST": "64",  # the attack's 40 sockets: the per-frame bound, not the cap
        "SANMA_GUESTS_PER_ADDRESS_PER_H": "1000000",
        "SANMA_PRACTICE_PER_ADDRESS_PER_MIN": "1000000",
        "SANMA_PRACTICE_LIVE_PER_ADDRESS": "1000000",
        "SANMA_ROOMS_PER_ADDRESS_PER_H": "1000000",
        "SANMA_HTTP_CONNECTIONS_PER_ADDRESS": "1000000",
    }
    if bot_workers is not None:  # else the server's default (an older server: its threads)
        env["SANMA_BOT_WORKERS"] = str(bot_workers)
    nodes = [Node(f"node-{'ab'[i]}", env, folder, root, cpu_cores) for i in range(count)]
    for node in nodes:
        node.wait_ready()
    return nodes


def fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


async def ramp(args: argparse.Namespace, nodes: list[Node]) -> list[dict[str, Any]]:
    load = Load(nodes, args, keep_events=False)
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
                f"ping p50/p99 {fmt(row['ping_p50_ms'])}/{fmt(row['ping_p99_ms'])} ms  "
                f"cpu {row['cpu_s_per_table_min']:.3f} s/table-min ({row['cpu_cores']:.2f} cores, "
                f"generator {row['generator_cores']:.2f}, throttled {row['throttled_share']:.2f})  "
                f"rss {row['rss_mb']:.0f} MB  "
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
    load = Load(nodes, args, keep_events=True)
    try:
        await load.add(args.tables, args.cross)
        await asyncio.sleep(args.warmup)
        a = nodes[0]
        owned_by_a = [t for t in load.tables if t.owner is a]
        acts_before = sum(c.acts for c in load.clients)
        v_at_kill = {c.index: (c.match, c.v) for c in load.clients}
        a.kill()
        print(f"killed {a.name} (owner of {len(owned_by_a)} of {len(load.tables)} tables) at {acts_before} acts")
        await asyncio.sleep(args.after)
    finally:
        await load.close()
    # A table resumed when every client of it got further after the kill.
    resumed = sum(1 for t in owned_by_a if all((c.match, c.v) != v_at_kill[c.index] for c in t.clients))
    engine = db.open_engine(database_url)
    seen = lost = changed = 0
    logs: dict[str, list[Any]] = {}
    try:
        for client in load.clients:
            for match, (seat, frames) in client.seen.items():
                if match not in logs:
                    stored = load_events(engine, match)
                    logs[match] = replay([event_from_store(e) for e in stored]).events if stored else []
                log = logs[match]
                for v, wire in frames.items():
                    seen += 1
                    if v > len(log):
                        lost += 1
                    elif event_to_wire(redact(log[v - 1], seat), True) != wire:
                        changed += 1
    finally:
        engine.dispose()
    result = {
        "kind": args.kind,
        "tables": len(load.tables),
        "clients": len(load.clients),
        "owned_by_killed": len(owned_by_a),
        "resumed": resumed,
        "acts_acknowledged": sum(c.acts for c in load.clients),
        "acts_before_kill": acts_before,
        "events_seen": seen,
        "lost": lost,
        "changed": changed,
        "reconnects_and_errors": len(load.stats.errors),
    }
    print(json.dumps(result), flush=True)
    return result


class Attacker:
    """One guest's resync attack: ``sockets`` sockets on its own practice match of ``events``
    events, each sending a resync from 1 ``per_s`` times a second and reading all it gets."""

    def __init__(self, load: Load, node: Node, sockets: int, per_s: float, events: int) -> None:
        self.load, self.node, self.sockets, self.per_s, self.events = load, node, sockets, per_s, events
        self.sent = 0
        self.frames = 0
        self.closed = 0
        self.errors: dict[str, int] = {}

    async def prepare(self) -> None:
        """A guest and its practice match, played (bots instant) to ``events`` events."""
        self.token = (await self.load.post(self.node, "/api/guest"))["token"]
        body = {"length": "east-south", "red_fives": True, "level": "beginner", "seat": 0}
        self.match = (await self.load.post(self.node, "/api/practice", self.token, body))["match"]
        v = 0
        async with connect(self.node.ws, max_size=None) as ws:
            await ws.send(json.dumps({"t": "hello", "token": self.token, "match": self.match, "last_v": 0}))
            await ws.send(json.dumps({"t": "speed", "speed": "instant"}))
            async for text in ws:
                frame = json.loads(text)
                if frame["t"] == "event":
                    v = frame["v"]
                elif frame["t"] == "hand_break":
                    await ws.send(json.dumps({"t": "next_hand", "v": frame["v"]}))
                elif frame["t"] == "prompt" and frame["v"] == v:
                    if v >= self.events:
                        break
                    await ws.send(json.dumps({"t": "act", "seq": frame["seq"], "a": frame["default"]}))
                    await asyncio.sleep(0.06)  # under the per-socket frame rate
        self.v = v

    def start(self) -> None:
        """The sockets run in a process of their own, so that their work does not slow down
        the simulated players' event loop (which measures the latency)."""
        ctx = multiprocessing.get_context("spawn")
        self.results = ctx.Queue()
        self.halt = ctx.Event()
        args = (self.node.ws, self.token, self.match, self.v, self.sockets, self.per_s)
        self.proc = ctx.Process(target=_attack_process, args=(*args, self.halt, self.results), daemon=True)
        self.proc.start()

    async def end(self) -> None:
        self.halt.set()
        got = await asyncio.to_thread(self.results.get, True, 60)
        self.sent, self.frames, self.closed, self.errors = got
        await asyncio.to_thread(self.proc.join, 30)


def _attack_process(url: str, token: str, match: str, v: int, sockets: int, per_s: float, halt: Any, out: Any) -> None:
    """The attacker's sockets (in a child process): each joins with ``last_v = v``, then sends
    a resync from 1 ``per_s`` times a second and reads everything, until ``halt`` is set."""
    stats = {"sent": 0, "frames": 0, "closed": 0}
    errors: dict[str, int] = {}

    async def one(stop: asyncio.Event) -> None:
        try:
            async with connect(url, max_size=None, open_timeout=30) as ws:
                await ws.send(json.dumps({"t": "hello", "token": token, "match": match, "last_v": v}))

                async def read() -> None:
                    async for text in ws:
                        stats["frames"] += 1
                        frame = json.loads(text)
                        if frame["t"] == "error":
                            errors[frame["code"]] = errors.get(frame["code"], 0) + 1

                reader = asyncio.create_task(read())
                try:
                    while not stop.is_set() and not reader.done():
                        await ws.send('{"t":"resync","from":1}')
                        stats["sent"] += 1
                        await asyncio.sleep(1 / per_s)
                finally:
                    reader.cancel()
        except (ConnectionClosed, OSError, TimeoutError):
            pass
        if not stop.is_set():
            stats["closed"] += 1

    async def main() -> None:
        stop = asyncio.Event()
        tasks = [asyncio.create_task(one(stop)) for _ in range(sockets)]
        await asyncio.to_thread(halt.wait)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())
    out.put((stats["sent"], stats["frames"], stats["closed"], errors))


def log_lines(folder: Path, text: str) -> int:
    """Lines with ``text`` in the servers' logs: "lease lost" (rooms stopped by a stalled
    loop) or "taken again" (a lease that lapsed in a stall, taken back at the next tick)."""
    return sum(p.read_text(errors="replace").count(text) for p in folder.glob("node-*.log"))


async def attack(args: argparse.Namespace, nodes: list[Node], folder: Path) -> dict[str, Any]:
    load = Load(nodes, args, keep_events=False)
    node = nodes[0]
    rows: dict[str, Any] = {}
    attacker = Attacker(load, node, args.sockets, args.per_s, args.events)
    errors_before = 0
    try:
        await load.add(args.tables, False)
        await attacker.prepare()
        rows["before"] = await measure(load, args.tables, args.warmup, args.window)
        errors_before = len(load.stats.errors)
        attacker.start()
        rows["during"] = await measure(load, args.tables, 2.0, args.window)
        await attacker.end()
        rows["after"] = await measure(load, args.tables, 5.0, args.window)
    finally:
        await load.close()
    failed = sum(1 for e in load.stats.errors[errors_before:] if "room_failed" in e)
    out = {
        "tables": args.tables,
        "attack": {
            "sockets": args.sockets,
            "per_s": args.per_s,
            "match_events": attacker.v,
            "resyncs_sent": attacker.sent,
            "frames_received": attacker.frames,
            "sockets_closed": attacker.closed,
            "errors": attacker.errors,
        },
        "room_failed_frames": failed,
        **rows,
    }
    for name, row in rows.items():
        print(
            f"{name:7s} {row['acts_per_s']:7.1f} acts/s  p50 {fmt(row['p50_ms'])} ms  p99 {fmt(row['p99_ms'])} ms  "
            f"max {fmt(row['max_ms'])} ms  ping p50/p99 {fmt(row['ping_p50_ms'])}/{fmt(row['ping_p99_ms'])} ms  "
            f"cpu {row['cpu_cores']:.2f} cores  rss {row['rss_mb']:.0f} MB  load avg {row['loadavg']:.1f}",
            flush=True,
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["ramp", "kill", "attack"])
    parser.add_argument("--nodes", type=int, default=1, choices=[1, 2])
    parser.add_argument("--kind", default="practice", choices=["practice", "room"], help="1 or 3 clients a table")
    parser.add_argument("--steps", default="50,100,200,300,400")
    parser.add_argument("--tables", type=int, default=100, help="kill, attack: tables")
    parser.add_argument("--sockets", type=int, default=40, help="attack: the attacker's sockets")
    parser.add_argument("--per-s", type=float, default=19.0, help="attack: resyncs a second on each")
    parser.add_argument("--events", type=int, default=300, help="attack: events of the attacked match")
    parser.add_argument("--pace", type=float, default=2.0, help="seconds per action of each seat")
    parser.add_argument("--length", default="east-south")
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument("--window", type=float, default=30.0)
    parser.add_argument("--after", type=float, default=30.0, help="kill: seconds played after the kill")
    parser.add_argument("--cross", action="store_true", help="players connect to the process not owning the room")
    parser.add_argument("--stop-ms", type=float, default=LATENCY_TARGET_MS * 3, help="stop ramping above this p99")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--level", default="beginner", help="the practice tables' bot level")
    parser.add_argument(
        "--bot-workers", type=int, help="the servers' SANMA_BOT_WORKERS (0: bots in threads; unset: the default)"
    )
    parser.add_argument("--gc-freeze", type=float, default=30.0, help="the servers' SANMA_GC_FREEZE (0: off)")
    parser.add_argument(
        "--server-root",
        type=Path,
        default=ROOT,
        help="run the servers from this checkout (e.g. an older commit's files: before/after on one machine)",
    )
    parser.add_argument("--pg-dir", help="parent folder of the scratch PostgreSQL (e.g. /dev/shm: no disk fsync)")
    parser.add_argument(
        "--cpu-per-node",
        type=float,
        help="cap each server process and its workers at this many cores (a cgroup's CPU quota; root)",
    )
    args = parser.parse_args()
    nodes_wanted = 2 if args.mode == "kill" else args.nodes
    folder = Path(tempfile.mkdtemp(prefix="sanma-load-"))
    with contextlib.ExitStack() as stack:
        database_url = stack.enter_context(scratch_postgres(args.pg_dir))
        if args.server_root.resolve() == ROOT:  # else the older server migrates its own schema
            engine = db.open_engine(database_url)
            db.upgrade(engine)
            engine.dispose()
        redis_url = stack.enter_context(scratch_redis()) if nodes_wanted > 1 else ""
        nodes = start_nodes(
            nodes_wanted,
            database_url,
            redis_url,
            args.pace,
            folder,
            args.gc_freeze,
            args.server_root,
            args.bot_workers,
            args.cpu_per_node,
        )
        try:
            cores = psutil.cpu_count()
            print(
                f"{nodes_wanted} server process(es), {cores} cores, pace {args.pace} s, bots {args.level}, "
                f"bot workers {args.bot_workers}, gc freeze {args.gc_freeze} s, "
                f"cpu per node {args.cpu_per_node or 'uncapped'}, logs in {folder}"
            )
            if args.mode == "ramp":
                out: Any = asyncio.run(ramp(args, nodes))
            elif args.mode == "attack":
                out = asyncio.run(attack(args, nodes, folder))
            else:
                out = asyncio.run(kill(args, nodes, database_url))
        finally:
            for node in nodes:
                node.stop()
    # the servers' logs, complete now that they stopped
    lost, retaken = log_lines(folder, "lease lost"), log_lines(folder, "taken again")
    leases = {"lease_lost_lines": lost, "lease_retaken_lines": retaken}
    print(f"leases lost {lost}, lapsed and taken again {retaken}", flush=True)
    if isinstance(out, dict):
        out.update(leases)
    if args.mode == "attack":
        out["log_bytes"] = sum(p.stat().st_size for p in folder.glob("node-*.log"))
        print(json.dumps({k: v for k, v in out.items() if k not in ("before", "during", "after")}), flush=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
