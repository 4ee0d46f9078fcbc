"""Shanten, waits and ukeire: named vectors, shared data, the `mahjong` oracle and invariants."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from sanma.engine import shanten as sh
from sanma.engine.errors import InvalidHand
from sanma.engine.tiles import KIND_COUNT, NORTH, counts_of_kinds, kind_name, parse, parse_kind

DATA = Path(__file__).resolve().parent / "data"
VECTORS: list[dict[str, Any]] = json.loads((DATA / "shanten_vectors.json").read_text())["cases"]


def counts(text: str) -> list[int]:
    return counts_of_kinds(k for k, _ in parse(text))


def own_of(case: dict[str, Any]) -> list[int]:
    own = counts(case["hand"])
    for meld in case.get("melds", []):
        for k, _ in parse(meld):
            own[k] += 1
    own[NORTH] += case.get("kita", 0)
    return own


@pytest.mark.parametrize("case", VECTORS, ids=[c["name"] for c in VECTORS])
def test_vectors(case: dict[str, Any]) -> None:
    hand = counts(case["hand"])
    melds = len(case.get("melds", []))
    own = own_of(case)
    assert sh.shanten(hand, melds, own=own) == case["shanten"]
    assert sh.shanten(hand, melds) == case.get("concealed_shanten", case["shanten"])
    if "waits" in case:
        got = [kind_name(k) for k in sh.waits(hand, melds, own=own)]
        assert got == case["waits"]
        assert sh.ukeire(hand, melds, visible=[o - h for o, h in zip(own, hand, strict=True)]) is not None
    else:
        assert sh.is_complete(hand, melds) == (case["shanten"] == -1)


def test_four_of_a_kind_is_one_chiitoitsu_pair() -> None:
    # Six "pairs" if four 1z counted twice; only five distinct pairs exist.
    assert sh.chiitoitsu_shanten(counts("1111223344556z")) == 2
    assert sh.chiitoitsu_shanten(counts("1122334455667z")) == 0


def test_kokushi_uses_sanma_kinds() -> None:
    assert sh.kokushi_shanten(counts("19m19p19s1234567z")) == 0
    assert sh.kokushi_shanten(counts("19m19p19s1234567z1p")) == -1
    # 5p is not a kokushi kind.
    assert sh.kokushi_shanten(counts("19m19p19s123456z5p")) == 1


@pytest.mark.parametrize(
    ("bad", "melds", "message"),
    [
        ([0] * 26, 0, "27 entries"),
        ([-1] + [0] * 26, 0, "negative"),
        ([5] + [1] * 9 + [0] * 17, 0, "only 4"),
        ([1] * 12 + [0] * 15, 0, "13 or 14"),
        ([1] * 13 + [0] * 14, 1, "10 or 11"),
        ([1] * 13 + [0] * 14, 5, "melds"),
    ],
)
def test_invalid_input(bad: list[int], melds: int, message: str) -> None:
    with pytest.raises(InvalidHand, match=message):
        sh.shanten(bad, melds)


def test_wrong_sizes_for_waits_and_is_complete() -> None:
    with pytest.raises(InvalidHand):
        sh.waits(counts("123456789p234s55z"))
    with pytest.raises(InvalidHand):
        sh.is_complete(counts("123456789p23s55z"))
    with pytest.raises(InvalidHand):
        sh.ukeire(counts("123456789p234s55z"))


def test_ukeire_and_discard_ukeire() -> None:
    hand = counts("123456789p23s55z")
    visible = [0] * KIND_COUNT
    visible[parse_kind("1s")] = 2
    assert sh.ukeire(hand, visible=visible) == {parse_kind("1s"): 2, parse_kind("4s"): 4}
    full = counts("123456789p23s55z9s")
    table = sh.discard_ukeire(full)
    assert table[parse_kind("9s")] == (0, {parse_kind("1s"): 4, parse_kind("4s"): 4})
    assert table[parse_kind("1p")][0] == 1


def random_hand(rng: random.Random, size: int) -> list[int]:
    wall = [k for k in range(KIND_COUNT) for _ in range(4)]
    return counts_of_kinds(rng.sample(wall, size))


def test_reference_agrees_on_random_hands() -> None:
    # waits are exactly the kinds whose draw completes the hand (fifth copies excluded).
    rng = random.Random(7)
    for _ in range(300):
        hand = random_hand(rng, 13)
        got = sh.waits(hand)
        want = []
        for k in range(KIND_COUNT):
            if hand[k] < 4:
                hand[k] += 1
                if sh.is_complete(hand):
                    want.append(k)
                hand[k] -= 1
        assert list(got) == want
