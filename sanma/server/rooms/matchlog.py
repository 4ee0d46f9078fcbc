"""The match log port: what a table writes its match through, and what it reads of who sits
where, with their store implementations (the only store calls of a table; ``rooms/table.py``
never imports the store).

Every call here blocks on the database: a room makes it in a worker thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Engine

from sanma.server.rooms.clock import TurnTimers
from sanma.server.rooms.handbreak import DEFAULT_BREAK_S
from sanma.store import accounts
from sanma.store import matches as store
from sanma.store import ranks as rank_store
from sanma.store import rooms as room_store


class MatchLog(Protocol):
    """Where a table writes its match (one per match)."""

    def append(
        self,
        first_v: int,
        events: list[dict[str, Any]],
        *,
        ended: bool,
        hand_started: bool,
        abandoned: frozenset[int] = frozenset(),
    ) -> None:
        """Append ``events`` (stored form) as versions ``first_v``, ...; ``ended``: the match
        is over with them; ``hand_started``: a hand starts among them; ``abandoned``: the
        human seats whose players had left it when it ended."""


class StoreMatchLog:
    """The match's log in the store; a friend room's (``lobby``) also marks its lobby active
    as each hand starts and ended with the match."""

    def __init__(self, engine: Engine, match_id: str, *, lobby: bool) -> None:
        self._engine = engine
        self._match_id = match_id
        self._lobby = lobby

    def append(
        self,
        first_v: int,
        events: list[dict[str, Any]],
        *,
        ended: bool,
        hand_started: bool,
        abandoned: frozenset[int] = frozenset(),
    ) -> None:
        """See ``MatchLog.append``."""
        store.append_events(self._engine, self._match_id, first_v, events, ended=ended, abandoned=abandoned)
        if self._lobby and (ended or hand_started):
            room_store.touch_match_room(self._engine, self._match_id, ended=ended)


@dataclass(frozen=True, slots=True)
class Seated:
    """Who sits at ``seat`` of a friend room's match: a guest (with its display name as it is
    now; ``None``: none chosen) or a bot of ``bot_level``."""

    seat: int
    guest_id: str | None
    bot_level: str | None
    name: str | None = None


class SeatRecords(Protocol):
    """What the friend-room seating reads of a stored match."""

    def seated(self, match_id: str) -> list[Seated]:
        """Who sits where, by seat."""

    def timers(self, match_id: str) -> TurnTimers | None:
        """The turn timers of the match's lobby (``None``: no lobby)."""

    def barred(self, match_id: str) -> frozenset[str]:
        """The guests the host removed from the match's lobby (they may not watch either)."""

    def open_hands(self, match_id: str) -> bool:
        """Whether the match's lobby shows its spectators every tile, a hand behind."""

    def break_s(self, match_id: str) -> float:
        """The countdown of the break between hands the match's lobby chose (seconds)."""

    def ranks(self, match_id: str) -> dict[int, str]:
        """The rank code of each human seat of a quick match (``docs/ranks.md``)."""


class StoreSeatRecords:
    """``SeatRecords`` from the store (matches, accounts' names, the lobby's timers)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def seated(self, match_id: str) -> list[Seated]:
        """See ``SeatRecords.seated``."""
        players = store.players_of(self._engine, match_id)
        names = accounts.display_names(self._engine, [p.guest_id for p in players if p.guest_id is not None])
        return [
            Seated(p.seat, p.guest_id, p.bot_level, None if p.guest_id is None else names.get(p.guest_id))
            for p in players
        ]

    def timers(self, match_id: str) -> TurnTimers | None:
        """See ``SeatRecords.timers``."""
        lobby = room_store.room_of_match(self._engine, match_id)
        if lobby is None:
            return None
        # The host's choice (options' "turn_timer") over the server's timers it was opened with.
        return TurnTimers.from_json(lobby.timers).chosen(lobby.options.get("turn_timer"))

    def barred(self, match_id: str) -> frozenset[str]:
        """See ``SeatRecords.barred``."""
        lobby = room_store.room_of_match(self._engine, match_id)
        return frozenset() if lobby is None else lobby.barred

    def open_hands(self, match_id: str) -> bool:
        """See ``SeatRecords.open_hands`` (a room stored before the option: off)."""
        lobby = room_store.room_of_match(self._engine, match_id)
        return lobby is not None and bool(lobby.options.get("open_hands", False))

    def break_s(self, match_id: str) -> float:
        """See ``SeatRecords.break_s`` (a room stored before the option: the default)."""
        lobby = room_store.room_of_match(self._engine, match_id)
        return DEFAULT_BREAK_S if lobby is None else float(lobby.options.get("break_s", DEFAULT_BREAK_S))

    def ranks(self, match_id: str) -> dict[int, str]:
        """See ``SeatRecords.ranks``."""
        return rank_store.seat_ranks(self._engine, match_id)
