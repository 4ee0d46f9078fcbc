"""``Meld``: a called or declared set as a frozen value (re-exported by ``hand``, which is
where to import it from; a module of its own so that ``sanma score``, which never builds one,
does not create the dataclass at start-up)."""

from __future__ import annotations

from dataclasses import dataclass

from sanma.engine.errors import InvalidHand
from sanma.engine.hand import MeldType
from sanma.engine.tiles import Tile, TileKind, is_red, kind_of, tiles_to_mpsz


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

    def red_count(self, red_fives: bool = True) -> int:
        """How many red fives the meld holds."""
        return sum(is_red(t, red_fives) for t in self.tiles)

    def notation(self, red_fives: bool = True) -> str:
        """mpsz of the meld's tiles, e.g. ``"0555p"``."""
        return tiles_to_mpsz(self.tiles, red_fives)
