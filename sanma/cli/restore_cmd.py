"""``sanma restore [--database URL] BACKUP``: put a backup in place of a stopped server's
SQLite database (``store/backup.py``): the backup is checked (integrity, a revision this code
knows), copied beside the database and renamed over it, the old file kept as
``<database>.before-restore``; a backup older than the code is migrated to the head.

Exit status: 0 done, 1 a server uses the database, 2 bad input (no such backup, not SQLite,
a newer revision than the code's, a failed integrity check, a PostgreSQL URL: pg_restore).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sanma.cli.backup_cmd import database_url


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``sanma restore``."""
    parser.add_argument("backup", type=Path, metavar="BACKUP", help="a file written by sanma backup")
    parser.add_argument(
        "--database",
        help="SQLAlchemy URL to restore into (default: SANMA_DATABASE_URL, or sanma.db under SANMA_DATA_DIR)",
    )


def run(args: argparse.Namespace) -> int:
    """Restore; see the module's text for the exit status."""
    from sanma.engine.errors import SanmaError
    from sanma.store.backup import BackupError, restore

    try:
        done = restore(args.backup, database_url(args.database), log=sys.stdout)
    except (BackupError, SanmaError) as exc:
        print(f"sanma restore: {exc}", file=sys.stderr)
        return getattr(exc, "exit_code", 2)
    print(f"restored {args.backup} into {done.summary.line()}")
    if done.kept is not None:
        print(f"the replaced file is kept as {done.kept}")
    if done.upgraded_to is not None:
        print(f"migrated from revision {done.summary.revision} to {done.upgraded_to}")
    return 0
