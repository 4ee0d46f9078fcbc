"""A real ``sanma serve`` with a review worker, killed with SIGKILL: no process it started (the
review worker, the multiprocessing resource tracker) outlives it by more than 5 s (issue 23)."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from sanma.store import db
from tests.fixtures.procs import Process, descendants, end, still_alive_after
from tests.fixtures.replays import guest_token, store_ended
from tests.services import ServeProcess, free_port

WORKER = "multiprocessing.spawn"  # a spawned worker's command line: python -c 'from multiprocessing.spawn ...'
TRACKER = "resource_tracker"


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def at_work(server: ServeProcess, match: str, token: str, timeout_s: float = 120) -> None:
    """Until the review has made progress (its worker has started and computes it) or is done."""
    deadline = time.monotonic() + timeout_s
    while True:
        review = httpx.get(f"{server.http}/api/matches/{match}/review", headers=auth(token), timeout=30).json()
        if review["state"] == "done" or (review["state"] == "running" and review["done"] > 0):
            return
        assert review["state"] in ("queued", "running") and time.monotonic() < deadline, review
        time.sleep(0.05)


def started_processes(server: ServeProcess, timeout_s: float = 60) -> dict[Process, str]:
    """The server's descendants once its review worker and the resource tracker are there."""
    deadline = time.monotonic() + timeout_s
    while True:
        under = descendants(server.proc.pid)
        commands = list(under.values())
        if any(WORKER in c and TRACKER not in c for c in commands) and any(TRACKER in c for c in commands):
            return under
        assert time.monotonic() < deadline, f"no review worker under the server: {under}"
        time.sleep(0.05)


@pytest.mark.slow
def test_review_workers_end_with_a_killed_server(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {"SANMA_DATA_DIR": str(data), "SANMA_REVIEW_WORKERS": "1", "SANMA_BOT_DELAY": "0"}
    server = ServeProcess(free_port(), env, tmp_path / "serve.log")
    left: list[Process] = []
    try:
        engine = db.open_engine(f"sqlite:///{data / 'sanma.db'}")
        try:
            guest, token = guest_token(engine)
            match, _ = store_ended(engine, 41, guest)
        finally:
            engine.dispose()
        asked = httpx.post(f"{server.http}/api/matches/{match}/review", headers=auth(token), timeout=30)
        assert asked.status_code == 202, asked.text
        at_work(server, match, token)
        under = started_processes(server)
        left = list(under)
        server.kill()
        assert still_alive_after(left, 5.0) == [], under
    finally:
        end(left)
        server.stop()
