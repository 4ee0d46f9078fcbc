"""Replays: a finished match downloaded (tenhou.net/6 JSON, our JSON-lines event log), shared
by an unguessable link, and tenhou.net/6 logs opened from a file (checked by the engine's
importer; kept only when the player saves them).  ``docs/accounts.md`` "History and replay".

What the viewer gets is always events in the socket's wire form.  Hiding happens in one place,
``visibility.redact``: a match still running is sent redacted for the asking seat; once it has
ended every hand is open (as Tenhou and Mahjong Soul replays are).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Final, Literal

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, Field

from sanma.engine.errors import SanmaError
from sanma.engine.events import (
    Event,
    HandStarted,
    HandWon,
    KyokuEvent,
    MatchEnded,
    MatchStarted,
)
from sanma.engine.formats import tenhou6
from sanma.engine.match import standings
from sanma.engine.replay import replay as replay_log
from sanma.engine.rules import Rules
from sanma.engine.visibility import HIDDEN_SEED, redact
from sanma.server.api.deps import ERRORS, ApiError, AppServices, Guest
from sanma.server.codec import event_from_store, event_to_wire, rules_from_json, rules_to_json
from sanma.store import accounts as account_store
from sanma.store import matches as match_store

router = APIRouter(prefix="/api", tags=["replays"], responses=ERRORS)

LOG_MAX_BYTES: Final = 2 * 1024 * 1024
"""The largest tenhou.net/6 file a player may open (a long hanchan is about 100 KiB)."""

LOG_PATHS: Final = ("/api/replays/open", "/api/replays")
"""The routes whose body is a log file: ``app.py`` lets them through up to ``LOG_MAX_BYTES``."""

Preset = Literal["default", "tenhou", "mahjongsoul"]
PresetQuery = Annotated[Preset | None, Query(description="the rule preset; else read from the log's room name")]


class Replay(BaseModel):
    """A match's log in the wire form of the socket, as ``seat`` may see it: redacted for that
    seat while the match runs (``open`` false), every hand open once it has ended."""

    match: str | None
    seat: int
    open: bool = Field(description="every seat's tiles are shown (the match has ended)")
    rules: dict[str, Any]
    names: list[str | None] = Field(description="by seat: a display name, or null (a bot or a nameless guest)")
    bots: list[str | None] = Field(description="by seat: the bot level, or null")
    events: list[dict[str, Any]]


class HandNote(BaseModel):
    """How the engine's replay of one hand of an opened log compares with what the log records."""

    index: int
    match: bool
    differences: list[str]
    notes: list[str]
    log_result: dict[str, Any] = Field(description="the result as the log records it")


class OpenedLog(Replay):
    """An opened tenhou.net/6 log, replayed by the engine (``hands``: per hand, whether it agrees)."""

    id: str | None = Field(description="the saved log's id (null: not saved)")
    title: str
    preset: str
    rule_name: str
    hands: list[HandNote]


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


# Readings of the wins of recently replayed matches, by (match, log length): a stored log never
# changes under a length, so a replay asked again (a shared link) costs no new engine run.
_READINGS: OrderedDict[tuple[str, int], dict[int, HandWon]] = OrderedDict()
_READINGS_KEPT = 64
_READINGS_LOCK = threading.Lock()  # replays are built in worker threads


def with_readings(match_id: str, events: list[Event]) -> list[Event]:
    """``events`` with each ``HandWon`` as the engine scored it, reading included (so its
    ``score.fu_breakdown`` is the socket's): the stored form keeps no reading, so the log is
    played again (``engine.replay``).  A log that does not replay is shown as stored."""
    if not any(isinstance(e, HandWon) for e in events):
        return events
    key = (match_id, len(events))
    with _READINGS_LOCK:
        wins = _READINGS.get(key)
    if wins is None:
        try:
            played = replay_log(events).events
        except SanmaError:
            return events
        wins = {i: e for i, e in enumerate(played) if isinstance(e, HandWon)}
    with _READINGS_LOCK:
        _READINGS[key] = wins
        _READINGS.move_to_end(key)
        while len(_READINGS) > _READINGS_KEPT:
            _READINGS.popitem(last=False)
    return [wins.get(i, e) for i, e in enumerate(events)]


def build_replay(app: AppServices, record: match_store.MatchRecord, seat: int) -> Replay:
    """The replay of a stored match for ``seat``: redacted while it runs, open after its end."""
    stored = match_store.load_events(app.engine, record.id)
    red = rules_from_json(record.rules).red_fives
    is_open = record.status == "ended"
    events = with_readings(record.id, [event_from_store(e) for e in stored])
    shown = events if is_open else [redact(e, seat) for e in events]
    labels = match_store.seat_labels(app.engine, record.id)
    return Replay(
        match=record.id,
        seat=seat,
        open=is_open,
        rules=record.rules,
        names=[name for _, name, _ in labels],
        bots=[level for _, _, level in labels],
        events=[event_to_wire(e, red) for e in shown],
    )


@router.get("/matches/{match_id}/replay", responses={404: {"description": "`no_match`: not a match of this account"}})
async def replay(match_id: str, guest: Guest, app: AppServices) -> Replay:
    """A match the account played: while it runs, redacted for the account's seat (others'
    concealed tiles and the seed stay hidden, as during play); after its end, every hand open."""

    def read() -> Replay:
        record, seat = _seated(app, match_id, guest)
        return build_replay(app, record, seat)

    return await asyncio.to_thread(read)


def split_hands(events: Sequence[Event]) -> list[list[KyokuEvent]]:
    """A match's events cut into hands, each from its ``HandStarted`` to its end."""
    hands: list[list[KyokuEvent]] = []
    for event in events:
        if isinstance(event, MatchStarted | MatchEnded):
            continue
        if isinstance(event, HandStarted):
            hands.append([])
        if hands:
            hands[-1].append(event)
    return hands


def rule_name(rules: Rules) -> str:
    """The tenhou.net/6 room name our rules come closest to: the length and red fives (a
    re-import reads the preset from it; ``docs/formats.md``)."""
    length = "東" if rules.length in ("east", "one-hand") else "南"
    if rules.preset == "mahjongsoul":
        return f"三金の間{length}{'赤' if rules.red_fives else ''}"
    return f"三般{length}喰{'赤' if rules.red_fives else ''}"


def _names(app: AppServices, match_id: str) -> list[str]:
    out = []
    for seat, name, level in match_store.seat_labels(app.engine, match_id):
        out.append(name or (f"bot ({level})" if level else f"Player {seat + 1}"))
    return out


def tenhou6_of(app: AppServices, record: match_store.MatchRecord) -> dict[str, object]:
    """An ended match as a tenhou.net/6 game (the engine's exporter, kita as ``f44``)."""
    rules = rules_from_json(record.rules)
    events = [event_from_store(e) for e in match_store.load_events(app.engine, record.id)]
    final = next((e for e in events if isinstance(e, MatchEnded)), None)
    return tenhou6.export_game(
        split_hands(events),
        rules,
        names=_names(app, record.id),
        rule_name=rule_name(rules),
        ref=record.id,
        final_points=None if final is None else final.points,
        final_scores=None if final is None else final.final_scores,
    )


def _attachment(name: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{name}"'}


@router.get(
    "/matches/{match_id}/tenhou6",
    responses={404: {"description": "`no_match`"}, 409: {"description": "`match_running`"}},
)
async def download_tenhou6(match_id: str, guest: Guest, app: AppServices) -> Response:
    """An ended match of the account as a tenhou.net/6 JSON file (three-player form)."""

    def read() -> bytes:
        record, _ = _seated(app, match_id, guest)
        _ended(record)
        return json.dumps(tenhou6_of(app, record), ensure_ascii=False, separators=(",", ":")).encode()

    body = await asyncio.to_thread(read)
    return Response(body, media_type="application/json", headers=_attachment(f"sanma-{match_id}.tenhou6.json"))


@router.get(
    "/matches/{match_id}/log.jsonl",
    responses={404: {"description": "`no_match`"}, 409: {"description": "`match_running`"}},
)
async def download_log(match_id: str, guest: Guest, app: AppServices) -> Response:
    """An ended match of the account as our event log: one stored event per line (the seed
    included, so ``engine.replay`` rebuilds the match from it)."""

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


@router.get("/shared/{share_id}", responses={404: {"description": "`no_share`: no such link (or no longer shared)"}})
async def shared(share_id: str, app: AppServices) -> Replay:
    """The match behind a share link, every hand open (no token needed: the link is the key)."""

    def read() -> Replay:
        found = match_store.shared_match(app.engine, share_id)
        record = None if found is None else match_store.get_match(app.engine, found[0])
        seat = None if found is None else account_store.seat_of(app.engine, found[0], found[1])
        if record is None or seat is None or record.status != "ended":
            raise ApiError(404, "no_share", "no such replay link")
        return build_replay(app, record, seat)

    return await asyncio.to_thread(read)


# -- opened logs ------------------------------------------------------------------------------


async def _read_log(request: Request) -> str:
    """The body as text, at most ``LOG_MAX_BYTES`` (413 ``too_large`` beyond)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > LOG_MAX_BYTES:
        raise _too_large()
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > LOG_MAX_BYTES:
            raise _too_large()
    try:
        return body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ApiError(422, "not_text", f"the file is not UTF-8 text (byte {exc.start})") from exc


def _too_large() -> ApiError:
    return ApiError(413, "too_large", f"a log file is at most {LOG_MAX_BYTES // (1024 * 1024)} MiB")


def _json_problem(text: str) -> ApiError | None:
    """A clear error for text that is not JSON (a cut-off file says so), else ``None``."""
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()) - 1 or "Unterminated" in exc.msg:
            return ApiError(
                422, "truncated", f"the file ends too early (at character {exc.pos}): it is cut off, not a whole log"
            )
        return ApiError(422, "not_json", f"the file is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}")
    return None


def _four_player(data: object) -> str | None:
    """Why ``data`` looks like a four-player game, or ``None``: the room name, a fourth
    player's name or a fourth seat's points (the importer would only name the first symptom)."""
    if not isinstance(data, dict):
        return None
    rule = data.get("rule")
    disp = rule.get("disp") if isinstance(rule, dict) else None
    if isinstance(disp, str) and disp and not disp.startswith("三"):
        return f"the room {disp!r} is a four-player room"
    names = data.get("name")
    if isinstance(names, list) and len(names) >= 4 and isinstance(names[3], str) and names[3]:
        return f"it names a fourth player ({names[3]!r})"
    for i, hand in enumerate(data.get("log") or []):
        if isinstance(hand, list) and len(hand) > 1 and isinstance(hand[1], list) and len(hand[1]) > 3 and hand[1][3]:
            return f"hand {i + 1} gives a fourth seat {hand[1][3]} points"
    return None


def parse_log(text: str, source: str = "upload") -> tenhou6.RecordedGame:
    """The engine's reading of a tenhou.net/6 file, or a typed ``ApiError`` naming the problem."""
    problem = _json_problem(text)
    if problem is not None:
        raise problem
    why = _four_player(json.loads(text))
    if why is not None:
        raise ApiError(422, "four_player", f"this is a four-player log ({why}); Sanma opens three-player logs only")
    try:
        return tenhou6.loads(text, source=source)
    except tenhou6.TenhouLogError as exc:
        where = "" if exc.hand is None else f"hand {exc.hand + 1}: "
        detail = f"{where}{exc.position + ': ' if exc.position else ''}{_plain(str(exc))}"
        raise ApiError(422, "bad_log", detail) from exc


def _plain(message: str) -> str:
    """The importer's message without the source and hand it repeats ("upload: hand 2: ..."),
    a tile code also written in mpsz ("tile 21 (1p)")."""
    problem = message.rsplit(": ", 1)[-1]
    return re.sub(r"\btile (\d\d)\b", _tile_named, problem)


def _tile_named(m: re.Match[str]) -> str:
    code = int(m.group(1))
    suit, number = divmod(code, 10)
    if 1 <= suit <= 4 and 1 <= number <= 9:
        return f"tile {code} ({number}{'mpsz'[suit - 1]})"
    if code in (51, 52, 53):
        return f"tile {code} (red 5{'mps'[code - 51]})"
    return m.group(0)


def _log_result(hand: tenhou6.RecordedHand) -> dict[str, Any]:
    result = hand.result
    wins = [
        {"seat": w.seat, "from": w.from_seat, "han": w.han, "fu": w.fu, "yakuman": w.yakuman, "points": w.points_text}
        for w in result.wins
    ]
    return {"outcome": result.outcome, "name": result.name, "deltas": list(result.deltas), "wins": wins}


def _final(game: tenhou6.RecordedGame, checks: Sequence[tenhou6.HandCheck], rules: Rules) -> MatchEnded | None:
    """The standings at the end: the log's own final points when it has them, else the engine's."""
    points = game.final_scores
    if points is None and checks and checks[-1].result is not None:
        last, result = game.hands[-1], checks[-1].result
        points = tuple(last.scores[s] + result.deltas[s] - 1000 * result.riichi_paid[s] for s in range(3))  # type: ignore[assignment]
    if points is None:
        return None
    table = standings(points, rules)
    return MatchEnded(
        points=points, placements=tuple(s.placement for s in table), final_scores=tuple(s.final_score for s in table)
    )


def open_log(text: str, preset: str | None, *, log_id: str | None = None) -> OpenedLog:
    """Read, check and replay a log for the viewer (every hand open: the file is the player's)."""
    game = parse_log(text)
    try:
        rules = tenhou6.rules_for(game, preset)
    except SanmaError as exc:
        raise ApiError(422, "bad_log", str(exc)) from exc
    checks = tenhou6.check_game(game, rules)
    events: list[Event] = [MatchStarted(seed=HIDDEN_SEED, rules=rules, wall_algorithm="tenhou.net/6")]
    for check in checks:
        events += check.events
    final = _final(game, checks, rules)
    if final is not None:
        events.append(final)
    hands = [
        HandNote(
            index=c.index,
            match=c.match,
            differences=list(c.differences),
            notes=list(c.notes),
            log_result=_log_result(h),
        )
        for c, h in zip(checks, game.hands, strict=True)
    ]
    names = [n or None for n in game.names]
    return OpenedLog(
        id=log_id,
        match=None,
        seat=0,
        open=True,
        rules=rules_to_json(rules),
        names=names,
        bots=[None, None, None],
        events=[event_to_wire(e, rules.red_fives) for e in events],
        title=_title(game),
        preset=rules.preset,
        rule_name=game.rule_name,
        hands=hands,
    )


def _title(game: tenhou6.RecordedGame) -> str:
    who = " · ".join(n for n in game.names if n)
    return f"{game.rule_name} {who}".strip()[:200]


LOG_ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"description": "`too_large`: over 2 MiB"},
    422: {"description": "`truncated`, `not_json`, `not_text`, `four_player`, `bad_log` (the detail names the hand)"},
}


@router.post("/replays/open", responses=LOG_ERRORS)
async def open_file(request: Request, guest: Guest, preset: PresetQuery = None) -> OpenedLog:
    """Open a tenhou.net/6 three-player log (the body is the file): checked by the engine's
    importer and replayed; nothing is stored."""
    text = await _read_log(request)
    return await asyncio.to_thread(open_log, text, preset)


@router.post("/replays", status_code=201, responses=LOG_ERRORS)
async def save_file(request: Request, guest: Guest, app: AppServices, preset: PresetQuery = None) -> OpenedLog:
    """Keep an opened log in the account's history (checked exactly as when opened)."""
    text = await _read_log(request)

    def write() -> OpenedLog:
        opened = open_log(text, preset)
        saved = match_store.save_log(app.engine, guest, title=opened.title, preset=opened.preset, log=text)
        return opened.model_copy(update={"id": saved.id})

    return await asyncio.to_thread(write)


@router.get("/replays")
async def saved_list(guest: Guest, app: AppServices) -> SavedList:
    """The logs the account kept, newest first."""
    logs = await asyncio.to_thread(match_store.saved_logs_of, app.engine, guest)
    return SavedList(logs=[SavedItem(id=s.id, title=s.title, preset=s.preset, created_at=s.created_at) for s in logs])


@router.get("/replays/{log_id}", responses={404: {"description": "`no_log`"}})
async def saved_one(log_id: str, guest: Guest, app: AppServices) -> OpenedLog:
    """A kept log, opened again."""

    def read() -> OpenedLog:
        saved = match_store.saved_log(app.engine, log_id, guest)
        if saved is None:
            raise ApiError(404, "no_log", "no such saved log for this account")
        return open_log(saved.log, saved.preset, log_id=saved.id)

    return await asyncio.to_thread(read)


@router.delete("/replays/{log_id}", status_code=204, responses={404: {"description": "`no_log`"}})
async def saved_delete(log_id: str, guest: Guest, app: AppServices) -> Response:
    """Forget a kept log."""
    gone = await asyncio.to_thread(match_store.delete_saved_log, app.engine, log_id, guest)
    if not gone:
        raise ApiError(404, "no_log", "no such saved log for this account")
    return Response(status_code=204)
