"""The seat clock: a human seat's turn timer and time bank, pure arithmetic.

Nothing here reads a clock or sleeps: every call is given the time (seconds on a monotonic
clock), so the rules of time are tested with plain numbers (``tests/test_seat_clock.py``):

- a prompt leaves ``turn_s`` of the turn, then whatever is left of the hand's ``bank_s``
  (filled again at each hand's start); an answer late into the bank spends that much of it;
- a prompt that runs out gets its default action, empties the bank and counts a timeout;
  ``timeouts_to_auto`` timeouts in a row hand the seat to autoplay, whose stand-in answers
  after the bots' delay;
- a seat with no connection waits ``away_grace_s`` (from the prompt, or from when it left)
  before its default action, or, where the table pauses for an absent player (practice), its
  clock stands still and starts again from a full turn when the player is back.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from sanma.server.protocol import Timer


@dataclass(frozen=True, slots=True)
class TurnTimers:
    """A table's timers: ``turn_s`` per action, then a ``bank_s`` per hand; ``timeouts_to_auto``
    timeouts in a row hand the seat to autoplay; a seat with no connection waits
    ``away_grace_s`` before its default action.  ``turn_clock`` off (a room's host chose "off"):
    no prompt runs out while its seat is connected, and none shows a timer; the away grace
    still applies, so a room never waits forever on a player who left."""

    turn_s: float
    bank_s: float
    timeouts_to_auto: int
    away_grace_s: float
    turn_clock: bool = True

    def to_json(self) -> dict[str, Any]:
        """The stored form."""
        return {
            "turn_s": self.turn_s,
            "bank_s": self.bank_s,
            "timeouts_to_auto": self.timeouts_to_auto,
            "away_grace_s": self.away_grace_s,
            "turn_clock": self.turn_clock,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TurnTimers:
        """Read the stored form back."""
        return cls(
            float(data["turn_s"]),
            float(data["bank_s"]),
            int(data["timeouts_to_auto"]),
            float(data["away_grace_s"]),
            bool(data.get("turn_clock", True)),  # stored before the choice: on
        )

    def chosen(self, choice: str | None) -> TurnTimers:
        """These timers as a room's host chose them (``TURN_TIMERS``; ``None``: unchanged)."""
        if choice is None:
            return self
        if choice == "off":
            return replace(self, turn_clock=False)
        turn_s, bank_s = TURN_TIMERS[choice]
        return replace(self, turn_s=turn_s, bank_s=bank_s, turn_clock=True)


# The turn timers a room's host may choose (``docs/rooms.md``): "off", or turn + bank seconds.
TURN_TIMERS: dict[str, tuple[float, float]] = {"5+10": (5.0, 10.0), "10+20": (10.0, 20.0), "20+40": (20.0, 40.0)}


class SeatClock:
    """One human seat's time.  ``timers`` ``None``: no timers (the seat is simply waited for);
    ``pauses_when_away``: with no connection the clock stands still instead of running out."""

    __slots__ = ("asked_at", "away_since", "bank_s", "pauses_when_away", "timeouts", "timers")

    def __init__(self, timers: TurnTimers | None, *, pauses_when_away: bool, now: float) -> None:
        self.timers = timers
        self.pauses_when_away = pauses_when_away
        self.bank_s = 0.0 if timers is None else timers.bank_s
        self.timeouts = 0
        self.asked_at: float | None = None  # when the open prompt was asked (None: no prompt)
        self.away_since = now

    # -- what happens ---------------------------------------------------------------------------

    def new_hand(self) -> None:
        """A hand starts: the bank is full again."""
        if self.timers is not None:
            self.bank_s = self.timers.bank_s

    def ask(self, now: float) -> None:
        """A prompt is asked now."""
        self.asked_at = now

    def close(self) -> None:
        """The prompt is gone (answered, expired, or no longer awaited)."""
        self.asked_at = None

    def left(self, now: float) -> Timer | None:
        """What the open prompt leaves of the turn and of the bank (``None``: no timers)."""
        if self.timers is None or not self.timers.turn_clock or self.asked_at is None:
            return None
        elapsed = max(0.0, now - self.asked_at)
        turn_left = max(0.0, self.timers.turn_s - elapsed)
        bank_left = self.bank_s - max(0.0, elapsed - self.timers.turn_s)
        return Timer(turn_left, max(0.0, bank_left))

    def deadline(self, *, connected: bool, auto: bool, standin_delay_s: float) -> float | None:
        """When the open prompt gets its default action (``None``: never; it waits for an answer)."""
        if self.timers is None or self.asked_at is None:
            return None
        if auto:
            return self.asked_at + standin_delay_s
        if not connected and self.pauses_when_away:
            return None
        away = max(self.asked_at, self.away_since) + self.timers.away_grace_s
        if not self.timers.turn_clock:
            return None if connected else away
        deadline = self.asked_at + self.timers.turn_s + self.bank_s
        if not connected:
            deadline = min(deadline, away)
        return deadline

    def answered(self, now: float) -> None:
        """An answer came now: the time past the turn comes out of the bank; no timeout in a row."""
        if self.timers is not None and self.asked_at is not None:
            over = now - self.asked_at - self.timers.turn_s
            self.bank_s = max(0.0, self.bank_s - max(0.0, over))
        self.asked_at = None
        self.timeouts = 0

    def timed_out(self) -> bool:
        """The prompt ran out with its player at the table: the bank is spent and one more
        timeout counts; whether the seat now goes to autoplay."""
        self.asked_at = None
        self.bank_s = 0.0
        self.timeouts += 1
        return self.timers is not None and self.timeouts >= self.timers.timeouts_to_auto

    def resumed(self) -> None:
        """The player took the seat back from autoplay: no timeout in a row."""
        self.timeouts = 0

    def left_table(self, now: float) -> None:
        """The seat's last connection went now (the away grace counts from here)."""
        self.away_since = now

    def back(self, now: float, *, connected_before: bool) -> bool:
        """A connection of the seat's is here (a reconnect ends a run of timeouts); where the
        clock paused while nobody was there, the open prompt starts again from a full turn.
        Whether the open prompt's deadline moved."""
        self.timeouts = 0
        if self.pauses_when_away and not connected_before and self.asked_at is not None and self.timers is not None:
            self.asked_at = now
            return True
        return False


def first_deadline(deadlines: dict[int, float], now: float) -> tuple[int, float] | None:
    """The seat whose deadline comes first and the seconds until it (0: it is past); ``None``
    when no seat has one.

    >>> first_deadline({0: 12.0, 2: 10.5}, now=10.0)
    (2, 0.5)
    """
    if not deadlines:
        return None
    seat = min(deadlines, key=lambda s: deadlines[s])
    return seat, max(0.0, deadlines[seat] - now)
