"""Seeded random self-play through Kyoku: invariants after every step (design principle 10).

The policy is random but leans towards calls, riichi and wins so that every kind of
event shows up; the seeds are fixed, so a failure always reproduces.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from sanma.engine.actions import Action, Discard, Kan, Kita, Pass, Pon, Ron, Tsumo
from sanma.engine.errors import IllegalAction
from sanma.engine.kyoku import Kyoku
from sanma.engine.rules import PRESETS
from sanma.engine.shanten import shanten
from sanma.engine.tiles import EAST, SOUTH, counts_of_tiles
from sanma.engine.wall import deal_from_seed

HANDS_PER_PRESET = 60


def _shanten_after(kyoku: Kyoku, seat: int, discard: Discard) -> int:
    counts = counts_of_tiles(t for t in kyoku.hand(seat) if t != discard.tile)
    return shanten(counts, len(kyoku.melds(seat)))


def _choose(rng: random.Random, kyoku: Kyoku, seat: int) -> Action:
    legal = kyoku.legal_actions(seat)
    actions = list(legal)
    wins = [a for a in actions if isinstance(a, Tsumo | Ron)]
    if wins and rng.random() < 0.8:
        return wins[0]
    bold = [a for a in actions if isinstance(a, Pon | Kan | Kita) or (isinstance(a, Discard) and a.riichi)]
    if bold and rng.random() < 0.5:
        return rng.choice(bold)
    discards = [a for a in actions if isinstance(a, Discard) and not a.riichi]
    if discards and rng.random() < 0.8:
        # Mostly build the hand (fewest shanten after the discard) so that wins happen.
        best = min(_shanten_after(kyoku, seat, d) for d in discards)
        return rng.choice([d for d in discards if _shanten_after(kyoku, seat, d) == best])
    return rng.choice(actions)


def _play(seed: int, preset: str, seen: Counter[str]) -> Kyoku:
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
        action = _choose(rng, kyoku, seat)
        twin = kyoku.copy()
        assert twin == kyoku
        events = kyoku.apply(seat, action)
        assert events or isinstance(action, Pass | Pon | Kan | Ron), "a turn action always records something"
        assert twin != kyoku, "copy() must be independent of the original"
        kyoku.check_invariants()
        seen.update(type(e).__name__ for e in events)
        for other in (0, 1, 2):
            if other not in kyoku.awaiting():
                assert len(kyoku.legal_actions(other)) == 0
                with pytest.raises(IllegalAction):
                    kyoku.apply(other, action)
    return kyoku


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
