"""``sanma backup [--database URL] OUT``: a consistent copy of the SQLite database while the
server runs (``store/backup.py``: SQLite's online backup API, checked, then renamed into place).

Prints one line (tables, rows of the main tables, revision, size).  Exit status: 0 done,
2 bad input (no such database, not SQLite, a PostgreSQL URL: pg_dump, a failed check).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``sanma backup``."""
    parser.add_argument("out", type=Path, metavar="OUT", help="the backup file to write (replaced whole)")
    parser.add_argument(
        "--database", help="SQLAlchemy URL (default: SANMA_DATABASE_URL, or sanma.db under SANMA_DATA_DIR)"
    )


def database_url(given: str | None) -> str:
    """``given``, or the URL ``sanma serve`` would use."""
    if given:
        return given
    from sanma.server.settings import Settings

    return Settings.from_env().db_url


def run(args: argparse.Namespace) -> int:
    """Take the backup; see the module's text for the exit status."""
    from sanma.engine.errors import SanmaError
    from sanma.store.backup import BackupError, take

    try:
        summary = take(database_url(args.database), args.out)
    except (BackupError, SanmaError) as exc:
        print(f"sanma backup: {exc}", file=sys.stderr)
        return getattr(exc, "exit_code", 2)
    print(f"backup {summary.line()}")
    return 0
