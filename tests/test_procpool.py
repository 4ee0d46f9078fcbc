"""``sanma.server.procpool`` with real processes: a job over its CPU-time limit stops with
``CpuLimitExceeded`` and its worker serves the next job; a pool's workers (and the
multiprocessing resource tracker) end once the process that made the pool is SIGKILLed.

Also the helpers that find a process's descendants in ``/proc`` (``tests/test_review_workers.py``
uses them on a real ``sanma serve``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sanma.server import procpool
from tests.services import ROOT

Process = tuple[int, int]
"""(pid, start time in clock ticks since boot): a pid the kernel may reuse, told apart."""


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command's name (state first), or ``None``."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def _started(fields: list[str]) -> int:
    return int(fields[19])  # field 22 of stat(5), counting the pid and the name


def descendants(root: int) -> dict[Process, str]:
    """Every live process under ``root`` (children, theirs, ...) with its command line."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        fields = _stat(int(entry.name)) if entry.name.isdigit() else None
        if fields is not None and fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: dict[Process, str] = {}
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        fields = _stat(pid)
        if fields is None:
            continue
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        found[(pid, _started(fields))] = command
        todo.extend(children.get(pid, []))
    return found


def alive(process: Process) -> bool:
    """The process still runs (a zombie has ended: it only waits for its parent to reap it)."""
    fields = _stat(process[0])
    return fields is not None and _started(fields) == process[1] and fields[0] != "Z"


def still_alive_after(processes: list[Process], timeout_s: float) -> list[Process]:
    """Those of ``processes`` still alive once ``timeout_s`` has passed (polled: as soon as none
    is, ``[]``)."""
    deadline = time.monotonic() + timeout_s
    while True:
        left = [p for p in processes if alive(p)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def end(processes: list[Process]) -> None:
    """SIGKILL what a failed test left behind (only these processes, checked by start time)."""
    for process in processes:
        if alive(process):
            os.kill(process[0], signal.SIGKILL)


# -- jobs (run in the workers: picklable by name) --------------------------------------------


def spin() -> None:
    """Spend CPU for ever (in Python, so that the signal handler runs)."""
    n = 0
    while True:
        n += 1


def pid() -> int:
    return os.getpid()


def test_a_job_over_its_cpu_limit_stops_and_its_worker_serves_the_next() -> None:
    pool = procpool.new_pool(1)
    try:
        worker = pool.submit(pid).result(timeout=60)
        with pytest.raises(procpool.CpuLimitExceeded):
            pool.submit(procpool.limited, 1, spin).result(timeout=60)
        assert pool.submit(procpool.limited, 5, pid).result(timeout=60) == worker  # the same process
        assert pool.submit(pid).result(timeout=60) == worker  # the limit is lifted after a job
    finally:
        procpool.stop_pool(pool)


MAKER = """
import sys, time
from sanma.server import procpool
from tests.test_procpool import pid

pool = procpool.new_pool(2)
print(*sorted({pool.submit(pid).result() for _ in range(20)}), flush=True)
time.sleep(600)
"""


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
