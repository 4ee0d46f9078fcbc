"""Monte Carlo over determinized futures of the seat's own hand (the Mahjong master's search).

A *future* is one draw of the tiles the seat cannot see (opponents' hands and the wall,
uniformly shuffled): the first of them are the seat's own next draws.  For each candidate
discard the same futures are played (common random numbers, so the comparison between
candidates is much less noisy than each value alone) by a fast policy:

* a draw that does not lower shanten is let go at once (tsumogiri);
* a draw that does is kept and the discard that keeps the lowest shanten with the most
  unseen improving tiles (then the least valuable tile) goes;
* a drawn North that does not help is extracted (kita) and replaced;
* a closed tenpai hand declares riichi and waits: it wins by its own draw (tsumo, scored
  exactly with ``score_win``) or by an opponent's discard (ron, in expectation: each
  go-around its waits come out with a chance proportional to their unseen copies), unless
  it is furiten (a wait in its own river);
* every go-around the hand may end first (another seat wins, ``hazard``).

What comes back per candidate is the expected points won and the expected discards made
while the hand lasts (each a chance to deal in, priced by the defence model outside).
The search uses no clock: its cost is fixed by the number of futures, so the same seed
gives the same answer.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from sanma.engine.errors import SanmaError
from sanma.engine.hand import Meld
from sanma.engine.rules import Rules
from sanma.engine.scoring import WinContext, score_win
from sanma.engine.shanten import _after_draws, _shanten_of
from sanma.engine.tiles import KIND_COUNT, NORTH, Tile, TileKind, is_red, kind_of

# Ron chances per go-around against the seat's own draw: two opponents let tiles go, but
# they keep what they need and fold against a riichi, so less than two draws' worth.
RON_FACTOR = 0.8
# Ura dora, ippatsu and the odd haitei on top of a riichi hand scored without them.
RIICHI_BONUS = 1.2


@dataclass(slots=True)
class Setup:
    """What every future of one decision shares."""

    melds: tuple[Meld, ...]
    kita: int
    river_kinds: frozenset[TileKind]  # the seat's own river (furiten)
    unseen: Sequence[int]  # unseen copies per kind, for the policy's ukeire count
    keep: Sequence[float]  # how much each kind is worth keeping apart from speed
    ctx_tsumo: WinContext
    ctx_ron: WinContext
    rules: Rules
    horizon: int  # own draws left
    pool_size: int  # tiles the seat cannot see (opponents' hands and the wall)
    hazard: float  # chance per go-around that the hand ends without us
    red_fives: bool
    _scores: dict[tuple[bytes, int, int, TileKind, bool, bool], float] = field(default_factory=dict)
    _choices: dict[bytes, tuple[TileKind, int, list[int]]] = field(default_factory=dict)
    _draws: dict[bytes, tuple[int, list[int]]] = field(default_factory=dict)

    def draws(self, b: bytes) -> tuple[int, list[int]]:
        """Shanten of a 13-tile hand and its shanten after each draw (memoized)."""
        cached = self._draws.get(b)
        if cached is None:
            cached = (_shanten_of(b, self.meld_count), _after_draws(b, self.meld_count))
            self._draws[b] = cached
        return cached

    @property
    def meld_count(self) -> int:
        """Sets already melded (closed kans included)."""
        return len(self.melds)

    def value(self, hand: list[Tile], win: Tile, kita: int, tsumo: bool) -> float:
        """Points the win pays (0 without a yaku), riichi assumed for a closed hand."""
        counts = bytearray(KIND_COUNT)
        reds = 0
        for t in hand:
            counts[kind_of(t)] += 1
            reds += is_red(t, self.red_fives)
        red_win = is_red(win, self.red_fives)
        key = (bytes(counts), reds, kita, kind_of(win), red_win, tsumo)
        cached = self._scores.get(key)
        if cached is not None:
            return cached
        ctx = self.ctx_tsumo if tsumo else self.ctx_ron
        if kita != ctx.kita:
            ctx = replace(ctx, kita=kita)
        try:
            points: float = score_win([*hand, win], win, self.melds, ctx, self.rules).total
            points *= RIICHI_BONUS if ctx.riichi else 1.0
        except SanmaError:
            points = 0.0
        self._scores[key] = points
        return points


@dataclass(frozen=True, slots=True)
class Estimate:
    """One candidate over all futures: per future, the points won, the chance it was won
    and the discards made (each discounted by the chance the hand ended first)."""

    values: tuple[float, ...]
    wins: tuple[float, ...]
    discards: tuple[float, ...]

    @property
    def value(self) -> float:
        """Expected points won."""
        return sum(self.values) / max(len(self.values), 1)

    @property
    def win(self) -> float:
        """Chance to win."""
        return sum(self.wins) / max(len(self.wins), 1)

    @property
    def discard_count(self) -> float:
        """Expected discards made while the hand lasts."""
        return sum(self.discards) / max(len(self.discards), 1)

    def utility(self, gain: float, per_discard: float) -> list[float]:
        """Per future: points won weighted by ``gain`` minus ``per_discard`` per discard."""
        return [v * gain - d * per_discard for v, d in zip(self.values, self.discards, strict=True)]


def sample_futures(pool: Sequence[Tile], count: int, length: int, rng: random.Random) -> list[list[Tile]]:
    """``count`` futures, each the seat's next ``length`` draws from ``pool``."""
    n = min(length, len(pool))
    return [rng.sample(pool, n) for _ in range(count)]


def _choose_discard(setup: Setup, counts: bytearray, melds: int) -> tuple[TileKind, int, list[int]]:
    """The policy's discard from a 14-tile hand: lowest shanten, most unseen improving
    tiles, least worth keeping.  Returns the kind, the shanten and the draws table after it
    (memoized per decision: many futures pass through the same hands)."""
    key = bytes(counts)
    cached = setup._choices.get(key)
    if cached is not None:
        return cached
    shantens: list[tuple[int, TileKind, bytes]] = []
    for kind in range(KIND_COUNT):
        if counts[kind]:
            counts[kind] -= 1
            b = bytes(counts)
            counts[kind] += 1
            shantens.append((_shanten_of(b, melds), kind, b))
    lowest = min(s for s, _, _ in shantens)
    best: tuple[float, TileKind, list[int]] | None = None
    unseen = setup.unseen
    for sh, kind, b in shantens:
        if sh != lowest:
            continue
        after = _after_draws(b, melds)
        uke = 0
        for k in range(KIND_COUNT):
            if after[k] < sh:
                uke += unseen[k]
        merit = uke - 2.0 * setup.keep[kind]
        if best is None or merit > best[0]:
            best = (merit, kind, after)
    assert best is not None
    result = (best[1], lowest, best[2])
    setup._choices[key] = result
    return result


def remove_kind(hand: list[Tile], kind: TileKind, red_fives: bool) -> Tile:
    """Take one tile of ``kind`` out of ``hand``, a plain copy before a red five."""
    pick = -1
    for i, t in enumerate(hand):
        if kind_of(t) == kind:
            pick = i
            if not is_red(t, red_fives):
                break
    return hand.pop(pick)


def play_future(
    setup: Setup,
    hand: list[Tile],
    discarded: TileKind | None,
    future: Sequence[Tile],
    risk: Sequence[float] | None = None,
) -> tuple[float, float, float]:
    """One future of the 13-tile ``hand`` left after discarding ``discarded`` (``None``:
    the hand as it is, waiting for its next draw): (points won,
    chance it was won, expected discards made), discounted by the chance the hand ends first.
    With ``risk`` (expected deal-in cost per discarded kind) the third number is the
    expected deal-in cost of the discards actually made instead of their count."""
    hand = list(hand)
    melds = setup.meld_count
    counts = bytearray(KIND_COUNT)
    for t in hand:
        counts[kind_of(t)] += 1
    sh, after = setup.draws(bytes(counts))
    river = set(setup.river_kinds)
    if discarded is not None:
        river.add(discarded)
    kita = setup.kita
    alive = 1.0  # chance the hand is still running (nobody else won, we have not won)
    value = 0.0
    won = 0.0
    discards = 0.0
    ron_value = -1.0  # expected ron value at tenpai, -1 until computed
    ron_chance = 0.0
    stay = 1.0 - setup.hazard
    at = 0
    n = len(future)
    for _ in range(setup.horizon):
        if sh == 0:
            if ron_value < 0:
                ron_value, ron_chance = _ron_terms(setup, hand, after, river, kita, setup.pool_size - at)
            if ron_chance > 0:
                value += alive * ron_chance * ron_value
                won += alive * ron_chance
                alive *= 1.0 - ron_chance
        alive *= stay
        if at >= n:
            break
        tile = future[at]
        at += 1
        kind = kind_of(tile)
        while kind == NORTH and after[NORTH] >= sh and at < n:
            kita += 1  # extract it and draw the replacement
            ron_value = -1.0
            tile = future[at]
            at += 1
            kind = kind_of(tile)
        if after[kind] < 0:
            points = setup.value(hand, tile, kita, True)
            value += alive * points
            won += alive
            return value, won, discards
        if after[kind] < sh:
            counts[kind] += 1
            hand.append(tile)
            out, sh, after = _choose_discard(setup, counts, melds)
            counts[out] -= 1
            remove_kind(hand, out, setup.red_fives)
            river.add(out)
            ron_value = -1.0
        else:
            out = kind
            river.add(kind)
        discards += alive if risk is None else alive * risk[out]
    return value, won, discards


def _ron_terms(
    setup: Setup, hand: list[Tile], after: list[int], river: set[TileKind], kita: int, left: int
) -> tuple[float, float]:
    """Average ron value over the live waits and the chance per go-around of a ron."""
    waits = [k for k in range(KIND_COUNT) if after[k] < 0]
    if not waits or any(k in river for k in waits):
        return 0.0, 0.0
    live = 0
    total = 0.0
    for k in waits:
        copies = setup.unseen[k]
        if copies <= 0:
            continue
        win = next((k * 4 + c for c in (1, 2, 3, 0) if k * 4 + c not in hand), k * 4)
        live += copies
        total += copies * setup.value(hand, win, kita, False)
    if live <= 0:
        return 0.0, 0.0
    return total / live, min(0.9, RON_FACTOR * live / max(left, 10))


def estimate(
    setup: Setup,
    hand: list[Tile],
    discarded: TileKind | None,
    futures: Sequence[Sequence[Tile]],
    risk: Sequence[float] | None = None,
) -> Estimate:
    """``play_future`` over each of ``futures`` (``risk``: see ``play_future``)."""
    values: list[float] = []
    wins: list[float] = []
    discards: list[float] = []
    for future in futures:
        v, w, d = play_future(setup, hand, discarded, future, risk)
        values.append(v)
        wins.append(w)
        discards.append(d)
    return Estimate(tuple(values), tuple(wins), tuple(discards))


def paired_gap(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Mean of ``a - b`` over the same futures and its standard error."""
    n = len(a)
    if n < 2:
        return (a[0] - b[0] if n else 0.0), float("inf")
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, (var / n) ** 0.5
