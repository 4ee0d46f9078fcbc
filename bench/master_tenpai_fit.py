"""Refit the Mahjong master's tenpai reading (``legacy.master_defence``).

Plays seeded East matches of a master against two Experts (the master in seat
``seed % 3``); at each of the master's discards it records, for both opponents, what the
master can see (riichi, open calls, discards so far, tsumogiri among the last three) and
whether the opponent's real hand is tenpai (the engine's shanten).  Prints the tenpai rate
per calls and turn bucket and the logistic weights that ``master_defence`` uses
(``_OPEN`` for open hands, ``_CLOSED`` for closed hands without riichi; the turns are
not capped in the fit, ``master_defence`` caps them when it reads).  The weights in
``master_defence`` came from ``--matches 240 --seed 5000`` with the master of ``c12489b``
(before it had this reading), 22,240 positions; the current master plays a little
differently, so a rerun gives close but not identical weights.

    .venv/bin/python bench/master_tenpai_fit.py --matches 240 --seed 5000 [--workers 2]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.master_probe import probe_match
from legacy.master import MasterBot
from sanma.engine.events import Event, HandStarted, MeldCalled, RiichiAccepted, TileDiscarded
from sanma.engine.match import Match
from sanma.engine.shanten import shanten
from sanma.engine.tiles import KIND_COUNT

Row = tuple[bool, int, int, int, bool]  # riichi, open calls, discards, recent tsumogiri, tenpai


def positions(seed: int) -> list[Row]:
    """The opponents' positions at each of the master's discards in one match."""
    rows: list[Row] = []
    riichi = [False] * 3
    calls = [0] * 3
    rivers: list[list[bool]] = [[], [], []]

    def visit(match: Match, master: MasterBot, batch: Sequence[Event], i: int) -> None:
        nonlocal riichi, calls, rivers
        e = batch[i]
        hero = master.seat
        if isinstance(e, HandStarted):
            riichi, calls, rivers = [False] * 3, [0] * 3, [[], [], []]
        elif isinstance(e, RiichiAccepted):
            riichi[e.seat] = True
        elif isinstance(e, MeldCalled):
            calls[e.seat] += int(e.meld.is_open)
        elif isinstance(e, TileDiscarded):
            rivers[e.seat].append(e.tsumogiri)
            if e.seat == hero:
                for o in range(3):
                    if o == hero:
                        continue
                    counts = [0] * KIND_COUNT
                    for t in match.kyoku.hand(o):
                        counts[t >> 2] += 1
                    tenpai = shanten(counts, len(match.kyoku.melds(o))) == 0
                    rows.append((riichi[o], calls[o], len(rivers[o]), sum(rivers[o][-3:]), tenpai))

    probe_match(seed, visit)
    return rows


def fit(data: list[tuple[list[float], float]], steps: int = 3000, rate: float = 0.5) -> list[float]:
    """Logistic regression by plain gradient ascent (small data, no dependencies)."""
    w = [0.0] * len(data[0][0])
    for _ in range(steps):
        grad = [0.0] * len(w)
        for x, y in data:
            p = 1 / (1 + math.exp(-sum(a * b for a, b in zip(w, x, strict=True))))
            for i, xi in enumerate(x):
                grad[i] += (y - p) * xi
        w = [a + rate * g / len(data) for a, g in zip(w, grad, strict=True)]
    return w


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=240)
    parser.add_argument("--seed", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args()
    rows: list[Row] = []
    with ProcessPoolExecutor(args.workers) as pool:
        for part in pool.map(positions, range(args.seed, args.seed + args.matches)):
            rows += part
    table: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0])
    for riichi, calls, turns, _, is_tenpai in rows:
        cell = table["riichi" if riichi else f"{min(calls, 3)} calls", min(turns // 3, 5) * 3]
        cell[0] += 1
        cell[1] += is_tenpai
    print(f"{len(rows)} opponent positions")
    for (group, turns), (n, tenpai) in sorted(table.items()):
        print(f"  {group:8s} discards {turns:2d}+: {tenpai / n:5.1%} tenpai of {n}")
    open_data = [
        ([1.0, float(c >= 2), float(c >= 3), t / 10, float(g)], float(y)) for r, c, t, g, y in rows if not r and c
    ]
    closed_data = [([1.0, t / 10, float(g)], float(y)) for r, c, t, g, y in rows if not r and not c]
    if open_data:
        print("_OPEN =", tuple(round(a, 3) for a in fit(open_data)))
    if closed_data:
        print("_CLOSED =", tuple(round(a, 3) for a in fit(closed_data, 2000, 1.0)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
