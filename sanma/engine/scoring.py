"""Scoring a win: readings, fu, han, limits and the payments of sanma (sections 3, 6, 7).

``score_win`` is the one entry point: it checks the input, finds every reading of the hand,
scores each and keeps the one that pays the most (ties: more han, then more fu).  Payments
follow sanma's tsumo loss: a tsumo is paid by the two other players exactly what they would
pay in four-player mahjong.  See ``docs/scoring.md`` for every convention.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sanma.engine.decompose import decompositions
from sanma.engine.decompose import is_winning_shape as _is_winning_shape
from sanma.engine.errors import InvalidHand, NotWinning, NoYaku
from sanma.engine.hand import Meld
from sanma.engine.rules import Rules
from sanma.engine.tiles import (
    EAST,
    KIND_COUNT,
    NORTH,
    SOUTH,
    TILE_COUNT,
    WEST,
    WHITE,
    Tile,
    TileKind,
    dora_of,
    is_red,
    is_terminal_or_honor,
    kind_name,
)
from sanma.engine.yaku import (
    HandFacts,
    MeldFacts,
    Reading,
    hand_facts,
    is_pinfu,
    readings,
    sets_of,
    yaku_of,
    yakuman_of,
)

LIMITS = ("none", "mangan", "haneman", "baiman", "sanbaiman", "yakuman")


@dataclass(frozen=True, slots=True)
class WinContext:
    """How and when a hand won, and the table state that scoring needs."""

    tsumo: bool = False
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    rinshan: bool = False
    chankan: bool = False
    haitei: bool = False
    houtei: bool = False
    tenhou: bool = False
    chiihou: bool = False
    seat_wind: TileKind = EAST
    round_wind: TileKind = EAST  # EAST or SOUTH; WEST only to replay other sites' West rounds
    dora_indicators: tuple[TileKind, ...] = ()
    ura_indicators: tuple[TileKind, ...] = ()
    kita: int = 0
    honba: int = 0
    deposits: int = 0


@dataclass(frozen=True, slots=True)
class Payments:
    """What each payer pays, honba included.  Exactly one shape is used per win:
    ``ron`` from the discarder; on a non-dealer's tsumo ``dealer`` and ``non_dealer``;
    on the dealer's tsumo ``non_dealer`` from each of the two others."""

    ron: int = 0
    dealer: int = 0
    non_dealer: int = 0

    def as_dict(self, tsumo: bool, winner_is_dealer: bool) -> dict[str, int]:
        """The ``payments`` object of ``sanma score`` (spec/cli.md)."""
        if not tsumo:
            return {"ron": self.ron}
        if winner_is_dealer:
            return {"non_dealer": self.non_dealer}
        return {"dealer": self.dealer, "non_dealer": self.non_dealer}

    def total(self, tsumo: bool, winner_is_dealer: bool) -> int:
        """Everything the payers hand over together."""
        if not tsumo:
            return self.ron
        if winner_is_dealer:
            return 2 * self.non_dealer
        return self.dealer + self.non_dealer


@dataclass(frozen=True, slots=True)
class Score:
    """The scored win.  ``yakuman`` is the multiplier (0 for a normal hand); a true yakuman
    reports ``han = 13 * yakuman`` and ``fu = 0``; a counted yakuman its real han and fu."""

    han: int
    fu: int
    yakuman: int
    limit: str
    yaku: tuple[tuple[str, int], ...]
    base: int
    payments: Payments
    total: int
    fu_breakdown: tuple[tuple[str, int], ...] = ()
    reading: Reading | None = None


def base_points(han: int, fu: int, yakuman: int) -> int:
    """Base points: ``fu * 2**(han + 2)`` capped at the limits; yakuman 8,000 per multiple.

    >>> base_points(3, 70, 0), base_points(4, 30, 0), base_points(13, 30, 0), base_points(26, 0, 2)
    (2000, 1920, 8000, 16000)
    """
    if yakuman:
        return 8000 * yakuman
    if han >= 13:
        return 8000
    if han >= 11:
        return 6000
    if han >= 8:
        return 4000
    if han >= 6:
        return 3000
    return min(2000, fu << (han + 2))


def limit_name(han: int, base: int, yakuman: int) -> str:
    """``none``, ``mangan``, ``haneman``, ``baiman``, ``sanbaiman`` or ``yakuman``."""
    if yakuman or han >= 13:
        return "yakuman"
    if han >= 11:
        return "sanbaiman"
    if han >= 8:
        return "baiman"
    if han >= 6:
        return "haneman"
    if base >= 2000:
        return "mangan"
    return "none"


def _round_up(points: int) -> int:
    return -(-points // 100) * 100


def ron_payment(base: int, winner_is_dealer: bool, honba: int) -> int:
    """What the discarder pays: 6x (dealer) or 4x base rounded up to 100, plus 200 per honba.

    >>> ron_payment(1920, False, 0), ron_payment(1920, True, 2)
    (7700, 12000)
    """
    return _round_up(base * (6 if winner_is_dealer else 4)) + 200 * honba


def tsumo_payments(base: int, winner_is_dealer: bool, honba: int) -> Payments:
    """Tsumo loss: each of the two payers pays its four-player share (dealer 2x, others 1x
    base, rounded up to 100) plus 100 per honba.

    >>> tsumo_payments(1920, False, 1)
    Payments(ron=0, dealer=4000, non_dealer=2100)
    """
    if winner_is_dealer:
        return Payments(non_dealer=_round_up(2 * base) + 100 * honba)
    return Payments(dealer=_round_up(2 * base) + 100 * honba, non_dealer=_round_up(base) + 100 * honba)


def is_winning_shape(counts: Sequence[int], melds: int) -> bool:
    """Whether the concealed ``counts`` (``14 - 3 * melds`` tiles) form a complete hand."""
    return _is_winning_shape(counts, melds)


def _check(concealed: Sequence[Tile], win_tile: Tile, melds: Sequence[Meld], ctx: WinContext) -> None:
    if len(concealed) + 3 * len(melds) != 14:
        raise InvalidHand(
            f"a winning hand has 14 tiles counting each meld as 3; got {len(concealed)} + {len(melds)} melds"
        )
    everything = list(concealed)
    for m in melds:
        everything.extend(m.tiles)
    if any(not 0 <= t < TILE_COUNT for t in everything):
        raise InvalidHand("tile number out of range")
    if len(set(everything)) != len(everything):
        raise InvalidHand("the same physical tile appears twice")
    if win_tile not in concealed:
        raise InvalidHand("the winning tile must be among the concealed tiles")
    if not 0 <= ctx.kita <= 4:
        raise InvalidHand(f"kita must be 0..4, not {ctx.kita}")
    if sum(t >> 2 == NORTH for t in everything) + ctx.kita > 4:
        raise InvalidHand("more than four Norths counting the extracted ones")
    if ctx.honba < 0 or ctx.deposits < 0:
        raise InvalidHand("honba and deposits cannot be negative")
    if ctx.seat_wind not in (EAST, SOUTH, WEST):
        raise InvalidHand("the seat wind is East, South or West")
    if ctx.round_wind not in (EAST, SOUTH, WEST):
        # West only for replaying other sites' West-round extensions (sanma-rules.md section 12).
        raise InvalidHand("the round wind is East or South (West only in a West-round extension)")
    for k in (*ctx.dora_indicators, *ctx.ura_indicators):
        if not 0 <= k < KIND_COUNT:
            raise InvalidHand("indicator kind out of range")
    riichi = ctx.riichi or ctx.double_riichi
    opened = any(m.is_open for m in melds)
    problems = [
        (ctx.ura_indicators and not riichi, "ura-dora without riichi"),
        (ctx.ippatsu and not riichi, "ippatsu without riichi"),
        (riichi and opened, "riichi with an open meld"),
        (ctx.tenhou and (ctx.seat_wind != EAST or melds), "tenhou is only the dealer's closed starting hand"),
        (ctx.chiihou and (ctx.seat_wind == EAST or melds), "chiihou is only a non-dealer's first draw"),
        ((ctx.tenhou or ctx.chiihou) and not ctx.tsumo, "tenhou and chiihou are tsumo wins"),
        (ctx.haitei and not ctx.tsumo, "haitei with ron"),
        (ctx.houtei and ctx.tsumo, "houtei with tsumo"),
        (ctx.chankan and ctx.tsumo, "chankan with tsumo"),
        (ctx.rinshan and not ctx.tsumo, "rinshan with ron"),
        (ctx.rinshan and ctx.haitei, "a replacement draw is rinshan, never haitei"),
    ]
    for bad, why in problems:
        if bad:
            raise InvalidHand(f"impossible combination: {why}")


def fu_of(reading: Reading, facts: HandFacts, ctx: WinContext, pinfu: bool) -> tuple[int, tuple[tuple[str, int], ...]]:
    """Fu of a normal reading (rounded up to 10) and its itemised breakdown."""
    d = reading.decomposition
    if d.form == "chiitoitsu":
        return 25, (("chiitoitsu", 25),)
    if d.form == "kokushi":
        return 0, ()
    if pinfu:
        if ctx.tsumo:
            return 20, (("base", 20),)
        return 30, (("base", 20), ("closed_ron", 10))
    items: list[tuple[str, int]] = [("base", 20)]
    if facts.menzen and not ctx.tsumo:
        items.append(("closed_ron", 10))
    if ctx.tsumo:
        items.append(("tsumo", 2))
    for s in sets_of(reading, facts, ctx.tsumo):
        if s.sequence:
            continue
        fu = 2 * (2 if is_terminal_or_honor(s.kind) else 1) * (2 if s.concealed else 1) * (4 if s.kan else 1)
        label = ("closed_" if s.concealed else "open_") + ("kan" if s.kan else "triplet")
        items.append((f"{label} {kind_name(s.kind)}", fu))
    pair_fu = 0
    if d.pair >= WHITE:
        pair_fu += 2
    if d.pair == ctx.seat_wind:
        pair_fu += 2
    if d.pair == ctx.round_wind:
        pair_fu += 2
    if pair_fu:
        items.append((f"pair {kind_name(d.pair)}", pair_fu))
    if reading.wait in ("kanchan", "penchan", "tanki"):
        items.append((f"wait {reading.wait}", 2))
    raw = sum(fu for _, fu in items)
    total = -(-raw // 10) * 10
    if total == 20 and not facts.menzen:
        # An open hand without fu still scores 30.
        total = 30
    if total != raw:
        items.append(("round_up", total - raw))
    return total, tuple(items)


def _dora(facts: HandFacts, indicators: Sequence[TileKind], kita: int) -> int:
    n = 0
    for ind in indicators:
        k = dora_of(ind)
        n += facts.all_counts[k]
        if k == NORTH:
            n += kita
    return n


def _meld_facts(melds: Sequence[Meld]) -> tuple[MeldFacts, ...]:
    return tuple(MeldFacts(m.kind, m.is_kan, m.is_open) for m in melds)


def score_win(concealed: Sequence[Tile], win_tile: Tile, melds: Sequence[Meld], ctx: WinContext, rules: Rules) -> Score:
    """Score a win.  ``concealed`` includes ``win_tile``; tiles are physical, so red fives count.

    Raises ``InvalidHand`` for impossible input, ``NotWinning`` when the tiles are not
    complete, ``NoYaku`` when no reading has a yaku.
    """
    _check(concealed, win_tile, melds, ctx)
    counts = [0] * KIND_COUNT
    for t in concealed:
        counts[t >> 2] += 1
    found = decompositions(counts, len(melds))
    if not found:
        raise NotWinning("the tiles do not form a complete hand")
    win_kind = win_tile >> 2
    facts = hand_facts(counts, _meld_facts(melds), win_kind)
    # Best payment first; at equal payment a true yakuman beats a counted one, then han, then fu.
    best: tuple[int, int, int, int] | None = None
    chosen: tuple[Reading, list[tuple[str, int]], int, int, tuple[tuple[str, int], ...]] | None = None
    extra: list[tuple[str, int]] | None = None
    for d in found:
        for r in readings(d, win_kind):
            limits = yakuman_of(r, facts, ctx, rules)
            if limits:
                mult = sum(h for _, h in limits) // 13
                key = (8000 * mult, 1, 13 * mult, 0)
                if best is None or key > best:
                    best, chosen = key, (r, limits, mult, 0, ())
                continue
            yaku = yaku_of(r, facts, ctx)
            if not yaku:
                continue
            if extra is None:
                extra = _dora_yaku(concealed, melds, facts, ctx, rules)
            han = sum(h for _, h in yaku) + sum(h for _, h in extra)
            fu, breakdown = fu_of(r, facts, ctx, is_pinfu(yaku))
            key = (base_points(han, fu, 0), 0, han, fu)
            if best is None or key > best:
                best, chosen = key, (r, yaku + extra, 0, fu, breakdown)
    if chosen is None or best is None:
        raise NoYaku("the hand is complete but has no yaku")
    reading, yaku_list, mult, fu, breakdown = chosen
    base, _, han, _ = best
    dealer = ctx.seat_wind == EAST
    if ctx.tsumo:
        payments = tsumo_payments(base, dealer, ctx.honba)
    else:
        payments = Payments(ron=ron_payment(base, dealer, ctx.honba))
    yakuman = mult or (1 if han >= 13 else 0)
    return Score(
        han=han,
        fu=fu,
        yakuman=yakuman,
        limit=limit_name(han, base, yakuman),
        yaku=tuple(yaku_list),
        base=base,
        payments=payments,
        total=payments.total(ctx.tsumo, dealer) + 1000 * ctx.deposits,
        fu_breakdown=breakdown,
        reading=reading,
    )


def _dora_yaku(
    concealed: Sequence[Tile], melds: Sequence[Meld], facts: HandFacts, ctx: WinContext, rules: Rules
) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    dora = _dora(facts, ctx.dora_indicators, ctx.kita)
    if dora:
        out.append(("dora", dora))
    if ctx.riichi or ctx.double_riichi:
        ura = _dora(facts, ctx.ura_indicators, ctx.kita)
        if ura:
            out.append(("ura_dora", ura))
    red = sum(is_red(t, rules.red_fives) for t in concealed) + sum(m.red_count(rules.red_fives) for m in melds)
    if red:
        out.append(("red_dora", red))
    if ctx.kita:
        out.append(("kita", ctx.kita))
    return out
