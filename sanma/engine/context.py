"""How and when a hand won: ``WinContext``, the table state that scoring reads."""

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
