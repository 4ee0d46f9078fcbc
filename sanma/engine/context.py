"""How and when a hand won: the ``WinContext`` scoring reads, and ``WinFacts``, the read-only
protocol of its fields that the scorer takes (a module of its own, so ``scoring`` and ``yaku``
both import it without importing each other).  ``WinContext`` itself is in ``win_context``,
imported on first use (``sanma score`` never builds one, see ``lazy``)."""

from __future__ import annotations

from sanma.engine.lazy import on_demand
from sanma.engine.tiles import TileKind

__getattr__ = on_demand(globals(), {"WinContext": "sanma.engine.win_context"})

TYPE_CHECKING = False  # typing.TYPE_CHECKING: the score path does not import typing (~3 ms of start-up)
if TYPE_CHECKING:  # a protocol is for the type checker only
    from typing import Protocol

    from sanma.engine.win_context import WinContext as WinContext

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
