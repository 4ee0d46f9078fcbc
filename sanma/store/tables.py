"""The tables, as SQLAlchemy Core ``Table`` objects on one ``MetaData``.

Migrations (``migrations/versions``) create them; this module is what the code queries.
Portable types only: strings, integers, timestamps and JSON kept as text.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, DateTime, ForeignKey, Integer, MetaData, String, Table, Text

metadata = MetaData()

guests = Table(
    "guests",
    metadata,
    Column("id", String(32), primary_key=True),
    # SHA-256 of the token, hex: the token itself is never stored.
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

matches = Table(
    "matches",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("guest_id", String(32), ForeignKey("guests.id"), nullable=False, index=True),
    Column("kind", String(16), nullable=False),  # "practice" for now
    Column("rules", Text, nullable=False),  # JSON: the engine's Rules
    # Text, not an integer column: seeds are >= 63 random bits and must not overflow BIGINT.
    Column("seed", String(48), nullable=False),
    Column("bot_level", String(16), nullable=False),
    Column("human_seat", Integer, nullable=False),
    Column("status", String(16), nullable=False),  # "playing" | "ended"
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    # JSON, set when the match ends: {"points": [...], "placements": [...], "final_scores": [...]} by seat.
    Column("result", Text, nullable=True),
)

# Who sat where: a guest (``guest_id``) or a bot (``bot_level``), one row per seat.
match_players = Table(
    "match_players",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("guest_id", String(32), ForeignKey("guests.id"), nullable=True, index=True),
    Column("bot_level", String(16), nullable=True),
)

match_events = Table(
    "match_events",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    Column("v", BigInteger, primary_key=True, autoincrement=False),  # 1, 2, ... per match
    Column("event", Text, nullable=False),  # JSON: the full (unredacted) event
)
