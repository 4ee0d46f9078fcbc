"""guests, matches and match_events

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "guests",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("seed", sa.String(48), nullable=False),
        sa.Column("bot_level", sa.String(16), nullable=False),
        sa.Column("human_seat", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_matches_guest_id", "matches", ["guest_id"])
    op.create_table(
        "match_events",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("v", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("event", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("match_events")
    op.drop_index("ix_matches_guest_id", table_name="matches")
    op.drop_table("matches")
    op.drop_table("guests")
