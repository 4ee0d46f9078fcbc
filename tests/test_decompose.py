"""Decomposition: the table-driven ``standard_readings`` (scoring's fast path) against the
plain recursive search ``standard_decompositions``, and the facts its tables precompute."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sanma.engine import decompose
from sanma.engine.decompose import packed_counts, standard_readings
from sanma.engine.decompose_search import decompositions, standard_decompositions
from sanma.engine.tiles import KIND_COUNT, P1, S1, TERMINAL_HONOR_KINDS, counts_of_kinds, parse
from tests.fixtures.scoring import random_win


def _counts(mpsz: str) -> list[int]:
    return counts_of_kinds(k for k, _ in parse(mpsz))


def _reference(counts: list[int]) -> list[tuple[int, tuple[int, ...], tuple[int, ...]]]:
    melds = (14 - sum(counts)) // 3
    found = []
    for d in standard_decompositions(counts, melds):
        seqs = tuple(sorted(b.first for b in d.blocks if b.sequence))
        trips = tuple(sorted(b.first for b in d.blocks if not b.sequence))
        found.append((d.pair, seqs, trips))
    return sorted(found)


def _peikou(seqs: tuple[int, ...]) -> int:
    return sum(seqs.count(k) // 2 for k in set(seqs))


def _check_reading(reading: tuple[int, tuple[int, ...], tuple[int, ...], int, bool, bool, int]) -> None:
    _, seqs, trips, peikou, ittsu, chanta, trip_fu = reading
    assert list(seqs) == sorted(seqs)
    assert peikou == _peikou(seqs)
    assert ittsu == any(all(b + i in seqs for i in (0, 3, 6)) for b in (P1, S1))
    terminal_seq = all(k in (P1, P1 + 6, S1, S1 + 6) for k in seqs)
    assert chanta == (terminal_seq and all(k in TERMINAL_HONOR_KINDS for k in trips))
    assert trip_fu == sum(8 if k in TERMINAL_HONOR_KINDS else 4 for k in trips)


def _random_counts(rng: random.Random) -> list[int]:
    win = random_win(rng)
    counts = [0] * KIND_COUNT
    for t in win.concealed:
        counts[t >> 2] += 1
    if rng.random() < 0.4:  # break it: most of these are no longer complete
        k = rng.randrange(KIND_COUNT)
        if counts[k] and rng.random() < 0.5:
            counts[k] -= 1
            counts[rng.randrange(KIND_COUNT)] += 1
        elif counts[k] < 4 and any(c for i, c in enumerate(counts) if i != k):
            counts[k] += 1
            counts[rng.choice([i for i, c in enumerate(counts) if c and i != k])] -= 1
    return counts


def test_table_matches_recursive_search() -> None:
    rng = random.Random(20240607)
    complete = 0
    for _ in range(3000):
        counts = _random_counts(rng)
        if max(counts) > 4:
            continue
        fast = standard_readings(packed_counts(counts))
        assert sorted((p, s, tuple(sorted(t))) for p, s, t, *_ in fast) == _reference(counts), counts
        for reading in fast:
            _check_reading(reading)
        complete += bool(fast)
    assert complete > 1500  # the corpus is mostly complete hands


@pytest.mark.parametrize(
    ("mpsz", "readings"),
    [
        ("111222333p11z", 2),  # three triplets or three identical sequences (+ pair)
        ("22334455667788p", 3),  # chiitoitsu shape: three standard readings
        ("11123455678999p", 1),  # nine gates won on 5p
        ("11112345678999p", 1),  # nine gates won on 1p: only 111 123 456 789 99
        ("19m19p19s1234567z1m", 0),  # kokushi is not a standard reading
        ("111m999m111z222z3z", 0),  # an isolated honor single
        ("111999m456p11z", 1),  # 1m and 9m: triplets or a pair, never in a sequence
        ("19m19m456p11z222z", 0),  # 1m 9m 1m 9m: two pairs and nothing else
    ],
)
def test_named_shapes(mpsz: str, readings: int) -> None:
    counts = _counts(mpsz)
    assert len(standard_readings(packed_counts(counts))) == readings == len(_reference(counts))


def test_precomputed_facts() -> None:
    # 223344p 789p 123s 55s: one identical-sequence pair, no ittsu, no chanta, no triplet fu
    (reading,) = standard_readings(packed_counts(_counts("223344789p123s55s")))
    assert reading[3:] == (1, False, False, 0)
    # 123456789p 111s 99s: ittsu, a terminal triplet worth 8
    (reading,) = standard_readings(packed_counts(_counts("123456789p111s99s")))
    assert reading[3:] == (0, True, False, 8)
    # 123p 789p 111m 999s 11z: chanta shape, 8 + 8 for the two terminal triplets
    (reading,) = standard_readings(packed_counts(_counts("123789p1m11m999s11z")))
    assert reading[:3] == (20, (P1, P1 + 6), (0, S1 + 8))
    assert reading[3:] == (0, False, True, 16)


def test_decompositions_lists_special_forms() -> None:
    forms = [d.form for d in decompositions(_counts("19m19p19s1234567z1m"))]
    assert forms == ["kokushi"]


def test_data_file_holds_the_computed_tables() -> None:
    """The committed data file (scripts/gen_decompose_tables.py) is what the code computes:
    every key's record decodes to the built readings in the same order, bools bools and ints
    ints; no other key is found; and it is what the module uses (not the fallback build)."""
    index = decompose._load_index(decompose.TABLE_FILE)
    assert index is not None
    built_suit, built_isolated = decompose.build_tables()
    assert built_isolated == decompose._ISOLATED_TABLE
    for key, want in built_suit.items():
        got = index.find(key)
        assert got == want, key
        for g, w in zip(got, want, strict=True):
            assert [type(v) for v in g] == [type(v) for v in w]
    rng = random.Random(5)
    for _ in range(5000):  # counts of 0..4 per kind: mostly not a pattern of sets and a pair
        key = sum(rng.randrange(5) << (8 * i) for i in range(9))
        assert index.find(key) == built_suit.get(key)
    assert index.find(5 << 64) is None and index.find(1 << 80) is None
    assert decompose.table_file_bytes(built_suit) == Path(decompose.TABLE_FILE).read_bytes()
    assert decompose._SUIT_INDEX.find(next(iter(built_suit))) is not None


def test_lookups_decode_once_and_keep() -> None:
    key = packed_counts(_counts("123p11p")[P1 : P1 + 9])
    decompose._SUIT_CACHE.pop(key, None)
    first = decompose.suit_readings(key)
    assert first is not None and decompose._SUIT_CACHE[key] is first
    assert decompose.suit_readings(key) is first
    assert decompose.suit_readings(packed_counts([1, 1])) is None  # no reading: not kept
    assert packed_counts([1, 1]) not in decompose._SUIT_CACHE


def test_unusable_data_file_falls_back_to_building(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    good = Path(decompose.TABLE_FILE).read_bytes()
    bad = tmp_path / "decompose_tables.bin"
    magic = len(decompose.TABLE_MAGIC)
    for raw in (decompose.TABLE_MAGIC + b"short", good[:-100], b"SANMA-DECOMPOSE-2\n" + good[magic:], b""):
        bad.write_bytes(raw)
        assert decompose._load_index(str(bad)) is None
    assert decompose._load_index(str(tmp_path / "missing.bin")) is None
    monkeypatch.setattr(decompose, "TABLE_FILE", str(bad))
    index, suit = decompose._suit_tables()
    assert suit == decompose.build_tables()[0]
    assert index.find(next(iter(suit))) is None
