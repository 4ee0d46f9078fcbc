"""The friend-room seating (``docs/rooms.md``): up to three guests and bots at the seats the
lobby gave them, the lobby's turn timers, autoplay (a stand-in bot per human seat) for seats
that time out or lose their connection, presence for everyone, spectators (live, or with
open hands a hand behind);
the bots keep the room's pace and the room plays on while its players are away."""

from __future__ import annotations

from dataclasses import dataclass

from sanma.bots.base import Player
from sanma.server import protocol
from sanma.server.rooms.matchlog import SeatRecords
from sanma.server.rooms.seating import STANDIN_LEVEL, BotFactory, SeatPlan, bot_seed
from sanma.store.matches import MatchRecord


@dataclass(frozen=True, slots=True)
class FriendSeating:
    """See the module docstring (``Seating``)."""

    kind: str = "room"
    pauses_when_away: bool = False
    shows_presence: bool = True
    watchable: bool = True
    player_paces_bots: bool = False
    has_lobby: bool = True
    allows_stamps: bool = True
    leaves_memory_when_idle: bool = False

    def plan(self, record: MatchRecord, make_bot: BotFactory, seats: SeatRecords) -> SeatPlan:
        """The stored seats of the match (names as they are now), the lobby's timers, whether
        its spectators see open hands, and its countdown between hands."""
        if record.kind != self.kind:
            raise ValueError(f"not a friend room's match: {record.kind!r}")
        seated = seats.seated(record.id)
        humans: dict[int, str] = {}
        bots: dict[int, Player] = {}
        for p in seated:
            if p.guest_id is not None:
                humans[p.seat] = p.guest_id
            elif p.bot_level is not None:
                bots[p.seat] = make_bot(p.bot_level, p.seat, bot_seed(record.seed, p.seat))
            else:
                raise ValueError(f"seat {p.seat} has neither a guest nor a bot")
        # Autoplay's bots: seeded apart from the seats' own (seat + 3), the same after a rebuild.
        standins = {s: make_bot(STANDIN_LEVEL, s, bot_seed(record.seed, s + 3)) for s in humans}
        players = tuple(protocol.Player(p.seat, p.name, p.bot_level) for p in seated)
        timers, open_hands = seats.timers(record.id), seats.open_hands(record.id)
        return SeatPlan(humans, bots, timers, standins, players, open_hands, seats.break_s(record.id))

    def seat_of_guest(self, record: MatchRecord, guest_id: str, seats: SeatRecords) -> int | None:
        """The guest's stored seat."""
        return next((p.seat for p in seats.seated(record.id) if p.guest_id == guest_id), None)
