"""Scoring a win: readings, fu, han, limits and the payments of sanma (sections 3, 6, 7).

``score_win`` is the entry point for physical tiles: it checks the input and hands the kind
counts to ``score_counts``, the one scorer, which ``sanma score`` also calls straight from a
request's kinds.  It finds every reading of the hand, scores each and keeps the one that pays
the most (ties: more han, then more fu), and answers a ``Score`` that keeps its reading.
Payments follow sanma's tsumo loss: a tsumo is paid by the two other players exactly what they
would pay in four-player mahjong.  See ``docs/scoring.md`` for every convention.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from sanma.engine.context import WinContext
from sanma.engine.decompose import is_winning_shape as _is_winning_shape
from sanma.engine.decompose import standard_readings
from sanma.engine.errors import InvalidHand, NotWinning, NoYaku
from sanma.engine.hand import Meld, MeldKinds
from sanma.engine.reading import Reading
from sanma.engine.rules import Rules
from sanma.engine.tiles import (
    EAST,
    KIND_COUNT,
    NORTH,
    RED_5P,
    RED_5S,
    SOUTH,
    TERMINAL_HONOR_KINDS,
    TILE_COUNT,
    WEST,
    Tile,
    TileKind,
    dora_of,
)
from sanma.engine.yaku import (
    PACKED_UNIT,
    YAKUMAN_HAN,
    YAKUMAN_NAMES,
    Candidate,
    HandFacts,
    Yaku,
    chiitoitsu_candidate,
    fu_breakdown,
    kokushi_candidate,
    standard_candidates,
)

LIMITS = ("none", "mangan", "haneman", "baiman", "sanbaiman", "yakuman")


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
    # How the score was read (None: a score read from another site's log, which records none).
    # Not part of the value: two equal scores may come from two readings that pay the same.
    reading: Reading | None = field(default=None, compare=False)

    @property
    def counted_yakuman(self) -> bool:
        """A yakuman by count (13 han or more of normal yaku and dora), not by a yakuman yaku."""
        return self.yakuman > 0 and not any(name in YAKUMAN_NAMES for name, _ in self.yaku)

    @property
    def fu_breakdown(self) -> tuple[tuple[str, int], ...]:
        """The fu as ``(reason, fu)`` items summing to ``fu`` (empty for a true yakuman)."""
        reading = self.reading
        if reading is None or (self.yakuman and not self.fu):
            return ()
        return fu_breakdown(reading, self.fu)


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


def tsumo_shares(base: int, winner_is_dealer: bool, honba: int) -> tuple[int, int]:
    """(what the dealer pays, what each non-dealer pays) on a tsumo; the dealer's share is 0
    when the winner is the dealer."""
    if winner_is_dealer:
        return 0, _round_up(2 * base) + 100 * honba
    return _round_up(2 * base) + 100 * honba, _round_up(base) + 100 * honba


def tsumo_payments(base: int, winner_is_dealer: bool, honba: int) -> Payments:
    """Tsumo loss: each of the two payers pays its four-player share (dealer 2x, others 1x
    base, rounded up to 100) plus 100 per honba.

    >>> tsumo_payments(1920, False, 1)
    Payments(ron=0, dealer=4000, non_dealer=2100)
    """
    dealer, non_dealer = tsumo_shares(base, winner_is_dealer, honba)
    return Payments(dealer=dealer, non_dealer=non_dealer)


def is_winning_shape(counts: Sequence[int], melds: int) -> bool:
    """Whether the concealed ``counts`` (``14 - 3 * melds`` tiles) form a complete hand."""
    return _is_winning_shape(counts, melds)


def _check(concealed: Sequence[Tile], win_tile: Tile, melds: Sequence[Meld], ctx: WinContext) -> int:
    """Validate the physical input and the context's values (not the flags' combination:
    ``score_counts`` checks that); return the kind counts of the concealed tiles packed in one
    integer (one byte per kind)."""
    n = len(concealed)
    if n + 3 * len(melds) != 14:
        raise InvalidHand(f"a winning hand has 14 tiles counting each meld as 3; got {n} + {len(melds)} melds")
    everything = concealed
    if melds:
        everything = [*concealed]
        for m in melds:
            everything += m.tiles
    if len(set(everything)) != len(everything):
        raise InvalidHand("the same physical tile appears twice")
    try:
        packed: int = sum(map(_UNIT.__getitem__, concealed))
        for m in melds:
            _UNIT[m.tiles[0]]  # a meld is one kind: its first tile is in range if all are
    except (KeyError, TypeError):
        raise InvalidHand("tile number out of range") from None
    if win_tile not in concealed:
        raise InvalidHand("the winning tile must be among the concealed tiles")
    kita = ctx.kita
    if kita:
        if not 0 <= kita <= 4:
            raise InvalidHand(f"kita must be 0..4, not {kita}")
        norths = (packed >> (8 * NORTH)) & 0xFF
        for m in melds:
            if m.tiles[0] >> 2 == NORTH:
                norths += len(m.tiles)
        if norths + kita > 4:
            raise InvalidHand("more than four Norths counting the extracted ones")
    if ctx.honba < 0 or ctx.deposits < 0:
        raise InvalidHand("honba and deposits cannot be negative")
    if ctx.seat_wind not in _SEATS:
        raise InvalidHand("the seat wind is East, South or West")
    if ctx.round_wind not in _SEATS:
        # West only for replaying other sites' West-round extensions (sanma-rules.md section 12).
        raise InvalidHand("the round wind is East or South (West only in a West-round extension)")
    if not _KINDS.issuperset(ctx.dora_indicators) or (ctx.ura_indicators and not _KINDS.issuperset(ctx.ura_indicators)):
        raise InvalidHand("indicator kind out of range")
    return packed  # the flags' combination is checked next, by score_counts


_SEATS: Final = (EAST, SOUTH, WEST)
_KINDS: Final = frozenset(range(KIND_COUNT))
_TH_MASK: Final = sum(0xFF << (8 * k) for k in TERMINAL_HONOR_KINDS)
_NOT_TH: Final = ((1 << (8 * KIND_COUNT)) - 1) ^ _TH_MASK
# Physical tile -> its kind's byte in packed counts; a dict, so a bad tile number is a KeyError.
_UNIT: Final = dict(enumerate(PACKED_UNIT))
assert len(_UNIT) == TILE_COUNT
# Indicator kind -> the bit position of its dora's count in packed counts.
_DORA_SHIFT: Final = tuple(8 * dora_of(k) for k in range(KIND_COUNT))
_NORTH_SHIFT: Final = 8 * NORTH
# Base points of 5..13 han (limits do not depend on fu).
_LIMIT_BASE: Final = tuple(base_points(han, 20, 0) if han >= 5 else 0 for han in range(14))


def _check_flags(ctx: WinContext, melds: Sequence[MeldKinds]) -> None:
    """Raise ``InvalidHand`` for a combination of flags that cannot happen."""
    # Only these flags (and riichi with melds) can make an impossible combination.
    if not (
        ctx.tenhou
        or ctx.chiihou
        or ctx.haitei
        or ctx.houtei
        or ctx.chankan
        or ctx.rinshan
        or (
            (ctx.riichi or ctx.double_riichi or ctx.ura_indicators or ctx.ippatsu)
            and (melds or not (ctx.riichi or ctx.double_riichi))
        )
    ):
        return
    riichi = ctx.riichi or ctx.double_riichi
    why = ""
    if ctx.ura_indicators and not riichi:
        why = "ura-dora without riichi"
    elif ctx.ippatsu and not riichi:
        why = "ippatsu without riichi"
    elif riichi and melds and not all(closed for _, _, closed in melds):
        why = "riichi with an open meld"
    elif ctx.tenhou and (ctx.seat_wind != EAST or melds):
        why = "tenhou is only the dealer's closed starting hand"
    elif ctx.chiihou and (ctx.seat_wind == EAST or melds):
        why = "chiihou is only a non-dealer's first draw"
    elif ctx.tenhou and ctx.chiihou:
        why = "tenhou and chiihou together"
    elif (ctx.tenhou or ctx.chiihou) and not ctx.tsumo:
        why = "tenhou and chiihou are tsumo wins"
    elif ctx.haitei and not ctx.tsumo:
        why = "haitei with ron"
    elif ctx.houtei and ctx.tsumo:
        why = "houtei with tsumo"
    elif ctx.chankan and ctx.tsumo:
        why = "chankan with tsumo"
    elif ctx.rinshan and not ctx.tsumo:
        why = "rinshan with ron"
    elif ctx.rinshan and ctx.haitei:
        why = "a replacement draw is rinshan, never haitei"
    elif ctx.houtei and ctx.chankan:
        why = "a robbed kan tile is never the last discard"
    if why:
        raise InvalidHand(f"impossible combination: {why}")


def _dora_count(all_packed: int, indicators: Sequence[TileKind], kita: int) -> int:
    n = 0
    for ind in indicators:
        shift = _DORA_SHIFT[ind]
        n += (all_packed >> shift) & 0xFF
        if shift == _NORTH_SHIFT:
            n += kita  # each extracted North is that dora too
    return n


def _bonus_yaku(all_packed: int, ctx: WinContext, red: int) -> list[Yaku]:
    """Dora, ura-dora, red fives (``red``: how many the hand and its melds hold) and kita:
    han that are not yaku."""
    out: list[Yaku] = []
    kita = ctx.kita
    if ctx.dora_indicators:
        dora = _dora_count(all_packed, ctx.dora_indicators, kita)
        if dora:
            out.append(("dora", dora))
    if ctx.ura_indicators and (ctx.riichi or ctx.double_riichi):
        ura = _dora_count(all_packed, ctx.ura_indicators, kita)
        if ura:
            out.append(("ura_dora", ura))
    if red:
        out.append(("red_dora", red))
    if kita:
        out.append(("kita", kita))
    return out


def score_win(concealed: Sequence[Tile], win_tile: Tile, melds: Sequence[Meld], ctx: WinContext, rules: Rules) -> Score:
    """Score a win.  ``concealed`` includes ``win_tile``; tiles are physical, so red fives count.

    Every reading of the hand is scored and the one that pays the most is kept (at equal
    payment a true yakuman before a counted one, then more han, then more fu).

    Raises ``InvalidHand`` for impossible input, ``NotWinning`` when the tiles are not
    complete, ``NoYaku`` when no reading has a yaku.
    """
    packed = _check(concealed, win_tile, melds, ctx)
    red = 0
    if rules.red_fives:
        red = (RED_5P in concealed) + (RED_5S in concealed)
        for m in melds:
            red += (RED_5P in m.tiles) + (RED_5S in m.tiles)
    return score_counts(packed, win_tile >> 2, tuple([m.kinds for m in melds]), ctx, rules, red)


def score_counts(
    packed: int,
    win_kind: TileKind,
    melds: tuple[MeldKinds, ...],
    ctx: WinContext,
    rules: Rules,
    red: int,
) -> Score:
    """Score a win from kind counts: the one scorer, which ``score_win`` calls once it has
    checked the physical tiles, and ``sanma score`` calls straight from a request's kinds.

    ``packed`` are the concealed kind counts (``14 - 3 * len(melds)`` tiles, the winning tile
    included) packed one byte per kind; ``red`` how many red fives the hand and melds hold
    (0 without red fives).  The
    caller has checked that the tiles can exist, the tile total and the context's values; the
    flags' combination is checked here.
    """
    _check_flags(ctx, melds)
    standard = standard_readings(packed)
    counts = b""
    special = False
    if not melds:
        counts = packed.to_bytes(KIND_COUNT, "little")
        # Seven pairs: counts.count is C-speed; kokushi: only the 13 terminal/honor kinds, all present.
        special = counts.count(2) == 7 or (not packed & _NOT_TH and counts.count(0) == KIND_COUNT - 13)
    if not standard and not special:
        raise NotWinning("the tiles do not form a complete hand")
    facts = HandFacts(counts, packed, melds, win_kind, ctx, rules)
    candidates: list[Candidate] = []
    for reading in standard:
        standard_candidates(reading, facts, rules, candidates)
    if special:
        if counts.count(0) == KIND_COUNT - 13:
            candidates.append(kokushi_candidate(facts, rules))
        else:
            candidates.append(chiitoitsu_candidate(facts))
    bonus: list[Yaku] | None = None
    bonus_han = 0
    best: tuple[int, int, int, int] | None = None
    chosen: Candidate | None = None
    for cand in candidates:
        yaku, multiple, fu, _ = cand
        if multiple:
            key = (8000 * multiple, 1, YAKUMAN_HAN * multiple, 0)
        elif not yaku:
            continue
        else:
            if bonus is None:
                bonus = _bonus_yaku(facts.all_packed, ctx, red)
                for _, h in bonus:
                    bonus_han += h
            han = bonus_han
            for _, h in yaku:
                han += h
            base = min(2000, fu << (han + 2)) if han < 5 else _LIMIT_BASE[min(han, 13)]  # = base_points
            key = (base, 0, han, fu)
        if best is None or key > best:
            best, chosen = key, cand
    if chosen is None or best is None:
        raise NoYaku("the hand is complete but has no yaku")
    yaku, multiple, fu, parts = chosen
    base, _, han, _ = best
    dealer = ctx.seat_wind == EAST
    if ctx.tsumo:
        dealer_pays, non_dealer_pays = tsumo_shares(base, dealer, ctx.honba)
        payments = Payments(0, dealer_pays, non_dealer_pays)
        paid = 2 * non_dealer_pays if dealer else dealer_pays + non_dealer_pays
    else:
        paid = ron_payment(base, dealer, ctx.honba)
        payments = Payments(paid, 0, 0)
    yakuman = multiple or (1 if han >= 13 else 0)
    return Score(
        han,
        fu,
        yakuman,
        limit_name(han, base, yakuman),
        tuple(yaku if multiple else yaku + bonus) if bonus else tuple(yaku),
        base,
        payments,
        paid + 1000 * ctx.deposits,
        Reading(*parts, win_kind, ctx.tsumo, ctx.seat_wind, ctx.round_wind, melds),
    )
