"""match_players (who sat where, for history and rooms) and matches.result

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "match_players",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=True),
        sa.Column("bot_level", sa.String(16), nullable=True),
    )
    op.create_index("ix_match_players_guest_id", "match_players", ["guest_id"])
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("result", sa.Text, nullable=True))
    # Matches stored before this revision: the owner at the human seat, bots elsewhere.
    op.execute(
        "INSERT INTO match_players (match_id, seat, guest_id, bot_level) "
        "SELECT id, human_seat, guest_id, NULL FROM matches"
    )
    for seat in range(3):
        op.execute(
            "INSERT INTO match_players (match_id, seat, guest_id, bot_level) "
            f"SELECT id, {seat}, NULL, bot_level FROM matches WHERE human_seat <> {seat}"
        )


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("result")
    op.drop_index("ix_match_players_guest_id", table_name="match_players")
    op.drop_table("match_players")
