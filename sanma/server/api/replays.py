"""Replays: a finished match downloaded (tenhou.net/6 JSON, our JSON-lines event log), shared
by an unguessable link, and tenhou.net/6 logs opened from a file (checked by the engine's
importer; kept only when the player saves them).  ``docs/accounts.md`` "History and replay".

What the viewer gets is always events in the socket's wire form.  Hiding happens in one place,
``visibility.redact``: a match still running is sent redacted for the asking seat; once it has
ended every hand is open (as Tenhou and Mahjong Soul replays are).

The engine's work on a log (importing, checking, replaying, rendering, exporting) runs in the
app's log workers (``server/logwork.py``), which answer JSON bytes that the routes send as they
are; the database reads stay in ``asyncio.to_thread``.  Every route here but the share switch
counts on the log meters (``api/meters.py``).  A kept log keeps its viewer's answer, so reading
it again is a lookup.
"""

from __future__ import annotations

import asyncio
import json
import zlib
from datetime import datetime
from functools import partial
from typing import Annotated, Any, Final, Literal

from fastapi import APIRouter, Depends, Query, Request, Response
from pydantic import BaseModel, Field

from sanma.server.api.deps import ERRORS, ApiError, AppServices, Guest
from sanma.server.api.meters import AppMeters
from sanma.server.logwork import (
    MAX_ANSWER_BYTES,
    MAX_HANDS,
    LogFault,
    LogWork,
    OpenedLog,
    Replay,
    open_job,
    replay_job,
    tenhou6_job,
    unpacked,
    with_id,
)
from sanma.store import accounts as account_store
from sanma.store import matches as match_store

router = APIRouter(prefix="/api", tags=["replays"], responses=ERRORS)

LOG_MAX_BYTES: Final = 2 * 1024 * 1024
"""The largest tenhou.net/6 file a player may open (a long hanchan is about 100 KiB)."""

LOG_PATHS: Final = ("/api/replays/open", "/api/replays")
"""The routes whose body is a log file: ``app.py`` lets them through up to ``LOG_MAX_BYTES``."""

Preset = Literal["default", "tenhou", "mahjongsoul"]
PresetQuery = Annotated[Preset | None, Query(description="the rule preset; else read from the log's room name")]


class Share(BaseModel):
    """A share link: anyone with ``path`` watches the ended match with open hands."""

    share: str
    path: str


class SavedItem(BaseModel):
    """A log kept in the history."""

    id: str
    title: str
    preset: str
    created_at: datetime
    size: int = Field(description="bytes the log costs its account's quota (its text and its kept answer)")


class SavedList(BaseModel):
    """Newest first."""

    logs: list[SavedItem]


# -- a stored match ---------------------------------------------------------------------------


def _seated(app: AppServices, match_id: str, guest: str) -> tuple[match_store.MatchRecord, int]:
    record = match_store.get_match(app.engine, match_id)
    seat = None if record is None else account_store.seat_of(app.engine, match_id, guest)
    if record is None or seat is None:
        raise ApiError(404, "no_match", "no such match for this account")
    return record, seat


def _ended(record: match_store.MatchRecord) -> None:
    if record.status != "ended":
        raise ApiError(409, "match_running", "the match is still being played: its log opens once it has ended")


def log_work(request: Request) -> LogWork:
    """The app's log workers."""
    found: LogWork = request.app.state.log_work
    return found


Work = Annotated[LogWork, Depends(log_work)]
"""A route parameter: the app's log workers."""


async def in_pool(work: LogWork, job: Any, *args: Any, **kwargs: Any) -> Any:
    """``job`` done by a log worker; what it refuses is its typed ``ApiError`` (``LogBusy``
    goes through: the app answers it ``503 log_busy`` with ``Retry-After``)."""
    try:
        return await work.run(job, *args, **kwargs)
    except LogFault as fault:
        raise ApiError(fault.status, fault.code, fault.detail) from None


def _json(body: bytes, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(body, status_code=status, media_type="application/json", headers=headers)


# -- the seats' names ----------------------------------------------------------------------------

Label = tuple[int, str | None, str | None]
"""``(seat, display name, bot level)``: ``match_store.seat_labels``."""

PRACTICE_BOTS: Final = ("Kenji", "Sari")
"""A practice match's bots by the names its table gives them (``BOT_NAMES`` in
``web/src/render/table.js``): Kenji sits after the player, Sari before."""

LEVEL_NAMES: Final = {"beginner": "Beginner", "normal": "Normal", "expert": "Expert", "master": "Mahjong master"}
"""The bot levels as the English client names them (``level.*`` in ``web/src/i18n/en.json``)."""


def seat_names(kind: str, labels: list[Label]) -> list[str | None]:
    """Each seat's name as the match's table shows it: a guest's display name, a practice bot's
    own name; ``None`` where the table makes one in the reader's language (a nameless guest is
    "Player N", a room's bot "<Level> bot").  The one naming of the replay, the share link and
    the downloads."""
    humans = [seat for seat, _, level in labels if level is None]
    practice = kind != "room" and len(humans) == 1
    return [
        PRACTICE_BOTS[(seat - humans[0]) % 3 - 1] if practice and level is not None else name
        for seat, name, level in labels
    ]


def file_names(kind: str, labels: list[Label]) -> list[str]:
    """The seats' names written into a file (tenhou.net/6 ``name``): ``seat_names`` with the
    table's English words where it has none, and the seat number after a name two seats share,
    as the table tells them apart, so each seat's name is its own when the file is opened again."""
    plain = [
        found or (f"{LEVEL_NAMES.get(level, level)} bot" if level else f"Player {seat + 1}")
        for (seat, _, level), found in zip(labels, seat_names(kind, labels), strict=True)
    ]
    return [
        f"{name} ({seat + 1})" if plain.count(name) > 1 else name
        for (seat, _, _), name in zip(labels, plain, strict=True)
    ]


def _replay_job(app: AppServices, record: match_store.MatchRecord, seat: int) -> partial[bytes]:
    """The worker's job for the replay of a stored match for ``seat`` (read from the store
    here): redacted while it runs, open after its end."""
    labels = match_store.seat_labels(app.engine, record.id)
    return partial(
        replay_job,
        record.id,
        match_store.load_events(app.engine, record.id),
        record.rules,
        seat=seat,
        is_open=record.status == "ended",
        names=seat_names(record.kind, labels),
        bots=[level for _, _, level in labels],
    )


MATCH_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"description": "`no_match`: not a match of this account"},
    503: {"description": "`log_busy`: every log worker is busy (`Retry-After`)"},
}


@router.get("/matches/{match_id}/replay", response_model=Replay, responses=MATCH_ERRORS)
async def replay(
    match_id: str, guest: Guest, app: AppServices, meters: AppMeters, work: Work, request: Request
) -> Response:
    """A match the account played: while it runs, redacted for the account's seat (others'
    concealed tiles and the seed stay hidden, as during play); after its end, every hand open."""
    await meters.log_route(request, guest)

    def read() -> partial[bytes]:
        record, seat = _seated(app, match_id, guest)
        return _replay_job(app, record, seat)

    return _json(await in_pool(work, await asyncio.to_thread(read)))


def _names(app: AppServices, record: match_store.MatchRecord) -> list[str]:
    return file_names(record.kind, match_store.seat_labels(app.engine, record.id))


def _attachment(name: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{name}"'}


@router.get(
    "/matches/{match_id}/tenhou6",
    responses={**MATCH_ERRORS, 409: {"description": "`match_running`"}},
)
async def download_tenhou6(
    match_id: str, guest: Guest, app: AppServices, meters: AppMeters, work: Work, request: Request
) -> Response:
    """An ended match of the account as a tenhou.net/6 JSON file (three-player form: the
    engine's exporter, kita as ``f44``)."""
    await meters.log_route(request, guest)

    def read() -> partial[bytes]:
        record, _ = _seated(app, match_id, guest)
        _ended(record)
        stored = match_store.load_events(app.engine, record.id)
        return partial(tenhou6_job, record.id, stored, record.rules, _names(app, record))

    body = await in_pool(work, await asyncio.to_thread(read))
    return _json(body, headers=_attachment(f"sanma-{match_id}.tenhou6.json"))


@router.get(
    "/matches/{match_id}/log.jsonl",
    responses={404: {"description": "`no_match`"}, 409: {"description": "`match_running`"}},
)
async def download_log(match_id: str, guest: Guest, app: AppServices, meters: AppMeters, request: Request) -> Response:
    """An ended match of the account as our event log: one stored event per line (the seed
    included, so ``engine.replay`` rebuilds the match from it)."""
    await meters.log_route(request, guest)

    def read() -> str:
        record, _ = _seated(app, match_id, guest)
        _ended(record)
        return "".join(
            json.dumps(e, separators=(",", ":")) + "\n" for e in match_store.load_events(app.engine, match_id)
        )

    body = await asyncio.to_thread(read)
    return Response(body, media_type="application/x-ndjson", headers=_attachment(f"sanma-{match_id}.jsonl"))


# -- share links ------------------------------------------------------------------------------


def _share_path(share: str) -> str:
    return f"/?replay={share}"


@router.post(
    "/matches/{match_id}/share",
    responses={404: {"description": "`no_match`"}, 409: {"description": "`match_running`"}},
)
async def share(match_id: str, guest: Guest, app: AppServices) -> Share:
    """Share an ended match: a link (the same one on every call) that shows it with open hands."""

    def write() -> str:
        record, _ = _seated(app, match_id, guest)
        _ended(record)
        return match_store.share_match(app.engine, match_id, guest)

    found = await asyncio.to_thread(write)
    return Share(share=found, path=_share_path(found))


@router.delete("/matches/{match_id}/share", status_code=204, responses={404: {"description": "`no_match`"}})
async def unshare(match_id: str, guest: Guest, app: AppServices) -> Response:
    """Stop sharing: the link stops working."""

    def write() -> None:
        _seated(app, match_id, guest)
        match_store.unshare_match(app.engine, match_id, guest)

    await asyncio.to_thread(write)
    return Response(status_code=204)


@router.get(
    "/shared/{share_id}",
    response_model=Replay,
    responses={**MATCH_ERRORS, 404: {"description": "`no_share`: no such link (or no longer shared)"}},
)
async def shared(share_id: str, app: AppServices, meters: AppMeters, work: Work, request: Request) -> Response:
    """The match behind a share link, every hand open (no token needed: the link is the key)."""
    await meters.log_route(request, None)

    def read() -> partial[bytes]:
        found = match_store.shared_match(app.engine, share_id)
        record = None if found is None else match_store.get_match(app.engine, found[0])
        seat = None if found is None else account_store.seat_of(app.engine, found[0], found[1])
        if record is None or seat is None or record.status != "ended":
            raise ApiError(404, "no_share", "no such replay link")
        return _replay_job(app, record, seat)

    return _json(await in_pool(work, await asyncio.to_thread(read)))


# -- opened logs ------------------------------------------------------------------------------


async def _read_log(request: Request) -> str:
    """The body as text, at most ``LOG_MAX_BYTES`` (413 ``too_large`` beyond), unpacked first
    when it is gzip (Tenhou's mjlog downloads; ``logwork.unpacked``)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > LOG_MAX_BYTES:
        raise _too_large()
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > LOG_MAX_BYTES:
            raise _too_large()
    try:
        data = unpacked(bytes(body), LOG_MAX_BYTES)
    except LogFault as fault:
        raise ApiError(fault.status, fault.code, fault.detail) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ApiError(422, "not_text", f"the file is not UTF-8 text (byte {exc.start})") from exc


def _too_large() -> ApiError:
    return ApiError(413, "too_large", f"a log file is at most {LOG_MAX_BYTES // (1024 * 1024)} MiB")


LOG_ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"description": "`too_large`: over 2 MiB (a gzip file: unpacked)"},
    422: {
        "description": (
            "`truncated`, `not_json`, `not_text`, `too_deep` (nesting), `huge_number` (over 4,300 digits),"
            " `not_finite` (`NaN`, `Infinity`, `1e999`), `too_many_hands` (over 64), `four_player`, `bad_log`"
            " (the detail names the hand), `too_large_answer` (a replay over 8 MiB), `log_too_costly` (over"
            " the CPU or time a log may cost)"
        )
    },
    429: {"description": "`rate_limited`: too many log requests from this guest or address"},
    503: {"description": "`log_busy`: every log worker is busy (`Retry-After`)"},
}


async def _opened(work: LogWork, text: str, preset: str | None, *, packed: bool) -> tuple[str, str, bytes]:
    """``(title, preset, answer)`` of a log, checked and rendered by a worker (``open_job``)."""
    found: tuple[str, str, bytes] = await in_pool(
        work, open_job, text, preset, max_hands=MAX_HANDS, max_bytes=MAX_ANSWER_BYTES, packed=packed
    )
    return found


@router.post("/replays/open", response_model=OpenedLog, responses=LOG_ERRORS)
async def open_file(
    request: Request, guest: Guest, meters: AppMeters, work: Work, preset: PresetQuery = None
) -> Response:
    """Open a three-player log (the body is the file: tenhou.net/6 JSON or Tenhou's mjlog XML,
    either one gzip-packed or not): checked by the engine's importer and replayed; nothing is
    stored."""
    await meters.log_route(request, guest)
    text = await _read_log(request)
    _, _, body = await _opened(work, text, preset, packed=False)
    return _json(with_id(body, None))


def _quota(exc: match_store.LogQuotaExceeded) -> ApiError:
    if exc.what == "count":
        return ApiError(409, "log_quota", f"count: at most {exc.limit} logs are kept per player; forget one first")
    return ApiError(409, "log_quota", f"bytes: kept logs take at most {exc.limit} bytes per player; forget one first")


@router.post(
    "/replays",
    status_code=201,
    response_model=OpenedLog,
    responses={**LOG_ERRORS, 409: {"description": "`log_quota`: the account keeps as many logs (or bytes) as it may"}},
)
async def save_file(
    request: Request, guest: Guest, app: AppServices, meters: AppMeters, work: Work, preset: PresetQuery = None
) -> Response:
    """Keep an opened log in the account's history (checked exactly as when opened; what the
    viewer gets is kept with it, so reading it again is a lookup)."""
    await meters.log_route(request, guest)
    text = await _read_log(request)
    title, found, packed = await _opened(work, text, preset, packed=True)
    s = app.settings

    def write() -> bytes:
        try:
            saved = match_store.save_log(
                app.engine,
                guest,
                title=title,
                preset=found,
                log=text,
                opened=packed,
                max_count=s.saved_logs_per_guest,
                max_bytes=s.saved_log_bytes_per_guest,
            )
        except match_store.LogQuotaExceeded as exc:
            raise _quota(exc) from None
        return with_id(zlib.decompress(packed), saved.id)  # zlib lets go of the GIL

    return _json(await asyncio.to_thread(write), status=201)


@router.get("/replays", responses={429: LOG_ERRORS[429]})
async def saved_list(guest: Guest, app: AppServices, meters: AppMeters, request: Request) -> SavedList:
    """The logs the account kept, newest first (their titles and sizes, not their texts)."""
    await meters.log_route(request, guest)
    logs = await asyncio.to_thread(match_store.saved_logs_of, app.engine, guest)
    return SavedList(
        logs=[SavedItem(id=s.id, title=s.title, preset=s.preset, created_at=s.created_at, size=s.size) for s in logs]
    )


@router.get(
    "/replays/{log_id}",
    response_model=OpenedLog,
    responses={**LOG_ERRORS, 404: {"description": "`no_log`"}},
)
async def saved_one(
    log_id: str, guest: Guest, app: AppServices, meters: AppMeters, work: Work, request: Request
) -> Response:
    """A kept log: the answer kept with it (a log kept before answers were kept is opened
    once more by a worker, and its answer kept)."""
    await meters.log_route(request, guest)

    def read() -> bytes | match_store.SavedLog:
        saved = match_store.saved_log(app.engine, log_id, guest)
        if saved is None:
            raise ApiError(404, "no_log", "no such saved log for this account")
        return saved if saved.opened is None else with_id(zlib.decompress(saved.opened), saved.id)

    found = await asyncio.to_thread(read)
    if isinstance(found, bytes):
        return _json(found)
    _, _, packed = await _opened(work, found.log, found.preset, packed=True)

    def keep() -> bytes:
        match_store.store_opened(app.engine, found.id, guest, packed)
        return with_id(zlib.decompress(packed), found.id)

    return _json(await asyncio.to_thread(keep))


@router.delete("/replays/{log_id}", status_code=204, responses={404: {"description": "`no_log`"}})
async def saved_delete(log_id: str, guest: Guest, app: AppServices) -> Response:
    """Forget a kept log."""
    gone = await asyncio.to_thread(match_store.delete_saved_log, app.engine, log_id, guest)
    if not gone:
        raise ApiError(404, "no_log", "no such saved log for this account")
    return Response(status_code=204)
