"""``Reading``: the reading a score was taken from (the form, the pair, the sets, the wait),
as a frozen value that a ``Score`` keeps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sanma.engine.decompose import Form
from sanma.engine.hand import MeldKinds
from sanma.engine.tiles import EAST, TileKind

Wait = Literal["ryanmen", "kanchan", "penchan", "shanpon", "tanki", "thirteen_sided"]


@dataclass(frozen=True, slots=True)
class Reading:
    """The reading a score was taken from: the form, the pair, the sets and the wait.

    ``sequences`` are first kinds (for chiitoitsu: the seven pair kinds, and ``pair`` is -1);
    ``triplets`` the concealed triplet kinds (melds are not repeated here); ``win_set`` is
    ``"pair"``, ``"sequence"`` or ``"triplet"``; ``melds`` as scoring reads them.
    """

    form: Form
    pair: TileKind
    sequences: tuple[TileKind, ...]
    triplets: tuple[TileKind, ...]
    wait: Wait
    win_set: str
    win_kind: TileKind = -1
    tsumo: bool = False
    seat: TileKind = EAST
    round: TileKind = EAST
    melds: tuple[MeldKinds, ...] = ()
