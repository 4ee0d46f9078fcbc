"""Backups of a SQLite database while the server runs, and restores into a stopped one.

``take`` copies with SQLite's online backup API: a few pages at a time, so a server that writes
meanwhile waits at most one step for its lock.  A write by another connection restarts the
copy from the first page (that is how the API stays consistent); after a few restarts the
rest is copied in one step under a read lock, which writers wait out (their busy timeout).
The copy is written under a temporary name, checked (``PRAGMA integrity_check``, the Alembic
revision) and renamed, so ``OUT`` is either the old file or a whole checked backup.

``restore`` refuses while a server uses the target: ``sanma serve`` holds a shared ``flock`` on
``<database>.lock`` for as long as it runs (``serving_lock``), and ``restore`` asks for it
exclusively without waiting; a transaction open on the file (a server started some other way)
also refuses it.  PostgreSQL has its own tools (``pg_dump``/``pg_restore``, docs/server.md).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TextIO

from alembic.script import ScriptDirectory
from sqlalchemy.engine.url import make_url

STEP_PAGES: Final = 256  # 1 MiB of 4 KiB pages per step: a writer waits a millisecond or so
MAX_RESTARTS: Final = 3  # then the rest in one step (see the module's text)
MAIN_TABLES: Final = ("guests", "accounts", "matches", "match_events", "rooms")


class BackupError(Exception):
    """A backup or restore that cannot go on; ``exit_code`` is the command's status."""

    exit_code = 2


class NotSQLite(BackupError):
    """The URL is not a SQLite file (PostgreSQL: pg_dump), or the file is not a database."""


class MissingFile(BackupError):
    """The database or the backup file does not exist."""


class IntegrityFailure(BackupError):
    """``PRAGMA integrity_check`` did not answer ``ok``."""


class UnknownRevision(BackupError):
    """No sanma schema, or a revision this code does not know (made by a newer sanma)."""


class DatabaseInUse(BackupError):
    """A server (or another transaction) uses the database a restore would replace."""

    exit_code = 1


@dataclass(frozen=True, slots=True)
class Summary:
    """What a checked copy holds."""

    path: Path
    revision: str
    tables: int
    rows: dict[str, int]
    size: int

    def line(self) -> str:
        """One line for the operator."""
        rows = ", ".join(f"{n} {name}" for name, n in self.rows.items())
        return f"{self.path}: {self.tables} tables ({rows}), revision {self.revision}, {self.size / 2**20:.1f} MiB"


def sqlite_path(url: str) -> Path:
    """The file of a SQLite URL; ``NotSQLite`` for any other database."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        raise NotSQLite(
            f"{parsed.get_backend_name()} databases are backed up with their own tools: "
            "pg_dump -Fc and pg_restore (docs/server.md, 'Backups and restore')"
        )
    if parsed.database in (None, "", ":memory:"):
        raise NotSQLite("an in-memory SQLite database has nothing to back up")
    return Path(parsed.database)


def _connect(path: Path) -> sqlite3.Connection:
    # The server's busy timeout (store/db.py): wait for a writer rather than fail.
    conn = sqlite3.connect(path, timeout=5.0, isolation_level=None)
    try:
        conn.execute("PRAGMA schema_version").fetchone()  # reads the header: fails on a non-database
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise NotSQLite(f"{path} is not a SQLite database ({exc})") from None
    return conn


def _known(path: Path, must_exist: str) -> Path:
    if not path.is_file():
        raise MissingFile(f"{must_exist} {path} does not exist")
    return path


def _copy(src: sqlite3.Connection, dest: Path, step_pages: int) -> None:
    """The online backup of ``src`` into a new file ``dest`` (see the module's text)."""
    restarts, left = 0, -1

    class Restarted(Exception):
        pass

    def progress(_status: int, remaining: int, _total: int) -> None:
        nonlocal restarts, left
        if left >= 0 and remaining > left:
            restarts += 1
            if restarts > MAX_RESTARTS:
                raise Restarted
        left = remaining

    with contextlib.closing(sqlite3.connect(dest)) as out:
        try:
            src.backup(out, pages=step_pages, progress=progress, sleep=0.01)
        except Restarted:
            src.backup(out, pages=-1, sleep=0.01)


def _revisions() -> ScriptDirectory:
    from sanma.store.db import alembic_config

    return ScriptDirectory.from_config(alembic_config("sqlite://"))


def check(path: Path) -> Summary:
    """Integrity, revision and row counts of a database file (``IntegrityFailure``,
    ``UnknownRevision``)."""
    with contextlib.closing(_connect(path)) as conn:
        try:
            problems = [row[0] for row in conn.execute("PRAGMA integrity_check")]
        except sqlite3.DatabaseError as exc:  # a page too broken to walk ("malformed")
            problems = [str(exc)]
        if problems != ["ok"]:
            raise IntegrityFailure(f"{path} fails the integrity check: {'; '.join(problems[:5])}")
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "alembic_version" not in names:
            raise UnknownRevision(f"{path} is not a sanma database (no alembic_version table)")
        found = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        rows = {t: int(conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]) for t in MAIN_TABLES if t in names}
    if found is None:
        raise UnknownRevision(f"{path} has no Alembic revision")
    revision = str(found[0])
    scripts = _revisions()
    if revision not in {r.revision for r in scripts.walk_revisions()}:
        raise UnknownRevision(
            f"{path} is at revision {revision}, which this sanma does not know (its newest is "
            f"{scripts.get_current_head()}): a newer sanma made it; upgrade sanma first"
        )
    return Summary(path, revision, len(names - {"alembic_version"}), rows, path.stat().st_size)


def _partial(final: Path) -> Path:
    return final.with_name(f".{final.name}.partial-{os.getpid()}")


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _checked_copy(src: Path, final: Path, step_pages: int = STEP_PAGES) -> Summary:
    """Copy ``src`` under a temporary name beside ``final``, check it, rename it over ``final``."""
    final.parent.mkdir(parents=True, exist_ok=True)
    partial = _partial(final)
    partial.unlink(missing_ok=True)
    try:
        with contextlib.closing(_connect(src)) as conn:
            _copy(conn, partial, step_pages)
        summary = check(partial)
        with partial.open("rb") as f:
            os.fsync(f.fileno())
        os.replace(partial, final)
        _sync_folder(final.parent)
    finally:
        partial.unlink(missing_ok=True)
    return Summary(final, summary.revision, summary.tables, summary.rows, summary.size)


def take(url: str, out: Path, step_pages: int = STEP_PAGES) -> Summary:
    """Back up the SQLite database of ``url`` into ``out`` (replaced whole, or not at all),
    ``step_pages`` pages per step of the online backup."""
    source = _known(sqlite_path(url), "the database")
    if out.resolve() == source.resolve():
        raise BackupError("the backup cannot replace the database itself")
    return _checked_copy(source, out, step_pages)


def lock_path(database: Path) -> Path:
    """The file ``sanma serve`` holds a shared lock on while it uses ``database``."""
    return database.with_name(database.name + ".lock")


@contextlib.contextmanager
def serving_lock(url: str) -> Iterator[None]:
    """Held by ``sanma serve`` for its whole run (shared: several servers may share a file),
    so that ``restore`` refuses to replace the database under it.  Nothing for PostgreSQL."""
    try:
        database = sqlite_path(url)
    except NotSQLite:
        yield
        return
    database.parent.mkdir(parents=True, exist_ok=True)
    with lock_path(database).open("a") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_SH)  # waits while a restore runs
        yield


@contextlib.contextmanager
def _exclusive(database: Path) -> Iterator[None]:
    database.parent.mkdir(parents=True, exist_ok=True)
    with lock_path(database).open("a") as f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DatabaseInUse(f"a server is using {database}: stop it before restoring") from None
        if database.exists():
            _quiesce(database)
        yield


def _quiesce(database: Path) -> None:
    """Refuse when a transaction is open on the file; opening it also rolls back a journal a
    crashed writer left, which would otherwise be played into the restored file."""
    try:
        conn = sqlite3.connect(database, timeout=0, isolation_level=None)
    except sqlite3.DatabaseError:
        return  # not a database: it is kept as .before-restore all the same
    try:
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("ROLLBACK")
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise DatabaseInUse(f"{database} is in use ({exc}): stop the server before restoring") from None
    except sqlite3.DatabaseError:
        pass
    finally:
        conn.close()


@dataclass(frozen=True, slots=True)
class Restored:
    """What ``restore`` did."""

    summary: Summary
    kept: Path | None  # the file replaced, kept beside it
    upgraded_to: str | None  # the head revision when the backup was older


def before_restore(database: Path) -> Path:
    """Where ``restore`` keeps the file it replaces."""
    return database.with_name(database.name + ".before-restore")


def restore(backup: Path, url: str, log: TextIO | None = None) -> Restored:
    """Replace the SQLite database of ``url`` by ``backup`` (checked first), keep the old file
    as ``.before-restore``, then migrate to the code's head when the backup is older."""
    database = sqlite_path(url)
    check(_known(backup, "the backup"))
    with _exclusive(database):
        kept = None
        if database.exists():
            kept = before_restore(database)
            link = _partial(kept)
            link.unlink(missing_ok=True)
            os.link(database, link)  # the old file stays in place until the rename below
            os.replace(link, kept)
        summary = _checked_copy(backup, database)
        head = _revisions().get_current_head()
        upgraded = None
        if summary.revision != head:
            from sanma.store.db import open_engine, upgrade

            if log is not None:
                print(f"migrating {database} from revision {summary.revision} to {head}", file=log)
            engine = open_engine(url)
            try:
                upgrade(engine)
            finally:
                engine.dispose()
            upgraded = head
    return Restored(summary, kept, upgraded)
