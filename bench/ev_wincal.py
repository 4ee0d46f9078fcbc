"""Calibration of the EV master's own-hand program: its chance to win against what happens.

Three Experts play seeded East matches.  At each discard of a hand two shanten or closer
(not in riichi) the EV program (``sanma.bots.ev.Program``) prices the Expert's discard
with every outcome's utility replaced: 1 for our win, 0 for anything else.  The program
then maximises the chance to win (it never folds: folding is worth 0), which is the
number to hold against how often such hands really won, by shanten after the discard and
by turn.  The observed hands played the Expert's way (calls, folds), so where the program
says less than was observed it misses ways to win (calls, draws that widen a hand without
bringing it closer); where it says more, it is too hopeful.

    nice -n 10 .venv/bin/python bench/ev_wincal.py --matches 15 --seed 300
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from legacy.ev_variants import VariantEVBot
from sanma.bots import ev
from sanma.bots.base import ask
from sanma.bots.heuristics import Knowledge, know
from sanma.engine.actions import Discard
from sanma.engine.events import HandStarted, HandWon
from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.engine.shanten import shanten
from sanma.engine.tiles import kind_of
from sanma.engine.visibility import redact


class WinOnly(ev.Outcomes):
    """Outcomes worth 1 for our win and 0 for every other end."""

    def __init__(self, table: ev.Table, opps: list[ev.Opponent], riichi: bool) -> None:
        super().__init__(table, opps, riichi)
        self.deal_in = [0.0 for _ in opps]
        self.other = 0.0
        self.draw = {True: 0.0, False: 0.0}

    def ron_win(self, points: int) -> float:
        return 1.0

    def tsumo_win(self, dealer_pays: int, other_pays: int) -> float:
        return 1.0


def win_chance(bot: ev.EVBot, k: Knowledge, action: Discard) -> float:
    """The program's chance to win after ``action`` (always pushing)."""
    saved = ev.Outcomes
    ev.Outcomes = WinOnly  # type: ignore[misc]
    try:
        program = ev.Program(bot, k, action.riichi, 10**6)
    finally:
        ev.Outcomes = saved  # type: ignore[misc]
    tn = program.turns
    tn.push_util = [0.0] * len(tn.push_util)
    tn.fold_util = [0.0] * len(tn.fold_util)
    return program.root_value(kind_of(action.tile), action.riichi)


def play(seed: int) -> list[tuple[int, int, float, bool]]:
    """(shanten after the discard, turn, predicted, won) for every priced Expert discard."""
    match = Match(seed, Rules(length="east"))
    # EVBot plays exactly as the Expert here (margin 1e9): it only lends its caches.
    bots = [VariantEVBot(s, seed, margin=1e9, calm_expert=False) for s in range(3)]
    rows: list[tuple[int, int, float, tuple[int, int]]] = []
    won: set[tuple[int, int]] = set()
    hand = 0
    for e in match.events:
        for s, bot in enumerate(bots):
            bot.observe(redact(e, s))
    while not match.finished:
        seat = match.awaiting()[0]
        bot = bots[seat]
        legal = match.legal_actions(seat)
        action = ask(bot, legal).action
        if isinstance(action, Discard) and not bot.view.riichi[seat]:
            k = know(bot.view)
            after = k.counts[:]
            after[kind_of(action.tile)] -= 1
            s = shanten(after, k.meld_count)
            if s <= 2:
                rows.append((s, len(bot.view.rivers[seat]), win_chance(bot, k, action), (hand, seat)))
        for e in match.apply(seat, action):
            if isinstance(e, HandStarted):
                hand += 1
            if isinstance(e, HandWon):
                won.add((hand, e.seat))
            for s2, b in enumerate(bots):
                b.observe(redact(e, s2))
    return [(s, t, p, key in won) for s, t, p, key in rows]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=15)
    parser.add_argument("--seed", type=int, default=300)
    args = parser.parse_args()
    cells: dict[tuple[int, str], list[float]] = defaultdict(lambda: [0, 0.0, 0])
    for seed in range(args.seed, args.seed + args.matches):
        for sh, turn, p, won in play(seed):
            cell = cells[(sh, "0-5" if turn < 6 else "6-10" if turn < 11 else "11+")]
            cell[0] += 1
            cell[1] += p
            cell[2] += won
    print(f"{args.matches} East matches of three Experts: shanten after the discard, turn, decisions, P(win)")
    print("| shanten | turn | decisions | predicted | observed |\n|---|---|---|---|---|")
    for (sh, label), (n, pred, obs) in sorted(cells.items()):
        print(f"| {sh} | {label} | {int(n)} | {pred / n:.3f} | {obs / n:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
