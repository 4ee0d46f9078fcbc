"""The server's metrics (``docs/server.md``, "Metrics"): prometheus_client instruments in a
registry of the app's own, and the small functions the rest of the server calls, one per event.

Served in the Prometheus text format on a port of its own (``SANMA_METRICS_PORT``, bound to
``SANMA_METRICS_HOST``, loopback by default), never on the public one: nothing the reverse proxy
forwards can reach it, and no route of the app needs to tell a scraper from a player.  The
scrape runs on the server's event loop, so that the gauges read the rooms and sockets without
racing the code that changes them.

Every label has a bounded set of values: bot levels, route templates, status classes, the
protocol's error codes, the store's statement kinds; never a raw path, an address or an id.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import Engine, event

from sanma.bots.base import Answer, Player

log = logging.getLogger(__name__)

# Seconds between two wake-ups of the lag probe: its own cost is one timer per period.
LAG_PERIOD_S = 0.5
# Bot decisions take from microseconds (a pass) to the budget (5 s by default).
DECISION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
LAG_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
QUICK_BUCKETS = (0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0)
STORE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
# The store's statement kinds (the first word of the SQL); anything else counts as "other".
STATEMENTS = frozenset({"select", "insert", "update", "delete", "with", "begin", "commit", "rollback"})
# A scrape's request head: one short GET; more, or slower, is not a scraper.
MAX_HEAD_BYTES = 8192
HEAD_TIMEOUT_S = 5.0


def bot_level(player: Player) -> str:
    """The level a bot plays (``registry.LEVELS``'s names), from the name its class shows
    players; a player of no known level is ``other`` (a bounded label)."""
    from sanma.bots.registry import LEVELS

    names = {display: level for level, (_module, _cls, display) in LEVELS.items()}
    return names.get(getattr(player, "name", ""), "other")


class Metrics:
    """One app's instruments.  ``tables`` and ``sockets`` (set by the app) count the rooms in
    memory and the open sockets at each scrape."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.events = Counter("sanma_events_appended", "Match events appended to the store", registry=r)
        self.decisions = Counter(
            "sanma_bot_decisions", "Bot decisions, by level and outcome", ["level", "outcome"], registry=r
        )
        self.decision_seconds = Histogram(
            "sanma_bot_decision_seconds",
            "Seconds a bot took to decide",
            ["level"],
            buckets=DECISION_BUCKETS,
            registry=r,
        )
        self.loop_lag = Histogram(
            "sanma_event_loop_lag_seconds", "How late the event loop woke a timer", buckets=LAG_BUCKETS, registry=r
        )
        self.http = Counter(
            "sanma_http_answers", "HTTP answers, by route template and status class", ["route", "status"], registry=r
        )
        self.socket_errors = Counter(
            "sanma_socket_errors", "WebSocket error frames and closes, by code", ["code"], registry=r
        )
        self.store_seconds = Histogram(
            "sanma_store_seconds", "Seconds a store statement took", ["statement"], buckets=STORE_BUCKETS, registry=r
        )
        self.handovers = Counter(
            "sanma_lease_handovers", "Room leases handed over between processes", ["direction"], registry=r
        )
        self.matches = Counter("sanma_matches", "Matches started and ended here", ["kind", "phase"], registry=r)
        self.quick_wait = Histogram(
            "sanma_quick_wait_seconds",
            "Seconds a player waited in the quick-match queue for its table (sockets of this process)",
            ["length"],
            buckets=QUICK_BUCKETS,
            registry=r,
        )
        self.tables: Callable[[], Mapping[tuple[str, str], int]] = dict
        self.sockets: Callable[[], Mapping[str, int]] = dict
        self.queue: Callable[[], Mapping[str, int]] = dict
        r.register(_Snapshot(self))

    # -- one call per event ----------------------------------------------------------------

    def appended(self, count: int) -> None:
        """``count`` events were appended to a match's log."""
        self.events.inc(count)

    def decided(self, player: Player, answer: Answer) -> str:
        """A bot answered (``answer.status``: ok, error, illegal, overrun); its level."""
        level = bot_level(player)
        self.decisions.labels(level, answer.status).inc()
        self.decision_seconds.labels(level).observe(answer.seconds)
        return level

    def answered(self, route: str, status: int) -> None:
        """An HTTP answer of ``status`` to a request of ``route`` (a template)."""
        self.http.labels(route, f"{status // 100}xx").inc()

    def socket_error(self, code: str) -> None:
        """An error frame or a close sent to a WebSocket client (a protocol code)."""
        self.socket_errors.labels(code).inc()

    def handed_over(self, direction: str) -> None:
        """A room's lease changed hands: ``taken`` by this process, or ``lost`` to another."""
        self.handovers.labels(direction).inc()

    def match(self, kind: str, phase: str) -> None:
        """A match of ``kind`` ``started`` or ``ended`` in this process."""
        self.matches.labels(kind, phase).inc()

    def quick_seated(self, length: str, waited_s: float) -> None:
        """A player queued on this process was seated after ``waited_s`` seconds."""
        self.quick_wait.labels(length).observe(waited_s)

    # -- probes ----------------------------------------------------------------------------

    async def watch_loop(self, period_s: float = LAG_PERIOD_S) -> None:
        """Until cancelled: sleep ``period_s`` and record how late the loop woke."""
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + period_s
            await asyncio.sleep(period_s)
            self.loop_lag.observe(max(0.0, loop.time() - due))

    @contextlib.contextmanager
    def timing_store(self, engine: Engine) -> Iterator[None]:
        """While inside: every statement ``engine`` runs is timed, by kind (SQLAlchemy's
        cursor events, in whichever thread runs the statement)."""

        def before(_conn: Any, _cursor: Any, _sql: str, _params: Any, context: Any, _many: bool) -> None:
            context._sanma_start = time.perf_counter()

        def after(_conn: Any, _cursor: Any, sql: str, _params: Any, context: Any, _many: bool) -> None:
            start = getattr(context, "_sanma_start", None)
            if start is not None:
                word = sql.lstrip().split(None, 1)[0].lower() if sql.strip() else ""
                self.store_seconds.labels(word if word in STATEMENTS else "other").observe(time.perf_counter() - start)

        event.listen(engine, "before_cursor_execute", before)
        event.listen(engine, "after_cursor_execute", after)
        try:
            yield
        finally:
            event.remove(engine, "before_cursor_execute", before)
            event.remove(engine, "after_cursor_execute", after)

    def exposition(self) -> bytes:
        """The registry in the Prometheus text format."""
        return generate_latest(self.registry)


class _Snapshot(Collector):
    """The gauges, read at each scrape from the app's state (``Metrics.tables``, ``Metrics.sockets``)."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterable[GaugeMetricFamily]:
        tables = GaugeMetricFamily(
            "sanma_tables",
            "Tables in memory, by kind (practice, room) and state (playing, ended)",
            labels=["kind", "state"],
        )
        for (kind, state), n in sorted(self.metrics.tables().items()):
            tables.add_metric([kind, state], n)
        sockets = GaugeMetricFamily(
            "sanma_sockets", "Open WebSockets, by kind (unjoined, player, watcher)", labels=["kind"]
        )
        for kind, n in sorted(self.metrics.sockets().items()):
            sockets.add_metric([kind], n)
        queue = GaugeMetricFamily(
            "sanma_quick_waiting", "Players waiting for a quick match on this process's sockets", labels=["length"]
        )
        for length, n in sorted(self.metrics.queue().items()):
            queue.add_metric([length], n)
        return [tables, sockets, queue]


class HttpCounter:
    """ASGI middleware: counts every HTTP answer by the route template the router matched
    (``(web)`` for the client's files, ``(none)`` for an API path no route has) and status class."""

    def __init__(self, app: Any, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = [500]  # an app that raised before answering: the server answers 500

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            self.metrics.answered(route_template(scope), status[0])


def route_template(scope: dict[str, Any]) -> str:
    """The template of the route that handled ``scope`` (never the raw path)."""
    route = scope.get("route")
    path = getattr(route, "path_format", None) or getattr(route, "path", None)
    if isinstance(path, str) and path.startswith("/api"):
        return path
    return "(none)" if str(scope.get("path", "")).startswith("/api") else "(web)"


AdminAnswer = Callable[[str, str, str, bytes], Awaitable[tuple[int, bytes]]]
"""``(method, path, authorization, body) -> (status, JSON body)``: the admin routes (server/admin.py)."""
MAX_ADMIN_BODY = 4096


async def serve_metrics(metrics: Metrics, host: str, port: int, admin: AdminAnswer | None = None) -> asyncio.Server:
    """A listener on ``host:port`` that answers ``GET /metrics`` with the exposition, requests
    under ``/admin/`` with ``admin`` when given (``SANMA_ADMIN_TOKEN``), and 404 to anything
    else, on this event loop."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT_S)
            lines = head.split(b"\r\n")
            method, target = ([*lines[0].split(b" "), b"", b""])[:2]
            path = target.split(b"?", 1)[0]
            if method == b"GET" and path == b"/metrics":
                status, kind, body = "200 OK", CONTENT_TYPE_LATEST, metrics.exposition()
            elif admin is not None and path.startswith(b"/admin/"):
                status, kind, body = await _admin_answer(admin, reader, method, path, _headers(lines[1:]))
            else:
                status, kind, body = "404 Not Found", "text/plain; charset=utf-8", b"not found\n"
            writer.write(
                f"HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n"
                "Connection: close\r\n\r\n".encode()
                + body
            )
            await writer.drain()
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass  # not a scraper, or gone: just close
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    return await asyncio.start_server(answer, host, port, limit=MAX_HEAD_BYTES)


def _headers(lines: list[bytes]) -> dict[str, str]:
    """A request head's header lines, by lower-case name."""
    found: dict[str, str] = {}
    for line in lines:
        name, sep, value = line.partition(b":")
        if sep:
            found[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
    return found


async def _admin_answer(
    admin: AdminAnswer, reader: asyncio.StreamReader, method: bytes, path: bytes, headers: dict[str, str]
) -> tuple[str, str, bytes]:
    """Read an admin request's body (``Content-Length``, small) and answer it."""
    try:
        length = int(headers.get("content-length", "0"))
    except ValueError:
        length = -1
    if not 0 <= length <= MAX_ADMIN_BODY:
        return "400 Bad Request", "application/json", b'{"error":"bad_body","detail":"a small JSON body"}'
    body = await asyncio.wait_for(reader.readexactly(length), HEAD_TIMEOUT_S) if length else b""
    code, answer = await admin(method.decode("latin-1"), path.decode("latin-1"), headers.get("authorization", ""), body)
    return f"{code} {_REASONS.get(code, 'Error')}", "application/json", answer


_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    409: "Conflict",
    501: "Not Implemented",
    503: "Service Unavailable",
}
