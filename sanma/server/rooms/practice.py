"""The practice room: one human against two bots, no turn timers, and a seat with no
connection is simply waited for.  It is the simplest case of ``TableRoom`` (rooms/table.py),
which holds the whole flow; the names here stay for the code that imports them."""

from __future__ import annotations

from sanma.server.rooms.table import BotFactory, Outbox, Prompt, TableRoom, bot_seed

__all__ = ["BotFactory", "Outbox", "PracticeRoom", "Prompt", "bot_seed"]

PracticeRoom = TableRoom
"""A practice match's room: ``TableRoom`` with its defaults (the owner's seat, no timers)."""
