from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sanma.engine.wall import deal_from_seed, shuffled_tiles


@given(st.integers(min_value=0, max_value=2**64 - 1), st.integers(min_value=0, max_value=40))
def test_seeded_wall_is_a_permutation_and_deterministic(seed: int, hand: int) -> None:
    w = shuffled_tiles(seed, hand)
    assert sorted(w) == list(range(108))
    assert w == shuffled_tiles(seed, hand)


def test_deal_layout() -> None:
    d = deal_from_seed(7, 0)
    dealt = [t for h in d.hands for t in h] + list(d.live) + list(d.replacements[:4])
    dealt += list(d.dora_indicators) + list(d.ura_indicators)
    assert sorted(dealt) == list(range(108))
    # after the four dead-wall replacement tiles, replacements come from the live wall's end
    assert d.replacements[4:] == tuple(reversed(d.live[-4:]))


def test_wall_algorithm_is_frozen() -> None:
    # Match logs record the algorithm; this pins v1 so that old seeds replay forever.
    assert shuffled_tiles(1, 0)[:8] == [58, 88, 84, 52, 5, 94, 101, 20]
    assert deal_from_seed(1, 0).digest().startswith("28a069c34b92527f")
