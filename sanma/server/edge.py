"""The app's HTTP edge: every answer in one shape and with the security headers, bodies bounded
in size and in time, bad input logged once a minute instead of once a request.

- ``EdgeApp``: FastAPI with ``SecurityHeaders(LastResort(...))`` around its whole middleware
  stack.  Starlette's ``ServerErrorMiddleware`` sits outside every ``add_middleware`` one, so a
  500 never passed through a header middleware added that way; here it does.
- ``LastResort``: an exception nobody caught is logged with its traceback through the
  ``ThrottledLog`` (one per fault and route a minute) and answered ``500 server_error`` in the
  API's shape; it is not raised on to uvicorn, which would log it again, unthrottled.
- ``BodyLimit``: bodies over a route's size (413) or slower than the deadline (408).
- ``finite_json``: a JSON body holding ``NaN``, ``Infinity`` or a number a float cannot hold
  (``1e999``) is ``400 bad_json`` like any other body that is not JSON (RFC 8259 has none of
  them); Python's parser accepts them, so pydantic would have judged them against the schema.
- The exception handlers: every refusal as ``{"error": code, "detail": text}``
  (``ApiError.body()``); bad input (``BAD_INPUT``) writes one line per kind and client address
  a minute, never a traceback.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sanma.server.api.deps import ApiError
from sanma.server.netaddr import client_key
from sanma.server.settings import Settings
from sanma.server.throttlelog import ThrottledLog

log = logging.getLogger("sanma.http")

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

# The refusals that are the client's fault and say nothing about the server: one log line per
# kind and client address a minute.  (401, 404, 405, 429 and the routes' own refusals are
# ordinary answers and write nothing.)
BAD_INPUT = frozenset({"bad_json", "bad_schema", "bad_request", "too_large", "timeout"})

_NOT_JSON = "the body is a JSON object sent with Content-Type: application/json"
_NOT_FINITE = "the body is JSON without NaN, Infinity or numbers out of a float's range"
# Starlette's own refusals (unknown route, wrong method, unreadable body) in our error shape.
_HTTP_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 408: "timeout", 413: "too_large"}


def refusal_headers(body: bytes) -> list[tuple[bytes, bytes]]:
    """The head of a JSON refusal written outside the app (``serving.py``): its body's type and
    length, ``Connection: close``, the security headers and ``no-store``."""
    return [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        *_WITH_CSP,
        _NO_STORE,
    ]


class EdgeApp(FastAPI):
    """FastAPI with ``SecurityHeaders`` and ``LastResort`` around everything, Starlette's own
    error middleware included (``install`` wires the rest)."""

    def build_middleware_stack(self) -> ASGIApp:
        quiet: ThrottledLog = self.state.quiet_log
        return SecurityHeaders(LastResort(super().build_middleware_stack(), quiet))


def install(app: EdgeApp, settings: Settings, *, max_bytes: int, wider: dict[str, int]) -> None:
    """The edge on ``app``: the throttled log, the exception handlers, ``BodyLimit``.  Call it
    after every other ``add_middleware``, so that ``BodyLimit`` is outermost of those.  The
    refusals find the log and the settings on ``app.state`` (``quiet_log``, ``settings``)."""
    app.state.quiet_log = ThrottledLog(log)
    app.state.settings = settings
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _server_error)  # Starlette's ServerErrorMiddleware answers it
    app.add_middleware(
        BodyLimit,
        max_bytes=max_bytes,
        wider=wider,
        timeout_s=settings.body_timeout_s,
        min_rate=settings.body_min_rate,
    )


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


class LastResort:
    """Catch what no handler did: log it (traceback included, throttled per fault and route)
    and answer ``500 server_error`` if nothing was answered yet.  Starlette's error middleware,
    inside, has usually answered already (with ``_server_error``) and raised on."""

    def __init__(self, app: ASGIApp, quiet: ThrottledLog) -> None:
        self.app = app
        self.quiet = quiet

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:
            route = getattr(scope.get("route"), "path", None) or scope.get("path", "")
            method = scope.get("method", "")
            fault = f"{type(exc).__name__} at {method} {route}"
            self.quiet.write(logging.ERROR, "server_error", fault, "500: %s", fault, exc_info=exc)
            if not started:  # answered half-way: uvicorn closes the connection
                await _server_error_answer()(scope, receive, send)


async def finite_json(connection: HTTPConnection) -> None:
    """An app-wide dependency: a route's JSON body (already parsed by FastAPI) holding
    ``NaN``, ``Infinity`` or a number beyond a float is ``400 bad_json``."""
    route = connection.scope.get("route")
    if not isinstance(connection, Request) or getattr(route, "body_field", None) is None:
        return  # a WebSocket, or a route that reads its body itself (a log file)
    try:
        body = await connection.json()  # FastAPI's own parse, kept on the request
    except (ValueError, RecursionError):
        return  # not JSON at all (or not sent as JSON): FastAPI refuses it on its own
    if not _finite(body):
        raise ApiError(400, "bad_json", _NOT_FINITE)


def _finite(value: Any) -> bool:
    """Whether no float in ``value`` (parsed JSON) is NaN or infinite (walked without
    recursion: a body may nest as deep as the parser allowed)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return False
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def _note(scope: Scope, code: str, detail: str) -> None:
    """One line for a refusal of bad input, throttled per kind and client address."""
    app = scope.get("app")
    quiet: ThrottledLog | None = getattr(getattr(app, "state", None), "quiet_log", None)
    settings: Settings | None = getattr(getattr(app, "state", None), "settings", None)
    if quiet is None or settings is None or code not in BAD_INPUT:
        return
    address = client_key(scope, settings).removeprefix("ip:")
    method, path = scope.get("method", ""), scope.get("path", "")
    quiet.write(logging.WARNING, code, address, "refused %s %s from %s: %s (%s)", method, path, address, code, detail)


def _answer(
    request: Request, status: int, code: str, detail: str, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    _note(request.scope, code, detail)
    return JSONResponse(ApiError(status, code, detail).body(), status_code=status, headers=headers)


async def _api_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return _answer(request, exc.status, exc.code, exc.detail)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    detail = str(exc.detail)
    # FastAPI turns any failure to decode a JSON body other than a syntax error (invalid
    # UTF-8: UnicodeDecodeError; an integer over Python's 4,300 digits: ValueError; nesting
    # deeper than Python recurses: RecursionError) into a plain 400: it is a body that is not
    # JSON all the same.
    if exc.status_code == 400 and isinstance(exc.__cause__, ValueError | RecursionError):
        code, detail = "bad_json", _NOT_JSON
    return _answer(request, exc.status_code, code, detail, exc.headers)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's validation failures in our one error shape: 400 for a body that is not
    JSON, 422 for one that does not match the schema."""
    assert isinstance(exc, RequestValidationError)
    errors = list(exc.errors())
    # Not JSON at all, or a body sent without the JSON content type (FastAPI then hands the raw bytes).
    if any(e.get("type") == "json_invalid" or isinstance(e.get("input"), bytes) for e in errors):
        return _answer(request, 400, "bad_json", _NOT_JSON)
    parts = []
    for e in errors[:5]:
        where = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
        parts.append(f"{where or 'body'}: {e.get('msg', 'invalid')}")
    return _answer(request, 422, "bad_schema", "; ".join(parts))


async def _server_error(_request: Request, _exc: Exception) -> JSONResponse:
    """What Starlette's error middleware answers for an exception (``LastResort`` logs it)."""
    return _server_error_answer()


def _server_error_answer() -> JSONResponse:
    body = ApiError(500, "server_error", "the server failed on this request; it has been logged").body()
    return JSONResponse(body, status_code=500, headers={"connection": "close"})


class BodyLimit:
    """Refuse HTTP request bodies over ``max_bytes`` with 413 (``too_large``), whether the
    client announced the length or sent it in chunks; a ``Content-Length`` that is not a
    number with 400 (``bad_request``); a body not all there in time with 408 (``timeout``):
    ``timeout_s`` after the request began plus its length (announced, else the route's
    largest) at ``min_rate`` bytes a second.  ``wider``: paths allowed a larger body (a log
    file).  Pure ASGI, so WebSockets pass untouched."""

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int,
        wider: dict[str, int] | None = None,
        timeout_s: float = 5.0,
        min_rate: int = 524_288,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.wider = dict(wider or {})
        self.timeout_s = timeout_s
        self.min_rate = min_rate

    def allowance_s(self, length: int) -> float:
        """Seconds a body of ``length`` bytes may take."""
        return self.timeout_s + length / self.min_rate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = [v.strip() for k, v in scope["headers"] if k == b"content-length"]
        if declared and not all(v.isdigit() and v == declared[0] for v in declared):
            await _refusal(scope, 400, "bad_request", "Content-Length is not a number")(scope, receive, send)
            return
        limit = self.wider.get(str(scope.get("path", "")), self.max_bytes)
        if declared and int(declared[0]) > limit:
            await _refusal(scope, 413, "too_large", f"the body is at most {limit} bytes")(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        allowance = self.allowance_s(int(declared[0]) if declared else limit)
        deadline = loop.time() + allowance
        seen = 0
        started = False

        async def limited() -> Message:
            nonlocal seen
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                raise _BodyLate(allowance) from None
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
            code = _HTTP_CODES[exc.status_code]
            await _refusal(scope, exc.status_code, code, str(exc.detail))(scope, receive, send)


class _BodyTooLarge(StarletteHTTPException):
    """An HTTP exception, so that FastAPI's body reading lets it through to the 413 handler."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(413, f"the body is at most {max_bytes} bytes", headers={"connection": "close"})


class _BodyLate(StarletteHTTPException):
    def __init__(self, allowance_s: float) -> None:
        super().__init__(408, f"the body did not arrive within {allowance_s:.1f} s", headers={"connection": "close"})


def _refusal(scope: Scope, status: int, code: str, detail: str) -> JSONResponse:
    """A refusal ``BodyLimit`` answers itself (before or around the app): the connection closes,
    since the rest of the body is not read (``serving.py`` reads and drops what still comes for
    a moment first, so that the client is not reset before it reads this answer)."""
    _note(scope, code, detail)
    return JSONResponse(ApiError(status, code, detail).body(), status_code=status, headers={"connection": "close"})
