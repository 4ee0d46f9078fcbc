"""The master's review of the account's own seat in an ended match (``docs/protocol.md``,
"Reviews"): asked for with a POST, computed once by a worker process (``server/reviewer.py``),
its progress and then its result read with a GET, kept in the store for every later ask (computed
again once the master has changed: ``sanma.bots.review.REVIEWER``)."""

from __future__ import annotations

import asyncio
from typing import Any, Final, Literal

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from sanma.server.api.deps import ERRORS, ApiError, AppServices, Guest
from sanma.server.netaddr import client_key
from sanma.server.reviewer import Reviewer
from sanma.store import accounts as account_store
from sanma.store import matches as match_store
from sanma.store import reviews as store

router = APIRouter(prefix="/api", tags=["reviews"], responses=ERRORS)

RETRY_AFTER_S: Final = 30
"""What a refused request is told to wait (``Retry-After``): about one review's time."""

REFUSED: Final[dict[store.Refusal, str]] = {
    "busy": "review_busy",
    "address": "review_address_busy",
    "full": "review_queue_full",
}
"""The error code of each reason a review is refused (``store.ReviewRefused``)."""


class Decision(BaseModel):
    """One decision of the seat (``sanma.bots.review.Decision``)."""

    index: int = Field(description="the position in the match's events of the event that asked for it")
    hand: str = Field(description="e.g. E2-0: round wind, dealer seat + 1, honba")
    turn: int = Field(description="the seat's discards so far in the hand")
    tiles: str = Field(description="the seat's concealed tiles then (mpsz)")
    choice: str = Field(description="what the seat did, e.g. 'discard 5p', 'riichi 0p', 'pon 7s', 'pass'")
    master: str = Field(description="what the master would have done")
    loss: float | None = Field(description="expected final placement points the choice gave up; null: not priced")
    values: dict[str, float] = Field(description="each priced action's expected placement points")


class ReviewResult(BaseModel):
    """Every decision of the seat, the biggest loss first."""

    reviewer: str | None = Field(
        default=None, description="the master that computed it (``sanma.bots.review.REVIEWER``); null: stored before"
    )
    seat: int
    decisions: int
    priced: int
    agreed: int = Field(description="decisions where the seat did what the master would have done")
    total_loss: float
    mistakes: list[Decision]


class ReviewStatus(BaseModel):
    """A review's state: ``queued`` (waiting for a worker), ``running`` (``done`` of ``total``
    events of the log read), ``done`` (``result``) or ``failed`` (``error``)."""

    match: str
    seat: int
    state: Literal["queued", "running", "done", "failed"]
    done: int
    total: int
    result: ReviewResult | None = None
    error: str | None = None
    outdated: bool = Field(
        default=False, description="done by another master than today's: POST to have it computed again"
    )


REVIEW_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"description": "`no_match`: not a match of this account; (GET) `no_review`: never asked for"},
    409: {"description": "`match_running`: the match has not ended"},
    429: {
        "description": "`review_busy`: another review of the account is unfinished; `review_address_busy`:"
        " the client address has `SANMA_REVIEWS_PER_ADDRESS` unfinished; `review_queue_full`"
    },
}


def reviewer(request: Request) -> Reviewer:
    """The app's reviewer (``app.py``)."""
    found: Reviewer = request.app.state.reviews
    return found


def current_reviewer() -> str:
    """Today's master (``sanma.bots.review.REVIEWER``), imported when first asked (in a thread):
    the review module brings the master with it, which the server loads only for a match that
    seats it."""
    from sanma.bots.review import REVIEWER

    return REVIEWER


def _own_ended(app: AppServices, match_id: str, guest: str) -> int:
    """The account's seat in the ended match ``match_id`` (typed errors otherwise)."""
    record = match_store.get_match(app.engine, match_id)
    seat = None if record is None else account_store.seat_of(app.engine, match_id, guest)
    if record is None or seat is None:
        raise ApiError(404, "no_match", "no such match for this account")
    if record.status != "ended":
        raise ApiError(409, "match_running", "the match is still being played: it can be reviewed once it has ended")
    return seat


def _status(row: store.ReviewRow, found: Reviewer, current: str) -> ReviewStatus:
    done, total = row.done, row.total
    fresher = found.progress((row.match_id, row.seat)) if row.state == "running" else None
    if fresher is not None:
        done, total = max(done, fresher[0]), fresher[1] or total
    result = None if row.result is None else ReviewResult.model_validate(row.result)
    return ReviewStatus(
        match=row.match_id,
        seat=row.seat,
        state=row.state,
        done=done,
        total=total,
        result=result,
        error=row.error,
        outdated=store.outdated(row, current),
    )


@router.post(
    "/matches/{match_id}/review",
    status_code=202,
    response_model=ReviewStatus,
    responses={**REVIEW_ERRORS, 200: {"description": "the review was done already", "model": ReviewStatus}},
)
async def ask_review(match_id: str, guest: Guest, app: AppServices, request: Request, response: Response) -> Any:
    """Ask for the master's review of the account's seat in an ended match: 202 with its
    state while it waits or runs (read it again with GET), 200 with the result once done.
    Asking again never computes it again; a failed review, or one done by another master
    than today's, is queued again.  One unfinished review per account, a few per client
    address, a capped queue (429 otherwise)."""
    found = reviewer(request)
    address = client_key(request.scope, app.settings)

    def write() -> tuple[store.ReviewRow, str]:
        seat = _own_ended(app, match_id, guest)
        total = match_store.event_count(app.engine, match_id)
        current = current_reviewer()
        row, _ = store.request_review(
            app.engine,
            match_id,
            seat,
            guest,
            address=address,
            total=total,
            queue_cap=found.queue_cap,
            per_address=app.settings.reviews_per_address,
            current=current,
        )
        return row, current

    try:
        row, current = await asyncio.to_thread(write)
    except store.ReviewRefused as exc:
        body = ApiError(429, REFUSED[exc.reason], str(exc)).body()
        return JSONResponse(body, status_code=429, headers={"Retry-After": str(RETRY_AFTER_S)})
    if row.state == "queued":
        found.wake()
    response.status_code = 200 if row.state == "done" else 202
    return _status(row, found, current)


@router.get("/matches/{match_id}/review", responses=REVIEW_ERRORS)
async def get_review(match_id: str, guest: Guest, app: AppServices, request: Request) -> ReviewStatus:
    """The review of the account's seat in a match: its progress, then its result (what is
    stored: ``outdated`` when today's master would compute it again, on a POST)."""

    def read() -> tuple[store.ReviewRow, str]:
        seat = _own_ended(app, match_id, guest)
        row = store.get_review(app.engine, match_id, seat)
        if row is None:
            raise ApiError(404, "no_review", "no review of this match was asked for: POST to ask")
        return row, current_reviewer()

    row, current = await asyncio.to_thread(read)
    return _status(row, reviewer(request), current)
