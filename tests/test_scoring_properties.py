"""Hypothesis properties of scoring on generated complete sanma hands."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanma.engine.errors import NoYaku
from sanma.engine.rules import DEFAULT
from sanma.engine.scoring import Score, score_win
from sanma.engine.tiles import EAST, KIND_COUNT
from tests.fixtures.scoring import Win, random_win

seeds = st.integers(min_value=0, max_value=2**32 - 1)


def _score(win: Win) -> Score | None:
    try:
        return score_win(win.concealed, win.win_tile, win.melds, win.ctx, DEFAULT)
    except NoYaku:
        return None


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(seeds, st.randoms(use_true_random=False))
def test_tile_order_never_matters(seed: int, shuffler: random.Random) -> None:
    win = random_win(random.Random(seed))
    tiles = list(win.concealed)
    shuffler.shuffle(tiles)
    melds = list(win.melds)
    shuffler.shuffle(melds)
    a = _score(win)
    b = _score(Win(tuple(tiles), win.win_tile, tuple(melds), win.ctx))
    assert (a is None) == (b is None)
    if a and b:
        assert (a.han, a.fu, sorted(a.yaku), a.payments, a.total) == (b.han, b.fu, sorted(b.yaku), b.payments, b.total)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(seeds, st.integers(min_value=0, max_value=KIND_COUNT - 1))
def test_another_dora_indicator_never_lowers_han(seed: int, indicator: int) -> None:
    win = random_win(random.Random(seed))
    before = _score(win)
    ctx = replace(win.ctx, dora_indicators=(*win.ctx.dora_indicators, indicator))
    after = _score(Win(win.concealed, win.win_tile, win.melds, ctx))
    assert (before is None) == (after is None)
    if before and after:
        assert after.han >= before.han
        assert after.total >= before.total


@settings(max_examples=400, deadline=None)
@given(seeds)
def test_payments_are_whole_hundreds_and_total_adds_up(seed: int) -> None:
    win = random_win(random.Random(seed))
    score = _score(win)
    if score is None:
        return
    p = score.payments
    assert p.ron % 100 == 0 and p.dealer % 100 == 0 and p.non_dealer % 100 == 0
    dealer = win.ctx.seat_wind == EAST
    if not win.ctx.tsumo:
        paid = p.ron
        assert p.dealer == p.non_dealer == 0
    elif dealer:
        paid = 2 * p.non_dealer
        assert p.ron == p.dealer == 0
    else:
        paid = p.dealer + p.non_dealer
        assert p.ron == 0
    assert score.total == paid + 1000 * win.ctx.deposits
    assert sum(h for _, h in score.yaku) == score.han
    if not score.yakuman or score.fu:
        assert sum(f for _, f in score.fu_breakdown) == score.fu
