"""Issue 23's slow-upload attack on the HTTP edge, measured from outside a real ``sanma serve``.

One ``sanma serve`` (from this checkout, or ``--server-root``: another checkout, e.g. a
``git worktree`` of the commit before a change) on loopback with a scratch SQLite database.
``--connections`` clients, all from 127.0.0.1, each with its own guest, open
``POST /api/replays/open`` announcing a 2 MiB body, send all of it but the last ``--owed``
bytes at once, then stall.  For each connection: what it got (``503 too_many_connections``,
``408 timeout``, ...) and how many seconds after its request head; for the server: its RSS
before, its peak (sampled every 50 ms from ``/proc``) and after the last answer.  The log
meters and the guest meter are lifted (an attacker has addresses enough for them); the edge's
own settings stay at their defaults.  Every wait has a bound; loopback only.

    .venv/bin/python bench/edge_attack.py                              # this checkout
    .venv/bin/python bench/edge_attack.py --server-root /tmp/wt-before # another checkout
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from tests.services import free_port  # noqa: E402

BODY_BYTES = 2 * 1024 * 1024  # the log routes' largest body (server/api/replays.py)
GUARD_S = 120.0  # no answer this long: the run reports the connection as "none"


def rss_kib(pid: int) -> int:
    """The resident set of ``pid`` in KiB (0 once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def start_server(root: Path, folder: Path) -> tuple[subprocess.Popen[bytes], str, int]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(root), "SANMA_DATA_DIR": str(folder / "data"), "SANMA_DATABASE_URL": ""}
    env |= {
        "SANMA_GUESTS_PER_ADDRESS_PER_H": "1000000",
        "SANMA_LOGS_PER_ADDRESS_PER_MIN": "1000000",
        "SANMA_LOGS_PER_GUEST_PER_MIN": "1000000",
    }
    log = (folder / "serve.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "sanma", "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=root,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, (folder / "serve.log").read_text()[-2000:]
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                return proc, url, port
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.1)


async def one(port: int, token: str, owed: int) -> tuple[str, float]:
    """One stalled upload: what it got and how many seconds after its head."""
    head = (
        f"POST /api/replays/open HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: text/plain\r\nContent-Length: {BODY_BYTES}\r\n\r\n"
    ).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    began = time.monotonic()
    try:
        with contextlib.suppress(OSError):
            writer.write(head + b" " * (BODY_BYTES - owed))
            await asyncio.wait_for(writer.drain(), GUARD_S)
        answer, took = b"", 0.0
        with contextlib.suppress(OSError):  # a reset after the answer keeps what was read
            while chunk := await asyncio.wait_for(reader.read(65536), GUARD_S):
                answer, took = answer + chunk, took or time.monotonic() - began
        if not answer:
            return "reset or closed", time.monotonic() - began
        status = answer.split(b" ", 2)[1].decode()
        _, _, body = answer.partition(b"\r\n\r\n")
        try:
            code = json.loads(body)["error"]
        except (ValueError, KeyError):
            code = "?"
        return f"{status} {code}", took
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def attack(pid: int, url: str, port: int, connections: int, owed: int) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=30) as http:
        tokens = []
        for _ in range(connections):
            r = await http.post(f"{url}/api/guest")
            r.raise_for_status()
            tokens.append(r.json()["token"])
    before = rss_kib(pid)
    peak = before
    done = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, rss_kib(pid))
            await asyncio.sleep(0.05)

    sampler = asyncio.create_task(sample())
    results = await asyncio.gather(*(one(port, t, owed) for t in tokens))
    done.set()
    await sampler
    await asyncio.sleep(1.0)
    by_answer: dict[str, list[float]] = {}
    for answer, took in results:
        by_answer.setdefault(answer, []).append(took)
    return {
        "connections": connections,
        "answers": dict(Counter(a for a, _ in results)),
        "seconds_by_answer": {
            a: {"median": round(statistics.median(t), 2), "max": round(max(t), 2)} for a, t in by_answer.items()
        },
        "rss_mib": {
            "before": round(before / 1024, 1),
            "peak": round(peak / 1024, 1),
            "added_at_peak": round((peak - before) / 1024, 1),
            "after": round(rss_kib(pid) / 1024, 1),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server-root", type=Path, default=ROOT, help="the checkout whose sanma serve is attacked")
    parser.add_argument("--connections", type=int, default=100)
    parser.add_argument("--owed", type=int, default=1024, help="bytes of the body never sent")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sanma-edge-") as tmp:
        proc, url, port = start_server(args.server_root.resolve(), Path(tmp))
        try:
            report = asyncio.run(attack(proc.pid, url, port, args.connections, args.owed))
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    report["server_root"] = str(args.server_root)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
