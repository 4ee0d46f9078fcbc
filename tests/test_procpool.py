"""``sanma.server.procpool`` with real processes: a job over its CPU-time limit stops with
``CpuLimitExceeded`` and its worker serves the next job; a pool's workers (and the
multiprocessing resource tracker) end once the process that made the pool is SIGKILLed.

The jobs the workers run are ``tests/fixtures/procs.py``'s (picklable by name: a spawned worker
imports that module, not this one)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sanma.server import procpool
from tests.fixtures.procs import Process, descendants, end, own_pid, spin, still_alive_after
from tests.services import ROOT


@pytest.mark.slow
def test_a_job_over_its_cpu_limit_stops_and_its_worker_serves_the_next() -> None:
    pool = procpool.new_pool(1)
    try:
        worker = pool.submit(own_pid).result(timeout=60)
        with pytest.raises(procpool.CpuLimitExceeded):
            pool.submit(procpool.limited, 1, spin).result(timeout=60)
        assert pool.submit(procpool.limited, 5, own_pid).result(timeout=60) == worker  # the same process
        assert pool.submit(own_pid).result(timeout=60) == worker  # the limit is lifted after a job
    finally:
        procpool.stop_pool(pool)


MAKER = """
import sys, time
from sanma.server import procpool
from tests.fixtures.procs import own_pid

pool = procpool.new_pool(2)
print(*sorted({pool.submit(own_pid).result() for _ in range(20)}), flush=True)
time.sleep(600)
"""


@pytest.mark.slow
def test_a_pools_workers_end_when_its_maker_is_killed() -> None:
    maker = subprocess.Popen([sys.executable, "-c", MAKER], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    left: list[Process] = []
    try:
        assert maker.stdout is not None
        workers = {int(p) for p in maker.stdout.readline().split()}
        under = descendants(maker.pid)
        left = list(under)
        assert workers and workers <= {p for p, _ in under}
        tracker = [p for p, command in under.items() if "resource_tracker" in command]
        assert len(tracker) == 1, under  # the multiprocessing resource tracker: it must end too
        maker.kill()
        maker.wait(timeout=10)
        assert still_alive_after(left, 5.0) == []
    finally:
        end(left)
        if maker.poll() is None:
            maker.kill()
            maker.wait()
        if maker.stdout is not None:
            maker.stdout.close()
