"""The ``sanma`` command (contract: shared/spec/cli.md).

Each subcommand lives in its own module with ``add_arguments(parser)`` and
``run(args) -> int``.  Only the chosen subcommand's module is imported, so one
command's dependencies (or a broken module) never affect another.

``score`` and ``shanten`` are run once per file piped through them, so their start-up counts:
their modules also have ``run_argv(rest) -> int | None``, which runs the command for the
usual arguments (``score --rules tenhou``) without building the argparse parser and answers
``None`` for anything else (``--help``, a mistake, an abbreviation), which argparse then reads
as always.
"""

from __future__ import annotations

import gc
import importlib
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
    "backup": ("sanma.cli.backup_cmd", "copy the SQLite database while the server runs (checked)"),
    "restore": ("sanma.cli.restore_cmd", "put a backup in place of a stopped server's SQLite database"),
    "admin": ("sanma.cli.admin_cmd", "list rooms and matches, end a match, close a room, bar or unbar a guest"),
}


# Subcommands whose module has ``run_argv`` (see the module docstring).
LEAN: frozenset[str] = frozenset({"score", "shanten"})


def answer_lines(inp: TextIO, out: TextIO, answer: Callable[[str], str]) -> None:
    """The JSON-lines loop of ``score`` and ``shanten``: ``answer`` gives the JSON text of
    one line's answer (no newline), one per non-blank line in, in order.  Input is read in
    whatever chunk is available and the answers to a chunk are written and flushed together:
    a tool that sends one line and waits gets its answer at once, and a file piped in costs
    one write per chunk, not one per line."""
    buffer = getattr(inp, "buffer", None)
    if buffer is None or not hasattr(buffer, "read1"):
        for line in inp:  # a text stream without bytes underneath (tests, StringIO)
            if line.strip():
                out.write(answer(line) + "\n")
                out.flush()
        return
    rest = b""
    while True:
        data = buffer.read1(1 << 16)
        chunk = rest + data
        cut = chunk.rfind(b"\n") + 1 if data else len(chunk)  # a last partial line waits for more
        rest = chunk[cut:]
        # One decode per chunk: a newline byte never occurs inside a UTF-8 sequence, so this
        # equals decoding line by line.
        text = chunk[:cut].decode("utf-8", "surrogateescape").split("\n")
        answers = [answer(line) for line in text if line.strip()]
        if answers:
            answers.append("")
            out.write("\n".join(answers))
            out.flush()
        if not data:
            return


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``sanma <subcommand> ...``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in LEAN:
        # The imports make tens of thousands of objects and no garbage: the cyclic collector
        # is paused while they run (some 4 ms of a 55 ms start-up).
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            module = importlib.import_module(SUBCOMMANDS[argv[0]][0])
        finally:
            if was_enabled:
                gc.enable()
        status: int | None = module.run_argv(argv[1:])
        if status is not None:
            return status
    import argparse  # only here: building the parser is most of a short command's start-up

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
