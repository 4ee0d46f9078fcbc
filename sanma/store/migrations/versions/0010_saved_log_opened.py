"""saved_logs.opened (the viewer's answer, zlib-compressed, stored once when the log is kept)
and saved_logs.size (the bytes a kept log costs its guest's quota: text plus answer)

Rows kept before this revision have no answer (``opened`` is null: the server fills it the
first time the log is read) and their size is the byte length of their text.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("saved_logs") as batch:
        batch.add_column(sa.Column("opened", sa.LargeBinary, nullable=True))
        batch.add_column(sa.Column("size", sa.Integer, nullable=False, server_default="0"))
    # Bytes, not characters: the quota counts what the database stores (UTF-8 text).
    text_bytes = "octet_length(log)" if op.get_bind().dialect.name == "postgresql" else "length(CAST(log AS BLOB))"
    op.execute(f"UPDATE saved_logs SET size = {text_bytes}")


def downgrade() -> None:
    with op.batch_alter_table("saved_logs") as batch:
        batch.drop_column("size")
        batch.drop_column("opened")
