"""match_shares (a replay link a player chose to share) and saved_logs (an opened tenhou.net/6
log a player kept in their history)

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "match_shares",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("match_id", "guest_id", name="uq_match_shares_match_guest"),
    )
    op.create_table(
        "saved_logs",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("preset", sa.String(16), nullable=False),
        sa.Column("log", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_saved_logs_guest_id", "saved_logs", ["guest_id"])


def downgrade() -> None:
    op.drop_index("ix_saved_logs_guest_id", table_name="saved_logs")
    op.drop_table("saved_logs")
    op.drop_table("match_shares")
