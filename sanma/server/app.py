"""``create_app(settings, **overrides)``: the server app (FastAPI, on Starlette) with everything wired in.

The HTTP API is a set of routers under ``/api`` (``server/api/``; the OpenAPI schema at
``/api/openapi.json``, its pages at ``/api/docs`` from pinned local assets, ``api/docs.py``),
the WebSocket is ``/ws`` and the browser client (``web/``) is served at ``/``.  Overrides
(for tests): ``engine`` (a SQLAlchemy engine), ``make_bot`` (``(level, seat, seed) -> Player``;
``server/botpool.py``'s worker processes by default), ``seed_source`` (``() -> int``, the match seeds),
``seat_source`` (``() -> int`` for ``"seat": "random"``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse
from sqlalchemy import Engine
from starlette.staticfiles import StaticFiles

from sanma.bots.registry import make_bot
from sanma.server import edge
from sanma.server.admin import Admin
from sanma.server.api import accounts, docs, drills, history, practice, quick, replays, reviews, shop
from sanma.server.api.deps import ApiError, Services
from sanma.server.api.rooms import router as rooms_router
from sanma.server.botpool import BotPool
from sanma.server.logwork import LogBusy, LogWork
from sanma.server.metrics import HttpCounter, Metrics, serve_metrics
from sanma.server.quickws import QuickGate
from sanma.server.reviewer import Reviewer
from sanma.server.rooms import RoomHost, RoomRegistry
from sanma.server.settings import Settings
from sanma.server.webfiles import WebFiles
from sanma.server.ws import serve_socket, socket_kinds
from sanma.store import db

log = logging.getLogger("sanma.server")

MAX_BODY_BYTES = 4096
# The browser client: plain files, served as they are (no build step).
WEB_DIR = Path(__file__).resolve().parents[2] / "web"


def new_seed() -> int:
    """A match seed: 64 random bits from ``secrets`` (docs/match.md: small seeds leak walls)."""
    return secrets.randbits(64)


def create_app(settings: Settings, **overrides: Any) -> FastAPI:
    """The server app for ``settings``; see the module docstring for ``overrides``."""
    unknown = set(overrides) - {"engine", "make_bot", "seed_source", "seat_source"}
    if unknown:
        raise TypeError(f"unknown overrides {sorted(unknown)}")
    engine: Engine = overrides.get("engine") or db.open_engine(settings.db_url)
    metrics = Metrics()  # the app's own registry: apps in one process (tests) do not share counts
    # The bots think in worker processes (spawned by the first question, stopped with the app).
    bots = BotPool(settings.bot_workers) if settings.bot_workers else None
    rooms = RoomRegistry(
        engine,
        overrides.get("make_bot", bots.make_bot if bots else make_bot),
        bot_delay_s=settings.bot_delay_s,
        bot_budget_s=settings.bot_budget_s,
        host=RoomHost.open(settings.redis_url, settings.node_id or None, lease_ttl_s=settings.lease_ttl_s),
        keep_ended_s=settings.keep_ended_s,
        practice_idle_s=settings.practice_idle_s,
        metrics=metrics,
    )
    metrics.tables = rooms.tables
    metrics.sockets = lambda: socket_kinds(rooms)
    seed_source: Callable[[], int] = overrides.get("seed_source", new_seed)
    seat_source: Callable[[], int] = overrides.get("seat_source", lambda: secrets.randbelow(3))
    reviewer = Reviewer(
        engine,
        workers=settings.review_workers,
        queue_cap=settings.review_queue,
        node=rooms.node,
        sole=not settings.redis_url,
    )
    # Opening, checking and rendering logs (server/logwork.py): worker processes, spawned by the
    # first job, stopped with the app.
    log_work = LogWork(workers=settings.log_workers, queue_cap=settings.log_queue, cpu_s=settings.log_cpu_s)
    # The operator's actions (server/admin.py): on the metrics port with SANMA_ADMIN_TOKEN; every
    # process listens for the bars on the bus either way.
    admin = Admin(rooms, settings.admin_token)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(db.upgrade, engine)
        rooms.start()  # scale-out: renew leases, watch remote rooms, adopt orphaned ones
        quick_gate.matchmaker.start()  # the quick match's matchmaker (acts while it holds its lease)
        admin.start()
        await reviewer.start()  # reviews left running by a previous run are queued again
        async with _metered(metrics, engine, settings, admin):
            log.info(
                "server started on %s (node %s, %s bus)",
                settings.url,
                rooms.node,
                "redis" if settings.redis_url else "memory",
                extra={"event": "server_started", "node": rooms.node, "metrics_port": settings.metrics_port},
            )
            try:
                yield
            finally:
                await reviewer.close()
                await log_work.close()
                await admin.close()
                await quick_gate.matchmaker.close()
                await rooms.close()
                if bots is not None:
                    await bots.close()  # after the rooms: they release their bots as they stop
                log.info("server stopped (node %s)", rooms.node, extra={"event": "server_stopped", "node": rooms.node})

    app = edge.EdgeApp(
        title="Sanma",
        summary=(
            "Three-player riichi mahjong: guests, practice, friend rooms, accounts, shop and history;"
            " the game itself runs over the WebSocket /ws (docs/protocol.md)."
        ),
        version="1",
        lifespan=lifespan,
        docs_url=None,  # api/docs.py: the same pages from local files, under the content policy
        redoc_url=None,
        openapi_url="/api/openapi.json",
        dependencies=[Depends(edge.finite_json)],  # NaN, Infinity, 1e999 in a JSON body: 400 bad_json
    )
    app.state.services = Services(settings, engine, rooms, seed_source, seat_source)
    quick_gate = QuickGate(app.state.services)
    metrics.queue = quick_gate.waiting_here
    app.state.quick = quick_gate
    app.state.settings = settings
    app.state.engine = engine
    app.state.rooms = rooms
    app.state.reviews = reviewer
    app.state.log_work = log_work
    app.state.metrics = metrics
    app.state.admin = admin
    app.add_exception_handler(LogBusy, _log_busy)
    app.include_router(practice.router)
    app.include_router(rooms_router)
    app.include_router(accounts.router)
    app.include_router(shop.router)
    app.include_router(history.router)
    if settings.api_docs and docs.available():
        app.include_router(docs.router)
    app.include_router(replays.router)
    app.include_router(reviews.router)
    app.include_router(drills.router)
    app.include_router(quick.router)

    @app.websocket("/ws")
    async def websocket(ws: WebSocket) -> None:
        await serve_socket(ws, settings, rooms)

    @app.websocket("/ws/quick")
    async def quick_socket(ws: WebSocket) -> None:
        await quick_gate.serve(ws)

    if WEB_DIR.is_dir():
        app.mount("/", StaticFiles(directory=WEB_DIR, html=True), name="web")
        # The client's files from memory, before the routes are tried (server/webfiles.py).
        app.add_middleware(WebFiles, directory=WEB_DIR)
    # Every refusal in one shape; before anything reads a body, an oversized or stalled one is
    # refused; the security headers on every answer, a 500 included (server/edge.py).
    edge.install(app, settings, max_bytes=MAX_BODY_BYTES, wider=dict.fromkeys(replays.LOG_PATHS, replays.LOG_MAX_BYTES))
    app.add_middleware(HttpCounter, metrics=metrics)  # outermost: the edge's refusals count too
    return app


@contextlib.asynccontextmanager
async def _metered(metrics: Metrics, engine: Engine, settings: Settings, admin: Admin) -> AsyncIterator[None]:
    """While the app runs: the event loop's lag and the store's statements are measured, and
    ``/metrics`` is served on its own port when ``SANMA_METRICS_PORT`` is set (with the admin
    routes when ``SANMA_ADMIN_TOKEN`` is)."""
    lag = asyncio.create_task(metrics.watch_loop(), name="metrics-loop-lag")
    listener = None
    try:
        with metrics.timing_store(engine):
            if settings.metrics_port:
                answer = admin.answer if settings.admin_token else None
                listener = await serve_metrics(metrics, settings.metrics_host, settings.metrics_port, answer)
            yield
    finally:
        if listener is not None:
            listener.close()
            await listener.wait_closed()
        lag.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await lag


async def _log_busy(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, LogBusy)
    body = ApiError(503, "log_busy", str(exc)).body()
    return JSONResponse(body, status_code=503, headers={"Retry-After": str(exc.retry_after_s)})
