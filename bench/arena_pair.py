"""Benchmark helper: pair two ``sanma arena --json`` runs on the same walls.

Two runs of the same configuration (seed, seed groups, rotations, rules) but another player
in one place meet the same walls, so the difference of that player's placement per seed
group has a much narrower interval than either placement alone:

    .venv/bin/sanma arena --players master,expert,expert --matches 2400 --rotations 6 \\
        --length east --seed 9301 --workers 2 --no-progress --json /tmp/a.json
    .venv/bin/python -m sanma arena --players py:legacy.ev_variants:calm_priced,expert,expert ... --json /tmp/b.json
    .venv/bin/python bench/arena_pair.py /tmp/a.json /tmp/b.json --index 0

It prints both placements and B - A, each with its 95% half-width over the seed groups.  Two
runs of different sizes from the same first group meet the same walls in the groups they share:
``--common`` pairs those.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanma.arena.stats import mean_estimate

# What must agree for two runs to have met the same walls (the players may differ).
SAME = ("seed", "seed_groups", "first_group", "rotations", "rules", "length", "red_fives")


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and 95% half-width over the seed groups (the arena's own estimate)."""
    e = mean_estimate(values)
    assert e.mean is not None
    return e.mean, float("inf") if e.high is None else e.high - e.mean


def per_group(report: dict[str, Any], index: int) -> tuple[str, list[float]]:
    player = report["players"][index]
    if "placement_by_group" not in player:
        raise SystemExit("a report without placement_by_group: rerun it with this version's arena")
    return player["player"], player["placement_by_group"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path, help="the reference run's --json file")
    parser.add_argument("b", type=Path, help="the other run's --json file")
    parser.add_argument("--index", type=int, default=0, choices=(0, 1, 2), help="the player's place in --players")
    parser.add_argument("--common", action="store_true", help="pair the seed groups both runs played")
    args = parser.parse_args()
    a, b = (json.loads(path.read_text()) for path in (args.a, args.b))
    same = [key for key in SAME if not (args.common and key == "seed_groups")]
    differ = [key for key in same if a["config"][key] != b["config"][key]]
    if differ:
        print(f"the runs did not meet the same walls: {', '.join(differ)} differ", file=sys.stderr)
        return 2
    name_a, places_a = per_group(a, args.index)
    name_b, places_b = per_group(b, args.index)
    shared = min(len(places_a), len(places_b))
    places_a, places_b = places_a[:shared], places_b[:shared]
    for name, places in ((name_a, places_a), (name_b, places_b)):
        mean, half = interval(places)
        print(f"{name:32s} placement {mean:.3f} ±{half:.3f}")
    mean, half = interval([y - x for x, y in zip(places_a, places_b, strict=True)])
    print(f"  {name_b} - {name_a}: {mean:+.3f} ±{half:.3f} (paired by seed group, {len(places_a)} groups)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
