"""The break between hands (``docs/rooms.md``, "Between hands"): the next hand is dealt only
once every human seat is ready (its player pressed "Next hand", or, in a friend room, the
seat is away or on autoplay) or the room's countdown ran out; practice has no countdown.

The engine deals the next hand in the same step as the result of the last one
(``Match.apply``), so a table splits that step's events (``split_deal``): the result is stored
and shown at once, the deal is held here and stored and shown only when the break ends.
Nothing of the next hand exists for anybody before: no event, no prompt, no bot move, no
seat clock.  The log of a table between hands therefore ends with a hand's result;
``replay_stored`` rebuilds such a match and deals the held hand again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sanma.engine.errors import IllegalAction, InvalidLog
from sanma.engine.events import Event, HandAborted, HandDrawn, HandStarted, HandWon
from sanma.engine.match import Match
from sanma.engine.replay import implied_actions, replay
from sanma.server import protocol

# A friend room's countdown when its options name none (seconds).
DEFAULT_BREAK_S = 15.0
# A step's events before the result: at most a discard, a call, dora and riichi (``replay_stored``).
_LONGEST_STEP = 12


@dataclass(slots=True)
class HandBreak:
    """One break: ``v`` is the version of the hand's last shown event, ``held`` the next
    hand's events (dealt, not stored yet), ``deadline`` when the countdown ends (monotonic
    seconds; ``None``: no countdown, it waits), ``pressed`` the seats whose player pressed
    "Next hand"; ``shown`` the ready seats the players were last told of."""

    v: int
    held: list[Event]
    deadline: float | None
    pressed: set[int] = field(default_factory=set)
    shown: tuple[int, ...] = ()

    def press(self, seat: int, v: int) -> bool:
        """Seat ``seat`` pressed "Next hand" having seen the events up to ``v``; whether that
        counts now (a press for an earlier break, or a repeat, does not)."""
        if v < self.v or seat in self.pressed:
            return False
        self.pressed.add(seat)
        return True

    def ready(self, seats: Iterable[int], counts_as_ready: Iterable[int]) -> list[int]:
        """Of human ``seats``, those ready: pressed, or in ``counts_as_ready`` (away, autoplay)."""
        others = set(counts_as_ready)
        return [s for s in seats if s in self.pressed or s in others]

    def left_s(self, now: float) -> float | None:
        """Seconds until the countdown ends (``None``: no countdown)."""
        return None if self.deadline is None else max(0.0, self.deadline - now)

    def frame(self, seats: Sequence[int], ready: Sequence[int], now: float) -> protocol.HandBreak:
        """The ``hand_break`` frame for this moment."""
        waiting = tuple(s for s in seats if s not in ready)
        return protocol.HandBreak(self.v, tuple(ready), waiting, self.left_s(now))


def split_deal(events: list[Event]) -> tuple[list[Event], list[Event]]:
    """One step's events cut before the next hand's deal: what is shown now (the result) and
    what waits for the break's end (``[]``: the step deals no new hand)."""
    for i, event in enumerate(events):
        if i > 0 and isinstance(event, HandStarted):
            return events[:i], events[i:]
    return events, []


def _ends_a_hand(events: Sequence[Event]) -> bool:
    return bool(events) and isinstance(events[-1], HandWon | HandDrawn | HandAborted)


def replay_stored(events: Sequence[Event]) -> tuple[Match, int]:
    """The match a stored log records and how many of its events were stored (the rest of
    ``match.events`` is the next hand's deal, held by a break).  A log that ends with a
    hand's result ends inside the engine's step: the step is played again from its start, so
    the engine deals the next hand exactly as it did.  Raises ``InvalidLog`` as ``replay``."""
    try:
        return replay(events), len(events)
    except InvalidLog:
        if not _ends_a_hand(events):
            raise
    for start in range(len(events) - 1, max(0, len(events) - _LONGEST_STEP), -1):
        try:
            match = replay(events[:start])  # succeeds at a step's boundary only
        except InvalidLog:
            continue
        try:
            for seat, action in implied_actions(match, events, start):
                match.apply(seat, action)
        except IllegalAction as exc:
            raise InvalidLog(f"event {start}: the last step does not play again ({exc})") from exc
        if match.events[: len(events)] == list(events) and len(match.events) > len(events):
            return match, len(events)
        break
    raise InvalidLog("the log ends inside a step that is not a hand's end")
