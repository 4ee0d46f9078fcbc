"""The tables, as SQLAlchemy Core ``Table`` objects on one ``MetaData``.

Migrations (``migrations/versions``) create them; this module is what the code queries.
Portable types only: strings, integers, timestamps, JSON kept as text and bytes (LargeBinary).
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
)

metadata = MetaData()

guests = Table(
    "guests",
    metadata,
    Column("id", String(32), primary_key=True),
    # SHA-256 of the token, hex: the token itself is never stored.
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

matches = Table(
    "matches",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("guest_id", String(32), ForeignKey("guests.id"), nullable=False, index=True),
    Column("kind", String(16), nullable=False),  # "practice" for now
    Column("rules", Text, nullable=False),  # JSON: the engine's Rules
    # Text, not an integer column: seeds are >= 63 random bits and must not overflow BIGINT.
    Column("seed", String(48), nullable=False),
    Column("bot_level", String(16), nullable=False),
    Column("human_seat", Integer, nullable=False),
    Column("status", String(16), nullable=False),  # "playing" | "ended"
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    # JSON, set when the match ends: {"points": [...], "placements": [...], "final_scores": [...]} by seat.
    Column("result", Text, nullable=True),
    # JSON: a practice match's turn timers when the player chose them (rooms/table.py TurnTimers);
    # NULL: none (a friend room's are in ``rooms``).
    Column("timers", Text, nullable=True),
    # Migration 0014: the player turned the practice table's coach on at least once (the
    # history marks the match, the statistics keep it apart).
    Column("coached", Boolean, nullable=False, server_default=false()),
)

# Who sat where: a guest (``guest_id``) or a bot (``bot_level``), one row per seat.
match_players = Table(
    "match_players",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("guest_id", String(32), ForeignKey("guests.id"), nullable=True, index=True),
    Column("bot_level", String(16), nullable=True),
)

match_events = Table(
    "match_events",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    Column("v", BigInteger, primary_key=True, autoincrement=False),  # 1, 2, ... per match
    Column("event", Text, nullable=False),  # JSON: the full (unredacted) event
)

# -- accounts (issue 6, migration 0003) ------------------------------------------------------

# One row per guest that has used an account feature (created on first use).
accounts = Table(
    "accounts",
    metadata,
    Column("guest_id", String(32), ForeignKey("guests.id"), primary_key=True),
    Column("display_name", String(96), nullable=True),
    # SHA-256 of the normalised address (the address itself is never stored) and a masked hint.
    Column("email_hash", String(64), nullable=True, unique=True),
    Column("email_hint", String(64), nullable=True),
    Column("coins", Integer, nullable=False, server_default="0"),
    Column("tile_back", String(32), nullable=True),  # equipped item ids; NULL: the default look
    Column("cloth", String(32), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    CheckConstraint("coins >= 0", name="ck_accounts_coins_nonnegative"),
)

# Every grant and spend of coins; the sum of a guest's rows equals accounts.coins.
coin_ledger = Table(
    "coin_ledger",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("guest_id", String(32), ForeignKey("guests.id"), nullable=False, index=True),
    Column("delta", Integer, nullable=False),
    Column("reason", String(16), nullable=False),  # "checkin" | "buy"
    Column("item", String(32), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

# One row per guest and UTC day: the primary key is what makes a check-in happen once.
checkins = Table(
    "checkins",
    metadata,
    Column("guest_id", String(32), ForeignKey("guests.id"), primary_key=True),
    Column("day", Date, primary_key=True),
    Column("streak", Integer, nullable=False),
    Column("coins", Integer, nullable=False),
)

# Cosmetics bought: the primary key refuses owning an item twice.
owned_items = Table(
    "owned_items",
    metadata,
    Column("guest_id", String(32), ForeignKey("guests.id"), primary_key=True),
    Column("item", String(32), primary_key=True),
    Column("bought_at", DateTime(timezone=True), nullable=False),
)

# One-time e-mail codes (link an address, recover an account); only salted hashes are stored.
email_codes = Table(
    "email_codes",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("purpose", String(8), nullable=False),  # "link" | "recover"
    Column("email_hash", String(64), nullable=False, index=True),
    # The guest asking to link, or the account to recover; NULL for an address no account has
    # (the row is written all the same, so both answers cost the same).
    Column("guest_id", String(32), ForeignKey("guests.id"), nullable=True),
    Column("code_hash", String(64), nullable=False),
    Column("salt", String(32), nullable=False),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("used", Boolean, nullable=False, server_default=false()),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # Who asked (``guest:<id>`` or ``ip:<address>``; revision 0008): only the asker may spend,
    # try or replace the code.  NULL on older rows: anyone, as before.
    Column("requester", String(80), nullable=True),
)

# Friend rooms (store/rooms.py): the lobby of each room, kept so that it survives a restart.
rooms = Table(
    "rooms",
    metadata,
    Column("code", String(8), primary_key=True),  # the short invite code
    Column("host_guest", String(32), ForeignKey("guests.id"), nullable=False),
    Column("options", Text, nullable=False),  # JSON: {"length": ..., "red_fives": ...}
    Column("seats", Text, nullable=False),  # JSON: 3 x (null | {"guest": id} | {"bot": level})
    Column("timers", Text, nullable=False),  # JSON: the room's turn timers (rooms/table.py TurnTimers)
    Column("barred", Text, nullable=False, server_default="[]"),  # JSON: guest ids the host removed
    Column("status", String(16), nullable=False),  # "lobby" | "playing" | "ended"
    Column("match_id", String(32), ForeignKey("matches.id"), nullable=True, index=True),
    Column("version", Integer, nullable=False),  # bumped by every change (optimistic concurrency)
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False, index=True),
)

# -- replays (issue 12, migration 0007) -------------------------------------------------------

# A match its player chose to share: ``id`` is the unguessable part of the link (secrets).
match_shares = Table(
    "match_shares",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("match_id", String(32), ForeignKey("matches.id"), nullable=False),
    Column("guest_id", String(32), ForeignKey("guests.id"), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("match_id", "guest_id", name="uq_match_shares_match_guest"),
)

# A tenhou.net/6 log a player opened and chose to keep in their history (stored as sent).
# Migration 0010: ``opened`` is the viewer's answer, zlib-compressed, so reading a kept log is a
# lookup (null for rows kept before it, filled on first read); ``size`` is what the row costs
# its guest's quota in bytes (the text plus the answer), so the quota and the list never read
# the texts.
saved_logs = Table(
    "saved_logs",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("guest_id", String(32), ForeignKey("guests.id"), nullable=False, index=True),
    Column("title", String(200), nullable=False),
    Column("preset", String(16), nullable=False),
    Column("log", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("opened", LargeBinary, nullable=True),
    Column("size", Integer, nullable=False, server_default="0"),
)

# -- reviews (issue 13, migration 0009) -------------------------------------------------------

# The master's review of one seat of an ended match (store/reviews.py), computed once by a
# worker process.  A row is made when its player asks (``queued``), claimed by a server process
# with a free worker (``running``: ``node`` holds it until ``lease_until``, renewed while it
# runs), then ``done`` (``result``) or ``failed`` (``error``).
match_reviews = Table(
    "match_reviews",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("guest_id", String(32), ForeignKey("guests.id"), nullable=False, index=True),  # who asked
    # From where (netaddr.client_key, migration 0011; null: asked before): an address holds a
    # few places of the queue at most, and the claim serves the addresses in turn.
    Column("address", String(80), nullable=True, index=True),
    Column("state", String(8), nullable=False, index=True),  # queued | running | done | failed
    Column("done", Integer, nullable=False, server_default="0"),  # events of the log read so far
    Column("total", Integer, nullable=False, server_default="0"),  # events in the log
    Column("attempts", Integer, nullable=False, server_default="0"),  # times a worker started it
    Column("node", String(80), nullable=True),
    Column("lease_until", DateTime(timezone=True), nullable=True),
    Column("result", Text, nullable=True),  # JSON: sanma.bots.review.Review.as_dict()
    Column("error", Text, nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

# -- administration (issue 29, migration 0012) ------------------------------------------------

# The guests an operator barred (``sanma admin bar``): their token is refused everywhere until
# ``unbar`` deletes the row.  Not a foreign key: the bar outlives the guest's own deletion of
# its data (an operator's record, not the guest's).
guest_bars = Table(
    "guest_bars",
    metadata,
    Column("guest_id", String(32), primary_key=True),
    Column("reason", Text, nullable=False, server_default=""),
    Column("barred_at", DateTime(timezone=True), nullable=False),
)

# -- statistics (issue 27, migration 0013) ----------------------------------------------------

# One seat's summary of a finished match (store/stats.py), written once in the transaction that
# ends it: a player's figures are sums over its rows (joined to ``match_players`` by match and
# seat, so whoever holds the seat holds its row), one GROUP BY however many matches.  ``kind``,
# ``bot_level`` (a practice match's; NULL for a room) and ``length`` are the match's, copied so
# the sums need no other table; ``ended_at`` orders the trend.
match_stats = Table(
    "match_stats",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(16), nullable=False),
    Column("bot_level", String(16), nullable=True),
    Column("length", String(16), nullable=False),
    Column("ended_at", DateTime(timezone=True), nullable=False),
    Column("placement", Integer, nullable=False),
    Column("final_score", Float, nullable=False),
    Column("hands", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("tsumo_wins", Integer, nullable=False),
    Column("deal_ins", Integer, nullable=False),
    Column("riichi_hands", Integer, nullable=False),
    Column("called_hands", Integer, nullable=False),
    Column("kita", Integer, nullable=False),
    Column("win_points", Integer, nullable=False),
    Column("deal_in_points", Integer, nullable=False),
    Column("draws", Integer, nullable=False),
    Column("draws_tenpai", Integer, nullable=False),
    Column("coached", Boolean, nullable=False, server_default=false()),  # the match's (0014)
)

# -- drills (issue 27, migration 0015) --------------------------------------------------------

# A player's daily drills (store/drills.py): each row one problem of the set of ``day`` (UTC),
# a priced discard mistake of a done review of the player's seat, ``(match_id, seat,
# event_index)`` (the review's ``index``), kept with its ``choice``, the master's ``master``
# and ``loss`` as the review said them when the set was made.  ``answer``, ``right`` and
# ``answered_at`` are null until answered.  A day's set is written once, so it stays the same
# all day; the streak is read off the days whose every problem is answered.  The rows go with
# the guest (ON DELETE CASCADE): they are the player's own practice, nobody else's.
drills = Table(
    "drills",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("guest_id", String(32), ForeignKey("guests.id", ondelete="CASCADE"), nullable=False),
    Column("day", Date, nullable=False),
    Column("slot", Integer, nullable=False),
    Column("match_id", String(32), ForeignKey("matches.id"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("event_index", Integer, nullable=False),
    Column("choice", String(32), nullable=False),
    Column("master", String(32), nullable=False),
    Column("loss", Float, nullable=False),
    Column("answer", String(4), nullable=True),
    Column("right", Boolean, nullable=True),
    Column("answered_at", DateTime(timezone=True), nullable=True),
    UniqueConstraint("guest_id", "day", "slot"),
    UniqueConstraint("guest_id", "day", "match_id", "seat", "event_index"),
)

# -- quick match ranks (issue 28, migration 0016) -----------------------------------------------

# A player's standing on one length's ladder (store/ladder.py; docs/ranks.md): the rank (an
# index into ``ladder.RANKS``), the points at it, the quick matches counted, and the hidden
# rating matchmaking reads (``mu``, ``sigma``).  A row exists from the player's first quick
# table on (``ranks.ensure``, when the match is created), so the match's end only updates.
ranks = Table(
    "ranks",
    metadata,
    Column("guest_id", String(32), ForeignKey("guests.id", ondelete="CASCADE"), primary_key=True),
    Column("length", String(16), primary_key=True),
    Column("rank", Integer, nullable=False),
    Column("points", Integer, nullable=False),
    Column("games", Integer, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Index("ix_ranks_board", "length", "rank", "points", "games"),  # the leaderboard's order
)

# One row per human seat of a finished quick match: what its end changed, written in the
# transaction that stores the match's last events; the key makes a second settlement fail
# instead of counting twice.  ``abandoned``: the player was gone at the end (counted last).
rank_changes = Table(
    "rank_changes",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    Column("guest_id", String(32), ForeignKey("guests.id", ondelete="CASCADE"), primary_key=True, index=True),
    Column("length", String(16), nullable=False),
    Column("placement", Integer, nullable=False),
    Column("abandoned", Boolean, nullable=False),
    Column("rank_before", Integer, nullable=False),
    Column("points_before", Integer, nullable=False),
    Column("rank_after", Integer, nullable=False),
    Column("points_after", Integer, nullable=False),
    Column("delta", Integer, nullable=False),
    Column("mu_before", Float, nullable=False),
    Column("mu_after", Float, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)
