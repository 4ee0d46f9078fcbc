"""Drills (docs/drills.md): the player's daily "what would you discard?" problems, made from
the priced discard mistakes of its own reviewed matches (``store/drills.py``), each shown as the
seat saw the table then (``sanma.bots.drill.position``), answered once, judged against the
master's choice, with the values the master gave the discards and the rest of that hand."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, Field

from sanma.bots.drill import judge, position, reasons, rest_of_hand
from sanma.engine.events import Event, MatchStarted
from sanma.server.api.accounts import Accounts, limit_write
from sanma.server.api.deps import ERRORS, ApiError, AppServices, Guest
from sanma.server.codec import event_from_store, event_to_wire
from sanma.store import drills as store
from sanma.store import matches as match_store
from sanma.store import reviews as review_store

router = APIRouter(prefix="/api", tags=["drills"], responses=ERRORS)

STATUS: dict[store.Refusal, int] = {"no_drill": 404, "not_yours": 403, "answered": 409, "expired": 409}


class Solution(BaseModel):
    """What a drill's answer shows: the master's discard, the prices, the rest of the hand."""

    answer: str = Field(description="the discard answered (mpsz), as the legal discards name it")
    right: bool = Field(description="the answer is the master's discard")
    choice: str = Field(description="what the player discarded in the match, e.g. 'discard 6s'")
    master: str = Field(description="what the master would discard, e.g. 'riichi 2z'")
    loss: float = Field(description="expected final placement points the player's discard gave up")
    values: dict[str, float] = Field(
        description="each priced action's expected final placement points (higher is better), as the review gave them"
    )
    master_reason: dict[str, Any] | None = Field(
        description="the coach's reason for the master's discard (sanma.bots.coach.Reason: speed, safety, value)"
    )
    choice_reason: dict[str, Any] | None = Field(description="the coach's reason for the player's own discard")
    events: list[dict[str, Any]] = Field(
        description="the match's start and the hand of the decision to its end, as the seat saw them (wire events)"
    )
    from_index: int = Field(description="the position in `events` of the event that cued the decision")


class DrillItem(BaseModel):
    """One problem of the day's set."""

    id: int
    slot: int = Field(description="0..4, the problem's place in the set")
    match: str
    state: Literal["open", "right", "wrong"]
    position: dict[str, Any] = Field(description="the table as the seat saw it (docs/drills.md)")
    solution: Solution | None = Field(description="once answered")


class DrillsToday(BaseModel):
    """The day's set (UTC), the streak, and what to offer a player with no problems."""

    day: date
    drills: list[DrillItem]
    done: bool = Field(description="every problem of the day's set is answered")
    streak: int = Field(description="consecutive UTC days with the set completed")
    unreviewed: list[str] = Field(description="the latest ended matches of the player with no review of its seat")


class AnswerBody(BaseModel):
    """The answered discard."""

    tile: str = Field(min_length=2, max_length=2, description="a tile in mpsz, e.g. '5p', '0p' (red), '7z'")


class Answered(BaseModel):
    """An answer's judgement, and the day's streak after it."""

    id: int
    solution: Solution
    done: bool
    streak: int


DRILL_ERRORS: dict[int | str, dict[str, Any]] = {
    403: {"description": "`not_yours`: another player's drill"},
    404: {"description": "`no_drill`: no such drill"},
    409: {"description": "`answered`: answered already (the first answer counts); `expired`: a past day's drill"},
    422: {"description": "`not_legal`: not a legal discard of the position"},
}


def _today() -> date:
    return datetime.now(UTC).date()


def _log(app: AppServices, match_id: str) -> list[Event]:
    return [event_from_store(e) for e in match_store.load_events(app.engine, match_id)]


def _red(events: list[Event]) -> bool:
    first = events[0]
    return first.rules.red_fives if isinstance(first, MatchStarted) else True


def _values(app: AppServices, d: store.Drill) -> dict[str, float]:
    """The review's prices of the drill's decision (empty when the review was computed again
    since and no longer lists it)."""
    p = d.problem
    row = review_store.get_review(app.engine, p.match_id, p.seat)
    for m in (row.result or {}).get("mistakes", []) if row is not None else []:
        if m.get("index") == p.index:
            return {str(k): float(v) for k, v in (m.get("values") or {}).items()}
    return {}


def _solution(app: AppServices, d: store.Drill, events: list[Event]) -> Solution:
    assert d.answer is not None and d.right is not None
    p = d.problem
    hand, start = rest_of_hand(events, p.seat, p.index)
    red = _red(events)
    master, mine = reasons(events, p.seat, p.index, (p.master, p.choice))
    return Solution(
        answer=d.answer,
        right=d.right,
        choice=p.choice,
        master=p.master,
        loss=round(p.loss, 4),
        values=_values(app, d),
        master_reason=None if master is None else master.as_dict(),
        choice_reason=None if mine is None else mine.as_dict(),
        events=[event_to_wire(e, red) for e in hand],
        from_index=start,
    )


def _item(app: AppServices, d: store.Drill, events: list[Event]) -> DrillItem:
    state: Literal["open", "right", "wrong"] = "open" if d.right is None else ("right" if d.right else "wrong")
    return DrillItem(
        id=d.id,
        slot=d.slot,
        match=d.problem.match_id,
        state=state,
        position=position(events, d.problem.seat, d.problem.index).as_dict(),
        solution=None if d.answer is None else _solution(app, d, events),
    )


@router.get("/drills/today")
async def today(guest: Guest, app: AppServices) -> DrillsToday:
    """The day's five problems (fewer while the player's reviews hold fewer mistakes; none
    without a reviewed match: then ``unreviewed`` lists matches to have reviewed), their
    state, and the streak."""

    def read() -> DrillsToday:
        day = _today()
        found = store.daily_set(app.engine, guest, day)
        logs = {m: _log(app, m) for m in dict.fromkeys(d.problem.match_id for d in found)}
        return DrillsToday(
            day=day,
            drills=[_item(app, d, logs[d.problem.match_id]) for d in found],
            done=bool(found) and all(d.answer is not None for d in found),
            streak=store.streak(app.engine, guest, day),
            unreviewed=[] if found else store.unreviewed(app.engine, guest),
        )

    return await asyncio.to_thread(read)


@router.post("/drills/{drill_id}/answer", responses=DRILL_ERRORS)
async def answer(
    drill_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    body: AnswerBody,
    guest: Guest,
    app: AppServices,
    request: Request,
    accounts: Accounts,
) -> Answered:
    """Answer a drill with a discard: right when it is the master's (a red five counts as its
    kind unless the hand holds both); the master's choice, the values, the rest of the hand."""
    await limit_write(request, accounts, guest)

    def write() -> Answered:
        try:
            d = store.own_drill(app.engine, drill_id, guest)
            if d.answer is not None:
                raise store.DrillError("answered", "this drill was answered already")
            p = d.problem
            events = _log(app, p.match_id)
            judged = judge(position(events, p.seat, p.index).legal, body.tile, p.master)
            if judged is None:
                raise ApiError(422, "not_legal", f"{body.tile} is not a discard this hand could make")
            d = store.answer(app.engine, drill_id, guest, judged[0], judged[1], datetime.now(UTC))
        except store.DrillError as exc:
            raise ApiError(STATUS[exc.code], exc.code, str(exc)) from exc
        day = _today()
        done = d.day in store.completed_days(app.engine, guest)
        streak = store.streak(app.engine, guest, day)
        return Answered(id=d.id, solution=_solution(app, d, events), done=done, streak=streak)

    return await asyncio.to_thread(write)
