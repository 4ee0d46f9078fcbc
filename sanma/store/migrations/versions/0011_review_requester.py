"""match_reviews.address: the client address key (``netaddr.client_key``, ``ip:...``) of who
asked for a review, so that an address holds only a few places of the queue and the workers
serve the addresses in turn (rows asked before: null, one group of their own)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("match_reviews") as batch:
        batch.add_column(sa.Column("address", sa.String(80), nullable=True))
    op.create_index("ix_match_reviews_address", "match_reviews", ["address"])


def downgrade() -> None:
    op.drop_index("ix_match_reviews_address", table_name="match_reviews")
    with op.batch_alter_table("match_reviews") as batch:
        batch.drop_column("address")
