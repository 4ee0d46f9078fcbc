"""The ``sanma`` command (contract: shared/spec/cli.md).

Each subcommand lives in its own module with ``add_arguments(parser)`` and
``run(args) -> int``.  Only the chosen subcommand's module is imported, so one
command's dependencies (or a broken module) never affect another.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("sanma.cli.demo_cmd", "play a self-played demo match in the terminal"),
    "score": ("sanma.cli.score_cmd", "score winning hands (JSON lines in, JSON lines out)"),
    "shanten": ("sanma.cli.shanten_cmd", "shanten and waits of hands (JSON lines)"),
    "replay-check": ("sanma.cli.replay_cmd", "replay tenhou.net/6 logs and compare every hand"),
    "arena": ("sanma.cli.arena_cmd", "bot-vs-bot matches on duplicate seeds with the seats rotated"),
    "mjai-bot": ("sanma.cli.mjai_cmd", "play as an mjai bot on stdin/stdout (three-player dialect)"),
    "review": ("sanma.cli.review_cmd", "the Mahjong master's review of one seat's match (JSON)"),
    "verify-wall": ("sanma.cli.verify_wall_cmd", "check a match's walls against its commitments (JSON)"),
    "serve": ("sanma.cli.serve_cmd", "run the game server (HTTP + WebSocket) on http://127.0.0.1:8000"),
}


def answer_lines(inp: TextIO, out: TextIO, answer: Callable[[str], object]) -> None:
    """The JSON-lines loop of ``score`` and ``shanten``: one JSON object out per non-blank
    line in, in order.  Input is read in whatever chunk is available and the answers to a
    chunk are written and flushed together: a tool that sends one line and waits gets its
    answer at once, and a file piped in costs one write per chunk, not one per line."""
    buffer = getattr(inp, "buffer", None)
    if buffer is None or not hasattr(buffer, "read1"):
        for line in inp:  # a text stream without bytes underneath (tests, StringIO)
            if line.strip():
                out.write(json.dumps(answer(line)) + "\n")
                out.flush()
        return
    rest = b""
    while True:
        data = buffer.read1(1 << 16)
        lines = (rest + data).split(b"\n")
        rest = lines.pop() if data else b""
        text = [line.decode("utf-8", "surrogateescape") for line in lines]
        answers = [json.dumps(answer(line)) + "\n" for line in text if line.strip()]
        if answers:
            out.write("".join(answers))
            out.flush()
        if not data:
            return


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``sanma <subcommand> ...``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="sanma", description="Three-player riichi mahjong.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = argv[0] if argv and argv[0] in SUBCOMMANDS else None
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            module = importlib.import_module(module_name)
            module.add_arguments(p)
            p.set_defaults(_run=module.run)
    args = parser.parse_args(argv)
    return int(args._run(args))


if __name__ == "__main__":
    sys.exit(main())
