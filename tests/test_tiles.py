from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sanma.engine import tiles as T
from sanma.engine.errors import InvalidHand, InvalidNotation


def test_kind_layout() -> None:
    names = [T.kind_name(k) for k in range(T.KIND_COUNT)]
    assert names[:3] == ["1m", "9m", "1p"]
    assert names[11] == "1s" and names[20] == "1z" and names[26] == "7z"
    assert len(set(names)) == 27


@pytest.mark.parametrize(
    ("indicator", "dora"),
    [
        ("1m", "9m"),
        ("9m", "1m"),
        ("9p", "1p"),
        ("4p", "5p"),
        ("9s", "1s"),
        ("1z", "2z"),
        ("4z", "1z"),
        ("5z", "6z"),
        ("7z", "5z"),
    ],
)
def test_dora_wrap(indicator: str, dora: str) -> None:
    assert T.kind_name(T.dora_of(T.parse_kind(indicator))) == dora


@pytest.mark.parametrize("bad", ["5m", "123", "0m", "0z", "8z", "m", "12x", "１p", 5])
def test_bad_notation_is_typed(bad: object) -> None:
    with pytest.raises(InvalidNotation):
        T.parse(bad)  # type: ignore[arg-type]


def test_fifth_copy_and_second_red_rejected() -> None:
    with pytest.raises(InvalidHand):
        T.parse_tiles("11111z")
    with pytest.raises(InvalidHand):
        T.parse_tiles("00p")
    with pytest.raises(InvalidHand):
        T.parse_tiles("5555p")  # with red fives, only three plain 5p exist
    assert len(T.parse_tiles("5555p", red_fives=False)) == 4


@given(st.permutations(range(T.TILE_COUNT)).map(lambda p: p[:14]))
def test_mpsz_round_trips(tiles: list[int]) -> None:
    text = T.tiles_to_mpsz(tiles)
    again = T.parse_tiles(text)
    assert sorted(T.kind_of(t) for t in again) == sorted(T.kind_of(t) for t in tiles)
    assert sum(t in T.RED_TILES for t in again) == sum(t in T.RED_TILES for t in tiles)
    assert T.tiles_to_mpsz(again) == text


def test_mpsz_counts_are_parse_counted() -> None:
    # The count reader of ``sanma score``'s fast path: equal to counting parse's items for plain
    # mpsz, None for whatever parse reads with spaces or refuses.
    rng = random.Random(7)
    for _ in range(3000):
        text = "".join(rng.choice("0123456789mpsz  ") for _ in range(rng.randint(0, 16)))
        try:
            items = T.parse(text)
        except InvalidNotation:
            assert T.mpsz_counts(text) is None, text
            continue
        got = T.mpsz_counts(text)
        if " " in text or not text:  # spaces, or nothing: parse reads them, this leaves them to parse
            assert got is None, text
            continue
        assert got is not None, text
        packed = sum(1 << (8 * k) for k, _ in items)
        reds = sum(1 << (8 * k) for k, red in items if red)
        assert got == (packed, len(items), reds), text
