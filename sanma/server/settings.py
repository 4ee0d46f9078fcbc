"""Configuration from the environment into one typed ``Settings`` (design principle 13)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from sanma.engine.errors import SanmaError

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
    # sanma serve's garbage-collector policy (server/gcpolicy.py): freeze the heap every so many
    # seconds (0 = Python's default collector), and thaw and collect it in full every so many.
    gc_freeze_s: float = 0.0
    gc_collect_s: float = 900.0

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
        ``SANMA_NODE_ID``, ``SANMA_LEASE_TTL`` and ``SANMA_KEEP_ENDED``; unset ones
        keep their defaults.  A malformed value raises ``SanmaError`` naming the variable.

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
            gc_freeze_s=_number(env, "SANMA_GC_FREEZE", d.gc_freeze_s, float, 0.0, 86_400.0),
            gc_collect_s=_number(env, "SANMA_GC_COLLECT", d.gc_collect_s, float, 0.0, 86_400.0),
        )
        return base.with_changes(**_account_settings(env, d))


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
