"""Configuration from the environment into one typed ``Settings`` (design principle 13)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
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
    # Scale-out (docs/server.md): "" = in-process bus, one process; redis://... = processes share rooms.
    redis_url: str = ""
    # This process's name on the bus ("" = host name, pid and random bits, new at each start).
    node_id: str = ""
    # Seconds a room's lease lives without renewal (renewed every third of it).
    lease_ttl_s: float = 10.0

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
        ``SANMA_NODE_ID`` and ``SANMA_LEASE_TTL``; unset ones
        keep their defaults.  A malformed value raises ``SanmaError`` naming the variable.

        >>> Settings.from_env({"SANMA_PORT": "9000", "SANMA_BOT_DELAY": "0"}).port
        9000
        """
        env = os.environ if environ is None else environ
        d = cls()
        return cls(
            host=env.get("SANMA_HOST", d.host),
            port=_number(env, "SANMA_PORT", d.port, int, 0, 65535),
            data_dir=Path(env.get("SANMA_DATA_DIR", str(d.data_dir))),
            database_url=env.get("SANMA_DATABASE_URL") or None,
            bot_delay_s=_number(env, "SANMA_BOT_DELAY", d.bot_delay_s, float, 0.0, 60.0),
            bot_budget_s=_number(env, "SANMA_BOT_BUDGET", d.bot_budget_s, float, 0.01, 600.0),
            max_frame_bytes=_number(env, "SANMA_MAX_FRAME_BYTES", d.max_frame_bytes, int, 256, 1 << 20),
            rate_per_s=_number(env, "SANMA_RATE_PER_S", d.rate_per_s, float, 0.1, 10_000.0),
            rate_burst=_number(env, "SANMA_RATE_BURST", d.rate_burst, int, 1, 100_000),
            redis_url=env.get("SANMA_REDIS_URL", d.redis_url),
            node_id=env.get("SANMA_NODE_ID", d.node_id),
            lease_ttl_s=_number(env, "SANMA_LEASE_TTL", d.lease_ttl_s, float, 0.5, 600.0),
        )


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
