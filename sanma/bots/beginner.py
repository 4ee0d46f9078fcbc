"""Beginner: plays like a learner.

It goes straight for a complete hand: it discards a tile that lowers (or keeps) the
shanten, counting improving tiles without looking at what is already on the table, and
now and then simply picks a different tile that is just as close to complete.  It calls
pon on a dragon or its own winds often but not always, and once in a while on anything.
It declares riichi on almost any tenpai, wait good or bad, extracts a North most of the
time, and never defends.  It never throws away a win: a legal tsumo or ron is always taken.
"""

from __future__ import annotations

import random

from sanma.bots.base import Player
from sanma.bots.heuristics import (
    Knowledge,
    ankan_keeps_speed,
    discard_options,
    keep_value,
    know,
    pass_or_default,
    pick_tile,
    tiles_of_kind,
    winning_action,
)
from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pon
from sanma.engine.events import Event
from sanma.engine.kyoku import LegalActions
from sanma.engine.shanten import discard_ukeire
from sanma.engine.tiles import kind_of

NOISE = 0.2  # chance to pick another tile that is just as close to complete
KITA_RATE = 0.8
VALUE_PON_RATE = 0.6
OTHER_PON_RATE = 0.05
RIICHI_RATE = 0.85


class BeginnerBot(Player):
    """A learner: shanten first, some noise, no defence, always takes a win."""

    name = "Beginner"

    def __init__(self, seat: int, seed: int = 0) -> None:
        super().__init__(seat, seed)
        self.seen = 0  # events observed: with the seed, what the dice of a decision depend on
        self.rng = random.Random(seed)

    def observe(self, event: Event) -> None:
        super().observe(event)
        self.seen += 1

    def decide(self, legal: LegalActions) -> Action:
        """One answer from the seat's view and the legal actions."""
        # Fresh dice for each decision, drawn from the seed and the events seen: the answer
        # depends on what the seat saw, never on what it was asked before (a bot rebuilt
        # from its seat's events, in a new worker or a rebuilt room, plays on the same).
        self.rng = random.Random(f"{self.seed}:{self.seen}")
        win = winning_action(legal)
        if win is not None:
            return win
        k = know(self.view)
        if NineTerminals() in legal and self.rng.random() < 0.7:
            return NineTerminals()
        if any(isinstance(a, Pon) for a in legal):
            return self._call(k, legal)
        if not any(isinstance(a, Discard) for a in legal):
            return pass_or_default(legal)
        if Kita() in legal and self.rng.random() < KITA_RATE:
            return Kita()
        return self._turn(k, legal)

    def _call(self, k: Knowledge, legal: LegalActions) -> Action:
        for a in legal:
            if isinstance(a, Pon):
                rate = VALUE_PON_RATE if a.kind in k.value_kinds else OTHER_PON_RATE
                if self.rng.random() < rate:
                    return a
        return pass_or_default(legal)

    def _turn(self, k: Knowledge, legal: LegalActions) -> Action:
        if self.view.riichi[k.seat]:
            return legal.default if legal.default is not None else pass_or_default(legal)
        options = discard_options(k)
        kans = [a for a in legal if isinstance(a, Kan) and ankan_keeps_speed(k, a.kind, options)]
        if kans and self.rng.random() < 0.5:
            return kans[0]
        riichi_kinds = sorted({kind_of(a.tile) for a in legal if isinstance(a, Discard) and a.riichi})
        if riichi_kinds and self.rng.random() < RIICHI_RATE:
            kind = self.rng.choice(riichi_kinds)  # any wait will do for a learner
            return pick_tile(tiles_of_kind(legal, kind, True), k.red_fives, self.view.drawn)
        return self._discard(k, legal)

    def _discard(self, k: Knowledge, legal: LegalActions) -> Discard:
        # A learner counts improving tiles as if none were on the table yet.
        table = discard_ukeire(k.counts, k.meld_count)
        kinds = sorted({kind_of(a.tile) for a in legal if isinstance(a, Discard) and not a.riichi})
        best = min(table[kind][0] for kind in kinds)
        closest = [kind for kind in kinds if table[kind][0] == best]
        if len(closest) > 1 and self.rng.random() < NOISE:
            kind = self.rng.choice(closest)
        else:
            kind = min(closest, key=lambda x: (-sum(table[x][1].values()), keep_value(k, x)))
        return pick_tile(tiles_of_kind(legal, kind, False), k.red_fives, self.view.drawn)
