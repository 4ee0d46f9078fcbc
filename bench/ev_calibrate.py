"""Calibration of the expected-value master's models on held-out self-play.

Plays fresh seeds (not the fit's) the way ``bench/ev_fit.py`` does and compares what the
committed models (``sanma/bots/data/ev_*.json``) predict with what happened, by bucket of
the prediction: opponent tenpai, deal-in given tenpai (riichi and other), another seat
ending the hand before our next turn, our ron chance per go-around, and first place from
the hand's start (placement model).  Prints Markdown tables for ``docs/bots.md``.

    nice -n 10 .venv/bin/python bench/ev_calibrate.py --matches 80 --seed 20000
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.ev_fit import calibration, play
from sanma.bots.ev_models import Models, models

EDGES = (0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.01)


def _tenpai(m: Models, key: str) -> float:
    calls, turns, tg = (int(x) for x in key.split("|"))
    return m.tenpai.chance(False, calls, turns, tg)


def _hazard(m: Models, key: str) -> float:
    turns, others, mine = (int(x) for x in key.split("|"))
    return m.hazard.other_end(turns, others, bool(mine))


def _ron(m: Models, key: str) -> float:
    live, riichi = (int(x) for x in key.split("|"))
    return m.hazard.ron_chance(live, bool(riichi))


PREDICT: dict[str, Callable[[Models, str], float]] = {
    "tenpai": _tenpai,
    "dealin_riichi": lambda m, key: m.dealin.chance(key, True, False),
    "dealin_other": lambda m, key: m.dealin.chance(key, False, False),
    "hazard": _hazard,
    "ron": _ron,
}


def table(counter: Counter[str], predict: Callable[[str], float]) -> list[tuple[str, int, float, float]]:
    """(bucket, samples, mean predicted, observed rate) by bucket of the prediction."""
    sums: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for name in counter:
        if not name.endswith("#n"):
            continue
        key = name[:-2]
        n, hits = counter[name], counter[key + "#hit"]
        p = predict(key)
        b = next(i for i in range(len(EDGES) - 1) if p < EDGES[i + 1])
        sums[b][0] += n
        sums[b][1] += p * n
        sums[b][2] += hits
    return [
        (f"{EDGES[b]:.2f}-{min(EDGES[b + 1], 1.0):.2f}", int(n), pr / n, h / n)
        for b, (n, pr, h) in sorted(sums.items())
        if n
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=80)
    parser.add_argument("--seed", type=int, default=20000)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    tally: dict[str, Counter[str]] = defaultdict(Counter)
    rows: list[Any] = []
    with ProcessPoolExecutor(args.workers) as pool:
        for part, part_rows, _ in pool.map(play, range(args.seed, args.seed + args.matches)):
            for name, counter in part.items():
                tally[name].update(counter)
            rows += part_rows
    m = models()
    print(f"held-out: {args.matches} East-South matches of 3 Experts, seeds {args.seed}..")
    for name, predict in PREDICT.items():
        print(f"\n{name}\n\n| predicted | samples | mean predicted | observed |\n|---|---|---|---|")
        for label, n, pred, obs in table(tally[name], lambda key, f=predict: f(m, key)):  # type: ignore[misc]
            print(f"| {label} | {n} | {pred:.3f} | {obs:.3f} |")
    print("\nplacement: first place from the hand's start\n\n| predicted | samples | mean predicted | observed |")
    print("|---|---|---|---|")
    for label, n, pred, obs in calibration(rows, m.placement):
        print(f"| {label} | {n} | {pred:.3f} | {obs:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
