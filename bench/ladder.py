"""Benchmark: the bot ladder.  One player of a level against two of the level below, on
duplicate walls with the seats rotated (``sanma.arena``), and whether its average placement
beats a tie (2.0) with the 95% interval excluding it.

Default pairings (issue "Bots at four levels"): Normal vs 2 Beginner and Expert vs 2 Normal
over 1,002 East matches each, Master vs 2 Expert over 201 East-South matches.  A pairing
whose level is not written yet is reported as pending.  ``--pairing A/B`` plays any other
pair of player specs (levels, ``mjai:CMD``, ``py:MODULE:NAME``).  ``--max-matches M`` keeps
adding blocks of matches (the next seed groups) while the interval straddles 2.0, up to M.

    .venv/bin/python bench/ladder.py [--pairing normal/beginner ...] [--matches N]
        [--length east] [--seed 1] [--workers 2] [--budget-ms MS] [--max-matches M] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanma.arena import ArenaConfig, ArenaResult, parse_player, run_arena
from sanma.arena.players import level_available
from sanma.arena.progress import ProgressBar
from sanma.cli.arena_cmd import print_table
from sanma.engine.rules import MATCH_LENGTHS, Rules

# (strong, weak, matches, length)
DEFAULT_LADDER = (
    ("normal", "beginner", 1002, "east"),
    ("expert", "normal", 1002, "east"),
    ("master", "expert", 201, "east-south"),
)


def play_pairing(
    strong: str,
    weak: str,
    matches: int,
    length: str,
    seed: int,
    workers: int,
    budget_ms: float | None,
    max_matches: int = 0,
) -> dict[str, Any]:
    """Play one pairing and return its report, with the verdict on top.  With ``max_matches``
    a straddling interval is looked at again after each further block of ``matches``."""
    entrants = (parse_player(strong), parse_player(weak), parse_player(weak))
    rules = Rules(length=length)  # type: ignore[arg-type]
    groups = -(-matches // 3)
    budget_s = None if budget_ms is None else budget_ms / 1000
    config = ArenaConfig(entrants, groups, rules, seed, budget_s)
    result: ArenaResult | None = None
    looks = 0
    while result is None or (
        not result.summaries()[0].estimates["placement"].excludes(2.0) and result.config.matches < max_matches
    ):
        if result is not None:
            config = replace(config, first_group=config.first_group + config.groups)
        bar = ProgressBar(f"{strong} vs 2 {weak} ")
        try:
            block = run_arena(config, workers, bar)
        finally:
            bar.close()
        result = block if result is None else result.extended(block)
        looks += 1
    print_table(result, sys.stdout)
    place = result.summaries()[0].estimates["placement"]
    assert place.mean is not None
    verdict = "beats" if place.excludes(2.0) and place.mean < 2.0 else "loses to" if place.excludes(2.0) else "ties"
    low = "-" if place.low is None else f"{place.low:.3f}"
    high = "-" if place.high is None else f"{place.high:.3f}"
    print(
        f"=> {strong} vs 2x {weak}: average placement {place.mean:.3f} [95% CI {low}, {high}] over "
        f"{result.config.matches} {length} matches ({looks} look(s)): {verdict} the level below"
        f"{' (CI excludes 2.0)' if place.excludes(2.0) else ' (CI straddles 2.0: play more)'}\n"
    )
    report = result.to_json()
    report["verdict"] = {
        "pairing": f"{strong}/{weak}",
        "placement": place.as_dict(),
        "excludes_tie": place.excludes(2.0),
    }
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairing", action="append", default=None, metavar="STRONG/WEAK", help="repeatable")
    parser.add_argument("--matches", type=int, default=None, help="matches per pairing (default: the ladder's)")
    parser.add_argument("--length", choices=MATCH_LENGTHS, default=None, help="match length (default: the ladder's)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--budget-ms", type=float, default=None)
    parser.add_argument(
        "--max-matches",
        type=int,
        default=0,
        help="while the CI straddles 2.0, play further blocks of --matches up to this many (repeated looks: "
        "read the final CI as a little optimistic)",
    )
    parser.add_argument("--json", type=Path, default=None, help="write every pairing's report")
    args = parser.parse_args()

    if args.pairing:
        ladder = [(*p.split("/", 1), args.matches or 300, args.length or "east") for p in args.pairing]
    else:
        ladder = [(s, w, args.matches or n, args.length or ln) for s, w, n, ln in DEFAULT_LADDER]
    reports: list[dict[str, Any]] = []
    for strong, weak, matches, length in ladder:
        missing = [lv for lv in (strong, weak) if ":" not in lv and not level_available(lv)]
        if missing:
            print(f"=> {strong} vs 2x {weak}: PENDING ({', '.join(missing)} not written yet)\n")
            reports.append({"verdict": {"pairing": f"{strong}/{weak}", "pending": missing}})
            continue
        start = time.perf_counter()
        print(f"{strong} vs 2x {weak}: {matches} {length} matches, seed {args.seed}, {args.workers} worker(s)")
        reports.append(
            play_pairing(strong, weak, matches, length, args.seed, args.workers, args.budget_ms, args.max_matches)
        )
        print(f"   ({time.perf_counter() - start:.0f}s)\n")
    if args.json is not None:
        args.json.write_text(json.dumps(reports, indent=2) + "\n")


if __name__ == "__main__":
    main()
