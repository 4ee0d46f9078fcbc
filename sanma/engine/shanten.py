"""Shanten, waits and ukeire of sanma hands.

Shanten is defined by distance: the fewest tiles a hand lacks to contain a complete hand
(4 sets and a pair, seven distinct pairs, or kokushi), minus one.  Complete is -1, tenpai 0.
The complete hand aimed at must itself exist, so it never holds a fifth copy of a kind:
``1111m`` is a set and a spare 1m, never a pair and a set waiting on a fifth 1m.

In sanma the man suit has only 1m and 9m, so those two behave like honors: neither
forms sequences.  Pin and sou are full suits.  The standard form is computed per group:
pin, sou and the nine "isolated" kinds (1m, 9m, 7 honors) each get a distance vector
(for 0..4 sets, with and without the pair), then a min-plus combine spreads the sets
over the groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Final

from sanma.engine.errors import InvalidHand
from sanma.engine.tiles import KIND_COUNT, TERMINAL_HONOR_KINDS, TileKind, kind_name

MAX_SETS: Final = 4
# Index of a distance vector: 2 * sets + pair.
_VECTOR_LEN: Final = 2 * (MAX_SETS + 1)
_ISOLATED_KINDS: Final = (0, 1, *range(20, 27))
_KOKUSHI_KINDS: Final = tuple(sorted(TERMINAL_HONOR_KINDS))
_NO_CAPS: Final = (4,) * KIND_COUNT


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


def _group_vectors(counts: Sequence[int], caps: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """Distance vectors of pin, sou and the isolated kinds under per-kind caps."""
    pin = _capped_vector(tuple(counts[2:11]), True, tuple(caps[2:11]))
    sou = _capped_vector(tuple(counts[11:20]), True, tuple(caps[11:20]))
    # Isolated kinds are interchangeable, so sorting them keeps the cache small.
    iso_pairs = sorted(((counts[k], caps[k]) for k in _ISOLATED_KINDS), reverse=True)
    iso = _capped_vector(tuple(n for n, _ in iso_pairs), False, tuple(c for _, c in iso_pairs))
    return pin, sou, iso


def _combine(vectors: Sequence[Sequence[int]], sets: int) -> int:
    """Fewest tiles missing for ``sets`` sets and one pair spread over the groups."""
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
# Unchecked fast paths: they assume valid input and skip every check.


def _standard_shanten_unchecked(counts: Sequence[int], melds: int) -> int:
    """Standard-form shanten; assumes a valid 27-long count array (no checks)."""
    return _combine(_group_vectors(counts, _NO_CAPS), MAX_SETS - melds) - 1


def _chiitoitsu_shanten_unchecked(counts: Sequence[int]) -> int:
    """Seven distinct pairs; assumes a valid count array (no checks)."""
    singles = counts.count(1) if isinstance(counts, list | tuple) else sum(1 for n in counts if n == 1)
    pairs = sum(1 for n in counts if n >= 2)
    if pairs >= 7:
        return -1
    return 13 - 2 * pairs - min(singles, 7 - pairs)


def _kokushi_shanten_unchecked(counts: Sequence[int]) -> int:
    """Kokushi over sanma's 13 terminal and honor kinds; assumes valid input (no checks)."""
    held = [counts[k] for k in _KOKUSHI_KINDS]
    kinds = sum(1 for n in held if n)
    pair = any(n >= 2 for n in held)
    return 13 - kinds - (1 if pair else 0)


def _shanten_unchecked(counts: Sequence[int], melds: int) -> int:
    """Minimum over every form; assumes valid input (no checks)."""
    result = _standard_shanten_unchecked(counts, melds)
    if melds == 0 and result > -1:
        result = min(result, _chiitoitsu_shanten_unchecked(counts), _kokushi_shanten_unchecked(counts))
    return result


def _caps_of(counts: Sequence[int], own: Sequence[int]) -> list[int]:
    """How many of each kind a target may hold: the copies outside the concealed hand
    (melded, extracted) can never be drawn."""
    return [4 - own[k] + counts[k] for k in range(KIND_COUNT)]


def _shanten_capped(counts: Sequence[int], melds: int, caps: Sequence[int]) -> int:
    """Minimum over every form when some copies lie outside the concealed hand (slow path)."""
    result = _combine(_group_vectors(counts, caps), MAX_SETS - melds) - 1
    if melds:
        return result
    pairable = [k for k in range(KIND_COUNT) if caps[k] >= 2]
    pairs = sum(1 for k in pairable if counts[k] >= 2)
    singles = sum(1 for k in pairable if counts[k] == 1)
    if len(pairable) >= 7:
        pairs = min(pairs, 7)
        result = min(result, 13 - 2 * pairs - min(singles, 7 - pairs))
    if all(caps[k] for k in _KOKUSHI_KINDS) and any(caps[k] >= 2 for k in _KOKUSHI_KINDS):
        result = min(result, _kokushi_shanten_unchecked(counts))
    return result


def _shanten_own(counts: Sequence[int], melds: int, own: Sequence[int] | None) -> int:
    if own is None or all(own[k] == counts[k] for k in range(KIND_COUNT)):
        return _shanten_unchecked(counts, melds)
    return _shanten_capped(counts, melds, _caps_of(counts, own))


# ---------------------------------------------------------------------------
# Public API.


def standard_shanten(counts: Sequence[int], melds: int = 0) -> int:
    """Shanten of the standard form (``4 - melds`` sets and a pair) of the concealed tiles.

    >>> from sanma.engine.tiles import counts_of_kinds, parse
    >>> standard_shanten(counts_of_kinds(k for k, _ in parse("123456789p1239s")))
    0
    """
    _check_hand(counts, melds, (13, 14))
    return _standard_shanten_unchecked(counts, melds)


def chiitoitsu_shanten(counts: Sequence[int]) -> int:
    """Shanten toward seven distinct pairs (four of a kind is one pair, not two)."""
    _check_hand(counts, 0, (13, 14))
    return _chiitoitsu_shanten_unchecked(counts)


def kokushi_shanten(counts: Sequence[int]) -> int:
    """Shanten toward kokushi: sanma's 13 kinds 1m 9m 1p 9p 1s 9s and the 7 honors, one
    of them paired."""
    _check_hand(counts, 0, (13, 14))
    return _kokushi_shanten_unchecked(counts)


def shanten(counts: Sequence[int], melds: int = 0, own: Sequence[int] | None = None) -> int:
    """Shanten of ``13 - 3*melds`` or ``14 - 3*melds`` concealed tiles: the minimum over the
    standard form, chiitoitsu and kokushi (the last two only without melds).
    -1 is complete, 0 tenpai.

    Without ``own`` only the concealed tiles limit the copies a target may use.  ``own``
    (every tile the player owns: concealed, melded, extracted Norths) also rules out the
    copies outside the hand, so a 13-tile hand is 0 exactly when ``waits`` is not empty.
    That path is slower (a search, not the table).

    >>> from sanma.engine.tiles import counts_of_kinds, parse
    >>> shanten(counts_of_kinds(k for k, _ in parse("19m19p19s1234567z")))
    0
    """
    _check_hand(counts, melds, (13, 14))
    if own is None:
        return _shanten_unchecked(counts, melds)
    _check_own(own, counts)
    return _shanten_own(counts, melds, own)


def is_complete(counts: Sequence[int], melds: int = 0) -> bool:
    """Whether ``14 - 3*melds`` concealed tiles form a complete hand in any form."""
    _check_hand(counts, melds, (14,))
    return _shanten_unchecked(counts, melds) == -1


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
    _check_hand(counts, melds, (13,))
    if own is not None:
        _check_own(own, counts)
    held = own if own is not None else counts
    if _shanten_own(counts, melds, own) != 0:
        return ()
    hand = list(counts)
    out: list[TileKind] = []
    for kind in range(KIND_COUNT):
        if held[kind] >= 4:
            continue
        hand[kind] += 1
        if _shanten_unchecked(hand, melds) == -1:
            out.append(kind)
        hand[kind] -= 1
    return tuple(out)


def _check_visible(visible: Sequence[int], counts: Sequence[int]) -> None:
    _check_counts(visible, "visible")
    for kind in range(KIND_COUNT):
        if visible[kind] + counts[kind] > 4:
            raise InvalidHand(f"{visible[kind]} visible + {counts[kind]} held copies of {kind_name(kind)} exceed 4")


def _ukeire_unchecked(hand: list[int], melds: int, visible: Sequence[int] | None, base: int) -> dict[TileKind, int]:
    out: dict[TileKind, int] = {}
    for kind in range(KIND_COUNT):
        if hand[kind] >= 4:
            continue
        hand[kind] += 1
        if _shanten_unchecked(hand, melds) < base:
            out[kind] = 5 - hand[kind] - (visible[kind] if visible is not None else 0)
        hand[kind] -= 1
    return out


def ukeire(counts: Sequence[int], melds: int = 0, visible: Sequence[int] | None = None) -> dict[TileKind, int]:
    """For a ``13 - 3*melds`` tile hand: each kind whose draw lowers the shanten -> how many
    copies are still unseen (``4 - counts[k] - visible[k]``, possibly 0).  ``visible`` counts
    the tiles seen outside the hand (discards, melds, dora indicators, Norths).

    >>> from sanma.engine.tiles import counts_of_kinds, parse
    >>> ukeire(counts_of_kinds(k for k, _ in parse("123456789p1239s")))
    {19: 3}
    """
    _check_hand(counts, melds, (13,))
    if visible is not None:
        _check_visible(visible, counts)
    return _ukeire_unchecked(list(counts), melds, visible, _shanten_unchecked(counts, melds))


def discard_ukeire(
    counts: Sequence[int], melds: int = 0, visible: Sequence[int] | None = None
) -> dict[TileKind, tuple[int, dict[TileKind, int]]]:
    """For a ``14 - 3*melds`` tile hand: each kind that can be discarded -> (shanten after
    the discard, ukeire after the discard)."""
    _check_hand(counts, melds, (14,))
    if visible is not None:
        _check_visible(visible, counts)
    hand = list(counts)
    out: dict[TileKind, tuple[int, dict[TileKind, int]]] = {}
    for kind in range(KIND_COUNT):
        if not hand[kind]:
            continue
        hand[kind] -= 1
        after = _shanten_unchecked(hand, melds)
        # The discarded tile is now seen by everyone, so it counts as visible.
        seen = list(visible) if visible is not None else [0] * KIND_COUNT
        seen[kind] += 1
        out[kind] = (after, _ukeire_unchecked(hand, melds, seen, after))
        hand[kind] += 1
    return out
