"""Differential test: our ``score_win`` against the ``mahjong`` package (2.1.0, a test oracle
only) on thousands of seeded random complete sanma hands, closed and called, with random flags,
indicators and kita.  Han, fu, yaku set and payments must agree, except for the rule
differences listed (by name) in ``KNOWN_DIFFERENCES`` and docs/scoring.md.

``random_win`` (tests/fixtures/scoring.py) and ``oracle_args`` (tests/fixtures/oracle.py) are
also the corpus and the oracle's side of bench/bench_scoring.py.
"""

from __future__ import annotations

import random

import pytest

from sanma.engine.errors import NoYaku
from sanma.engine.rules import DEFAULT
from sanma.engine.scoring import Score, score_win
from sanma.engine.tiles import EAST
from tests.fixtures.oracle import ORACLE_YAKU, oracle_args
from tests.fixtures.scoring import Win, random_win

# Rule differences between sanma-rules.md and the oracle, by name (see docs/scoring.md).
KNOWN_DIFFERENCES: dict[str, str] = {}


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
    their_yaku = {ORACLE_YAKU[y.yaku_id] for y in theirs.yaku}
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
