"""Shanten, waits and ukeire: named vectors, shared data, the `mahjong` oracle and invariants."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
        # Copies melded or extracted are visible: each draw's unseen count is 4 - own.
        table = sh.ukeire(hand, melds, visible=[o - h for o, h in zip(own, hand, strict=True)])
        assert all(n == 4 - own[k] for k, n in table.items())
        if case.get("concealed_shanten", case["shanten"]) == 0:
            assert [kind_name(k) for k in table if own[k] < 4] == case["waits"]
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


# ---------------------------------------------------------------------------
# The shipped tables.


def test_tables_match_the_generator_hash() -> None:
    # The generator prints this hash; a changed table or loader shows up here.
    assert hashlib.sha256(sh.table_bytes()).hexdigest() == sh.TABLE_SHA256


@pytest.mark.slow
def test_tables_agree_with_the_reference_search() -> None:
    rng = random.Random(20240601)
    keys = list(sh.TABLES.group)
    small = [k for k in keys if sum(k) <= 3]
    for runs, sample in ((True, 1500), (False, 800)):
        for key in small + rng.sample(keys, sample):
            assert sh.table_group_vector(key, runs) == sh.group_distances(key, runs), (list(key), runs)


@pytest.mark.slow
def test_standard_table_agrees_with_reference_on_hands() -> None:
    rng = random.Random(11)
    for i in range(400):
        melds = i % 3
        hand = random_hand(rng, 13 - 3 * melds + (i % 2))
        assert sh.standard_shanten(hand, melds) == sh._standard_shanten_reference(hand, melds)


# ---------------------------------------------------------------------------
# Shared test data.


def test_mahjongrepository_three_player_regular_hands(shared_testdata: Path) -> None:
    group = json.loads((shared_testdata / "vectors" / "mahjongrepository_sanma_cases.json").read_text())[
        "shanten_regular_hand_three_player"
    ]
    assert len(group["cases"]) == 16
    for case in group["cases"]:
        text = "".join(
            case[suit] + letter
            for suit, letter in (("man", "m"), ("pin", "p"), ("sou", "s"), ("honors", "z"))
            if case[suit]
        )
        hand = counts(text)
        # Fewer than 13 tiles: the library counts the missing sets as called ones.
        melds = (14 - sum(hand)) // 3
        assert sh.standard_shanten(hand, melds) == case["expected_shanten"], text


def from34(c34: list[int]) -> list[int] | None:
    """4p 34-count array -> 27 sanma kinds, or None when it holds 2m..8m."""
    if any(c34[1:8]):
        return None
    return [c34[0], c34[8], *c34[9:27], *c34[27:34]]


def test_riichienv_tenpai_hands(shared_testdata: Path) -> None:
    cases = json.loads((shared_testdata / "vectors" / "riichienv_hands_negative.json").read_text())["cases"]
    used = 0
    for case in cases:
        hand = from34(case["counts_34"])
        if hand is None:
            continue
        used += 1
        assert (sh.shanten(hand) == 0) == case["is_tenpai"], hand
        assert bool(sh.waits(hand)) == case["is_tenpai"], hand
    assert used >= 10


# ---------------------------------------------------------------------------
# Differential test against `mahjong` 2.1.0 (a test oracle only, never imported by sanma).

mahjong_shanten = pytest.importorskip("mahjong.shanten")
Oracle = mahjong_shanten.Shanten


def to34(c: list[int]) -> list[int]:
    out = [0] * 34
    out[0], out[8] = c[0], c[1]
    out[9:27] = c[2:20]
    out[27:34] = c[20:27]
    return out


def complete_hand(rng: random.Random, sets: int) -> list[int]:
    """A random complete hand of ``sets`` sets and a pair, never a fifth copy."""
    while True:
        hand = [0] * KIND_COUNT
        for _ in range(sets):
            if rng.random() < 0.6:
                start = rng.choice([*range(2, 9), *range(11, 18)])
                for k in range(start, start + 3):
                    hand[k] += 1
            else:
                hand[rng.randrange(KIND_COUNT)] += 3
        hand[rng.randrange(KIND_COUNT)] += 2
        if max(hand) <= 4:
            return hand


def oracle_hands(seed: int, count: int) -> list[tuple[list[int], int]]:
    """Random hands of every size, and near-complete ones so waits get exercised."""
    rng = random.Random(seed)
    out: list[tuple[list[int], int]] = []
    for i in range(count):
        melds = (0, 0, 0, 1, 2)[i % 5]
        size = 13 - 3 * melds + (i // 5) % 2
        if i % 3:
            out.append((random_hand(rng, size), melds))
            continue
        hand = complete_hand(rng, 4 - melds)
        # Take one tile out (tenpai), sometimes swap another (1-shanten), maybe add one back.
        for _ in range(1 + (i % 2)):
            hand[rng.choice([k for k in range(KIND_COUNT) if hand[k]])] -= 1
        while sum(hand) < size:
            k = rng.randrange(KIND_COUNT)
            if hand[k] < 4:
                hand[k] += 1
        out.append((hand, melds))
    return out


def test_shanten_matches_mahjong_library() -> None:
    regular = Oracle.calculate_shanten_for_regular_hand
    for hand, melds in oracle_hands(1, 4000):
        theirs = to34(hand)
        # The library treats missing sets as already called, exactly our `melds`.
        assert sh.standard_shanten(hand, melds) == regular(theirs, True), (hand, melds)
        if melds == 0:
            assert sh.shanten(hand) == Oracle.calculate_shanten(theirs, is_three_player=True), hand


@pytest.mark.slow
def test_waits_match_mahjong_library() -> None:
    full = Oracle.calculate_shanten
    checked = 0
    for hand, melds in oracle_hands(2, 3000):
        if sum(hand) != 13 - 3 * melds:
            continue
        theirs = []
        for k in range(KIND_COUNT):
            if hand[k] < 4:
                hand[k] += 1
                if full(to34(hand), is_three_player=True) == -1:
                    theirs.append(k)
                hand[k] -= 1
        assert list(sh.waits(hand, melds)) == theirs, (hand, melds)
        checked += bool(theirs)
    assert checked > 200


# ---------------------------------------------------------------------------
# Properties.

tile_sets = st.lists(st.integers(0, 107), min_size=14, max_size=14, unique=True)


def hand_of(tiles: list[int], size: int) -> list[int]:
    return counts_of_kinds(t // 4 for t in tiles[:size])


@settings(max_examples=300, deadline=None)
@given(tiles=tile_sets, melds=st.integers(0, 3))
def test_one_tile_changes_shanten_by_at_most_one(tiles: list[int], melds: int) -> None:
    hand = hand_of(tiles, 13 - 3 * melds)
    before = sh.shanten(hand, melds)
    for k in range(KIND_COUNT):
        if hand[k] < 4:
            hand[k] += 1
            after = sh.shanten(hand, melds)
            hand[k] -= 1
            assert before - 1 <= after <= before


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(tiles=tile_sets, melds=st.integers(0, 3))
def test_waits_ukeire_and_discards_are_consistent(tiles: list[int], melds: int) -> None:
    hand = hand_of(tiles, 13 - 3 * melds)
    base = sh.shanten(hand, melds)
    completing, lowering = [], {}
    after = sh._after_draws(bytes(hand), melds)  # the fast path behind waits and ukeire
    for k in range(KIND_COUNT):
        if hand[k] < 4:
            hand[k] += 1
            assert after[k] == sh.shanten(hand, melds)
            if sh.is_complete(hand, melds):
                completing.append(k)
            if sh.shanten(hand, melds) < base:
                lowering[k] = 4 - (hand[k] - 1)
            hand[k] -= 1
    assert list(sh.waits(hand, melds)) == completing
    assert (base == 0) == bool(completing)
    assert sh.ukeire(hand, melds) == lowering
    assert sh.shanten(hand, melds, own=hand) == base
    full = hand_of(tiles, 14 - 3 * melds)
    table = sh.discard_ukeire(full, melds)
    assert set(table) == {k for k in range(KIND_COUNT) if full[k]}
    best = min(after for after, _ in table.values())
    assert best == max(sh.shanten(full, melds), 0)


@settings(max_examples=150, deadline=None)
@given(tiles=tile_sets, outside=st.lists(st.integers(0, KIND_COUNT - 1), max_size=6))
def test_copies_outside_the_hand_never_help(tiles: list[int], outside: list[int]) -> None:
    hand = hand_of(tiles, 13)
    own = list(hand)
    for k in outside:
        if own[k] < 4:
            own[k] += 1
    capped = sh.shanten(hand, own=own)
    assert capped >= sh.shanten(hand)
    assert (capped == 0) == bool(sh.waits(hand, own=own))


def test_after_draws_on_pair_and_terminal_heavy_hands() -> None:
    # Random play rarely gets near chiitoitsu or kokushi; these hands do.
    rng = random.Random(3)
    terminals = [0, 1, 2, 10, 11, 19, *range(20, 27)]
    for i in range(600):
        hand = [0] * KIND_COUNT
        if i % 2:
            for k in rng.sample(range(KIND_COUNT), 6):
                hand[k] = 2
        else:
            for k in rng.sample(terminals, 11):
                hand[k] = 1
            hand[rng.choice(terminals)] += 1
        while sum(hand) < 13:
            k = rng.randrange(KIND_COUNT)
            if hand[k] < 4:
                hand[k] += 1
        after = sh._after_draws(bytes(hand), 0)
        for k in range(KIND_COUNT):
            if hand[k] < 4:
                hand[k] += 1
                assert after[k] == sh.shanten(hand), (hand, k)
                hand[k] -= 1
            else:
                assert after[k] > 8


@pytest.mark.parametrize(
    "call",
    [
        lambda c: sh.standard_shanten(c),
        lambda c: sh.chiitoitsu_shanten(c),
        lambda c: sh.kokushi_shanten(c),
        lambda c: sh.is_complete(c),
        lambda c: sh.waits(c),
        lambda c: sh.ukeire(c),
        lambda c: sh.discard_ukeire(c),
        lambda c: sh.shanten(c, own=c),
    ],
)
@pytest.mark.parametrize(
    "bad", [[1.0] * 13 + [0] * 14, [-1, 2] + [1] * 12 + [0] * 13, [7] + [1] * 7 + [0] * 19, [1] * 28, "x" * 27]
)
def test_every_function_refuses_bad_counts(call: Any, bad: Any) -> None:
    with pytest.raises(InvalidHand):
        call(bad)


def test_capped_shanten_matches_the_search() -> None:
    # With melded copies the table serves uncapped groups and the search the others;
    # the whole-search answer must be the same.
    rng = random.Random(9)
    for i in range(150):
        melds = 1 + i % 3
        hand = random_hand(rng, 13 - 3 * melds + i % 2)
        own = list(hand)
        for _ in range(melds):
            k = rng.choice([k for k in range(KIND_COUNT) if own[k] <= 1])
            own[k] += 3
        caps = sh._caps_of(hand, own)
        want = sh._combine(sh._group_vectors(hand, caps, tables=False), 4 - melds) - 1
        assert sh.shanten(hand, melds, own=own) == want, (hand, own)
