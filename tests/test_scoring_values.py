"""``Score`` and ``Payments`` from ``score_win`` are ordinary frozen values, even though the
hot path builds them as same-slot drafts (see scoring.py)."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from sanma.engine.context import WinContext
from sanma.engine.rules import DEFAULT
from sanma.engine.scoring import Payments, Score, score_win, tsumo_payments
from sanma.engine.tiles import SOUTH, parse_tiles


def _pinfu(ctx: WinContext) -> Score:
    tiles = parse_tiles("234p567p234s678s55s")
    return score_win(tiles, tiles[0], (), ctx, DEFAULT)


@pytest.mark.parametrize(
    "ctx", [WinContext(riichi=True), WinContext(tsumo=True), WinContext(tsumo=True, seat_wind=SOUTH)]
)
def test_score_is_a_frozen_value(ctx: WinContext) -> None:
    score = _pinfu(ctx)
    assert type(score) is Score and type(score.payments) is Payments
    with pytest.raises(dataclasses.FrozenInstanceError):
        score.han = 13  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        score.payments.ron = 1  # type: ignore[misc]
    fields = {f.name: getattr(score, f.name) for f in dataclasses.fields(score)}
    rebuilt = Score(**fields)
    assert rebuilt == score and hash(rebuilt) == hash(score) and repr(rebuilt) == repr(score)
    assert pickle.loads(pickle.dumps(score)) == score == copy.deepcopy(score)
    assert dataclasses.replace(score, han=score.han + 1) != score
    assert pickle.loads(pickle.dumps(score)).fu_breakdown == score.fu_breakdown


def test_payments_equal_plain_construction() -> None:
    assert tsumo_payments(1920, False, 1) == Payments(dealer=4000, non_dealer=2100)
    assert tsumo_payments(1920, True, 0) == Payments(non_dealer=3900)
    assert _pinfu(WinContext(riichi=True)).payments == Payments(ron=5800)  # dealer, 3 han 30 fu
