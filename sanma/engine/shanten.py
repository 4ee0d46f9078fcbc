"""Shanten, waits and ukeire of sanma hands.

Shanten is defined by distance: the fewest tiles a hand lacks to contain a complete hand
(4 sets and a pair, seven distinct pairs, or kokushi), minus one.  Complete is -1, tenpai 0.
The complete hand aimed at must itself exist, so it never holds a fifth copy of a kind:
``1111m`` is a set and a spare 1m, never a pair and a set waiting on a fifth 1m.

In sanma the man suit has only 1m and 9m, so those two behave like honors: neither
forms sequences.  Pin and sou are full suits.  The standard form is computed per group:
pin, sou and the nine "isolated" kinds (1m, 9m, 7 honors) each have a distance vector
(for 0..4 sets, with and without the pair), and a min-plus combine spreads the sets
over the groups.

Speed: the vectors and their combinations are precomputed (``scripts/gen_shanten_tables.py``
writes ``data/shanten_tables.bin``, loaded once at import, about 40 MB in memory), so one
shanten is three dict lookups keyed by ``bytes`` of a 9-kind slice plus two table reads.
``group_distances`` is the slow search that defines the numbers; the tests compare the
two.  Functions named ``_..._of`` skip every input check.
"""

from __future__ import annotations

import array
import itertools
import os
import struct
import sys
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, NoReturn

from sanma.engine.errors import InvalidHand
from sanma.engine.tiles import KIND_COUNT, TERMINAL_HONOR_KINDS, TileKind, kind_name

MAX_SETS: Final = 4
# Index of a distance vector: 2 * sets + pair.
_VECTOR_LEN: Final = 2 * (MAX_SETS + 1)
_ISOLATED_KINDS: Final = (0, 1, *range(20, 27))
_KOKUSHI_KINDS: Final = tuple(sorted(TERMINAL_HONOR_KINDS))
_NO_CAPS: Final = (4,) * KIND_COUNT
_UNCAPPED: Final = (4,) * 9
_PIN_KINDS: Final = tuple(range(2, 11))
_SOU_KINDS: Final = tuple(range(11, 20))
_SIZES: Final = (13, 14)
_NO_TILES: Final = (0,) * KIND_COUNT


# ---------------------------------------------------------------------------
# Reference distances of one group (slow, exact): the definition the tables follow.


def group_distances(pattern: Sequence[int], runs: bool, caps: Sequence[int] | None = None) -> tuple[int, ...]:
    """For one group of kinds: index ``2*s + p`` -> fewest tiles missing to hold ``s`` sets
    and ``p`` (0 or 1) pairs inside the group, the target never holding more than ``caps[i]``
    of kind ``i`` (4 by default; fewer when other copies are melded or extracted).

    ``runs`` says whether consecutive kinds form sequences (pin, sou) or not (1m, 9m, honors).
    This is the slow reference (a memoised search over the kinds left to right); the fast
    path reads the same numbers from a table.

    >>> group_distances([1, 1, 1, 0, 0, 0, 0, 0, 0], runs=True)[:4]
    (0, 1, 0, 2)
    >>> group_distances([1, 1, 1, 0, 0, 0, 0, 0, 0], runs=False)[2]
    2
    """
    counts = tuple(pattern)
    n = len(counts)
    limits = tuple(caps) if caps is not None else (4,) * n
    memo: dict[tuple[int, int, int, int, int], int] = {}
    impossible = -(10**6)

    def best(i: int, a: int, b: int, sets: int, pair: int) -> int:
        # The most tiles of ``counts[i:]`` a target can use, where ``a`` sequences started
        # two kinds back and ``b`` one kind back still need kind ``i``, and ``sets`` sets
        # and ``pair`` pairs are still to be placed.
        if i == n:
            return 0 if a == b == sets == pair == 0 else impossible
        key = (i, a, b, sets, pair)
        if key in memo:
            return memo[key]
        result = impossible
        have = counts[i]
        for t in range(min(1, sets) + 1):
            for q in range(pair + 1):
                can_start = runs and i <= n - 3
                for r in range((sets - t if can_start else 0) + 1):
                    need = a + b + r + 3 * t + 2 * q
                    if need > limits[i]:
                        break
                    rest = best(i + 1, b, r, sets - t - r, pair - q)
                    result = max(result, min(need, have) + rest)
        memo[key] = result
        return result

    return tuple(3 * s + 2 * p - best(0, 0, 0, s, p) for s in range(MAX_SETS + 1) for p in range(2))


@lru_cache(maxsize=4096)
def _capped_vector(pattern: tuple[int, ...], runs: bool, caps: tuple[int, ...]) -> tuple[int, ...]:
    return group_distances(pattern, runs, caps)


_BIG: Final = 10**6  # the distance of an impossible target
# Bit sets of "tiles used" per (sets, pair), 16 bits a lane, lane 2 * sets + pair.
_LANE: Final = 16
_LANES: Final = (1 << (_LANE * _VECTOR_LEN)) - 1
_NO_PAIR_LANES: Final = sum(((1 << _LANE) - 1) << (_LANE * 2 * s) for s in range(MAX_SETS + 1))


_PREFIX_STATES: dict[tuple[bytes, bytes], dict[tuple[int, int], int]] = {}
_PREFIX_LIMIT: Final = 1 << 18


def _run_vector(pattern: Sequence[int], caps: Sequence[int]) -> tuple[int, ...]:
    """The same numbers as ``group_distances(pattern, True, caps)`` for a suit (or any run of
    consecutive kinds), by a forward pass over the kinds instead of the memoised search.

    The state after a kind is the sequences begun one kind back (still needing this kind
    and the next) and two kinds back (needing this one); for each state one integer holds,
    lane by lane (sets, pair), the set of "tiles of the hand used" that can be reached, so a
    choice at a kind (a triplet, a pair, new sequences) is a few shifts of that integer.

    >>> _run_vector((1, 1, 1, 0, 0, 0, 0, 0, 0), (4,) * 9) == group_distances([1, 1, 1, 0, 0, 0, 0, 0, 0], True)
    True
    """
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    n = len(pattern)
    # The states after a prefix of a suit depend on that prefix alone, and many suits share
    # their first kinds: start from the longest prefix already passed.
    memo = _PREFIX_STATES if n == 9 else {}
    start = 0
    for i in range(n, 0, -1):
        known = memo.get((bytes(pattern[:i]), bytes(caps[:i])))
        if known is not None:
            states, start = known, i
            break
    for i in range(start, n):
        if i and len(memo) < _PREFIX_LIMIT:
            memo[(bytes(pattern[:i]), bytes(caps[:i]))] = states
        have, cap = pattern[i], caps[i]
        most_new = MAX_SETS if i <= n - 3 else 0
        nxt: dict[tuple[int, int], int] = {}
        get = nxt.get
        for (one, two), reach in states.items():
            base = one + two
            if base > cap:
                continue
            for t in (0, 1):
                for q in (0, 1):
                    need0 = base + 3 * t + 2 * q
                    if need0 > cap:
                        break
                    start = (reach & _NO_PAIR_LANES) << _LANE if q else reach
                    if not start:
                        continue
                    for r in range(min(most_new, cap - need0) + 1):
                        need = need0 + r
                        added = t + r
                        moved = (start << (2 * _LANE * added)) & _LANES if added else start
                        if not moved:
                            break
                        moved <<= need if need < have else have
                        nxt[(r, one)] = get((r, one), 0) | moved
        states = nxt
    done = states.get((0, 0), 0)
    out = []
    for lane in range(_VECTOR_LEN):
        used = (done >> (_LANE * lane)) & ((1 << _LANE) - 1)
        out.append(3 * (lane >> 1) + 2 * (lane & 1) - (used.bit_length() - 1) if used else _BIG)
    return tuple(out)


def _cached_run_vector(pattern: bytes, caps: bytes) -> tuple[int, ...]:
    """``_run_vector`` memoised; a run read backwards has the same vector, so both
    directions share one entry."""
    back = pattern[::-1], caps[::-1]
    return _memo_run_vector(*min((pattern, caps), back))


@lru_cache(maxsize=1 << 15)
def _memo_run_vector(pattern: bytes, caps: bytes) -> tuple[int, ...]:
    return _run_vector(pattern, caps)


def _relaxed_caps(counts: Sequence[int], caps: Sequence[int]) -> list[int]:
    """``caps`` with the cap lifted from every capped kind whose neighbourhood holds no tile
    (the kind and, in a suit, two kinds either side): every block of a target that touches
    such a kind is made of missing tiles only, so the same block of a free kind elsewhere
    costs the same (``_shanten_capped`` checks that there are enough free kinds)."""
    out = list(caps)
    for k in range(KIND_COUNT):
        if caps[k] >= 4:
            continue
        if 2 <= k < 20:
            first = 2 if k < 11 else 11
            window = range(max(first, k - 2), min(first + 8, k + 2) + 1)
        else:
            window = range(k, k + 1)
        if not any(counts[i] for i in window):
            out[k] = 4
    return out


def _group_vectors(counts: Sequence[int], caps: Sequence[int], tables: bool) -> tuple[Sequence[int], ...]:
    """Distance vectors of pin, sou and the isolated kinds under per-kind caps: by the
    search, or (when ``tables``) from the tables for a group with no kind capped and by the
    forward pass ``_run_vector`` for a capped suit."""
    out: list[Sequence[int]] = []
    for kinds, runs in ((_PIN_KINDS, True), (_SOU_KINDS, True), (_ISOLATED_KINDS, False)):
        pattern = tuple(counts[k] for k in kinds)
        limits = tuple(caps[k] for k in kinds)
        if tables and limits == _UNCAPPED:
            out.append(table_group_vector(pattern, runs))
        elif runs and tables:
            out.append(_cached_run_vector(bytes(pattern), bytes(limits)))
        elif runs:
            out.append(_capped_vector(pattern, True, limits))
        else:
            # Isolated kinds are interchangeable, so sorting them keeps the cache small.
            pairs = sorted(zip(pattern, limits, strict=True), reverse=True)
            out.append(_capped_vector(tuple(n for n, _ in pairs), False, tuple(c for _, c in pairs)))
    return tuple(out)


def _splits(sets: int) -> tuple[tuple[int, int, int], ...]:
    """Every way to spread ``sets`` sets and one pair over three groups, as vector indices."""
    out = []
    for s1 in range(sets + 1):
        for s2 in range(sets - s1 + 1):
            s3 = sets - s1 - s2
            for p1, p2, p3 in ((1, 0, 0), (0, 1, 0), (0, 0, 1)):
                out.append((2 * s1 + p1, 2 * s2 + p2, 2 * s3 + p3))
    return tuple(out)


_SPLITS: Final = tuple(_splits(sets) for sets in range(MAX_SETS + 1))


def _combine(vectors: Sequence[Sequence[int]], sets: int) -> int:
    """Fewest tiles missing for ``sets`` sets and one pair spread over the groups."""
    if len(vectors) == 3:
        a, b, c = vectors
        return min(a[i] + b[j] + c[k] for i, j, k in _SPLITS[sets])
    # acc[2*s+p]: best distance over the groups seen so far.
    big = 99
    acc = [0] + [big] * (_VECTOR_LEN - 1)
    for vec in vectors:
        nxt = [big] * _VECTOR_LEN
        for s1 in range(MAX_SETS + 1):
            for p1 in range(2):
                d1 = acc[2 * s1 + p1]
                if d1 >= big:
                    continue
                for s2 in range(MAX_SETS + 1 - s1):
                    for p2 in range(2 - p1):
                        i = 2 * (s1 + s2) + p1 + p2
                        nxt[i] = min(nxt[i], d1 + vec[2 * s2 + p2])
        acc = nxt
    return acc[2 * sets + 1]


# ---------------------------------------------------------------------------
# Input checks.


def _check_counts(counts: Sequence[int], name: str = "counts") -> None:
    try:  # the common case at C speed: 27 ints 0..4 (bools count as ints, as below)
        if len(counts) == KIND_COUNT and max(bytes(counts)) <= 4:
            return
    except (TypeError, ValueError):
        pass
    if len(counts) != KIND_COUNT:
        raise InvalidHand(f"{name} must have {KIND_COUNT} entries (one per sanma tile kind), not {len(counts)}")
    for kind, n in enumerate(counts):
        if not isinstance(n, int):
            raise InvalidHand(f"{name}[{kind}] ({kind_name(kind)}) is not an int: {n!r}")
        if n < 0:
            raise InvalidHand(f"{name}[{kind}] ({kind_name(kind)}) is negative: {n}")
        if n > 4:
            raise InvalidHand(f"{n} copies of {kind_name(kind)} in {name}; there are only 4")


def _check_melds(melds: int) -> None:
    if not isinstance(melds, int) or not 0 <= melds <= MAX_SETS:
        raise InvalidHand(f"melds must be 0..{MAX_SETS}, not {melds!r}")


def _check_hand(counts: Sequence[int], melds: int, sizes: tuple[int, ...]) -> None:
    _check_melds(melds)
    _check_counts(counts)
    total = sum(counts)
    want = tuple(size - 3 * melds for size in sizes)
    if total not in want:
        wanted = " or ".join(str(w) for w in want)
        raise InvalidHand(f"a hand with {melds} meld(s) has {wanted} concealed tiles, not {total}")


# ---------------------------------------------------------------------------
# The precomputed tables (scripts/gen_shanten_tables.py; layout described there).

_TABLE_FILE: Final = "shanten_tables.bin"
_MAGIC: Final = b"SANMA-SHANTEN-1\n"
# SHA-256 of the decompressed tables, as the generator prints it (checked by the tests).
TABLE_SHA256: Final = "3242201b364777355b899438ec9348a9609450403e2c9aecd7dec004b32b2688"
_STRIDE: Final = 256


def _pattern_keys() -> list[bytes]:
    """Every group pattern (9 counts 0..4, at most 14 tiles) as bytes, in lexicographic order,
    the generator's order; built from two halves, much faster than filtering 5**9 tuples."""
    tails = [bytes(t) for t in itertools.product(range(5), repeat=4)]
    tails_within = [[t for t in tails if sum(t) <= limit] for limit in range(15)]
    heads = [bytes(h) for h in itertools.product(range(5), repeat=5) if sum(h) <= 14]
    return [h + t for h in heads for t in tails_within[14 - sum(h)]]


@dataclass(frozen=True, slots=True)
class _Tables:
    # pattern -> tiles << 24 | kinds held 2+ << 20 | kinds held << 16 | suit class << 8 | isolated class
    group: dict[bytes, int]
    # pin class << 8 | sou class -> pin+sou class
    pair: bytes
    # pin+sou class << 11 | isolated class << 3 | melds -> distance (shanten + 1)
    final: bytes
    suit_vectors: tuple[bytes, ...]
    iso_vectors: tuple[bytes, ...]


def _split(blob: bytes, size: int) -> tuple[bytes, ...]:
    return tuple(blob[i : i + size] for i in range(0, len(blob), size))


def table_bytes() -> bytes:
    """The decompressed table file (its SHA-256 is ``TABLE_SHA256``)."""
    # A plain path beside this module, as decompose reads its file: importlib.resources would
    # import zipfile and more for the one read.
    with open(os.path.join(os.path.dirname(__file__), "data", _TABLE_FILE), "rb") as f:
        return zlib.decompress(f.read())


def _load_tables() -> _Tables:
    raw = table_bytes()
    stale = f"{_TABLE_FILE} does not match this code; rerun scripts/gen_shanten_tables.py"
    if not raw.startswith(_MAGIC):
        raise RuntimeError(stale)
    at = len(_MAGIC)
    n_patterns, n_suit, n_iso, n_pair = struct.unpack_from("<I3H", raw, at)
    at += struct.calcsize("<I3H")
    vectors = (n_suit * _VECTOR_LEN, n_iso * _VECTOR_LEN, n_pair * _VECTOR_LEN)
    sizes = (*vectors, 4 * n_patterns, n_suit * _STRIDE)
    parts = []
    for size in sizes:
        parts.append(raw[at : at + size])
        at += size
    suit_vectors, iso_vectors, _, values, pair = parts
    final = raw[at:]
    keys = _pattern_keys()
    if len(keys) != n_patterns or len(final) != n_pair * _STRIDE * 8:
        raise RuntimeError(stale)
    numbers = array.array("I")
    if numbers.itemsize != 4:
        raise RuntimeError("shanten tables need a 4-byte unsigned int array type")
    numbers.frombytes(values)
    if sys.byteorder == "big":
        numbers.byteswap()
    # Many patterns share a value; sharing the int objects saves about 12 MB.
    shared: dict[int, int] = {}
    return _Tables(
        group=dict(zip(keys, map(shared.setdefault, numbers, numbers), strict=True)),
        pair=pair,
        final=final,
        suit_vectors=_split(suit_vectors, _VECTOR_LEN),
        iso_vectors=_split(iso_vectors, _VECTOR_LEN),
    )


TABLES: Final = _load_tables()
_GROUP: Final = TABLES.group
_PAIR: Final = TABLES.pair
_FINAL: Final = TABLES.final


def table_group_vector(pattern: Sequence[int], runs: bool) -> tuple[int, ...]:
    """The distance vector the table holds for one 9-kind group pattern (for tests, tools)."""
    value = _GROUP[bytes(pattern)]
    if runs:
        return tuple(TABLES.suit_vectors[value >> 8 & 255])
    return tuple(TABLES.iso_vectors[value & 255])


# ---------------------------------------------------------------------------
# Unchecked fast paths on ``bytes(counts)``: they assume valid input (27 counts 0..4,
# the right number of tiles, melds 0..4) and skip every check; on bad input they may
# raise KeyError or return nonsense.  The public functions check first.


def _standard_of(b: bytes, melds: int) -> int:
    """Standard-form shanten from the tables; no checks."""
    group = _GROUP
    pin = group[b[2:11]]
    sou = group[b[11:20]]
    iso = group[b[:2] + b[20:]]
    return _FINAL[_PAIR[pin & 0xFF00 | sou >> 8 & 0xFF] << 11 | (iso & 0xFF) << 3 | melds] - 1


def _chiitoitsu_of(b: bytes) -> int:
    """Seven distinct pairs (four of a kind is one pair); no checks."""
    singles = b.count(1)
    return _chiitoitsu_from(KIND_COUNT - b.count(0) - singles, singles)


def _chiitoitsu_from(pairs: int, singles: int) -> int:
    """Chiitoitsu shanten of a hand with ``pairs`` kinds held twice or more and ``singles``
    kinds held once."""
    if pairs >= 7:
        return -1
    return 13 - 2 * pairs - (singles if singles < 7 - pairs else 7 - pairs)


def _kokushi_of(b: bytes) -> int:
    """Kokushi over sanma's 13 terminal and honor kinds (1m 9m 1p | 9p 1s | 9s 1z..7z); no checks."""
    held = b[:3] + b[10:12] + b[19:]
    kinds = 13 - held.count(0)
    return 12 - kinds if kinds > held.count(1) else 13 - kinds


def _shanten_of(b: bytes, melds: int) -> int:
    """Minimum over every form; no checks."""
    result = _standard_of(b, melds)
    if melds == 0 and result > -1:
        result = min(result, _chiitoitsu_of(b), _kokushi_of(b))
    return result


_NEVER: Final = 99  # "shanten" after drawing a fifth copy: never smaller than anything


def _after_draws(b: bytes, melds: int) -> list[int]:
    """Shanten of ``b`` plus one tile, for each kind (``_NEVER`` where 4 are held); no checks.

    Only the drawn kind's group changes, so each draw costs one lookup, and chiitoitsu and
    kokushi follow from counts of the hand before the draw.
    """
    group, pair, final = _GROUP, _PAIR, _FINAL
    pin_key, sou_key, iso_key = b[2:11], b[11:20], b[:2] + b[20:]
    pin, sou, iso = group[pin_key], group[sou_key], group[iso_key]
    out = [_NEVER] * KIND_COUNT
    sou_part = sou >> 8 & 0xFF
    low = (iso & 0xFF) << 3 | melds
    drawn = bytearray(pin_key)
    for i in range(9):
        c = drawn[i]
        if c < 4:
            drawn[i] = c + 1
            out[2 + i] = final[pair[group[bytes(drawn)] & 0xFF00 | sou_part] << 11 | low] - 1
            drawn[i] = c
    pin_part = pin & 0xFF00
    drawn = bytearray(sou_key)
    for i in range(9):
        c = drawn[i]
        if c < 4:
            drawn[i] = c + 1
            out[11 + i] = final[pair[pin_part | group[bytes(drawn)] >> 8 & 0xFF] << 11 | low] - 1
            drawn[i] = c
    high = pair[pin_part | sou_part] << 11 | melds
    drawn = bytearray(iso_key)
    for i, kind in enumerate(_ISOLATED_KINDS):
        c = drawn[i]
        if c < 4:
            drawn[i] = c + 1
            out[kind] = final[high | (group[bytes(drawn)] & 0xFF) << 3] - 1
            drawn[i] = c
    if melds:
        return out
    # Chiitoitsu and kokushi after the draw depend only on how many of the drawn kind
    # were held (0, 1, 2+) and on whether it is a kokushi kind.
    singles = b.count(1)
    pairs = KIND_COUNT - b.count(0) - singles
    held = b[:3] + b[10:12] + b[19:]
    kinds = 13 - held.count(0)
    paired = kinds > held.count(1)
    chiitoitsu = (
        _chiitoitsu_from(pairs, singles + 1),
        _chiitoitsu_from(pairs + 1, singles - 1),
        _chiitoitsu_from(pairs, singles),
    )
    kokushi = (12 - kinds - paired, 12 - kinds, 13 - kinds - paired)
    # A draw never raises the standard shanten, so when neither form can go below the
    # standard shanten before the draw, nothing changes.
    before = final[high | (iso & 0xFF) << 3] - 1
    if min(*chiitoitsu, *kokushi) >= before:
        return out
    # Drawing a kind outside kokushi leaves kokushi as it was (kokushi[2]).
    plain = (*(min(c, kokushi[2]) for c in chiitoitsu), min(chiitoitsu[2], kokushi[2]), _NEVER)
    terminal = (*map(min, chiitoitsu, kokushi), min(chiitoitsu[2], kokushi[2]), _NEVER)
    other = [
        *map(terminal.__getitem__, b[:3]),
        *map(plain.__getitem__, b[3:10]),
        *map(terminal.__getitem__, b[10:12]),
        *map(plain.__getitem__, b[12:19]),
        *map(terminal.__getitem__, b[19:]),
    ]
    return [o if o < x else x for o, x in zip(out, other, strict=True)]


def _standard_shanten_reference(counts: Sequence[int], melds: int) -> int:
    """Standard-form shanten by the slow search (the definition the tables follow)."""
    return _combine(_group_vectors(counts, _NO_CAPS, tables=False), MAX_SETS - melds) - 1


# ---------------------------------------------------------------------------
# The slow path for copies outside the concealed hand (``own``).


def _caps_of(counts: Sequence[int], own: Sequence[int]) -> list[int]:
    """How many of each kind a target may hold: the copies outside the concealed hand
    (melded, extracted) can never be drawn."""
    return [4 - own[k] + counts[k] for k in range(KIND_COUNT)]


def _shanten_capped(counts: Sequence[int], melds: int, caps: Sequence[int]) -> int:
    """Minimum over every form when some copies lie outside the concealed hand (a search)."""
    sets = MAX_SETS - melds
    relaxed = _relaxed_caps(counts, caps)
    result = _BIG
    if relaxed != list(caps):
        result = _combine(_group_vectors(counts, relaxed, tables=True), sets) - 1
        # Moving the blocks that touch a lifted kind needs one free kind (none held, none
        # outside the hand, none used by the target) per block; the target's missing tiles
        # (result + 1) occupy at most that many of the kinds held nowhere.
        free = sum(1 for k in range(KIND_COUNT) if counts[k] == 0 and caps[k] >= 4)
        if free - (result + 1) < sets + 1:
            result = _BIG
    if result >= _BIG:
        result = _combine(_group_vectors(counts, caps, tables=True), sets) - 1
    if melds:
        return result
    pairable = [k for k in range(KIND_COUNT) if caps[k] >= 2]
    if len(pairable) >= 7:
        pairs = min(7, sum(1 for k in pairable if counts[k] >= 2))
        singles = sum(1 for k in pairable if counts[k] == 1)
        result = min(result, 13 - 2 * pairs - min(singles, 7 - pairs))
    if all(caps[k] for k in _KOKUSHI_KINDS) and any(caps[k] >= 2 for k in _KOKUSHI_KINDS):
        result = min(result, _kokushi_of(bytes(counts)))
    return result


def _shanten_own(counts: Sequence[int], melds: int, own: Sequence[int] | None) -> int:
    b = bytes(counts)
    if own is None or bytes(own) == b:
        return _shanten_of(b, melds)
    return _shanten_capped(counts, melds, _caps_of(counts, own))


# ---------------------------------------------------------------------------
# Public API.


def _invalid(counts: Sequence[int], melds: int, sizes: tuple[int, ...]) -> NoReturn:
    """Raise the precise InvalidHand for input the fast path refused."""
    _check_hand(counts, melds, sizes)
    raise InvalidHand(f"invalid hand: counts={list(counts)!r}, melds={melds!r}")


def _checked(counts: Sequence[int], melds: int, sizes: tuple[int, ...]) -> bytes:
    """``bytes(counts)`` after the same checks as ``_check_hand``, at C speed."""
    try:
        b = bytes(counts)
    except (TypeError, ValueError):
        _invalid(counts, melds, sizes)
    if (
        len(b) != KIND_COUNT
        or max(b) > 4
        or not isinstance(melds, int)
        or not 0 <= melds <= MAX_SETS
        or sum(b) + 3 * melds not in sizes
    ):
        _invalid(counts, melds, sizes)
    return b


def _standard_lookup(counts: Sequence[int], melds: int) -> tuple[int, int, int, int, bytes]:
    """Standard shanten with the three group entries and ``bytes(counts)`` it was read from.

    Checks ride on the lookups: bytes() refuses non-ints and values outside 0..255, the table
    has no key with a count above 4 or more than 14 tiles, and its values carry the tile counts.
    """
    try:
        b = bytes(counts)
        group = _GROUP
        pin = group[b[2:11]]
        sou = group[b[11:20]]
        iso = group[b[:2] + b[20:]]
        result = _FINAL[_PAIR[pin & 0xFF00 | sou >> 8 & 0xFF] << 11 | (iso & 0xFF) << 3 | melds] - 1
    except (KeyError, TypeError, ValueError, IndexError):
        _invalid(counts, melds, _SIZES)
    if (
        len(b) != KIND_COUNT
        or not 0 <= melds <= MAX_SETS
        or (pin >> 24) + (sou >> 24) + (iso >> 24) + 3 * melds not in _SIZES
    ):
        _invalid(counts, melds, _SIZES)
    return result, pin, sou, iso, b


def standard_shanten(counts: Sequence[int], melds: int = 0) -> int:
    """Shanten of the standard form (``4 - melds`` sets and a pair) of ``13 - 3*melds`` or
    ``14 - 3*melds`` concealed tiles.

    >>> from sanma.engine.tiles import counts_of_kinds, parse
    >>> standard_shanten(counts_of_kinds(k for k, _ in parse("123456789p1239s")))
    0
    """
    return _standard_lookup(counts, melds)[0]


def chiitoitsu_shanten(counts: Sequence[int]) -> int:
    """Shanten toward seven distinct pairs (four of a kind is one pair, not two)."""
    return _chiitoitsu_of(_checked(counts, 0, _SIZES))


def kokushi_shanten(counts: Sequence[int]) -> int:
    """Shanten toward kokushi: sanma's 13 kinds 1m 9m 1p 9p 1s 9s and the 7 honors, one
    of them paired."""
    return _kokushi_of(_checked(counts, 0, _SIZES))


def shanten(counts: Sequence[int], melds: int = 0, own: Sequence[int] | None = None) -> int:
    """Shanten of ``13 - 3*melds`` or ``14 - 3*melds`` concealed tiles: the minimum over the
    standard form, chiitoitsu and kokushi (the last two only without melds).
    -1 is complete, 0 tenpai.

    Without ``own`` only the concealed tiles limit the copies a target may use.  ``own``
    (every tile the player owns: concealed, melded, extracted Norths) also rules out the
    copies outside the hand, so a 13-tile hand is 0 exactly when ``waits`` is not empty;
    when it differs from ``counts`` this is a slower search, not the table.

    >>> from sanma.engine.tiles import counts_of_kinds, parse
    >>> shanten(counts_of_kinds(k for k, _ in parse("19m19p19s1234567z")))
    0
    """
    if own is not None:
        _check_hand(counts, melds, _SIZES)
        _check_own(own, counts)
        return _shanten_own(counts, melds, own)
    result, pin, sou, iso, b = _standard_lookup(counts, melds)
    if melds or result < 0:
        return result
    # Chiitoitsu needs 6 - pairs more tiles at least; skip it when that cannot win.
    pairs = (pin >> 20 & 15) + (sou >> 20 & 15) + (iso >> 20 & 15)
    if 6 - pairs < result:
        if pairs >= 7:
            return -1
        singles = (pin >> 16 & 15) + (sou >> 16 & 15) + (iso >> 16 & 15) - pairs
        chiitoitsu = 13 - 2 * pairs - (singles if singles < 7 - pairs else 7 - pairs)
        if chiitoitsu < result:
            result = chiitoitsu
    # Kokushi holds at most the isolated kinds and 4 terminals (1p 9p 1s 9s), so it
    # needs 12 - (isolated kinds + 4) more tiles at least.
    if 8 - (iso >> 16 & 15) < result:
        kokushi = _kokushi_of(b)
        if kokushi < result:
            result = kokushi
    return result


def is_complete(counts: Sequence[int], melds: int = 0) -> bool:
    """Whether ``14 - 3*melds`` concealed tiles form a complete hand in any form."""
    return _shanten_of(_checked(counts, melds, (14,)), melds) == -1


def _check_own(own: Sequence[int], counts: Sequence[int]) -> None:
    _check_counts(own, "own")
    for kind in range(KIND_COUNT):
        if own[kind] < counts[kind]:
            raise InvalidHand(f"own[{kind}] ({kind_name(kind)}) is {own[kind]}, fewer than the {counts[kind]} in hand")


def waits(counts: Sequence[int], melds: int = 0, own: Sequence[int] | None = None) -> tuple[TileKind, ...]:
    """The kinds that complete a ``13 - 3*melds`` tile hand (any form), sorted.

    ``own`` counts every tile the player owns (concealed, melded, extracted Norths); a kind
    the player already holds all four of is never a wait.

    >>> from sanma.engine.tiles import counts_of_kinds, parse, kinds_to_mpsz
    >>> kinds_to_mpsz(waits(counts_of_kinds(k for k, _ in parse("123456789p1239s"))))
    '9s'
    """
    b = _checked(counts, melds, (13,))
    if own is not None:
        _check_own(own, counts)
    held = own if own is not None else counts
    if _shanten_of(b, melds) != 0:
        return ()
    after = _after_draws(b, melds)
    return tuple(k for k in range(KIND_COUNT) if after[k] == -1 and held[k] < 4)


def shanten_and_waits(
    counts: Sequence[int], melds: int = 0, own: Sequence[int] | None = None
) -> tuple[int, tuple[TileKind, ...]]:
    """``shanten(counts, melds, own)`` and, for a ``13 - 3*melds`` tile hand in tenpai,
    ``waits(counts, melds, own)`` (otherwise no waits), the shared work done once.

    >>> from sanma.engine.tiles import counts_of_kinds, parse
    >>> shanten_and_waits(counts_of_kinds(k for k, _ in parse("123456789p1239s")))
    (0, (19,))
    """
    _check_hand(counts, melds, _SIZES)
    if own is None:
        own = counts
    else:
        _check_own(own, counts)
    n = _shanten_own(counts, melds, own)
    b = bytes(counts)
    if n != 0 or sum(b) + 3 * melds != 13:
        return n, ()
    after = _after_draws(b, melds)
    return 0, tuple(k for k in range(KIND_COUNT) if after[k] == -1 and own[k] < 4)


def _check_visible(visible: Sequence[int], counts: Sequence[int]) -> None:
    _check_counts(visible, "visible")
    for kind in range(KIND_COUNT):
        if visible[kind] + counts[kind] > 4:
            raise InvalidHand(f"{visible[kind]} visible + {counts[kind]} held copies of {kind_name(kind)} exceed 4")


def _ukeire_of(b: bytes, melds: int, visible: Sequence[int], base: int) -> dict[TileKind, int]:
    """Draws that lower ``base`` -> unseen copies; no checks."""
    after = _after_draws(b, melds)
    return {k: 4 - b[k] - visible[k] for k in range(KIND_COUNT) if after[k] < base}


def ukeire(counts: Sequence[int], melds: int = 0, visible: Sequence[int] | None = None) -> dict[TileKind, int]:
    """For a ``13 - 3*melds`` tile hand: each kind whose draw lowers the shanten -> how many
    copies are still unseen (``4 - counts[k] - visible[k]``, possibly 0).  ``visible`` counts
    the tiles seen outside the hand (discards, melds, dora indicators, Norths).

    >>> from sanma.engine.tiles import counts_of_kinds, parse
    >>> ukeire(counts_of_kinds(k for k, _ in parse("123456789p1239s")))
    {19: 3}
    """
    b = _checked(counts, melds, (13,))
    if visible is None:
        visible = _NO_TILES
    else:
        _check_visible(visible, counts)
    return _ukeire_of(b, melds, visible, _shanten_of(b, melds))


def discard_ukeire(
    counts: Sequence[int], melds: int = 0, visible: Sequence[int] | None = None
) -> dict[TileKind, tuple[int, dict[TileKind, int]]]:
    """For a ``14 - 3*melds`` tile hand: each kind that can be discarded -> (shanten after
    the discard, ukeire after the discard).  The discarded tile counts as visible.

    >>> from sanma.engine.tiles import counts_of_kinds, parse, parse_kind
    >>> discard_ukeire(counts_of_kinds(k for k, _ in parse("123456789p1239s1z")))[parse_kind("1z")]
    (0, {19: 3})
    """
    hand = bytearray(_checked(counts, melds, (14,)))
    if visible is None:
        visible = _NO_TILES
    else:
        _check_visible(visible, counts)
    seen = list(visible)
    out: dict[TileKind, tuple[int, dict[TileKind, int]]] = {}
    for kind in range(KIND_COUNT):
        if not hand[kind]:
            continue
        hand[kind] -= 1
        seen[kind] += 1  # the discard lies face up now
        b = bytes(hand)
        after = _shanten_of(b, melds)
        out[kind] = (after, _ukeire_of(b, melds, seen, after))
        seen[kind] -= 1
        hand[kind] += 1
    return out
