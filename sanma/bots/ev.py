"""The expected-value master: every discard priced in expected final placement points.

For a hand two shanten or closer, each legal discard (with and without riichi) is valued
by a dynamic program over the seat's remaining draws, with the real unseen counts:

* from the 13 tiles a discard leaves, every draw of an unseen kind either wins (scored
  exactly with the engine's ``score_counts``, red fives, dora and kita included, cached
  between two events), improves the hand (the best discard after it is chosen by the same program, one
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

The program decides only when it matters more than speed: when an opponent threatens (50%
likely tenpai or more) or in the match's last dealer turn; every other decision is the
Expert's plain speed, which the program's own choices there lost to.  Further from tenpai,
under threat, the far hand is priced as a hand that will not win, so each tile is worth its
own deal-in risk.  Nine terminals are the Expert's.

"The Expert's answer" below is ``EVBot.base``: the level master (``sanma.bots.master``)
gives the learned policy's answer there, and the program overrides it in the same places.

Calls, kita and kans are priced by the same program: pass is the hand as it stands, a pon
the hand after it and its best discard, a kita or a kan the hand it leaves with the
replacement draw on top of our own draws (against every discard, which is "kita later").
A hand after such an action is compared only when it is on the root's side of the depth
followed (beyond it a hand never improves in the program).

The work is bounded by hands expanded, not seconds (deterministic on any machine):
``budget`` caps the hands expanded per program, and a 2-shanten hand follows only the
least useful discard after each improving draw (``WIDE``); a candidate cut short by the
budget is not priced.  ``margin``: the Expert's answer stands unless another beats it by
that much; ``max_shanten``: the furthest hand priced while nobody threatens.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from sanma.bots.defence import recent_tsumogiri, safe_kinds
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
from sanma.engine.actions import Action, Discard, Kan, Kita, Pass, Pon
from sanma.engine.context import WinContext
from sanma.engine.errors import SanmaError
from sanma.engine.events import Event
from sanma.engine.hand import Meld, MeldType
from sanma.engine.kyoku import LegalActions
from sanma.engine.scoring import score_counts
from sanma.engine.settlement import noten_deltas
from sanma.engine.shanten import shanten, ukeire, waits
from sanma.engine.tiles import EAST, KIND_COUNT, NORTH, RED_TILES, Tile, TileKind, is_red, kind_of

BUDGET = 500  # hand states expanded per decision
# Placement points (1.0 = 1,000 points of final score) the program's best must beat the
# Expert's answer by.  Pricing every near hand, 0.1 overruled the Expert in a quarter of
# the priced decisions (median edge 0.6) and 0.5 was used; with the calm decisions left to
# the Expert, 0.25 placed 0.040 +- 0.037 better than 0.5 on the same 600 East walls, 0.1 and
# 0.0 about as well (docs/bots.md).
MARGIN = 0.25
# Leave every decision nobody threatens to the Expert, but in the match's last dealer turns
# (where placement, not speed, decides): pricing those decisions too lost hands to the
# Expert's plain speed (win 23-29% of hands against 30-34%), while the calm master wins as
# often as the Experts and deals in less; 0 or 2 last turns placed no better (docs/bots.md).
LAST_TURNS = 1
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

    def __init__(
        self,
        bot: EVBot,
        k: Knowledge,
        legal_riichi: bool,
        budget: int,
        *,
        kita: int | None = None,
    ) -> None:
        self.bot, self.k = bot, k
        self.m = models()
        view = k.view
        # A hypothetical hand (after a call, a kita or a kan) brings its own melds in ``k``
        # and its own kita count here; ``depth`` is the furthest shanten whose improving
        # draws are followed (the bot's ``max_shanten``).
        self.kita = len(view.kita[k.seat]) if kita is None else kita
        self.depth = bot.max_shanten
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
            # A later pushed discard risks the average of the hand's own kinds (the drawn
            # tile's risk, unseen kinds by their copies, placed no better: docs/bots.md).
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
                score = self.bot.score(k, hand, kind, is_tsumo, riichi, self.kita)
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
        moves: list[tuple[TileKind, int, Counts]] = []  # (kind, copies, the best hand after it) per improving draw
        if s == 0:
            tsumo, ron, live = self.win_values(hand, riichi)
        if not riichi and 0 < s <= self.depth:
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
        nexts = [(copies / self.pool_total, self.memo[(nxt, False)][1]) for _, copies, nxt in moves]
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

    def _improvements(self, hand: Counts, s: int) -> list[tuple[TileKind, int, Counts]]:
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
                out.append((draw, copies, best))
        return out

    def draw_value(self) -> float:
        """The 13-tile root after a kita or a kan: the replacement draw comes now, on top of
        our own draws.  A winning draw is a tsumo, an improving one keeps the best hand it
        makes, any other goes straight out with its own deal-in risk (not the hand's average:
        the root's discards are priced by their own tile too)."""
        hand, t = self.root, self.draws
        afters, _ = self.values(hand, False)
        s = shanten(list(hand), self.melds)
        tsumo = self.win_values(hand, False)[0] if s == 0 else {}
        moved = {}
        if 0 < s <= self.depth:
            moved = {kind: self.memo[(nxt, False)][1][t] for kind, _, nxt in self._improvements(hand, s)}
        riichi = self.memo.get((hand, True))
        total = 0.0
        for kind in range(KIND_COUNT):
            n = self.pool_of(hand, kind)
            if n <= 0:
                continue
            if kind in tsumo:
                value = tsumo[kind]
            elif kind in moved:
                value = moved[kind]
            else:
                p, u = self.tile_risk(kind, 0)
                value = (1 - p) * afters[t] + u
                if riichi is not None:  # a closed tenpai may let it go with riichi
                    value = max(value, (1 - p) * riichi[0][t] + u)
            total += n / self.pool_total * value
        return total

    def pass_value(self) -> float:
        """The 13-tile root left as it is (a call passed): the value after a discard."""
        return self.values(self.root, False)[0][self.draws]

    def best_root_value(self, barred: TileKind | None) -> float | None:
        """The best discard from the root (after a pon), ``barred`` excepted; ``None`` when
        the budget cut every candidate short."""
        best: float | None = None
        for kind in range(KIND_COUNT):
            if not self.root[kind] or kind == barred:
                continue
            self.cut = False
            value = self.root_value(kind, False)
            if not self.cut and (best is None or value > best):
                best = value
        return best

    def root_value(self, kind: TileKind, riichi: bool) -> float:
        """The discard of ``kind`` now (with riichi or not): its own risk, then the hand it leaves."""
        hand = bytearray(self.root)
        hand[kind] -= 1
        p, u = self.tile_risk(kind, 0)  # a ron on the riichi tile takes no deposit: close enough
        after = self.values(bytes(hand), riichi)[0][self.draws]
        return (1 - p) * after + u


class EVBot(ExpertBot):
    """The expected-value master (the level master until session 20): the Expert's play, with
    every discard of a hand two shanten or closer priced by the expected-value program.  The
    level master (``sanma.bots.master.LearnedMaster``) is this with the policy's answer as
    the base (``base``)."""

    name = "Mahjong master (expected value)"

    def __init__(
        self,
        seat: int,
        seed: int = 0,
        budget: int = BUDGET,
        margin: float = MARGIN,
        max_shanten: int = MAX_SHANTEN,
        threat: float = PRESSURE,
    ) -> None:
        super().__init__(seat, seed)
        self.budget = budget
        # How likely an opponent's tenpai must be for it to threaten: the program decides at
        # all (before the last dealer turns), and the far hand is priced as one that will not win.
        self.threat = threat
        self.margin = margin
        self.max_shanten = max_shanten
        self._scores: dict[tuple[object, ...], tuple[int, int, int] | None] = {}
        self._contexts: dict[tuple[bool, bool, int], WinContext] = {}
        # The hand's structure, the same at every decision of a hand: waits of tenpai hands,
        # and for a hand short of tenpai the hands one step closer after each improving draw.
        self._waits: dict[tuple[Counts, int], tuple[TileKind, ...]] = {}
        self._steps: dict[tuple[Counts, int], list[tuple[TileKind, list[Counts]]]] = {}
        self.last_values: dict[Action, float] = {}  # the priced actions of the last decision
        self.last_base: Action | None = None  # the base answer to the last decision

    def observe(self, event: Event) -> None:
        """Fold the event in and forget the cached scores, waits and steps: they live between
        two events only, so an answer never depends on what the bot was asked earlier (the
        steps are ordered by what the seat sees, the scores by the table's state; kept over a
        hand they changed 35 of 22,516 answers on real games)."""
        super().observe(event)
        self._scores.clear()
        self._contexts.clear()
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

    def base(self, legal: LegalActions) -> Action:
        """The answer the program must beat by ``margin``: the Expert's here, the policy's in
        the level master (``sanma.bots.master``)."""
        return super().decide(legal)

    def decide(self, legal: LegalActions) -> Action:
        """The base answer (``base``), unless the program prices another legal action higher
        by ``margin`` (a discard, a riichi, a call or its pass, a kita, a kan)."""
        base = self.base(legal)
        self.last_base = base
        self.last_values = {}
        if winning_action(legal) is not None:
            return base
        values = self.price(legal, base)
        if not values:
            return base
        self.last_values = values
        mine = priced_as(base, values)
        if mine is None:
            return base  # the base answer is not priced: no fair comparison
        best = max(values, key=lambda a: (values[a], a == mine))
        if values[best] - values[mine] < self.margin:
            return base  # the program's edge is within its own roughness: the base answer
        return best

    def price(self, legal: LegalActions, base: Action | None = None) -> dict[Action, float]:
        """Expected final placement points of the legal actions the program prices; empty in
        riichi, or when the hand is too far from tenpai and nobody threatens."""
        if self.view.riichi[self.seat]:
            return {}
        run = _Run(self, know(self.view), legal)
        if any(isinstance(a, Pon) for a in legal) or (Pass() in legal and not _discards(legal)):
            return run.calls(base)
        return run.turn(base)

    def score(
        self, k: Knowledge, hand: Counts, win: TileKind, tsumo: bool, riichi: bool, kita: int | None = None
    ) -> tuple[int, int, int] | None:
        """(ron total, a dealer's tsumo share, a non-dealer's tsumo share) of ``hand`` winning
        on ``win`` with ``k``'s melds and ``kita`` (the seat's by default), or ``None``
        without a yaku.  Cached between two events.  Scored from kind counts (the engine's
        ``score_counts``): the only physical facts a score reads are the red fives, counted
        as the seat's own copies first (``red_fives``)."""
        view = k.view
        kita = len(view.kita[k.seat]) if kita is None else kita
        melds = tuple(m.kinds for m in k.melds)
        key = (hand, win, tsumo, riichi, kita, melds)
        if key in self._scores:
            return self._scores[key]
        rules = view.rules
        assert rules is not None
        result: tuple[int, int, int] | None = None
        if hand[win] < 4:
            ctx = self._context(k, tsumo, riichi, kita)
            red = red_fives(hand, win, k.hand, k.melds) if rules.red_fives else 0
            packed = int.from_bytes(hand, "little") + (1 << (8 * win))
            with contextlib.suppress(SanmaError):
                s = score_counts(packed, win, melds, ctx, rules, red)
                pay = s.payments
                result = (s.total, pay.dealer, pay.non_dealer) if tsumo else (s.total, 0, 0)
        self._scores[key] = result
        return result

    def _context(self, k: Knowledge, tsumo: bool, riichi: bool, kita: int) -> WinContext:
        """The context of a hypothetical win (cached between two events, like the scores)."""
        key = (tsumo, riichi, kita)
        ctx = self._contexts.get(key)
        if ctx is None:
            ctx = self._contexts[key] = dataclasses.replace(win_context(k, tsumo=tsumo, riichi=riichi), kita=kita)
        return ctx


class _Run:
    """One pricing of a decision: the programs of the root hand and of each hypothetical
    hand (after a pon, a kan or a kita)."""

    def __init__(self, bot: EVBot, k: Knowledge, legal: LegalActions):
        self.bot, self.k, self.legal = bot, k, legal
        self.depth = bot.max_shanten
        self.near = True  # whether the root hand is close enough for its draws to be followed

    def comparable(self, hypo: Knowledge) -> bool:
        """Whether a hand after a call, kita or kan is on the root's side of ``depth``: a hand
        beyond it is priced as one that never improves, so a far hand compared with a near
        one would lose for that alone (a kita breaking a pair of Norths at two shanten)."""
        return (closest(hypo) <= self.depth) == self.near

    def program(self, k: Knowledge, riichi_legal: bool, kita: int | None = None) -> Program:
        return Program(self.bot, k, riichi_legal, self.bot.budget, kita=kita)

    def threatened(self, program: Program) -> bool:
        return any(o.tenpai[0] >= self.bot.threat for o in program.opps)

    def left_to_base(self, program: Program) -> bool:
        """Whether nobody threatens and the base answer stands: the hand is too
        far from tenpai, or the decision comes before the match's last dealer turns."""
        if self.threatened(program):
            return False
        return not self.near or program.table.turns_left > LAST_TURNS

    def turn(self, base: Action | None) -> dict[Action, float]:
        """Our own turn: every legal discard (with and without riichi), kita and kan.  The
        ``base`` answer is priced first; a candidate whose program ran out of budget is left
        unpriced (its value would be cut short), and when that is the base answer
        nothing is priced."""
        bot, k, legal = self.bot, self.k, self.legal
        discards = _discards(legal)
        if not discards:
            return {}
        best = closest(k)
        self.near = best <= self.depth
        program = self.program(k, any(a.riichi for a in discards))
        if self.left_to_base(program):
            return {}  # nobody threatens: the base answer (the Expert's plain efficiency)
        cands = sorted({(kind_of(a.tile), a.riichi) for a in discards})
        lead = (kind_of(base.tile), base.riichi) if isinstance(base, Discard) else None
        cands.sort(key=lambda c: (c != lead, shanten(_minus(k.counts, c[0]), k.meld_count)))
        out: dict[Action, float] = {}
        for action in self._others(base):  # the base answer's kita or kan first
            value = self.replaced(action)
            if value is None and action == base:
                return {}
            if value is not None:
                out[action] = value
        for kind, riichi in cands:
            action = pick_tile(tiles_of_kind(legal, kind, riichi), k.red_fives, bot.view.drawn)
            program.cut = False
            value = program.root_value(kind, riichi)
            if program.cut and (kind, riichi) == lead:
                return {}  # the base answer's tile could not be priced in full: no fair comparison
            if not program.cut:
                out[action] = value
        return out

    def _others(self, base: Action | None) -> list[Action]:
        """The legal kita and kans of our turn, the base answer first."""
        others: list[Action] = [a for a in self.legal if isinstance(a, Kita | Kan)]
        others.sort(key=lambda a: a != base)
        return others

    def replaced(self, action: Action) -> float | None:
        """A kita or a kan now: the hand it leaves, with the replacement draw on top of our
        own draws; ``None`` when its program ran out of budget or the kan is not one the
        program knows how to build."""
        k = self.k
        if isinstance(action, Kita):
            hypo, kita = after_kita(k), len(k.view.kita[k.seat]) + 1
        else:
            assert isinstance(action, Kan)
            built = after_kan(k, action.kind, None)
            if built is None:
                return None
            hypo, kita = built, None
        if not self.comparable(hypo):
            return None
        program = self.program(hypo, False, kita)
        value = program.draw_value()
        return None if program.cut else value

    def calls(self, base: Action | None) -> dict[Action, float]:
        """A call offer: pass (the hand as it stands), each legal pon (the best discard after
        it, the called kind barred) and an open kan (the hand after it, with its replacement
        draw), when the hand is close enough to tenpai or an opponent threatens."""
        k, legal = self.k, self.legal
        if Pass() not in legal or not any(isinstance(a, Pon | Kan) for a in legal):
            return {}  # nothing to call (a win or a plain pass is not priced)
        stay = self.program(k, k.closed)
        self.near = closest(k) <= self.depth
        if self.left_to_base(stay):
            return {}  # nobody threatens: the base answer
        out: dict[Action, float] = {}
        value = stay.pass_value()
        if stay.cut:
            return {}
        out[Pass()] = value
        called = called_tile(k)
        for action in legal:
            got: float | None = None
            if isinstance(action, Pon) and called is not None:
                hypo = after_pon(k, action, called)
                if self.comparable(hypo):
                    got = self.program(hypo, False).best_root_value(action.kind)
            elif isinstance(action, Kan) and called is not None:
                kan = after_kan(k, action.kind, called)
                if kan is not None and self.comparable(kan):
                    program = self.program(kan, False)
                    got = program.draw_value()
                    got = None if program.cut else got
            if got is None and action == base:
                return {}
            if got is not None:
                out[action] = got
        return out


# -- hypothetical hands: after a pon, a kan or a kita ------------------------------------------


def closest(k: Knowledge) -> int:
    """Shanten of the hand, after its best discard when it holds one tile too many."""
    tiles = sum(k.counts) + 3 * k.meld_count
    if tiles % 3 != 2:
        return shanten(k.counts, k.meld_count)
    return min(shanten(_minus(k.counts, kind), k.meld_count) for kind in range(KIND_COUNT) if k.counts[kind])


def _discards(legal: LegalActions) -> list[Discard]:
    return [a for a in legal if isinstance(a, Discard)]


def called_tile(k: Knowledge) -> Tile | None:
    """The discard on offer: the last tile of the river of the seat that played last."""
    view = k.view
    order = [view.turn] if view.turn is not None else []
    for s in [*order, 0, 1, 2]:
        if s is not None and s != k.seat and view.rivers[s] and not view.rivers[s][-1].called:
            return view.rivers[s][-1].tile
    return None


def _take(k: Knowledge, kind: TileKind, n: int, red: bool | None) -> tuple[list[Tile], list[Tile]]:
    """(``n`` tiles of ``kind`` out of the hand, the hand left); ``red``: whether the red
    five goes (``None``: the plain copies first)."""
    mine = sorted((t for t in k.hand if kind_of(t) == kind), key=lambda t: is_red(t, k.red_fives) != bool(red))
    taken = mine[:n]
    rest = list(k.hand)
    for t in taken:
        rest.remove(t)
    return taken, rest


def _with(k: Knowledge, hand: list[Tile], melds: list[Meld], shown: dict[TileKind, int]) -> Knowledge:
    """``k`` with another concealed hand and melds; ``shown`` tiles moved face up."""
    counts = [0] * KIND_COUNT
    for t in hand:
        counts[kind_of(t)] += 1
    visible = k.visible[:]
    for kind, n in shown.items():
        visible[kind] += n
    return dataclasses.replace(
        k, hand=hand, counts=counts, melds=melds, visible=visible, closed=all(not m.is_open for m in melds)
    )


def after_pon(k: Knowledge, action: Pon, called: Tile) -> Knowledge:
    """The seat's knowledge after ``action`` on ``called`` (11 tiles in hand)."""
    taken, rest = _take(k, action.kind, 2, action.red)
    meld = Meld(MeldType.PON, (*taken, called), called=called, from_seat=None)
    return _with(k, rest, [*k.melds, meld], {action.kind: 2})


def after_kan(k: Knowledge, kind: TileKind, called: Tile | None) -> Knowledge | None:
    """The seat's knowledge after a kan of ``kind`` (before its replacement draw): an open
    kan on ``called``, a closed kan of four in hand, or a pon grown by the fourth tile;
    ``None`` when the hand holds none of these."""
    held = k.counts[kind]
    if called is not None and held == 3:
        taken, rest = _take(k, kind, 3, None)
        meld = Meld(MeldType.DAIMINKAN, (*taken, called), called=called, from_seat=None)
        return _with(k, rest, [*k.melds, meld], {kind: 3})
    if called is None and held == 4:
        taken, rest = _take(k, kind, 4, None)
        return _with(k, rest, [*k.melds, Meld(MeldType.ANKAN, tuple(taken))], {kind: 4})
    pon = next((m for m in k.melds if m.type is MeldType.PON and m.kind == kind), None)
    if called is None and held == 1 and pon is not None:
        taken, rest = _take(k, kind, 1, None)
        grown = Meld(MeldType.KAKAN, (*pon.tiles, taken[0]), called=pon.called, from_seat=pon.from_seat, added=taken[0])
        melds = [grown if m is pon else m for m in k.melds]
        return _with(k, rest, melds, {kind: 1})
    return None


def after_kita(k: Knowledge) -> Knowledge:
    """The seat's knowledge after setting a North aside (before the replacement draw)."""
    _, rest = _take(k, NORTH, 1, None)
    return _with(k, rest, list(k.melds), {NORTH: 1})


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


def red_fives(hand: Counts, win: TileKind, held: list[Tile], melds: list[Meld]) -> int:
    """How many red fives ``hand`` winning on ``win`` holds with ``melds``: of a five's kind
    the seat's own copies count first (in the order held, its red one kept), then the plain
    copies nobody holds in the hand or a meld, the red one last (a hypothetical draw is a
    plain five while one may be unseen)."""
    red = sum(m.red_count() for m in melds)
    for red_tile in RED_TILES:
        kind = red_tile >> 2
        need = hand[kind] + (win == kind)
        if not need:
            continue
        own = [t for t in held if t >> 2 == kind][: hand[kind]]
        taken = set(own).union(t for m in melds if m.kind == kind for t in m.tiles)
        plain = sum(kind * 4 + c not in taken for c in (1, 2, 3))
        if red_tile in own or need - len(own) > plain:
            red += 1
    return red
