"""Real local services for tests: a scratch ``redis-server`` and a scratch PostgreSQL, each in
its own temporary folder on a free loopback port, stopped afterwards.

Missing binaries skip the tests on a developer's machine and fail them in CI (``CI`` set),
where ``.ci/run`` installs both from Debian's packages, so a skip never hides a half of the suite.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def unavailable(reason: str) -> NoReturn:
    """Skip locally; fail in CI."""
    if os.environ.get("CI"):
        pytest.fail(f"CI must run this test: {reason}")
    pytest.skip(reason)


def stop_process(proc: subprocess.Popen[Any], timeout_s: float = 10) -> None:
    """Terminate ``proc`` and wait for it; kill it if it outlasts ``timeout_s``."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def wait_for_port(port: int, timeout_s: float = 15.0) -> None:
    """Until something accepts connections on ``127.0.0.1:port``."""
    deadline = time.monotonic() + timeout_s
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"nothing listens on port {port}")
        time.sleep(0.05)


@contextlib.contextmanager
def scratch_redis() -> Iterator[str]:
    """A throwaway ``redis-server`` (no persistence) on a free loopback port; yields its URL."""
    binary = shutil.which("redis-server")
    if binary is None:
        unavailable("redis-server is not installed (apt-get install -y redis-server)")
    folder = Path(tempfile.mkdtemp(prefix="sanma-redis-"))
    port = free_port()
    args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder)]
    args += ["--save", "", "--appendonly", "no", "--protected-mode", "yes"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop_process(proc)
        shutil.rmtree(folder, ignore_errors=True)


def _pg_tool(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for candidate in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True):
        return str(candidate)
    return None


@contextlib.contextmanager
def scratch_postgres(parent: str | None = None) -> Iterator[str]:
    """A throwaway PostgreSQL (``initdb`` + ``pg_ctl`` in a temporary folder, under ``parent``
    when given, as "nobody" when run as root, since PostgreSQL refuses root); yields a
    SQLAlchemy URL."""
    initdb, pg_ctl = _pg_tool("initdb"), _pg_tool("pg_ctl")
    if importlib.util.find_spec("psycopg") is None:
        unavailable("PostgreSQL tests need the psycopg driver (pip install 'psycopg[binary]')")
    if not (initdb and pg_ctl):
        unavailable("PostgreSQL tests need initdb/pg_ctl (apt-get install -y postgresql)")
    # Not under pytest's temp root: that is private to root, and the server may run as "nobody".
    folder = Path(tempfile.mkdtemp(prefix="sanma-pg-", dir=parent))
    folder.chmod(0o777)
    data, port = folder / "data", free_port()
    run_as = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
    options = f"-p {port} -k {folder} -h 127.0.0.1 -c max_connections=200"
    try:
        subprocess.run(
            [*run_as, initdb, "-D", str(data), "-U", "sanma", "--auth=trust"], check=True, capture_output=True
        )
        subprocess.run(
            [*run_as, pg_ctl, "-D", str(data), "-l", str(folder / "log"), "-w", "-o", options, "start"],
            check=True,
            capture_output=True,
        )
    except (subprocess.CalledProcessError, OSError) as exc:
        shutil.rmtree(folder, ignore_errors=True)
        detail = (getattr(exc, "stderr", b"") or b"").decode(errors="replace")[-300:]
        unavailable(f"could not start a scratch PostgreSQL: {exc} {detail}")
    try:
        yield f"postgresql+psycopg://sanma@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*run_as, pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop"], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


class ServeProcess:
    """``sanma serve`` as a child process on ``127.0.0.1:port`` with ``env`` on top of this
    process's environment; returns once ``/api/health`` answers.  Its output goes to ``log``."""

    def __init__(self, port: int, env: dict[str, str], log: Path, label: str = "sanma serve") -> None:
        self.port = port
        self.log_path = log
        self.log = log.open("a")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sanma", "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.http = f"http://127.0.0.1:{port}"
        self.ws = f"ws://127.0.0.1:{port}/ws"
        try:
            self._wait_started(label)
        except BaseException:
            self.stop()  # one that was too slow to answer would outlive the test otherwise
            raise

    def _wait_started(self, label: str) -> None:
        deadline = time.monotonic() + 30
        while True:
            assert self.proc.poll() is None, f"{label} exited: {self.log_path.read_text()[-2000:]}"
            try:
                if httpx.get(f"{self.http}/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, f"{label} did not start"
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL: no shutdown, no lease released."""
        self.proc.kill()
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        """Terminate (then kill if it hangs) and close the log."""
        stop_process(self.proc, timeout_s=15)
        self.log.close()
