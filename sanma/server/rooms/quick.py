"""The quick-match seating (``docs/quick.md``): strangers the matchmaker put together
(``server/quick.py``), bots of a level matched to their ranks in the seats nobody took, the
server's turn timers, autoplay for seats that time out or lose their connection, presence,
each human's rank in the welcome; no spectators (a ranked table is not watched).  The table
counts a seat whose player was gone for ``abandon_s`` at the match's end as abandoned: the
ladder places it last (``store/ranks.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sanma.bots.base import Player
from sanma.server import protocol
from sanma.server.rooms.clock import TurnTimers
from sanma.server.rooms.handbreak import DEFAULT_BREAK_S
from sanma.server.rooms.matchlog import SeatRecords
from sanma.server.rooms.seating import STANDIN_LEVEL, BotFactory, SeatPlan, bot_seed
from sanma.store.matches import MatchRecord

# How long a player must have been gone at the end of a quick match to count as having left it.
ABANDON_S = 60.0


def quick_timers(timers: TurnTimers, abandon_s: float) -> dict[str, Any]:
    """A quick match's stored clock: the server's turn timers and its ``abandon_s``."""
    return {**timers.to_json(), "abandon_s": abandon_s}


@dataclass(frozen=True, slots=True)
class QuickSeating:
    """See the module docstring (``Seating``)."""

    kind: str = "quick"
    pauses_when_away: bool = False
    shows_presence: bool = True
    watchable: bool = False
    player_paces_bots: bool = False
    has_lobby: bool = False
    leaves_memory_when_idle: bool = False
    allows_stamps: bool = True

    def plan(self, record: MatchRecord, make_bot: BotFactory, seats: SeatRecords) -> SeatPlan:
        """The stored seats (names and ranks as they are now), the stored timers, the
        default countdown between hands."""
        if record.kind != self.kind:
            raise ValueError(f"not a quick match: {record.kind!r}")
        seated = seats.seated(record.id)
        humans = {p.seat: p.guest_id for p in seated if p.guest_id is not None}
        bots: dict[int, Player] = {
            p.seat: make_bot(p.bot_level, p.seat, bot_seed(record.seed, p.seat))
            for p in seated
            if p.guest_id is None and p.bot_level is not None
        }
        standins = {s: make_bot(STANDIN_LEVEL, s, bot_seed(record.seed, s + 3)) for s in humans}
        ranks = seats.ranks(record.id)
        players = tuple(protocol.Player(p.seat, p.name, p.bot_level, ranks.get(p.seat)) for p in seated)
        stored = record.timers or {}
        timers = TurnTimers.from_json(stored) if stored else None
        abandon_s = float(stored.get("abandon_s", ABANDON_S))
        return SeatPlan(humans, bots, timers, standins, players, break_s=DEFAULT_BREAK_S, abandon_s=abandon_s)

    def seat_of_guest(self, record: MatchRecord, guest_id: str, seats: SeatRecords) -> int | None:
        """The guest's stored seat."""
        return next((p.seat for p in seats.seated(record.id) if p.guest_id == guest_id), None)
