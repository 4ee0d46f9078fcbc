"""Seeded random self-play through Kyoku: invariants after every step (design principle 10)."""

from __future__ import annotations

import random

import pytest

from sanma.engine.actions import Ron, Tsumo
from sanma.engine.errors import IllegalAction
from sanma.engine.kyoku import Kyoku
from sanma.engine.rules import PRESETS
from sanma.engine.tiles import EAST, SOUTH
from sanma.engine.wall import deal_from_seed


def _play(seed: int, preset: str) -> Kyoku:
    rng = random.Random(seed)
    kyoku = Kyoku.start(
        deal_from_seed(seed, 0),
        rules=PRESETS[preset],
        round_wind=EAST if seed % 2 else SOUTH,
        dealer=seed % 3,
        honba=seed % 3,
        deposits=seed % 2,
        scores=(35_000, 30_000 + seed, 40_000 - seed),
    )
    kyoku.check_invariants()
    while kyoku.result is None:
        seat = rng.choice(kyoku.awaiting())
        legal = kyoku.legal_actions(seat)
        actions = list(legal)
        wins = [a for a in actions if isinstance(a, Tsumo | Ron)]
        # Mostly random, but take wins often enough that wins get exercised too.
        action = wins[0] if wins and rng.random() < 0.7 else rng.choice(actions)
        twin = kyoku.copy()
        assert twin == kyoku
        events = kyoku.apply(seat, action)
        assert events, "every accepted action records something"
        assert twin != kyoku, "copy() must be independent of the original"
        kyoku.check_invariants()
        for other in (0, 1, 2):
            if other not in kyoku.awaiting():
                with pytest.raises(IllegalAction):
                    kyoku.apply(other, action)
    return kyoku


@pytest.mark.parametrize("preset", ["default", "tenhou"])
def test_random_selfplay_keeps_invariants(preset: str) -> None:
    outcomes = set()
    for seed in range(12):
        kyoku = _play(seed, preset)
        assert kyoku.result is not None
        outcomes.add(kyoku.result.outcome)
    assert "drawn" in outcomes or "won" in outcomes
