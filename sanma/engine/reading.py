"""``Reading``: the reading a score was taken from, as a frozen value (re-exported by ``yaku``,
which is where to import it from; a module of its own so that ``sanma score``, which never
builds one, does not create the dataclass at start-up)."""

from __future__ import annotations

from dataclasses import dataclass

from sanma.engine.tiles import EAST, TileKind

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Literal

    from sanma.engine.hand import Meld
    from sanma.engine.yaku import Wait


@dataclass(frozen=True, slots=True)
class Reading:
    """The reading a score was taken from: the form, the pair, the sets and the wait.

    ``sequences`` are first kinds (for chiitoitsu: the seven pair kinds, and ``pair`` is -1);
    ``triplets`` the concealed triplet kinds (melds are not repeated here); ``win_set`` is
    ``"pair"``, ``"sequence"`` or ``"triplet"``.
    """

    form: Literal["standard", "chiitoitsu", "kokushi"]
    pair: TileKind
    sequences: tuple[TileKind, ...]
    triplets: tuple[TileKind, ...]
    wait: Wait
    win_set: str
    win_kind: TileKind = -1
    tsumo: bool = False
    seat: TileKind = EAST
    round: TileKind = EAST
    melds: tuple[Meld, ...] = ()
