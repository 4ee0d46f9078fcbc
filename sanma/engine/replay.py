"""``replay(events)``: rebuild a ``Match`` from its (unredacted) event log.

The log is the source of truth (design principle 8), but the state is rebuilt by playing
the actions again through the same rules code, never by trusting the log: each event
names the action that caused it, and the engine must then produce exactly the logged
events, or the log is rejected with ``InvalidLog``.

Which action each event implies:

* on a seat's turn: ``TileDiscarded`` -> ``Discard(tile, riichi)``; an added or closed kan
  ``MeldCalled`` -> ``Kan(kind)``; ``KitaDeclared`` -> ``Kita``; a ``HandWon`` by the seat
  on its own draw -> ``Tsumo``; ``HandAborted`` (nine terminals) -> ``NineTerminals``.
  A ``DoraRevealed`` in front of these is the pending kan dora and implies nothing;
* in a decision window: the ``HandWon`` events that follow -> ``Ron`` for each winner;
  else a pon or open kan ``MeldCalled`` -> ``Pon``/``Kan`` for the caller; every other
  awaited seat passes.  (Passes leave no event of their own.)

A ``MatchEnded`` where a step would start is an operator's end (``Match.end_now``): the
hand in progress is abandoned and the engine's own ``MatchEnded`` must equal the logged one.
"""

from __future__ import annotations

from collections.abc import Sequence

from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pass, Pon, Ron, Tsumo
from sanma.engine.errors import IllegalAction, InvalidLog
from sanma.engine.events import (
    DoraRevealed,
    Event,
    HandAborted,
    HandWon,
    KitaDeclared,
    MatchEnded,
    MatchStarted,
    MeldCalled,
    RiichiAccepted,
    TileDiscarded,
)
from sanma.engine.hand import MeldType
from sanma.engine.match import DealSource, Match
from sanma.engine.tiles import is_red
from sanma.engine.visibility import HIDDEN_SEED


def replay(events: Sequence[Event], *, deals: DealSource | None = None) -> Match:
    """The match that ``events`` record, rebuilt action by action.  ``deals`` must be given
    when the match was played from scripted deals rather than its seed.  Raises
    ``InvalidLog`` when the log is redacted, inconsistent, or ends inside a step."""
    if not events or not isinstance(events[0], MatchStarted):
        raise InvalidLog("a match log starts with MatchStarted")
    start = events[0]
    if start.seed == HIDDEN_SEED:
        raise InvalidLog("this log is redacted (its seed is hidden): only a full log can be replayed")
    match = Match(start.seed, start.rules, deals=deals, salt=start.salt)
    pos = 0
    while True:
        _expect_same(match.events, events, pos)
        pos = len(match.events)
        if pos == len(events):
            return match
        if match.finished:
            raise InvalidLog(f"event {pos}: the log goes on after the match ended")
        if isinstance(events[pos], MatchEnded):
            match.end_now()  # an operator's end between two steps; _expect_same checks it
            continue
        for seat, action in implied_actions(match, events, pos):
            try:
                match.apply(seat, action)
            except IllegalAction as exc:
                raise InvalidLog(f"event {pos}: seat {seat} may not {action} here ({exc})") from exc


def implied_actions(match: Match, events: Sequence[Event], pos: int) -> list[tuple[int, Action]]:
    """The actions (seat, action) that make the current state produce ``events[pos:]``'s
    next step: one action on a turn, one answer per awaited seat in a window."""
    awaited = match.awaiting()
    if not awaited:
        raise InvalidLog(f"event {pos}: no seat is awaited")
    if match.kyoku.phase != "window":
        seat = awaited[0]
        i = _next_index(events, pos, (DoraRevealed,))
        return [(seat, _turn_action(seat, events[i] if i < len(events) else None))]
    i = _next_index(events, pos, (DoraRevealed, RiichiAccepted))
    nxt = events[i] if i < len(events) else None
    answers: dict[int, Action] = {}
    if isinstance(nxt, HandWon):
        # A double ron is consecutive HandWon events.
        for event in events[i:]:
            if not isinstance(event, HandWon):
                break
            answers[event.seat] = Ron()
    elif isinstance(nxt, MeldCalled) and nxt.meld.type in (MeldType.PON, MeldType.DAIMINKAN):
        answers[nxt.seat] = _call_action(match, nxt)
    return [(s, answers.get(s, Pass())) for s in awaited]


def _next_index(events: Sequence[Event], pos: int, skip: tuple[type, ...]) -> int:
    """The index of the first event from ``pos`` on that is not of a ``skip`` type."""
    while pos < len(events) and isinstance(events[pos], skip):
        pos += 1
    return pos


def _turn_action(seat: int, event: Event | None) -> Action:
    if isinstance(event, TileDiscarded) and event.seat == seat:
        return Discard(event.tile, event.riichi)
    if isinstance(event, MeldCalled) and event.seat == seat and event.meld.type in (MeldType.ANKAN, MeldType.KAKAN):
        return Kan(event.meld.kind)
    if isinstance(event, KitaDeclared) and event.seat == seat:
        return Kita()
    if isinstance(event, HandWon) and event.seat == seat == event.from_seat:
        return Tsumo()
    if isinstance(event, HandAborted) and event.reason == "nine_terminals" and event.seat == seat:
        return NineTerminals()
    raise InvalidLog(f"{event!r} is not an action of seat {seat} on its turn")


def _call_action(match: Match, event: MeldCalled) -> Action:
    meld = event.meld
    if meld.type is MeldType.DAIMINKAN:
        return Kan(meld.kind)
    used = [t for t in meld.tiles if t != meld.called]
    return Pon(meld.kind, red=any(is_red(t, match.rules.red_fives) for t in used))


def _expect_same(produced: Sequence[Event], logged: Sequence[Event], pos: int) -> None:
    """The engine's events from ``pos`` on must be the log's."""
    mine = list(produced[pos:])
    theirs = list(logged[pos : len(produced)])
    if len(theirs) < len(mine):
        raise InvalidLog(f"event {pos + len(theirs)}: the log ends inside a step")
    for offset, (a, b) in enumerate(zip(mine, theirs, strict=True)):
        if a != b:
            raise InvalidLog(f"event {pos + offset}: the rules give {a!r}, the log has {b!r}")
