"""matches.timers: the turn timers a practice match was started with (none by default)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("timers", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("timers")
