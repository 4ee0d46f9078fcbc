"""The classic master: the Expert's judgement, with its close discard choices settled by search.

The Expert values each discard with a closed-form model of how fast and how big the hand
gets.  The master keeps everything the Expert does (calls, kita, kans, defence, the match
situation) and, while its hand is closed, re-judges the Expert's best few discards by
Monte Carlo (``legacy.search``): the same determinized futures of the hidden tiles are
played out for each candidate and the candidate's push value becomes the points it won on
average minus the deal-ins its discards risked along the way (the Expert's danger per
discard); a candidate's own danger now is subtracted as the Expert does.  Riichi or dama
for the chosen tile is still the Expert's call.

It reads its opponents with a tenpai chance fitted on real positions
(``legacy.master_defence``: calls, turns and recent tsumogiri) instead of the Expert's
hand-set steps, and while nobody threatens it lets a tile as fast and nearly as wide go
when that tile is clearly safer against an open hand that may already be tenpai (the
calm guard).  Two more switches are built and off (measured no better on the same walls):
``dama`` keeps a yaku'd tenpai quiet while nobody threatens, ``follow_up`` pons what speeds
up a hand already opened with a yakuhai triplet.

Under pressure the master pushes a little less than the Expert (``PUSH_SCALE``), and a
hand not yet tenpai much less (``slow_push``): it folds a slow, cheap hand earlier.
``chase_live`` (off) keeps a narrow, cheap tenpai dama against an opponent's riichi.  Two more
uses of the search are built but off by default (they did not measure better on the same
walls): ``pressed`` searches push or fold while an opponent threatens, pricing each future
discard by its own danger; ``placement`` weighs all-last gains and losses by the places
they move.

The budget is counted in futures, not seconds, so a seed gives the same decisions on any
machine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from legacy.master_defence import master_threats
from legacy.search import Setup, estimate, paired_gap, remove_kind, sample_futures
from sanma.bots.defence import TYPICAL_DANGER, Threat, threats, tile_risk, typical_danger
from sanma.bots.expert import PRESSURE, PUSH_GAIN, RIICHI_BONUS, Candidate, ExpertBot, Weights, situation
from sanma.bots.heuristics import (
    Knowledge,
    Option,
    Tenpai,
    discard_options,
    estimate_points,
    keep_value,
    know,
    own_counts,
    pass_or_default,
    pick_tile,
    tenpai_after,
    tiles_of_kind,
    turns_left,
    win_context,
    winning_action,
)
from sanma.engine.actions import Action, Discard, Pon
from sanma.engine.kyoku import LegalActions
from sanma.engine.shanten import shanten
from sanma.engine.tiles import EAST, KIND_COUNT, SOUTH, Tile, TileKind, is_red, kind_of
from sanma.engine.view import SeatView

SAMPLES = 96  # futures per decision
TOP = 4  # candidates searched
MARGIN = 2500.0  # a candidate this far below the Expert's best in points is not searched
CONFIDENCE = 2.0  # standard errors the search must beat the Expert's choice by
SWITCH_COST = 50.0  # points: the search's policy is cruder than the Expert in small ways
# All-last: one place counts as this many points; a typical win of ours; the least weight.
PLACE_POINTS = 8000.0
TYPICAL_WIN = 8000.0
FLOOR = 0.1
# Under pressure the master pushes a little less than the Expert (its points won count
# 0.75 of the Expert's PUSH_GAIN): 1.972 against 1.984 over the same 1,050 East matches (noise).
PUSH_SCALE = 0.75
PRESS_GAIN = 2.0  # under pressure a point won counts this much (the Expert's push gain)
# The calm guard: below this tenpai chance of every opponent, plain speed alone; a safer
# tile must save this many points net of the width it gives up, each unseen improving
# tile valued by shanten (tenpai, 1-, 2-, 3+-shanten) at about what it adds to the win chance.
GUARD_FLOOR = 0.1
GUARD_MARGIN = 30.0
UKEIRE_POINTS = (300.0, 70.0, 30.0, 15.0)
# Chasing a riichi (switch ``chase_live``): a riichi hand at least this big (with the
# Expert's ura/ippatsu bonus) is declared whatever its wait.
CHASE_VALUE = 8000.0
# Under pressure a hand not yet tenpai counts its points won this much (on top of
# PUSH_SCALE): it folds earlier. Paired A/B over 1,200 East matches (seeds 48, 49):
# -0.040 +-0.030 in placement, deal-ins 15% -> 12% of hands.
SLOW_PUSH = 0.4


class MasterBot(ExpertBot):
    """The Expert plus Monte Carlo search over the close discard choices."""

    name = "Classic master"

    def __init__(
        self,
        seat: int,
        seed: int = 0,
        samples: int = SAMPLES,
        top: int = TOP,
        calm: bool = True,
        pressed: bool = False,
        press_gain: float = PRESS_GAIN,
        placement: bool = False,
        push_scale: float = PUSH_SCALE,
        reader: bool = True,
        guard: bool = True,
        dama: float = 0.0,
        follow_up: bool = False,
        chase_live: int = 0,
        slow_push: float = SLOW_PUSH,
        pressure: float = PRESSURE,
        tenpai_push: float = 1.0,
        fitted_waits: bool = False,
        fitted_loss: bool = False,
        typical: float = TYPICAL_DANGER,
        call_search: bool = False,
        open_search: bool = False,
    ) -> None:
        super().__init__(seat, seed)
        self.rng = random.Random(seed)
        self.samples = samples
        self.top = top
        self.calm_search = calm  # search close discards while nobody threatens
        self.pressed_search = pressed  # search push or fold while someone threatens
        self.press_gain = press_gain
        self.placement = placement  # weigh all-last gains and losses by the placement they move
        self.push_scale = push_scale  # under pressure, points won count this much more than the Expert's
        self.reader = reader  # the fitted tenpai chance (master_defence) instead of the Expert's
        self.guard = guard  # while nobody threatens, trade a little width for a safer tile
        self.dama = dama  # while nobody threatens, a yaku'd tenpai this big (non-dealer) stays dama (0: off)
        self.follow_up = follow_up  # while nobody threatens, pon what speeds up a hand opened by yakuhai
        # Against a riichi, riichi only with at least this many live wait tiles (or a big hand);
        # otherwise the same tile dama, keeping the ability to fold (0: off).
        self.chase_live = chase_live
        # Under pressure, points won by a hand not yet tenpai count this much (1.0: off).
        self.slow_push = slow_push
        # The tenpai chance of an opponent at which danger starts to count (the Expert's 0.5).
        self.pressure = pressure
        # Under pressure, points won by a tenpai hand count this much more (1.0: off).
        self.tenpai_push = tenpai_push
        # The wait model and the deal-in costs refitted on real hands (master_defence).
        self.fitted_waits = fitted_waits
        self.fitted_loss = fitted_loss
        self.typical = typical  # deal-in chance of an average discard while pushing on
        # While nobody threatens, settle pon or pass over the same futures as the discards.
        self.call_search = call_search
        # Search the close discards of an open hand too (yaku-less completions score nothing).
        self.open_search = open_search
        self.searches = 0  # decisions settled by search (for benchmarks and tests)
        self.open_searches = 0  # ... of them, with an open hand
        self.call_searches = 0  # pon-or-pass decisions searched
        self._opps: list[Threat] = []
        self._shanten_of: dict[TileKind, int] = {}

    def decide(self, legal: LegalActions) -> Action:
        """The Expert's answer, except for calls while nobody threatens (a follow-up pon,
        or pon or pass settled by search)."""
        if any(isinstance(a, Pon) for a in legal) and winning_action(legal) is None:
            k = know(self.view)
            if not self._under_pressure(self._threats(k)):
                pon = self._follow_up_pon(k, legal) if self.follow_up else None
                if pon is not None:
                    return pon
                if self.call_search and self.samples > 0:
                    return self._searched_call(k, legal, super().decide(legal))
        return super().decide(legal)

    def _searched_call(self, k: Knowledge, legal: LegalActions, expert: Action) -> Action:
        """Pass, or each legal pon followed by the policy's discard, played over the same
        futures; the Expert's answer stands unless another beats it beyond the noise."""
        opps = self._opps
        w = situation(self.view, k.seat)
        per_turn = typical_danger(k, opps) * w.loss
        setup, futures = self._futures(k)
        options: list[tuple[Action, list[float], float]] = [
            (pass_or_default(legal), estimate(setup, list(k.hand), None, futures).utility(w.gain, per_turn), 0.0)
        ]
        for pon, after in self._pons_after(k, legal):
            outs = discard_options(after)
            kinds = [kind for kind in outs if kind != pon.kind]  # no kuikae
            if not kinds:
                continue
            kind = min(kinds, key=lambda x: (outs[x].shanten, -outs[x].ukeire, keep_value(after, x)))
            hand = list(after.hand)
            remove_kind(hand, kind, after.red_fives)
            opened = self._setup(after)
            opened.pool_size = setup.pool_size
            utility = estimate(opened, hand, kind, futures).utility(w.gain, per_turn)
            options.append((pon, utility, tile_risk(after, kind, opps) * w.loss))
        self.call_searches += 1
        first = next((o for o in options if o[0] == expert), options[0])
        chosen, best_gap = first, 0.0
        for option in options:
            if option is first:
                continue
            gap = beyond_noise(*paired_gap(option[1], first[1]), option[2] - first[2])
            if gap > best_gap:
                chosen, best_gap = option, gap
        return chosen[0]

    def _follow_up_pon(self, k: Knowledge, legal: LegalActions) -> Pon | None:
        """A pon that lowers shanten in a hand whose yaku is already an open yakuhai triplet
        (the Expert's plain calls take only the value tiles themselves)."""
        if not any(m.is_open and m.kind in k.value_kinds for m in k.melds) or not self.view.order:
            return None
        now = shanten(k.counts, k.meld_count)
        if now <= 0:
            return None
        for a, after in self._pons_after(k, legal):
            best = min((o.shanten for kind, o in discard_options(after).items() if kind != a.kind), default=now)
            if best < now:
                return a
        return None

    def _threats(self, k: Knowledge) -> list[Threat]:
        if not self.reader:
            self._opps = threats(self, k)
        else:
            self._opps = master_threats(self, k, self.fitted_waits, self.fitted_loss, self.typical)
        return self._opps

    def _under_pressure(self, opps: list[Threat]) -> bool:
        return any(o.tenpai >= self.pressure for o in opps)

    def _tenpai_push(self, k: Knowledge, t: Tenpai | None, riichi: bool, per_turn: float, w: Weights) -> float:
        if self.pressed and self.tenpai_push != 1.0:
            w = Weights(w.gain * self.tenpai_push, w.loss)
        return super()._tenpai_push(k, t, riichi, per_turn, w)

    def _calm_discard(self, k: Knowledge, legal: LegalActions, options: dict[TileKind, Option]) -> Candidate:
        """The Expert's plain-speed discard, unless a tile as fast and nearly as wide is
        clearly safer against an opponent who may be tenpai already (an open hand late)."""
        first = super()._calm_discard(k, legal, options)
        if first.action.riichi:
            return self._calm_dama(k, legal, first)
        if not self.guard or max((o.tenpai for o in self._opps), default=0.0) < GUARD_FLOOR:
            return first
        kind0 = kind_of(first.action.tile)
        o0 = options[kind0]
        loss = situation(self.view, k.seat).loss
        per_tile = UKEIRE_POINTS[min(o0.shanten, len(UKEIRE_POINTS) - 1)]
        risk0 = tile_risk(k, kind0, self._opps) * loss
        best_kind, best_gain = kind0, GUARD_MARGIN
        for kind in {kind_of(a.tile) for a in legal if isinstance(a, Discard) and not a.riichi}:
            o = options[kind]
            if kind == kind0 or o.shanten != o0.shanten:
                continue
            gain = risk0 - tile_risk(k, kind, self._opps) * loss - per_tile * max(o0.ukeire - o.ukeire, 0)
            if gain > best_gain:
                best_kind, best_gain = kind, gain
        if best_kind == kind0:
            return first
        o = options[best_kind]
        action = pick_tile(tiles_of_kind(legal, best_kind, False), k.red_fives, self.view.drawn)
        return Candidate(action, -25.0 * o.shanten + 0.5 * o.ukeire, 0.0, 0.0)

    def _calm_dama(self, k: Knowledge, legal: LegalActions, riichi: Candidate) -> Candidate:
        """Dama instead of the riichi when every wait has a yaku and the hand is big enough:
        opponents who do not feel threatened keep letting tiles go."""
        if self.dama <= 0:
            return riichi
        hand = list(k.hand)
        hand.remove(riichi.action.tile)
        t = tenpai_after(k, hand, own_counts(k))
        big = self.dama * (1.5 if k.seat_wind == EAST else 1.0)
        if t is None or t.dama_yaku_share < 1.0 or t.dama < big:
            return riichi
        kind = kind_of(riichi.action.tile)
        action = pick_tile(tiles_of_kind(legal, kind, False), k.red_fives, self.view.drawn)
        return replace(riichi, action=action)

    def _best_discard(
        self, k: Knowledge, legal: LegalActions, options: dict[TileKind, Option], opps: list[Threat], w: Weights
    ) -> Candidate:
        best = self._searched_discard(k, legal, options, opps, w)
        if best.action.riichi and self.chase_live > 0 and not self._chase_ok(k, best):
            action = pick_tile(tiles_of_kind(legal, kind_of(best.action.tile), False), k.red_fives, self.view.drawn)
            return replace(best, action=action)
        return best

    def _chase_ok(self, k: Knowledge, riichi: Candidate) -> bool:
        """Whether a riichi is worth declaring now: always when nobody else is in riichi,
        else only with a wide wait or a big hand (a riichi into a riichi cannot fold)."""
        if not any(self.view.riichi[s] for s in range(3) if s != k.seat):
            return True
        hand = list(k.hand)
        hand.remove(riichi.action.tile)
        t = tenpai_after(k, hand, own_counts(k))
        return t is None or t.live >= self.chase_live or t.riichi * RIICHI_BONUS >= CHASE_VALUE

    def _push(self, k: Knowledge, o: Option, value: float, per_turn: float, w: Weights) -> float:
        """The Expert's push value; under pressure a hand not yet tenpai may count its
        points won for less (``slow_push``): fold earlier with a slow, cheap hand."""
        if self.pressed and o.shanten >= 1 and self.slow_push != 1.0:
            w = Weights(w.gain * self.slow_push, w.loss)
        return super()._push(k, o, value, per_turn, w)

    def _searched_discard(
        self, k: Knowledge, legal: LegalActions, options: dict[TileKind, Option], opps: list[Threat], w: Weights
    ) -> Candidate:
        """The Expert's discard, or a close rival the search shows to be better."""
        w = self._weights(k, opps, w)
        expert = super()._best_discard(k, legal, options, opps, w)
        if (not k.closed and not self.open_search) or self.samples <= 0:
            return expert
        if not (self.pressed_search if self.pressed else self.calm_search):
            return expert
        plain = self._candidates(k, legal, options, opps, w)
        self._shanten_of = {kind: o.shanten for kind, o in options.items()}
        kinds = self._pressed_kinds(plain, expert, options) if self.pressed else self._searched_kinds(plain, expert)
        if len(kinds) < 2:
            return expert
        self.searches += 1
        self.open_searches += not k.closed
        setup, futures = self._futures(k)
        utility: dict[TileKind, list[float]] = {}
        if self.pressed:
            # Under pressure each future discard costs its own danger (genbutsu is free, a
            # live tile to a riichi is not), so pushing through dangerous draws is priced.
            risk = [tile_risk(k, kind, opps) * w.loss for kind in range(KIND_COUNT)]
            gain = w.gain / PUSH_GAIN * self.press_gain
            for kind in kinds:
                hand = list(k.hand)
                hand.remove(plain[kind].action.tile)
                utility[kind] = estimate(setup, hand, kind, futures, risk).utility(gain, 1.0)
        else:
            per_turn = typical_danger(k, opps) * w.loss
            for kind in kinds:
                hand = list(k.hand)
                hand.remove(plain[kind].action.tile)
                utility[kind] = estimate(setup, hand, kind, futures).utility(w.gain, per_turn)
        first = kinds[0]
        chosen = first
        best_gap = 0.0
        for kind in kinds[1:]:
            gap = self._gap(utility[kind], utility[first], plain[kind], plain[first])
            if gap > best_gap:
                chosen, best_gap = kind, gap
        if chosen == first:
            return expert
        return self._riichi_or_dama(k, legal, plain[chosen], opps, w)

    def _gap(self, mine: list[float], theirs: list[float], cand: Candidate, rival: Candidate) -> float:
        """How far ``cand`` beats ``rival`` beyond the search's own noise (<= 0: not shown)."""
        mean_mine = sum(mine) / len(mine)
        mean_theirs = sum(theirs) / len(theirs)
        gap, se = paired_gap(mine, theirs)
        # Folding is always possible: a push worth less than nothing is worth nothing.
        gap = max(mean_mine, 0.0) - max(mean_theirs, 0.0) if mean_mine <= 0 or mean_theirs <= 0 else gap
        return beyond_noise(gap, se, cand.risk - rival.risk)

    def _call(self, k: Knowledge, legal: LegalActions, opps: list[Threat], w: Weights) -> Action:
        return super()._call(k, legal, opps, self._weights(k, opps, w))

    def _weights(self, k: Knowledge, opps: list[Threat], w: Weights) -> Weights:
        """At all-last under pressure, the Expert's rough weights give way to placement."""
        if not self.pressed:
            return w
        if not self.placement or not all_last(k.view):
            return Weights(w.gain * self.push_scale, w.loss)
        gain, loss = placement_weights(k.view.scores, k.seat, opps)
        return Weights(gain * PUSH_GAIN * self.push_scale, loss)

    def _pressed_kinds(
        self, plain: dict[TileKind, Candidate], expert: Candidate, options: dict[TileKind, Option]
    ) -> list[TileKind]:
        """Under pressure: the Expert's choice, the fastest widest push and the next best
        by the Expert's value, at any shanten (push or fold is the question)."""
        first = kind_of(expert.action.tile)
        kinds = [first]
        push = min(plain, key=lambda kind: (options[kind].shanten, -options[kind].ukeire, -plain[kind].ev))
        if push not in kinds:
            kinds.append(push)
        for c in sorted(plain.values(), key=lambda c: -c.ev):
            kind = kind_of(c.action.tile)
            if len(kinds) >= self.top:
                break
            if kind not in kinds:
                kinds.append(kind)
        return kinds

    def _searched_kinds(self, plain: dict[TileKind, Candidate], expert: Candidate) -> list[TileKind]:
        """The Expert's choice and its closest rivals (by the Expert's own value)."""
        first = kind_of(expert.action.tile)
        ranked = sorted(plain.values(), key=lambda c: -c.ev)
        kinds = [first]
        # Only rivals as fast as the Expert's choice: the search's policy chases speed, not
        # value, so it misjudges a step back in shanten (measured: it lost win rate).
        speed = self._shanten_of.get(first)
        for c in ranked:
            kind = kind_of(c.action.tile)
            if kind in kinds or c.ev < ranked[0].ev - MARGIN or self._shanten_of.get(kind) != speed:
                continue
            kinds.append(kind)
            if len(kinds) >= self.top:
                break
        return kinds

    def _candidates(
        self, k: Knowledge, legal: LegalActions, options: dict[TileKind, Option], opps: list[Threat], w: Weights
    ) -> dict[TileKind, Candidate]:
        """Each kind's plain (non-riichi) discard valued as the Expert values it."""
        per_turn = typical_danger(k, opps) * w.loss
        groups: dict[TileKind, list[Discard]] = {}
        for a in legal:
            if isinstance(a, Discard) and not a.riichi:
                groups.setdefault(kind_of(a.tile), []).append(a)
        fastest = min(options[kind].shanten for kind in groups)
        own = own_counts(k)
        out: dict[TileKind, Candidate] = {}
        for kind, choices in groups.items():
            action = pick_tile(choices, k.red_fives, self.view.drawn)
            o = options[kind]
            risk = tile_risk(k, kind, opps) * w.loss
            if o.shanten == 0:
                hand = list(k.hand)
                hand.remove(action.tile)
                push = self._tenpai_push(k, tenpai_after(k, hand, own), False, per_turn, w)
            else:
                value = estimate_points(k, kind, is_red(action.tile, k.red_fives))
                value *= 0.45 ** (o.shanten - fastest)
                push = self._push(k, o, value, per_turn, w)
            tiebreak = -25.0 * o.shanten + 0.5 * o.ukeire - 3.0 * keep_value(k, kind)
            out[kind] = Candidate(action, max(push, 0.0) - risk + tiebreak, push, risk)
        return out

    def _riichi_or_dama(
        self, k: Knowledge, legal: LegalActions, plain: Candidate, opps: list[Threat], w: Weights
    ) -> Candidate:
        """Riichi with the chosen tile when the Expert would."""
        kind = kind_of(plain.action.tile)
        choices = [a for a in legal if isinstance(a, Discard) and a.riichi and kind_of(a.tile) == kind]
        if not choices:
            return plain
        action = pick_tile(choices, k.red_fives, self.view.drawn)
        hand = list(k.hand)
        hand.remove(action.tile)
        t = tenpai_after(k, hand, own_counts(k))
        cache: dict[Tile, Tenpai | None] = {action.tile: t, plain.action.tile: t}
        per_turn = typical_danger(k, opps) * w.loss
        push = self._tenpai_push(k, t, True, per_turn, w)
        riichi = Candidate(action, push - plain.risk, push, plain.risk)
        return riichi if self._prefer_riichi(k, plain, riichi, cache) else plain

    def _futures(self, k: Knowledge) -> tuple[Setup, list[list[Tile]]]:
        """This decision's search setup and the futures every candidate meets."""
        setup = self._setup(k)
        pool = unseen_tiles(k)
        setup.pool_size = len(pool)
        return setup, sample_futures(pool, self.samples, setup.horizon + 6, self.rng)

    def _setup(self, k: Knowledge) -> Setup:
        view = k.view
        assert view.rules is not None
        keep = [keep_value(k, kind) for kind in range(KIND_COUNT)]
        return Setup(
            melds=tuple(k.melds),
            kita=len(view.kita[k.seat]),
            river_kinds=frozenset(kind_of(r.tile) for r in view.rivers[k.seat]),
            unseen=k.unseen,
            keep=keep,
            ctx_tsumo=win_context(k, tsumo=True, riichi=k.closed),
            ctx_ron=win_context(k, tsumo=False, riichi=k.closed),
            rules=view.rules,
            horizon=max(1, int(turns_left(view))),
            pool_size=0,
            hazard=self.hazard,
            red_fives=k.red_fives,
        )


def beyond_noise(gap: float, se: float, extra_risk: float) -> float:
    """How far a searched rival beats the Expert's choice once its extra danger now, two
    standard errors of the paired gap and the policy's crudeness are paid (<= 0: keep it)."""
    return gap - extra_risk - CONFIDENCE * se - SWITCH_COST


def all_last(view: SeatView) -> bool:
    """Whether this hand is the match's last unless the dealer keeps the seat."""
    rules = view.rules
    if rules is None:
        return False
    last_round = SOUTH if rules.length == "east-south" else EAST
    return rules.length == "one-hand" or (view.round_wind == last_round and view.dealer == 2)


def placement(scores: Sequence[float], seat: int) -> int:
    """1-3: ties go to the earlier seat, as the match ranks them."""
    me = scores[seat]
    return 1 + sum(1 for s in range(3) if s != seat and (scores[s] > me or (scores[s] == me and s < seat)))


def placement_weights(scores: Sequence[int], seat: int, opps: list[Threat]) -> tuple[float, float]:
    """What a point won and a point lost are worth when the hand most likely ends the match:
    the placement a typical win of ours gains (against the hand ending otherwise: a draw or
    the threat's tsumo) and the placement a deal-in to the threat loses, each per point,
    scaled so that one place is ``PLACE_POINTS``."""
    threat = max(opps, key=lambda o: o.tenpai)
    others = [s for s in range(3) if s != seat]

    def moved(deltas: dict[int, float]) -> int:
        return placement([scores[s] + deltas.get(s, 0.0) for s in range(3)], seat)

    half = threat.loss / 2
    otherwise = 0.5 * moved({}) + 0.5 * moved(
        {threat.seat: threat.loss, **{s: -half for s in range(3) if s != threat.seat}}
    )
    win = TYPICAL_WIN
    mine = [moved({seat: win, s: -win}) for s in others]
    mine.append(moved({seat: win, **{s: -win / 2 for s in others}}))
    gained = otherwise - sum(mine) / len(mine)
    lost = moved({seat: -threat.loss, threat.seat: threat.loss}) - otherwise
    return max(FLOOR, gained * PLACE_POINTS / win), max(FLOOR, lost * PLACE_POINTS / threat.loss)


def unseen_tiles(k: Knowledge) -> list[Tile]:
    """The physical tiles the seat cannot see: opponents' hands and the wall."""
    view = k.view
    seen: set[Tile] = set(k.hand)
    for s in range(3):
        seen.update(r.tile for r in view.rivers[s] if not r.called)
        for m in view.melds[s]:
            seen.update(m.tiles)
        seen.update(view.kita[s])
    seen.update(view.dora_indicators)
    return [t for t in range(KIND_COUNT * 4) if t not in seen]
