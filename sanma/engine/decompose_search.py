"""The readings of a complete hand as frozen values (``Block``, ``Decomposition``) and the plain
recursive search that lists them: the reference the table-driven ``decompose.standard_readings``
is tested against."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from sanma.engine.decompose import Form, is_chiitoitsu, is_kokushi
from sanma.engine.tiles import KIND_COUNT, P1, S1, TERMINAL_HONOR_KINDS, TileKind

# A sequence may start at pin or sou 1..7.
_SEQUENCE_START: Final = tuple((P1 <= k < P1 + 7) or (S1 <= k < S1 + 7) for k in range(KIND_COUNT))


@dataclass(frozen=True, slots=True)
class Block:
    """One concealed set: a sequence ``first, first+1, first+2`` or a triplet of ``first``."""

    sequence: bool
    first: TileKind


@dataclass(frozen=True, slots=True)
class Decomposition:
    """One reading of the concealed tiles of a complete hand.

    ``pair`` is the pair of a standard hand and the doubled kind of kokushi (``-1`` for
    chiitoitsu); ``blocks`` are the concealed sets of a standard hand, sorted;
    ``pairs`` are the seven kinds of chiitoitsu.
    """

    form: Form
    pair: TileKind
    blocks: tuple[Block, ...] = ()
    pairs: tuple[TileKind, ...] = ()


_TRIPLETS: Final = tuple(Block(False, k) for k in range(KIND_COUNT))
_SEQUENCES: Final = tuple(Block(True, k) if _SEQUENCE_START[k] else None for k in range(KIND_COUNT))


def _sets(counts: list[int], start: int, need: int, acc: list[Block], out: list[tuple[Block, ...]]) -> None:
    """Append to ``out`` every way to split ``counts`` (from ``start`` on) into ``need`` sets."""
    k = start
    while k < KIND_COUNT and counts[k] == 0:
        k += 1
    if k == KIND_COUNT:
        if need == 0:
            out.append(tuple(acc))
        return
    if need == 0:
        return
    c = counts[k]
    if c >= 3:
        counts[k] -= 3
        acc.append(_TRIPLETS[k])
        _sets(counts, k, need - 1, acc, out)
        acc.pop()
        counts[k] += 3
    if _SEQUENCE_START[k] and counts[k + 1] and counts[k + 2]:
        counts[k] -= 1
        counts[k + 1] -= 1
        counts[k + 2] -= 1
        acc.append(_SEQUENCES[k])  # type: ignore[arg-type]  # not None: k starts a sequence
        _sets(counts, k, need - 1, acc, out)
        acc.pop()
        counts[k] += 1
        counts[k + 1] += 1
        counts[k + 2] += 1


def standard_decompositions(counts: Sequence[int], melds: int = 0) -> list[Decomposition]:
    """All readings of ``counts`` as ``4 - melds`` sets and a pair (no duplicates).

    >>> from sanma.engine.tiles import counts_of_kinds, parse
    >>> c = counts_of_kinds(k for k, _ in parse("111222333p11z"))
    >>> len(standard_decompositions(c, 1))
    2
    """
    work = list(counts)
    if sum(work) != 14 - 3 * melds:
        return []
    need = 4 - melds
    found: list[Decomposition] = []
    seen: set[tuple[int, tuple[Block, ...]]] = set()
    for p in range(KIND_COUNT):
        if work[p] < 2:
            continue
        work[p] -= 2
        outs: list[tuple[Block, ...]] = []
        _sets(work, 0, need, [], outs)
        work[p] += 2
        for blocks in outs:
            key = (p, tuple(sorted(blocks, key=_block_key)))
            if key not in seen:
                seen.add(key)
                found.append(Decomposition("standard", p, key[1]))
    return found


def _block_key(b: Block) -> tuple[int, bool]:
    return (b.first, b.sequence)


def decompositions(counts: Sequence[int], melds: int = 0) -> list[Decomposition]:
    """Every reading of a complete hand: standard, chiitoitsu and kokushi (the last two only
    without melds).  Empty when the tiles are not complete.

    >>> from sanma.engine.tiles import counts_of_kinds, parse
    >>> [d.form for d in decompositions(counts_of_kinds(k for k, _ in parse("22334455667788p")))]
    ['standard', 'standard', 'standard', 'chiitoitsu']
    """
    found = standard_decompositions(counts, melds)
    if melds == 0:
        if is_chiitoitsu(counts):
            found.append(Decomposition("chiitoitsu", -1, (), tuple(k for k in range(KIND_COUNT) if counts[k] == 2)))
        elif is_kokushi(counts):
            pair = next(k for k in TERMINAL_HONOR_KINDS if counts[k] == 2)
            found.append(Decomposition("kokushi", pair))
    return found
