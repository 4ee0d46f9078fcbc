"""Guests, practice matches and their stored records."""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Awaitable
from typing import Annotated, Any, Literal, get_args

from fastapi import APIRouter, Depends, Request, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, StrictBool

from sanma.bots.registry import LEVELS
from sanma.engine.rules import DEFAULT, MATCH_LENGTHS
from sanma.server.api.deps import ERRORS, ApiError, AppServices, Guest
from sanma.server.api.meters import AppMeters
from sanma.server.bus import MemoryBus
from sanma.server.rooms.table import TurnTimers
from sanma.store import db
from sanma.store import guests as guest_store
from sanma.store import matches as match_store

router = APIRouter(prefix="/api", responses=ERRORS)

Length = Literal["one-hand", "east", "east-south"]
Level = Literal["beginner", "normal", "expert", "master"]
# The schema spells the choices out; these keep them equal to the engine's and the bots' own lists.
assert set(get_args(Length)) == set(MATCH_LENGTHS), "Length must list engine.rules.MATCH_LENGTHS"
assert set(get_args(Level)) == set(LEVELS), "Level must list bots.registry.LEVELS"


class NewGuest(BaseModel):
    """A guest just created; the token is shown once and only its hash is stored."""

    guest: str
    token: str


class PracticeOptions(BaseModel):
    """The options of a practice match (the spec's practice options)."""

    model_config = ConfigDict(extra="forbid")
    length: Length = "east-south"
    red_fives: StrictBool = True
    level: Level = "normal"
    seat: Literal[0, 1, 2, "random"] = 0
    # Turn timers as in friend rooms (SANMA_TURN / SANMA_BANK); they run only while the player is connected.
    timer: StrictBool = False


class PracticeCreated(BaseModel):
    """The new match, the human's seat and the log's length so far."""

    match: str
    seat: int
    v: int


class CurrentMatch(BaseModel):
    """The most recent match still being played in which the guest has a seat (``null``: none)."""

    match: str | None


class MatchInfo(BaseModel):
    """A stored match as its owner sees it."""

    match: str
    seat: int
    status: str
    bot_level: str
    rules: dict[str, object]
    v: int


class Health(BaseModel):
    """The server answers."""

    ok: bool


@router.get("/health")
async def health() -> Health:
    """Liveness: the server answers."""
    return Health(ok=True)


class Readiness(BaseModel):
    """Whether this process can serve games now: its database and its bus answer.  ``node``
    and ``rooms`` only for the operator's token (``SANMA_OPERATOR_TOKEN``), else left out."""

    ok: bool
    database: bool
    bus: Literal["memory", "redis"]
    bus_ok: bool
    node: str | None = Field(default=None, description="this process's name on the bus (operator only)")
    rooms: int | None = Field(default=None, description="the rooms this process holds in memory (operator only)")


READY_TIMEOUT_S = 2.0


_operator_bearer = HTTPBearer(auto_error=False, description="the operator token (SANMA_OPERATOR_TOKEN)")


def _is_operator(expected: str | None, credentials: HTTPAuthorizationCredentials | None) -> bool:
    if not expected or credentials is None:
        return False
    return hmac.compare_digest(credentials.credentials.strip().encode(), expected.encode())


@router.get(
    "/ready",
    response_model_exclude_none=True,
    responses={503: {"model": Readiness, "description": "the database or the bus does not answer"}},
)
async def ready(
    app: AppServices,
    response: Response,
    operator: Annotated[HTTPAuthorizationCredentials | None, Depends(_operator_bearer)],
) -> Readiness:
    """Readiness, for a load balancer: 200 when the database and the bus answer within 2 s,
    else 503 with the same body saying which does not.  With the operator's token also this
    process's node id and room count (nobody else learns its host name, pid or load)."""

    async def within(check: Awaitable[bool]) -> bool:
        try:
            return await asyncio.wait_for(check, READY_TIMEOUT_S)
        except TimeoutError:
            return False

    database = await within(asyncio.to_thread(db.ping, app.engine))
    bus = app.rooms.bus
    bus_ok = True if bus is None else await within(bus.ping())
    answer = Readiness(
        ok=database and bus_ok,
        database=database,
        bus="memory" if bus is None or isinstance(bus, MemoryBus) else "redis",
        bus_ok=bus_ok,
    )
    if _is_operator(app.settings.operator_token, operator):
        answer.node, answer.rooms = app.rooms.node, app.rooms.live_count
    if not answer.ok:
        response.status_code = 503
    return answer


@router.post("/guest", status_code=201)
async def create_guest(app: AppServices, meters: AppMeters, request: Request) -> NewGuest:
    """A new guest identity with a fresh random token (keep it; it is not shown again).
    Metered per client address (``SANMA_GUESTS_PER_ADDRESS_PER_H``)."""
    await meters.new_guest(request)
    guest = await asyncio.to_thread(guest_store.create_guest, app.engine)
    return NewGuest(guest=guest.id, token=guest.token)


_PRACTICE_REFUSALS: dict[int | str, dict[str, Any]] = {
    429: {"description": "`rate_limited` (started too often) or `too_many_matches` (too many running at once)"}
}


@router.post("/practice", status_code=201, responses=_PRACTICE_REFUSALS)
async def create_practice(
    guest: Guest, app: AppServices, meters: AppMeters, request: Request, options: PracticeOptions | None = None
) -> PracticeCreated:
    """Start a practice match against two bots; join it over ``/ws`` with its id (no body: the
    defaults).  Metered per guest and per address: how often, and how many run at once."""
    options = options or PracticeOptions()
    seat = app.seat_source() if options.seat == "random" else options.seat
    rules = DEFAULT.with_options(length=options.length, red_fives=options.red_fives)
    s = app.settings
    timers = TurnTimers(s.turn_s, s.bank_s, s.timeouts_to_auto, s.away_grace_s) if options.timer else None
    keys = await meters.new_practice(request, guest)
    created: str | None = None
    try:
        room = await app.rooms.create_practice(
            guest_id=guest, rules=rules, level=options.level, human_seat=seat, seed=app.seed_source(), timers=timers
        )
        created = room.id
    finally:
        meters.running.settle(keys, created)
    return PracticeCreated(match=room.id, seat=seat, v=room.v)


@router.get("/practice/current")
async def current_match(guest: Guest, app: AppServices) -> CurrentMatch:
    """The match to resume on page load, if any."""
    match_id = await asyncio.to_thread(match_store.latest_playing, app.engine, guest)
    return CurrentMatch(match=match_id)


@router.get("/matches/{match_id}", responses={404: {"description": "no such match for this guest (`no_match`)"}})
async def get_match(match_id: str, guest: Guest, app: AppServices) -> MatchInfo:
    """A match in which this guest has a seat: the seat, status, rules and log length."""

    def load() -> tuple[match_store.MatchRecord, list[int], int] | None:
        record = match_store.get_match(app.engine, match_id)
        if record is None:
            return None
        seats = [p.seat for p in match_store.players_of(app.engine, record.id) if p.guest_id == guest]
        return (record, seats, match_store.event_count(app.engine, record.id)) if seats else None

    found = await asyncio.to_thread(load)  # one hop off the event loop, not three
    if found is None:
        raise ApiError(404, "no_match", "no such match for this guest")
    record, seats, count = found
    return MatchInfo(
        match=record.id,
        seat=seats[0],
        status=record.status,
        bot_level=record.bot_level,
        rules=record.rules,
        v=count,
    )
