"""The wall: a seeded shuffle (versioned) or a scripted deal, both as a ``Deal``.

Algorithm ``sanma-wall-v1`` (do not change it; add a v2 instead, since match logs
record the version and replays must stay exact):

1. A byte stream: SHA-256 of ``b"sanma-wall-v1:" + f"{seed}:{hand_index}:{block}"``
   for block = 0, 1, 2, ... concatenated; it is read as big-endian 32-bit words.
2. Fisher-Yates over the tiles ``0..107`` in order: for i from 107 down to 1,
   take words until one is below ``(2**32 // (i + 1)) * (i + 1)`` (rejection, so no
   bias) and swap position i with ``word % (i + 1)``.
3. Layout of the shuffled list ``w``: seat s's hand is ``w[13s : 13s + 13]``; the live
   wall in draw order is ``w[39:94]`` (55 tiles); the dead wall is ``w[94:108]``: the
   four replacement tiles ``w[94:98]``, dora indicators ``w[98:103]`` and the ura
   indicators under them ``w[103:108]``.
4. Replacement draws (kan, kita) take the four replacement tiles in order, then the
   tiles at the end of the live wall, last first, since each replacement moves the
   end of the live wall by one and the dead wall stays at 14.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from sanma.engine.errors import InvalidHand
from sanma.engine.tiles import TILE_COUNT, Tile, tiles_to_mpsz

WALL_ALGORITHM = "sanma-wall-v1"
LIVE_WALL_SIZE = 55
MAX_REPLACEMENTS = 8  # four kans and four kita


@dataclass(frozen=True, slots=True)
class Deal:
    """Everything the wall will give in one hand, in the order it gives it.

    ``live`` is the live wall in draw order (a recorded hand may list only the tiles
    that were drawn); ``replacements`` are the replacement draws in order;
    ``dora_indicators``/``ura_indicators`` are in reveal order.  The live wall holds
    ``live_size`` tiles at the start and each replacement draw shortens it by one.
    """

    hands: tuple[tuple[Tile, ...], tuple[Tile, ...], tuple[Tile, ...]]
    live: tuple[Tile, ...]
    replacements: tuple[Tile, ...]
    dora_indicators: tuple[Tile, ...]
    ura_indicators: tuple[Tile, ...] = ()
    live_size: int = LIVE_WALL_SIZE

    def __post_init__(self) -> None:
        if len(self.hands) != 3 or any(len(h) != 13 for h in self.hands):
            raise InvalidHand("a deal needs three hands of 13 tiles")
        if not self.dora_indicators:
            raise InvalidHand("a deal needs at least the first dora indicator")

    def digest(self) -> str:
        """SHA-256 over the deal, to publish before the hand and check after it."""
        parts = [tiles_to_mpsz(h) for h in self.hands]
        parts += [
            ",".join(map(str, seq)) for seq in (self.live, self.replacements, self.dora_indicators, self.ura_indicators)
        ]
        return hashlib.sha256("|".join(parts).encode()).hexdigest()


def _words(seed: int, hand_index: int):  # type: ignore[no-untyped-def]
    block = 0
    while True:
        digest = hashlib.sha256(f"{WALL_ALGORITHM}:{seed}:{hand_index}:{block}".encode()).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(digest[i : i + 4], "big")
        block += 1


def shuffled_tiles(seed: int, hand_index: int) -> list[Tile]:
    """The 108 tiles in wall order for one hand of a seeded match."""
    tiles = list(range(TILE_COUNT))
    words = _words(seed, hand_index)
    for i in range(TILE_COUNT - 1, 0, -1):
        n = i + 1
        limit = (2**32 // n) * n
        word = next(words)
        while word >= limit:
            word = next(words)
        j = word % n
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tiles


def deal_from_seed(seed: int, hand_index: int) -> Deal:
    """The deal of hand number ``hand_index`` (0-based, counting every hand played,
    repeats included) of a match seeded with ``seed``."""
    w = shuffled_tiles(seed, hand_index)
    live = tuple(w[39:94])
    return Deal(
        hands=(tuple(w[0:13]), tuple(w[13:26]), tuple(w[26:39])),
        live=live,
        replacements=tuple(w[94:98]) + tuple(reversed(live[-4:])),
        dora_indicators=tuple(w[98:103]),
        ura_indicators=tuple(w[103:108]),
    )
