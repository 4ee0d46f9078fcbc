"""The ``sanma`` command (contract: shared/spec/cli.md).

Each subcommand lives in its own module with ``add_arguments(parser)`` and
``run(args) -> int``; they are imported only when chosen, so one command's
dependencies never slow another.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("sanma.cli.demo_cmd", "play a self-played demo match in the terminal"),
    "score": ("sanma.cli.score_cmd", "score winning hands (JSON lines in, JSON lines out)"),
    "shanten": ("sanma.cli.shanten_cmd", "shanten and waits of hands (JSON lines)"),
    "replay-check": ("sanma.cli.replay_cmd", "replay tenhou.net/6 logs and compare every hand"),
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sanma", description="Three-player riichi mahjong.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text)
        p.set_defaults(_module=module_name)
        try:
            importlib.import_module(module_name).add_arguments(p)
        except ModuleNotFoundError:
            p.set_defaults(_missing=True)
    args = parser.parse_args(argv)
    if getattr(args, "_missing", False):
        print(f"sanma {args.command}: not available in this build", file=sys.stderr)
        return 2
    module = importlib.import_module(args._module)
    return int(module.run(args))


if __name__ == "__main__":
    sys.exit(main())
