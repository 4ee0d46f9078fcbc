"""``sanma replay-check FILE... [--json] [--rules NAME]`` (contract: shared/spec/cli.md).

Replays tenhou.net/6 JSON and Tenhou mjlog XML logs of three-player games (either one
plain or gzip-packed, told apart by content, not by name) through the engine and compares
every hand with what the log records.  A file that cannot be read or parsed counts as one
differing hand (index ``null`` in ``--json``), so a bad file never passes silently.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from sanma.engine.errors import SanmaError
from sanma.engine.formats import mjlog, tenhou6
from sanma.engine.formats.tenhou6 import RecordedGame, check_game, rules_for
from sanma.engine.rules import PRESET_NAMES

MAX_UNPACKED = 64 << 20  # a whole game's mjlog is under 100 kB; a gzip bomb stops here


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the report: a hand, or a whole file that could not be read."""

    file: str
    hand: int | None
    match: bool
    detail: str

    def as_dict(self) -> dict[str, object]:
        return {"file": self.file, "hand": self.hand, "match": self.match, "detail": self.detail}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``sanma replay-check``."""
    parser.add_argument("files", nargs="+", metavar="FILE", help="tenhou.net/6 JSON or mjlog XML game logs (.gz too)")
    parser.add_argument("--json", action="store_true", help="write one JSON object instead of lines")
    parser.add_argument(
        "--rules", choices=PRESET_NAMES, default=None, help="rule preset (default: from the log's rule name)"
    )


def check_file(path: str, rules_name: str | None) -> list[Row]:
    """Replay one file; every failure becomes a row, never an exception."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return [Row(path, None, False, f"cannot read: {exc}")]
    try:
        game = read_game(data, source=Path(path).name)
        rules = rules_for(game, rules_name)
        checks = check_game(game, rules)
    except UnicodeDecodeError as exc:
        return [Row(path, None, False, f"cannot read: {exc}")]
    except SanmaError as exc:
        return [Row(path, None, False, f"invalid log: {exc}")]
    return [Row(path, c.index, c.match, c.detail if c.differences else "; ".join(c.notes)) for c in checks]


def read_game(data: bytes, *, source: str) -> RecordedGame:
    """A log file's bytes as a game: gunzipped when packed, then mjlog when it is XML,
    else tenhou.net/6 JSON; raises ``SanmaError``, or ``UnicodeDecodeError`` for a file
    that is not UTF-8 text."""
    if mjlog.is_gzip(data):
        data = mjlog.gunzip(data, max_bytes=MAX_UNPACKED, source=source)
    text = data.decode("utf-8")
    if mjlog.looks_like_mjlog(text):
        return mjlog.loads(text, source=source)
    return tenhou6.loads(text, source=source)


def run(args: argparse.Namespace) -> int:
    """Check every file; exit 0 only when every hand matches."""
    rows = [row for path in args.files for row in check_file(path, args.rules)]
    matched = sum(r.match for r in rows)
    differ = len(rows) - matched
    if args.json:
        report = {"checked": len(rows), "match": matched, "differ": differ, "hands": [r.as_dict() for r in rows]}
        json.dump(report, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        for row in rows:
            if not row.match:
                where = "file" if row.hand is None else f"hand {row.hand}"
                print(f"{row.file} {where}: {row.detail}")
        print(f"checked {len(rows)} hands: {matched} match, {differ} differ")
    return 0 if differ == 0 else 1
