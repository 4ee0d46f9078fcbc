"""``create_app(settings, **overrides)``: the Starlette app with everything wired in.

Routes: ``POST /api/guest``, ``POST /api/practice``, ``GET /api/matches/{id}``,
``GET /api/health``, the WebSocket ``/ws`` and the browser client (``web/``) at ``/``.
Overrides (for tests): ``engine`` (a SQLAlchemy engine), ``make_bot``
(``(level, seat, seed) -> Player``), ``seed_source`` (``() -> int``, the match seeds),
``seat_source`` (``() -> int`` for ``"seat": "random"``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from sanma.bots.registry import LEVELS, make_bot
from sanma.engine.rules import DEFAULT, MATCH_LENGTHS
from sanma.server.rooms import RoomRegistry
from sanma.server.settings import Settings
from sanma.server.ws import serve_socket
from sanma.store import db
from sanma.store import guests as guest_store
from sanma.store import matches as match_store

MAX_BODY_BYTES = 4096
# The browser client: plain files, served as they are (no build step).
WEB_DIR = Path(__file__).resolve().parents[2] / "web"


def new_seed() -> int:
    """A match seed: 64 random bits from ``secrets`` (docs/match.md: small seeds leak walls)."""
    return secrets.randbits(64)


def create_app(settings: Settings, **overrides: Any) -> Starlette:
    """The server app for ``settings``; see the module docstring for ``overrides``."""
    unknown = set(overrides) - {"engine", "make_bot", "seed_source", "seat_source"}
    if unknown:
        raise TypeError(f"unknown overrides {sorted(unknown)}")
    engine: Engine = overrides.get("engine") or db.open_engine(settings.db_url)
    seed_source: Callable[[], int] = overrides.get("seed_source", new_seed)
    seat_source: Callable[[], int] = overrides.get("seat_source", lambda: secrets.randbelow(3))
    rooms = RoomRegistry(
        engine,
        overrides.get("make_bot", make_bot),
        bot_delay_s=settings.bot_delay_s,
        bot_budget_s=settings.bot_budget_s,
    )

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        await asyncio.to_thread(db.upgrade, engine)
        try:
            yield
        finally:
            await rooms.close()

    async def create_guest(_request: Request) -> JSONResponse:
        guest = await asyncio.to_thread(guest_store.create_guest, engine)
        return JSONResponse({"guest": guest.id, "token": guest.token}, status_code=201)

    async def create_practice(request: Request) -> JSONResponse:
        guest = await _guest(request, engine)
        if guest is None:
            return _problem(401, "unauthorized", "send Authorization: Bearer <guest token>")
        body = await _json_body(request)
        if body is None:
            return _problem(400, "bad_json", f"the body is a JSON object of at most {MAX_BODY_BYTES} bytes")
        try:
            options = practice_options(body)
        except ValueError as exc:
            return _problem(422, "bad_schema", str(exc))
        seat = seat_source() if options["seat"] == "random" else options["seat"]
        rules = DEFAULT.with_options(length=options["length"], red_fives=options["red_fives"])
        room = await rooms.create_practice(
            guest_id=guest, rules=rules, level=options["level"], human_seat=seat, seed=seed_source()
        )
        return JSONResponse({"match": room.id, "seat": seat, "v": room.v}, status_code=201)

    async def get_match(request: Request) -> JSONResponse:
        guest = await _guest(request, engine)
        if guest is None:
            return _problem(401, "unauthorized", "send Authorization: Bearer <guest token>")
        record = await asyncio.to_thread(match_store.get_match, engine, request.path_params["match_id"])
        if record is None or record.guest_id != guest:
            return _problem(404, "no_match", "no such match for this guest")
        count = await asyncio.to_thread(match_store.event_count, engine, record.id)
        return JSONResponse(
            {
                "match": record.id,
                "seat": record.human_seat,
                "status": record.status,
                "bot_level": record.bot_level,
                "rules": record.rules,
                "v": count,
            }
        )

    async def current_match(request: Request) -> JSONResponse:
        guest = await _guest(request, engine)
        if guest is None:
            return _problem(401, "unauthorized", "send Authorization: Bearer <guest token>")
        match_id = await asyncio.to_thread(match_store.latest_playing, engine, guest)
        return JSONResponse({"match": match_id})

    async def health(_request: Request) -> JSONResponse:
        return JSONResponse({"ok": True})

    async def websocket(ws: WebSocket) -> None:
        await serve_socket(ws, settings, rooms)

    routes: list[BaseRoute] = [
        Route("/api/health", health, methods=["GET"]),
        Route("/api/guest", create_guest, methods=["POST"]),
        Route("/api/practice", create_practice, methods=["POST"]),
        Route("/api/practice/current", current_match, methods=["GET"]),
        Route("/api/matches/{match_id}", get_match, methods=["GET"]),
        WebSocketRoute("/ws", websocket),
    ]
    if WEB_DIR.is_dir():
        routes.append(Mount("/", StaticFiles(directory=WEB_DIR, html=True), name="web"))
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.settings = settings
    app.state.engine = engine
    app.state.rooms = rooms
    return app


def practice_options(body: dict[str, Any]) -> dict[str, Any]:
    """Check the options of ``POST /api/practice`` and fill in the defaults
    (``length`` east-south, ``red_fives`` true, ``level`` normal, ``seat`` 0).

    >>> practice_options({"length": "one-hand"})["level"]
    'normal'
    """
    extra = set(body) - {"length", "red_fives", "level", "seat"}
    if extra:
        raise ValueError(f"unexpected field(s) {sorted(extra)}")
    length = body.get("length", "east-south")
    if length not in MATCH_LENGTHS:
        raise ValueError(f"length is one of {', '.join(MATCH_LENGTHS)}")
    red_fives = body.get("red_fives", True)
    if not isinstance(red_fives, bool):
        raise ValueError("red_fives is true or false")
    level = body.get("level", "normal")
    if level not in LEVELS:
        raise ValueError(f"level is one of {', '.join(LEVELS)}")
    seat = body.get("seat", 0)
    if seat != "random" and (isinstance(seat, bool) or seat not in (0, 1, 2)):
        raise ValueError('seat is 0, 1, 2 or "random"')
    return {"length": length, "red_fives": red_fives, "level": level, "seat": seat}


async def _guest(request: Request, engine: Engine) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token:
        return None
    return await asyncio.to_thread(guest_store.guest_for_token, engine, token.strip())


async def _json_body(request: Request) -> dict[str, Any] | None:
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        return None
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _problem(status: int, code: str, detail: str) -> JSONResponse:
    return JSONResponse({"error": code, "detail": detail}, status_code=status)
