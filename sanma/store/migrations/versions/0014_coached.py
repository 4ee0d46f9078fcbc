"""coached: a practice match in which the player turned the coach on at least once
(``matches.coached``), copied into its seats' ``match_stats`` rows so the statistics keep
coached matches apart without another table; false for every match before it

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN (SQLite has it for a constant default): a batch would copy ``matches``,
    # which other tables' foreign keys point at.
    op.add_column("matches", sa.Column("coached", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("match_stats", sa.Column("coached", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("match_stats", "coached")
    op.drop_column("matches", "coached")
