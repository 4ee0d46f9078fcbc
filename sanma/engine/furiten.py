"""Helpers for what a riichi hand may still do without changing how it reads.

``kan_keeps_readings`` decides the one closed kan a riichi player may declare (spec 4):
the kan must not change the waits (checked by the caller) nor the hand's decomposition,
that is, in every reading of every winning hand the three tiles of that kind must be a
triplet.  A hand whose ``333p`` can also be read as the pair ``33p`` plus a sequence
through ``3p`` would lose a reading, so that kan is refused.
"""

from __future__ import annotations

from collections.abc import Iterable

from sanma.engine.tiles import EAST, KIND_COUNT, P1, S1, TileKind


def _starts_sequence(kind: TileKind) -> bool:
    return (P1 <= kind <= P1 + 6) or (S1 <= kind <= S1 + 6)


def _sets_without_triplet(counts: list[int], start: int, kind: TileKind) -> bool:
    """Whether ``counts`` splits into sets with no triplet of ``kind``."""
    k = start
    while k < KIND_COUNT and counts[k] == 0:
        k += 1
    if k == KIND_COUNT:
        return True
    if counts[k] >= 3 and k != kind:
        counts[k] -= 3
        ok = _sets_without_triplet(counts, k, kind)
        counts[k] += 3
        if ok:
            return True
    if k < EAST and _starts_sequence(k) and counts[k + 1] and counts[k + 2]:
        for j in (k, k + 1, k + 2):
            counts[j] -= 1
        ok = _sets_without_triplet(counts, k, kind)
        for j in (k, k + 1, k + 2):
            counts[j] += 1
        return ok
    return False


def reads_without_triplet(counts: list[int], kind: TileKind) -> bool:
    """Whether a complete standard hand (``counts`` of its concealed tiles) has a reading
    in which ``kind`` is not a triplet."""
    for pair in range(KIND_COUNT):
        if counts[pair] >= 2:
            counts[pair] -= 2
            ok = _sets_without_triplet(counts, 0, kind)
            counts[pair] += 2
            if ok:
                return True
    return False


def kan_keeps_readings(counts: list[int], kind: TileKind, waits: Iterable[TileKind]) -> bool:
    """For a tenpai hand (``counts`` of its concealed tiles, three of ``kind``): whether
    every reading of every winning hand keeps ``kind`` as a triplet, so that a closed kan
    of it changes nothing (the melds play no part in this)."""
    for wait in waits:
        full = list(counts)
        full[wait] += 1
        if reads_without_triplet(full, kind):
            return False
    return True
