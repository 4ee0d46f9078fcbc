"""guest_bars: the guests an operator barred (``sanma admin bar``), with the reason and when;
a barred guest's token is refused by the HTTP API and the WebSocket until ``unbar`` deletes the row

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "guest_bars",
        sa.Column("guest_id", sa.String(32), primary_key=True),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
        sa.Column("barred_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("guest_bars")
