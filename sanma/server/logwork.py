"""Log work off the server's threads: importing, checking and rendering logs in worker processes.

Opening a tenhou.net/6 file costs the engine about 3 ms of CPU per hand, replaying a stored
match for its wins' readings or exporting it some tens of milliseconds.  Done in the server's
threads, that work holds the GIL and the default thread pool that every room's database calls
share: six 3,273-hand uploads at once once froze a friend room for a minute (issue 23).  So it
runs here, in a pool of worker processes of its own (``LogWork``, one per app, like the
``Reviewer``; ``procpool``: the workers end with the server), and a job

- spends at most ``cpu_s`` of CPU (the kernel's ``RLIMIT_CPU``) and ``wall_s`` of wall-clock
  time (a hung worker is stopped and its pool replaced): beyond, ``422 log_too_costly``;
- waits for a free worker with at most ``queue_cap`` jobs running or waiting in all: beyond,
  ``LogBusy`` (``503 log_busy`` with ``Retry-After``);
- answers with JSON bytes already serialised in the worker, so nothing big crosses the
  process boundary as Python objects, and the event loop only sends them.

An opened log is refused as early as it can be: by its JSON (depth, a number over Python's
4,300-digit limit, a number that is not finite), by its number of hands (``max_hands``, right
after the parse, before the engine's check) and by the size of the answer (``max_bytes``).
Every refusal is a ``LogFault``: the status, code and detail of the typed answer.

The wins' readings of a replayed match are not cached: a worker serves one job at a time and
jobs land on any worker, so a cache would rarely be hit; the log routes' meters bound how
often a client may ask.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import re
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final, TypeVar

from pydantic import BaseModel, Field

from sanma.engine.errors import SanmaError
from sanma.engine.events import Event, HandWon, MatchEnded, MatchStarted
from sanma.engine.formats import mjlog, tenhou6
from sanma.engine.match import standings, without_abandoned_hand
from sanma.engine.replay import replay as replay_log
from sanma.engine.rules import Rules
from sanma.engine.visibility import HIDDEN_SEED, redact
from sanma.server.codec import event_from_store, event_to_wire, rules_from_json, rules_to_json
from sanma.server.procpool import CpuLimitExceeded, limited, new_pool, stop_pool

log = logging.getLogger(__name__)

T = TypeVar("T")

MAX_HANDS: Final = 64
"""The most hands an opened log may have (a long hanchan has about 20)."""

MAX_ANSWER_BYTES: Final = 8 * 1024 * 1024
"""The largest answer an opened log may make (64 hands make about 0.5 MiB)."""

WALL_S: Final = 30.0
"""Seconds of wall-clock time a job may take before its worker is stopped."""


# -- what the viewer gets -----------------------------------------------------------------------


class Replay(BaseModel):
    """A match's log in the wire form of the socket, as ``seat`` may see it: redacted for that
    seat while the match runs (``open`` false), every hand open once it has ended."""

    match: str | None
    seat: int
    open: bool = Field(description="every seat's tiles are shown (the match has ended)")
    rules: dict[str, Any]
    names: list[str | None] = Field(
        description="by seat: a display name or a practice bot's (Kenji, Sari); null: a room's bot, a nameless guest"
    )
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


def with_id(opened: bytes, log_id: str | None) -> bytes:
    """An ``OpenedLog`` serialised without its id (``open_job``), with ``id`` set."""
    return b'{"id":' + json.dumps(log_id).encode() + b"," + opened[1:]


# -- in the worker: refusals --------------------------------------------------------------------


class LogFault(Exception):
    """A log the work refuses: the typed answer's ``status``, ``code`` and ``detail``
    (picklable: it travels back from a worker)."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(status, code, detail)
        self.status = status
        self.code = code
        self.detail = detail


def _not_finite(text: str) -> float:
    raise LogFault(422, "not_finite", f"the file holds the number {text}: a log's numbers are finite")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        _not_finite(text)
    return value


def read_json(text: str) -> object:
    """``text`` decoded as strict JSON (finite numbers only), or a ``LogFault`` naming the problem
    (a cut-off file says so)."""
    try:
        return json.loads(text, parse_constant=_not_finite, parse_float=_finite)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()) - 1 or "Unterminated" in exc.msg:
            raise LogFault(
                422, "truncated", f"the file ends too early (at character {exc.pos}): it is cut off, not a whole log"
            ) from None
        raise LogFault(
            422, "not_json", f"the file is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except RecursionError:
        raise LogFault(422, "too_deep", "the file nests lists or objects too deeply for a log") from None
    except ValueError as exc:  # Python's limit on the digits of an integer (4,300)
        raise LogFault(422, "huge_number", f"the file holds a number too long for a log ({exc})") from None


# -- in the worker: an opened log ---------------------------------------------------------------


def unpacked(body: bytes, max_bytes: int) -> bytes:
    """A gzip-packed upload (Tenhou's ``.mjlog``/``.xml.gz`` downloads) unpacked, at most
    ``max_bytes`` of it like any log; any other body as it is."""
    if not mjlog.is_gzip(body):
        return body
    try:
        return mjlog.gunzip(body, max_bytes=max_bytes)
    except mjlog.OversizeLog:
        raise LogFault(413, "too_large", f"a log file is at most {max_bytes >> 20} MiB, unpacked too") from None
    except mjlog.MjlogError as exc:
        raise LogFault(422, "not_text", f"the gzip file cannot be unpacked: {exc.reason}") from None


def open_job(text: str, preset: str | None, *, max_hands: int, max_bytes: int, packed: bool) -> tuple[str, str, bytes]:
    """Read, check and replay a log for the viewer (every hand open: the file is the player's):
    ``(title, preset, answer)``, the answer an ``OpenedLog`` without its id (``with_id``), as
    JSON bytes or (``packed``) zlib-compressed JSON bytes, as kept in the store.  ``text`` is
    tenhou.net/6 JSON or (when it starts with ``<``) Tenhou's mjlog XML."""
    try:
        if mjlog.looks_like_mjlog(text):
            opened = _opened_mjlog(text, preset, max_hands)
        else:
            opened = _opened(read_json(text), preset, max_hands)
    except RecursionError:  # nesting the parser let through, too deep for the importer
        raise LogFault(422, "too_deep", "the file nests lists or objects too deeply for a log") from None
    body = opened.__pydantic_serializer__.to_json(opened, exclude={"id"})
    if len(body) > max_bytes:
        raise LogFault(
            422, "too_large_answer", f"this log's replay would be {len(body) >> 20} MiB; at most {max_bytes >> 20} MiB"
        )
    return opened.title, opened.preset, zlib.compress(body) if packed else body


def _opened(data: object, preset: str | None, max_hands: int) -> OpenedLog:
    hands = data.get("log") if isinstance(data, dict) else None
    if isinstance(hands, list) and len(hands) > max_hands:
        raise LogFault(422, "too_many_hands", f"the log has {len(hands)} hands; at most {max_hands} are opened")
    why = tenhou6.four_player_reason(data)
    if why is not None:
        raise LogFault(422, "four_player", f"this is a four-player log ({why}); Sanma opens three-player logs only")
    try:
        game = tenhou6.parse_game(data, source="upload")
    except tenhou6.TenhouLogError as exc:
        where = "" if exc.hand is None else f"hand {exc.hand + 1}: "
        raise LogFault(
            422, "bad_log", f"{where}{exc.position + ': ' if exc.position else ''}{_plain(str(exc))}"
        ) from None
    try:
        rules = tenhou6.rules_for(game, preset)
        return _rendered(game, rules)
    except SanmaError as exc:
        raise LogFault(422, "bad_log", str(exc)) from None


def _opened_mjlog(text: str, preset: str | None, max_hands: int) -> OpenedLog:
    """An mjlog upload: read into the same record as tenhou.net/6, then checked and rendered alike."""
    try:
        game = mjlog.loads(text, source="upload")
    except mjlog.FourPlayerLog as exc:
        raise LogFault(
            422, "four_player", f"this is a four-player log ({exc.reason}); Sanma opens three-player logs only"
        ) from None
    except mjlog.MjlogError as exc:
        where = "" if exc.hand is None else f"hand {exc.hand + 1}: "
        raise LogFault(422, "bad_log", f"{where}{exc.position + ': ' if exc.position else ''}{exc.reason}") from None
    if len(game.hands) > max_hands:
        raise LogFault(422, "too_many_hands", f"the log has {len(game.hands)} hands; at most {max_hands} are opened")
    try:
        return _rendered(game, tenhou6.rules_for(game, preset))
    except SanmaError as exc:
        raise LogFault(422, "bad_log", str(exc)) from None


def _rendered(game: tenhou6.RecordedGame, rules: Rules) -> OpenedLog:
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
    return OpenedLog(
        id=None,
        match=None,
        seat=0,
        open=True,
        rules=rules_to_json(rules),
        names=[n or None for n in game.names],
        bots=[None, None, None],
        events=[event_to_wire(e, rules.red_fives) for e in events],
        title=_title(game),
        preset=rules.preset,
        rule_name=game.rule_name,
        hands=hands,
    )


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


def _title(game: tenhou6.RecordedGame) -> str:
    who = " · ".join(n for n in game.names if n)
    return f"{game.rule_name} {who}".strip()[:200]


# -- in the worker: a stored match --------------------------------------------------------------


def with_readings(events: list[Event]) -> list[Event]:
    """``events`` with each ``HandWon`` as the engine scored it, reading included (so its
    ``score.fu_breakdown`` is the socket's).  A win stored since its score keeps its reading is
    shown as stored; a log stored before that is played again (``engine.replay``) for them.  A
    log that does not replay is shown as stored."""
    if all(e.score.reading is not None for e in events if isinstance(e, HandWon)):
        return events
    try:
        played = replay_log(events).events
    except SanmaError:
        return events
    wins = {i: e for i, e in enumerate(played) if isinstance(e, HandWon)}
    return [wins.get(i, e) for i, e in enumerate(events)]


def replay_job(
    match_id: str,
    stored: list[dict[str, Any]],
    rules: dict[str, Any],
    *,
    seat: int,
    is_open: bool,
    names: list[str | None],
    bots: list[str | None],
) -> bytes:
    """A stored match's ``Replay`` for ``seat`` as JSON bytes: redacted while it runs, open
    after its end."""
    events = with_readings([event_from_store(e) for e in stored])
    shown = events if is_open else [redact(e, seat) for e in events]
    red = rules_from_json(rules).red_fives
    answer = Replay(
        match=match_id,
        seat=seat,
        open=is_open,
        rules=rules,
        names=names,
        bots=bots,
        events=[event_to_wire(e, red) for e in shown],
    )
    return answer.__pydantic_serializer__.to_json(answer)


def tenhou6_job(match_id: str, stored: list[dict[str, Any]], rules: dict[str, Any], names: list[str]) -> bytes:
    """An ended match as a tenhou.net/6 game (the engine's exporter, kita as ``f44``), JSON bytes.
    A hand an operator's end abandoned is left out (Tenhou writes no hand without a result)."""
    parsed = rules_from_json(rules)
    events = without_abandoned_hand([event_from_store(e) for e in stored])
    final = next((e for e in events if isinstance(e, MatchEnded)), None)
    game = tenhou6.export_game(
        tenhou6.split_hands(events),
        parsed,
        names=names,
        rule_name=tenhou6.rule_name_for(parsed),
        ref=match_id,
        final_points=None if final is None else final.points,
        final_scores=None if final is None else final.final_scores,
    )
    return json.dumps(game, ensure_ascii=False, separators=(",", ":")).encode()


# -- in the server ------------------------------------------------------------------------------


class LogBusy(Exception):
    """Every worker is busy and ``queue_cap`` jobs are running or waiting (``503 log_busy``)."""

    def __init__(self, retry_after_s: int) -> None:
        super().__init__("the server is busy with other logs; try again in a few seconds")
        self.retry_after_s = retry_after_s


class LogWork:
    """The app's log workers: ``workers`` processes (spawned by the first job, so that a server
    nobody asks for a log starts none), ``queue_cap`` jobs running or waiting, ``cpu_s`` of CPU
    and ``wall_s`` of wall-clock time per job (see the module docstring)."""

    def __init__(self, *, workers: int, queue_cap: int, cpu_s: float, wall_s: float = WALL_S) -> None:
        if workers < 1 or queue_cap < 1 or cpu_s <= 0 or wall_s <= 0:
            raise ValueError("workers >= 1, queue_cap >= 1, cpu_s > 0 and wall_s > 0")
        self.workers = workers
        self.queue_cap = queue_cap
        self.cpu_s = cpu_s
        self.wall_s = wall_s
        self.jobs = 0  # jobs handed to a worker (tests count them: a lookup hands none)
        self._held = 0  # jobs running or waiting for a worker
        self._slots = asyncio.Semaphore(workers)  # a worker is never given a second job to queue
        self._pool: ProcessPoolExecutor | None = None

    async def close(self) -> None:
        """Stop the workers, busy or not."""
        await asyncio.to_thread(self._stop_pool)

    async def run(self, job: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``job(*args, **kwargs)`` in a worker, once one is free; ``LogBusy`` when too many
        wait, ``LogFault`` for what the job refuses or what it would cost beyond its limits.

        A request that goes away leaves its job running: the job keeps its worker and its place
        in ``queue_cap`` until it ends (a worker is never handed a second job to queue)."""
        if self._held >= self.queue_cap:
            raise LogBusy(max(1, math.ceil(self.cpu_s)))
        self._held += 1
        try:
            await self._slots.acquire()
        except BaseException:
            self._held -= 1
            raise
        task = asyncio.create_task(self._submit(job, args, kwargs))
        task.add_done_callback(self._done)
        return await asyncio.shield(task)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._slots.release()
        self._held -= 1
        if not task.cancelled():
            task.exception()  # seen: an abandoned job's refusal is no "never retrieved" warning

    async def _submit(self, job: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
        pool = self._pool_now()
        self.jobs += 1
        future = pool.submit(limited, self.cpu_s, job, *args, **kwargs)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), self.wall_s)
        except CpuLimitExceeded:
            raise LogFault(422, "log_too_costly", f"this log costs more than {self.cpu_s:g} s of work") from None
        except TimeoutError:
            log.warning("logs: a job ran past %g s: its worker is stopped", self.wall_s)
            await asyncio.to_thread(self._stop_pool, pool)
            raise LogFault(422, "log_too_costly", f"this log takes longer than {self.wall_s:g} s") from None
        except BrokenProcessPool:
            log.warning("logs: a worker died")
            await asyncio.to_thread(self._stop_pool, pool)  # the next job makes a new pool
            raise LogFault(422, "log_too_costly", "this log stopped its worker") from None

    def _pool_now(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = new_pool(self.workers)
        return self._pool

    def _stop_pool(self, only: ProcessPoolExecutor | None = None) -> None:
        """Stop the pool (``only``: if it is still that one, so that a job of a broken pool
        does not stop its replacement) and its workers."""
        if only is not None and self._pool is not only:
            return
        pool, self._pool = self._pool, None
        if pool is not None:
            with contextlib.suppress(Exception):
                stop_pool(pool)
