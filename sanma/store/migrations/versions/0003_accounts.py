"""accounts: profiles, e-mail links and codes, coins, cosmetics (issue 6)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Filled in by the accounts work."""


def downgrade() -> None:
    """Filled in by the accounts work."""
