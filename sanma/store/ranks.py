"""Quick-match ranks in the store: each player's standing per length (``ranks``), what each
finished quick match changed (``rank_changes``), the leaderboard.

The change is computed here, on the server, from the stored result, once: ``settle`` runs in the
transaction that appends the match's last events (``matches.append_events``), and the key of
``rank_changes`` (match, guest) makes a second settlement of the same match fail with it, so a
restart in the middle of a match can neither lose nor double it.  The ladder itself is pure
(``store/ladder.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, Connection, Engine, and_, func, insert, or_, select, update

from sanma.store import accounts
from sanma.store.ladder import LENGTHS, NEW_RATING, RANKS, Rating, Standing, after, bot_rating, earned, rated
from sanma.store.stats import length_of
from sanma.store.tables import match_players, matches, rank_changes, ranks

LEADERBOARD_SIZE = 100


@dataclass(frozen=True, slots=True)
class Ranked:
    """A player's row on one ladder: its standing and hidden rating."""

    guest_id: str
    standing: Standing
    rating: Rating


@dataclass(frozen=True, slots=True)
class RankChange:
    """What one finished quick match changed for one player (``delta``: the points its
    placement earned, before any promotion or demotion)."""

    match_id: str
    length: str
    placement: int
    abandoned: bool
    before: Standing
    after: Standing
    delta: int


@dataclass(frozen=True, slots=True)
class BoardEntry:
    """One line of a leaderboard."""

    place: int
    guest_id: str
    name: str | None
    standing: Standing


def _ranked(row: object) -> Ranked:
    r = row._mapping  # type: ignore[attr-defined]
    return Ranked(r["guest_id"], Standing(r["rank"], r["points"], r["games"]), Rating(r["mu"], r["sigma"]))


def ensure(conn: Connection, guest_ids: Iterable[str], length: str, now: datetime) -> None:
    """Give each guest a row on ``length``'s ladder if it has none (a new player: the lowest
    rank, no points, the model's first rating).  Called when a quick match is created, so
    that its end only updates rows."""
    if length not in LENGTHS:
        raise ValueError(f"no ladder for length {length!r}")
    wanted = set(guest_ids)
    have = set(
        conn.execute(
            select(ranks.c.guest_id).where(ranks.c.length == length, ranks.c.guest_id.in_(list(wanted)))
        ).scalars()
    )
    mu, sigma = NEW_RATING
    rows = [
        {
            "guest_id": g,
            "length": length,
            "rank": 0,
            "points": 0,
            "games": 0,
            "mu": mu,
            "sigma": sigma,
            "updated_at": now,
        }
        for g in sorted(wanted - have)
    ]
    if rows:
        conn.execute(insert(ranks), rows)


def settle(conn: Connection, match_id: str, now: datetime, abandoned: frozenset[int] = frozenset()) -> int:
    """Move every human of the quick match ``match_id`` on its length's ladder by its placement
    (an ``abandoned`` seat counts as third), in ``conn``'s transaction, and record the changes;
    how many players moved (0: not a quick match, or no result)."""
    kind, rules, result = conn.execute(
        select(matches.c.kind, matches.c.rules, matches.c.result).where(matches.c.id == match_id)
    ).one()
    length = length_of(rules)
    if kind != "quick" or result is None or length not in LENGTHS:
        return 0
    placements = [3 if s in abandoned else int(p) for s, p in enumerate(json.loads(result)["placements"])]
    seats = conn.execute(
        select(match_players.c.seat, match_players.c.guest_id, match_players.c.bot_level)
        .where(match_players.c.match_id == match_id)
        .order_by(match_players.c.seat)
    ).all()
    humans = {seat: guest for seat, guest, _ in seats if guest is not None}
    held = {
        r.guest_id: r
        for r in map(
            _ranked,
            conn.execute(
                select(ranks)
                .where(ranks.c.length == length, ranks.c.guest_id.in_(list(humans.values())))
                .with_for_update()
            ),
        )
    }
    ratings = [held[guest].rating if guest is not None else bot_rating(level or "normal") for _, guest, level in seats]
    new_ratings = rated(ratings, placements)
    changes = []
    for seat, guest in humans.items():
        before = held[guest].standing
        moved = after(before, placements[seat], length)
        rating = new_ratings[seat]
        conn.execute(
            update(ranks)
            .where(ranks.c.guest_id == guest, ranks.c.length == length)
            .values(
                rank=moved.rank,
                points=moved.points,
                games=moved.games,
                mu=rating.mu,
                sigma=rating.sigma,
                updated_at=now,
            )
        )
        changes.append(
            {
                "match_id": match_id,
                "guest_id": guest,
                "length": length,
                "placement": placements[seat],
                "abandoned": seat in abandoned,
                "rank_before": before.rank,
                "points_before": before.points,
                "rank_after": moved.rank,
                "points_after": moved.points,
                "delta": earned(before.rank, placements[seat], length),
                "mu_before": held[guest].rating.mu,
                "mu_after": rating.mu,
                "at": now,
            }
        )
    conn.execute(insert(rank_changes), changes)
    return len(changes)


def standings(engine: Engine, guest_id: str) -> dict[str, Standing]:
    """The guest's standing on each ladder (a new player's where it has not played)."""
    with engine.connect() as conn:
        rows = conn.execute(select(ranks).where(ranks.c.guest_id == guest_id)).all()
    held = {row._mapping["length"]: _ranked(row).standing for row in rows}
    return {length: held.get(length, Standing()) for length in LENGTHS}


def ranked(engine: Engine, guest_id: str, length: str) -> Ranked:
    """The guest's standing and hidden rating on ``length``'s ladder, in one read (a new
    player's where it has none)."""
    with engine.connect() as conn:
        row = conn.execute(select(ranks).where(ranks.c.length == length, ranks.c.guest_id == guest_id)).first()
    return Ranked(guest_id, Standing(), Rating(*NEW_RATING)) if row is None else _ranked(row)


def _ahead(standing: Standing) -> ColumnElement[bool]:
    """The rows that stand above ``standing`` on the board (rank, then points, then games)."""
    return or_(
        ranks.c.rank > standing.rank,
        and_(ranks.c.rank == standing.rank, ranks.c.points > standing.points),
        and_(ranks.c.rank == standing.rank, ranks.c.points == standing.points, ranks.c.games > standing.games),
    )


def leaderboard(
    engine: Engine, length: str, guest_id: str | None = None, size: int = LEADERBOARD_SIZE
) -> tuple[list[BoardEntry], BoardEntry | None]:
    """The top ``size`` of ``length``'s ladder among players who finished a quick match, and
    ``guest_id``'s own entry (``None``: it has not played).  Equal standings share a place."""
    if length not in LENGTHS:
        raise ValueError(f"no ladder for length {length!r}")
    played = and_(ranks.c.length == length, ranks.c.games > 0)
    with engine.connect() as conn:
        rows = conn.execute(
            select(ranks)
            .where(played)
            .order_by(ranks.c.rank.desc(), ranks.c.points.desc(), ranks.c.games.desc(), ranks.c.guest_id)
            .limit(size)
        ).all()
        mine = None
        if guest_id is not None:
            row = conn.execute(select(ranks).where(played, ranks.c.guest_id == guest_id)).first()
            if row is not None:
                mine = _ranked(row)
                ahead = conn.execute(select(func.count()).select_from(ranks).where(played, _ahead(mine.standing)))
                mine_place = int(ahead.scalar_one()) + 1
    top = [_ranked(row) for row in rows]
    names = accounts.display_names(engine, [r.guest_id for r in top] + ([] if mine is None else [mine.guest_id]))
    entries: list[BoardEntry] = []
    for i, r in enumerate(top):
        tied = entries and entries[-1].standing == r.standing
        place = entries[-1].place if tied else i + 1
        entries.append(BoardEntry(place, r.guest_id, names[r.guest_id], r.standing))
    you = None if mine is None else BoardEntry(mine_place, mine.guest_id, names[mine.guest_id], mine.standing)
    return entries, you


def changes_among(engine: Engine, guest_id: str, match_ids: list[str]) -> dict[str, RankChange]:
    """What each of ``match_ids`` changed for ``guest_id`` (quick matches only), by match."""
    if not match_ids:
        return {}
    with engine.connect() as conn:
        rows = conn.execute(
            select(rank_changes).where(rank_changes.c.guest_id == guest_id, rank_changes.c.match_id.in_(match_ids))
        ).mappings()
        return {
            r["match_id"]: RankChange(
                r["match_id"],
                r["length"],
                r["placement"],
                bool(r["abandoned"]),
                Standing(r["rank_before"], r["points_before"]),
                Standing(r["rank_after"], r["points_after"]),
                r["delta"],
            )
            for r in rows
        }


def seat_ranks(engine: Engine, match_id: str) -> dict[int, str]:
    """The rank code of each human seat of a quick match, on its length's ladder (now)."""
    with engine.connect() as conn:
        rules = conn.execute(select(matches.c.rules).where(matches.c.id == match_id)).scalar_one_or_none()
        length = length_of(rules)
        rows = conn.execute(
            select(match_players.c.seat, ranks.c.rank)
            .join(ranks, and_(ranks.c.guest_id == match_players.c.guest_id, ranks.c.length == length))
            .where(match_players.c.match_id == match_id)
        ).all()
    return {int(seat): RANKS[rank] for seat, rank in rows}
