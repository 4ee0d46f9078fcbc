"""The expected-value master: every discard priced in expected final placement points.

For a hand two shanten or closer, each legal discard (with and without riichi) is valued
by a dynamic program over the seat's remaining draws, with the real unseen counts:

* from the 13 tiles a discard leaves, every draw of an unseen kind either wins (scored
  exactly with the engine's ``score_win``, red fives, dora and kita included, cached per
  hand), improves the hand (the best discard after it is chosen by the same program, one
  step closer to tenpai) or goes straight back out;
* between two of its turns another seat may end the hand (``HazardModel``: a ron between
  the others, a tsumo, fitted by turn and riichi on the table); a tenpai hand that is not
  furiten may ron one of its waits from the others (fitted by live winning tiles);
* each later discard risks a deal-in: the chance each opponent is tenpai by turn
  (``TenpaiModel``), the chance a tile of the hand deals in given tenpai by its class
  (``DealInModel``) and what that ron pays; at every later turn the program may instead
  fold (the safest tiles of the hand, their own deal-in risk, noten at the draw);
* the wall running out pays noten money by the fitted tenpai chances at the draw.

Every outcome (our win of X from Y, a deal-in to Y, another seat's win, the draw with
these tenpai seats) is turned into the expected final placement points of the match
(``PlacementModel``: scores after it, hands still to play, uma), so all-last, the bust
and "a cheap win ends the match first" are all in one number.  The master plays the
discard with the highest one; a riichi discard cannot fold later and pays its deposit.

Further from tenpai the Expert's efficiency decides, unless an opponent threatens (50%
likely tenpai or more): then the far hand is priced too, as a hand that will not win, so
each tile is worth its own deal-in risk.  Calls, kita, kans and nine terminals are the
Expert's.
The work is bounded by hands expanded, not seconds (deterministic on any machine):
``budget`` caps the hands expanded per decision, and a 2-shanten hand follows only the
least useful discard after each improving draw (``WIDE``); a candidate cut short by the
budget is not priced.  ``margin``: the Expert's tile stands unless another beats it by that
much; ``max_shanten``: the furthest hand priced while nobody threatens.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass

from sanma.bots.defence import safe_kinds
from sanma.bots.ev_models import Models, danger_class, models
from sanma.bots.expert import PRESSURE, ExpertBot
from sanma.bots.heuristics import (
    Knowledge,
    dora_counts,
    keep_value,
    know,
    pick_tile,
    tiles_of_kind,
    win_context,
    winning_action,
)
from sanma.bots.master_defence import recent_tsumogiri
from sanma.engine.actions import Action, Discard
from sanma.engine.errors import SanmaError
from sanma.engine.events import Event, HandStarted
from sanma.engine.kyoku import LegalActions
from sanma.engine.settlement import noten_deltas
from sanma.engine.shanten import shanten, ukeire, waits
from sanma.engine.tiles import EAST, KIND_COUNT, NORTH, Tile, TileKind, is_red, kind_of

BUDGET = 500  # hand states expanded per decision
# Placement points (1.0 = 1,000 points of final score) the program's best must beat the
# Expert's discard by: smaller edges are within the models' roughness.
MARGIN = 0.1
MAX_SHANTEN = 2  # the program prices hands this close to tenpai; further, the Expert decides
URA_BONUS = 1.15  # a riichi win's ura and ippatsu on top of the scored hand
FOLD_DEPTH = 3  # folding lets go the safest few tiles: their average risk
WIDE = 1  # after an improving draw from 2-shanten, the discards looked at

Counts = bytes  # 34 kinds, one byte each


@dataclass(frozen=True, slots=True)
class Opponent:
    """One opponent as the models see it now."""

    seat: int
    riichi: bool
    tenpai: tuple[float, ...]  # chance it is tenpai at each of our coming turns
    loss: float  # what its ron costs
    safe: frozenset[TileKind]
    at_draw: float  # chance it is tenpai when the wall runs out


class Table:
    """What every outcome of this hand is worth in expected final placement points."""

    def __init__(self, k: Knowledge, m: Models) -> None:
        view = k.view
        rules = view.rules
        assert rules is not None
        self.seat, self.m = k.seat, m
        self.scores = view.scores
        self.dealer = view.dealer
        self.pot = view.deposits * 1000
        self.uma = (0, 0, 0) if rules.length == "one-hand" else rules.uma
        self.back = rules.return_points
        index = (0 if view.round_wind == EAST else 3) + view.dealer
        rounds = 6 if rules.length == "east-south" else 3 if rules.length == "east" else 1
        self.turns_left = max(1, rounds - index)
        self._cache: dict[tuple[tuple[int, int, int], bool], float] = {}

    def hands_after(self, dealer_keeps: bool) -> float:
        p = self.m.placement
        if dealer_keeps:
            return max(0.0, p.hands_after(self.turns_left) - 1.0)
        return p.hands_after(self.turns_left - 1)

    def util(self, deltas: tuple[int, int, int], dealer_keeps: bool) -> float:
        """Expected final placement points of our seat after the hand moves ``deltas``."""
        key = (deltas, dealer_keeps)
        got = self._cache.get(key)
        if got is not None:
            return got
        scores = (self.scores[0] + deltas[0], self.scores[1] + deltas[1], self.scores[2] + deltas[2])
        hands = 0.0 if min(scores) < 0 else self.hands_after(dealer_keeps)
        value = self.m.placement.value(scores, self.seat, hands, self.uma, self.back)
        self._cache[key] = value
        return value

    def now(self) -> float:
        """The hand's value before anything happens (its start: nothing moved yet)."""
        scores = (self.scores[0], self.scores[1], self.scores[2])
        return self.m.placement.value(
            scores, self.seat, self.m.placement.hands_after(self.turns_left), self.uma, self.back
        )

    def deltas(self, moves: Iterable[tuple[int, int]]) -> tuple[int, int, int]:
        d = [0, 0, 0]
        for seat, points in moves:
            d[seat] += points
        return (d[0], d[1], d[2])


class Outcomes:
    """The utilities of one decision's outcomes, for a riichi (deposit paid) or not."""

    def __init__(self, table: Table, opps: list[Opponent], riichi: bool) -> None:
        self.t = table
        self.opps = opps
        me = table.seat
        self.stake = 1000 if riichi else 0  # our deposit, paid now, won back by a win
        pot = table.pot + self.stake
        self.pot = pot
        self.deal_in = [
            table.util(table.deltas([(me, -int(o.loss) - self.stake), (o.seat, int(o.loss) + pot)]), keeps)
            for o in opps
            for keeps in (o.seat == table.dealer,)
        ]
        self.other = self._other_end()
        self.draw = {mine: self._draw(mine) for mine in (True, False)}

    def _other_end(self) -> float:
        """Another seat's win, averaged over who (the two opponents) and how (tsumo or ron)."""
        t, me = self.t, self.t.seat
        share = t.m.hazard.other_tsumo_share
        total = 0.0
        for o in self.opps:
            third = next(x.seat for x in self.opps if x.seat != o.seat)
            cost_me = int(t.m.hazard.cost_of_other_tsumo(me == t.dealer))
            cost_third = int(t.m.hazard.cost_of_other_tsumo(third == t.dealer))
            keeps = o.seat == t.dealer
            won = cost_me + cost_third + self.pot
            tsumo = t.util(t.deltas([(me, -cost_me - self.stake), (third, -cost_third), (o.seat, won)]), keeps)
            ron = t.util(t.deltas([(me, -self.stake), (third, -int(o.loss)), (o.seat, int(o.loss) + self.pot)]), keeps)
            total += share * tsumo + (1 - share) * ron
        return total / len(self.opps)

    def _draw(self, mine: bool) -> float:
        """The exhaustive draw with us tenpai (``mine``) or not, over the others' chances."""
        t, me = self.t, self.t.seat
        a, b = self.opps
        total = 0.0
        for ta in (True, False):
            for tb in (True, False):
                p = (a.at_draw if ta else 1 - a.at_draw) * (b.at_draw if tb else 1 - b.at_draw)
                tenpai = {s for s, on in ((me, mine), (a.seat, ta), (b.seat, tb)) if on}
                d = list(noten_deltas(tenpai))
                d[me] -= self.stake
                total += p * t.util((d[0], d[1], d[2]), t.dealer in tenpai)
        return total

    def ron_win(self, points: int) -> float:
        t, me = self.t, self.t.seat
        keeps = me == t.dealer
        return sum(
            t.util(t.deltas([(me, points + self.pot - self.stake), (o.seat, -points)]), keeps) for o in self.opps
        ) / len(self.opps)

    def tsumo_win(self, dealer_pays: int, other_pays: int) -> float:
        t, me = self.t, self.t.seat
        moves = [(me, self.pot - self.stake)]
        for o in self.opps:
            pay = dealer_pays if o.seat == t.dealer else other_pays
            moves += [(o.seat, -pay), (me, pay)]
        return t.util(t.deltas(moves), me == t.dealer)


@dataclass(slots=True)
class Turn:
    """The per-turn hazards of the coming turns (index 0: the turn after the decision)."""

    other_end: list[float]
    other_end_riichi: list[float]  # the same while we are in riichi (the others fold more)
    push_risk: list[float]  # chance a pushed discard deals in
    push_util: list[float]  # its utility given it deals in
    fold_risk: list[float]
    fold_util: list[float]


class Program:
    """The dynamic program of one decision over the seat's own hand."""

    def __init__(self, bot: EVBot, k: Knowledge, legal_riichi: bool, budget: int) -> None:
        self.bot, self.k = bot, k
        self.m = models()
        view = k.view
        self.melds = k.meld_count
        self.closed = k.closed
        self.table = Table(k, self.m)
        self.opps = self._opponents(bot, k)
        self.base = {False: Outcomes(self.table, self.opps, False)}
        if legal_riichi or k.closed:  # a riichi now, or at a later tenpai
            self.base[True] = Outcomes(self.table, self.opps, True)
        self.draws = max(0, view.live_left // 3)
        self.pool = [max(0, u) for u in k.unseen]
        self.pool_total = max(1, sum(self.pool))
        self.root = bytes(k.counts)
        self.river = {kind_of(r.tile) for r in view.rivers[k.seat]}
        self.riichi_tables = sum(o.riichi for o in self.opps)
        self.turns = self._turns()
        self.budget = budget
        self.expanded = 0
        self.cut = False  # whether the budget left a hand of the current candidate unexpanded
        # (hand, riichi) -> (value after our discard survived, value before the discard), by draws left
        self.memo: dict[tuple[Counts, bool], tuple[list[float], list[float]]] = {}

    # -- the opponents and the turns ------------------------------------------------------

    def _opponents(self, bot: EVBot, k: Knowledge) -> list[Opponent]:
        view, m = k.view, self.m
        dora = dora_counts(view)
        out = []
        for s in range(3):
            if s == k.seat:
                continue
            riichi = bool(view.riichi[s])
            calls = sum(1 for meld in view.melds[s] if meld.is_open)
            discards = len(view.rivers[s])
            tg = recent_tsumogiri(bot, s)
            chances = tuple(
                m.tenpai.chance(riichi, calls, discards + i, tg) for i in range(max(1, view.live_left // 3 + 2))
            )
            shown = sum(dora[meld.kind] * len(meld.tiles) + sum(is_red(t, k.red_fives) for t in meld.tiles)
                        for meld in view.melds[s] if meld.is_open)  # fmt: skip
            shown += len(view.kita[s]) * (1 + dora[NORTH])
            loss = m.dealin.value(riichi, calls > 0, s == view.dealer, shown)
            at_draw = m.tenpai.at_exhaustive_draw(riichi, calls)
            out.append(Opponent(s, riichi, chances, loss, safe_kinds(bot, s), at_draw))
        return out

    def tile_risk(self, kind: TileKind, turn: int) -> tuple[float, float]:
        """(chance ``kind`` deals in at ``turn``, that chance times the deal-in utility)."""
        p = u = 0.0
        for o, util in zip(self.opps, self.base[False].deal_in, strict=True):
            q = o.tenpai[min(turn, len(o.tenpai) - 1)] * self.m.dealin.chance(
                danger_class(self.k, kind, o.safe), o.riichi, self.k.dora[kind] > 0
            )
            p += q
            u += q * util
        return p, u

    def _turns(self) -> Turn:
        kinds = [kind for kind in range(KIND_COUNT) if self.k.counts[kind]]
        other, other_r, pr, pu, fr, fu = [], [], [], [], [], []
        mine = len(self.k.view.rivers[self.k.seat])
        for i in range(self.draws + 2):
            other.append(self.m.hazard.other_end(mine + i + 1, self.riichi_tables))
            other_r.append(self.m.hazard.other_end(mine + i + 1, self.riichi_tables, mine=True))
            risks = sorted((self.tile_risk(kind, i) for kind in kinds), key=lambda r: r[0])
            n = len(risks)
            pr.append(sum(r[0] for r in risks) / n)
            pu.append(sum(r[1] for r in risks) / n)
            safest = risks[: min(FOLD_DEPTH, n)]
            fr.append(sum(r[0] for r in safest) / len(safest))
            fu.append(sum(r[1] for r in safest) / len(safest))
        return Turn(other, other_r, pr, pu, fr, fu)

    # -- the fold ---------------------------------------------------------------------------

    def fold_values(self, riichi: bool) -> list[float]:
        """Value of folding with ``t`` draws left, before the discard of that turn."""
        out = self.base[riichi]
        tn = self.turns
        after = out.draw[False]  # t = 0: the wall ran out, noten
        values = [(1 - tn.fold_risk[self.draws]) * after + tn.fold_util[self.draws]]
        for t in range(1, self.draws + 1):
            i = self.draws - t
            after = tn.other_end[i] * out.other + (1 - tn.other_end[i]) * values[t - 1]
            values.append((1 - tn.fold_risk[i]) * after + tn.fold_util[i])
        return values

    # -- wins -------------------------------------------------------------------------------

    def win_values(self, hand: Counts, riichi: bool) -> tuple[dict[TileKind, float], dict[TileKind, float], int]:
        """For a tenpai 13-tile ``hand``: tsumo utility and ron utility by winning kind
        (only kinds that really win: a yaku, scored), and the live count of those."""
        k = self.k
        tsumo: dict[TileKind, float] = {}
        ron: dict[TileKind, float] = {}
        live = 0
        out = self.base[riichi]
        for kind in self.bot.waits_of(hand, self.melds):
            if self.pool_of(hand, kind) <= 0:
                continue
            for is_tsumo in (True, False):
                score = self.bot.score(k, hand, kind, is_tsumo, riichi)
                if score is None:
                    continue
                total, dealer_pays, other_pays = score
                bonus = URA_BONUS if riichi else 1.0
                if is_tsumo:
                    tsumo[kind] = out.tsumo_win(int(dealer_pays * bonus), int(other_pays * bonus))
                else:
                    ron[kind] = out.ron_win(int(total * bonus))
            if kind in tsumo or kind in ron:
                live += self.pool_of(hand, kind)
        return tsumo, ron, live

    def pool_of(self, hand: Counts, kind: TileKind) -> int:
        """Unseen copies of ``kind`` for a hand on the way (copies kept since are ours)."""
        return max(0, self.pool[kind] - max(0, hand[kind] - self.root[kind]))

    # -- the program ------------------------------------------------------------------------

    def values(self, hand: Counts, riichi: bool) -> tuple[list[float], list[float]]:
        """Playing ``hand`` on, by draws left (the index): its value just after our discard
        survived, and before that discard (the better of pushing and folding at every turn;
        a riichi cannot fold)."""
        key = (hand, riichi)
        got = self.memo.get(key)
        if got is not None:
            return got
        self.expanded += 1
        s = shanten(list(hand), self.melds)
        out = self.base[riichi]
        tn = self.turns
        fold = self.fold_values(riichi) if not riichi else None
        tsumo: dict[TileKind, float] = {}
        ron: dict[TileKind, float] = {}
        live = 0
        moves: list[tuple[int, Counts]] = []  # (copies, the best hand after the draw) per improving kind
        if s == 0:
            tsumo, ron, live = self.win_values(hand, riichi)
        if not riichi and 0 < s <= self.bot.max_shanten:
            if self.expanded <= self.budget:
                moves = self._improvements(hand, s)
            else:
                self.cut = True
        furiten = bool(set(ron) & self.river)
        ron_p = self.m.hazard.ron_chance(live, riichi) if ron and not furiten else 0.0
        ron_value = sum(ron.values()) / len(ron) if ron else 0.0
        win_p = sum(self.pool_of(hand, kind) for kind in tsumo) / self.pool_total
        win_value = sum(self.pool_of(hand, kind) * v for kind, v in tsumo.items()) / self.pool_total
        # A closed tenpai may declare riichi with any later discard (not at the last one).
        riichi_later = self.values(hand, True)[1] if s == 0 and not riichi and self.closed and live else None
        after = out.draw[s == 0]  # t = 0: the wall ran out
        afters = [after]
        before = [self._before(after, fold, 0, self.draws)]
        nexts = [(copies / self.pool_total, self.memo[(nxt, False)][1]) for copies, nxt in moves]
        stay = 1.0 - win_p - sum(p for p, _ in nexts)
        for t in range(1, self.draws + 1):
            i = self.draws - t  # turns from now
            draw = win_value + sum(p * b[t - 1] for p, b in nexts) + stay * before[t - 1]
            alive = ron_p * ron_value + (1 - ron_p) * draw
            h = tn.other_end_riichi[i] if riichi else tn.other_end[i]
            after = h * out.other + (1 - h) * alive
            afters.append(after)
            b = self._before(after, fold, t, i)
            before.append(max(b, riichi_later[t]) if riichi_later is not None else b)
        self.memo[key] = (afters, before)
        return afters, before

    def _before(self, push: float, fold: list[float] | None, t: int, i: int) -> float:
        """The discard of turn ``i``: pushed (average risk) or, when it is worth more, the fold."""
        tn = self.turns
        pushed = (1 - tn.push_risk[i]) * push + tn.push_util[i]
        return pushed if fold is None else max(pushed, fold[t])

    def _improvements(self, hand: Counts, s: int) -> list[tuple[int, Counts]]:
        """For each improving draw: its unseen copies and the best hand after it (one
        step closer) by the program's own value, among the ``WIDE`` least useful discards
        at 2-shanten (all of them closer to tenpai)."""
        out = []
        for draw, options in self.bot.steps_of(self.k, hand, self.melds, s):
            copies = self.pool_of(hand, draw)
            if copies <= 0:
                continue
            best: Counts | None = None
            best_value = -1e18
            for h in options[: (WIDE if s >= 2 else len(options))]:
                if self.expanded >= self.budget and (h, False) not in self.memo:
                    self.cut = True
                    continue
                v = self.values(h, False)[1][-1]
                if v > best_value:
                    best, best_value = h, v
            if best is not None:
                out.append((copies, best))
        return out

    def root_value(self, kind: TileKind, riichi: bool) -> float:
        """The discard of ``kind`` now (with riichi or not): its own risk, then the hand it leaves."""
        hand = bytearray(self.root)
        hand[kind] -= 1
        p, u = self.tile_risk(kind, 0)  # a ron on the riichi tile takes no deposit: close enough
        after = self.values(bytes(hand), riichi)[0][self.draws]
        return (1 - p) * after + u


class EVBot(ExpertBot):
    """Mahjong master: the Expert's play, with every discard of a hand two shanten or
    closer priced by the expected-value program."""

    name = "Mahjong master"

    def __init__(
        self, seat: int, seed: int = 0, budget: int = BUDGET, margin: float = MARGIN, max_shanten: int = MAX_SHANTEN
    ) -> None:
        super().__init__(seat, seed)
        self.budget = budget
        self.margin = margin
        self.max_shanten = max_shanten
        self._scores: dict[tuple[object, ...], tuple[int, int, int] | None] = {}
        # The hand's structure, the same at every decision of a hand: waits of tenpai hands,
        # and for a hand short of tenpai the hands one step closer after each improving draw.
        self._waits: dict[tuple[Counts, int], tuple[TileKind, ...]] = {}
        self._steps: dict[tuple[Counts, int], list[tuple[TileKind, list[Counts]]]] = {}
        self.last_values: dict[Action, float] = {}  # the priced actions of the last decision

    def observe(self, event: Event) -> None:
        """Fold the event in; a new hand forgets the cached scores."""
        super().observe(event)
        if isinstance(event, HandStarted):
            self._scores.clear()
            self._waits.clear()
            self._steps.clear()

    def waits_of(self, hand: Counts, melds: int) -> tuple[TileKind, ...]:
        """The waits of a 13-tile ``hand`` (cached for the hand)."""
        key = (hand, melds)
        got = self._waits.get(key)
        if got is None:
            got = self._waits[key] = waits(list(hand), melds)
        return got

    def steps_of(self, k: Knowledge, hand: Counts, melds: int, s: int) -> list[tuple[TileKind, list[Counts]]]:
        """For each improving draw of ``hand`` (``s`` shanten), the hands one step closer
        after it, the least useful discard first (cached for the hand)."""
        key = (hand, melds)
        got = self._steps.get(key)
        if got is not None:
            return got
        counts = list(hand)
        out = []
        for draw in ukeire(counts, melds):
            counts[draw] += 1
            options = []
            for d in range(KIND_COUNT):
                if counts[d] and d != draw:
                    counts[d] -= 1
                    if shanten(counts, melds) < s:
                        nxt = bytearray(hand)
                        nxt[draw] += 1
                        nxt[d] -= 1
                        options.append((keep_value(k, d), d, bytes(nxt)))
                    counts[d] += 1
            counts[draw] -= 1
            if options:
                options.sort()
                out.append((draw, [h for _, _, h in options]))
        self._steps[key] = out
        return out

    def decide(self, legal: LegalActions) -> Action:
        """The Expert's answer, unless the program prices another discard higher."""
        expert = super().decide(legal)
        self.last_values = {}
        if not isinstance(expert, Discard) or winning_action(legal) is not None:
            return expert
        values = self.price(legal, expert)
        if not values:
            return expert
        self.last_values = values
        mine = priced_as(expert, values)
        best = max(values, key=lambda a: (values[a], a == mine))
        if mine is not None and values[best] - values[mine] < self.margin:
            return expert  # the program's edge is within its own roughness: the Expert's tile
        return best

    def price(self, legal: LegalActions, expert: Action | None = None) -> dict[Action, float]:
        """Expected final placement points of each legal discard, when the hand is close
        enough to tenpai or an opponent threatens (a far hand then only defends: each tile
        is its own risk); else empty.  One physical tile stands for each kind.  The
        ``expert`` discard is priced first; a candidate whose program ran out of budget is
        left unpriced (its value would be cut short), and when that is the Expert's own
        discard nothing is priced."""
        if self.view.riichi[self.seat]:
            return {}
        k = know(self.view)
        best = min((shanten(_minus(k.counts, kind_of(a.tile)), k.meld_count) for a in legal if isinstance(a, Discard)),
                   default=9)  # fmt: skip
        riichi_legal = any(isinstance(a, Discard) and a.riichi for a in legal)
        program = Program(self, k, riichi_legal, self.budget)
        if best > self.max_shanten and not any(o.tenpai[0] >= PRESSURE for o in program.opps):
            return {}  # far from tenpai and nobody threatens: plain efficiency (the Expert's)
        cands = sorted({(kind_of(a.tile), a.riichi) for a in legal if isinstance(a, Discard)})
        lead = (kind_of(expert.tile), expert.riichi) if isinstance(expert, Discard) else None
        cands.sort(key=lambda c: (c != lead, shanten(_minus(k.counts, c[0]), k.meld_count)))
        out: dict[Action, float] = {}
        for kind, riichi in cands:
            action = pick_tile(tiles_of_kind(legal, kind, riichi), k.red_fives, self.view.drawn)
            program.cut = False
            value = program.root_value(kind, riichi)
            if program.cut and (kind, riichi) == lead:
                return {}  # the Expert's own tile could not be priced in full: no fair comparison
            if not program.cut:
                out[action] = value
        return out

    def score(
        self, k: Knowledge, hand: Counts, win: TileKind, tsumo: bool, riichi: bool
    ) -> tuple[int, int, int] | None:
        """(ron total, a dealer's tsumo share, a non-dealer's tsumo share) of ``hand`` winning
        on ``win``, or ``None`` without a yaku.  Cached for the hand."""
        view = k.view
        key = (hand, win, tsumo, riichi, len(view.kita[k.seat]), len(view.dora_indicators), k.meld_count)
        if key in self._scores:
            return self._scores[key]
        tiles = _physical(hand, k.hand)
        win_tile = _free(win, tiles)
        rules = view.rules
        assert rules is not None
        result: tuple[int, int, int] | None = None
        with contextlib.suppress(SanmaError):
            from sanma.engine.scoring import score_win

            s = score_win([*tiles, win_tile], win_tile, k.melds, win_context(k, tsumo=tsumo, riichi=riichi), rules)
            pay = s.payments
            result = (s.total, pay.dealer, pay.non_dealer) if tsumo else (s.total, 0, 0)
        self._scores[key] = result
        return result


def priced_as(action: Action, values: dict[Action, float]) -> Action | None:
    """The priced action that stands for ``action`` (a discard of the same kind and riichi)."""
    if action in values:
        return action
    if isinstance(action, Discard):
        for a in values:
            if isinstance(a, Discard) and a.riichi == action.riichi and kind_of(a.tile) == kind_of(action.tile):
                return a
    return None


def _minus(counts: list[int], kind: TileKind) -> list[int]:
    out = counts[:]
    out[kind] -= 1
    return out


def _physical(hand: Counts, held: list[Tile]) -> list[Tile]:
    """Physical tiles for ``hand``: the seat's own copies first (red fives kept), then free ones."""
    out: list[Tile] = []
    by_kind: dict[TileKind, list[Tile]] = {}
    for t in held:
        by_kind.setdefault(kind_of(t), []).append(t)
    for kind, n in enumerate(hand):
        if not n:
            continue
        own = by_kind.get(kind, [])[:n]
        out += own
        for copy in (1, 2, 3, 0):
            if len(own) >= n:
                break
            tile = kind * 4 + copy
            if tile not in own:
                own.append(tile)
                out.append(tile)
    return out


def _free(kind: TileKind, tiles: list[Tile]) -> Tile:
    for copy in (1, 2, 3, 0):
        tile = kind * 4 + copy
        if tile not in tiles:
            return tile
    raise SanmaError(f"no free copy of kind {kind}")


def one_shanten(seat: int, seed: int = 0) -> EVBot:
    """The EV master pricing hands one shanten or closer only (an A/B variant:
    ``py:sanma.bots.ev:one_shanten``); 2-shanten hands are the Expert's."""
    return EVBot(seat, seed, max_shanten=1)
