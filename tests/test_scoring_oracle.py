"""Differential test: our ``score_win`` against the ``mahjong`` package (2.1.0, a test oracle
only) on thousands of seeded random complete sanma hands, closed and called, with random flags,
indicators and kita.  Han, fu, yaku set and payments must agree, except for the rule
differences listed (by name) in ``KNOWN_DIFFERENCES`` and docs/scoring.md.

``random_win`` is also the corpus generator of bench/bench_scoring.py.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from sanma.engine.errors import NoYaku
from sanma.engine.hand import MeldType
from sanma.engine.rules import DEFAULT
from sanma.engine.scoring import Score, score_win
from sanma.engine.tiles import (
    EAST,
    P1,
    Tile,
    TileKind,
)
from tests.fixtures.scoring import Win, random_win

# Rule differences between sanma-rules.md and the oracle, by name (see docs/scoring.md).
KNOWN_DIFFERENCES: dict[str, str] = {}


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
