"""``create_app(settings, **overrides)``: the server app (FastAPI, on Starlette) with everything wired in.

The HTTP API is a set of routers under ``/api`` (``server/api/``; the OpenAPI schema at
``/api/openapi.json``, its pages at ``/api/docs`` from pinned local assets, ``api/docs.py``),
the WebSocket is ``/ws`` and the browser client (``web/``) is served at ``/``.  Overrides
(for tests): ``engine`` (a SQLAlchemy engine), ``make_bot`` (``(level, seat, seed) -> Player``;
``registry.live_bot`` by default), ``seed_source`` (``() -> int``, the match seeds),
``seat_source`` (``() -> int`` for ``"seat": "random"``).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy import Engine
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sanma.bots.registry import live_bot
from sanma.server.api import accounts, docs, history, practice, replays, reviews, shop
from sanma.server.api.deps import ApiError, Services
from sanma.server.api.rooms import router as rooms_router
from sanma.server.logwork import LogBusy, LogWork
from sanma.server.reviewer import Reviewer
from sanma.server.rooms import RoomHost, RoomRegistry
from sanma.server.settings import Settings
from sanma.server.webfiles import WebFiles
from sanma.server.ws import serve_socket
from sanma.store import db

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
    rooms = RoomRegistry(
        engine,
        overrides.get("make_bot", live_bot),
        bot_delay_s=settings.bot_delay_s,
        bot_budget_s=settings.bot_budget_s,
        host=RoomHost.open(settings.redis_url, settings.node_id or None, lease_ttl_s=settings.lease_ttl_s),
        keep_ended_s=settings.keep_ended_s,
        practice_idle_s=settings.practice_idle_s,
    )
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

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(db.upgrade, engine)
        rooms.start()  # scale-out: renew leases, watch remote rooms, adopt orphaned ones
        await reviewer.start()  # reviews left running by a previous run are queued again
        try:
            yield
        finally:
            await reviewer.close()
            await log_work.close()
            await rooms.close()

    app = FastAPI(
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
    )
    app.state.services = Services(settings, engine, rooms, seed_source, seat_source)
    app.state.settings = settings
    app.state.engine = engine
    app.state.rooms = rooms
    app.state.reviews = reviewer
    app.state.log_work = log_work
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(LogBusy, _log_busy)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.include_router(practice.router)
    app.include_router(rooms_router)
    app.include_router(accounts.router)
    app.include_router(shop.router)
    app.include_router(history.router)
    if settings.api_docs and docs.available():
        app.include_router(docs.router)
    app.include_router(replays.router)
    app.include_router(reviews.router)

    @app.websocket("/ws")
    async def websocket(ws: WebSocket) -> None:
        await serve_socket(ws, settings, rooms)

    if WEB_DIR.is_dir():
        app.mount("/", StaticFiles(directory=WEB_DIR, html=True), name="web")
        # The client's files from memory, before the routes are tried (server/webfiles.py).
        app.add_middleware(WebFiles, directory=WEB_DIR)
    # Before anything reads the body, an oversized or stalled one is refused; the security
    # headers outermost, so that such refusals carry them too.
    app.add_middleware(
        BodyLimit,
        max_bytes=MAX_BODY_BYTES,
        wider=dict.fromkeys(replays.LOG_PATHS, replays.LOG_MAX_BYTES),
        timeout_s=settings.body_timeout_s,
    )
    app.add_middleware(SecurityHeaders)
    return app


# The web client is plain ES modules and a stylesheet from this origin, talking to this origin
# (HTTP and the WebSocket): nothing inline, nothing from elsewhere, never framed.  A script
# injected through some escaping bug would find nowhere to load from and nowhere to send to.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),  # an invite link (?room=CODE) never leaks to another site
    (b"x-frame-options", b"DENY"),
]
_WITH_CSP = [*SECURITY_HEADERS, (b"content-security-policy", CONTENT_SECURITY_POLICY.encode())]
# API answers are one guest's (tokens, profiles, matches): never kept by a browser or a proxy.
_NO_STORE = (b"cache-control", b"no-store")


class SecurityHeaders:
    """Add the security headers to every HTTP answer, and ``Cache-Control: no-store`` to API
    answers that set no caching of their own (pure ASGI; WebSockets pass untouched)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = str(scope.get("path", "")).startswith("/api/")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), *_WITH_CSP]
                if api and not any(name.lower() == b"cache-control" for name, _ in headers):
                    headers.append(_NO_STORE)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


async def _api_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return JSONResponse(exc.body(), status_code=exc.status)


async def _log_busy(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, LogBusy)
    body = ApiError(503, "log_busy", str(exc)).body()
    return JSONResponse(body, status_code=503, headers={"Retry-After": str(exc.retry_after_s)})


# Starlette's own refusals (unknown route, wrong method, unreadable body) in our error shape.
_HTTP_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 408: "timeout", 413: "too_large"}


_NOT_JSON = "the body is a JSON object sent with Content-Type: application/json"


async def _http_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    detail = str(exc.detail)
    # FastAPI turns any failure to decode a JSON body other than a syntax error (invalid
    # UTF-8: UnicodeDecodeError; nesting deeper than Python recurses: RecursionError) into a
    # plain 400: it is a body that is not JSON all the same.
    if exc.status_code == 400 and isinstance(exc.__cause__, ValueError | RecursionError):
        code, detail = "bad_json", _NOT_JSON
    body = ApiError(exc.status_code, code, detail).body()
    return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)


async def _validation_error(_request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's validation failures in our one error shape: 400 for a body that is not
    JSON, 422 for one that does not match the schema."""
    assert isinstance(exc, RequestValidationError)
    errors = list(exc.errors())
    # Not JSON at all, or a body sent without the JSON content type (FastAPI then hands the raw bytes).
    if any(e.get("type") == "json_invalid" or isinstance(e.get("input"), bytes) for e in errors):
        return JSONResponse(ApiError(400, "bad_json", _NOT_JSON).body(), status_code=400)
    parts = []
    for e in errors[:5]:
        where = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
        parts.append(f"{where or 'body'}: {e.get('msg', 'invalid')}")
    return JSONResponse(ApiError(422, "bad_schema", "; ".join(parts)).body(), status_code=422)


class BodyLimit:
    """Refuse HTTP request bodies over ``max_bytes`` with 413 (``too_large``), whether the
    client announced the length or sent it in chunks; a ``Content-Length`` that is not a
    number with 400 (``bad_request``); a body not all there ``timeout_s`` after the request
    began (plus a second per 64 KiB allowed above 64 KiB) with 408 (``timeout``).  ``wider``:
    paths allowed a larger body (a log file).  Pure ASGI, so WebSockets pass untouched."""

    def __init__(
        self, app: ASGIApp, max_bytes: int, wider: dict[str, int] | None = None, timeout_s: float = 10.0
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.wider = dict(wider or {})
        self.timeout_s = timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = [v.strip() for k, v in scope["headers"] if k == b"content-length"]
        if declared and not all(v.isdigit() and v == declared[0] for v in declared):
            await _refusal(400, "bad_request", "Content-Length is not a number")(scope, receive, send)
            return
        limit = self.wider.get(str(scope.get("path", "")), self.max_bytes)
        if declared and int(declared[0]) > limit:
            await _too_large(limit)(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s + max(0, limit - 65536) / 65536
        seen = 0
        started = False

        async def limited() -> Message:
            nonlocal seen
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                raise _BodyLate(self.timeout_s) from None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _BodyTooLarge(limit)
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited, tracked)
        except (_BodyTooLarge, _BodyLate) as exc:  # raised where no exception handler caught it
            if started:
                raise
            await _refusal(exc.status_code, _HTTP_CODES[exc.status_code], str(exc.detail), close=True)(
                scope, receive, send
            )


class _BodyTooLarge(StarletteHTTPException):
    """An HTTP exception, so that FastAPI's body reading lets it through to the 413 handler."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(413, f"the body is at most {max_bytes} bytes", headers={"connection": "close"})


class _BodyLate(StarletteHTTPException):
    def __init__(self, timeout_s: float) -> None:
        super().__init__(408, f"the body did not arrive within {timeout_s:g} s", headers={"connection": "close"})


def _too_large(max_bytes: int) -> JSONResponse:
    return _refusal(413, "too_large", f"the body is at most {max_bytes} bytes", close=True)


def _refusal(status: int, code: str, detail: str, *, close: bool = False) -> JSONResponse:
    headers = {"connection": "close"} if close else None
    return JSONResponse(ApiError(status, code, detail).body(), status_code=status, headers=headers)
