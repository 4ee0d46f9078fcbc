"""Every way to read a complete hand as sets and a pair, seven pairs, or kokushi.

A complete sanma hand of ``14 - 3 * melds`` concealed tiles is one of:

* **standard**: ``4 - melds`` concealed sets (a sequence or a triplet) and one pair;
* **chiitoitsu**: seven distinct pairs (four copies never count as two pairs);
* **kokushi**: one each of the 13 terminal and honor kinds plus one more of them.

Man tiles (only 1m and 9m exist) and honors never form sequences; pin and sou do.
Scoring reads a hand's standard readings as plain tuples from precomputed tables
(``standard_readings``); the readings as small frozen values (``Decomposition``) and the
plain recursive search that lists them, which the tables are tested against, are in
``decompose_search``, above this module.
"""

from __future__ import annotations

import gc
import marshal
import mmap
import os
import sys
from collections.abc import Sequence
from itertools import combinations
from typing import Final, Literal

from sanma.engine.tiles import KIND_COUNT, P1, S1, TERMINAL_HONOR_KINDS

Form = Literal["standard", "chiitoitsu", "kokushi"]


def is_chiitoitsu(counts: Sequence[int]) -> bool:
    """Seven distinct pairs."""
    return sum(counts) == 14 and all(c in (0, 2) for c in counts)


def is_kokushi(counts: Sequence[int]) -> bool:
    """One of each terminal and honor kind and one more of one of them."""
    if sum(counts) != 14:
        return False
    return all(counts[k] >= 1 for k in TERMINAL_HONOR_KINDS) and sum(counts[k] for k in TERMINAL_HONOR_KINDS) == 14


def is_winning_shape(counts: Sequence[int], melds: int = 0) -> bool:
    """Whether ``counts`` (``14 - 3 * melds`` concealed tiles) form a complete hand."""
    return sum(counts) == 14 - 3 * melds and bool(fast_standard(counts) or (melds == 0 and _special(counts)))


def _special(counts: Sequence[int]) -> bool:
    return is_chiitoitsu(counts) or is_kokushi(counts)


# --- the fast path used by scoring ---------------------------------------------------------
#
# A suit's share of a standard hand is a few sets and at most one pair.  Every such pattern of
# one suit (at most 4 sets, at most one pair, no kind above 4) is enumerated once into a static
# table keyed by the suit's 9 counts (packed one byte per kind, see ``packed_counts``), together
# with what the yaku and fu need from it, so a hand decomposes with three dict lookups: pin,
# sou, and the isolated kinds (1m, 9m, honors: 3 copies = triplet, 2 = pair, else nothing).

# One reading of a suit: (pair offset 0..8 or -1, sequence firsts as pin kinds, the same as sou
# kinds, triplet kinds as pin kinds, the same as sou kinds, identical-sequence pairs (peikou),
# ittsu, every set holds a terminal (for chanta), fu of the sets as concealed triplets).
SuitReading = tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], int, bool, bool, int]
# One standard reading of a hand: (pair kind, sequence firsts sorted, concealed triplet kinds
# (1m 9m honors, then pin, then sou), peikou, ittsu, chanta-shaped sets, concealed triplet fu).
StandardReading = tuple[int, tuple[int, ...], tuple[int, ...], int, bool, bool, int]
# (pair kind, sequence firsts, concealed triplet kinds): the plain form of ``fast_standard``.
FastReading = tuple[int, tuple[int, ...], tuple[int, ...]]

_NINE: Final = (1 << 72) - 1  # nine packed counts
_PIN_SHIFT: Final = 8 * P1
_SOU_SHIFT: Final = 8 * S1
# The isolated kinds: 1m, 9m and the seven honors.
_ISOLATED: Final = (0, 1, *range(20, KIND_COUNT))
_ISOLATED_MASK: Final = sum(0xFF << (8 * k) for k in _ISOLATED)


def packed_counts(counts: Sequence[int]) -> int:
    """Kind counts packed in one integer, one byte per kind (kind 0 lowest)."""
    return int.from_bytes(bytes(counts), "little")


def _suit_table() -> dict[int, tuple[SuitReading, ...]]:
    shapes = [(True, i) for i in range(7)] + [(False, i) for i in range(9)]
    table: dict[int, list[SuitReading]] = {}
    kinds: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}

    def absolute(offsets: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        if offsets not in kinds:
            kinds[offsets] = (tuple(P1 + i for i in offsets), tuple(S1 + i for i in offsets))
        return kinds[offsets]

    def add(start: int, chosen: list[tuple[bool, int]], counts: list[int]) -> None:
        seqs = tuple(i for is_seq, i in chosen if is_seq)
        trips = tuple(i for is_seq, i in chosen if not is_seq)
        peikou = i = 0
        while i < len(seqs) - 1:
            if seqs[i] == seqs[i + 1]:
                peikou += 1
                i += 2
            else:
                i += 1
        ittsu = 0 in seqs and 3 in seqs and 6 in seqs
        chanta = all(i in (0, 6) for i in seqs) and all(i in (0, 8) for i in trips)
        fu = sum(8 if i in (0, 8) else 4 for i in trips)
        pin_seqs, sou_seqs = absolute(seqs)
        pin_trips, sou_trips = absolute(trips)
        key = packed_counts(counts)
        for p in range(-1, 9):
            if p < 0 or counts[p] <= 2:
                pkey = key + (2 << (8 * p)) if p >= 0 else key
                entry = (p, pin_seqs, sou_seqs, pin_trips, sou_trips, peikou, ittsu, chanta, fu)
                table.setdefault(pkey, []).append(entry)
        if len(chosen) == 4:
            return
        for j in range(start, len(shapes)):
            is_seq, i = shapes[j]
            kinds_of_set = (i, i + 1, i + 2) if is_seq else (i, i, i)
            for k in kinds_of_set:
                counts[k] += 1
            if max(counts) <= 4:
                chosen.append(shapes[j])
                add(j, chosen, counts)
                chosen.pop()
            for k in kinds_of_set:
                counts[k] -= 1

    add(0, [], [0] * 9)
    return {key: tuple(readings) for key, readings in table.items()}


def _isolated_table() -> dict[int, tuple[int, tuple[int, ...]]]:
    """Packed counts of the isolated kinds -> (pair kind or -1, triplet kinds), for every
    pattern of at most four triplets and at most one pair."""
    table: dict[int, tuple[int, tuple[int, ...]]] = {}
    for n in range(5):
        for trips in combinations(_ISOLATED, n):
            packed = sum(3 << (8 * k) for k in trips)
            table[packed] = (-1, trips)
            for k in _ISOLATED:
                if k not in trips:
                    table[packed + (2 << (8 * k))] = (k, trips)
    return table


# (suit table, isolated table): packed counts -> readings, see ``standard_readings``.
Tables = tuple[dict[int, tuple[SuitReading, ...]], dict[int, tuple[int, tuple[int, ...]]]]


def build_tables() -> Tables:
    """The suit table and the isolated table, computed (what the data file holds)."""
    # The build makes ~100,000 small objects; pausing the cyclic GC (none of them is cyclic)
    # keeps it from scanning them over and over, which would make it several times slower.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _suit_table(), _isolated_table()
    finally:
        if was_enabled:
            gc.enable()


# The suit table is precomputed (scripts/gen_decompose_tables.py) into a data file.  Decoding
# the whole table (~75,000 objects) took most of a one-shot process's start-up (``sanma score`` on
# a file), although a process looks up only the suits its hands have (a few thousand in 5,000
# random hands), so the file is an index that is mapped into memory, not read: an
# open-addressing hash table of the keys, and each key's readings as its own ``marshal``
# record, decoded on the key's first lookup and kept.  Only the pages a lookup touches are ever
# read.  ``marshal`` may change between Python versions, so a file that cannot be used makes
# the module build the table instead, and a test checks every record equals the built table.
# The isolated table is small: it is built at import (quicker than decoding it).
#
# Layout, little-endian: magic, 6 zero bytes, the slot count and the key count (8 bytes each),
# then per slot the key's low 64 bits (8 bytes), per key + 1 the record offsets (4 bytes), per
# slot the record number (2 bytes) and the key's top byte + 1 (0 = empty slot), then the records.
TABLE_FILE: Final = os.path.join(os.path.dirname(__file__), "data", "decompose_tables.bin")
TABLE_MAGIC: Final = b"SANMA-DECOMPOSE-3\n"
_HEADER: Final = len(TABLE_MAGIC) + 6 + 16
_LOW64: Final = (1 << 64) - 1
# Records are marshal version 2: no back-references, which makes a small record about twice as
# quick to decode as version 4 (the file is larger; only its touched pages are read).
_RECORD_VERSION: Final = 2


def _slot_count(keys: int) -> int:
    """A prime at least twice the number of keys: short probe runs."""
    n = 2 * keys + 1
    while any(n % d == 0 for d in range(2, int(n**0.5) + 1)):
        n += 2
    return n


def _le(values: list[int], size: int) -> bytes:
    return b"".join(v.to_bytes(size, "little") for v in values)


def table_file_bytes(suit: dict[int, tuple[SuitReading, ...]]) -> bytes:
    """The data file's contents for the suit table (as ``build_tables`` returns it)."""
    keys = sorted(suit)
    slots = _slot_count(len(keys))
    tops = bytearray(slots)
    lows = [0] * slots
    records = [0] * slots
    for number, key in enumerate(keys):
        if key >> 64 > 4:
            raise ValueError("a suit key with a count above 4")
        slot = key % slots
        while tops[slot]:
            slot = (slot + 1) % slots
        tops[slot], lows[slot], records[slot] = (key >> 64) + 1, key & _LOW64, number
    blobs = [marshal.dumps(suit[key], _RECORD_VERSION) for key in keys]
    offsets = [0]
    for blob in blobs:
        offsets.append(offsets[-1] + len(blob))
    head = TABLE_MAGIC + bytes(6) + _le([slots, len(keys)], 8)
    return head + _le(lows, 8) + _le(offsets, 4) + _le(records, 2) + bytes(tops) + b"".join(blobs)


class SuitIndex:
    """The data file's suit index: ``find(key)`` decodes one key's readings (``None`` for a key
    that has none).  ``SuitIndex.empty()`` finds nothing (the table was built instead)."""

    __slots__ = ("_blob", "_lows", "_offsets", "_records", "_slots", "_tops")

    def __init__(self, data: memoryview) -> None:
        """``data``: the file's bytes (a mapped file); raises ``ValueError`` if they do not
        hold an index of this layout."""
        if data[: len(TABLE_MAGIC)].tobytes() != TABLE_MAGIC or sys.byteorder != "little":
            raise ValueError("not a suit index of this layout (or not a little-endian machine)")
        slots = int.from_bytes(data[_HEADER - 16 : _HEADER - 8], "little")
        keys = int.from_bytes(data[_HEADER - 8 : _HEADER], "little")
        pos = _HEADER
        sections = []
        for size, count in ((8, slots), (4, keys + 1), (2, slots), (1, slots)):
            sections.append(data[pos : pos + size * count])
            pos += size * count
        lows, offsets, records, tops = sections
        self._lows = lows.cast("Q")
        self._offsets = offsets.cast("I")
        self._records = records.cast("H")
        self._tops = tops
        self._blob = data[pos:]
        self._slots = slots
        if not slots or len(self._tops) != slots or self._offsets[-1] != len(self._blob) or not tops.tobytes().count(0):
            raise ValueError("index and records do not match")

    @classmethod
    def empty(cls) -> SuitIndex:
        """An index of no keys."""
        return cls(memoryview(table_file_bytes({})))

    def find(self, key: int) -> tuple[SuitReading, ...] | None:
        """The readings of one suit's packed counts, decoded from the file."""
        top, low = (key >> 64) + 1, key & _LOW64
        tops, lows = self._tops, self._lows
        slot = key % self._slots
        while tops[slot]:
            if tops[slot] == top and lows[slot] == low:
                n = self._records[slot]
                readings: tuple[SuitReading, ...] = marshal.loads(self._blob[self._offsets[n] : self._offsets[n + 1]])
                return readings
            slot += 1
            if slot == self._slots:
                slot = 0
        return None


def _load_index(path: str) -> SuitIndex | None:
    """The suit index of the data file at ``path``, mapped into memory; ``None`` when it cannot
    be used (missing, damaged, another layout)."""
    try:
        with open(path, "rb") as f:
            data = memoryview(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ))
        return SuitIndex(data)
    except (OSError, ValueError, TypeError, IndexError):
        return None


def _suit_tables() -> tuple[SuitIndex, dict[int, tuple[SuitReading, ...]]]:
    """(index, the suit readings decoded so far): from the data file, else built whole."""
    index = _load_index(TABLE_FILE)
    if index is not None:
        return index, {}
    return SuitIndex.empty(), build_tables()[0]


_SUIT_INDEX, _SUIT_CACHE = _suit_tables()
_ISOLATED_TABLE: Final = _isolated_table()


def suit_readings(key: int) -> tuple[SuitReading, ...] | None:
    """The readings of one suit's nine counts packed one byte per kind (``None``: no reading
    of sets and at most one pair), decoded once and kept."""
    readings = _SUIT_CACHE.get(key)
    if readings is None:
        readings = _SUIT_INDEX.find(key)
        if readings is not None:
            _SUIT_CACHE[key] = readings
    return readings


def standard_readings(packed: int) -> list[StandardReading]:
    """Every standard reading of a complete hand's concealed counts, ``packed`` one byte per
    kind (see ``packed_counts``); empty when there is none.  The tile total is not checked
    here (``score_win`` checks it): a pattern with exactly one pair and sets only is complete
    for any meld count that matches its size."""
    isolated = _ISOLATED_TABLE.get(packed & _ISOLATED_MASK)
    if isolated is None:
        return []
    key = (packed >> _PIN_SHIFT) & _NINE
    pin = _SUIT_CACHE.get(key) or suit_readings(key)  # the cache inline: most lookups hit it
    if pin is None:
        return []
    key = (packed >> _SOU_SHIFT) & _NINE
    sou = _SUIT_CACHE.get(key) or suit_readings(key)
    if sou is None:
        return []
    pair, trips = isolated
    trip_fu = 8 * len(trips)
    out: list[StandardReading] = []
    for p in pin:
        if p[0] >= 0 and pair >= 0:
            continue
        for s in sou:
            if s[0] >= 0:
                if pair >= 0 or p[0] >= 0:
                    continue
                the_pair = S1 + s[0]
            elif p[0] >= 0:
                the_pair = P1 + p[0]
            elif pair >= 0:
                the_pair = pair
            else:
                continue
            out.append(
                (
                    the_pair,
                    p[1] + s[2],
                    trips + p[3] + s[4],
                    p[5] + s[5],
                    p[6] or s[6],
                    p[7] and s[7],
                    trip_fu + p[8] + s[8],
                )
            )
    return out


def fast_standard(counts: Sequence[int]) -> list[FastReading]:
    """Every standard reading of a complete hand's concealed ``counts`` as plain tuples
    ``(pair, sequence firsts, triplet kinds)``; empty when there is none (the tile total is
    not checked, see ``standard_readings``)."""
    return [r[:3] for r in standard_readings(packed_counts(counts))]
