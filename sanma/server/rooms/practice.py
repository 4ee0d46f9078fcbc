"""The practice seating: one player against two bots of the level they chose, at the seat
they chose.  The bots are paced by the player (``speed``), nobody else sees the table, and
the turn timer (when chosen) runs only while the player is connected: practice waits for its
one player, and a practice match nobody is connected to may leave memory."""

from __future__ import annotations

from dataclasses import dataclass

from sanma.server.rooms.clock import TurnTimers
from sanma.server.rooms.matchlog import SeatRecords
from sanma.server.rooms.seating import BotFactory, SeatPlan, bot_seed
from sanma.store.matches import MatchRecord

__all__ = ["PracticeSeating", "bot_seed"]


@dataclass(frozen=True, slots=True)
class PracticeSeating:
    """See the module docstring (``Seating``)."""

    kind: str = "practice"
    pauses_when_away: bool = True
    shows_presence: bool = False
    watchable: bool = False
    player_paces_bots: bool = True
    has_lobby: bool = False
    allows_stamps: bool = False  # one human: nobody to react to
    leaves_memory_when_idle: bool = True

    def plan(self, record: MatchRecord, make_bot: BotFactory, seats: SeatRecords | None = None) -> SeatPlan:
        """The owner at ``record.human_seat``, bots of ``record.bot_level`` elsewhere, the
        chosen timers; everything is in the record (``seats`` is not read)."""
        if record.kind != self.kind:
            raise ValueError(f"not a practice match: {record.kind!r}")
        human = record.human_seat
        bots = {s: make_bot(record.bot_level, s, bot_seed(record.seed, s)) for s in range(3) if s != human}
        timers = None if record.timers is None else TurnTimers.from_json(record.timers)
        return SeatPlan({human: record.guest_id}, bots, timers)

    def seat_of_guest(self, record: MatchRecord, guest_id: str, seats: SeatRecords | None = None) -> int | None:
        """The owner's seat, for the owner only."""
        return record.human_seat if record.guest_id == guest_id else None
