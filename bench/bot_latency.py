"""Benchmark: how long each bot level takes per decision (``ask``, which is what a room and
the arena call), on seeded East matches where the level holds all three seats.

Targets (issue "Bots at four levels", 2-core machine): p99 <= 20 ms Beginner and Normal,
<= 50 ms Expert, <= 500 ms the expected-value master (``py:sanma.bots.ev:EVBot``); the level
master and the learned policy alone (issue 25, ``master`` and
``py:sanma.bots.learned:LearnedBot``): p50 <= 20 ms, p99 <= 150 ms with numpy on one thread,
and the policy's weights load in under a second.  One worker
process by default, so the figure is one decision on an otherwise idle core; ``--workers 2``
loads both cores like the arena does.

    .venv/bin/python bench/bot_latency.py [--levels beginner,normal,expert,master]
        [--matches 30] [--length east] [--seed 1] [--workers 1]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanma.arena import group_seed, parse_player, play_match
from sanma.arena.players import level_available
from sanma.arena.stats import percentile
from sanma.engine.rules import MATCH_LENGTHS, Rules

TARGET_P99_MS = {
    "beginner": 20.0,
    "normal": 20.0,
    "expert": 50.0,
    "master": 150.0,
    "py:sanma.bots.ev:EVBot": 500.0,
    "py:sanma.bots.learned:LearnedBot": 150.0,
}


def measure(spec: str, matches: int, length: str, seed: int, workers: int) -> list[float]:
    """Every decision's seconds, all three seats together."""
    entrant = parse_player(spec)
    rules = Rules(length=length)  # type: ignore[arg-type]
    # Each match its own seed (rotations of one level would replay the same hands).
    seeds = [group_seed(seed, i) for i in range(matches)]
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
        outcomes = list(pool.map(play_match, [(entrant,) * 3] * matches, seeds, [rules] * matches))
    return sorted(s for m in outcomes for seat in m.latencies_s for s in seat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--levels", default="beginner,normal,expert,master", help="comma-separated player specs")
    parser.add_argument("--matches", type=int, default=30, help="matches per level")
    parser.add_argument("--length", choices=MATCH_LENGTHS, default="east")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    specs = [s.strip() for s in args.levels.split(",") if s.strip()]
    if any("learned" in spec or spec == "master" for spec in specs):
        from sanma.learn.policy import DEFAULT_WEIGHTS, Policy

        started = time.perf_counter()
        Policy.load(DEFAULT_WEIGHTS)
        size = DEFAULT_WEIGHTS.stat().st_size / 2**20
        print(f"learned policy weights: {size:.1f} MiB, loaded in {1000 * (time.perf_counter() - started):.0f} ms")
    w = max(12, *(len(s) for s in specs))
    print(f"{'level':<{w}} {'decisions':>9} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8} {'target p99':>10}")
    for spec in specs:
        if ":" not in spec and not level_available(spec):
            print(f"{spec:<{w}} pending (not written yet)")
            continue
        lat = measure(spec, args.matches, args.length, args.seed, args.workers)
        q = {p: 1000 * (percentile(lat, p) or 0.0) for p in (50, 90, 99, 100)}
        target = TARGET_P99_MS.get(spec)
        verdict = "-" if target is None else f"<= {target:.0f} {'ok' if q[99] <= target else 'MISSED'}"
        print(f"{spec:<{w}} {len(lat):>9} {q[50]:>8.2f} {q[90]:>8.2f} {q[99]:>8.2f} {q[100]:>8.1f} {verdict:>10}")


if __name__ == "__main__":
    main()
