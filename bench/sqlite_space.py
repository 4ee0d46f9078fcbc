"""What deleting kept logs gives back of a SQLite file, and what giving it back costs (issue 23).

On a scratch file brought to the head revision, one guest keeps ``--logs`` logs of ``--mib``
MiB (``store.matches.save_log``), deletes them, keeps as many again, and deletes them again:
the file's size after each step says whether freed pages are reused.  Then a full ``VACUUM``
(seconds, size after), and the same round on a file switched to ``auto_vacuum=INCREMENTAL``
(which an existing file only gets through a ``VACUUM``) with ``PRAGMA incremental_vacuum``
after the deletes, and the saves' time on both files.

    .venv/bin/python bench/sqlite_space.py            # --logs 30 --mib 2
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import Engine, text  # noqa: E402

from sanma.store import db  # noqa: E402
from sanma.store import matches as store  # noqa: E402
from sanma.store.guests import create_guest  # noqa: E402


def mb(path: Path) -> float:
    return round(sum(p.stat().st_size for p in path.parent.glob(path.name + "*")) / 1e6, 1)


def timed(step: Any) -> float:
    start = time.perf_counter()
    step()
    return round(time.perf_counter() - start, 2)


def keep_all(engine: Engine, guest: str, logs: int, size: int) -> list[str]:
    return [store.save_log(engine, guest, title=f"{i}", preset="tenhou", log=" " * size).id for i in range(logs)]


def round_trip(engine: Engine, path: Path, logs: int, size: int, incremental: bool) -> dict[str, Any]:
    """Keep, delete, keep again, delete again: the file's size after each step."""
    guest, out, ids = create_guest(engine).id, {}, []

    def keep() -> None:
        ids[:] = keep_all(engine, guest, logs, size)

    def drop() -> None:
        for log_id in ids:
            store.delete_saved_log(engine, log_id, guest)
        if incremental:
            # Each step of the pragma frees one page and sqlite3's execute() steps once:
            # executescript() runs it to the end.
            raw = engine.raw_connection()
            try:
                raw.driver_connection.executescript("PRAGMA incremental_vacuum")  # type: ignore[union-attr]
            finally:
                raw.close()

    out["keep_s"] = timed(keep)
    out["mb_kept"] = mb(path)
    out["delete_s"] = timed(drop)
    out["mb_after_delete"] = mb(path)
    timed(keep)
    out["mb_kept_again"] = mb(path)
    timed(drop)
    out["mb_after_second_delete"] = mb(path)
    return out


def vacuum(engine: Engine, mode: str | None = None) -> float:
    with engine.connect() as conn:
        conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        if mode is not None:
            conn.execute(text(f"PRAGMA auto_vacuum={mode}"))
        return timed(lambda: conn.execute(text("VACUUM")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--logs", type=int, default=30)
    parser.add_argument("--mib", type=float, default=2.0)
    args = parser.parse_args()
    size = int(args.mib * 1024 * 1024) - 1024
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="sanma-space-") as scratch:
        path = Path(scratch) / "sanma.db"
        engine = db.open_engine(f"sqlite:///{path}")
        db.upgrade(engine)
        report["plain"] = round_trip(engine, path, args.logs, size, incremental=False)
        keep_all(engine, create_guest(engine).id, args.logs, size)  # a file with this much kept
        report["vacuum_s_full_file"] = vacuum(engine)
        report["switch_to_incremental_s"] = vacuum(engine, "INCREMENTAL")
        report["mb_switched"] = mb(path)
        report["incremental"] = round_trip(engine, path, args.logs, size, incremental=True)
        engine.dispose()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
