"""Friend rooms' lobby (``docs/rooms.md``): create a room, join it by code or invite link, take
seats, fill seats with bots, start the match, leave.

A room lives in the store (``store/rooms.py``) so that a lobby survives a restart; every change
is a read-modify-write that only lands on the version it read (``_change`` retries), so
concurrent requests, even on several processes, never overwrite each other.  Looking rooms
up is rate-limited per client address and per guest, wrong codes included, so that codes
(6 characters of 31, about 30 bits) cannot be guessed.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Request
from pydantic import BaseModel, ConfigDict, StrictBool

from sanma.engine.match import Match
from sanma.engine.rules import DEFAULT
from sanma.server.api.deps import ERRORS, ApiError, AppServices, Guest, Services, app_object
from sanma.server.api.meters import AppMeters
from sanma.server.api.practice import Length, Level
from sanma.server.codec import event_to_store, rules_to_json
from sanma.server.limits import SharedLimiter
from sanma.server.netaddr import client_key
from sanma.server.rooms.fairwalls import new_salt
from sanma.server.rooms.handbreak import DEFAULT_BREAK_S
from sanma.server.rooms.table import TurnTimers
from sanma.store import accounts
from sanma.store import matches as match_store
from sanma.store import rooms as store
from sanma.store.matches import SeatPlayer
from sanma.store.rooms import EMPTY, RoomRecord, Seat

log = logging.getLogger("sanma.rooms")

router = APIRouter(prefix="/api/rooms", tags=["rooms"], responses=ERRORS)

# No 0/O, 1/I/L: a code read aloud or copied by hand comes out right.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6

_NO_ROOM: dict[int | str, dict[str, Any]] = {404: {"description": "no such room, or it expired (`no_room`)"}}
_CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {
        "description": "`room_full`, `seat_taken`, `room_started` (not in the lobby any more), `not_ready`, "
        "`no_bot` or `no_guest` (nobody of that kind at the seat)"
    }
}
_NOT_HOST: dict[int | str, dict[str, Any]] = {
    403: {"description": "only the host may do this (`not_host`), or you sit in no seat (`not_seated`)"}
}
_REMOVED: dict[int | str, dict[str, Any]] = {403: {"description": "the host removed you from this room (`removed`)"}}


def new_code() -> str:
    """A fresh room code: ``CODE_LENGTH`` characters of ``CODE_ALPHABET`` from ``secrets``."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


# -- the wire models -----------------------------------------------------------------------

# The countdowns between hands a host may choose (seconds; ``rooms/handbreak.py``).
BreakSeconds = Literal[5, 10, 15, 30, 60]
# The turn timers a host may choose (``rooms/clock.py`` TURN_TIMERS): off, or turn + bank seconds.
TurnTimer = Literal["off", "5+10", "10+20", "20+40"]


class RoomOptions(BaseModel):
    """A friend room's options (the spec's: match length, red fives; ``open_hands``: its
    spectators see every tile, a hand behind, instead of the public view live; ``break_s``: the
    countdown between hands, ``docs/rooms.md``; ``turn_timer``: the seats' turn clock, left out:
    the server's); ``seat``: the host's seat."""

    model_config = ConfigDict(extra="forbid")
    length: Length = "east-south"
    red_fives: StrictBool = True
    open_hands: StrictBool = False
    break_s: BreakSeconds = 15
    turn_timer: TurnTimer | None = None
    seat: Literal[0, 1, 2] = 0


class SeatChoice(BaseModel):
    """A seat to sit in (``null``: the first empty one)."""

    model_config = ConfigDict(extra="forbid")
    seat: Literal[0, 1, 2] | None = None


class OptionsChange(BaseModel):
    """New options for a lobby (each left out: unchanged)."""

    model_config = ConfigDict(extra="forbid")
    length: Length | None = None
    red_fives: StrictBool | None = None
    open_hands: StrictBool | None = None
    break_s: BreakSeconds | None = None
    turn_timer: TurnTimer | None = None


class BotChoice(BaseModel):
    """A bot of ``level`` for the empty ``seat``."""

    model_config = ConfigDict(extra="forbid")
    seat: Literal[0, 1, 2]
    level: Level = "normal"


class SeatView(BaseModel):
    """One seat: ``empty``, a ``human`` (``you`` when it is the caller; ``name``: the guest's
    display name, ``null`` when none is chosen: user text, to be shown escaped) or a ``bot`` of
    ``level``."""

    seat: int
    kind: Literal["empty", "human", "bot"]
    name: str | None
    level: str | None
    host: bool
    you: bool


class TimerView(BaseModel):
    """The room's turn timers: seconds per action and the time bank per hand (both ``null``:
    the host turned the turn clock off)."""

    turn_s: float | None
    bank_s: float | None


class RoomView(BaseModel):
    """A room as a guest sees it; ``match`` is set once the host started it (join it over ``/ws``)."""

    code: str
    invite: str
    status: Literal["lobby", "playing", "ended"]
    length: Length
    red_fives: bool
    open_hands: bool  # spectators see every tile, a hand behind (else the public view, live)
    break_s: int  # the countdown between hands (seconds)
    turn_timer: TurnTimer | None  # the host's choice (``null``: the server's timers, as ``timers`` shows)
    seats: list[SeatView]
    you: int | None
    host: int | None
    match: str | None
    timers: TimerView
    removed: bool  # the host removed the caller: it may not join this room again


class RoomLeft(BaseModel):
    """The caller left; ``closed`` when nobody was left in the room."""

    code: str
    closed: bool


# -- the lobby's process state: rate limits and the sweeper ------------------------------------


class Lobby:
    """The lobby's state: the join limits (per client address and per guest, counted on the
    bus, so every server process shares them) and when this process last swept idle rooms."""

    def __init__(self, app: Services, clock: Callable[[], float] = time.monotonic) -> None:
        self.app = app
        self._clock = clock
        self._joins = SharedLimiter(app.rooms.bus, "room-joins", app.settings.room_joins_per_min, 60.0)
        self._swept = float("-inf")

    async def allow(self, *keys: str) -> bool:
        """Count one room look-up for each key; whether every key is still under its limit."""
        allowed = True
        for key in keys:
            allowed = await self._joins.hit(key) and allowed
        return allowed

    async def sweep(self) -> None:
        """Delete idle rooms, at most every few seconds (each request may call this)."""
        idle = self.app.settings.room_idle_s
        now = self._clock()
        if now - self._swept < min(60.0, idle / 4):
            return
        self._swept = now
        await asyncio.to_thread(store.sweep_idle, self.app.engine, idle)


def lobby(request: Request) -> Lobby:
    """The app's lobby state (made on first use)."""
    return app_object(request, "lobby", Lobby)


AppLobby = Annotated[Lobby, Depends(lobby)]


# -- helpers -----------------------------------------------------------------------------------


async def _view(app: Services, room: RoomRecord, guest: str) -> RoomView:
    """``room`` as ``guest`` sees it, with the seated guests' display names (one query)."""
    seated = [s.guest_id for s in room.seats if s.guest_id is not None]
    names = await asyncio.to_thread(accounts.display_names, app.engine, seated)
    seats = []
    for i, seat in enumerate(room.seats):
        kind: Literal["empty", "human", "bot"] = (
            "human" if seat.guest_id is not None else "bot" if seat.bot_level is not None else "empty"
        )
        seats.append(
            SeatView(
                seat=i,
                kind=kind,
                name=None if seat.guest_id is None else names.get(seat.guest_id),
                level=seat.bot_level,
                host=seat.guest_id is not None and seat.guest_id == room.host_guest,
                you=seat.guest_id == guest,
            )
        )
    status: Literal["lobby", "playing", "ended"] = (
        room.status if room.status in ("playing", "ended") else "lobby"  # type: ignore[assignment]
    )
    return RoomView(
        code=room.code,
        invite=f"/?room={room.code}",
        status=status,
        length=room.options["length"],
        red_fives=bool(room.options["red_fives"]),
        open_hands=bool(room.options.get("open_hands", False)),  # rooms stored before it: off
        break_s=int(room.options.get("break_s", DEFAULT_BREAK_S)),
        turn_timer=room.options.get("turn_timer"),
        seats=seats,
        you=room.seat_of(guest),
        host=room.seat_of(room.host_guest),
        match=None if guest in room.barred else room.match_id,  # a removed guest may not watch it
        timers=_timers_view(room),
        removed=guest in room.barred,
    )


def _timers_view(room: RoomRecord) -> TimerView:
    """The turn timers the room's match will run with (the host's choice over the server's)."""
    timers = TurnTimers.from_json(room.timers).chosen(room.options.get("turn_timer"))
    if not timers.turn_clock:
        return TimerView(turn_s=None, bank_s=None)
    return TimerView(turn_s=timers.turn_s, bank_s=timers.bank_s)


def _normalize(code: str) -> str:
    return code.strip().upper()


async def _load(app: Services, code: str) -> RoomRecord:
    """The live room with ``code`` (404 ``no_room`` when there is none or it expired)."""
    room = await asyncio.to_thread(store.get_room, app.engine, _normalize(code))
    if room is None or _expired(room, app.settings.room_idle_s):
        raise ApiError(404, "no_room", "no such room (or it expired)")
    return room


def _expired(room: RoomRecord, idle_s: float) -> bool:
    return room.status != "playing" and room.updated_at < datetime.now(UTC) - timedelta(seconds=idle_s)


async def _change(app: Services, code: str, change: Callable[[RoomRecord], RoomRecord | None]) -> RoomRecord | None:
    """Apply ``change`` to the stored room until it lands on the version it read; ``change``
    raises ``ApiError`` to refuse, or returns ``None`` to delete the room."""
    for _ in range(8):
        room = await _load(app, code)
        changed = change(room)
        if changed is None:
            if await asyncio.to_thread(store.delete_room, app.engine, room.code, room.version):
                return None
            continue
        saved = await asyncio.to_thread(store.save_room, app.engine, changed)
        if saved is not None:
            return saved
    raise ApiError(409, "busy", "the room kept changing; try again")


async def _changed_view(app: Services, code: str, guest: str, change: Callable[[RoomRecord], RoomRecord]) -> RoomView:
    """Apply ``change`` (one that never deletes the room) and answer the room as ``guest`` sees it."""
    room = await _change(app, code, change)
    assert room is not None
    return await _view(app, room, guest)


def _other_guest(room: RoomRecord, seat: int | None, guest: str) -> str:
    """The guest at ``seat`` when it is not ``guest`` (409 ``no_guest``: empty, a bot, oneself)."""
    sitting = None if seat is None else room.seats[seat].guest_id
    if sitting is None or sitting == guest:
        raise ApiError(409, "no_guest", f"no other guest sits at seat {seat}")
    return sitting


def _in_lobby(room: RoomRecord) -> None:
    if room.status != "lobby":
        raise ApiError(409, "room_started", "the room's match has started")


def _host_only(room: RoomRecord, guest: str) -> None:
    _in_lobby(room)
    if room.host_guest != guest:
        raise ApiError(403, "not_host", "only the host may do this")


async def _limited(lobby: Lobby, request: Request, guest: str) -> None:
    if not await lobby.allow(client_key(request.scope, lobby.app.settings), f"guest:{guest}"):
        raise ApiError(429, "rate_limited", "too many room look-ups; wait a minute")


# -- routes ------------------------------------------------------------------------------------


@router.post("", status_code=201, responses={429: {"description": "`rate_limited`: too many rooms opened"}})
async def create_room(
    guest: Guest,
    app: AppServices,
    lobby: AppLobby,
    meters: AppMeters,
    request: Request,
    options: RoomOptions | None = None,
) -> RoomView:
    """Open a room with you as its host; share its code or invite link (no body: the defaults).
    Metered per guest and per client address (``SANMA_ROOMS_PER_GUEST_PER_H``, ``..._PER_ADDRESS_PER_H``)."""
    options = options or RoomOptions()
    await meters.new_room(request, guest)
    await lobby.sweep()
    s = app.settings
    timers = TurnTimers(s.turn_s, s.bank_s, s.timeouts_to_auto, s.away_grace_s)
    for _ in range(8):  # a taken code (about 1 in 10^9 per live room) just draws another
        room = await asyncio.to_thread(
            store.create_room,
            app.engine,
            code=new_code(),
            host_guest=guest,
            options={
                "length": options.length,
                "red_fives": options.red_fives,
                "open_hands": options.open_hands,
                "break_s": options.break_s,
                # Left out when not chosen: the server's timers (``timers``) apply.
                **({} if options.turn_timer is None else {"turn_timer": options.turn_timer}),
            },
            timers=timers.to_json(),
            host_seat=options.seat,
        )
        if room is not None:
            _note("room_created", room.code, "opened")
            return await _view(app, room, guest)
    raise ApiError(503, "busy", "no free room code; try again")


@router.get("/{code}", responses={**_NO_ROOM})
async def get_room(code: str, guest: Guest, app: AppServices, lobby: AppLobby, request: Request) -> RoomView:
    """Who sits where, the host, the status (and the match once started).  Look-ups by a guest
    not seated in the room count against the join limit."""
    await lobby.sweep()
    try:
        room = await _load(app, code)
    except ApiError:
        await _limited(lobby, request, guest)
        raise
    if room.seat_of(guest) is None:
        await _limited(lobby, request, guest)
    return await _view(app, room, guest)


@router.post("/{code}/join", responses={**_NO_ROOM, **_CONFLICT, **_REMOVED})
async def join_room(
    code: str, guest: Guest, app: AppServices, lobby: AppLobby, request: Request, choice: SeatChoice | None = None
) -> RoomView:
    """Sit in the room (in ``seat``, or the first empty one); joining again is harmless."""
    await _limited(lobby, request, guest)
    await lobby.sweep()
    wanted = choice.seat if choice is not None else None

    def sit(room: RoomRecord) -> RoomRecord:
        if room.seat_of(guest) is not None:
            return room
        _in_lobby(room)
        if guest in room.barred:
            raise ApiError(403, "removed", "the host removed you from this room")
        empty = [i for i, s in enumerate(room.seats) if s.empty]
        if not empty:
            raise ApiError(409, "room_full", "every seat is taken")
        seat = empty[0] if wanted is None else wanted
        if not room.seats[seat].empty:
            raise ApiError(409, "seat_taken", f"seat {seat} is taken")
        return room.with_seat(seat, Seat(guest, None))

    return await _changed_view(app, code, guest, sit)


@router.post("/{code}/seat", responses={**_NO_ROOM, **_CONFLICT, **_NOT_HOST})
async def move_seat(code: str, guest: Guest, app: AppServices, choice: SeatChoice) -> RoomView:
    """Move to another empty seat."""

    def move(room: RoomRecord) -> RoomRecord:
        _in_lobby(room)
        mine = room.seat_of(guest)
        if mine is None:
            raise ApiError(403, "not_seated", "join the room first")
        if choice.seat is None or choice.seat == mine:
            return room
        if not room.seats[choice.seat].empty:
            raise ApiError(409, "seat_taken", f"seat {choice.seat} is taken")
        return room.with_seat(mine, EMPTY).with_seat(choice.seat, room.seats[mine])

    return await _changed_view(app, code, guest, move)


@router.post("/{code}/options", responses={**_NO_ROOM, **_CONFLICT, **_NOT_HOST})
async def change_options(code: str, guest: Guest, app: AppServices, change: OptionsChange) -> RoomView:
    """Host only, in the lobby: change the match length, red fives, open hands for watchers,
    the countdown between hands or the turn timer (e.g. for a rematch)."""

    def apply(room: RoomRecord) -> RoomRecord:
        _host_only(room, guest)
        options = dict(room.options)
        if change.length is not None:
            options["length"] = change.length
        if change.red_fives is not None:
            options["red_fives"] = change.red_fives
        if change.open_hands is not None:
            options["open_hands"] = change.open_hands
        if change.break_s is not None:
            options["break_s"] = change.break_s
        if change.turn_timer is not None:
            options["turn_timer"] = change.turn_timer
        return replace(room, options=options)

    return await _changed_view(app, code, guest, apply)


@router.post("/{code}/bots", responses={**_NO_ROOM, **_CONFLICT, **_NOT_HOST})
async def add_bot(code: str, guest: Guest, app: AppServices, choice: BotChoice) -> RoomView:
    """Host only: a bot of ``level`` takes the empty ``seat``."""

    def add(room: RoomRecord) -> RoomRecord:
        _host_only(room, guest)
        if not room.seats[choice.seat].empty:
            raise ApiError(409, "seat_taken", f"seat {choice.seat} is taken")
        return room.with_seat(choice.seat, Seat(None, choice.level))

    return await _changed_view(app, code, guest, add)


@router.delete("/{code}/bots/{seat}", responses={**_NO_ROOM, **_CONFLICT, **_NOT_HOST})
async def remove_bot(code: str, seat: Annotated[int, Path(ge=0, le=2)], guest: Guest, app: AppServices) -> RoomView:
    """Host only: the bot at ``seat`` leaves (the seat is empty again)."""

    def remove(room: RoomRecord) -> RoomRecord:
        _host_only(room, guest)
        if room.seats[seat].bot_level is None:
            raise ApiError(409, "no_bot", f"no bot sits at seat {seat}")
        return room.with_seat(seat, EMPTY)

    return await _changed_view(app, code, guest, remove)


@router.delete("/{code}/seats/{seat}", responses={**_NO_ROOM, **_CONFLICT, **_NOT_HOST})
async def remove_guest(code: str, seat: Annotated[int, Path(ge=0, le=2)], guest: Guest, app: AppServices) -> RoomView:
    """Host only: the guest at ``seat`` (not the host) leaves the lobby and may not join this
    room again (the seat is empty again)."""

    def remove(room: RoomRecord) -> RoomRecord:
        _host_only(room, guest)
        _other_guest(room, seat, guest)
        return room.without_guest(seat)

    return await _changed_view(app, code, guest, remove)


@router.post("/{code}/reopen", responses={**_NO_ROOM, **_CONFLICT, **_NOT_HOST})
async def reopen_room(code: str, guest: Guest, app: AppServices) -> RoomView:
    """Any seated guest, once the room's match has ended: the room is a lobby again with the
    same seats (guests and bots), host and options, ready for a rematch; already a lobby,
    nothing changes.  ``409 room_started`` while its match is still being played."""

    def reopen(room: RoomRecord) -> RoomRecord:
        if room.seat_of(guest) is None:
            raise ApiError(403, "not_seated", "you sit in no seat of this room")
        if room.status == "lobby":
            return room
        if room.status != "ended":
            raise ApiError(409, "room_started", "the room's match is still being played")
        return replace(room, status="lobby", match_id=None)

    return await _changed_view(app, code, guest, reopen)


@router.post("/{code}/host", responses={**_NO_ROOM, **_CONFLICT, **_NOT_HOST})
async def hand_over(code: str, guest: Guest, app: AppServices, choice: SeatChoice) -> RoomView:
    """Host only, in the lobby: the guest at ``seat`` becomes the host."""

    def give(room: RoomRecord) -> RoomRecord:
        _host_only(room, guest)
        return replace(room, host_guest=_other_guest(room, choice.seat, guest))

    return await _changed_view(app, code, guest, give)


@router.post("/{code}/leave", responses={**_NO_ROOM, **_CONFLICT, **_NOT_HOST})
async def leave_room(code: str, guest: Guest, app: AppServices) -> RoomLeft:
    """Leave the lobby; a leaving host hands the role to the next guest seated after them, and
    a room left with no guest closes."""
    normalized = _normalize(code)

    def leave(room: RoomRecord) -> RoomRecord | None:
        _in_lobby(room)
        mine = room.seat_of(guest)
        if mine is None:
            raise ApiError(403, "not_seated", "you sit in no seat of this room")
        room = room.with_seat(mine, EMPTY)
        others = [(mine + k) % 3 for k in (1, 2)]
        heirs = [g for i in others if (g := room.seats[i].guest_id) is not None]
        if not heirs:
            return None
        if room.host_guest == guest:
            room = replace(room, host_guest=heirs[0])
        return room

    room = await _change(app, normalized, leave)
    if room is None:
        _note("room_closed", normalized, "closed (its last guest left)")
    return RoomLeft(code=normalized, closed=room is None)


@router.post("/{code}/start", responses={**_NO_ROOM, **_CONFLICT, **_NOT_HOST})
async def start_room(code: str, guest: Guest, app: AppServices) -> RoomView:
    """Host only: start the match once every seat is taken (by guests or bots)."""

    def claim(room: RoomRecord) -> RoomRecord:
        _host_only(room, guest)
        if any(s.empty for s in room.seats):
            raise ApiError(409, "not_ready", "every seat needs a guest or a bot")
        return replace(room, status="starting")

    room = await _change(app, code, claim)
    assert room is not None
    try:
        match_id = await _create_match(app, room)
    except BaseException:
        await asyncio.to_thread(store.save_room, app.engine, replace(room, status="lobby"))
        raise
    started = await asyncio.to_thread(store.save_room, app.engine, replace(room, status="playing", match_id=match_id))
    assert started is not None, "a starting room changes only here"
    await app.rooms.get(match_id)  # the room's task runs from now on, joined or not
    return await _view(app, started, guest)


async def _create_match(app: Services, room: RoomRecord) -> str:
    """Store the room's match (``kind="room"``, who sits where) with its first events."""
    rules = DEFAULT.with_options(length=room.options["length"], red_fives=room.options["red_fives"])
    seed = app.seed_source()
    players = [SeatPlayer(i, s.guest_id, s.bot_level) for i, s in enumerate(room.seats)]
    levels = [s.bot_level for s in room.seats if s.bot_level is not None]
    host_seat = room.seat_of(room.host_guest)
    assert host_seat is not None
    record = await asyncio.to_thread(
        match_store.create_match,
        app.engine,
        guest_id=room.host_guest,
        rules=rules_to_json(rules),
        seed=seed,
        bot_level=levels[0] if levels else "none",
        human_seat=host_seat,
        kind="room",
        players=players,
    )
    first = [event_to_store(e) for e in Match(seed, rules, salt=new_salt()).events]  # salt: rooms/fairwalls.py
    await asyncio.to_thread(match_store.append_events, app.engine, record.id, 1, first, ended=False)
    app.rooms.started(record.id, "room", len(first))
    return record.id


def _note(event: str, code: str, what: str) -> None:
    """One log line about a room, named by a digest of its code (the code lets anyone join)."""
    ref = hashlib.sha256(code.encode()).hexdigest()[:10]
    log.info("friend room %s: %s", ref, what, extra={"event": event, "room": ref})
