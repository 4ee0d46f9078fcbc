"""friend rooms (issue 5)

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("code", sa.String(8), primary_key=True),
        sa.Column("host_guest", sa.String(32), sa.ForeignKey("guests.id"), nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("timers", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), nullable=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_rooms_updated_at", "rooms", ["updated_at"])
    op.create_index("ix_rooms_match_id", "rooms", ["match_id"])


def downgrade() -> None:
    op.drop_index("ix_rooms_match_id", table_name="rooms")
    op.drop_index("ix_rooms_updated_at", table_name="rooms")
    op.drop_table("rooms")
