"""friend rooms (issue 5)

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from __future__ import annotations

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Filled in by the friend-rooms work."""


def downgrade() -> None:
    """Filled in by the friend-rooms work."""
