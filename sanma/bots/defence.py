"""Defence: how likely each opponent is tenpai, what dealing in would cost, and how
likely a given tile is to be one of its winning tiles.

All from public facts: rivers (and the table order of discards), riichi, melds, kita,
dora, and the copies of each kind the seat can see (its own hand included).

The wait model counts the shapes an opponent could be waiting with on a tile, each
weighted by how common it is and whether it is still possible:

* genbutsu: a kind in the opponent's river, or let go by anyone after its riichi or
  since its last discard, cannot be ronned by it now (furiten) -> 0;
* two-sided waits (pin and sou only; 1m/9m and honors never form sequences in sanma):
  killed by suji (the other end is genbutsu) or by a wall (kabe: every copy of a tile
  the shape needs is in sight), halved by one-chance (one copy left);
* closed waits, edge waits, pair waits (shanpon) and single waits (tanki) need copies
  the opponent could hold, so honors and 1m/9m get safer as their copies show up.
"""

from __future__ import annotations

from dataclasses import dataclass

from sanma.bots.base import Player
from sanma.bots.heuristics import END_HAZARD, Knowledge, han_points
from sanma.engine.tiles import DRAGON_KINDS, EAST, NORTH, P1, S1, TileKind, is_red, kind_of, seat_wind

# Deal-in chance of one shape unit against a tenpai hand (calibrated so that a live
# middle tile is about 13%, a live honor with three copies out about 5-6%).
_UNIT = 0.04
_RYANMEN = 1.0
_KANCHAN = 0.35
_PENCHAN = 0.4
_SHANPON = 0.9
_TANKI = 0.5
Shapes = tuple[float, float, float, float, float]
# Hand-set deal-in chance per unit of each shape (shanpon, tanki, two-sided, closed, edge).
SHAPE_WEIGHTS: Shapes = (_UNIT * _SHANPON, _UNIT * _TANKI, _UNIT * _RYANMEN, _UNIT * _KANCHAN, _UNIT * _PENCHAN)
DORA_DANGER = 1.3  # dora are kept, and waits on them pay more
# Deal-in chance of an average discard while pushing (some drawn tiles are safe).
TYPICAL_DANGER = 0.025
RECENT = 3  # discards looked at for the tsumogiri pattern


@dataclass(frozen=True, slots=True)
class Threat:
    """One opponent as a danger: chance it is tenpai, points a deal-in would cost, the
    kinds it cannot ron now, and the suit of a honitsu it seems to build (or 0)."""

    seat: int
    tenpai: float
    loss: float
    safe: frozenset[TileKind]
    flush_suit: int
    # The wait model: danger per unit of each shape, and the factor for a dora.
    shapes: Shapes = SHAPE_WEIGHTS
    dora: float = DORA_DANGER
    typical: float = TYPICAL_DANGER  # deal-in chance of an average discard while pushing


def safe_kinds(bot: Player, seat: int) -> frozenset[TileKind]:
    """Kinds ``seat`` cannot ron now: its own river, everything let go after its riichi,
    and everything let go since its last discard (temporary furiten)."""
    kinds = {kind_of(r.tile) for r in bot.view.rivers[seat]}
    start = bot.view.riichi_at[seat]
    last = bot.view.last_discard_at[seat]
    if start is None or (last is not None and last > start):
        start = last
    if start is not None:
        kinds.update(kind_of(t) for s, t in bot.view.order[start + 1 :] if s != seat)
    return frozenset(kinds)


def recent_tsumogiri(bot: Player, seat: int) -> int:
    """How many of ``seat``'s last ``RECENT`` discards were the tile it had just drawn (a hand
    that lets its draws straight go is more often tenpai: the EV master's tenpai model)."""
    return sum(1 for r in bot.view.rivers[seat][-RECENT:] if r.tsumogiri)


def _open_melds(bot: Player, seat: int) -> int:
    return sum(1 for m in bot.view.melds[seat] if m.is_open)


def tenpai_chance(bot: Player, seat: int) -> float:
    """Riichi is tenpai; open hands get closer with each call and each turn; a closed
    hand without riichi is sometimes a silent tenpai late in the hand."""
    view = bot.view
    if view.riichi[seat]:
        return 1.0
    turns = len(view.rivers[seat])
    calls = _open_melds(bot, seat)
    if calls == 0:
        return min(0.12, 0.006 * turns)
    base, step, cap = ((0.05, 0.02, 0.35), (0.15, 0.03, 0.6), (0.4, 0.05, 0.9), (0.8, 0.05, 0.98))[min(calls, 4) - 1]
    return min(cap, base + step * turns)


def flush_suit(bot: Player, seat: int) -> int:
    """P1 or S1 when ``seat``'s open melds are all one suit (honors allowed) and its river
    holds few tiles of that suit; 0 otherwise."""
    melds = [m for m in bot.view.melds[seat] if m.is_open]
    if not melds:
        return 0
    suits = {P1 if m.kind < S1 else S1 for m in melds if P1 <= m.kind < EAST}
    if any(m.kind < P1 for m in melds) or len(suits) > 1:
        return 0
    river = [kind_of(r.tile) for r in bot.view.rivers[seat]]
    if len(river) < 4:
        return 0
    for base in (P1, S1) if not suits else tuple(suits):
        inside = sum(1 for kind in river if base <= kind < base + 9)
        others = sum(1 for kind in river if P1 <= kind < EAST and not base <= kind < base + 9)
        if inside <= 1 and others >= 3:
            return base
    return 0


def deal_in_loss(bot: Player, k: Knowledge, seat: int) -> float:
    """What dealing into ``seat`` would cost about: its visible dora (melds, kita) on top
    of a typical hand, more for the dealer and for riichi or a flush."""
    view = bot.view
    han = 0.0
    for m in view.melds[seat]:
        han += k.dora[m.kind] * len(m.tiles) + sum(is_red(t, k.red_fives) for t in m.tiles)
        if m.kind >= EAST and m.kind in _value_for(bot, seat):
            han += 1
    kita = len(view.kita[seat])
    han += kita * (1 + k.dora[NORTH])
    if view.riichi[seat]:
        han += 3.2  # riichi, ura, tsumo/ippatsu and the dora a sanma hand usually holds
    else:
        han += 2.2
    if flush_suit(bot, seat):
        han += 2
    return han_points(han, seat == view.dealer)


def _value_for(bot: Player, seat: int) -> set[TileKind]:
    view = bot.view
    return {*DRAGON_KINDS, seat_wind(seat, view.dealer), view.round_wind}


def threats(bot: Player, k: Knowledge) -> list[Threat]:
    """Both opponents as threats (tenpai chance may be small)."""
    out = []
    for seat in range(3):
        if seat == k.seat:
            continue
        out.append(
            Threat(
                seat=seat,
                tenpai=tenpai_chance(bot, seat),
                loss=deal_in_loss(bot, k, seat),
                safe=safe_kinds(bot, seat),
                flush_suit=flush_suit(bot, seat),
            )
        )
    return out


def pair_shapes(copies_out: int) -> tuple[float, float]:
    """Shanpon and tanki shapes the opponent could hold with ``copies_out`` copies out
    (1 each with three copies out)."""
    if copies_out <= 0:
        return 0.0, 0.0
    return copies_out * (copies_out - 1) / 6, copies_out / 3  # C(n,2)/3 and n/3


def shape_weights(k: Knowledge, kind: TileKind, safe: frozenset[TileKind]) -> Shapes:
    """The shapes a tenpai opponent could be waiting on ``kind`` with, by type (shanpon,
    tanki, two-sided, closed, edge), each weighted by how freely it could hold the tiles
    (two-sided ones only where the suji is not safe)."""
    shanpon, tanki = pair_shapes(4 - k.seen_by_me(kind))
    ryanmen = kanchan = penchan = 0.0
    if P1 <= kind < EAST:
        base = P1 if kind < S1 else S1
        n = kind - base  # 0..8
        if n >= 2:  # below: n-2, n-1 waits on n (and on n-3 when two-sided)
            below = held(k, base + n - 2) * held(k, base + n - 1)
            if n == 2:
                penchan += below
            elif base + n - 3 not in safe:
                ryanmen += below
        if n <= 6:  # above: n+1, n+2 waits on n (and on n+3)
            above = held(k, base + n + 1) * held(k, base + n + 2)
            if n == 6:
                penchan += above
            elif base + n + 3 not in safe:
                ryanmen += above
        if 1 <= n <= 7:
            kanchan += held(k, base + n - 1) * held(k, base + n + 1)
    return shanpon, tanki, ryanmen, kanchan, penchan


def wait_danger(
    k: Knowledge, kind: TileKind, safe: frozenset[TileKind], weights: Shapes = SHAPE_WEIGHTS, dora: float = DORA_DANGER
) -> float:
    """Chance that ``kind`` is a winning tile of a tenpai opponent with ``safe`` kinds."""
    if kind in safe:
        return 0.0
    danger = max(0.0, sum(w * x for w, x in zip(weights, shape_weights(k, kind, safe), strict=True)))
    return danger * dora if k.dora[kind] else danger


def held(k: Knowledge, kind: TileKind) -> float:
    """How freely an opponent could hold ``kind`` for a shape: 0 behind a wall,
    0.5 on a one-chance, 1 otherwise."""
    out = 4 - k.seen_by_me(kind)
    return 0.0 if out <= 0 else 0.5 if out == 1 else 1.0


def tile_risk(k: Knowledge, kind: TileKind, opponents: list[Threat]) -> float:
    """Expected points lost by discarding ``kind`` now (over both opponents)."""
    risk = 0.0
    for o in opponents:
        if o.tenpai <= 0:
            continue
        danger = wait_danger(k, kind, o.safe, o.shapes, o.dora)
        if o.flush_suit:
            in_suit = kind >= EAST or o.flush_suit <= kind < o.flush_suit + 9
            danger *= 1.6 if in_suit else 0.15
        risk += o.tenpai * danger * o.loss
    return risk


def typical_danger(k: Knowledge, opponents: list[Threat]) -> float:
    """Expected loss per discard when pushing on with tiles of average danger."""
    return sum(o.tenpai * o.typical * o.loss for o in opponents)


def end_hazard(opponents: list[Threat]) -> float:
    """Chance per turn that the hand ends before the seat wins: higher when an opponent
    is tenpai (it wins about one turn in eight)."""
    return END_HAZARD + 0.12 * sum(o.tenpai for o in opponents if o.tenpai >= 0.5)
