"""The deployment of ``docs/deploy.md`` on loopback: Debian's nginx runs the shipped site file
``deploy/nginx/sanma.conf`` (only its ports, certificate, log path and IPv6 listens swapped
for the test's, TLS with a throwaway self-signed certificate) in front of two real ``sanma
serve`` processes started with the shipped ``deploy/sanma.env`` on a scratch PostgreSQL
(migrated with the documented ``alembic`` command) and a scratch ``redis-server``.

Through nginx: plain HTTP moves to HTTPS, both processes answer by round robin, a body over
the server's limits gets the server's JSON 413 from nginx, the client address the server
counts is the one nginx saw (a forged ``X-Forwarded-For`` is not believed), and a friend
room is played to its end by two sockets that nginx put on different processes.  The
clients connect from their own loopback addresses (127.0.0.x), so nginx sees them apart as
it would see players.

Skipped locally without nginx, openssl, redis-server or PostgreSQL; a failure in CI
(``.ci/run`` installs them)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from sanma.server.api.replays import LOG_MAX_BYTES, LOG_PATHS
from sanma.server.app import MAX_BODY_BYTES
from tests.services import (
    ROOT,
    ServeProcess,
    free_port,
    scratch_postgres,
    scratch_redis,
    stop_process,
    unavailable,
    wait_for_port,
)

DEPLOY = ROOT / "deploy"
SITE = DEPLOY / "nginx" / "sanma.conf"
ENV_FILE = DEPLOY / "sanma.env"
OPERATOR = "deploy-test-operator-token"
GUESTS_PER_ADDRESS = 2  # per hour: small, so that the address the server counts shows


def read_env_file(path: Path) -> dict[str, str]:
    """``KEY=value`` lines as systemd's ``EnvironmentFile`` reads them (comments and blank
    lines skipped, one pair of surrounding quotes taken off)."""
    env: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        assert sep, f"{path.name}: not KEY=value: {line!r}"
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        env[key.strip()] = value
    return env


def test_the_example_env_file_names_only_settings_the_server_reads() -> None:
    """Every ``SANMA_*`` name in ``deploy/sanma.env``, commented ones included, is one
    ``Settings.from_env`` reads, and the file's values are valid settings."""
    from sanma.server.settings import Settings

    known = set(re.findall(r"SANMA_[A-Z0-9_]+", (ROOT / "sanma/server/settings.py").read_text()))
    named = set(re.findall(r"\b(SANMA_[A-Z0-9_]+)=", ENV_FILE.read_text()))
    assert named and named <= known, f"not settings: {sorted(named - known)}"
    env = read_env_file(ENV_FILE)
    settings = Settings.from_env(env)
    # docs/deploy.md runs the migrations with the file sourced by a shell: the same values.
    shell = subprocess.run(
        ["sh", "-c", 'set -a; . "$0"; env -0', str(ENV_FILE)], capture_output=True, text=True, env={}, check=True
    ).stdout
    sourced = dict(pair.split("=", 1) for pair in shell.split("\0") if pair.startswith("SANMA_"))
    assert sourced == env
    assert settings.trusted_proxies == ("127.0.0.1",)  # nginx on the same host
    assert settings.db_url.startswith("postgresql+psycopg://") and settings.redis_url.startswith("redis://")


def test_the_systemd_unit_is_one_systemd_reads_without_a_complaint(tmp_path: Path) -> None:
    """``systemd-analyze verify`` on an instance of ``sanma@.service`` (its ``ExecStart``
    pointed at this checkout's ``sanma``, which it checks is there): an unknown key or a bad
    value is only a warning to systemd, so any output fails."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (a host without systemd): the unit is not checked")
    unit = (DEPLOY / "systemd" / "sanma@.service").read_text()
    assert "ExecStart=/opt/sanma/.venv/bin/sanma serve" in unit
    sanma = Path(sys.executable).parent / "sanma"
    (tmp_path / "sanma@.service").write_text(unit.replace("/opt/sanma/.venv/bin/sanma", str(sanma)))
    checked = subprocess.run(
        [analyze, "verify", "--man=no", "sanma@8001.service"], cwd=tmp_path, capture_output=True, text=True
    )
    assert (checked.returncode, checked.stdout + checked.stderr) == (0, "")


# -- nginx ---------------------------------------------------------------------------------------


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)
    if found is None:
        unavailable("nginx is not installed (apt-get install -y nginx)")
    return found


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, made by the openssl command."""
    binary = shutil.which("openssl")
    if binary is None:
        unavailable("the openssl command is not installed (apt-get install -y openssl)")
    cert, key = folder / "cert.pem", folder / "key.pem"
    args = [binary, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    args += ["-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
    subprocess.run([*args, "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


def site_config(upstreams: tuple[int, int], http_port: int, https_port: int, cert: Path, key: Path, log: Path) -> str:
    """The shipped site file with the test's ports and paths; each swapped text must be there,
    so that a change to the file fails here instead of leaving a production value in place."""
    text = SITE.read_text()
    swaps = [
        ("    listen [::]:80;\n", ""),  # loopback IPv4 only: a container may have no IPv6
        ("    listen [::]:443 ssl;\n", ""),
        ("listen 80;", f"listen 127.0.0.1:{http_port};"),
        ("listen 443 ssl;", f"listen 127.0.0.1:{https_port} ssl;"),
        ("server 127.0.0.1:8001 ", f"server 127.0.0.1:{upstreams[0]} "),
        ("server 127.0.0.1:8002 ", f"server 127.0.0.1:{upstreams[1]} "),
        ("/etc/letsencrypt/live/sanma.example.org/fullchain.pem", str(cert)),
        ("/etc/letsencrypt/live/sanma.example.org/privkey.pem", str(key)),
        ("/var/log/nginx/sanma.access.log", str(log)),
    ]
    for old, new in swaps:
        assert old in text, f"{SITE.name} no longer has {old!r}: update this test"
        text = text.replace(old, new)
    return text


def main_config(folder: Path, binary: str) -> str:
    """What Debian's /etc/nginx/nginx.conf gives the site, in the test's folder: one worker
    (so round robin alternates strictly), the pid, logs and temporary files."""
    built = subprocess.run([binary, "-V"], capture_output=True, text=True).stderr
    optional = [m for m in ("fastcgi", "uwsgi", "scgi") if f"without-http_{m}_module" not in built]
    temps = ["client_body", "proxy", *optional]
    lines = [f"    {name}_temp_path {folder / name};" for name in temps]
    return "\n".join(
        [
            "worker_processes 1;",
            f"pid {folder / 'nginx.pid'};",
            f"error_log {folder / 'error.log'} warn;",
            "events { worker_connections 256; }",
            "http {",
            *lines,
            f"    include {folder / 'sanma.conf'};",
            "}",
            "",
        ]
    )


@contextlib.contextmanager
def run_nginx(upstreams: tuple[int, int]) -> Iterator[Nginx]:
    """nginx in the foreground on two free loopback ports, HTTP and HTTPS, until the block ends."""
    binary = nginx_binary()
    # Not pytest's temp root: run as root, nginx's workers are "nobody" and must reach it.
    folder = Path(tempfile.mkdtemp(prefix="sanma-nginx-"))
    folder.chmod(0o755)
    cert, key = self_signed(folder)
    http_port, https_port = free_port(), free_port()
    log = folder / "access.log"
    (folder / "sanma.conf").write_text(site_config(upstreams, http_port, https_port, cert, key, log))
    conf = folder / "nginx.conf"
    conf.write_text(main_config(folder, binary))
    base = [binary, "-p", str(folder), "-c", str(conf), "-e", str(folder / "error.log")]
    checked = subprocess.run([*base, "-t"], capture_output=True, text=True)
    assert checked.returncode == 0, f"nginx -t refused the site file: {checked.stderr}"
    proc = subprocess.Popen([*base, "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(http_port)
        wait_for_port(https_port)
        tls = ssl.create_default_context(cafile=str(cert))
        yield Nginx(f"http://127.0.0.1:{http_port}", f"https://127.0.0.1:{https_port}", tls, log, folder)
    finally:
        stop_process(proc)
        shutil.rmtree(folder, ignore_errors=True)


@dataclass(frozen=True)
class Nginx:
    """The running proxy: its plain and TLS addresses, the context that trusts its
    certificate, its access log."""

    http: str
    https: str
    tls: ssl.SSLContext
    access_log: Path
    folder: Path

    def client(self, source: str) -> httpx.Client:
        """An HTTPS client whose connections come from loopback address ``source``."""
        transport = httpx.HTTPTransport(local_address=source, verify=self.tls)
        return httpx.Client(base_url=self.https, transport=transport, trust_env=False, timeout=10)


# -- the deployment ------------------------------------------------------------------------------


class Node(ServeProcess):
    """One ``sanma serve`` of the deployment, with the example env file and a metrics port."""

    def __init__(self, name: str, database_url: str, redis_url: str, folder: Path) -> None:
        self.name = name
        self.metrics = f"http://127.0.0.1:{free_port()}/metrics"
        env = {
            **read_env_file(ENV_FILE),
            "SANMA_DATABASE_URL": database_url,
            "SANMA_REDIS_URL": redis_url,
            "SANMA_NODE_ID": name,  # as the unit sets it (host name and port)
            "SANMA_DATA_DIR": str(folder / name),
            "SANMA_METRICS_PORT": self.metrics.split(":")[2].split("/")[0],
            "SANMA_SMTP_HOST": "",  # no mail leaves a test: the outbox instead
            "SANMA_OPERATOR_TOKEN": OPERATOR,
            "SANMA_BOT_DELAY": "0",
            "SANMA_GUESTS_PER_ADDRESS_PER_H": str(GUESTS_PER_ADDRESS),
        }
        super().__init__(free_port(), env, folder / f"{name}.log", label=name)

    def players(self) -> int:
        """The player sockets this process holds now (its ``sanma_sockets`` gauge)."""
        text = httpx.get(self.metrics, timeout=5, trust_env=False).text
        found = re.search(r'^sanma_sockets\{kind="player"\} ([0-9.]+)$', text, re.MULTILINE)
        return int(float(found.group(1))) if found else 0


@dataclass(frozen=True)
class Deployment:
    nodes: tuple[Node, Node]
    nginx: Nginx


@pytest.fixture(scope="module")
def deployment() -> Iterator[Deployment]:
    nginx_binary()  # before the services start: a missing nginx skips (or fails) at once
    with scratch_redis() as redis_url, scratch_postgres() as database_url, contextlib.ExitStack() as stack:
        # Migrations first, with the command docs/deploy.md gives, so the processes race for none.
        alembic = Path(sys.executable).parent / "alembic"
        migrated = subprocess.run(
            [str(alembic), "-c", "sanma/store/alembic.ini", "upgrade", "head"],
            cwd=ROOT,
            env={**os.environ, "SANMA_DATABASE_URL": database_url},
            capture_output=True,
            text=True,
        )
        assert migrated.returncode == 0, migrated.stderr
        folder = Path(tempfile.mkdtemp(prefix="sanma-deploy-"))
        stack.callback(shutil.rmtree, folder, True)
        nodes: list[Node] = []
        for name in ("host-8001", "host-8002"):
            node = Node(name, database_url, redis_url, folder)
            stack.callback(node.stop)
            nodes.append(node)
        a, b = nodes
        nginx = stack.enter_context(run_nginx((a.port, b.port)))
        yield Deployment((a, b), nginx)


# -- the checks ----------------------------------------------------------------------------------


def test_http_moves_to_https_where_both_processes_answer(deployment: Deployment) -> None:
    nginx = deployment.nginx
    moved = httpx.get(f"{nginx.http}/?room=ABCDEF", trust_env=False)
    assert (moved.status_code, moved.headers["location"]) == (301, "https://127.0.0.1/?room=ABCDEF")
    with nginx.client("127.0.0.2") as client:
        health = client.get("/api/health")
        assert health.json() == {"ok": True}
        assert health.headers["strict-transport-security"].startswith("max-age=")  # nginx's
        assert health.headers["x-content-type-options"] == "nosniff"  # the server's own, passed on
        assert "<html" in client.get("/").text.lower()  # the browser client's files
        # Round robin over the upstream block: both processes serve, both ready (PostgreSQL, Redis).
        operator = {"Authorization": f"Bearer {OPERATOR}"}
        answers = [client.get("/api/ready", headers=operator).json() for _ in range(4)]
        assert all(a["ok"] and a["bus"] == "redis" for a in answers)
        assert {a["node"] for a in answers} == {node.name for node in deployment.nodes}


def test_nginx_applies_the_servers_body_limits_in_its_error_shape(deployment: Deployment) -> None:
    # A body over the server's limit is refused by nginx, so that it never travels to a server
    # process; one at the limit reaches the server, which answers in JSON (here: no token).
    limits = {"/api/account/name": MAX_BODY_BYTES, **dict.fromkeys(LOG_PATHS, LOG_MAX_BYTES)}
    with deployment.nginx.client("127.0.0.8") as client:
        for path, limit in limits.items():
            over = client.post(path, content=b"x" * (limit + 1))
            assert (over.status_code, over.json()) == (
                413,
                {"error": "too_large", "detail": f"the body is at most {limit} bytes"},
            ), path
            within = client.post(path, content=b"x" * limit)
            assert within.status_code not in (413, 502) and within.json()["error"], (path, within.text)


def test_the_server_counts_the_address_nginx_saw_not_a_forged_one(deployment: Deployment) -> None:
    # Guests are limited per client address (SANMA_GUESTS_PER_ADDRESS_PER_H=2, shared on Redis
    # by both processes). Were the proxy's address counted, the second client would be refused.
    with deployment.nginx.client("127.0.0.6") as first, deployment.nginx.client("127.0.0.7") as second:
        assert [first.post("/api/guest").status_code for _ in range(GUESTS_PER_ADDRESS)] == [201, 201]
        refused = first.post("/api/guest")
        assert (refused.status_code, refused.json()["error"]) == (429, "rate_limited")
        # nginx appends the address it saw to a forged header: the server counts that one.
        forged = {"X-Forwarded-For": "203.0.113.9"}
        assert [second.post("/api/guest", headers=forged).status_code for _ in range(2)] == [201, 201]
        assert second.post("/api/guest", headers={"X-Forwarded-For": "127.0.0.6"}).status_code == 429


class Seat:
    """A player's WebSocket through nginx, from its own loopback address: it answers every
    prompt with a win when it can, else the default, until the match ends."""

    def __init__(self, nginx: Nginx, source: str, token: str, match: str) -> None:
        url = nginx.https.replace("https://", "wss://") + "/ws"
        self.ws: ClientConnection = connect(
            url, ssl=nginx.tls, source_address=(source, 0), proxy=None, max_size=None, legacy=True
        )
        self.ws.send(json.dumps({"t": "hello", "token": token, "match": match, "last_v": 0}))
        self.welcome = self.frame()
        assert self.welcome["t"] == "welcome", self.welcome
        self.v = 0
        self.answered = 0
        self.ended = False

    def frame(self) -> dict[str, Any]:
        return dict(json.loads(self.ws.recv(timeout=30)))

    def play(self) -> None:
        while not self.ended:
            frame = self.frame()
            if frame["t"] == "event":
                assert frame["v"] <= self.v + 1, f"a gap: v {frame['v']} after {self.v}"
                self.v = max(self.v, frame["v"])
                self.ended = frame["e"]["type"] == "MatchEnded"
            elif frame["t"] == "hand_break":
                self.ws.send(json.dumps({"t": "next_hand", "v": frame["v"]}))
            elif frame["t"] == "prompt" and frame["v"] == self.v:
                wins = [a for a in frame["legal"] if a["type"] in ("tsumo", "ron")]
                action = wins[0] if wins else frame["default"]
                self.ws.send(json.dumps({"t": "act", "seq": frame["seq"], "a": action}))
                self.answered += 1
            elif frame["t"] == "error":
                assert frame["code"] == "stale_seq", frame  # a prompt that expired meanwhile

    def close(self) -> None:
        self.ws.close()


def players_once(nodes: tuple[Node, Node], total: int) -> tuple[int, int]:
    """Each node's player sockets, once they add up to ``total`` (a closed socket leaves the
    gauge a moment after the close)."""
    deadline = time.monotonic() + 10
    while True:
        counts = (nodes[0].players(), nodes[1].players())
        if sum(counts) == total:
            return counts
        assert time.monotonic() < deadline, f"player sockets {counts}, not {total} in all"
        time.sleep(0.05)


def holder(nodes: tuple[Node, Node], before: tuple[int, int]) -> Node:
    """The node that holds the socket opened since the counts were ``before``."""
    now = players_once(nodes, sum(before) + 1)
    return nodes[0] if now[0] > before[0] else nodes[1]


def test_a_friend_room_is_played_across_both_processes_through_nginx(deployment: Deployment) -> None:
    nginx, nodes = deployment.nginx, deployment.nodes
    with nginx.client("127.0.0.2") as host_http, nginx.client("127.0.0.3") as friend_http:
        host, friend = (c.post("/api/guest").json()["token"] for c in (host_http, friend_http))

        def call(client: httpx.Client, token: str, path: str, body: Any = None) -> dict[str, Any]:
            r = client.post(f"/api/rooms{path}", json=body, headers={"Authorization": f"Bearer {token}"})
            assert r.status_code in (200, 201), r.text
            return dict(r.json())

        code = call(host_http, host, "", {"length": "one-hand"})["code"]
        call(friend_http, friend, f"/{code}/join")
        call(host_http, host, f"/{code}/bots", {"seat": 2, "level": "beginner"})
        match = call(host_http, host, f"/{code}/start")["match"]

    # Sticky-less balancing: each socket lands where round robin puts it; the friend's is
    # opened again until it is on the other process than the host's.
    before = players_once(nodes, 0)
    seats = [Seat(nginx, "127.0.0.2", host, match)]
    host_node = holder(nodes, before)
    for _ in range(6):
        before = players_once(nodes, 1)  # the host's alone
        seat = Seat(nginx, "127.0.0.3", friend, match)
        if holder(nodes, before) is not host_node:
            seats.append(seat)
            break
        seat.close()
    assert len(seats) == 2, "every friend's socket landed on the host's process"
    assert [s.welcome["seat"] for s in seats] == [0, 1]

    errors: list[BaseException] = []

    def play(seat: Seat) -> None:
        try:
            seat.play()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(s,), daemon=True) for s in seats]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert all(s.ended and s.answered > 0 for s in seats), [(s.ended, s.answered) for s in seats]
    for seat in seats:
        seat.close()

    # nginx's access log names the requests without the room's code (it lets anyone in).
    logged = nginx.access_log.read_text()
    assert "/api/rooms/-/join" in logged and code not in logged
    assert host not in logged and friend not in logged
