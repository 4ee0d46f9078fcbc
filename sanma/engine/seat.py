"""One seat's part of a hand, in one record: its tiles, its river and its riichi and
furiten flags, with the transitions every fold of a hand runs the same way; and ``Facts``,
the one ``legality.SeatFacts``, which reads a seat's record and the table it sits at.

Two folds keep these records: ``Kyoku`` one per seat (the whole truth), and each seat's
observer, ``view.SeatView``, one for its own seat (from its redacted events).  Both call
the same transitions and both are a ``Table``, so a new flag is added in one place and
each of the facts legality reads is written once, here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from sanma.engine.hand import Meld
from sanma.engine.rules import DEFAULT, Rules
from sanma.engine.tiles import Tile, TileKind


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


# -- the facts legality reads, written once -------------------------------------------------


class Table(Protocol):
    """What ``Facts`` reads besides a seat's record: the hand's public facts and the turn,
    under the same names in ``Kyoku`` and in ``SeatView``.  ``drawn``, ``after_pon`` and
    ``rinshan`` belong to the seat whose ``turn`` it is; ``ura_indicators`` are empty to an
    observer (they change a win's value, never legality)."""

    @property
    def rules(self) -> Rules | None: ...  # None: an observer before ``MatchStarted``
    @property
    def dealer(self) -> int: ...
    @property
    def round_wind(self) -> TileKind: ...
    @property
    def honba(self) -> int: ...
    @property
    def deposits(self) -> int: ...
    @property
    def scores(self) -> Sequence[int]: ...
    @property
    def live_left(self) -> int: ...
    @property
    def kan_owners(self) -> Sequence[int]: ...
    @property
    def first_go_around(self) -> bool: ...
    @property
    def turn(self) -> int | None: ...
    @property
    def drawn(self) -> Tile | None: ...
    @property
    def after_pon(self) -> TileKind | None: ...
    @property
    def rinshan(self) -> bool: ...
    @property
    def indicators(self) -> Sequence[Tile]: ...
    @property
    def ura_indicators(self) -> Sequence[Tile]: ...
    def seat_state(self, seat: int) -> SeatState: ...


class Facts:
    """One seat's ``legality.SeatFacts`` for one query: its ``SeatState`` and its ``Table``.
    The facts every query reads are taken when it is made; the rest are read on demand."""

    __slots__ = ("_me", "_t", "drawn", "hand", "kan_owners", "live_left", "melds", "riichi", "rules", "seat")

    rules: Rules
    hand: Sequence[Tile]
    melds: Sequence[Meld]
    drawn: Tile | None
    riichi: bool
    live_left: int
    kan_owners: Sequence[int]

    def __init__(self, table: Table, seat: int) -> None:
        self._t = table
        self._me = me = table.seat_state(seat)
        self.seat = seat
        rules = table.rules
        self.rules = DEFAULT if rules is None else rules
        self.hand = me.hand
        self.melds = me.melds
        self.drawn = table.drawn if table.turn == seat else None
        self.riichi = me.riichi
        self.live_left = table.live_left
        self.kan_owners = table.kan_owners

    @property
    def after_pon(self) -> TileKind | None:
        t = self._t
        return t.after_pon if t.turn == self.seat else None

    @property
    def kita_count(self) -> int:
        return len(self._me.kita)

    @property
    def river(self) -> Iterable[Tile]:
        return self._me.river

    @property
    def points(self) -> int:
        return self._t.scores[self.seat]

    @property
    def double_riichi(self) -> bool:
        return self._me.double_riichi

    @property
    def ippatsu(self) -> bool:
        return self._me.ippatsu

    @property
    def rinshan(self) -> bool:
        t = self._t
        return t.rinshan and t.turn == self.seat

    @property
    def has_discarded(self) -> bool:
        return self._me.discarded

    @property
    def riichi_furiten(self) -> bool:
        return self._me.riichi_furiten

    @property
    def temp_furiten(self) -> bool:
        return self._me.temp_furiten

    @property
    def dealer(self) -> int:
        return self._t.dealer

    @property
    def round_wind(self) -> TileKind:
        return self._t.round_wind

    @property
    def first_go_around(self) -> bool:
        return self._t.first_go_around

    @property
    def dora_indicators(self) -> Sequence[Tile]:
        return self._t.indicators

    @property
    def ura_indicators(self) -> Sequence[Tile]:
        return self._t.ura_indicators

    @property
    def honba(self) -> int:
        return self._t.honba

    @property
    def deposits(self) -> int:
        return self._t.deposits
