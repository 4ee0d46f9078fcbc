"""``sanma arena``: bot-vs-bot matches on duplicate seeds with the seats rotated.

    sanma arena --players normal,beginner,beginner --matches 300 --length east \\
        [--no-red] [--seed S] [--workers 2] [--json out.json] [--budget-ms MS] [--rules NAME]
        [--rotations 3|6]

A player is a bot level (``beginner normal expert master``), ``mjai:COMMAND`` (an external
mjai bot on a subprocess) or ``py:MODULE:NAME`` (a Player class or factory).  ``--matches``
is rounded up to whole seed groups (one match per seat rotation: three, or six with
``--rotations 6``).  Prints a table
of per-player figures with 95% confidence intervals; ``--json`` writes them all.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from pathlib import Path
from typing import TextIO

from sanma.arena.duplicate import ROTATION_CHOICES, ROTATIONS, ArenaConfig, ArenaResult, run_arena
from sanma.arena.players import parse_players
from sanma.arena.progress import ProgressBar
from sanma.arena.stats import CI_METHOD, Estimate
from sanma.engine.errors import SanmaError
from sanma.engine.rules import MATCH_LENGTHS, PRESET_NAMES, preset


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sanma arena``."""
    parser.add_argument(
        "--players",
        required=True,
        help="three comma-separated players: levels (beginner normal expert master), mjai:CMD or py:MODULE:NAME",
    )
    parser.add_argument(
        "--matches", type=int, default=30, help="matches to play, rounded up to a multiple of --rotations"
    )
    parser.add_argument(
        "--rotations",
        type=int,
        choices=ROTATION_CHOICES,
        default=ROTATIONS,
        help="seat orders per seed: 3 cyclic (default) or 6, also mirrored (each player sits after each other equally)",
    )
    parser.add_argument("--length", choices=MATCH_LENGTHS, default="east", help="match length (default: east)")
    parser.add_argument("--no-red", action="store_true", help="play without red fives")
    parser.add_argument("--rules", choices=PRESET_NAMES, default="default", help="rule preset (default: default)")
    parser.add_argument("--seed", type=int, default=None, help="base seed (default: a random one, printed)")
    parser.add_argument(
        "--workers", type=int, default=None, help="worker processes (default: the number of CPUs, at most 2)"
    )
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help="write the full report as JSON")
    parser.add_argument(
        "--budget-ms",
        type=float,
        default=None,
        help="per-decision time budget; a late answer is replaced by the default action (default: none)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def run(args: argparse.Namespace) -> int:
    """Play the matches, print the table, write the JSON."""
    try:
        config, workers = _config(args)
    except SanmaError as exc:
        print(f"sanma arena: {exc}", file=sys.stderr)
        return 2
    print(
        f"arena: {', '.join(e.name for e in config.entrants)}; {config.matches} {config.rules.length} matches "
        f"({config.groups} seeds x {config.rotations} rotations), seed {config.seed}, {workers} worker(s)",
        file=sys.stderr,
    )
    bar = None if args.no_progress else ProgressBar("seed groups ")
    try:
        result = run_arena(config, workers, bar)
    except SanmaError as exc:
        print(f"sanma arena: {exc}", file=sys.stderr)
        return 2
    finally:
        if bar is not None:
            bar.close()
    print_table(result, sys.stdout)
    if args.json is not None:
        args.json.write_text(json.dumps(result.to_json(), indent=2) + "\n")
    return 0


def _config(args: argparse.Namespace) -> tuple[ArenaConfig, int]:
    if args.matches < 1:
        raise SanmaError("--matches must be at least 1")
    seed = args.seed if args.seed is not None else secrets.randbelow(2**63)
    if seed < 0:
        raise SanmaError("--seed must not be negative")
    if args.budget_ms is not None and args.budget_ms <= 0:
        raise SanmaError("--budget-ms must be positive")
    workers = args.workers if args.workers is not None else min(2, os.cpu_count() or 1)
    if workers < 1:
        raise SanmaError("--workers must be at least 1")
    rules = preset(args.rules).with_options(length=args.length, red_fives=not args.no_red)
    groups = -(-args.matches // args.rotations)
    budget_s = None if args.budget_ms is None else args.budget_ms / 1000
    config = ArenaConfig(parse_players(args.players), groups, rules, seed, budget_s, rotations=args.rotations)
    return config, min(workers, groups)


def _ci(e: Estimate, scale: float = 1.0, digits: int = 2) -> str:
    if e.mean is None:
        return "-"
    if e.low is None or e.high is None:
        return f"{e.mean * scale:.{digits}f}"
    return f"{e.mean * scale:.{digits}f} ±{(e.high - e.mean) * scale:.{digits}f}"


def print_table(result: ArenaResult, out: TextIO) -> None:
    """One row per player: the figures with their 95% interval half-widths."""
    w = max(8, *(len(s.name) for s in result.summaries()))
    header = (
        f"{'player':<{w}} {'place':>12} {'score':>13} {'win%':>11} {'deal-in%':>11} {'riichi%':>11} "
        f"{'call%':>11} {'win value':>13} {'1st/2nd/3rd':>14} {'p50/p99 ms':>14} {'err/ill/over':>12}"
    )
    out.write(header + "\n")
    for s in result.summaries():
        e = s.estimates
        lat = s.latency_ms
        p50, p99 = lat.get("p50"), lat.get("p99")
        latency = "-" if p50 is None or p99 is None else f"{p50:.1f}/{p99:.1f}"
        a = s.answers
        out.write(
            f"{s.name:<{w}} {_ci(e['placement'], digits=3):>12} {_ci(e['final_score'], digits=1):>13} "
            f"{_ci(e['win_rate'], 100, 1):>11} {_ci(e['deal_in_rate'], 100, 1):>11} "
            f"{_ci(e['riichi_rate'], 100, 1):>11} {_ci(e['call_rate'], 100, 1):>11} "
            f"{_ci(e['win_value'], digits=0):>13} {'/'.join(map(str, s.placements)):>14} {latency:>14} "
            f"{f'{a.error}/{a.illegal}/{a.overrun}':>12}\n"
        )
    out.write(f"{result.config.matches} matches in {result.elapsed_s:.1f}s. ± is the half-width of the {CI_METHOD}.\n")
