"""Refit the Mahjong master's wait model (``legacy.master_defence`` danger weights).

Plays seeded East matches of a master against two Experts (the master in seat
``seed % 3``).  At each of the master's discards, for every opponent whose real hand is
tenpai (the engine's shanten), and for every kind in the master's hand that the opponent
could ron (not in its river, nor let go since its last discard or its riichi), it records
the shape weights the Expert's wait model counts (``defence.wait_danger``: pair waits
from the copies out, two-sided, closed and edge waits from the neighbours' copies and
suji) and whether the kind is one of the opponent's real winning tiles.  A least-squares
fit gives one danger per unit of each shape (riichi and silent tenpai apart); the script
prints them with the Brier score of the Expert's model and the refit one on the same rows,
and the calibration of both by danger bucket.

It also compares the Expert's guess of a deal-in's cost (``defence.deal_in_loss``, seen
by the master just before the winning discard) with what each ron really paid.

    .venv/bin/python bench/master_danger_fit.py --matches 240 --seed 7000 [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.master_probe import probe_match
from legacy.master import MasterBot
from legacy.master_defence import master_threats
from sanma.bots.defence import Threat, shape_weights, wait_danger
from sanma.bots.heuristics import Knowledge, know
from sanma.engine.events import Event, HandWon, TileDiscarded, TileDrawn
from sanma.engine.match import Match
from sanma.engine.shanten import shanten, waits
from sanma.engine.tiles import EAST, KIND_COUNT, P1, S1, Tile, TileKind

# features (shape weights), riichi, dora, flush factor, the Expert's danger, is a wait, category
Row = tuple[tuple[float, ...], bool, bool, float, float, bool, str]
LossRow = tuple[bool, bool, float, int]  # riichi, dealer, predicted loss, paid


def positions(seed: int) -> tuple[list[Row], list[LossRow]]:
    """Wait-model rows at each of the master's discards, and deal-in costs, in one match."""
    rows: list[Row] = []
    losses: list[LossRow] = []
    predicted: dict[int, float] = {}

    def visit(match: Match, master: MasterBot, batch: Sequence[Event], i: int) -> None:
        nonlocal predicted
        e = batch[i]
        if isinstance(e, TileDiscarded):
            k = know(master.view)
            opps = master_threats(master, k)
            predicted = {o.seat: o.loss for o in opps}
            if e.seat == master.seat:
                # The engine has already dealt the next draw: take it back out of that hand.
                drawn = [(d.seat, d.tile) for d in batch[i:] if isinstance(d, TileDrawn)]
                rows.extend(_rows(match, master, k, opps, drawn))
        elif isinstance(e, HandWon) and e.from_seat != e.seat and e.seat in predicted:
            view = master.view
            paid = -e.deltas[e.from_seat]
            losses.append((view.riichi[e.seat], e.seat == view.dealer, predicted[e.seat], paid))

    probe_match(seed, visit)
    return rows, losses


def _rows(
    match: Match, master: MasterBot, k: Knowledge, opps: list[Threat], drawn: list[tuple[int, Tile]]
) -> list[Row]:
    out: list[Row] = []
    for o in opps:
        hand = list(match.kyoku.hand(o.seat))
        for seat, tile in drawn:
            if seat == o.seat and tile in hand:
                hand.remove(tile)
        counts = [0] * KIND_COUNT
        for t in hand:
            counts[t >> 2] += 1
        melds = len(match.kyoku.melds(o.seat))
        if len(hand) != 13 - 3 * melds or shanten(counts, melds) != 0:
            continue
        real = set(waits(counts, melds))
        for kind in {t >> 2 for t in k.hand}:
            if kind in o.safe:
                continue
            flush = 1.0
            if o.flush_suit:
                flush = 1.6 if kind >= EAST or o.flush_suit <= kind < o.flush_suit + 9 else 0.15
            feats = shape_weights(k, kind, o.safe)
            old = wait_danger(k, kind, o.safe) * flush
            cat = category(k, kind, o.safe)
            out.append((feats, master.view.riichi[o.seat], bool(k.dora[kind]), flush, old, kind in real, cat))
    return out


def category(k: Knowledge, kind: TileKind, safe: frozenset[TileKind]) -> str:
    """A coarse class of the tile: no-sequence kinds by copies out, number tiles by
    distance from the edge and how many of their two-sided sides the suji kills."""
    out = 4 - k.seen_by_me(kind)
    if kind < P1 or kind >= EAST:
        return f"{'z' if kind >= EAST else 'm'} out={out}"
    base = P1 if kind < S1 else S1
    n = kind - base
    sides = [n - 3] if n >= 3 else []
    sides += [n + 3] if n <= 5 else []
    killed = sum(1 for i in sides if base + i in safe)
    return f"n{min(n, 8 - n) + 1} suji {killed}/{len(sides)}"


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (small systems, no dependencies)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        if abs(m[c][c]) < 1e-12:
            continue
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c], strict=True)]
    return [m[i][n] / m[i][i] if abs(m[i][i]) > 1e-12 else 0.0 for i in range(n)]


def least_squares(xs: list[tuple[float, ...]], ys: list[float]) -> list[float]:
    n = len(xs[0])
    ata = [[sum(x[i] * x[j] for x in xs) for j in range(n)] for i in range(n)]
    aty = [sum(x[i] * y for x, y in zip(xs, ys, strict=True)) for i in range(n)]
    return solve(ata, aty)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=240)
    parser.add_argument("--seed", type=int, default=7000)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args()
    rows: list[Row] = []
    losses: list[LossRow] = []
    with ProcessPoolExecutor(args.workers) as pool:
        for part, lost in pool.map(positions, range(args.seed, args.seed + args.matches)):
            rows += part
            losses += lost
    print(f"{len(rows)} (tenpai opponent, kind) rows, {sum(r[5] for r in rows)} waits")
    for riichi in (True, False):
        group = [r for r in rows if r[1] == riichi]
        plain = [r for r in group if not r[2] and r[3] == 1.0]
        if not plain:
            continue
        units = least_squares([r[0] for r in plain], [float(r[5]) for r in plain])
        dora = [r for r in group if r[2] and r[3] == 1.0]
        pred_dora = sum(sum(u * f for u, f in zip(units, r[0], strict=True)) for r in dora)
        dora_factor = sum(r[5] for r in dora) / pred_dora if pred_dora else 1.0
        label = "riichi" if riichi else "silent/open tenpai"
        print(
            f"{label}: {len(group)} rows, units (shanpon, tanki, ryanmen, kanchan, penchan) =",
            tuple(round(u, 4) for u in units),
            f"dora x{dora_factor:.2f}",
        )

        def new(r: Row, units: list[float] = units, dora_factor: float = dora_factor) -> float:
            d = sum(u * f for u, f in zip(units, r[0], strict=True)) * r[3]
            return max(0.0, d * (dora_factor if r[2] else 1.0))

        brier_old = sum((r[4] - r[5]) ** 2 for r in group) / len(group)
        brier_new = sum((new(r) - r[5]) ** 2 for r in group) / len(group)
        base = sum(r[5] for r in group) / len(group)
        print(f"  Brier: Expert's model {brier_old:.5f}, refit {brier_new:.5f}; base rate {base:.4f}")
        buckets: dict[int, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0])
        for r in group:
            b = buckets[min(int(r[4] / 0.03), 8)]
            b[0] += 1
            b[1] += r[4]
            b[2] += new(r)
            b[3] += r[5]
        for key in sorted(buckets):
            n, old, nw, hit = buckets[key]
            print(f"    Expert danger {key * 3:2d}%+: n={n:6d} Expert {old / n:6.1%}", end="")
            print(f" refit {nw / n:6.1%} real {hit / n:6.1%}")
    for riichi in (True, False):
        cells: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0])
        for r in rows:
            if r[1] == riichi:
                cell = cells[r[6]]
                cell[0] += 1
                cell[1] += r[4]
                cell[2] += r[5]
        print(f"by class ({'riichi' if riichi else 'silent/open tenpai'}):")
        for name in sorted(cells):
            n, old, hit = cells[name]
            print(f"    {name:14s} n={n:6d} Expert {old / n:6.1%} real {hit / n:6.1%}")
        group = [r for r in rows if r[1] == riichi]
        rate = {name: c[2] / c[0] for name, c in cells.items()}
        brier = sum((rate[r[6]] - r[5]) ** 2 for r in group) / len(group)
        print(f"  Brier of the class table (in-sample): {brier:.5f}")
    for riichi in (True, False):
        for dealer in (False, True):
            rons = [r for r in losses if r[0] == riichi and r[1] == dealer]
            if rons:
                pred = sum(r[2] for r in rons) / len(rons)
                paid = sum(r[3] for r in rons) / len(rons)
                print(
                    f"ron by {'riichi' if riichi else 'dama/open'} {'dealer' if dealer else 'non-dealer'}: "
                    f"n={len(rons)} predicted {pred:,.0f} paid {paid:,.0f} (x{paid / pred:.2f})"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
