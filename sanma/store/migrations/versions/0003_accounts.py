"""accounts: profiles, e-mail links and codes, coins, cosmetics (issue 6)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
        sa.Column("display_name", sa.String(96), nullable=True),
        sa.Column("email_hash", sa.String(64), nullable=True, unique=True),
        sa.Column("email_hint", sa.String(64), nullable=True),
        sa.Column("coins", sa.Integer, nullable=False, server_default="0"),
        sa.Column("tile_back", sa.String(32), nullable=True),
        sa.Column("cloth", sa.String(32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("coins >= 0", name="ck_accounts_coins_nonnegative"),
    )
    op.create_table(
        "coin_ledger",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=False),
        sa.Column("delta", sa.Integer, nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("item", sa.String(32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_coin_ledger_guest_id", "coin_ledger", ["guest_id"])
    op.create_table(
        "checkins",
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
        sa.Column("day", sa.Date, primary_key=True),
        sa.Column("streak", sa.Integer, nullable=False),
        sa.Column("coins", sa.Integer, nullable=False),
    )
    op.create_table(
        "owned_items",
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
        sa.Column("item", sa.String(32), primary_key=True),
        sa.Column("bought_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "email_codes",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("purpose", sa.String(8), nullable=False),
        sa.Column("email_hash", sa.String(64), nullable=False),
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=True),
        sa.Column("code_hash", sa.String(64), nullable=False),
        sa.Column("salt", sa.String(32), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("used", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_email_codes_email_hash", "email_codes", ["email_hash"])


def downgrade() -> None:
    op.drop_index("ix_email_codes_email_hash", table_name="email_codes")
    op.drop_table("email_codes")
    op.drop_table("owned_items")
    op.drop_table("checkins")
    op.drop_index("ix_coin_ledger_guest_id", table_name="coin_ledger")
    op.drop_table("coin_ledger")
    op.drop_table("accounts")
