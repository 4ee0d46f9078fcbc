"""Actions: what a seat asks for (imperative).  Events (past tense) live in events.py.

Legality is decided in one place, ``Kyoku.legal_actions(seat)``; these values only
name a choice.  ``Kan(kind)`` means a closed kan or an added kan on one's own turn,
and an open kan (daiminkan) when answering a discard.
"""

from __future__ import annotations

from dataclasses import dataclass

from sanma.engine.tiles import Tile, TileKind, kind_name, tile_name


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard ``tile``; with ``riichi`` it is the riichi declaration tile."""

    tile: Tile
    riichi: bool = False

    def __str__(self) -> str:
        return f"{'riichi ' if self.riichi else 'discard '}{tile_name(self.tile)}"


@dataclass(frozen=True, slots=True)
class Pon:
    """Call pon on the last discard with two tiles of its kind from the hand;
    ``red`` says whether one of them is the red five (when there is a choice)."""

    kind: TileKind
    red: bool = False

    def __str__(self) -> str:
        return f"pon {kind_name(self.kind)}{' with red' if self.red else ''}"


@dataclass(frozen=True, slots=True)
class Kan:
    """Kan of ``kind``: closed or added on one's own turn, open on a discard."""

    kind: TileKind

    def __str__(self) -> str:
        return f"kan {kind_name(self.kind)}"


@dataclass(frozen=True, slots=True)
class Kita:
    """Set a North aside as nukidora and draw a replacement."""

    def __str__(self) -> str:
        return "kita"


@dataclass(frozen=True, slots=True)
class Tsumo:
    """Win on one's own draw."""

    def __str__(self) -> str:
        return "tsumo"


@dataclass(frozen=True, slots=True)
class Ron:
    """Win on another seat's discard, added-kan tile or extracted North."""

    def __str__(self) -> str:
        return "ron"


@dataclass(frozen=True, slots=True)
class Pass:
    """Decline every call and ron in a decision window."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class NineTerminals:
    """Declare the abortive draw of nine terminals on one's first draw."""

    def __str__(self) -> str:
        return "nine terminals"


Action = Discard | Pon | Kan | Kita | Tsumo | Ron | Pass | NineTerminals
