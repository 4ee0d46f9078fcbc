"""One seat's part of a hand, in one record: its tiles, its river and its riichi and
furiten flags, with the transitions every fold of a hand runs the same way.

``Kyoku`` keeps one ``SeatState`` per seat; ``formats.mjai_legal.SeatLegality`` keeps one
for the seat it plays (its tiles come from its ``SeatView``), and both call the same
transitions, so a new flag is added in one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sanma.engine.hand import Meld
from sanma.engine.tiles import Tile


@dataclass(slots=True)
class SeatState:
    """A seat's tiles and flags within one hand (mutable; ``copy`` for search)."""

    hand: list[Tile] = field(default_factory=list)  # concealed, the drawn tile included
    melds: list[Meld] = field(default_factory=list)
    kita: list[Tile] = field(default_factory=list)  # Norths set aside
    river: list[Tile] = field(default_factory=list)  # every discard, called ones included
    called_away: list[Tile] = field(default_factory=list)  # discards another seat called
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    riichi_paid: int = 0  # 1 once the riichi deposit is on the table
    riichi_furiten: bool = False
    temp_furiten: bool = False
    pao: tuple[int, str] | None = None  # (liable seat, yakuman) once a feed makes one liable
    discarded: bool = False  # has discarded in this hand

    def copy(self) -> SeatState:
        """An independent copy."""
        return SeatState(
            list(self.hand),
            list(self.melds),
            list(self.kita),
            list(self.river),
            list(self.called_away),
            self.riichi,
            self.double_riichi,
            self.ippatsu,
            self.riichi_paid,
            self.riichi_furiten,
            self.temp_furiten,
            self.pao,
            self.discarded,
        )

    def key(self) -> tuple[object, ...]:
        """Everything in the record, as a comparable value."""
        return (
            tuple(self.hand),
            tuple(self.melds),
            tuple(self.kita),
            tuple(self.river),
            tuple(self.called_away),
            self.riichi,
            self.double_riichi,
            self.ippatsu,
            self.riichi_paid,
            self.riichi_furiten,
            self.temp_furiten,
            self.pao,
            self.discarded,
        )

    # -- the transitions every fold runs ------------------------------------------------------

    def discard(self, *, declares_riichi: bool, double: bool) -> None:
        """The seat's own discard: it ends its own ippatsu (an accepted riichi's first
        discard after the declaration), a riichi discard declares riichi (``double`` on the
        first turn of an unbroken go-around), and temporary furiten ends."""
        if self.riichi:
            self.ippatsu = False
        if declares_riichi:
            self.riichi = True
            self.double_riichi = double
        self.discarded = True
        self.temp_furiten = False

    def riichi_accepted(self) -> None:
        """The riichi stood (no ron on its discard): the deposit is paid, ippatsu opens."""
        self.riichi_paid = 1
        self.ippatsu = True

    def passed_a_win(self) -> None:
        """A window on a tile the seat waits on closed without its ron: temporary furiten,
        and for the rest of the hand in riichi."""
        self.temp_furiten = True
        if self.riichi:
            self.riichi_furiten = True

    def declined_winning_draw(self) -> None:
        """A riichi seat let its winning draw go (discard or kita)."""
        self.riichi_furiten = True

    def interrupted(self) -> None:
        """A call, or a kan or kita that stood: ippatsu ends for every seat."""
        self.ippatsu = False
