"""Benchmark: our ``score_win`` against ``mahjong``'s ``HandCalculator.estimate_hand_value``.

Both get the same corpus of seeded random winning sanma hands (tests/fixtures/scoring.py's
generator), each in its own input form built before timing; nothing is cached between calls.

    .venv/bin/python bench/bench_scoring.py [--hands N] [--repeat R] [--chunk C]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mahjong.hand_calculating.hand import HandCalculator

from sanma.engine.errors import NoYaku
from sanma.engine.rules import DEFAULT
from sanma.engine.scoring import score_win
from tests.fixtures.oracle import oracle_args
from tests.fixtures.scoring import random_win


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--chunk", type=int, default=300, help="hands timed together")
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    wins = [random_win(rng) for _ in range(args.hands)]
    theirs = [oracle_args(w) for w in wins]
    ours = [(w.concealed, w.win_tile, w.melds, w.ctx) for w in wins]

    def run_ours(lo: int, hi: int) -> None:
        for concealed, win_tile, melds, ctx in ours[lo:hi]:
            try:  # noqa: SIM105 - contextlib.suppress would add its own cost to every timed call
                score_win(concealed, win_tile, melds, ctx, DEFAULT)
            except NoYaku:
                pass

    def run_theirs(lo: int, hi: int) -> None:
        for kwargs in theirs[lo:hi]:
            HandCalculator.estimate_hand_value(**kwargs)

    # The corpus is timed in chunks, ours and theirs interleaved chunk by chunk, and each
    # side keeps its best time of every chunk: a burst of load from other processes then
    # spoils a few samples of both sides instead of a whole run of one.
    chunks = [(lo, min(lo + args.chunk, len(wins))) for lo in range(0, len(wins), args.chunk)]
    best_ours = [float("inf")] * len(chunks)
    best_theirs = [float("inf")] * len(chunks)
    for _ in range(args.repeat):
        for i, (lo, hi) in enumerate(chunks):
            best_ours[i] = min(best_ours[i], _timed(run_ours, lo, hi))
            best_theirs[i] = min(best_theirs[i], _timed(run_theirs, lo, hi))
    us_ours = sum(best_ours) / len(wins) * 1e6
    us_theirs = sum(best_theirs) / len(wins) * 1e6
    print(f"corpus: {len(wins)} winning hands (seed {args.seed}), best of {args.repeat} per {args.chunk}-hand chunk")
    print(f"sanma score_win:                  {us_ours:8.1f} us/call")
    print(f"mahjong estimate_hand_value:      {us_theirs:8.1f} us/call")
    print(f"ratio (mahjong / sanma):          {us_theirs / us_ours:8.1f}x")


def _timed(fn: Callable[[int, int], None], lo: int, hi: int) -> float:
    start = time.perf_counter()
    fn(lo, hi)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
