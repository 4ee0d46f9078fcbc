"""Normal: a solid, plain player.

Tile efficiency first: the discard that leaves the lowest shanten, then the most unseen
improving tiles (tiles on the table are counted out), then the tile least worth keeping
(isolated honors and terminals go before dora and connected middle tiles).  It keeps a
yaku in view by calling only pon of dragons and its value winds, so an open hand always
has yakuhai; a closed hand gets its yaku from riichi, which it declares on every tenpai
that still has at least two winning tiles unseen.  It always takes a win, always extracts
a North (nukidora is free han in sanma) and declares a closed kan when it costs no speed.
It does not defend.
"""

from __future__ import annotations

from sanma.bots.base import Player
from sanma.bots.heuristics import (
    Knowledge,
    Option,
    ankan_keeps_speed,
    discard_options,
    efficient_discard,
    kakan_ok,
    know,
    nine_terminal_kinds,
    pass_or_default,
    pick_tile,
    tiles_of_kind,
    winning_action,
)
from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pon
from sanma.engine.kyoku import LegalActions
from sanma.engine.shanten import shanten
from sanma.engine.tiles import TileKind, kind_of

MIN_RIICHI_WAITS = 2  # unseen winning tiles needed to declare riichi


class NormalBot(Player):
    """Shanten and ukeire, yakuhai pons, riichi on tenpai, kita always, no defence."""

    name = "Normal"

    def decide(self, legal: LegalActions) -> Action:
        """One answer from the seat's view and the legal actions."""
        win = winning_action(legal)
        if win is not None:
            return win
        k = know(self.view)
        if NineTerminals() in legal and nine_terminal_kinds(k) < 11:
            return NineTerminals()
        if any(isinstance(a, Pon) for a in legal):
            return self._call(k, legal)
        if not any(isinstance(a, Discard) for a in legal):
            return pass_or_default(legal)
        if Kita() in legal:
            return Kita()
        if self.view.riichi[k.seat]:
            kans = [a for a in legal if isinstance(a, Kan)]
            return kans[0] if kans else pass_or_default(legal)
        return self._turn(k, legal)

    def _call(self, k: Knowledge, legal: LegalActions) -> Action:
        return plain_call(k, legal)

    def _turn(self, k: Knowledge, legal: LegalActions) -> Action:
        options = discard_options(k)
        for a in legal:
            if isinstance(a, Kan) and (ankan_keeps_speed(k, a.kind, options) or kakan_ok(k, a.kind)):
                return a
        riichi = self._riichi(k, legal, options)
        if riichi is not None:
            return riichi
        return efficient_discard(k, legal, options, riichi=False)

    def _riichi(self, k: Knowledge, legal: LegalActions, options: dict[TileKind, Option]) -> Discard | None:
        return plain_riichi(k, legal, options)


def plain_call(k: Knowledge, legal: LegalActions) -> Action:
    """Pon a value tile (a yaku by itself) unless a closed tenpai already waits; else pass."""
    pons = [a for a in legal if isinstance(a, Pon) and a.kind in k.value_kinds]
    if pons and not (k.closed and shanten(k.counts, k.meld_count) == 0):
        return max(pons, key=lambda a: a.red)
    return pass_or_default(legal)


def plain_riichi(k: Knowledge, legal: LegalActions, options: dict[TileKind, Option]) -> Discard | None:
    """The riichi discard with the most unseen winning tiles, when it has at least
    ``MIN_RIICHI_WAITS`` of them; ``None`` when no riichi is legal or worth it."""
    kinds = {kind_of(a.tile) for a in legal if isinstance(a, Discard) and a.riichi}
    if not kinds:
        return None
    kind = max(sorted(kinds), key=lambda x: options[x].ukeire)
    if options[kind].ukeire < MIN_RIICHI_WAITS:
        return None
    return pick_tile(tiles_of_kind(legal, kind, True), k.red_fives, k.view.drawn)
