"""match_reviews: the master's review of one seat of an ended match, computed once by a
worker and kept (its state while queued or running, the lease of the process running it)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "match_reviews",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=False),
        sa.Column("state", sa.String(8), nullable=False),
        sa.Column("done", sa.Integer, nullable=False, server_default="0"),
        sa.Column("total", sa.Integer, nullable=False, server_default="0"),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("node", sa.String(80), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_match_reviews_guest_id", "match_reviews", ["guest_id"])
    op.create_index("ix_match_reviews_state", "match_reviews", ["state"])


def downgrade() -> None:
    op.drop_index("ix_match_reviews_state", table_name="match_reviews")
    op.drop_index("ix_match_reviews_guest_id", table_name="match_reviews")
    op.drop_table("match_reviews")
