"""``Kyoku.yaku_waits``: the waits on which a win would have a yaku (the aids say "Waiting on"
only for those of an open hand).  Checked against the one definition of legality: in seeded
self-play, whenever a seat may answer a discard that completes its hand and is not furiten,
an open hand is offered Ron exactly when the discard's kind is one of its yaku waits, and a
closed hand's yaku waits are all its waits (it may win on any of them by a self-draw)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from sanma.engine.actions import Ron
from sanma.engine.events import TileDiscarded
from sanma.engine.hand import MeldType
from sanma.engine.kyoku import Kyoku
from sanma.engine.rules import PRESETS
from sanma.engine.tiles import EAST, kind_of
from sanma.engine.wall import deal_from_seed
from tests.fixtures.selfplay import choose


def _check_windows(seed: int, seen: Counter[str]) -> None:
    rng = random.Random(seed)
    kyoku = Kyoku.start(
        deal_from_seed(seed, 0),
        rules=PRESETS["default"],
        round_wind=EAST,
        dealer=seed % 3,
        honba=0,
        deposits=0,
        scores=(35_000, 35_000, 35_000),
    )
    while kyoku.result is None:
        for seat in range(3):
            waits = kyoku.win_status(seat).waits
            closed = all(m.type is MeldType.ANKAN for m in kyoku.melds(seat))
            if closed:
                assert kyoku.yaku_waits(seat) == waits
            else:
                assert set(kyoku.yaku_waits(seat)) <= set(waits)
        seat = rng.choice(kyoku.awaiting())
        events = kyoku.apply(seat, choose(rng, kyoku, seat))
        if kyoku.phase != "window" or not events or not isinstance(events[-1], TileDiscarded):
            continue
        kind = kind_of(events[-1].tile)
        for other in kyoku.awaiting():
            status = kyoku.win_status(other)
            if not status.complete or status.reason == "furiten":
                continue
            if all(m.type is MeldType.ANKAN for m in kyoku.melds(other)):
                continue  # a closed hand may still win on that kind by a self-draw
            offered = Ron() in kyoku.legal_actions(other)
            assert offered == (kind in kyoku.yaku_waits(other)), (seed, other, kind)
            seen["ron" if offered else "no yaku"] += 1


@pytest.mark.slow
def test_ron_is_offered_exactly_on_the_yaku_waits() -> None:
    seen: Counter[str] = Counter()
    for seed in range(400):
        _check_windows(seed, seen)
    # The check met both cases: open hands that may win there and open hands that may not.
    assert seen["ron"] and seen["no yaku"], seen
