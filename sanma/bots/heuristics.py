"""Shared bot heuristics: what a seat knows, tile efficiency and hand value.

Everything here works from a seat's own ``SeatView`` (its one observer record, which also
keeps the table order of discards), never from hidden tiles.  The functions are cheap enough to
call once per decision: ``discard_ukeire`` (the costly part, ~0.3 ms) runs once and every
candidate discard is then judged from its result.

Vocabulary: *unseen* copies of a kind are the four copies minus those in the seat's hand
and those face up anywhere (rivers, melds, kita, dora indicators); *ukeire* of a hand is
the number of unseen tiles whose draw lowers its shanten.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from sanma.engine.actions import Action, Discard, Pass, Ron, Tsumo
from sanma.engine.context import WinContext
from sanma.engine.errors import SanmaError
from sanma.engine.hand import Meld, MeldType
from sanma.engine.kyoku import LegalActions
from sanma.engine.scoring import score_win
from sanma.engine.shanten import discard_ukeire, shanten, waits
from sanma.engine.tiles import (
    DRAGON_KINDS,
    EAST,
    KIND_COUNT,
    NORTH,
    P1,
    S1,
    Tile,
    TileKind,
    dora_of,
    is_red,
    is_terminal_or_honor,
    kind_of,
    seat_wind,
)
from sanma.engine.view import SeatView

# -- what the seat knows ----------------------------------------------------------------------


@dataclass(slots=True)
class Knowledge:
    """One decision's facts, computed once from the view.

    ``counts``: own concealed tiles by kind; ``visible``: tiles face up outside the hand;
    ``unseen``: 4 - counts - visible; ``dora``: dora han per kind (indicators, 1m<->9m wrap);
    ``seen_by_me``: counts + visible (how many copies nobody else can hold).
    """

    seat: int
    view: SeatView
    hand: list[Tile]
    counts: list[int]
    melds: list[Meld]
    visible: list[int]
    unseen: list[int]
    dora: list[int]
    seat_wind: TileKind
    value_kinds: dict[TileKind, int]  # kind -> yakuhai han for a triplet of it
    closed: bool
    red_fives: bool
    unseen_total: int = field(init=False)

    def __post_init__(self) -> None:
        self.unseen_total = sum(self.unseen)

    @property
    def meld_count(self) -> int:
        """Sets already melded (pon and every kan)."""
        return len(self.melds)

    def seen_by_me(self, kind: TileKind) -> int:
        """Copies of ``kind`` the seat knows the place of (own hand or face up)."""
        return self.counts[kind] + self.visible[kind]


def value_kinds_of(view: SeatView, seat: int) -> dict[TileKind, int]:
    """Kinds whose triplet is yakuhai for ``seat``, with its han (a double wind is 2)."""
    out = dict.fromkeys(DRAGON_KINDS, 1)
    wind = seat_wind(seat, view.dealer)
    out[wind] = out.get(wind, 0) + 1
    out[view.round_wind] = out.get(view.round_wind, 0) + 1
    return out


def dora_counts(view: SeatView) -> list[int]:
    """Dora han per kind from the revealed indicators."""
    dora = [0] * KIND_COUNT
    for t in view.dora_indicators:
        dora[dora_of(kind_of(t))] += 1
    return dora


def know(view: SeatView) -> Knowledge:
    """The facts of one decision for the view's own seat."""
    seat = view.seat
    assert seat is not None, "a bot plays a seat"
    counts = [0] * KIND_COUNT
    for t in view.hand:
        counts[kind_of(t)] += 1
    visible = view.visible_counts()
    unseen = [max(0, 4 - counts[k] - visible[k]) for k in range(KIND_COUNT)]
    melds = list(view.melds[seat])
    return Knowledge(
        seat=seat,
        view=view,
        hand=list(view.hand),
        counts=counts,
        melds=melds,
        visible=visible,
        unseen=unseen,
        dora=dora_counts(view),
        seat_wind=seat_wind(seat, view.dealer),
        value_kinds=value_kinds_of(view, seat),
        closed=all(not m.is_open for m in melds),
        red_fives=view.rules.red_fives if view.rules is not None else True,
    )


# -- tile efficiency ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Option:
    """A discard kind judged by speed: shanten after it and the unseen tiles that improve."""

    kind: TileKind
    shanten: int
    ukeire: int
    improving: dict[TileKind, int]


def discard_options(k: Knowledge) -> dict[TileKind, Option]:
    """Every kind in hand -> its ``Option`` (one ``discard_ukeire`` call)."""
    table = discard_ukeire(k.counts, k.meld_count, k.visible)
    return {kind: Option(kind, s, sum(imp.values()), imp) for kind, (s, imp) in table.items()}


def keep_value(k: Knowledge, kind: TileKind) -> float:
    """How much a single tile is worth keeping apart from speed: dora, value honors,
    connectivity of suit tiles (used to break ties between equally fast discards)."""
    value = 2.0 * k.dora[kind]
    if kind in k.value_kinds:
        value += 0.6 if k.counts[kind] >= 2 else 0.3
    if kind >= EAST or kind < P1:
        return value - 0.2 * (3 - k.unseen[kind])  # a honor few others can add to is deadwood
    base = P1 if kind < S1 else S1
    n = kind - base
    value += (1.0, 1.2, 1.5, 1.6, 1.6, 1.6, 1.5, 1.2, 1.0)[n]
    for d in (-2, -1, 1, 2):
        if 0 <= n + d <= 8 and k.counts[base + n + d]:
            value += 0.5 if abs(d) == 1 else 0.3
    return value


def tiles_of_kind(legal: LegalActions, kind: TileKind, riichi: bool) -> list[Discard]:
    """Legal discards of ``kind`` (with or without the riichi flag)."""
    return [a for a in legal if isinstance(a, Discard) and a.riichi == riichi and kind_of(a.tile) == kind]


def pick_tile(choices: list[Discard], red_fives: bool, drawn: Tile | None) -> Discard:
    """Of several discards of one kind keep the red five, and prefer tsumogiri."""
    return min(choices, key=lambda d: (is_red(d.tile, red_fives), d.tile != drawn))


def first_of(legal: LegalActions, *kinds: type) -> Action | None:
    """The first legal action of one of ``kinds`` (e.g. ``Tsumo``, ``Ron``)."""
    for a in legal:
        if isinstance(a, kinds):
            return a
    return None


def winning_action(legal: LegalActions) -> Action | None:
    """Tsumo or Ron when legal: the engine offers them only for a real win (yaku, no furiten)."""
    return first_of(legal, Tsumo, Ron)


def han_points(han: float, dealer: bool) -> float:
    """Rough ron value of ``han`` (fractional han interpolate)."""
    if han <= 0:
        return 0.0
    h = min(han, 13.0)
    lo = int(h)
    frac = h - lo
    hi = min(lo + 1, 13)
    points = _POINTS[lo] * (1 - frac) + _POINTS[hi] * frac
    return points * (1.5 if dealer else 1.0)


def dora_in_hand(k: Knowledge) -> int:
    """Dora han the seat holds now: indicators' dora in hand and melds, red fives, kita
    (each extracted North counts North's dora too)."""
    view = k.view
    total = sum(k.dora[kind] * c for kind, c in enumerate(k.counts) if c)
    tiles = list(k.hand)
    for m in k.melds:
        total += k.dora[m.kind] * len(m.tiles)
        tiles += m.tiles
    total += sum(is_red(t, k.red_fives) for t in tiles)
    kita = len(view.kita[k.seat])
    return total + kita * (1 + k.dora[NORTH])


# -- hand value ---------------------------------------------------------------------------------

# Han a hand still picks up on the way on average in sanma: drawn Norths, dora, red fives.
FUTURE_HAN = 1.0
# Points of a non-dealer ron by han, at typical fu (index = han, capped at 13).
_POINTS = (0, 1300, 2600, 5200, 8000, 8000, 12000, 12000, 16000, 16000, 16000, 24000, 24000, 32000)


def _suit(kind: TileKind) -> int:
    """P1 or S1 for pin/sou, 0 for man (1m/9m); honors have no suit (callers check)."""
    if kind < P1:
        return 0
    return P1 if kind < S1 else S1


def off_flush(kind: TileKind, base: int) -> bool:
    """Whether ``kind`` breaks a honitsu in suit ``base``."""
    return kind < EAST and _suit(kind) != base


def open_yaku_han(k: Knowledge, counts: list[int]) -> float:
    """Expected yaku han of an open hand after a discard leaving ``counts``: yakuhai
    melds, value pairs, tanyao, honitsu, toitoi (each as likely as its shape looks).
    0 means the hand is not heading anywhere that can win."""
    han = 0.0
    for m in k.melds:
        han += k.value_kinds.get(m.kind, 0)
    pairs_value = sum(0.4 * k.value_kinds[kind] for kind in k.value_kinds if counts[kind] >= 2)
    if han:
        return han + pairs_value
    han = pairs_value
    if not any(is_terminal_or_honor(m.kind) for m in k.melds):
        th = sum(counts[kind] for kind in range(KIND_COUNT) if is_terminal_or_honor(kind))
        han = max(han, (1.0, 0.7, 0.4, 0.2)[th] if th < 4 else 0.0)
    suits = {_suit(m.kind) for m in k.melds if m.kind < EAST}
    if len(suits) <= 1 and 0 not in suits:
        for base in (P1, S1) if not suits else tuple(suits):
            off = sum(c for kind, c in enumerate(counts) if c and off_flush(kind, base))
            han = max(han, (2.0, 1.6, 1.0, 0.5)[off] if off < 4 else 0.0)
    pairs = sum(1 for c in counts if c >= 2)
    if pairs + k.meld_count >= 4:
        han = max(han, 1.0 if pairs + k.meld_count >= 5 else 0.5)
    return han


def closed_yaku_han(k: Knowledge, counts: list[int]) -> float:
    """Expected han a closed hand gets from yaku: riichi (or tsumo), a little ura/ippatsu,
    tanyao when simple, value pairs, honitsu when the shape is there."""
    han = 1.4  # riichi plus what ura, ippatsu and tsumo add on average
    th = sum(counts[kind] for kind in range(KIND_COUNT) if is_terminal_or_honor(kind))
    if th == 0:
        han += 0.7
    elif th == 1:
        han += 0.3
    han += sum(0.4 * k.value_kinds[kind] for kind in k.value_kinds if counts[kind] >= 2)
    flush = 0.0
    for base in (P1, S1):
        off = sum(c for kind, c in enumerate(counts) if c and off_flush(kind, base))
        flush = max(flush, (3.0, 2.4, 1.5, 0.6)[off] if off < 4 else 0.0)
    pairs = sum(1 for c in counts if c >= 2)
    if pairs >= 5:
        han += 0.5  # chiitoitsu's 2 han on the way
    return han + flush


def estimate_points(k: Knowledge, discard: TileKind | None = None, red: bool = False) -> float:
    """Rough value of the hand once ``discard`` is gone (red: the discard is a red five);
    ``None``: the hand as it is."""
    counts = k.counts[:]
    dora = dora_in_hand(k)
    if discard is not None:
        counts[discard] -= 1
        dora -= k.dora[discard] + (1 if red else 0)
    yaku = closed_yaku_han(k, counts) if k.closed else open_yaku_han(k, counts)
    if yaku <= 0:
        return 0.0
    return han_points(yaku + dora + FUTURE_HAN, k.seat_wind == EAST)


# -- tenpai value by real scoring ----------------------------------------------------------------


def win_context(k: Knowledge, *, tsumo: bool, riichi: bool) -> WinContext:
    """The context of a hypothetical win now (no ippatsu, haitei or ura)."""
    view = k.view
    return WinContext(
        tsumo=tsumo,
        riichi=riichi,
        seat_wind=k.seat_wind,
        round_wind=view.round_wind,
        dora_indicators=tuple(kind_of(t) for t in view.dora_indicators),
        kita=len(view.kita[k.seat]),
        honba=view.honba,
        deposits=view.deposits,
    )


def free_copy(kind: TileKind, hand: list[Tile]) -> Tile:
    """A physical tile of ``kind`` not in ``hand``, not the red five when another will do."""
    for copy in (1, 2, 3, 0):
        tile = kind * 4 + copy
        if tile not in hand:
            return tile
    raise SanmaError(f"all four copies of kind {kind} are in the hand")


def own_counts(k: Knowledge) -> list[int]:
    """Every tile the seat owns by kind: hand, melds, kita (for ``waits(own=...)``)."""
    own = k.counts[:]
    for m in k.melds:
        own[m.kind] += len(m.tiles)
    own[NORTH] += len(k.view.kita[k.seat])
    return own


@dataclass(frozen=True, slots=True)
class Tenpai:
    """A tenpai hand after a discard: its waits, how many are unseen, and the average
    ron value without riichi (``dama``, 0 when some wait has no yaku) and with it."""

    waits: tuple[TileKind, ...]
    live: int
    dama: float
    riichi: float
    dama_yaku_share: float  # share of the live waits that win without riichi


def tenpai_after(k: Knowledge, hand: list[Tile], own: list[int]) -> Tenpai | None:
    """Score each wait of the 13-tile ``hand`` (physical, after the discard); ``None`` when
    the hand is not tenpai.  Red fives, dora, kita and yaku are all exact."""
    counts = [0] * KIND_COUNT
    for t in hand:
        counts[kind_of(t)] += 1
    kinds = waits(counts, k.meld_count, own)
    if not kinds:
        return None
    ctx_dama = win_context(k, tsumo=False, riichi=False)
    ctx_riichi = win_context(k, tsumo=False, riichi=True)
    rules = k.view.rules
    assert rules is not None
    live = dama = riichi = with_yaku = 0.0
    for kind in kinds:
        weight = k.unseen[kind]
        if weight <= 0:
            continue
        win = free_copy(kind, hand)
        tiles = [*hand, win]
        live += weight
        try:
            dama += weight * score_win(tiles, win, k.melds, ctx_dama, rules).total
            with_yaku += weight
        except SanmaError:
            pass
        if k.closed:
            with contextlib.suppress(SanmaError):
                riichi += weight * score_win(tiles, win, k.melds, ctx_riichi, rules).total
    if live <= 0:
        return Tenpai(kinds, 0, 0.0, 0.0, 0.0)
    return Tenpai(kinds, int(live), dama / live, riichi / live, with_yaku / live)


# -- how likely a hand wins ----------------------------------------------------------------------

_TYPICAL_UKEIRE = (6, 20, 34, 46, 56, 64, 70)
# Chance per go-around that someone else ends the hand (a win or, late, the draw).
END_HAZARD = 0.05


def _reach(q: float, turns: float, hazard: float) -> float:
    """Chance a per-turn success of ``q`` happens within ``turns`` while the hand ends
    with ``hazard`` per turn."""
    if turns <= 0 or q <= 0:
        return 0.0
    q = min(q, 0.95)
    stay = (1 - q) * (1 - hazard)
    return float(q / (q + hazard - q * hazard) * (1 - stay**turns))


def win_chance(
    shanten_after: int,
    ukeire: int,
    unseen_total: int,
    turns: float,
    ron_factor: float = 1.8,
    hazard: float = END_HAZARD,
) -> float:
    """Rough chance to win from a hand ``shanten_after`` away with ``ukeire`` improving
    tiles: tenpai wins by draw or ron (``ron_factor`` more chances than own draws alone),
    each earlier step takes about ``unseen/ukeire`` own draws; ``hazard`` is the chance per
    turn that someone else ends the hand first."""
    if shanten_after < 0:
        return 1.0
    n = max(unseen_total, 1)
    if shanten_after == 0:
        return _reach(ron_factor * ukeire / n, turns, hazard)
    p = 1.0
    uke = float(ukeire)
    left = turns
    for step in range(shanten_after, 0, -1):
        q = uke / n
        p *= _reach(q, left, hazard)
        left -= min(left, 1.0 / max(q, 1e-3))
        uke = _TYPICAL_UKEIRE[min(step - 1, len(_TYPICAL_UKEIRE) - 1)]
    return p * _reach(ron_factor * uke / n, left, hazard)


def turns_left(view: SeatView) -> float:
    """Own draws left, about a third of the live wall."""
    return view.live_left / 3.0


# -- simple choices shared by the levels -----------------------------------------------------------


def efficient_discard(k: Knowledge, legal: LegalActions, options: dict[TileKind, Option], riichi: bool) -> Discard:
    """The fastest discard: lowest shanten, most ukeire, then the tile least worth keeping."""
    kinds = {kind_of(a.tile) for a in legal if isinstance(a, Discard) and a.riichi == riichi}

    def merit(kind: TileKind) -> tuple[int, int, float]:
        o = options[kind]
        return (o.shanten, -o.ukeire, keep_value(k, kind))

    kind = min(sorted(kinds), key=merit)
    return pick_tile(tiles_of_kind(legal, kind, riichi), k.red_fives, k.view.drawn)


def tenpai_outlook(k: Knowledge, counts: list[int], improving: dict[TileKind, int]) -> float:
    """Two steps of efficiency for a 1-shanten hand of ``counts`` (13 tiles): each unseen
    improving tile weighted by the live winning tiles of the best tenpai it gives.  Plain
    ukeire counts only how soon tenpai comes; this also counts how good the wait will be."""
    hand = counts[:]
    total = 0.0
    for draw, n in improving.items():
        if n <= 0:
            continue  # every copy in sight: the kind improves nothing now
        hand[draw] += 1
        table = discard_ukeire(hand, k.meld_count, k.visible)
        hand[draw] -= 1
        total += n * max((sum(imp.values()) for s, imp in table.values() if s == 0), default=0)
    return total


def ankan_keeps_speed(k: Knowledge, kind: TileKind, options: dict[TileKind, Option]) -> bool:
    """A closed kan of four held ``kind`` loses no speed against the best discard."""
    if k.counts[kind] != 4:
        return False
    counts = k.counts[:]
    counts[kind] = 0
    best = min(o.shanten for o in options.values())
    return shanten(counts, k.meld_count + 1) <= best


def kakan_ok(k: Knowledge, kind: TileKind) -> bool:
    """An added kan when its fourth tile is a loose tile (the pon is there anyway)."""
    return k.counts[kind] == 1 and any(m.kind == kind and m.type is MeldType.PON for m in k.melds)


def nine_terminal_kinds(k: Knowledge) -> int:
    """Distinct terminal and honor kinds in hand."""
    return sum(1 for kind in range(KIND_COUNT) if k.counts[kind] and is_terminal_or_honor(kind))


def pass_or_default(legal: LegalActions) -> Action:
    """Pass in a window; else the engine's default."""
    if Pass() in legal:
        return Pass()
    assert legal.default is not None
    return legal.default
