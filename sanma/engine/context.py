"""How and when a hand won: the ``WinContext`` scoring reads (a module of its own, so
``scoring`` and ``yaku`` both import it without importing each other)."""

from __future__ import annotations

from dataclasses import dataclass

from sanma.engine.tiles import EAST, TileKind


@dataclass(frozen=True, slots=True)
class WinContext:
    """How and when a hand won, and the table state that scoring needs."""

    tsumo: bool = False
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    rinshan: bool = False
    chankan: bool = False
    haitei: bool = False
    houtei: bool = False
    tenhou: bool = False
    chiihou: bool = False
    seat_wind: TileKind = EAST
    round_wind: TileKind = EAST  # EAST or SOUTH; WEST only to replay other sites' West rounds
    dora_indicators: tuple[TileKind, ...] = ()
    ura_indicators: tuple[TileKind, ...] = ()
    kita: int = 0
    honba: int = 0
    deposits: int = 0


TYPE_CHECKING = False  # typing.TYPE_CHECKING: the score path does not import typing (~3 ms of start-up)
if TYPE_CHECKING:  # a protocol is for the type checker only
    from typing import Protocol

    class WinFacts(Protocol):
        """What the scorer (``scoring.score_counts``) reads of how a hand won: ``WinContext``'s fields,
        read only.  A ``WinContext`` is one; ``sanma score`` passes a plain object with the same
        attributes (a frozen dataclass of 17 fields costs more to build than the rest of its line's
        reading)."""

        @property
        def tsumo(self) -> bool: ...
        @property
        def riichi(self) -> bool: ...
        @property
        def double_riichi(self) -> bool: ...
        @property
        def ippatsu(self) -> bool: ...
        @property
        def rinshan(self) -> bool: ...
        @property
        def chankan(self) -> bool: ...
        @property
        def haitei(self) -> bool: ...
        @property
        def houtei(self) -> bool: ...
        @property
        def tenhou(self) -> bool: ...
        @property
        def chiihou(self) -> bool: ...
        @property
        def seat_wind(self) -> TileKind: ...
        @property
        def round_wind(self) -> TileKind: ...
        @property
        def dora_indicators(self) -> tuple[TileKind, ...]: ...
        @property
        def ura_indicators(self) -> tuple[TileKind, ...]: ...
        @property
        def kita(self) -> int: ...
        @property
        def honba(self) -> int: ...
        @property
        def deposits(self) -> int: ...
