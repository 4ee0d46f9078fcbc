"""The tables' bots think in worker processes of the server (``SANMA_BOT_WORKERS``).

A bot that thinks in a thread of the server competes with every socket for the GIL: a slow
decision slows every table.  Here each bot lives in one worker process for its whole life
(so it keeps its own state: the view, the discard order, a learner's random numbers), and the
table holds a ``PooledBot``, a ``Player`` that only collects the events its seat sees.  When
the table asks it, the collected events and the legal actions go to the worker in one
``Decide`` message; the worker folds the events into the real bot, asks it through
``bots.base.ask`` (its budget, default action on error or illegal answer) and sends the
``Answer`` back.  So a bot decides exactly as it would in the table's own process, from the
same events: the arena's determinism holds here too.

The loop never blocks: messages go over a socket pair with asyncio streams (length-prefixed
pickles; both ends are this server's own processes).  A worker that dies (or is killed
because it held an answer far past its budget) is started again, and each bot it held is
built again from the whole history of its seat with its next question; the question that
was lost gets the default action.  A worker ends when its server does: it reads end of file
on its socket, whatever killed the server.

Workers are forked by a ``forkserver`` that has imported the bot modules once: a fresh
interpreter importing them spends about 0.6 s of CPU (the shanten tables most of it), which a
worker started again after a crash, or each server of the test suite, would pay every time.
The forkserver is a clean single-threaded process, so no thread of the server is forked, and
its workers share the imported modules' pages until they write to them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import multiprocessing
import pickle
import signal
import socket
import struct
import threading
import time
from dataclasses import dataclass
from typing import Any, Final

from sanma.bots.base import Answer, AnswerStatus, Player, ask
from sanma.bots.registry import LEVELS, check_level, display_name
from sanma.engine.actions import Action
from sanma.engine.events import Event
from sanma.engine.kyoku import LegalActions

log = logging.getLogger(__name__)

_LENGTH: Final = struct.Struct(">I")

GRACE_S: Final = 1.0
"""Seconds an answer may take on top of the bot budget (the trip and the worker's queue)."""

KILL_AFTER_S: Final = 10.0
"""Seconds past the bot budget after which a worker that still holds an answer is stopped
and started again (a bot in an endless loop must not hold every table of its worker)."""


# -- the messages ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Decide:
    """Ask bot ``key`` (built from ``level``, ``seat``, ``seed`` when the worker does not hold
    it, or when ``fresh``), after folding in ``events``, to answer ``legal``."""

    request: int
    key: int
    level: str
    seat: int
    seed: int
    fresh: bool
    events: tuple[Event, ...]
    legal: LegalActions
    budget_s: float


@dataclass(frozen=True, slots=True)
class Advise(Decide):
    """``Decide``'s question asked of coach ``key`` (a bot of ``level``, built as for
    ``Decide``): its advice on ``legal`` (``bots.coach.advise``) instead of its answer."""


@dataclass(frozen=True, slots=True)
class Advised:
    """The coach's answer to request ``request``: the advice's wire form, or ``None`` when
    the bot could not give one (it raised, or it is not a master)."""

    request: int
    advice: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class Forget:
    """The worker drops bot ``key`` (its table has ended or left memory)."""

    key: int


@dataclass(frozen=True, slots=True)
class Decided:
    """The answer to request ``request``."""

    request: int
    answer: Answer


# -- in the worker process ---------------------------------------------------------------------


def _serve(sock: socket.socket) -> None:
    """A worker's life: answer ``Decide`` and ``Advise`` and obey ``Forget`` until the server's
    end closes."""
    from sanma.bots.registry import make_bot  # the bot modules load here, not in the server

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server; the worker follows it
    bots: dict[int, Player] = {}
    stream = sock.makefile("rb")
    while (message := _read_blocking(stream)) is not None:
        if isinstance(message, Forget):
            bots.pop(message.key, None)
            continue
        bot = bots.get(message.key)
        if bot is None or message.fresh:
            bot = bots[message.key] = make_bot(message.level, message.seat, message.seed)
        for event in message.events:
            bot.observe(event)
        if isinstance(message, Advise):
            sock.sendall(_frame(Advised(message.request, advice_of(bot, message.legal))))
        else:
            sock.sendall(_frame(Decided(message.request, ask(bot, message.legal, message.budget_s))))


def advice_of(bot: Player, legal: LegalActions) -> dict[str, Any] | None:
    """The coach's advice from ``bot`` (a master that has seen the seat's events) as the
    ``coach`` frame carries it; ``None`` when ``bot`` is no master or fails (no coach frame:
    play never depends on the coach)."""
    from sanma.bots.coach import advise
    from sanma.bots.master import LearnedMaster

    if not isinstance(bot, LearnedMaster):
        return None
    try:
        advice = advise(bot, legal)
    except Exception:  # a failing coach must never stop the worker's bots
        log.exception("the coach failed")
        return None
    return advice.as_dict() | {"actions": list(advice.actions)}


def _read_blocking(stream: Any) -> Decide | Advise | Forget | None:
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        return None  # the server is gone
    body = stream.read(_LENGTH.unpack(head)[0])
    message = pickle.loads(body)
    assert isinstance(message, Decide | Advise | Forget)
    return message


def _frame(message: Decide | Advise | Forget | Decided | Advised) -> bytes:
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _LENGTH.pack(len(body)) + body


# -- in the server -----------------------------------------------------------------------------


class _Unanswered(Exception):
    """A question the pool got no reply to: ``status`` is an ``Answer``'s (``error`` or
    ``overrun``), ``detail`` what went wrong."""

    def __init__(self, status: AnswerStatus, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


class WorkerLost(Exception):
    """The worker holding a question stopped before it answered."""


class PooledBot(Player):
    """A table's handle on a bot that lives in a worker process: it keeps what its seat has
    seen (the whole history, to build the bot again in a new worker) and what the worker has
    not been sent yet; ``BotPool.answer`` asks it."""

    def __init__(self, pool: BotPool, slot: int, key: int, level: str, seat: int, seed: int) -> None:
        super().__init__(seat, seed)
        self.name = display_name(level)  # the metrics and the logs name the level as players see it
        self.level = level
        self.pool = pool
        self.slot = slot
        self.key = key
        self.history: list[Event] = []
        self.sent = 0  # events of ``history`` the worker has folded in
        self.generation = -1  # the worker process that holds the bot (-1: none yet)

    def observe(self, event: Event) -> None:
        """Keep ``event`` for the next question (the view is the worker's)."""
        self.history.append(event)

    def decide(self, legal: LegalActions) -> Action:
        raise TypeError("a pooled bot answers in its worker: use BotPool.answer")

    def close(self) -> None:
        """Let the worker drop the bot."""
        self.pool.forget(self)


class _Link:
    """One running worker process and the questions it has not answered yet."""

    def __init__(self, process: Any, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, generation: int):
        self.process = process
        self.reader = reader
        self.writer = writer
        self.generation = generation
        self.waiting: dict[int, asyncio.Future[Any]] = {}  # an Answer, or an Advised's advice
        self.task: asyncio.Task[None] | None = None

    @property
    def alive(self) -> bool:
        return self.task is not None and not self.task.done()

    async def read_answers(self) -> None:
        try:
            while True:
                head = await self.reader.readexactly(_LENGTH.size)
                message = pickle.loads(await self.reader.readexactly(_LENGTH.unpack(head)[0]))
                future = self.waiting.pop(message.request, None)
                if future is not None and not future.done():  # else: answered too late, dropped
                    future.set_result(message.answer if isinstance(message, Decided) else message.advice)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass  # the worker stopped
        finally:
            for future in self.waiting.values():
                if not future.done():
                    future.set_exception(WorkerLost("the bot's worker process stopped"))
            self.waiting.clear()
            self.writer.close()
            self.process.join(0)

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()


@functools.cache
def _context() -> Any:
    """The forkserver context, with the bots' modules imported before its first fork (the
    preload list is read when the forkserver starts: the first worker of this process)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(
        [__name__, "sanma.bots.coach", *sorted({module for module, _, _ in LEVELS.values()})]
    )
    return context


class BotPool:
    """``workers`` processes where the tables' bots live, started at the first question.
    ``make_bot`` is a table's ``BotFactory`` (any thread); ``answer`` asks a bot (the loop)."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError("a bot pool has at least one worker")
        self.workers = workers
        self._links: list[_Link | None] = [None] * workers
        self._starting = [asyncio.Lock() for _ in range(workers)]
        self._generations = itertools.count()
        self._keys = itertools.count(1)
        self._next_slot = itertools.count()
        self._lock = threading.Lock()  # make_bot runs in the threads that open tables
        self._closed = False

    def make_bot(self, level: str, seat: int, seed: int = 0) -> PooledBot:
        """A bot of ``level`` for ``seat`` in one of the workers (round robin)."""
        check_level(level)  # an unknown level fails here, in the table's opening, not in the worker
        with self._lock:
            slot, key = next(self._next_slot) % self.workers, next(self._keys)
        return PooledBot(self, slot, key, level, seat, seed)

    async def answer(self, bot: PooledBot, legal: LegalActions, budget_s: float) -> Answer:
        """``bot``'s answer to ``legal``: its own, or the default when it errs, answers
        illegally, overruns ``budget_s`` or its worker stops (as ``bots.base.ask``)."""
        default = legal.default
        if default is None:
            raise ValueError("a bot is asked only when it has something to decide")
        start = time.perf_counter()
        try:
            answer: Answer = await self._request(bot, legal, budget_s, coach=False)
        except _Unanswered as exc:
            seconds = time.perf_counter() - start
            detail = f"{seconds:.3f}s > {budget_s:.3f}s (waited in the pool)" if exc.status == "overrun" else exc.detail
            return Answer(default, exc.status, seconds, detail)
        return answer

    async def advise(self, bot: PooledBot, legal: LegalActions, budget_s: float) -> dict[str, Any] | None:
        """The coach ``bot``'s advice on ``legal`` (``advice_of``), or ``None`` when it fails,
        its worker stops or it takes longer than ``budget_s`` (then its late answer is
        dropped, and a worker stuck on it is stopped as for a bot's answer)."""
        try:
            advice: dict[str, Any] | None = await self._request(bot, legal, budget_s, coach=True)
        except _Unanswered:
            return None
        return advice

    async def _request(self, bot: PooledBot, legal: LegalActions, budget_s: float, coach: bool) -> Any:
        """Send ``bot``'s question to its worker and wait for the reply; ``_Unanswered`` when
        the worker cannot be reached or stops, or the reply is later than ``budget_s`` (then a
        worker stuck on it is stopped in the background)."""
        try:
            link = await self._link(bot.slot)
            future = self._send(link, bot, legal, budget_s, coach)
        except (OSError, WorkerLost) as exc:
            raise _Unanswered("error", f"bot worker: {exc}") from exc
        try:
            return await asyncio.wait_for(asyncio.shield(future), budget_s + GRACE_S)
        except TimeoutError:
            asyncio.get_running_loop().create_task(self._stop_if_stuck(link, future, budget_s))
            raise _Unanswered("overrun", "") from None
        except WorkerLost as exc:
            raise _Unanswered("error", str(exc)) from exc

    def _send(
        self, link: _Link, bot: PooledBot, legal: LegalActions, budget_s: float, coach: bool
    ) -> asyncio.Future[Any]:
        fresh = bot.generation != link.generation
        events = tuple(bot.history if fresh else bot.history[bot.sent :])
        request = next(self._keys)
        kind = Advise if coach else Decide
        message = kind(request, bot.key, bot.level, bot.seat, bot.seed, fresh, events, legal, budget_s)
        link.writer.write(_frame(message))  # buffered by the transport: the loop never waits
        bot.sent, bot.generation = len(bot.history), link.generation
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        link.waiting[request] = future
        return future

    async def _stop_if_stuck(self, link: _Link, future: asyncio.Future[Any], budget_s: float) -> None:
        """Stop ``link``'s worker when ``future`` is still unanswered ``KILL_AFTER_S`` past the
        budget (its bots are built again in the next worker)."""
        await asyncio.wait({future}, timeout=KILL_AFTER_S)
        if not future.done() and link.alive:
            log.warning("bot worker %d held an answer %.0f s past its budget: restarted", link.generation, KILL_AFTER_S)
            link.stop()
            await asyncio.wait({future}, timeout=KILL_AFTER_S)
        if future.done() and not future.cancelled():
            future.exception()  # the late answer, or the lost worker's error, is dropped here

    async def _link(self, slot: int) -> _Link:
        link = self._links[slot]
        if link is not None and link.alive:
            return link
        async with self._starting[slot]:
            link = self._links[slot]
            if link is None or not link.alive:
                if self._closed:
                    raise WorkerLost("the server is stopping")
                link = self._links[slot] = await self._start()
            return link

    async def _start(self) -> _Link:
        ours, theirs = socket.socketpair()
        process = _context().Process(target=_serve, args=(theirs,), name="sanma-bots", daemon=True)
        process.start()
        theirs.close()
        reader, writer = await asyncio.open_connection(sock=ours)
        link = _Link(process, reader, writer, next(self._generations))
        link.task = asyncio.get_running_loop().create_task(link.read_answers(), name=f"bot-worker-{link.generation}")
        log.info("bot worker %d started (pid %s)", link.generation, process.pid, extra={"event": "bot_worker_started"})
        return link

    def forget(self, bot: PooledBot) -> None:
        """The worker that holds ``bot`` drops it (nothing to do when none does)."""
        link = self._links[bot.slot]
        if link is not None and link.alive and bot.generation == link.generation:
            link.writer.write(_frame(Forget(bot.key)))
        bot.generation = -1

    async def close(self) -> None:
        """Stop every worker (the server stops)."""
        self._closed = True
        for link in self._links:
            if link is not None:
                link.writer.close()  # the worker reads end of file and ends
        for link in self._links:
            if link is not None and link.task is not None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(link.task), 2.0)
                if link.process.is_alive():
                    link.stop()
                await asyncio.to_thread(link.process.join, 2.0)


async def answer(bot: Player, legal: LegalActions, budget_s: float) -> Answer:
    """A table's bot's answer: through its worker for a pooled bot, in a thread of this
    process for any other (a test's own bot, or ``SANMA_BOT_WORKERS=0``)."""
    if isinstance(bot, PooledBot):
        return await bot.pool.answer(bot, legal, budget_s)
    return await asyncio.to_thread(ask, bot, legal, budget_s)


async def advise(bot: Player, legal: LegalActions, budget_s: float) -> dict[str, Any] | None:
    """A coach's advice (``advice_of``): through its worker for a pooled bot, in a thread of
    this process for any other; ``None`` when it fails or is later than ``budget_s``."""
    if isinstance(bot, PooledBot):
        return await bot.pool.advise(bot, legal, budget_s)
    try:
        return await asyncio.wait_for(asyncio.to_thread(advice_of, bot, legal), budget_s + GRACE_S)
    except TimeoutError:
        return None
