"""A player's daily drills (``drills``, migration 0015; docs/drills.md).

The problems come from the player's own recent reviewed matches: the done reviews of its seat
(``match_reviews``), their priced discard mistakes (``sanma.bots.drill.is_problem``).  The set of
a UTC day is chosen once, when it is first asked for, and written: it stays the same all day
whatever reviews arrive later (a set of fewer than ``SET_SIZE`` is topped up once more are
found).  The choice is deterministic for an account and a day: the ``POOL`` biggest losses never
answered before, ordered by a hash of (account, day, problem), the first ``SET_SIZE``.  So a
problem once answered never comes back, and an unanswered one may come back another day.

The streak is read off the rows: the consecutive days, ending today or yesterday, whose every
problem was answered (a day not finished yet does not break it; a day missed does).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, Final, Literal

from sqlalchemy import Connection, Engine, and_, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from sanma.bots.drill import is_problem
from sanma.store.tables import drills, match_players, match_reviews, matches

SET_SIZE: Final = 5
POOL: Final = 15
"""The biggest losses a day's set is drawn from: the set changes from day to day, and still
holds the worst mistakes."""
RECENT: Final = 20
"""The player's most recent reviewed matches the problems come from."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One mistake of a review: ``index`` is the review's (the event that cued the decision)."""

    match_id: str
    seat: int
    index: int
    choice: str
    master: str
    loss: float

    @property
    def key(self) -> Key:
        return (self.match_id, self.seat, self.index)


Key = tuple[str, int, int]
"""A problem's identity: (match, seat, event index)."""


@dataclass(frozen=True, slots=True)
class Drill:
    """One problem of a day's set, as stored (``answer``/``right``: ``None`` until answered)."""

    id: int
    guest_id: str
    day: date
    slot: int
    problem: Problem
    answer: str | None
    right: bool | None
    answered_at: datetime | None


Refusal = Literal["no_drill", "not_yours", "answered", "expired"]


class DrillError(Exception):
    """An answer that is not taken: ``code`` is ``no_drill``, ``not_yours``, ``answered`` or
    ``expired`` (a drill of another day than today's)."""

    def __init__(self, code: Refusal, detail: str) -> None:
        super().__init__(detail)
        self.code = code


def _row(row: Any) -> Drill:
    at = row["answered_at"]
    return Drill(
        id=int(row["id"]),
        guest_id=row["guest_id"],
        day=row["day"],
        slot=int(row["slot"]),
        problem=Problem(
            row["match_id"], int(row["seat"]), int(row["event_index"]), row["choice"], row["master"], float(row["loss"])
        ),
        answer=row["answer"],
        right=None if row["right"] is None else bool(row["right"]),
        answered_at=None if at is None else (at if at.tzinfo is not None else at.replace(tzinfo=UTC)),
    )


def problems_of(match_id: str, seat: int, result: dict[str, Any]) -> list[Problem]:
    """The drills a review's result makes (``Review.as_dict()``)."""
    out = []
    for m in result.get("mistakes", []):
        if is_problem(m):
            out.append(Problem(match_id, seat, int(m["index"]), m["choice"], m["master"], float(m["loss"])))
    return out


def recent_problems(conn: Connection, guest_id: str) -> list[Problem]:
    """The problems of the player's ``RECENT`` latest reviewed matches (its own seat's done
    reviews), the biggest loss first."""
    rows = conn.execute(
        select(match_reviews.c.match_id, match_reviews.c.seat, match_reviews.c.result)
        .join(matches, matches.c.id == match_reviews.c.match_id)
        .join(
            match_players,
            and_(match_players.c.match_id == match_reviews.c.match_id, match_players.c.seat == match_reviews.c.seat),
        )
        .where(match_players.c.guest_id == guest_id, match_reviews.c.state == "done")
        .order_by(matches.c.updated_at.desc(), matches.c.id)
        .limit(RECENT)
    ).all()
    found = [p for match_id, seat, text in rows if text for p in problems_of(match_id, int(seat), json.loads(text))]
    return sorted(found, key=lambda p: (-p.loss, p.match_id, p.seat, p.index))


def _shuffle_key(guest_id: str, day: date, p: Problem) -> str:
    return hashlib.sha256(f"{guest_id}|{day.isoformat()}|{p.match_id}|{p.seat}|{p.index}".encode()).hexdigest()


def choose(guest_id: str, day: date, problems: list[Problem], taken: set[Key], n: int) -> list[Problem]:
    """``n`` of ``problems`` (the biggest loss first) for ``guest_id``'s set of ``day``, none of
    ``taken`` (answered before, or in the set already): the ``POOL`` biggest, in the day's order."""
    pool = [p for p in problems if p.key not in taken][:POOL]
    return sorted(pool, key=lambda p: _shuffle_key(guest_id, day, p))[:n]


def _of_day(conn: Connection, guest_id: str, day: date) -> list[Drill]:
    rows = conn.execute(
        select(drills).where(drills.c.guest_id == guest_id, drills.c.day == day).order_by(drills.c.slot)
    ).mappings()
    return [_row(r) for r in rows]


def daily_set(engine: Engine, guest_id: str, day: date) -> list[Drill]:
    """The set of ``day`` (UTC) for ``guest_id``, in slot order: the stored one, topped up to
    ``SET_SIZE`` from the problems there are now (none: an empty list)."""
    for _ in range(3):
        with engine.begin() as conn:
            have = _of_day(conn, guest_id, day)
            if len(have) >= SET_SIZE:
                return have
            answered = conn.execute(
                select(drills.c.match_id, drills.c.seat, drills.c.event_index).where(
                    drills.c.guest_id == guest_id, drills.c.answer.is_not(None)
                )
            ).all()
            taken = {(m, int(s), int(i)) for m, s, i in answered} | {d.problem.key for d in have}
            new = choose(guest_id, day, recent_problems(conn, guest_id), taken, SET_SIZE - len(have))
            if not new:
                return have
            try:
                with conn.begin_nested():
                    conn.execute(insert(drills), [_values(guest_id, day, len(have) + k, p) for k, p in enumerate(new)])
            except IntegrityError:
                continue  # another request of the player wrote the set first: read it
            return _of_day(conn, guest_id, day)
    with engine.connect() as conn:
        return _of_day(conn, guest_id, day)


def _values(guest_id: str, day: date, slot: int, p: Problem) -> dict[str, Any]:
    return {
        "guest_id": guest_id,
        "day": day,
        "slot": slot,
        "match_id": p.match_id,
        "seat": p.seat,
        "event_index": p.index,
        "choice": p.choice,
        "master": p.master,
        "loss": p.loss,
    }


def get_drill(engine: Engine, drill_id: int) -> Drill | None:
    """The drill ``drill_id``, or ``None``."""
    with engine.connect() as conn:
        row = conn.execute(select(drills).where(drills.c.id == drill_id)).mappings().first()
    return None if row is None else _row(row)


def own_drill(engine: Engine, drill_id: int, guest_id: str) -> Drill:
    """The drill ``drill_id`` of ``guest_id`` (``DrillError`` ``no_drill`` or ``not_yours``)."""
    found = get_drill(engine, drill_id)
    if found is None:
        raise DrillError("no_drill", f"no drill {drill_id}")
    if found.guest_id != guest_id:
        raise DrillError("not_yours", "this drill is another player's")
    return found


def answer(engine: Engine, drill_id: int, guest_id: str, tile: str, right: bool, at: datetime) -> Drill:
    """Keep ``guest_id``'s answer ``tile`` to drill ``drill_id`` (judged ``right`` by the
    caller) at ``at``; ``DrillError`` when it is not the guest's, of another day than ``at``'s
    (a set is answered on its day, so a missed day cannot be made up later and the streak
    counts days really kept), or answered already (the first answer counts: a row update only
    one request wins)."""
    found = own_drill(engine, drill_id, guest_id)
    if found.day != at.astimezone(UTC).date():
        raise DrillError("expired", f"this drill was the set of {found.day.isoformat()}: answer today's set")
    with engine.begin() as conn:
        hit = conn.execute(
            update(drills)
            .where(drills.c.id == drill_id, drills.c.answer.is_(None))
            .values(answer=tile, right=right, answered_at=at)
        )
        if hit.rowcount != 1:
            raise DrillError("answered", "this drill was answered already")
        row = conn.execute(select(drills).where(drills.c.id == drill_id)).mappings().one()
    return _row(row)


def completed_days(engine: Engine, guest_id: str) -> set[date]:
    """The days whose set ``guest_id`` answered whole."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(drills.c.day)
            .where(drills.c.guest_id == guest_id)
            .group_by(drills.c.day)
            .having(func.count() == func.count(drills.c.answer))
        ).all()
    return {d for (d,) in rows}


def streak(engine: Engine, guest_id: str, today: date) -> int:
    """Consecutive days with the set completed, ending ``today`` (or yesterday while today's
    set is still open)."""
    done = completed_days(engine, guest_id)
    day = today if today in done else today - timedelta(days=1)
    count = 0
    while day in done:
        count += 1
        day -= timedelta(days=1)
    return count


def unreviewed(engine: Engine, guest_id: str, limit: int = 3) -> list[str]:
    """The player's latest ended matches with no done review of its seat, newest first (what
    the drills screen offers to have reviewed)."""
    reviewed = select(match_reviews.c.match_id).where(
        match_reviews.c.match_id == match_players.c.match_id,
        match_reviews.c.seat == match_players.c.seat,
        match_reviews.c.state == "done",
    )
    with engine.connect() as conn:
        rows = conn.execute(
            select(matches.c.id)
            .join(match_players, match_players.c.match_id == matches.c.id)
            .where(match_players.c.guest_id == guest_id, matches.c.status == "ended", ~reviewed.exists())
            .order_by(matches.c.updated_at.desc(), matches.c.id)
            .limit(limit)
        ).all()
    return list(dict.fromkeys(m for (m,) in rows))
