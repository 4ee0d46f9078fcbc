"""Worker processes of the server: pools that die with it, and jobs with a CPU-time limit.

Work that costs seconds of CPU (a review, importing a log) runs in a ``ProcessPoolExecutor``
of its own, started with ``spawn`` so that no thread of the server is forked.  Two things
the standard pool does not do are added here:

- A worker ends when its server does, however the server ended.  After a ``kill -9`` nothing
  tells a pool's processes (they wait on their call queue for ever, holding memory, and the
  multiprocessing resource tracker lives as long as they do), so each worker watches its
  parent: when it is reparented, it exits.
- A job has a limit on the CPU time it may spend (``limited``), enforced by the kernel
  (``RLIMIT_CPU``), so a hostile input stops with an error in its worker instead of holding it.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import resource
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Final, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

WATCH_S: Final = 0.5
"""How often a worker looks whether its server is still there."""


class CpuLimitExceeded(Exception):
    """A job spent its CPU-time allowance (raised in the worker, pickled back to the server)."""


# -- in the worker process --------------------------------------------------------------------


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_S)
    os._exit(0)  # the server is gone: nobody will ever read this worker's answers


def _init(parent: int, initializer: Callable[..., object] | None, initargs: tuple[Any, ...]) -> None:
    threading.Thread(target=_watch_parent, args=(parent,), name="watch-server", daemon=True).start()
    signal.signal(signal.SIGXCPU, _out_of_cpu)
    if initializer is not None:
        initializer(*initargs)


def _out_of_cpu(_signum: int, _frame: object) -> None:
    raise CpuLimitExceeded("the job ran out of CPU time")


def limited(cpu_s: float, job: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``job(*args, **kwargs)`` in a pool's worker, stopped with ``CpuLimitExceeded`` once it
    has spent ``cpu_s`` seconds of CPU (whole seconds, rounded up: the kernel's unit).

    Submit it as ``pool.submit(limited, cpu_s, job, ...)``; ``job`` must be picklable by name.
    """
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = used.ru_utime + used.ru_stime
    soft = int(spent + cpu_s + 0.999)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    try:
        return job(*args, **kwargs)
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, hard))


# -- in the server ----------------------------------------------------------------------------


def new_pool(
    workers: int, initializer: Callable[..., object] | None = None, initargs: tuple[Any, ...] = ()
) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes that end with this one (``initializer`` runs in
    each, as with ``ProcessPoolExecutor``)."""
    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init,
        initargs=(os.getpid(), initializer, initargs),
    )


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` and its workers now, busy or not (the executor has no public way to stop a
    busy worker: a job that runs for seconds is not waited for)."""
    for process in list(getattr(pool, "_processes", {}).values()):
        with contextlib.suppress(Exception):
            process.terminate()
    pool.shutdown(wait=True, cancel_futures=True)  # quick: its processes are gone
