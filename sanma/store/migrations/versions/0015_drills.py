"""drills: a player's daily "what would you discard?" problems, made from the priced discard
mistakes of its reviewed matches (store/drills.py), one row per problem of a day's set with
its answer once given

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "drills",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id", ondelete="CASCADE"), nullable=False),
        sa.Column("day", sa.Date, nullable=False),
        sa.Column("slot", sa.Integer, nullable=False),
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("event_index", sa.Integer, nullable=False),
        sa.Column("choice", sa.String(32), nullable=False),
        sa.Column("master", sa.String(32), nullable=False),
        sa.Column("loss", sa.Float, nullable=False),
        sa.Column("answer", sa.String(4), nullable=True),
        sa.Column("right", sa.Boolean, nullable=True),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("guest_id", "day", "slot"),
        sa.UniqueConstraint("guest_id", "day", "match_id", "seat", "event_index"),
    )


def downgrade() -> None:
    op.drop_table("drills")
