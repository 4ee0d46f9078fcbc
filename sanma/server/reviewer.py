"""The master's reviews, computed off the event loop: ``Reviewer`` (one per server process).

A review (``sanma.bots.review``) folds a whole match through the expected-value master, a
second or more of CPU per match: it runs in a worker process (``procpool.new_pool`` of
``Settings.review_workers`` spawned processes, which end with their server however it ends),
never on the event loop and never in its threads, where it would hold the GIL.

The queue is the database (``store/reviews.py``): a request writes a ``queued`` row; each
server process with a free worker claims the next (``running``, leased to this process: the
client addresses in turn, the oldest of each first), hands its log to a worker and keeps the
result.  While it runs, the worker tells its progress through a multiprocessing queue; once a
second the heartbeat writes it to the row and renews the lease, so any process answers a
progress request.  A process that dies leaves its rows with a lease that runs out: the
heartbeat of any other process (or, for a server alone on its database, its own start) queues
them again, or marks them failed after ``MAX_ATTEMPTS`` starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import queue as queue_module
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final

from sqlalchemy import Engine

from sanma.server import procpool
from sanma.store import matches as match_store
from sanma.store import reviews as store

log = logging.getLogger(__name__)

Key = tuple[str, int]
"""A review: (match id, seat)."""

LEASE_S: Final = 30.0  # a running review's lease (renewed every BEAT_S)
BEAT_S: Final = 1.0  # progress written and leases renewed this often
POLL_S: Final = 2.0  # the queue is looked at this often (and at once after a request)
SWEEP_S: Final = 10.0  # lapsed leases of other processes are looked for this often
MAX_ATTEMPTS: Final = 2  # starts of a review before a dead worker marks it failed
LIMIT_S: Final = 600.0  # a review still running after this long has its worker stopped: failed
PROGRESS_EVERY_S: Final = 0.25  # a worker tells its progress at most this often

# -- in the worker process ----------------------------------------------------------------------

_progress: Any = None  # the worker's end of the progress queue (set by _init_worker)


def _init_worker(progress: Any) -> None:
    global _progress
    _progress = progress


def compute(key: Key, stored: list[dict[str, Any]], seat: int) -> dict[str, Any]:
    """Review ``seat`` of the match whose stored events are ``stored`` (run in a worker);
    progress goes to the queue as ``(key, done, total)``."""
    from sanma.bots.review import review
    from sanma.engine.match import without_abandoned_hand
    from sanma.server.codec import event_from_store

    # A hand an operator's end abandoned has decisions nobody finished: it is not reviewed.
    events = without_abandoned_hand([event_from_store(e) for e in stored])
    last = 0.0

    def tell(done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if _progress is not None and (done == total or now - last >= PROGRESS_EVERY_S):
            last = now
            _progress.put((key, done, total))

    return review(events, seat, progress=tell).as_dict()


# -- in the server ----------------------------------------------------------------------------


class Reviewer:
    """Claims queued reviews while it has free workers and computes them in worker processes.

    ``sole``: this process is its database's only server (no Redis): at its start, every
    review left ``running`` was the previous run's and is queued again at once."""

    def __init__(
        self,
        engine: Engine,
        *,
        workers: int,
        queue_cap: int,
        node: str,
        sole: bool,
        lease_s: float = LEASE_S,
        limit_s: float = LIMIT_S,
    ) -> None:
        if workers < 0 or queue_cap < 1:
            raise ValueError("workers >= 0 and queue_cap >= 1")
        self.engine = engine
        self.workers = workers
        self.queue_cap = queue_cap
        self.node = node[:80]  # the column's width
        self.sole = sole
        self.lease_s = lease_s
        self.limit_s = limit_s  # seconds one review may take (a hung worker frees its slot)
        self.computed = 0  # reviews this process handed to a worker (each is computed once)
        self._running: dict[Key, tuple[int, int]] = {}  # -> (done, total), as the worker last said
        self._jobs: dict[Key, asyncio.Task[None]] = {}
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._pool: ProcessPoolExecutor | None = None
        self._queue: Any = None

    # -- life -----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Recover what a previous run left running, then claim and heartbeat."""
        if self.sole:
            again, failed = await asyncio.to_thread(
                store.recover, self.engine, max_attempts=MAX_ATTEMPTS, everything=True
            )
            if again or failed:
                log.info("reviews: %d left running queued again, %d failed", again, failed)
        self._tasks = [asyncio.create_task(self._beat(), name="reviews-heartbeat")]
        if self.workers:
            self._tasks.append(asyncio.create_task(self._dispatch(), name="reviews-dispatch"))

    async def close(self) -> None:
        """Stop: the reviews running here go back to the queue (the next start takes them)."""
        for task in [*self._tasks, *self._jobs.values()]:
            task.cancel()
        for task in [*self._tasks, *self._jobs.values()]:
            with contextlib.suppress(BaseException):
                await task
        for match_id, seat in list(self._running):
            await asyncio.to_thread(store.release, self.engine, match_id, seat, self.node)
        self._running.clear()
        await asyncio.to_thread(self._stop_pool)

    def wake(self) -> None:
        """Look at the queue now (a review was just asked for)."""
        self._wake.set()

    def progress(self, key: Key) -> tuple[int, int] | None:
        """``(done, total)`` of a review running here, fresher than the row's."""
        return self._running.get(key)

    # -- claiming and computing -----------------------------------------------------------------

    async def _dispatch(self) -> None:
        while True:
            try:
                await self._claim()
            except Exception:  # the database is away for a moment: try again at the next poll
                log.exception("reviews: could not claim a review")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), POLL_S)
            self._wake.clear()

    async def _claim(self) -> None:
        """Claim queued reviews while a worker is free, each run by a task of its own."""
        while len(self._running) < self.workers:
            row = await asyncio.to_thread(store.claim_next, self.engine, self.node, self.lease_s)
            if row is None:
                return
            key = (row.match_id, row.seat)
            self._running[key] = (0, row.total)
            self._jobs[key] = asyncio.create_task(self._run(row), name=f"review-{row.match_id}-{row.seat}")

    async def _run(self, row: store.ReviewRow) -> None:
        key = (row.match_id, row.seat)
        try:
            await self._compute(key, row)
        except asyncio.CancelledError:
            raise  # the server is stopping: close() puts the review back in the queue
        except Exception:  # the store failed: the lease runs out and the review is queued again
            log.exception("reviews: %s could not be kept", key)
        self._running.pop(key, None)
        self._jobs.pop(key, None)
        self.wake()

    async def _compute(self, key: Key, row: store.ReviewRow) -> None:
        try:
            stored = await asyncio.to_thread(match_store.load_events, self.engine, row.match_id)
            pool = self._pool_now()
            self.computed += 1
            future = await asyncio.to_thread(pool.submit, compute, key, stored, row.seat)
            result: dict[str, Any] = await asyncio.wait_for(asyncio.wrap_future(future), self.limit_s)
        except TimeoutError:
            log.warning("reviews: %s ran past %g s: its worker is stopped", key, self.limit_s)
            await asyncio.to_thread(self._stop_pool, pool)
            error = f"the review took longer than {self.limit_s:g} s"
            await asyncio.to_thread(store.fail, self.engine, *key, self.node, error)
        except BrokenProcessPool:
            log.warning("reviews: the worker died under %s", key)
            await asyncio.to_thread(self._stop_pool, pool)  # the next review makes a new pool
            await asyncio.to_thread(
                store.retry, self.engine, *key, self.node, max_attempts=MAX_ATTEMPTS, error="the review's worker died"
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a log the review cannot read: the review failed, the server did not
            log.info(
                "reviews: %s failed: %s",
                key,
                exc,
                extra={"event": "review_failed", "match": row.match_id, "seat": row.seat},
            )
            await asyncio.to_thread(store.fail, self.engine, *key, self.node, f"{type(exc).__name__}: {exc}")
        else:
            await asyncio.to_thread(store.finish, self.engine, *key, self.node, result)
            log.info("reviews: %s done", key, extra={"event": "review_done", "match": row.match_id, "seat": row.seat})

    def _pool_now(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._queue = multiprocessing.get_context("spawn").Queue()
            self._pool = procpool.new_pool(self.workers, _init_worker, (self._queue,))
        return self._pool

    def _stop_pool(self, only: ProcessPoolExecutor | None = None) -> None:
        """Stop the pool (``only``: if it is still that one: the other reviews that ran in a
        broken pool must not stop the new one) and its workers, busy or not: a review runs for
        seconds to a minute, and stopping the server does not wait for it (it is queued again)."""
        if only is not None and self._pool is not only:
            return
        pool, self._pool = self._pool, None
        if pool is not None:
            procpool.stop_pool(pool)
        if self._queue is not None:
            self._queue.close()
            self._queue.join_thread()
            self._queue = None

    # -- progress and leases --------------------------------------------------------------------

    async def _beat(self) -> None:
        swept = time.monotonic()
        while True:
            await asyncio.sleep(BEAT_S)
            sweep = not self.sole and time.monotonic() - swept >= SWEEP_S  # alone: nobody else to outlive
            swept = time.monotonic() if sweep else swept
            try:
                await self._renew(sweep)
            except Exception:  # the database is away for a moment: the leases outlive a few beats
                log.exception("reviews: could not renew the leases")

    async def _renew(self, sweep: bool) -> None:
        """Write the running reviews' progress and renew their leases; ``sweep``: also queue
        again what a dead process left running."""
        self._drain()
        for (match_id, seat), (done, total) in list(self._running.items()):
            await asyncio.to_thread(
                store.renew, self.engine, match_id, seat, self.node, done=done, total=total, lease_s=self.lease_s
            )
        if sweep:
            again, _ = await asyncio.to_thread(store.recover, self.engine, max_attempts=MAX_ATTEMPTS, spare=self.node)
            if again:
                self.wake()

    def _drain(self) -> None:
        """The workers' progress reports so far (never waits)."""
        if self._queue is None:
            return
        for _ in range(10_000):
            try:
                key, done, total = self._queue.get_nowait()
            except (queue_module.Empty, OSError, ValueError):
                return
            if key in self._running:
                self._running[key] = (done, total)
