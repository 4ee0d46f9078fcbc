"""email_codes.requester: who asked for a code (``guest:<id>`` or ``ip:<address>``), so that
only its asker can spend it, try it or replace it (a stranger cannot lock an owner out)

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("email_codes") as batch:
        batch.add_column(sa.Column("requester", sa.String(80), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("email_codes") as batch:
        batch.drop_column("requester")
