"""Configuration from the environment into one typed ``Settings`` (design principle 13)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from sanma.engine.errors import SanmaError
from sanma.server.netaddr import parse_proxies

T = TypeVar("T", int, float)


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the server can be told.  ``from_env`` reads ``SANMA_*`` variables."""

    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = Path("data")
    # None: a SQLite file ``sanma.db`` under ``data_dir``.
    database_url: str | None = None
    # Seconds a bot waits before its turn action, so a human can follow the play.
    bot_delay_s: float = 0.6
    # Seconds a bot may think before its default action stands in (bots.base.ask).
    bot_budget_s: float = 5.0
    # Largest client frame accepted, in bytes of UTF-8 text.
    max_frame_bytes: int = 4096
    # Client frames per second allowed on one connection, and the burst on top of it.
    rate_per_s: float = 20.0
    rate_burst: int = 40
    # Friend rooms (docs/rooms.md): a lobby not playing expires after this many idle seconds.
    room_idle_s: float = 1800.0
    # Join attempts (right or wrong code) per minute, per client address and per guest.
    room_joins_per_min: int = 20
    # Turn timers of a room: seconds per action, plus a bank per hand spent once those run out.
    turn_s: float = 10.0
    bank_s: float = 20.0
    # Timeouts in a row that hand a seat to autoplay until its player answers or reconnects.
    timeouts_to_auto: int = 3
    # Seconds a seat with no connection is waited for before its default action.
    away_grace_s: float = 3.0
    # Scale-out (docs/server.md): "" = in-process bus, one process; redis://... = processes share rooms.
    redis_url: str = ""
    # This process's name on the bus ("" = host name, pid and random bits, new at each start).
    node_id: str = ""
    # Seconds a room's lease lives without renewal (renewed every third of it).
    lease_ttl_s: float = 10.0
    # Seconds a room whose match ended stays in memory before a later hello rebuilds it.
    keep_ended_s: float = 300.0
    # Abuse bounds of the WebSocket (docs/server.md, "Limits of one connection"): open sockets per
    # guest and per client address, seconds a socket has to send an accepted hello, and frames
    # its outgoing queue may hold before a client that reads too slowly is closed (it reconnects).
    ws_per_guest: int = 8
    ws_per_address: int = 32
    hello_timeout_s: float = 5.0
    ws_queue_frames: int = 1024
    # Seconds a practice match with no connection stays in memory (then it waits in the store,
    # and the next hello rebuilds it).
    practice_idle_s: float = 600.0
    # sanma serve's garbage-collector policy (server/gcpolicy.py): freeze the heap every so many
    # seconds (0 = Python's default collector), and thaw and collect it in full every so many.
    gc_freeze_s: float = 30.0
    gc_collect_s: float = 900.0
    # The master's reviews (server/reviewer.py): worker processes of this server (0: it computes
    # none, another process sharing the database does), and how many may wait for one in all;
    # how many one client address may have queued or running (fresh guests cannot fill the queue).
    review_workers: int = 1
    # Bots (server/botpool.py): worker processes where the tables' bots think, one per core
    # but one (the event loop keeps a core); 0: in threads of this process instead.
    bot_workers: int = field(default_factory=lambda: max(1, (os.cpu_count() or 2) - 1))
    review_queue: int = 16
    reviews_per_address: int = 2
    # Log work (server/logwork.py): worker processes that open, check and render logs, how many
    # jobs may run or wait for one at once, and the seconds of CPU one job may spend.
    log_workers: int = 1
    log_queue: int = 8
    log_cpu_s: float = 5.0
    # Kept logs (docs/accounts.md): at most so many per guest, and so many bytes (texts and answers).
    saved_logs_per_guest: int = 100
    saved_log_bytes_per_guest: int = 20 * 1024 * 1024
    # Quick match (docs/quick.md): the seconds a player waits for people before bots take the
    # empty seats, by default and the choices offered; how long a player must have been gone
    # at a quick match's end to count as having left it; the matchmaker's period.
    quick_wait_s: float = 20.0
    quick_wait_choices: tuple[float, ...] = (10.0, 20.0, 30.0, 60.0)
    quick_abandon_s: float = 60.0
    quick_tick_s: float = 0.5

    # -- accounts (docs/accounts.md) --
    # Outgoing mail: None sends nothing and writes each message to ``data_dir/outbox/`` instead.
    smtp_host: str | None = None
    smtp_port: int = 587
    smtp_user: str | None = None
    smtp_password: str | None = field(default=None, repr=False)
    # None: STARTTLS when the server offers it; True: required; False: never.
    smtp_starttls: bool | None = None
    smtp_from: str = "Sanma <noreply@localhost>"
    # Account writes (every POST under /api/account and /api/shop) per minute, per client and per guest.
    account_writes_per_min: int = 60
    # Codes mailed per hour: per address, per client (IP) and per guest.
    codes_per_address_per_h: int = 5
    codes_per_client_per_h: int = 20
    codes_per_guest_per_h: int = 10
    # Code checks per hour per client (each code also dies after ``code_attempts`` wrong tries).
    code_checks_per_client_per_h: int = 60
    code_attempts: int = 5
    code_ttl_s: float = 600.0

    # -- the HTTP edge (docs/server.md, "Behind a proxy" and "Limits per client") --
    # Addresses and CIDR networks of the reverse proxies whose X-Forwarded-For is believed
    # (server/netaddr.py); empty: the peer's own address is the client's.
    trusted_proxies: tuple[str, ...] = ()
    # Seconds a connection may take to send a request's headers (from its first byte, or from
    # the connection's start), and to stay idle between two requests; the largest header
    # block in bytes.  A body has ``body_timeout_s`` plus its length at ``body_min_rate``
    # bytes a second (docs/server.md, "Deadlines": 5 s + 4 s for a 2 MiB log).
    header_timeout_s: float = 5.0
    body_timeout_s: float = 5.0
    body_min_rate: int = 524_288
    keep_alive_s: float = 5.0
    max_header_bytes: int = 16384
    # Plain-HTTP connections open at once per client address (the TCP peer; the trusted
    # proxies are not capped); a WebSocket stops counting once upgraded (``ws_per_address``).
    http_connections_per_address: int = 32
    # Guests created per hour per client address; rooms opened per hour per guest and per address.
    guests_per_address_per_h: int = 60
    rooms_per_guest_per_h: int = 30
    rooms_per_address_per_h: int = 60
    # Practice matches created per minute per guest and per address, and how many of them may
    # be running (in memory, still playing) at once per guest and per address.
    practice_per_guest_per_min: int = 10
    practice_per_address_per_min: int = 30
    practice_live_per_guest: int = 5
    practice_live_per_address: int = 20
    # Requests to the log routes (open, keep, read a kept log or a share link, a match's replay
    # and downloads) per minute, per guest and per address.
    logs_per_guest_per_min: int = 20
    logs_per_address_per_min: int = 60
    # The OpenAPI pages at /api/docs (pinned local assets); False: only /api/openapi.json.
    api_docs: bool = True
    # A bearer token that makes /api/ready tell this process's node id and room count; None: nobody.
    operator_token: str | None = field(default=None, repr=False)

    # -- operations (docs/server.md, "Metrics" and "Logs") --
    # The port /metrics is served on (0: no metrics served), apart from the public one, and the
    # address it listens on (loopback by default: a scraper on the same host, or a tunnel).
    metrics_port: int = 0
    metrics_host: str = "127.0.0.1"
    # "text" (lines for people) or "json" (one JSON object per line, for a log collector).
    log_format: str = "text"
    # A bearer token (16 characters or more) that turns on the admin routes of the metrics port
    # (``sanma admin``; docs/server.md, "Administration"); None: no admin routes.
    admin_token: str | None = field(default=None, repr=False)

    @property
    def db_url(self) -> str:
        """The database URL in force."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'sanma.db').as_posix()}"

    @property
    def url(self) -> str:
        """Where the server is reached."""
        return f"http://{self.host}:{self.port}"

    @property
    def ws_max_size(self) -> int:
        """uvicorn's own frame limit: well above ours, so that an oversized frame gets our
        error frame instead of a closed socket."""
        return max(65536, 4 * self.max_frame_bytes)

    def with_changes(self, **changes: object) -> Settings:
        """A copy with some settings changed."""
        return replace(self, **changes)  # type: ignore[arg-type]

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``SANMA_HOST``, ``SANMA_PORT``, ``SANMA_DATA_DIR``,
        ``SANMA_DATABASE_URL``, ``SANMA_BOT_DELAY``, ``SANMA_BOT_BUDGET``,
        ``SANMA_MAX_FRAME_BYTES``, ``SANMA_RATE_PER_S``, ``SANMA_RATE_BURST``, ``SANMA_REDIS_URL``,
        ``SANMA_NODE_ID``, ``SANMA_LEASE_TTL``, ``SANMA_KEEP_ENDED``, ``SANMA_REVIEW_WORKERS``,
        ``SANMA_REVIEW_QUEUE``, ``SANMA_LOG_WORKERS``, ``SANMA_LOG_QUEUE``, ``SANMA_LOG_CPU``,
        ``SANMA_SAVED_LOGS_PER_GUEST``, ``SANMA_SAVED_LOG_BYTES_PER_GUEST``, the accounts', the HTTP
        edge's and the operations' (``_account_settings``, ``_edge_settings``, ``_ops_settings``);
        unset ones keep their defaults.
        A malformed value raises ``SanmaError`` naming the variable.

        >>> Settings.from_env({"SANMA_PORT": "9000", "SANMA_BOT_DELAY": "0"}).port
        9000
        """
        env = os.environ if environ is None else environ
        d = cls()
        base = cls(
            host=env.get("SANMA_HOST", d.host),
            port=_number(env, "SANMA_PORT", d.port, int, 0, 65535),
            data_dir=Path(env.get("SANMA_DATA_DIR", str(d.data_dir))),
            database_url=env.get("SANMA_DATABASE_URL") or None,
            bot_delay_s=_number(env, "SANMA_BOT_DELAY", d.bot_delay_s, float, 0.0, 60.0),
            bot_budget_s=_number(env, "SANMA_BOT_BUDGET", d.bot_budget_s, float, 0.01, 600.0),
            max_frame_bytes=_number(env, "SANMA_MAX_FRAME_BYTES", d.max_frame_bytes, int, 256, 1 << 20),
            rate_per_s=_number(env, "SANMA_RATE_PER_S", d.rate_per_s, float, 0.1, 10_000.0),
            rate_burst=_number(env, "SANMA_RATE_BURST", d.rate_burst, int, 1, 100_000),
            room_idle_s=_number(env, "SANMA_ROOM_IDLE", d.room_idle_s, float, 1.0, 86_400.0 * 30),
            room_joins_per_min=_number(env, "SANMA_ROOM_JOINS_PER_MIN", d.room_joins_per_min, int, 1, 100_000),
            turn_s=_number(env, "SANMA_TURN", d.turn_s, float, 0.05, 600.0),
            bank_s=_number(env, "SANMA_BANK", d.bank_s, float, 0.0, 3600.0),
            timeouts_to_auto=_number(env, "SANMA_TIMEOUTS_TO_AUTO", d.timeouts_to_auto, int, 1, 1000),
            away_grace_s=_number(env, "SANMA_AWAY_GRACE", d.away_grace_s, float, 0.0, 3600.0),
            redis_url=env.get("SANMA_REDIS_URL", d.redis_url),
            node_id=env.get("SANMA_NODE_ID", d.node_id),
            lease_ttl_s=_number(env, "SANMA_LEASE_TTL", d.lease_ttl_s, float, 0.5, 600.0),
            keep_ended_s=_number(env, "SANMA_KEEP_ENDED", d.keep_ended_s, float, 0.0, 86_400.0),
            ws_per_guest=_number(env, "SANMA_WS_PER_GUEST", d.ws_per_guest, int, 1, 100_000),
            ws_per_address=_number(env, "SANMA_WS_PER_ADDRESS", d.ws_per_address, int, 1, 1_000_000),
            hello_timeout_s=_number(env, "SANMA_HELLO_TIMEOUT", d.hello_timeout_s, float, 0.1, 600.0),
            ws_queue_frames=_number(env, "SANMA_WS_QUEUE", d.ws_queue_frames, int, 16, 1_000_000),
            practice_idle_s=_number(env, "SANMA_PRACTICE_IDLE", d.practice_idle_s, float, 0.0, 86_400.0 * 30),
            gc_freeze_s=_number(env, "SANMA_GC_FREEZE", d.gc_freeze_s, float, 0.0, 86_400.0),
            gc_collect_s=_number(env, "SANMA_GC_COLLECT", d.gc_collect_s, float, 0.0, 86_400.0),
            review_workers=_number(env, "SANMA_REVIEW_WORKERS", d.review_workers, int, 0, 64),
            review_queue=_number(env, "SANMA_REVIEW_QUEUE", d.review_queue, int, 1, 100_000),
            reviews_per_address=_number(env, "SANMA_REVIEWS_PER_ADDRESS", d.reviews_per_address, int, 1, 100_000),
        )
        logs = {
            "log_workers": _number(env, "SANMA_LOG_WORKERS", d.log_workers, int, 1, 64),
            "log_queue": _number(env, "SANMA_LOG_QUEUE", d.log_queue, int, 1, 100_000),
            "log_cpu_s": _number(env, "SANMA_LOG_CPU", d.log_cpu_s, float, 1.0, 600.0),
            "saved_logs_per_guest": _number(env, "SANMA_SAVED_LOGS_PER_GUEST", d.saved_logs_per_guest, int, 1, 100_000),
            "saved_log_bytes_per_guest": _number(
                env, "SANMA_SAVED_LOG_BYTES_PER_GUEST", d.saved_log_bytes_per_guest, int, 4 << 20, 1 << 40
            ),
        }
        return base.with_changes(
            **logs,
            **_account_settings(env, d),
            **_edge_settings(env, d),
            **_ops_settings(env, d),
            **_quick_settings(env, d),
        )


def _quick_settings(env: Mapping[str, str], d: Settings) -> dict[str, object]:
    """``SANMA_QUICK_WAIT`` (the default wait, always among the choices),
    ``SANMA_QUICK_WAIT_CHOICES`` (seconds, comma-separated), ``SANMA_QUICK_ABANDON`` and
    ``SANMA_QUICK_TICK``."""
    wait_s = _number(env, "SANMA_QUICK_WAIT", d.quick_wait_s, float, 0.1, 600.0)
    text = env.get("SANMA_QUICK_WAIT_CHOICES", "").strip()
    try:
        choices = [float(c) for c in text.split(",")] if text else list(d.quick_wait_choices)
    except ValueError:
        raise SanmaError(f"SANMA_QUICK_WAIT_CHOICES={text!r} is not a list of seconds") from None
    if not all(0.1 <= c <= 600.0 for c in choices):
        raise SanmaError(f"SANMA_QUICK_WAIT_CHOICES={text!r}: each choice is 0.1 to 600 seconds")
    return {
        "quick_wait_s": wait_s,
        "quick_wait_choices": tuple(sorted({*choices, wait_s})),
        "quick_abandon_s": _number(env, "SANMA_QUICK_ABANDON", d.quick_abandon_s, float, 0.0, 86_400.0),
        "quick_tick_s": _number(env, "SANMA_QUICK_TICK", d.quick_tick_s, float, 0.05, 60.0),
    }


def _ops_settings(env: Mapping[str, str], d: Settings) -> dict[str, object]:
    """``SANMA_BOT_WORKERS``, ``SANMA_METRICS_PORT`` (unset or 0: off), ``SANMA_METRICS_HOST`` and ``SANMA_LOG_FORMAT``
    (``text`` or ``json``)."""
    log_format = env.get("SANMA_LOG_FORMAT", "").strip().lower() or d.log_format
    if log_format not in ("text", "json"):
        raise SanmaError(f"SANMA_LOG_FORMAT={log_format!r} is not text or json")
    return {
        "bot_workers": _number(env, "SANMA_BOT_WORKERS", d.bot_workers, int, 0, 64),
        "metrics_port": _number(env, "SANMA_METRICS_PORT", d.metrics_port, int, 0, 65535),
        "metrics_host": env.get("SANMA_METRICS_HOST") or d.metrics_host,
        "log_format": log_format,
        "admin_token": _admin_token(env),
    }


def _admin_token(env: Mapping[str, str]) -> str | None:
    """``SANMA_ADMIN_TOKEN``: unset, or 16 characters or more, and only with ``SANMA_METRICS_PORT``
    (the admin routes are served on that port)."""
    token = env.get("SANMA_ADMIN_TOKEN") or None
    if token is None:
        return None
    if len(token) < 16:
        raise SanmaError("SANMA_ADMIN_TOKEN has at least 16 characters")
    if not env.get("SANMA_METRICS_PORT", "").strip() or env["SANMA_METRICS_PORT"].strip() == "0":
        raise SanmaError("SANMA_ADMIN_TOKEN needs SANMA_METRICS_PORT: the admin routes are served on that port")
    return token


def _account_settings(env: Mapping[str, str], d: Settings) -> dict[str, object]:
    """``SANMA_SMTP_HOST``, ``_PORT``, ``_USER``, ``_PASSWORD``, ``_STARTTLS`` (1/0, unset: when
    offered), ``_FROM`` and ``SANMA_ACCOUNT_WRITES_PER_MIN`` (docs/accounts.md)."""
    starttls = env.get("SANMA_SMTP_STARTTLS", "").strip().lower()
    if starttls not in ("", "1", "0", "true", "false", "yes", "no"):
        raise SanmaError(f"SANMA_SMTP_STARTTLS={starttls!r} is not 1 or 0")
    return {
        "smtp_host": env.get("SANMA_SMTP_HOST") or None,
        "smtp_port": _number(env, "SANMA_SMTP_PORT", d.smtp_port, int, 1, 65535),
        "smtp_user": env.get("SANMA_SMTP_USER") or None,
        "smtp_password": env.get("SANMA_SMTP_PASSWORD") or None,
        "smtp_starttls": None if starttls == "" else starttls in ("1", "true", "yes"),
        "smtp_from": env.get("SANMA_SMTP_FROM") or d.smtp_from,
        "account_writes_per_min": _number(
            env, "SANMA_ACCOUNT_WRITES_PER_MIN", d.account_writes_per_min, int, 1, 1_000_000
        ),
    }


def _edge_settings(env: Mapping[str, str], d: Settings) -> dict[str, object]:
    """``SANMA_TRUSTED_PROXIES`` (comma-separated addresses or CIDR networks), the HTTP
    timeouts, the creation meters, ``SANMA_API_DOCS`` (1/0) and ``SANMA_OPERATOR_TOKEN``."""
    proxies = tuple(p.strip() for p in env.get("SANMA_TRUSTED_PROXIES", "").split(",") if p.strip())
    try:
        parse_proxies(proxies)
    except ValueError as exc:
        raise SanmaError(f"SANMA_TRUSTED_PROXIES: {exc}") from None
    docs = env.get("SANMA_API_DOCS", "").strip().lower()
    if docs not in ("", "1", "0", "true", "false", "yes", "no"):
        raise SanmaError(f"SANMA_API_DOCS={docs!r} is not 1 or 0")
    token = env.get("SANMA_OPERATOR_TOKEN") or None
    if token is not None and len(token) < 16:
        raise SanmaError("SANMA_OPERATOR_TOKEN has at least 16 characters")
    meters = {
        "guests_per_address_per_h": "SANMA_GUESTS_PER_ADDRESS_PER_H",
        "rooms_per_guest_per_h": "SANMA_ROOMS_PER_GUEST_PER_H",
        "rooms_per_address_per_h": "SANMA_ROOMS_PER_ADDRESS_PER_H",
        "practice_per_guest_per_min": "SANMA_PRACTICE_PER_GUEST_PER_MIN",
        "practice_per_address_per_min": "SANMA_PRACTICE_PER_ADDRESS_PER_MIN",
        "practice_live_per_guest": "SANMA_PRACTICE_LIVE_PER_GUEST",
        "practice_live_per_address": "SANMA_PRACTICE_LIVE_PER_ADDRESS",
        "logs_per_guest_per_min": "SANMA_LOGS_PER_GUEST_PER_MIN",
        "logs_per_address_per_min": "SANMA_LOGS_PER_ADDRESS_PER_MIN",
    }
    return {
        "trusted_proxies": proxies,
        "header_timeout_s": _number(env, "SANMA_HEADER_TIMEOUT", d.header_timeout_s, float, 0.1, 600.0),
        "body_timeout_s": _number(env, "SANMA_BODY_TIMEOUT", d.body_timeout_s, float, 0.1, 600.0),
        "body_min_rate": _number(env, "SANMA_BODY_MIN_RATE", d.body_min_rate, int, 1024, 1 << 30),
        "http_connections_per_address": _number(
            env, "SANMA_HTTP_CONNECTIONS_PER_ADDRESS", d.http_connections_per_address, int, 1, 1_000_000
        ),
        "keep_alive_s": _number(env, "SANMA_KEEP_ALIVE", d.keep_alive_s, float, 0.1, 600.0),
        "max_header_bytes": _number(env, "SANMA_MAX_HEADER_BYTES", d.max_header_bytes, int, 1024, 1 << 20),
        **{name: _number(env, var, getattr(d, name), int, 1, 1_000_000) for name, var in meters.items()},
        "api_docs": docs in ("", "1", "true", "yes"),
        "operator_token": token,
    }


def _number(env: Mapping[str, str], name: str, default: T, kind: type[T], low: T, high: T) -> T:
    text = env.get(name)
    if text is None or text == "":
        return default
    try:
        value = kind(text)
    except ValueError:
        raise SanmaError(f"{name}={text!r} is not a number") from None
    if not low <= value <= high:
        raise SanmaError(f"{name}={text!r} is out of range [{low}, {high}]")
    return value
