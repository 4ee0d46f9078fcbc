"""Generate sanma/engine/data/shanten_tables.bin, the distance tables of the fast shanten.

Deterministic: the same output bytes (and SHA-256, printed at the end) on every run.
Run: ``.venv/bin/python scripts/gen_shanten_tables.py`` (about half a minute).

A "group" is 9 kinds: pin or sou (sequences allowed), or the isolated kinds
1m 9m 1z..7z (no sequences).  A group pattern is 9 counts 0..4 with at most 14 tiles.
For each pattern and each target (s sets, p pairs; s 0..4, p 0..1) we want the distance:
the fewest tiles missing for the pattern to contain such a target, no kind above 4.

Method (independent of the slow search in shanten.py, which tests compare against):
1. mark the patterns that ARE a target shape (sets + pair, each kind <= 4);
2. close downward: a pattern is "usable" for (s, p) when it fits inside some target;
3. useless(C) = 0 if usable else 1 + min over one-tile removals; distance = size(target)
   - (|C| - useless(C)), since the tiles kept are the largest usable sub-pattern.
Identical distance vectors share a class id (126 suit classes, 55 isolated classes); a
pair table combines pin and sou classes, a final table adds the isolated class.

File layout (zlib-compressed): magic, then little-endian counts (uint32 patterns, then uint16)
(patterns, suit classes, isolated classes, pin+sou classes), then
suit class vectors (10 bytes each), isolated class vectors, pin+sou class vectors,
one uint32 per pattern (patterns in lexicographic order):
``tiles << 24 | kinds held twice or more << 20 | kinds held << 16 | suit class << 8 |
isolated class``,
the pin+sou class at ``pin class << 8 | sou class`` (126 * 256 bytes), and the distance
(shanten + 1) at ``pin+sou class << 11 | isolated class << 3 | melds`` (melds 0..4).
"""

from __future__ import annotations

import hashlib
import itertools
import struct
import sys
import zlib
from pathlib import Path

MAGIC = b"SANMA-SHANTEN-1\n"
OUT = Path(__file__).resolve().parents[1] / "sanma" / "engine" / "data" / "shanten_tables.bin"
SETS = 4
WIDTH = 2 * (SETS + 1)
MAX_TILES = 14
STRIDE = 256


def patterns() -> list[tuple[int, ...]]:
    return [p for p in itertools.product(range(5), repeat=9) if sum(p) <= MAX_TILES]


def target_blocks(runs: bool) -> list[tuple[int, ...]]:
    blocks = []
    if runs:
        for i in range(7):
            blocks.append(tuple(1 if i <= j <= i + 2 else 0 for j in range(9)))
    for i in range(9):
        blocks.append(tuple(3 if j == i else 0 for j in range(9)))
    return blocks


def distance_vectors(pats: list[tuple[int, ...]], index: dict[tuple[int, ...], int], runs: bool) -> list[bytes]:
    blocks = target_blocks(runs)
    pairs = [tuple(2 if j == i else 0 for j in range(9)) for i in range(9)]
    usable = [0] * len(pats)
    for s in range(SETS + 1):
        for combo in itertools.combinations_with_replacement(range(len(blocks)), s):
            base = [sum(blocks[b][j] for b in combo) for j in range(9)]
            if max(base, default=0) <= 4:
                usable[index[tuple(base)]] |= 1 << (2 * s)
            for pair in pairs:
                shape = tuple(a + b for a, b in zip(base, pair, strict=True))
                if max(shape) <= 4:
                    usable[index[shape]] |= 1 << (2 * s + 1)
    by_size = sorted(range(len(pats)), key=lambda i: sum(pats[i]))
    for i in reversed(by_size):
        p = pats[i]
        for j in range(9):
            if p[j] < 4:
                up = index.get((*p[:j], p[j] + 1, *p[j + 1 :]))
                if up is not None:
                    usable[i] |= usable[up]
    useless: list[tuple[int, ...]] = [()] * len(pats)
    for i in by_size:
        p = pats[i]
        downs = [useless[index[(*p[:j], p[j] - 1, *p[j + 1 :])]] for j in range(9) if p[j]]
        best = [min(col) for col in zip(*downs, strict=True)] if downs else [99] * WIDTH
        useless[i] = tuple(0 if usable[i] >> b & 1 else best[b] + 1 for b in range(WIDTH))
    out = []
    for i, p in enumerate(pats):
        size = sum(p)
        out.append(bytes(3 * (b // 2) + 2 * (b % 2) - (size - useless[i][b]) for b in range(WIDTH)))
    return out


def min_plus(x: bytes, y: bytes) -> bytes:
    out = [99] * WIDTH
    for s1 in range(SETS + 1):
        for p1 in range(2):
            for s2 in range(SETS + 1 - s1):
                for p2 in range(2 - p1):
                    i = 2 * (s1 + s2) + p1 + p2
                    out[i] = min(out[i], x[2 * s1 + p1] + y[2 * s2 + p2])
    return bytes(out)


def classify(vectors: list[bytes]) -> tuple[list[bytes], bytes]:
    classes = sorted(set(vectors))
    ids = {v: i for i, v in enumerate(classes)}
    return classes, bytes(ids[v] for v in vectors)


def build() -> bytes:
    pats = patterns()
    index = {p: i for i, p in enumerate(pats)}
    suit_classes, suit_ids = classify(distance_vectors(pats, index, runs=True))
    iso_classes, iso_ids = classify(distance_vectors(pats, index, runs=False))
    pair_vectors = [min_plus(a, b) for a in suit_classes for b in suit_classes]
    pair_classes, pair_ids = classify(pair_vectors)
    assert max(len(suit_classes), len(iso_classes), len(pair_classes)) <= STRIDE
    # Strided so the loader indexes with shifts and ors: pin class << 8 | sou class.
    pair = bytearray(len(suit_classes) * STRIDE)
    for a in range(len(suit_classes)):
        for b in range(len(suit_classes)):
            pair[a * STRIDE + b] = pair_ids[a * len(suit_classes) + b]
    # pin+sou class << 11 | isolated class << 3 | melds.
    final = bytearray(len(pair_classes) * STRIDE * 8)
    for ab, ab_vector in enumerate(pair_classes):
        for iso, iso_vector in enumerate(iso_classes):
            v = min_plus(ab_vector, iso_vector)
            for melds in range(SETS + 1):
                final[(ab * STRIDE + iso) * 8 + melds] = v[2 * (SETS - melds) + 1]
    # One uint32 per pattern, so the loader builds its dict without a Python loop.
    packed = b"".join(
        struct.pack("<I", sum(p) << 24 | sum(1 for c in p if c >= 2) << 20 | sum(1 for c in p if c) << 16 | s << 8 | i)
        for p, s, i in zip(pats, suit_ids, iso_ids, strict=True)
    )
    header = MAGIC + struct.pack("<I3H", len(pats), len(suit_classes), len(iso_classes), len(pair_classes))
    body = b"".join(suit_classes) + b"".join(iso_classes) + b"".join(pair_classes)
    return header + body + packed + bytes(pair) + bytes(final)


def main() -> int:
    raw = build()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(zlib.compress(raw, 9))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes compressed, {len(raw)} raw)")
    print(f"sha256 of the raw tables: {hashlib.sha256(raw).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
