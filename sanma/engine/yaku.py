"""Yaku and fu of the readings of a winning hand (sanma-rules.md sections 6 and 7).

``scoring.score_win`` builds ``HandFacts`` once per hand (everything that does not depend on
how the hand is read: tile classes, suits, melds, the flag yaku, the hand-wide yakuman) and
then asks ``standard_candidates`` / ``chiitoitsu_candidate`` / ``kokushi_candidate`` for
every reading.  Readings are plain tuples on this hot path: a standard decomposition is a
``decompose.StandardReading`` from ``decompose.standard_readings`` (pair, sequences, concealed
triplets and what the suit table already knows of them: peikou, ittsu, chanta shape, fu).

Dora, ura-dora, red fives and kita are counted by ``scoring``: they are not yaku.  Yaku ids
are those of ``spec/cli.md``.  A yakuman reading drops every normal yaku.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from sanma.engine.context import WinContext
from sanma.engine.decompose import Form, StandardReading
from sanma.engine.hand import MeldKinds
from sanma.engine.reading import Reading, Wait
from sanma.engine.rules import Rules
from sanma.engine.tiles import (
    EAST,
    GREEN,
    GREEN_KINDS,
    KIND_COUNT,
    M1,
    M9,
    NORTH,
    P1,
    RED,
    S1,
    TERMINAL_HONOR_KINDS,
    WHITE,
    TileKind,
    kind_name,
)

Yaku = tuple[str, int]

YAKUMAN_HAN: Final = 13

# Closed and open han of the normal yaku (0 = not allowed open).
HAN: Final[dict[str, tuple[int, int]]] = {
    "riichi": (1, 0),
    "double_riichi": (2, 0),
    "ippatsu": (1, 0),
    "menzen_tsumo": (1, 0),
    "tanyao": (1, 1),
    "pinfu": (1, 0),
    "iipeikou": (1, 0),
    "ryanpeikou": (3, 0),
    "yakuhai_white": (1, 1),
    "yakuhai_green": (1, 1),
    "yakuhai_red": (1, 1),
    "seat_wind": (1, 1),
    "round_wind": (1, 1),
    "rinshan": (1, 1),
    "chankan": (1, 1),
    "haitei": (1, 1),
    "houtei": (1, 1),
    "sanshoku": (2, 1),
    "ittsu": (2, 1),
    "chanta": (2, 1),
    "junchan": (3, 2),
    "chiitoitsu": (2, 0),
    "toitoi": (2, 2),
    "sanankou": (2, 2),
    "sanshoku_doukou": (2, 2),
    "sankantsu": (2, 2),
    "shousangen": (2, 2),
    "honroutou": (2, 2),
    "honitsu": (3, 2),
    "chinitsu": (6, 5),
}

# The order of cli.md's id list; the chosen reading's yaku are reported in it.
_CLI_ORDER: Final = (
    "riichi",
    "double_riichi",
    "ippatsu",
    "menzen_tsumo",
    "tanyao",
    "pinfu",
    "iipeikou",
    "ryanpeikou",
    "yakuhai_white",
    "yakuhai_green",
    "yakuhai_red",
    "seat_wind",
    "round_wind",
    "rinshan",
    "chankan",
    "haitei",
    "houtei",
    "sanshoku",
    "ittsu",
    "chanta",
    "junchan",
    "chiitoitsu",
    "toitoi",
    "sanankou",
    "sanshoku_doukou",
    "sankantsu",
    "shousangen",
    "honroutou",
    "honitsu",
    "chinitsu",
    "dora",
    "ura_dora",
    "red_dora",
    "kita",
    "kokushi",
    "kokushi_13",
    "suuankou",
    "suuankou_tanki",
    "daisangen",
    "shousuushii",
    "daisuushii",
    "tsuuiisou",
    "chinroutou",
    "ryuuiisou",
    "chuuren",
    "junsei_chuuren",
    "suukantsu",
    "tenhou",
    "chiihou",
)
ORDER: Final = {name: i for i, name in enumerate(_CLI_ORDER)}
BONUS_NAMES: Final = frozenset({"dora", "ura_dora", "red_dora", "kita"})
YAKUMAN_NAMES: Final = frozenset(_CLI_ORDER) - set(HAN) - BONUS_NAMES
"""The yakuman ids: a true yakuman lists only these; a counted yakuman (13+ han) none."""

_DRAGON_YAKU: Final = {WHITE: ("yakuhai_white", 1), GREEN: ("yakuhai_green", 1), RED: ("yakuhai_red", 1)}
_TH: Final = tuple(k in TERMINAL_HONOR_KINDS for k in range(KIND_COUNT))
# Position of a kind in its suit, 0..8 (for waits): 1 and 7 starts make penchan.
_NUMBER: Final = tuple((k - P1) % 9 if P1 <= k < EAST else -1 for k in range(KIND_COUNT))


def _mask(kinds: Sequence[TileKind] | range) -> int:
    """A byte mask over packed counts (byte ``k`` holds the count of kind ``k``)."""
    m = 0
    for k in kinds:
        m |= 0xFF << (8 * k)
    return m


# Packed counts: one byte per kind, so ``sum`` of these per tile gives all 27 counts at once.
PACKED_UNIT: Final = tuple(1 << (8 * (t >> 2)) for t in range(108))


_TH_MASK: Final = _mask(TERMINAL_HONOR_KINDS)
_HONOR_MASK: Final = _mask(range(EAST, KIND_COUNT))
_TERMINAL_MASK: Final = _mask((M1, M9, P1, P1 + 8, S1, S1 + 8))
_GREEN_MASK: Final = _mask(GREEN_KINDS)
_MAN_MASK: Final = _mask((M1, M9))
_PIN_MASK: Final = _mask(range(P1, S1))
_SOU_MASK: Final = _mask(range(S1, EAST))
# The complements within the 27 kinds (positive: ``packed & ~mask`` makes a negative int each time).
_ALL_KINDS: Final = (1 << (8 * KIND_COUNT)) - 1
_NOT_TH: Final = _ALL_KINDS ^ _TH_MASK
_NOT_HONOR: Final = _ALL_KINDS ^ _HONOR_MASK
_NOT_TERMINAL: Final = _ALL_KINDS ^ _TERMINAL_MASK
_NOT_GREEN: Final = _ALL_KINDS ^ _GREEN_MASK
_SANSHOKU_DOUKOU: Final = (frozenset({M1, P1, S1}), frozenset({M9, P1 + 8, S1 + 8}))
_JUNSEI: Final = [3, 1, 1, 1, 1, 1, 1, 1, 3]


class HandFacts:
    """Everything about a winning hand that does not depend on its reading.

    The reading-independent yaku are kept as three runs so that a reading's yaku list keeps
    one fixed order: ``head`` (riichi, ippatsu, menzen tsumo, tanyao), ``late_yaku`` (rinshan,
    chankan, haitei, houtei) and ``tail`` (sankantsu, honroutou, honitsu or chinitsu).
    """

    __slots__ = (
        "all_packed",
        "base_fu",
        "counts",
        "hand_yakuman",
        "has_honor",
        "head",
        "late_yaku",
        "meld_kinds",
        "melds_terminal",
        "menzen",
        "n_ankan",
        "round",
        "seat",
        "tail",
        "tsumo",
        "win_kind",
    )

    def __init__(
        self,
        counts: bytes,
        packed: int,
        melds: Sequence[MeldKinds],
        win_kind: TileKind,
        ctx: WinContext,
        rules: Rules,
    ) -> None:
        """``packed`` are the concealed kind counts packed in an integer, one byte per kind
        (see ``PACKED_UNIT``); ``counts`` the same as bytes, needed only for a closed hand
        (chiitoitsu, kokushi, chuuren; may be empty otherwise)."""
        meld_fu = kans = n_ankan = 0
        menzen = melds_terminal = True
        meld_kinds: tuple[TileKind, ...] = ()
        if melds:
            kinds = []
            for k, size, closed in melds:
                kinds.append(k)
                packed += size << (8 * k)
                fu = 4 if _TH[k] else 2
                if not _TH[k]:
                    melds_terminal = False
                if size == 4:
                    kans += 1
                    fu *= 4
                if closed:
                    n_ankan += 1
                    fu *= 2
                else:
                    menzen = False
                meld_fu += fu
            meld_kinds = tuple(kinds)
        tsumo = ctx.tsumo
        self.counts = counts
        self.all_packed = packed
        self.meld_kinds = meld_kinds
        self.melds_terminal = melds_terminal
        self.base_fu = 20 + (2 if tsumo else (10 if menzen else 0)) + meld_fu
        self.n_ankan = n_ankan
        self.menzen = menzen
        self.win_kind = win_kind
        self.tsumo = tsumo
        self.seat = ctx.seat_wind
        self.round = ctx.round_wind
        terminal_honor_only = not packed & _NOT_TH
        has_honor = self.has_honor = packed & _HONOR_MASK != 0
        man = packed & _MAN_MASK
        suits = (1 if man else 0) + (1 if packed & _PIN_MASK else 0) + (1 if packed & _SOU_MASK else 0)
        head = _flag_yaku(ctx, menzen) if ctx.riichi or ctx.double_riichi or tsumo else []
        if not packed & _TH_MASK:
            head.append(("tanyao", 1))
        self.head = head
        self.late_yaku = _late_flag_yaku(ctx) if ctx.rinshan or ctx.chankan or ctx.haitei or ctx.houtei else []
        tail: list[Yaku] = []
        if kans == 3:
            tail.append(("sankantsu", 2))
        if terminal_honor_only:
            tail.append(("honroutou", 2))
        if suits == 1:
            if has_honor:
                tail.append(("honitsu", 3 if menzen else 2))
            else:
                tail.append(("chinitsu", 6 if menzen else 5))
        self.tail = tail
        yakuman: list[Yaku] = []
        if ctx.tenhou:
            yakuman.append(("tenhou", YAKUMAN_HAN))
        if ctx.chiihou:
            yakuman.append(("chiihou", YAKUMAN_HAN))
        if terminal_honor_only:
            if not packed & _NOT_HONOR:
                yakuman.append(("tsuuiisou", YAKUMAN_HAN))
            if not packed & _NOT_TERMINAL:
                yakuman.append(("chinroutou", YAKUMAN_HAN))
        elif not packed & _NOT_GREEN:
            yakuman.append(("ryuuiisou", YAKUMAN_HAN))
        if suits == 1 and not melds and not has_honor and not man:
            chuuren = _chuuren(counts, win_kind, P1 if packed & _PIN_MASK else S1)
            if chuuren:
                yakuman.append(_yakuman("chuuren", chuuren if chuuren != "chuuren" else None, rules))
        if kans == 4:
            yakuman.append(("suukantsu", YAKUMAN_HAN))
        self.hand_yakuman = yakuman


def _flag_yaku(ctx: WinContext, menzen: bool) -> list[Yaku]:
    out: list[Yaku] = []
    if ctx.double_riichi:
        out.append(("double_riichi", 2))
    elif ctx.riichi:
        out.append(("riichi", 1))
    if ctx.ippatsu:
        out.append(("ippatsu", 1))
    if ctx.tsumo and menzen:
        out.append(("menzen_tsumo", 1))
    return out


def _late_flag_yaku(ctx: WinContext) -> list[Yaku]:
    out: list[Yaku] = []
    if ctx.rinshan:
        out.append(("rinshan", 1))
    if ctx.chankan:
        out.append(("chankan", 1))
    if ctx.haitei:
        out.append(("haitei", 1))
    if ctx.houtei:
        out.append(("houtei", 1))
    return out


def _chuuren(counts: bytes, win_kind: TileKind, base: TileKind) -> str:
    run = list(counts[base : base + 9])
    if run[0] < 3 or run[8] < 3 or not all(run[1:8]):
        return ""
    run[win_kind - base] -= 1
    return "junsei_chuuren" if run == _JUNSEI else "chuuren"


def _yakuman(name: str, double_name: str | None, rules: Rules) -> Yaku:
    """A yakuman entry: ``double_name`` counts double when the rules have double yakuman,
    otherwise it is reported under ``name`` as a single yakuman."""
    if double_name is not None and rules.double_yakuman:
        return (double_name, 2 * YAKUMAN_HAN)
    return (name, YAKUMAN_HAN)


# A candidate: (yaku, yakuman multiple, fu or 0, reading parts for Reading and the fu breakdown)
Parts = tuple[Form, int, tuple[int, ...], tuple[int, ...], Wait, str]
Candidate = tuple[list[Yaku], int, int, Parts]


def chiitoitsu_candidate(facts: HandFacts) -> Candidate:
    """The one reading of seven pairs (25 fu)."""
    counts = facts.counts
    pairs = tuple(k for k in range(KIND_COUNT) if counts[k] == 2)
    parts: Parts = ("chiitoitsu", -1, pairs, (), "tanki", "pair")
    if facts.hand_yakuman:
        return facts.hand_yakuman, _multiple(facts.hand_yakuman), 0, parts
    return [*facts.head, *facts.late_yaku, ("chiitoitsu", 2), *facts.tail], 0, 25, parts


def kokushi_candidate(facts: HandFacts, rules: Rules) -> Candidate:
    """The one reading of kokushi musou (13-sided when the winning tile made the pair)."""
    pair = next(k for k in TERMINAL_HONOR_KINDS if facts.counts[k] == 2)
    thirteen = pair == facts.win_kind
    yaku = [*facts.hand_yakuman, _yakuman("kokushi", "kokushi_13" if thirteen else None, rules)]
    wait: Wait = "thirteen_sided" if thirteen else "tanki"
    return yaku, _multiple(yaku), 0, ("kokushi", pair, (), (), wait, "pair")


def _multiple(yaku: list[Yaku]) -> int:
    return sum(h for _, h in yaku) // YAKUMAN_HAN


# The ways the winning tile completed a reading: (wait, the set it completed, an open triplet).
_TANKI: Final[tuple[Wait, str, bool]] = ("tanki", "pair", False)
_SHANPON_TSUMO: Final[tuple[Wait, str, bool]] = ("shanpon", "triplet", False)
_SHANPON_RON: Final[tuple[Wait, str, bool]] = ("shanpon", "triplet", True)  # a ronned triplet is open
_KANCHAN: Final[tuple[Wait, str, bool]] = ("kanchan", "sequence", False)
_PENCHAN: Final[tuple[Wait, str, bool]] = ("penchan", "sequence", False)
_RYANMEN: Final[tuple[Wait, str, bool]] = ("ryanmen", "sequence", False)


def standard_candidates(
    reading: StandardReading,
    facts: HandFacts,
    rules: Rules,
    out: list[Candidate],
) -> None:
    """Append one candidate per way to read a standard decomposition (the winning tile in
    the pair, in a concealed triplet, or in each distinct sequence that holds it)."""
    pair, seqs, trips, peikou, ittsu, chanta, trip_fu = reading
    w = facts.win_kind
    menzen = facts.menzen
    seat, round_wind = facts.seat, facts.round
    all_trips = trips + facts.meld_kinds

    # Honors only ever form triplets, so yakuhai and the honor yakuman come from the triplets.
    dragons = winds = 0
    honor_yaku: list[Yaku] = []
    for k in all_trips:
        if k >= EAST:
            if k >= WHITE:
                dragons += 1
                honor_yaku.append(_DRAGON_YAKU[k])
            else:
                winds += 1
                if k == seat:
                    honor_yaku.append(("seat_wind", 1))
                if k == round_wind:
                    honor_yaku.append(("round_wind", 1))
    yakuman = facts.hand_yakuman
    if dragons == 3 or winds >= 3:
        yakuman = [*yakuman]
        if dragons == 3:
            yakuman.append(("daisangen", YAKUMAN_HAN))
        if winds == 4:
            yakuman.append(_yakuman("daisuushii", "daisuushii", rules))
        elif winds == 3 and EAST <= pair <= NORTH:
            yakuman.append(("shousuushii", YAKUMAN_HAN))

    base = [*facts.head]
    if peikou and menzen:
        base.append(("ryanpeikou", 3) if peikou >= 2 else ("iipeikou", 1))
    if honor_yaku:
        base += honor_yaku
    if facts.late_yaku:
        base += facts.late_yaku
    if seqs:
        if ittsu:
            base.append(("ittsu", 2 if menzen else 1))
        if chanta and _TH[pair] and facts.melds_terminal:
            if facts.has_honor:
                base.append(("chanta", 2 if menzen else 1))
            else:
                base.append(("junchan", 3 if menzen else 2))
    else:
        base.append(("toitoi", 2))
    if len(all_trips) >= 3:
        kinds = set(all_trips)
        if _SANSHOKU_DOUKOU[0] <= kinds or _SANSHOKU_DOUKOU[1] <= kinds:
            base.append(("sanshoku_doukou", 2))
    if dragons == 2 and pair >= WHITE:
        base.append(("shousangen", 2))
    if facts.tail:
        base += facts.tail

    pair_fu = 0
    if pair >= EAST:
        pair_fu = (2 if pair >= WHITE else 0) + (2 if pair == seat else 0) + (2 if pair == round_wind else 0)
    fixed_fu = facts.base_fu + pair_fu + trip_fu
    concealed_trips = len(trips) + facts.n_ankan
    pinfu_shape = menzen and len(seqs) == 4 and not pair_fu

    ways: list[tuple[Wait, str, bool]] = []
    if pair == w:
        ways.append(_TANKI)
    if w in trips:
        ways.append(_SHANPON_TSUMO if facts.tsumo else _SHANPON_RON)
    last = -1
    for first in seqs:
        if first == last or not first <= w <= first + 2:
            continue
        last = first
        pos = w - first
        if pos == 1:
            ways.append(_KANCHAN)
        elif (pos == 0 and _NUMBER[first] == 6) or (pos == 2 and _NUMBER[first] == 0):
            ways.append(_PENCHAN)
        else:
            ways.append(_RYANMEN)

    for wait, win_set, open_trip in ways:
        parts: Parts = ("standard", pair, seqs, trips, wait, win_set)
        ankou = concealed_trips - open_trip
        if ankou == 4:
            ym = [*yakuman, _yakuman("suuankou", "suuankou_tanki" if wait == "tanki" else None, rules)]
            out.append((ym, _multiple(ym), 0, parts))
            continue
        if yakuman:
            out.append((yakuman, _multiple(yakuman), 0, parts))
            continue
        yaku = base
        if ankou == 3:
            yaku = [*yaku, ("sanankou", 2)]
        if pinfu_shape and wait == "ryanmen":
            out.append(([*yaku, ("pinfu", 1)], 0, 20 if facts.tsumo else 30, parts))
            continue
        fu = fixed_fu
        if open_trip:
            fu -= 4 if _TH[w] else 2
        if wait != "ryanmen" and wait != "shanpon":
            fu += 2
        fu = -(-fu // 10) * 10
        if fu == 20 and not menzen:
            fu = 30  # an open hand without fu still scores 30
        out.append((yaku, 0, fu, parts))


def fu_breakdown(reading: Reading, fu: int) -> tuple[tuple[str, int], ...]:
    """The itemised fu of a reading scored ``fu`` (for the UI's fu aid)."""
    menzen = all(closed for _, _, closed in reading.melds)
    if reading.form == "chiitoitsu":
        return (("chiitoitsu", 25),)
    if reading.form == "kokushi":
        return ()
    items: list[tuple[str, int]] = [("base", 20)]
    pinfu = menzen and len(reading.sequences) == 4 and reading.wait == "ryanmen" and fu in (20, 30)
    if menzen and not reading.tsumo:
        items.append(("closed_ron", 10))
    if pinfu and sum(f for _, f in items) == fu:
        return tuple(items)
    if reading.tsumo:
        items.append(("tsumo", 2))
    for k in reading.triplets:
        open_trip = reading.win_set == "triplet" and k == reading.win_kind and not reading.tsumo
        items.append(
            (
                f"{'open' if open_trip else 'closed'}_triplet {kind_name(k)}",
                (4 if _TH[k] else 2) * (1 if open_trip else 2),
            )
        )
    for kind, tiles, closed in reading.melds:
        label = ("closed_" if closed else "open_") + ("kan" if tiles == 4 else "triplet")
        items.append(
            (f"{label} {kind_name(kind)}", (4 if _TH[kind] else 2) * (2 if closed else 1) * (4 if tiles == 4 else 1))
        )
    p = reading.pair
    pair_fu = (2 if p >= WHITE else 0) + (2 if p == reading.seat else 0) + (2 if p == reading.round else 0)
    if pair_fu:
        items.append((f"pair {kind_name(p)}", pair_fu))
    if reading.wait in ("kanchan", "penchan", "tanki"):
        items.append((f"wait {reading.wait}", 2))
    raw = sum(f for _, f in items)
    if fu != raw:
        items.append(("open_hand_minimum" if raw <= 20 and not menzen else "round_up", fu - raw))
    return tuple(items)
