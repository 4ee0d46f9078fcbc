"""``redact(event, viewer)``: the one function that hides information.

Every event leaves the room owner through ``redact`` (design principle 6).  A seat sees
its own concealed tiles and everything public; a spectator (``viewer=None``) sees no
concealed tile at all.  What is hidden:

* ``HandStarted.hands``: every hand but the viewer's becomes ``HIDDEN`` tiles (the count
  stays, since the number of tiles a player holds is public);
* ``TileDrawn.tile``: ``HIDDEN`` unless the viewer drew it;
* ``MatchStarted.seed``: ``HIDDEN_SEED`` for everyone, since the seed determines every
  wall of the match; ``MatchStarted.salt``: ``""`` for everyone, since with it the fair-wall
  commitment would open (``fairness.py``).  (The server may publish the full log once the
  match has ended.)

Everything else is public and passes unchanged: discards, melds, kita, dora indicators,
riichi, and the hands a hand's end shows (a winner's hand, tenpai hands at an exhaustive
draw, the nine-terminals hand).  On the wire a hidden tile is ``"?"``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Final

from sanma.engine.events import Event, HandStarted, MatchStarted, TileDrawn
from sanma.engine.tiles import Tile

HIDDEN: Final[Tile] = -1
"""A tile the viewer may not see (``"?"`` on the wire).  Never a real tile id."""

HIDDEN_SEED: Final = -1
"""The seed as players see it during a match (match seeds are never negative)."""


def is_hidden(tile: Tile) -> bool:
    """Whether ``tile`` stands for a tile the viewer may not see."""
    return tile == HIDDEN


def redact(event: Event, viewer: int | None) -> Event:
    """``event`` as seat ``viewer`` may see it (``None``: a spectator, who sees no concealed
    tile).  Events with nothing hidden are returned as they are.

    >>> redact(TileDrawn(seat=1, tile=42), viewer=0)
    TileDrawn(seat=1, tile=-1, replacement=False)
    >>> redact(TileDrawn(seat=1, tile=42), viewer=1)
    TileDrawn(seat=1, tile=42, replacement=False)
    """
    if isinstance(event, TileDrawn):
        return event if event.seat == viewer else replace(event, tile=HIDDEN)
    if isinstance(event, HandStarted):
        h = event.hands
        hands = (_hide(h[0], viewer == 0), _hide(h[1], viewer == 1), _hide(h[2], viewer == 2))
        return replace(event, hands=hands)
    if isinstance(event, MatchStarted):
        return replace(event, seed=HIDDEN_SEED, salt="")
    return event


def redact_all(events: Iterable[Event], viewer: int | None) -> list[Event]:
    """Every event of a log as ``viewer`` may see it, in order."""
    return [redact(e, viewer) for e in events]


def _hide(tiles: tuple[Tile, ...], visible: bool) -> tuple[Tile, ...]:
    return tiles if visible else (HIDDEN,) * len(tiles)
