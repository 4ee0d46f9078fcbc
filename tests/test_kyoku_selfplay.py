"""Seeded random self-play through Kyoku: invariants after every step (design principle 10).

The policy is random but leans towards calls, riichi and wins so that every kind of
event shows up; the seeds are fixed, so a failure always reproduces.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.fixtures.kyoku_selfplay import _play

HANDS_PER_PRESET = 60


@pytest.mark.parametrize("preset", ["default", "tenhou"])
def test_random_selfplay_keeps_invariants(preset: str) -> None:
    seen: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    for seed in range(HANDS_PER_PRESET):
        kyoku = _play(seed, preset, seen)
        assert kyoku.result is not None
        outcomes[kyoku.result.outcome] += 1
    assert outcomes["won"] and outcomes["drawn"]
    for name in ("MeldCalled", "KitaDeclared", "RiichiAccepted", "DoraRevealed", "HandWon", "HandDrawn"):
        assert seen[name], f"self-play never produced {name}"


def test_same_seed_same_events() -> None:
    first = _play(5, "default", Counter())
    second = _play(5, "default", Counter())
    assert first.events == second.events
