"""ranks: the quick match's ladder standing and hidden rating per player and length, and what
each finished quick match changed (store/ranks.py, docs/ranks.md)

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ranks",
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("length", sa.String(16), primary_key=True),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    # The leaderboard's order, read per length.
    op.create_index("ix_ranks_board", "ranks", ["length", "rank", "points", "games"])
    op.create_table(
        "rank_changes",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("length", sa.String(16), nullable=False),
        sa.Column("placement", sa.Integer, nullable=False),
        sa.Column("abandoned", sa.Boolean, nullable=False),
        sa.Column("rank_before", sa.Integer, nullable=False),
        sa.Column("points_before", sa.Integer, nullable=False),
        sa.Column("rank_after", sa.Integer, nullable=False),
        sa.Column("points_after", sa.Integer, nullable=False),
        sa.Column("delta", sa.Integer, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("mu_after", sa.Float, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_rank_changes_guest_id", "rank_changes", ["guest_id"])


def downgrade() -> None:
    op.drop_index("ix_rank_changes_guest_id", "rank_changes")
    op.drop_table("rank_changes")
    op.drop_index("ix_ranks_board", "ranks")
    op.drop_table("ranks")
