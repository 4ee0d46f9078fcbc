"""A seating policy per kind of table: who sits where (humans, bots, the stand-ins of
autoplay), the timers, and what the kind allows.  ``rooms/practice.py`` (one player against
bots) and ``rooms/friend.py`` (a friend room's match, ``docs/rooms.md``) are the two; the
table (``rooms/table.py``) asks its policy instead of testing its kind.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from sanma.bots.base import Player
from sanma.server import protocol
from sanma.server.rooms.clock import TurnTimers
from sanma.server.rooms.matchlog import SeatRecords
from sanma.store.matches import MatchRecord

BotFactory = Callable[[str, int, int], Player]
"""``(level, seat, seed) -> Player``; ``BotPool.make_bot`` by default (``server/botpool.py``)."""

# The bot level that plays a human seat on autoplay.
STANDIN_LEVEL = "normal"


def bot_seed(seed: int, seat: int) -> int:
    """A bot's own seed, derived from the match seed (so a rebuilt room gets the same bots)."""
    digest = hashlib.sha256(f"sanma-bot:{seed}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """Who sits where at one table: each human seat's guest, each other seat's bot, the bot
    that plays a human seat on autoplay, the turn timers (``None``: none), the players
    the welcome names (``None``: the welcome names none), whether spectators see every
    tile, a hand behind (a friend room's "open hands for watchers"), the countdown of the
    break between hands (``None``: none, the table waits for its players), and how long a
    player must have been gone at the match's end to have abandoned it (``None``: a table
    that does not count it; a quick match's ladder places such a seat last)."""

    humans: dict[int, str]
    bots: dict[int, Player]
    timers: TurnTimers | None = None
    standins: dict[int, Player] = field(default_factory=dict)
    players: tuple[protocol.Player, ...] | None = None
    open_hands: bool = False
    break_s: float | None = None
    abandon_s: float | None = None

    def __post_init__(self) -> None:
        if not self.humans:
            raise ValueError("a table has at least one human seat")
        if set(self.humans) & set(self.bots) or set(self.humans) | set(self.bots) != {0, 1, 2}:
            raise ValueError("each of the three seats is a human's or a bot's")
        if not set(self.standins) <= set(self.humans):
            raise ValueError("a stand-in plays a human seat")


class Seating(Protocol):
    """What one kind of table is."""

    @property
    def kind(self) -> str:
        """The match kind it seats (``MatchRecord.kind``)."""

    @property
    def pauses_when_away(self) -> bool:
        """A seat with no connection is waited for: its clock stands still."""

    @property
    def shows_presence(self) -> bool:
        """The seats' presence (connected, away, autoplay) is sent to everyone."""

    @property
    def watchable(self) -> bool:
        """Guests with no seat may watch (live; a hand behind with open hands)."""

    @property
    def player_paces_bots(self) -> bool:
        """The player's ``speed`` frame paces the bots."""

    @property
    def has_lobby(self) -> bool:
        """The match belongs to a lobby, marked active as hands start (``StoreMatchLog``)."""

    @property
    def allows_stamps(self) -> bool:
        """Seated humans may send stamps (``docs/rooms.md``, "Stamps"): where there is
        somebody to react to."""

    @property
    def leaves_memory_when_idle(self) -> bool:
        """With nobody connected and only humans awaited, the room may leave memory (the
        registry's janitor); the next hello rebuilds it from the store."""

    def plan(self, record: MatchRecord, make_bot: BotFactory, seats: SeatRecords) -> SeatPlan:
        """Who sits where in ``record``'s match (may read ``seats``: call it in a thread)."""

    def seat_of_guest(self, record: MatchRecord, guest_id: str, seats: SeatRecords) -> int | None:
        """The seat of ``guest_id`` in ``record``'s match (``None``: none; may read ``seats``)."""
