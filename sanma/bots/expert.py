"""Expert: speed, value and danger weighed in points.

Every discard is judged by one number, its expected value in points:

* **push**: the chance to win from the hand it leaves (shanten, unseen improving tiles,
  turns left) times what the hand would be worth (dora incl. the 1m<->9m wrap, red
  fives, kita, yakuhai, tanyao, honitsu and toitoi routes, riichi; a tenpai hand is
  scored exactly for each wait), minus the deal-ins expected over the turns it takes;
* **fold**: giving up costs nothing more, so a discard is worth at least 0 before its
  own danger (except a riichi, which cannot fold later);
* **danger now**: for each opponent, the chance it is tenpai (riichi, calls, turns) times
  the chance the tile wins for it (genbutsu, suji, kabe, one-chance, honors by copies in
  sight, honitsu suits) times the hand it would pay (visible dora, kita, dealer).

Gains and losses are weighted by the match situation: all-last placement, bust risk.
Calls follow the same sum: a pon is made when the open hand after it (with a yaku route:
yakuhai, tanyao, honitsu, toitoi) is worth more than staying closed.  Riichi or dama is
the better of the two numbers (riichi adds han and ura but gives up folding).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from sanma.bots.base import Player
from sanma.bots.defence import Threat, end_hazard, threats, tile_risk, typical_danger
from sanma.bots.heuristics import (
    END_HAZARD,
    Knowledge,
    Option,
    Tenpai,
    ankan_keeps_speed,
    discard_options,
    efficient_discard,
    estimate_points,
    kakan_ok,
    keep_value,
    know,
    nine_terminal_kinds,
    own_counts,
    pass_or_default,
    pick_tile,
    tenpai_after,
    tenpai_outlook,
    tiles_of_kind,
    turns_left,
    win_chance,
    winning_action,
)
from sanma.bots.normal import plain_call, plain_riichi
from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pon
from sanma.engine.hand import Meld, MeldType
from sanma.engine.kyoku import LegalActions
from sanma.engine.shanten import shanten, ukeire
from sanma.engine.tiles import EAST, NORTH, SOUTH, Tile, TileKind, is_red, kind_of
from sanma.engine.view import SeatView

_TYPICAL_STEP = (6, 20, 34, 46, 56, 64, 70)
RIICHI_BONUS = 1.2  # ura, ippatsu and tsumo on top of the scored riichi hand
RIICHI_EXTRA = 1000.0  # the same, felt most by cheap hands
RIICHI_LOCK = 40.0  # points per turn a riichi risks against threats that are not there yet
UKEIRE_WEIGHT = 4.0
# An opponent at least this likely tenpai (a riichi; an open hand with several calls, late)
# turns the Expert from plain speed to weighing each discard's value against its danger.
PRESSURE = 0.5
# Under pressure a point won counts this much more than the win-chance model says: the
# model undercounts how often a pushed hand still wins (fitted in self-play against Normal:
# 1.0 folded too much, 1.5-2.2 were best, 3.0 dealt in too often).
PUSH_GAIN = 2.0
# At 1-shanten the widest discards (at least this share of the widest ukeire, at most
# ``OUTLOOK_TOP`` of them) are compared by the waits their tenpai will have.
OUTLOOK_SHARE = 0.6
OUTLOOK_TOP = 4
OTHER_PON_MARGIN = 500.0  # a pon without yakuhai must win this much over staying closed
DAMA_ENOUGH = 7700.0  # a non-dealer dama hand this big with a sure yaku needs no riichi
DEPOSIT_COST = 600.0  # a deposit not won back is often won back later (it stays on the table)


@dataclass(frozen=True, slots=True)
class Weights:
    """How much a point won and a point lost count in this match situation."""

    gain: float = 1.0
    loss: float = 1.0


def situation(view: SeatView, seat: int) -> Weights:
    """All-last and bust risk change what a point is worth: the leader guards the lead,
    the last place needs points, a low score fears a bust."""
    rules = view.rules
    gain, loss = 1.0, 1.0
    me = view.scores[seat]
    if me < 8000:
        loss *= 1.4
    if rules is None:
        return Weights(gain, loss)
    last_round = SOUTH if rules.length == "east-south" else EAST
    all_last = rules.length == "one-hand" or (view.round_wind == last_round and view.dealer == 2)
    if all_last:
        others = sorted((view.scores[s] for s in range(3) if s != seat), reverse=True)
        if me > others[0]:
            loss *= 1.6 if me - others[0] > 4000 else 1.2
            gain *= 0.8
        elif me < others[1]:
            gain *= 1.3
            loss *= 0.7
    return Weights(gain, loss)


def under_pressure(opps: list[Threat]) -> bool:
    """Whether some opponent is likely enough tenpai that defence starts to count."""
    return any(o.tenpai >= PRESSURE for o in opps)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A discard and its value: ``push`` before the tile's own danger ``risk``."""

    action: Discard
    ev: float
    push: float
    risk: float


def exposure(
    shanten_after: int, ukeire: int, unseen: int, turns: float, ron_factor: float = 1.8, hazard: float = END_HAZARD
) -> float:
    """Discards expected while pushing on until the hand ends one way or another."""
    n = max(unseen, 1)
    total = 0.0
    uke = float(ukeire)
    for step in range(shanten_after, 0, -1):
        total += n / max(uke, 1.0)
        uke = _TYPICAL_STEP[min(step - 1, len(_TYPICAL_STEP) - 1)]
    total += 1.0 / (min(0.95, ron_factor * uke / n) + hazard)
    return min(turns, total)


class ExpertBot(Player):
    """Efficiency, hand value and defence in one expected-value sum."""

    name = "Expert"

    def __init__(self, seat: int, seed: int = 0) -> None:
        super().__init__(seat, seed)
        self.hazard = END_HAZARD  # of the decision being made
        self.pressed = False  # whether an opponent threatens in the decision being made

    def decide(self, legal: LegalActions) -> Action:
        """One answer from the seat's view and the legal actions."""
        win = winning_action(legal)
        if win is not None:
            return win
        k = know(self.view)
        opps, w = self._weigh(k)
        if any(isinstance(a, Pon) for a in legal):
            return self._call(k, legal, opps, w) if self.pressed else plain_call(k, legal)
        if not any(isinstance(a, Discard) for a in legal):
            return pass_or_default(legal)
        if NineTerminals() in legal and nine_terminal_kinds(k) < 11:
            return NineTerminals()
        if self.view.riichi[k.seat]:
            for a in legal:
                if isinstance(a, Kita | Kan):
                    return a
            return pass_or_default(legal)
        if Kita() in legal and not self.pressed:
            return Kita()
        options = discard_options(k)
        best = self._best_discard(k, legal, options, opps, w)
        if Kita() in legal and (best.push > 0 or tile_risk(k, NORTH, opps) * w.loss < 150):
            return Kita()
        kan = self._kan(k, legal, options, opps, w)
        return kan if kan is not None else best.action

    def _weigh(self, k: Knowledge) -> tuple[list[Threat], Weights]:
        """The decision's threats and weights (and ``hazard``, ``pressed`` for it)."""
        opps = self._threats(k)
        self.hazard = end_hazard(opps)
        self.pressed = self._under_pressure(opps)
        w = situation(self.view, k.seat)
        if self.pressed:
            w = Weights(w.gain * PUSH_GAIN, w.loss)
        return opps, w

    def ranked_discards(self, legal: LegalActions) -> list[Candidate]:
        """Every discard of ``legal`` (one per kind, with and without riichi), best first by
        the Expert's own scores: while nobody threatens, the order of plain speed that
        ``_calm_discard`` starts from (shanten, unseen improving tiles, the tile least worth
        keeping); under pressure, the expected values ``_weighed_discard`` picks its best from.
        For the coach's runners-up: the answer itself is ``decide``'s (riichi, the 1-shanten
        outlook and kita or kan may overrule the top of this list)."""
        k = know(self.view)
        opps, w = self._weigh(k)
        options = discard_options(k)
        if self.pressed:
            cands, _ = self._weighed_candidates(k, legal, options, opps, w)
            return sorted(cands, key=lambda c: -c.ev)
        keyed = []
        for riichi in (False, True):
            kinds = {kind_of(a.tile) for a in legal if isinstance(a, Discard) and a.riichi == riichi}
            for kind in sorted(kinds):
                o = options[kind]
                action = pick_tile(tiles_of_kind(legal, kind, riichi), k.red_fives, self.view.drawn)
                merit = (o.shanten, -o.ukeire, keep_value(k, kind), riichi)  # efficient_discard's order
                keyed.append((merit, Candidate(action, -25.0 * o.shanten + 0.5 * o.ukeire, 0.0, 0.0)))
        keyed.sort(key=lambda pair: pair[0])
        return [c for _, c in keyed]

    def _threats(self, k: Knowledge) -> list[Threat]:
        """Both opponents as threats (a hook: the master reads tenpai differently)."""
        return threats(self, k)

    def _under_pressure(self, opps: list[Threat]) -> bool:
        """Whether to weigh danger in this decision (a hook: the master's threshold differs)."""
        return under_pressure(opps)

    # -- discards ------------------------------------------------------------------------------

    def _best_discard(
        self, k: Knowledge, legal: LegalActions, options: dict[TileKind, Option], opps: list[Threat], w: Weights
    ) -> Candidate:
        """The discard to make: plain speed while nobody threatens, else the best
        expected value of pushing (or folding) against the danger of each tile."""
        if not self.pressed:
            return self._calm_discard(k, legal, options)
        return self._weighed_discard(k, legal, options, opps, w)

    def _calm_discard(self, k: Knowledge, legal: LegalActions, options: dict[TileKind, Option]) -> Candidate:
        """Nobody threatens yet: the fastest hand (shanten, then unseen improving tiles,
        then the tile least worth keeping) and riichi on any tenpai with live waits.
        Weighing value against speed here lost to plain speed in self-play: sanma hands
        are big anyway (kita, red fives, few kinds), so reaching tenpai first matters most."""
        action = plain_riichi(k, legal, options) or efficient_discard(k, legal, options, riichi=False)
        o = options[kind_of(action.tile)]
        if o.shanten == 1 and not action.riichi:
            action = self._best_outlook(k, legal, options, action)
            o = options[kind_of(action.tile)]
        return Candidate(action, -25.0 * o.shanten + 0.5 * o.ukeire, 0.0, 0.0)

    def _best_outlook(
        self, k: Knowledge, legal: LegalActions, options: dict[TileKind, Option], first: Discard
    ) -> Discard:
        """Of the widest 1-shanten discards, the one whose tenpai will wait on most tiles."""
        widest = options[kind_of(first.tile)].ukeire
        kinds = sorted(
            {kind_of(a.tile) for a in legal if isinstance(a, Discard) and not a.riichi},
            key=lambda kind: (options[kind].shanten, -options[kind].ukeire, keep_value(k, kind)),
        )
        near = [kind for kind in kinds if options[kind].shanten == 1 and options[kind].ukeire >= OUTLOOK_SHARE * widest]
        if len(near) < 2:
            return first
        best_kind, best = kind_of(first.tile), -1.0
        for kind in near[:OUTLOOK_TOP]:
            counts = k.counts[:]
            counts[kind] -= 1
            score = tenpai_outlook(k, counts, options[kind].improving)
            if score > best:
                best_kind, best = kind, score
        if best_kind == kind_of(first.tile):
            return first
        return pick_tile(tiles_of_kind(legal, best_kind, False), k.red_fives, self.view.drawn)

    def _weighed_discard(
        self, k: Knowledge, legal: LegalActions, options: dict[TileKind, Option], opps: list[Threat], w: Weights
    ) -> Candidate:
        """Each discard's expected value: its push value (at least 0: folding) minus its danger."""
        cands, tenpai_cache = self._weighed_candidates(k, legal, options, opps, w)
        best: Candidate | None = None
        best_riichi: Candidate | None = None
        for cand in cands:
            if best is None or cand.ev > best.ev:
                best = cand
            if cand.action.riichi and (best_riichi is None or cand.ev > best_riichi.ev):
                best_riichi = cand
        assert best is not None, "a turn always has a discard"
        if (
            best_riichi is not None
            and best_riichi is not best
            and self._prefer_riichi(k, best, best_riichi, tenpai_cache)
        ):
            return best_riichi
        return best

    def _weighed_candidates(
        self, k: Knowledge, legal: LegalActions, options: dict[TileKind, Option], opps: list[Threat], w: Weights
    ) -> tuple[list[Candidate], dict[Tile, Tenpai | None]]:
        """Each discard (one per kind, riichi and redness) with its expected value, in the
        order ``_weighed_discard`` meets them, and the tenpai hands it scored on the way."""
        groups: dict[tuple[TileKind, bool, bool], list[Discard]] = {}
        for a in legal:
            if isinstance(a, Discard):
                groups.setdefault((kind_of(a.tile), a.riichi, is_red(a.tile, k.red_fives)), []).append(a)
        per_turn = typical_danger(k, opps) * w.loss
        own = own_counts(k)
        tenpai_cache: dict[Tile, Tenpai | None] = {}
        fastest = min(options[kind].shanten for kind, _, _ in groups)
        widest: dict[int, int] = {}
        for kind, _, _ in groups:
            o = options[kind]
            widest[o.shanten] = max(widest.get(o.shanten, 0), o.ukeire)
        cands: list[Candidate] = []
        for (kind, riichi, _), choices in sorted(groups.items()):
            action = pick_tile(choices, k.red_fives, self.view.drawn)
            o = options[kind]
            risk = tile_risk(k, kind, opps) * w.loss
            if o.shanten == 0:
                if action.tile not in tenpai_cache:
                    hand = list(k.hand)
                    hand.remove(action.tile)
                    tenpai_cache[action.tile] = tenpai_after(k, hand, own)
                push = self._tenpai_push(k, tenpai_cache[action.tile], riichi, per_turn, w)
                fold = push if riichi else max(push, 0.0)
            else:
                # A step back in shanten is a half fold under pressure: the model's typical
                # later shapes flatter it, so it earns no push value of its own.
                value = estimate_points(k, kind, is_red(action.tile, k.red_fives)) if o.shanten == fastest else 0.0
                if o.shanten == fastest and widest[fastest]:
                    # The model sees too little of how good shapes keep paying later on.
                    value *= (o.ukeire / widest[fastest]) ** UKEIRE_WEIGHT
                push = self._push(k, o, value, per_turn, w)
                fold = max(push, 0.0)
            tiebreak = -25.0 * o.shanten + 0.5 * o.ukeire - 3.0 * keep_value(k, kind)
            cands.append(Candidate(action, fold - risk + tiebreak, push, risk))
        return cands, tenpai_cache

    def _prefer_riichi(
        self, k: Knowledge, best: Candidate, riichi: Candidate, tenpai_cache: dict[Tile, Tenpai | None]
    ) -> bool:
        """Riichi beats dama in sanma unless the dama hand is already big with a yaku on
        every wait, or pushing on does not pay (then the riichi tile's own EV decides)."""
        t = tenpai_cache.get(riichi.action.tile)
        if riichi.push <= 0 or t is None or t.live < 2:
            return False
        dama = tenpai_cache.get(best.action.tile)
        big = DAMA_ENOUGH * (1.5 if k.seat_wind == EAST else 1.0)
        return not (dama is not None and dama.dama_yaku_share >= 1.0 and dama.dama >= big)

    def _push(self, k: Knowledge, o: Option, value: float, per_turn: float, w: Weights) -> float:
        turns = turns_left(self.view)
        p = win_chance(o.shanten, o.ukeire, k.unseen_total, turns, hazard=self.hazard)
        return p * value * w.gain - exposure(o.shanten, o.ukeire, k.unseen_total, turns, hazard=self.hazard) * per_turn

    def _tenpai_push(self, k: Knowledge, t: Tenpai | None, riichi: bool, per_turn: float, w: Weights) -> float:
        if t is None or t.live <= 0:
            return -1000.0 if riichi else 0.0
        turns = turns_left(self.view)
        n = k.unseen_total
        if riichi:
            p = win_chance(0, t.live, n, turns, 1.5, self.hazard)
            gain = p * (t.riichi * RIICHI_BONUS + RIICHI_EXTRA) * w.gain - DEPOSIT_COST * (1 - p)
            lock = max(per_turn, RIICHI_LOCK * w.loss)
            return gain - exposure(0, t.live, n, turns, 1.5, self.hazard) * lock
        p_any = win_chance(0, t.live, n, turns, hazard=self.hazard)
        value = p_any * t.dama
        if k.closed:  # a wait without yaku still wins by tsumo (menzen tsumo)
            value += win_chance(0, t.live, n, turns, 1.0, self.hazard) * (1 - t.dama_yaku_share) * t.riichi
        return value * w.gain - exposure(0, t.live, n, turns, hazard=self.hazard) * per_turn

    # -- kita and kans -------------------------------------------------------------------------

    def _kan(
        self, k: Knowledge, legal: LegalActions, options: dict[TileKind, Option], opps: list[Threat], w: Weights
    ) -> Kan | None:
        threatened = any(o.tenpai >= 0.5 for o in opps)
        for a in legal:
            if not isinstance(a, Kan) or threatened:
                continue
            if ankan_keeps_speed(k, a.kind, options):
                return a
            if kakan_ok(k, a.kind) and tile_risk(k, a.kind, opps) * w.loss < 100:
                return a
        return None

    # -- calls ---------------------------------------------------------------------------------

    def _pons_after(self, k: Knowledge, legal: LegalActions) -> Iterator[tuple[Pon, Knowledge]]:
        """Each legal pon of the last discard, with what the seat would know after it."""
        if not self.view.order:
            return
        from_seat, called = self.view.order[-1]
        for a in legal:
            if isinstance(a, Pon) and a.kind == kind_of(called):
                after = self._after_pon(k, a, called, from_seat)
                if after is not None:
                    yield a, after

    def _call(self, k: Knowledge, legal: LegalActions, opps: list[Threat], w: Weights) -> Action:
        """Pon when the best open hand after it is worth more than the closed one."""
        if not self.view.order:
            return pass_or_default(legal)
        stay = self._hand_value(k, opps, w)
        best: tuple[float, Action] | None = None
        for a, after in self._pons_after(k, legal):
            value = self._best_open_value(after, opps, w, a.kind)
            if best is None or value > best[0]:
                best = (value, a)
        if best is not None:
            pon = best[1]
            assert isinstance(pon, Pon)
            # A yakuhai pon is a yaku and a step at once: take it unless the closed hand is
            # already tenpai or folding; others must clearly pay for opening the hand.
            if pon.kind in k.value_kinds:
                if shanten(k.counts, k.meld_count) > 0 and best[0] > 0:
                    return pon
            elif best[0] > stay + OTHER_PON_MARGIN + 0.5 * abs(stay):
                return pon
        return pass_or_default(legal)

    def _hand_value(self, k: Knowledge, opps: list[Threat], w: Weights) -> float:
        """Value of the 13-tile hand as it stands (no discard to make)."""
        s = shanten(k.counts, k.meld_count)
        uke = sum(ukeire(k.counts, k.meld_count, k.visible).values())
        per_turn = typical_danger(k, opps) * w.loss
        return max(self._push(k, Option(-1, s, uke, {}), estimate_points(k), per_turn, w), 0.0)

    def _after_pon(self, k: Knowledge, pon: Pon, called: Tile, from_seat: int) -> Knowledge | None:
        mine = sorted(
            (t for t in k.hand if kind_of(t) == pon.kind), key=lambda t: (is_red(t, k.red_fives) != pon.red, t)
        )
        if len(mine) < 2:
            return None
        used = mine[:2]
        meld = Meld(MeldType.PON, tuple(sorted((*used, called))), called=called, from_seat=from_seat)
        hand = list(k.hand)
        for t in used:
            hand.remove(t)
        counts = k.counts[:]
        counts[pon.kind] -= 2
        visible = k.visible[:]
        visible[pon.kind] += 2
        return replace(k, hand=hand, counts=counts, melds=[*k.melds, meld], visible=visible, closed=False)

    def _best_open_value(self, k: Knowledge, opps: list[Threat], w: Weights, called_kind: TileKind) -> float:
        per_turn = typical_danger(k, opps) * w.loss
        best = float("-inf")
        for kind, o in discard_options(k).items():
            if kind == called_kind:
                continue  # no kuikae
            value = estimate_points(k, kind, False)
            ev = max(self._push(k, o, value, per_turn, w), 0.0) - tile_risk(k, kind, opps) * w.loss
            best = max(best, ev)
        return best
