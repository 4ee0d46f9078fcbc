"""Rooms: the live matches of this server process, each run by its own asyncio task.

``RoomRegistry`` creates practice rooms and finds them again; a room not in memory (after
a restart, or after it failed) is rebuilt from the store on first use.
"""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import Engine

from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.server.codec import event_to_store, rules_to_json
from sanma.server.rooms.practice import BotFactory, PracticeRoom, bot_seed
from sanma.store import matches as store

__all__ = ["PracticeRoom", "RoomRegistry"]


class RoomRegistry:
    """The rooms of this process, by match id."""

    def __init__(self, engine: Engine, make_bot: BotFactory, *, bot_delay_s: float, bot_budget_s: float) -> None:
        self._engine = engine
        self._make_bot = make_bot
        self._timing: dict[str, float] = {"bot_delay_s": bot_delay_s, "bot_budget_s": bot_budget_s}
        self._rooms: dict[str, PracticeRoom] = {}
        self._lock = asyncio.Lock()

    @property
    def engine(self) -> Engine:
        """The store's database engine."""
        return self._engine

    async def create_practice(
        self, *, guest_id: str, rules: Rules, level: str, human_seat: int, seed: int
    ) -> PracticeRoom:
        """Store a new practice match with its first events, and start its room."""
        bots = {s: self._make_bot(level, s, bot_seed(seed, s)) for s in range(3) if s != human_seat}
        match = Match(seed, rules)
        record = await asyncio.to_thread(
            store.create_match,
            self._engine,
            guest_id=guest_id,
            rules=rules_to_json(rules),
            seed=seed,
            bot_level=level,
            human_seat=human_seat,
        )
        first = [event_to_store(e) for e in match.events]
        await asyncio.to_thread(store.append_events, self._engine, record.id, 1, first, ended=False)
        room = PracticeRoom(record, match, self._engine, bots, **self._timing)
        self._rooms[record.id] = room
        room.start()
        return room

    async def get(self, match_id: str) -> PracticeRoom | None:
        """The room of ``match_id``, rebuilt from the store when not live (``None``: no such match)."""
        async with self._lock:
            room = self._rooms.get(match_id)
            if room is not None and room.failed is None:
                return room
            record = await asyncio.to_thread(store.get_match, self._engine, match_id)
            if record is None:
                return None
            stored: list[dict[str, Any]] = await asyncio.to_thread(store.load_events, self._engine, match_id)
            room = await asyncio.to_thread(
                PracticeRoom.rebuild, record, stored, self._engine, self._make_bot, **self._timing
            )
            self._rooms[match_id] = room
            room.start()
            return room

    async def close(self) -> None:
        """Stop every room task (server shutdown)."""
        rooms, self._rooms = list(self._rooms.values()), {}
        for room in rooms:
            await room.stop()
