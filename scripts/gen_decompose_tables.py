"""Generate sanma/engine/data/decompose_tables.bin, the suit table of the
fast decomposition (``sanma.engine.decompose``), so that the engine maps the suit table
instead of building it at import.

The tables are computed by ``decompose.build_tables`` (the same code the engine falls back to
when the file cannot be used) and written by ``decompose.table_file_bytes``: a hash index of
the suit keys and one ``marshal`` record per key, mapped into memory and decoded key by key.
tests/test_decompose.py checks that the file's tables equal the computed ones; rerun this
script whenever the table code changes.  Run: ``.venv/bin/python scripts/gen_decompose_tables.py``.
"""

from __future__ import annotations

from pathlib import Path

from sanma.engine.decompose import TABLE_FILE, build_tables, table_file_bytes


def main() -> None:
    data = table_file_bytes(build_tables()[0])
    # A new file renamed over the old one: a running process keeps its mapping of the old file
    # (rewriting the file in place would pull the pages from under it).
    part = Path(TABLE_FILE + ".part")
    part.write_bytes(data)
    part.replace(TABLE_FILE)
    print(f"wrote {TABLE_FILE}: {len(data)} bytes")


if __name__ == "__main__":
    main()
