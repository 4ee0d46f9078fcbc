"""match_stats: one summary row per seat of a finished match (placement, final score, hands,
wins, deal-ins, riichi, calls, kita, points won and paid, draws), the player's statistics summed
over them; filled here for every match that ended before this revision, from its stored log

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

# The columns this revision makes: a later revision that adds one fills it itself, so the
# backfill below writes these only, whatever the summary grows into.
COUNTERS = (
    "hands",
    "wins",
    "tsumo_wins",
    "deal_ins",
    "riichi_hands",
    "called_hands",
    "kita",
    "win_points",
    "deal_in_points",
    "draws",
    "draws_tenpai",
)
LABELS = ("match_id", "seat", "kind", "bot_level", "length", "ended_at", "placement", "final_score")


def upgrade() -> None:
    table = op.create_table(
        "match_stats",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("bot_level", sa.String(16), nullable=True),
        sa.Column("length", sa.String(16), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("placement", sa.Integer, nullable=False),
        sa.Column("final_score", sa.Float, nullable=False),
        *(sa.Column(name, sa.Integer, nullable=False) for name in COUNTERS),
    )
    assert table is not None
    _backfill(op.get_bind(), table)


def _backfill(conn: sa.Connection, table: sa.Table) -> None:
    """The rows of every ended match, one match at a time (a log is read whole, never all)."""
    from sanma.store.stats import length_of, summarize, summary_rows

    meta = sa.MetaData()
    matches = sa.Table("matches", meta, autoload_with=conn)
    events = sa.Table("match_events", meta, autoload_with=conn)
    ended = conn.execute(
        sa.select(matches.c.id, matches.c.kind, matches.c.bot_level, matches.c.rules, matches.c.updated_at)
        .where(matches.c.status == "ended", matches.c.result.is_not(None))
        .order_by(matches.c.id)
    ).all()
    for match_id, kind, level, rules, ended_at in ended:
        texts = conn.execute(
            sa.select(events.c.event).where(events.c.match_id == match_id).order_by(events.c.v)
        ).scalars()
        summary = summarize(json.loads(text) for text in texts)
        if summary is None:
            continue  # ended without its final event (none such is written; kept out, not guessed)
        rows = summary_rows(match_id, kind, level, length_of(rules), ended_at, summary)
        conn.execute(sa.insert(table), [{k: row[k] for k in (*LABELS, *COUNTERS)} for row in rows])


def downgrade() -> None:
    op.drop_table("match_stats")
