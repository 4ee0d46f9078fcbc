"""Yaku of one reading of a winning hand (sanma-rules.md section 6).

``scoring.score_win`` builds ``HandFacts`` once per hand (what does not depend on how the
hand is read: suits, tile classes, melds, flags) and asks ``yaku_of`` for every
``Reading`` (a decomposition plus the set the winning tile completed and its wait).  Dora,
ura-dora, red fives and kita are counted by ``scoring``: they are not yaku.

Yaku ids are those of ``spec/cli.md``.  A yakuman reading drops every normal yaku.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from sanma.engine.decompose import Block, Decomposition
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
)

if TYPE_CHECKING:
    from sanma.engine.rules import Rules
    from sanma.engine.scoring import WinContext

Wait = Literal["ryanmen", "kanchan", "penchan", "shanpon", "tanki", "thirteen_sided"]

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

_DRAGON_YAKU: Final = {WHITE: "yakuhai_white", GREEN: "yakuhai_green", RED: "yakuhai_red"}
_TERMINAL_OR_HONOR: Final = tuple(k in TERMINAL_HONOR_KINDS for k in range(KIND_COUNT))
# A sequence holds a terminal when it starts at 1 or 7.
_TERMINAL_SEQUENCE: Final = tuple(k in (P1, P1 + 6, S1, S1 + 6) for k in range(KIND_COUNT))
_GREEN: Final = tuple(k in GREEN_KINDS for k in range(KIND_COUNT))
_TERMINALS: Final = (M1, M9, P1, P1 + 8, S1, S1 + 8)


@dataclass(frozen=True, slots=True)
class Reading:
    """A decomposition together with the set the winning tile completed.

    ``win_block`` indexes ``decomposition.blocks``; ``-1`` means the pair (or the
    chiitoitsu pair, or kokushi).
    """

    decomposition: Decomposition
    win_block: int
    wait: Wait


@dataclass(frozen=True, slots=True)
class MeldFacts:
    """What yaku and fu need of a called or declared set."""

    kind: TileKind
    kan: bool
    open: bool


@dataclass(frozen=True, slots=True)
class HandFacts:
    """Everything about a winning hand that does not depend on its reading."""

    counts: tuple[int, ...]  # concealed tiles, winning tile included
    all_counts: tuple[int, ...]  # concealed and melded tiles (a kan counts 4)
    melds: tuple[MeldFacts, ...]
    win_kind: TileKind
    menzen: bool
    kans: int
    # tile classes of the whole hand
    simples_only: bool
    terminal_honor_only: bool
    honors_only: bool
    terminals_only: bool
    green_only: bool
    suits: int  # how many of man, pin, sou appear
    has_honor: bool


def hand_facts(counts: list[int], melds: tuple[MeldFacts, ...], win_kind: TileKind) -> HandFacts:
    """Summarise the reading-independent facts of a hand."""
    all_counts = list(counts)
    for m in melds:
        all_counts[m.kind] += 4 if m.kan else 3
    present = [k for k in range(KIND_COUNT) if all_counts[k]]
    has_honor = any(k >= EAST for k in present)
    suits = (any(k < P1 for k in present), any(P1 <= k < S1 for k in present), any(S1 <= k < EAST for k in present))
    return HandFacts(
        counts=tuple(counts),
        all_counts=tuple(all_counts),
        melds=melds,
        win_kind=win_kind,
        menzen=not any(m.open for m in melds),
        kans=sum(m.kan for m in melds),
        simples_only=not any(_TERMINAL_OR_HONOR[k] for k in present),
        terminal_honor_only=all(_TERMINAL_OR_HONOR[k] for k in present),
        honors_only=all(k >= EAST for k in present),
        terminals_only=all(k in _TERMINALS for k in present),
        green_only=all(_GREEN[k] for k in present),
        suits=sum(suits),
        has_honor=has_honor,
    )


def readings(decomposition: Decomposition, win_kind: TileKind) -> list[Reading]:
    """Every way the winning tile can have completed ``decomposition``."""
    d = decomposition
    if d.form == "chiitoitsu":
        return [Reading(d, -1, "tanki")]
    if d.form == "kokushi":
        return [Reading(d, -1, "thirteen_sided" if d.pair == win_kind else "tanki")]
    out: list[Reading] = []
    if d.pair == win_kind:
        out.append(Reading(d, -1, "tanki"))
    seen: set[Block] = set()
    for i, b in enumerate(d.blocks):
        if b in seen:
            continue
        if b.sequence:
            pos = win_kind - b.first
            if not 0 <= pos <= 2:
                continue
            seen.add(b)
            if pos == 1:
                wait: Wait = "kanchan"
            elif pos == 0:
                wait = "penchan" if (b.first - P1) % 9 == 6 else "ryanmen"
            else:
                wait = "penchan" if (b.first - P1) % 9 == 0 else "ryanmen"
            out.append(Reading(d, i, wait))
        elif b.first == win_kind:
            seen.add(b)
            out.append(Reading(d, i, "shanpon"))
    return out


def _is_value_pair(kind: TileKind, ctx: WinContext) -> bool:
    return kind >= WHITE or kind == ctx.seat_wind or kind == ctx.round_wind


@dataclass(frozen=True, slots=True)
class SetView:
    """One of the four sets of a standard reading, concealed or melded."""

    sequence: bool
    kind: TileKind  # first kind of a sequence, the kind of a triplet
    concealed: bool  # for fu and ankou: a triplet completed by ron is not concealed
    kan: bool


def sets_of(reading: Reading, facts: HandFacts, tsumo: bool) -> list[SetView]:
    """The four sets of a standard reading, melds included."""
    out: list[SetView] = []
    for i, b in enumerate(reading.decomposition.blocks):
        concealed = tsumo or b.sequence or i != reading.win_block
        out.append(SetView(b.sequence, b.first, concealed, False))
    for m in facts.melds:
        out.append(SetView(False, m.kind, not m.open, m.kan))
    return out


def flag_yaku(ctx: WinContext, facts: HandFacts) -> list[tuple[str, int]]:
    """Yaku given by how and when the hand won, not by its tiles."""
    out: list[tuple[str, int]] = []
    if ctx.double_riichi:
        out.append(("double_riichi", 2))
    elif ctx.riichi:
        out.append(("riichi", 1))
    if ctx.ippatsu:
        out.append(("ippatsu", 1))
    if ctx.tsumo and facts.menzen:
        out.append(("menzen_tsumo", 1))
    return out


def _late_flag_yaku(ctx: WinContext) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    if ctx.rinshan:
        out.append(("rinshan", 1))
    if ctx.chankan:
        out.append(("chankan", 1))
    if ctx.haitei:
        out.append(("haitei", 1))
    if ctx.houtei:
        out.append(("houtei", 1))
    return out


def _han(name: str, menzen: bool) -> int:
    closed, opened = HAN[name]
    return closed if menzen else opened


def yakuman_of(reading: Reading, facts: HandFacts, ctx: WinContext, rules: Rules) -> list[tuple[str, int]]:
    """The yakuman of a reading as ``(id, han)`` with han 13 per multiple."""
    out: list[tuple[str, int]] = []
    double = rules.double_yakuman
    d = reading.decomposition

    def add(single: str, double_id: str | None = None) -> None:
        if double_id is not None and double:
            out.append((double_id, 2 * YAKUMAN_HAN))
        else:
            out.append((single, YAKUMAN_HAN))

    if ctx.tenhou:
        add("tenhou")
    if ctx.chiihou:
        add("chiihou")
    if d.form == "kokushi":
        add("kokushi", "kokushi_13" if reading.wait == "thirteen_sided" else None)
    if d.form == "standard":
        sets = sets_of(reading, facts, ctx.tsumo)
        triplets = [s for s in sets if not s.sequence]
        concealed_triplets = sum(s.concealed for s in triplets)
        if concealed_triplets == 4:
            add("suuankou", "suuankou_tanki" if reading.wait == "tanki" else None)
        dragons = sum(s.kind >= WHITE for s in triplets)
        if dragons == 3:
            add("daisangen")
        winds = sum(EAST <= s.kind <= NORTH for s in triplets)
        if winds == 4:
            if double:
                out.append(("daisuushii", 2 * YAKUMAN_HAN))
            else:
                add("daisuushii")
        elif winds == 3 and EAST <= d.pair <= NORTH:
            add("shousuushii")
        if facts.kans == 4:
            add("suukantsu")
    if facts.honors_only:
        add("tsuuiisou")
    if facts.terminals_only:
        add("chinroutou")
    if facts.green_only:
        add("ryuuiisou")
    if not facts.melds and facts.suits == 1 and not facts.has_honor:
        c = facts.counts
        base = P1 if c[P1] else S1
        if c[base] and c[base + 8]:
            run = c[base : base + 9]
            if run[0] >= 3 and run[8] >= 3 and all(run[1:8]):
                before = list(run)
                before[facts.win_kind - base] -= 1
                add("chuuren", "junsei_chuuren" if before == [3, 1, 1, 1, 1, 1, 1, 1, 3] else None)
    return out


def yaku_of(reading: Reading, facts: HandFacts, ctx: WinContext) -> list[tuple[str, int]]:
    """The normal yaku of a reading (dora excluded), in the order of cli.md's id list."""
    menzen = facts.menzen
    d = reading.decomposition
    out = flag_yaku(ctx, facts)
    if facts.simples_only:
        out.append(("tanyao", 1))
    if d.form == "chiitoitsu":
        out.extend(_late_flag_yaku(ctx))
        out.append(("chiitoitsu", 2))
        if facts.terminal_honor_only:
            out.append(("honroutou", 2))
        _add_flush(out, facts)
        return out
    sets = sets_of(reading, facts, ctx.tsumo)
    sequences = [s.kind for s in sets if s.sequence]
    triplets = [s for s in sets if not s.sequence]
    if menzen and len(sequences) == 4 and reading.wait == "ryanmen" and not _is_value_pair(d.pair, ctx):
        out.append(("pinfu", 1))
    if menzen:
        same = sum(sequences.count(k) // 2 for k in set(sequences))
        if same >= 2:
            out.append(("ryanpeikou", 3))
        elif same == 1:
            out.append(("iipeikou", 1))
    for s in triplets:
        if s.kind in _DRAGON_YAKU:
            out.append((_DRAGON_YAKU[s.kind], 1))
    for s in triplets:
        if s.kind == ctx.seat_wind:
            out.append(("seat_wind", 1))
    for s in triplets:
        if s.kind == ctx.round_wind:
            out.append(("round_wind", 1))
    out.extend(_late_flag_yaku(ctx))
    for base in (P1, S1):
        if base in sequences and base + 3 in sequences and base + 6 in sequences:
            out.append(("ittsu", _han("ittsu", menzen)))
    if (
        sequences
        and _TERMINAL_OR_HONOR[d.pair]
        and all(_TERMINAL_SEQUENCE[k] for k in sequences)
        and all(_TERMINAL_OR_HONOR[s.kind] for s in triplets)
    ):
        name = "chanta" if facts.has_honor else "junchan"
        out.append((name, _han(name, menzen)))
    if not sequences:
        out.append(("toitoi", 2))
    if sum(s.concealed for s in triplets) == 3:
        out.append(("sanankou", 2))
    kinds = {s.kind for s in triplets}
    if {M1, P1, S1} <= kinds or {M9, P1 + 8, S1 + 8} <= kinds:
        out.append(("sanshoku_doukou", 2))
    if facts.kans == 3:
        out.append(("sankantsu", 2))
    if sum(k >= WHITE for k in kinds) == 2 and d.pair >= WHITE:
        out.append(("shousangen", 2))
    if facts.terminal_honor_only:
        out.append(("honroutou", 2))
    _add_flush(out, facts)
    return out


def _add_flush(out: list[tuple[str, int]], facts: HandFacts) -> None:
    if facts.suits == 1:
        if facts.has_honor:
            out.append(("honitsu", _han("honitsu", facts.menzen)))
        else:
            out.append(("chinitsu", _han("chinitsu", facts.menzen)))


def is_pinfu(yaku: list[tuple[str, int]]) -> bool:
    """Whether pinfu is among the yaku (it changes the fu of a tsumo)."""
    return any(name == "pinfu" for name, _ in yaku)
