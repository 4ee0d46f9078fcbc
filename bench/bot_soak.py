"""Benchmark: zero illegal actions and zero crashes over many seeded hands per bot level.

The level holds all three seats of seeded East-South matches (each its own seed) until at
least ``--hands`` hands were played (issue "Bots at four levels": 10,000 hands for every
level below Master, 1,000 for Master).  A match that raises (a crash of the engine, or of a
bot in a way the arena could not contain) is counted and the soak goes on.  Prints
per level: hands, decisions, and the answers that were not ``ok`` (raised, illegal,
overran the budget), events the bot could not take in, and crashed matches.

    .venv/bin/python bench/bot_soak.py [--levels beginner,normal,expert] [--hands 10000]
        [--seed 1] [--workers 2] [--budget-ms MS]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanma.arena import ArenaConfig, MatchOutcome, group_seed, parse_player, play_match
from sanma.arena.players import level_available
from sanma.arena.progress import ProgressBar
from sanma.arena.stats import AnswerCounts
from sanma.engine.rules import Rules

DEFAULT_HANDS = {"master": 1000}


def _match(config: ArenaConfig, index: int) -> MatchOutcome | str:
    # Every match gets its own seed: with one level in all seats, the seat rotations of a
    # duplicate group would mostly replay the same hands.
    try:
        return play_match(config.entrants, group_seed(config.seed, index), config.rules, 0, config.budget_s)
    except Exception:
        return traceback.format_exc()


def soak(spec: str, hands: int, seed: int, workers: int, budget_ms: float | None) -> None:
    """Play matches in batches until ``hands`` hands are done; print the counts."""
    entrant = parse_player(spec)
    budget = None if budget_ms is None else budget_ms / 1000
    config = ArenaConfig((entrant, entrant, entrant), 1 << 30, Rules(length="east-south"), seed, budget)
    answers, played, crashes, g = AnswerCounts(), 0, [], 0
    bar = ProgressBar(f"{spec} hands ")
    start = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
        while played < hands:
            # Size the batch to what is left, at the hands per match seen so far (guess 7 first).
            per_match = played / g if played else 7.0
            batch = max(workers, int((hands - played) / per_match) + 1)
            for result in pool.map(_match, [config] * batch, range(g, g + batch)):
                if isinstance(result, str):
                    crashes.append(result)
                    continue
                played += result.tallies[0].hands
                for a in result.answers:
                    answers.add(a)
            g += batch
            bar(min(played, hands), hands)
    bar.close()
    elapsed = time.perf_counter() - start
    bad = answers.error + answers.illegal + answers.overrun + answers.observe_error + len(crashes)
    print(
        f"{spec} hands {played:>6}  matches {g:>5}  decisions {answers.decisions:>8}  error {answers.error}  "
        f"illegal {answers.illegal}  overrun {answers.overrun}  observe_error {answers.observe_error}  "
        f"crashed matches {len(crashes)}  ({elapsed:.0f}s)  {'OK' if bad == 0 else 'FAILED'}"
    )
    for tb in crashes[:3]:
        print(tb)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--levels", default="beginner,normal,expert,master", help="comma-separated player specs")
    parser.add_argument("--hands", type=int, default=None, help="hands per level (default 10,000; Master 1,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--budget-ms", type=float, default=None, help="count answers slower than this as overruns")
    args = parser.parse_args()
    for spec in (s.strip() for s in args.levels.split(",") if s.strip()):
        if ":" not in spec and not level_available(spec):
            print(f"{spec:<10} pending (not written yet)")
            continue
        soak(spec, args.hands or DEFAULT_HANDS.get(spec, 10_000), args.seed, args.workers, args.budget_ms)


if __name__ == "__main__":
    main()
