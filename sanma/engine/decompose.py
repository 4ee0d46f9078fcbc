"""Every way to read a complete hand as sets and a pair, seven pairs, or kokushi.

A complete sanma hand of ``14 - 3 * melds`` concealed tiles is one of:

* **standard**: ``4 - melds`` concealed sets (a sequence or a triplet) and one pair;
* **chiitoitsu**: seven distinct pairs (four copies never count as two pairs);
* **kokushi**: one each of the 13 terminal and honor kinds plus one more of them.

Man tiles (only 1m and 9m exist) and honors never form sequences; pin and sou do.
The decompositions are small frozen values so that the yaku and fu code can read them
without knowing how they were found.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from sanma.engine.tiles import KIND_COUNT, P1, S1, TERMINAL_HONOR_KINDS, TileKind

Form = Literal["standard", "chiitoitsu", "kokushi"]

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


def is_chiitoitsu(counts: Sequence[int]) -> bool:
    """Seven distinct pairs."""
    return sum(counts) == 14 and all(c in (0, 2) for c in counts)


def is_kokushi(counts: Sequence[int]) -> bool:
    """One of each terminal and honor kind and one more of one of them."""
    if sum(counts) != 14:
        return False
    return all(counts[k] >= 1 for k in TERMINAL_HONOR_KINDS) and sum(counts[k] for k in TERMINAL_HONOR_KINDS) == 14


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


def is_winning_shape(counts: Sequence[int], melds: int = 0) -> bool:
    """Whether ``counts`` (``14 - 3 * melds`` concealed tiles) form a complete hand."""
    return sum(counts) == 14 - 3 * melds and bool(fast_standard(counts) or (melds == 0 and _special(counts)))


def _special(counts: Sequence[int]) -> bool:
    return is_chiitoitsu(counts) or is_kokushi(counts)


# --- the fast path used by scoring ---------------------------------------------------------
#
# A suit's share of a standard hand is a few sets and at most one pair.  Every such pattern of
# one suit (at most 4 sets, at most one pair, no kind above 4) is enumerated once into a static
# table keyed by the suit's 9 counts as bytes, so a hand decomposes with two dict lookups plus
# a pass over the isolated kinds (1m, 9m, honors: 3 copies = triplet, 2 = pair, else nothing).

# (pair offset or -1, sequence start offsets, triplet offsets), offsets 0..8 within the suit.
SuitReading = tuple[int, tuple[int, ...], tuple[int, ...]]
# (pair kind, sequence first kinds sorted, concealed triplet kinds sorted)
FastReading = tuple[int, tuple[int, ...], tuple[int, ...]]

_SUIT_TABLE: dict[bytes, list[SuitReading]] = {}


def _build_suit_table() -> None:
    shapes = [(True, i) for i in range(7)] + [(False, i) for i in range(9)]

    def add(start: int, chosen: list[tuple[bool, int]], counts: list[int]) -> None:
        seqs = tuple(i for is_seq, i in chosen if is_seq)
        trips = tuple(i for is_seq, i in chosen if not is_seq)
        key = bytes(counts)
        _SUIT_TABLE.setdefault(key, []).append((-1, seqs, trips))
        for p in range(9):
            if counts[p] <= 2:
                counts[p] += 2
                _SUIT_TABLE.setdefault(bytes(counts), []).append((p, seqs, trips))
                counts[p] -= 2
        if len(chosen) == 4:
            return
        for j in range(start, len(shapes)):
            is_seq, i = shapes[j]
            kinds = (i, i + 1, i + 2) if is_seq else (i, i, i)
            for k in kinds:
                counts[k] += 1
            if max(counts) <= 4:
                chosen.append(shapes[j])
                add(j, chosen, counts)
                chosen.pop()
            for k in kinds:
                counts[k] -= 1

    add(0, [], [0] * 9)


# The build makes ~50,000 small objects; pausing the cyclic GC (none of them is cyclic) keeps
# it from scanning them over and over, which would make the import several times slower.
_gc_was_enabled = gc.isenabled()
gc.disable()
try:
    _build_suit_table()
finally:
    if _gc_was_enabled:
        gc.enable()
_NO_READINGS: Final[list[SuitReading]] = []


def _shift_map(base: TileKind) -> dict[tuple[int, ...], tuple[int, ...]]:
    """Offset tuple -> kind tuple for the suit starting at ``base`` (a few hundred entries)."""
    out: dict[tuple[int, ...], tuple[int, ...]] = {}
    for readings in _SUIT_TABLE.values():
        for _, seqs, trips in readings:
            if seqs not in out:
                out[seqs] = tuple(base + i for i in seqs)
            if trips not in out:
                out[trips] = tuple(base + i for i in trips)
    return out


_PIN_KINDS: Final = _shift_map(P1)
_SOU_KINDS: Final = _shift_map(S1)


def fast_standard(counts: Sequence[int]) -> list[FastReading]:
    """Every standard reading of a complete hand's concealed ``counts`` as plain tuples
    ``(pair, sequence firsts, triplet kinds)``; empty when there is none.  The tile total is
    not checked here (``score_win`` checks it): a pattern with exactly one pair and sets only
    is complete for any meld count that matches its size."""
    if not isinstance(counts, bytes):
        counts = bytes(counts)
    # The isolated kinds (1m 9m, then the 7 honors): each 0, 2 (one pair at most) or 3 copies.
    iso = counts[0:2] + counts[20:27]
    if 1 in iso or 4 in iso:
        return []
    twos = iso.count(2)
    if twos > 1:
        return []
    pair = -1
    if twos:
        i = iso.index(2)
        pair = i if i < 2 else i + 18
    trips: tuple[int, ...] = ()
    if 3 in iso:
        trips = tuple(i if i < 2 else i + 18 for i, c in enumerate(iso) if c == 3)
    pin = _SUIT_TABLE.get(bytes(counts[P1 : P1 + 9]), _NO_READINGS)
    if not pin:
        return []
    sou = _SUIT_TABLE.get(bytes(counts[S1 : S1 + 9]), _NO_READINGS)
    if not sou:
        return []
    out: list[FastReading] = []
    for pp, pseq, ptrip in pin:
        if pp >= 0 and pair >= 0:
            continue
        for sp, sseq, strip in sou:
            if sp >= 0:
                if pair >= 0 or pp >= 0:
                    continue
                the_pair = S1 + sp
            elif pp >= 0:
                the_pair = P1 + pp
            elif pair >= 0:
                the_pair = pair
            else:
                continue
            seqs = tuple(P1 + i for i in pseq) + tuple(S1 + i for i in sseq)
            t = (
                tuple(trips) + tuple(P1 + i for i in ptrip) + tuple(S1 + i for i in strip)
                if ptrip or strip
                else tuple(trips)
            )
            out.append((the_pair, seqs, t))
    return out
