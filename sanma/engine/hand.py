"""Melds: the sets a player has called or declared, as small immutable values.

``MeldType`` is here; ``Meld`` is in ``meld``, imported on first use (``sanma score`` reads
melds as plain kinds and never builds one, see ``lazy``): import both from here.
"""

from __future__ import annotations

from enum import StrEnum

from sanma.engine.lazy import on_demand

TYPE_CHECKING = False  # typing.TYPE_CHECKING: the score path does not import typing (~3 ms of start-up)
if TYPE_CHECKING:
    from sanma.engine.meld import Meld as Meld

__getattr__ = on_demand(globals(), {"Meld": "sanma.engine.meld"})


class MeldType(StrEnum):
    """The four kinds of meld in sanma (there is no chi)."""

    PON = "pon"
    DAIMINKAN = "daiminkan"  # open kan called on a discard
    KAKAN = "kakan"  # added kan: a fourth tile added to one's own pon
    ANKAN = "ankan"  # closed kan
