"""Benchmark: our ``score_win`` against ``mahjong``'s ``HandCalculator.estimate_hand_value``.

Both get the same corpus of seeded random winning sanma hands (tests/test_scoring_oracle.py's
generator), each in its own input form built before timing; nothing is cached between calls.

    .venv/bin/python bench/bench_scoring.py [--hands N] [--repeat R]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mahjong.hand_calculating.hand import HandCalculator

from sanma.engine.errors import NoYaku
from sanma.engine.rules import DEFAULT
from sanma.engine.scoring import score_win
from tests.test_scoring_oracle import oracle_args, random_win


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    wins = [random_win(rng) for _ in range(args.hands)]
    theirs = [oracle_args(w) for w in wins]
    ours = [(w.concealed, w.win_tile, w.melds, w.ctx) for w in wins]

    def run_ours() -> None:
        for concealed, win_tile, melds, ctx in ours:
            try:  # noqa: SIM105 - contextlib.suppress would add its own cost to every timed call
                score_win(concealed, win_tile, melds, ctx, DEFAULT)
            except NoYaku:
                pass

    def run_theirs() -> None:
        for kwargs in theirs:
            HandCalculator.estimate_hand_value(**kwargs)

    # Interleaved runs, best of each: the machine's load then hits both sides alike.
    ours_times, theirs_times = [], []
    for _ in range(args.repeat):
        ours_times.append(_timed(run_ours))
        theirs_times.append(_timed(run_theirs))
    best_ours = min(ours_times) / len(wins) * 1e6
    best_theirs = min(theirs_times) / len(wins) * 1e6
    print(f"corpus: {len(wins)} winning hands (seed {args.seed}), best of {args.repeat} runs")
    print(f"sanma score_win:                  {best_ours:8.1f} us/call")
    print(f"mahjong estimate_hand_value:      {best_theirs:8.1f} us/call")
    print(f"ratio (mahjong / sanma):          {best_theirs / best_ours:8.1f}x")


def _timed(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
