"""Melds: the sets a player has called or declared, as small immutable values, and the plain
view of one that scoring reads (``MeldKinds``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sanma.engine.errors import InvalidHand
from sanma.engine.tiles import Tile, TileKind, is_red, kind_of, tiles_to_mpsz

MeldKinds = tuple[TileKind, int, bool]
"""A meld as scoring reads it: (its kind, 3 or 4 tiles, a closed kan).  ``Meld.kinds`` gives it;
``sanma score`` reads it straight from a request, with no physical tiles."""


class MeldType(StrEnum):
    """The four kinds of meld in sanma (there is no chi)."""

    PON = "pon"
    DAIMINKAN = "daiminkan"  # open kan called on a discard
    KAKAN = "kakan"  # added kan: a fourth tile added to one's own pon
    ANKAN = "ankan"  # closed kan


@dataclass(frozen=True, slots=True)
class Meld:
    """A called or declared set.

    ``tiles`` are the physical tiles (3 for a pon, 4 for a kan); ``called`` is the tile
    taken from ``from_seat`` (``None`` for a closed kan).  A kakan keeps the called
    tile and seat of the pon it grew from; ``added`` is the tile added.
    """

    type: MeldType
    tiles: tuple[Tile, ...]
    called: Tile | None = None
    from_seat: int | None = None
    added: Tile | None = None

    def __post_init__(self) -> None:
        tiles = self.tiles
        want = 3 if self.type is MeldType.PON else 4
        if len(tiles) != want:
            raise InvalidHand(f"a {self.type.value} has {want} tiles, not {len(tiles)}")
        if len({t >> 2 for t in tiles}) != 1:  # >> 2: kind_of, inline (every meld a reader builds)
            raise InvalidHand(f"a {self.type.value} must be one kind: {tiles_to_mpsz(tiles)}")
        if len(set(tiles)) != want:
            raise InvalidHand("a meld holds the same physical tile twice")

    @property
    def kind(self) -> TileKind:
        """The tile kind of the set."""
        return kind_of(self.tiles[0])

    @property
    def is_kan(self) -> bool:
        """Four tiles."""
        return self.type is not MeldType.PON

    @property
    def is_open(self) -> bool:
        """Every meld but a closed kan opens the hand."""
        return self.type is not MeldType.ANKAN

    @property
    def kinds(self) -> MeldKinds:
        """The meld as scoring reads it."""
        return (self.tiles[0] >> 2, len(self.tiles), self.type is MeldType.ANKAN)

    def red_count(self, red_fives: bool = True) -> int:
        """How many red fives the meld holds."""
        return sum(is_red(t, red_fives) for t in self.tiles)

    def notation(self, red_fives: bool = True) -> str:
        """mpsz of the meld's tiles, e.g. ``"0555p"``."""
        return tiles_to_mpsz(self.tiles, red_fives)
