"""Differential test: our ``score_win`` against the ``mahjong`` package (2.1.0, a test oracle
only) on thousands of seeded random complete sanma hands, closed and called, with random flags,
indicators and kita.  Han, fu, yaku set and payments must agree, except for the rule
differences listed (by name) in ``KNOWN_DIFFERENCES`` and docs/scoring.md.

``random_win`` is also the corpus generator of bench/bench_scoring.py.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest

from sanma.engine.errors import NoYaku
from sanma.engine.hand import Meld, MeldType
from sanma.engine.rules import DEFAULT
from sanma.engine.scoring import Score, WinContext, score_win
from sanma.engine.tiles import (
    EAST,
    KIND_COUNT,
    NORTH,
    P1,
    P5,
    S1,
    S5,
    SOUTH,
    TERMINAL_HONOR_KINDS,
    WEST,
    Tile,
    TileKind,
    assign_tiles,
    kind_of,
)

# Rule differences between sanma-rules.md and the oracle, by name (see docs/scoring.md).
KNOWN_DIFFERENCES: dict[str, str] = {}

_SUIT_GROUPS = (
    tuple(range(KIND_COUNT)),
    (0, 1, *range(20, 27)),
    (*range(P1, P1 + 9), *range(20, 27)),
    (*range(S1, S1 + 9), *range(20, 27)),
    tuple(range(P1, P1 + 9)),
    TERMINAL_HONOR_KINDS,
    (S1 + 1, S1 + 2, S1 + 3, S1 + 5, S1 + 7, 25),
)


@dataclass(frozen=True, slots=True)
class Win:
    """One generated winning hand in our API's input form."""

    concealed: tuple[Tile, ...]
    win_tile: Tile
    melds: tuple[Meld, ...]
    ctx: WinContext


def _standard_kinds(rng: random.Random, pool: tuple[TileKind, ...]) -> tuple[list[list[TileKind]], TileKind] | None:
    avail = [4] * KIND_COUNT
    sets: list[list[TileKind]] = []
    starts = [k for k in pool if (P1 <= k < P1 + 7 or S1 <= k < S1 + 7) and k + 2 in pool]
    for _ in range(60):
        if len(sets) == 4:
            break
        if starts and rng.random() < 0.55:
            k = rng.choice(starts)
            if avail[k] and avail[k + 1] and avail[k + 2]:
                for j in (k, k + 1, k + 2):
                    avail[j] -= 1
                sets.append([k, k + 1, k + 2])
        else:
            k = rng.choice(pool)
            if avail[k] >= 3:
                avail[k] -= 3
                sets.append([k, k, k])
    pairs = [k for k in pool if avail[k] >= 2]
    if len(sets) < 4 or not pairs:
        return None
    return sets, rng.choice(pairs)


def _physical(rng: random.Random, kinds: list[TileKind]) -> list[Tile]:
    items = []
    red_used = set()
    for k in kinds:
        # four fives must include the red one
        red = k in (P5, S5) and k not in red_used and (rng.random() < 0.4 or kinds.count(k) == 4)
        if red:
            red_used.add(k)
        items.append((k, red))
    return assign_tiles(items)


def random_win(rng: random.Random) -> Win:
    """A random complete sanma hand with random but possible flags (may have no yaku)."""
    while True:
        form = rng.random()
        melds_kinds: list[tuple[MeldType, TileKind]] = []
        if form < 0.08:
            pairs = rng.sample(rng.choice(_SUIT_GROUPS[:5]), 7)
            concealed_kinds = [k for k in pairs for _ in range(2)]
        elif form < 0.11:
            extra = rng.choice(TERMINAL_HONOR_KINDS)
            concealed_kinds = [*TERMINAL_HONOR_KINDS, extra]
        else:
            made = _standard_kinds(rng, rng.choice(_SUIT_GROUPS))
            if made is None:
                continue
            sets, pair = made
            concealed_kinds = [pair, pair]
            total = [0] * KIND_COUNT
            for s in sets:
                for k in s:
                    total[k] += 1
            total[pair] += 2
            for s in sets:
                if s[0] == s[1] and rng.random() < 0.35:
                    kan = total[s[0]] < 4 and rng.random() < 0.4
                    mtype = rng.choice((MeldType.ANKAN, MeldType.DAIMINKAN, MeldType.KAKAN)) if kan else MeldType.PON
                    if kan:
                        total[s[0]] += 1
                    melds_kinds.append((mtype, s[0]))
                else:
                    concealed_kinds.extend(s)
        meld_kinds = [k for mtype, k in melds_kinds for _ in range(3 if mtype is MeldType.PON else 4)]
        tiles = _physical(rng, concealed_kinds + meld_kinds)
        concealed = tiles[: len(concealed_kinds)]
        melds = []
        pos = len(concealed_kinds)
        for mtype, _ in melds_kinds:
            n = 3 if mtype is MeldType.PON else 4
            melds.append(Meld(mtype, tuple(tiles[pos : pos + n])))
            pos += n
        rng.shuffle(concealed)
        return Win(tuple(concealed), rng.choice(concealed), tuple(melds), _random_ctx(rng, concealed, melds))


def _random_ctx(rng: random.Random, concealed: list[Tile], melds: list[Meld]) -> WinContext:
    menzen = not any(m.is_open for m in melds)
    kans = sum(m.is_kan for m in melds)
    norths = sum(kind_of(t) == NORTH for t in concealed) + sum(len(m.tiles) for m in melds if m.kind == NORTH)
    kita = rng.randint(0, 4 - norths) if norths < 4 and rng.random() < 0.4 else 0
    tsumo = rng.random() < 0.5
    riichi = menzen and rng.random() < 0.5
    double_riichi = riichi and rng.random() < 0.1
    ippatsu = riichi and rng.random() < 0.3
    rinshan = tsumo and (kans > 0 or kita > 0) and rng.random() < 0.25
    haitei = tsumo and not rinshan and rng.random() < 0.08
    houtei = not tsumo and rng.random() < 0.08
    chankan = not tsumo and not houtei and rng.random() < 0.05
    seat = rng.choice((EAST, SOUTH, WEST))
    first = tsumo and not melds and not kita and not riichi and rng.random() < 0.02
    indicators = tuple(rng.randrange(KIND_COUNT) for _ in range(1 + kans))
    ura = tuple(rng.randrange(KIND_COUNT) for _ in range(1 + kans)) if riichi else ()
    return WinContext(
        tsumo=tsumo,
        riichi=riichi and not double_riichi,
        double_riichi=double_riichi,
        ippatsu=ippatsu,
        rinshan=rinshan,
        chankan=chankan,
        haitei=haitei,
        houtei=houtei,
        tenhou=first and seat == EAST,
        chiihou=first and seat != EAST,
        seat_wind=seat,
        round_wind=rng.choice((EAST, SOUTH)),
        dora_indicators=indicators,
        ura_indicators=ura,
        kita=kita,
        honba=rng.randint(0, 3),
        deposits=rng.randint(0, 2),
    )


# --- the oracle -------------------------------------------------------------------------

_ORACLE_YAKU = {
    0: "menzen_tsumo", 1: "riichi", 3: "ippatsu", 4: "chankan", 5: "rinshan", 6: "haitei", 7: "houtei",
    8: "double_riichi", 12: "pinfu", 13: "tanyao", 14: "iipeikou", 15: "yakuhai_white", 16: "yakuhai_green",
    17: "yakuhai_red", 18: "seat_wind", 19: "seat_wind", 20: "seat_wind", 22: "round_wind", 23: "round_wind",
    26: "sanshoku", 27: "ittsu", 28: "chanta", 29: "honroutou", 30: "toitoi", 31: "sanankou", 32: "sankantsu",
    33: "sanshoku_doukou", 34: "chiitoitsu", 35: "shousangen", 36: "honitsu", 37: "junchan", 38: "ryanpeikou",
    39: "chinitsu", 100: "kokushi", 101: "chuuren", 102: "suuankou", 103: "daisangen", 104: "shousuushii",
    105: "ryuuiisou", 106: "suukantsu", 107: "tsuuiisou", 108: "chinroutou", 111: "daisuushii",
    112: "kokushi_13", 113: "suuankou_tanki", 114: "junsei_chuuren", 115: "tenhou", 116: "chiihou",
    120: "dora", 121: "red_dora", 122: "ura_dora",
}  # fmt: skip


def to_34(kind: TileKind) -> int:
    """Our kind as the oracle's 34-index (1m=0, 9m=8, pin 9.., sou 18.., honors 27..)."""
    if kind < P1:
        return 0 if kind == 0 else 8
    return kind + 7


def to_136(tile: Tile) -> int:
    """Our physical tile as the oracle's 136-index (red fives are copy 0 in both)."""
    return to_34(tile >> 2) * 4 + (tile & 3)


def oracle_args(win: Win) -> dict[str, Any]:
    """The oracle's arguments for ``win``, built once (outside any timing)."""
    from mahjong.hand_calculating.hand_config import HandConfig, OptionalRules
    from mahjong.meld import Meld as OMeld

    ctx = win.ctx
    tiles = [to_136(t) for t in win.concealed] + [to_136(t) for m in win.melds for t in m.tiles]
    melds = []
    for m in win.melds:
        mtype = OMeld.PON if m.type is MeldType.PON else OMeld.KAN
        melds.append(OMeld(meld_type=mtype, tiles=[to_136(t) for t in m.tiles], opened=m.is_open))
    config = HandConfig(
        is_tsumo=ctx.tsumo,
        is_riichi=ctx.riichi or ctx.double_riichi,
        is_ippatsu=ctx.ippatsu,
        is_rinshan=ctx.rinshan,
        is_chankan=ctx.chankan,
        is_haitei=ctx.haitei,
        is_houtei=ctx.houtei,
        is_daburu_riichi=ctx.double_riichi,
        is_tenhou=ctx.tenhou,
        is_chiihou=ctx.chiihou,
        player_wind=to_34(ctx.seat_wind),
        round_wind=to_34(ctx.round_wind),
        kyoutaku_number=ctx.deposits,
        tsumi_number=ctx.honba,
        num_nuki_dora=ctx.kita,
        options=OptionalRules(has_open_tanyao=True, has_aka_dora=True, is_three_player=True),
    )
    return {
        "tiles": tiles,
        "win_tile": to_136(win.win_tile),
        "melds": melds,
        "dora_indicators": [to_34(k) * 4 for k in ctx.dora_indicators],
        "ura_dora_indicators": [to_34(k) * 4 for k in ctx.ura_indicators],
        "config": config,
    }


def _ours(win: Win) -> Score | None:
    try:
        return score_win(win.concealed, win.win_tile, win.melds, win.ctx, DEFAULT)
    except NoYaku:
        return None


def _compare(win: Win) -> str | None:
    from mahjong.hand_calculating.hand import HandCalculator

    ours = _ours(win)
    theirs = HandCalculator.estimate_hand_value(**oracle_args(win))
    if theirs.error:
        if ours is None and theirs.error == "no_yaku":
            return None
        return f"oracle error {theirs.error}, ours {ours}"
    if ours is None:
        return f"ours no_yaku, oracle {theirs.han} han {theirs.yaku}"
    their_yaku = {_ORACLE_YAKU[y.yaku_id] for y in theirs.yaku}
    our_yaku = {"dora" if name == "kita" else name for name, _ in ours.yaku}
    if their_yaku != our_yaku:
        return f"yaku {sorted(our_yaku)} != {sorted(their_yaku)}"
    if ours.han != theirs.han:
        return f"han {ours.han} != {theirs.han}"
    if ours.yakuman == 0 and ours.fu != theirs.fu:
        return f"fu {ours.fu} != {theirs.fu}"
    cost = theirs.cost
    assert cost is not None
    dealer = win.ctx.seat_wind == EAST
    if win.ctx.tsumo:
        want = (
            {"non_dealer": cost["main"] + cost["main_bonus"]}
            if dealer
            else {
                "dealer": cost["main"] + cost["main_bonus"],
                "non_dealer": cost["additional"] + cost["additional_bonus"],
            }
        )
    else:
        want = {"ron": cost["main"] + cost["main_bonus"]}
    got = ours.payments.as_dict(win.ctx.tsumo, dealer)
    if got != want or ours.total != cost["total"]:
        return f"payments {got} total {ours.total} != {want} total {cost['total']}"
    return None


def describe(win: Win) -> str:
    """A readable one-line description of a generated hand (for failure messages)."""
    from sanma.engine.tiles import tile_name, tiles_to_mpsz

    melds = " ".join(f"{m.type.value}:{m.notation()}" for m in win.melds)
    flags = {k: v for k, v in ((f, getattr(win.ctx, f)) for f in win.ctx.__slots__) if v}  # type: ignore[attr-defined]
    return f"{tiles_to_mpsz(win.concealed)} win {tile_name(win.win_tile)} [{melds}] {flags}"


@pytest.mark.parametrize("seed", range(8))
def test_against_mahjong_package(seed: int) -> None:
    pytest.importorskip("mahjong")
    rng = random.Random(1000 + seed)
    failures = []
    for _ in range(500):
        win = random_win(rng)
        problem = _compare(win)
        if problem:
            failures.append(f"{describe(win)}: {problem}")
    assert not failures, "\n".join(failures[:10]) + f"\n({len(failures)} differences)"
