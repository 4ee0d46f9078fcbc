"""``create_app(settings, **overrides)``: the server app (FastAPI, on Starlette) with everything wired in.

The HTTP API is a set of routers under ``/api`` (``server/api/``; the OpenAPI schema at
``/api/openapi.json``, its pages at ``/api/docs``), the WebSocket is ``/ws`` and the browser
client (``web/``) is served at ``/``.  Overrides (for tests): ``engine`` (a SQLAlchemy engine),
``make_bot`` (``(level, seat, seed) -> Player``), ``seed_source`` (``() -> int``, the match
seeds), ``seat_source`` (``() -> int`` for ``"seat": "random"``).
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

from sanma.bots.registry import make_bot
from sanma.server.api import accounts, history, practice, replays, shop
from sanma.server.api.deps import ApiError, Services
from sanma.server.api.rooms import router as rooms_router
from sanma.server.rooms import RoomHost, RoomRegistry
from sanma.server.settings import Settings
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
        overrides.get("make_bot", make_bot),
        bot_delay_s=settings.bot_delay_s,
        bot_budget_s=settings.bot_budget_s,
        host=RoomHost.open(settings.redis_url, settings.node_id or None, lease_ttl_s=settings.lease_ttl_s),
        keep_ended_s=settings.keep_ended_s,
    )
    seed_source: Callable[[], int] = overrides.get("seed_source", new_seed)
    seat_source: Callable[[], int] = overrides.get("seat_source", lambda: secrets.randbelow(3))

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(db.upgrade, engine)
        rooms.start()  # scale-out: renew leases, watch remote rooms, adopt orphaned ones
        try:
            yield
        finally:
            await rooms.close()

    app = FastAPI(
        title="Sanma",
        summary=(
            "Three-player riichi mahjong: guests, practice, friend rooms, accounts, shop and history;"
            " the game itself runs over the WebSocket /ws (docs/protocol.md)."
        ),
        version="1",
        lifespan=lifespan,
        docs_url="/api/docs",
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.services = Services(settings, engine, rooms, seed_source, seat_source)
    app.state.settings = settings
    app.state.engine = engine
    app.state.rooms = rooms
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.include_router(practice.router)
    app.include_router(rooms_router)
    app.include_router(accounts.router)
    app.include_router(shop.router)
    app.include_router(history.router)
    app.include_router(replays.router)

    @app.websocket("/ws")
    async def websocket(ws: WebSocket) -> None:
        await serve_socket(ws, settings, rooms)

    if WEB_DIR.is_dir():
        app.mount("/", StaticFiles(directory=WEB_DIR, html=True), name="web")
    app.add_middleware(SecurityHeaders)
    # Outermost, so that an oversized body is refused before anything reads it.
    app.add_middleware(
        BodyLimit, max_bytes=MAX_BODY_BYTES, wider=dict.fromkeys(replays.LOG_PATHS, replays.LOG_MAX_BYTES)
    )
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
# FastAPI's Swagger page loads its script and style from a CDN: it gets no content policy.
_NO_CSP_PATHS = ("/api/docs",)
_WITH_CSP = [*SECURITY_HEADERS, (b"content-security-policy", CONTENT_SECURITY_POLICY.encode())]


class SecurityHeaders:
    """Add the security headers to every HTTP answer (pure ASGI; WebSockets pass untouched)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = SECURITY_HEADERS if str(scope.get("path", "")).startswith(_NO_CSP_PATHS) else _WITH_CSP

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)


async def _api_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return JSONResponse(exc.body(), status_code=exc.status)


# Starlette's own refusals (unknown route, wrong method, unreadable body) in our error shape.
_HTTP_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "too_large"}


async def _http_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    return JSONResponse(
        ApiError(exc.status_code, code, str(exc.detail)).body(), status_code=exc.status_code, headers=exc.headers
    )


async def _validation_error(_request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's validation failures in our one error shape: 400 for a body that is not
    JSON, 422 for one that does not match the schema."""
    assert isinstance(exc, RequestValidationError)
    errors = list(exc.errors())
    # Not JSON at all, or a body sent without the JSON content type (FastAPI then hands the raw bytes).
    if any(e.get("type") == "json_invalid" or isinstance(e.get("input"), bytes) for e in errors):
        detail = "the body is a JSON object sent with Content-Type: application/json"
        return JSONResponse(ApiError(400, "bad_json", detail).body(), status_code=400)
    parts = []
    for e in errors[:5]:
        where = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
        parts.append(f"{where or 'body'}: {e.get('msg', 'invalid')}")
    return JSONResponse(ApiError(422, "bad_schema", "; ".join(parts)).body(), status_code=422)


class BodyLimit:
    """Refuse HTTP request bodies over ``max_bytes`` with 413 (``too_large``), whether the
    client announced the length or not (pure ASGI, so WebSockets pass untouched)."""

    def __init__(self, app: ASGIApp, max_bytes: int, wider: dict[str, int] | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.wider = wider or {}  # paths whose body is a file (an opened replay log): their own limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] in self.wider:
            await BodyLimit(self.app, self.wider[scope["path"]])(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await _too_large(self.max_bytes)(scope, receive, send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _BodyTooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _BodyTooLarge:
            await _too_large(self.max_bytes)(scope, receive, send)


class _BodyTooLarge(Exception):
    pass


def _too_large(max_bytes: int) -> JSONResponse:
    return JSONResponse(ApiError(413, "too_large", f"the body is at most {max_bytes} bytes").body(), status_code=413)
