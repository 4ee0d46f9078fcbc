"""Who sees a table and what: each human seat's log redacted for it, with the seat's
connections, and a friend room's spectators with the log redacted for nobody, a hand behind.
Each event is encoded once per distinct view and the text is shared by every connection of
that view; the fair-wall frames (``FairWalls``) follow the event they belong to."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from sanma.engine.events import Event, HandStarted, MatchEnded
from sanma.engine.visibility import redact
from sanma.server import protocol
from sanma.server.codec import event_to_wire
from sanma.server.rooms.fairwalls import FairWalls


class Outbox(Protocol):
    """Where a room puts frames for one connection; ``push`` never blocks."""

    def push(self, frame: protocol.ServerFrame) -> None:
        """Queue ``frame`` to be sent (a frame, or JSON text that other outboxes share)."""

    def push_many(self, frames: list[str]) -> None:
        """Queue a backlog (a join's or a resync's events, in order)."""


class Audience:
    """The connections of one table and the logs they are sent (see the module docstring).
    ``watchable``: spectators are kept a public log (a friend room's)."""

    def __init__(self, seats: Iterable[int], *, red_fives: bool, watchable: bool, seed: int) -> None:
        self._red_fives = red_fives
        self._watchable = watchable
        # Each human seat's redacted log as JSON text (index = v - 1) and its connections.
        self._frames: dict[int, list[str]] = {s: [] for s in seats}
        self._outboxes: dict[int, set[Outbox]] = {s: set() for s in self._frames}
        # The seat of every joined connection: given at join, never taken from a message.
        self._seat_of: dict[Outbox, int] = {}
        # Spectators: the log redacted for nobody, shown up to ``public_until``, the version
        # before the hand in play (they see each hand once the next one starts).
        self._watchers: set[Outbox] = set()
        self._public: list[str] = []
        self.public_until = 0
        self.fair = FairWalls(seed)

    @property
    def v(self) -> int:
        """The version of the last recorded event."""
        return len(next(iter(self._frames.values())))

    # -- connections -------------------------------------------------------------------------

    def connected(self, seat: int) -> bool:
        """Whether human ``seat`` has a connection."""
        return bool(self._outboxes[seat])

    def seat_of(self, outbox: Outbox) -> int | None:
        """The seat a connection joined (``None``: a spectator, or gone)."""
        return self._seat_of.get(outbox)

    def watching(self, outbox: Outbox) -> bool:
        """Whether ``outbox`` is a spectator's."""
        return outbox in self._watchers

    @property
    def empty(self) -> bool:
        """Whether no connection is attached."""
        return not self._seat_of and not self._watchers

    def attach(self, seat: int, outbox: Outbox) -> None:
        """A connection of ``seat`` gets every frame of the seat's from now on."""
        self._outboxes[seat].add(outbox)
        self._seat_of[outbox] = seat

    def attach_watcher(self, outbox: Outbox) -> None:
        """A spectator gets each hand once it is over, from now on."""
        self._watchers.add(outbox)

    def detach(self, outbox: Outbox) -> int | None:
        """Forget a connection; the seat it held (``None``: a spectator's, or unknown)."""
        self._watchers.discard(outbox)
        seat = self._seat_of.pop(outbox, None)
        if seat is not None:
            self._outboxes[seat].discard(outbox)
        return seat

    # -- what they are sent --------------------------------------------------------------------

    def backlog(self, seat: int, first_v: int) -> list[str]:
        """Seat ``seat``'s events from ``first_v`` on, with their fair-wall frames."""
        frames = self._frames[seat]
        return self.fair.interleave(frames, first_v, len(frames))

    def public_backlog(self, first_v: int) -> list[str]:
        """The spectators' events from ``first_v`` to ``public_until``, with their fair-wall frames."""
        return self.fair.interleave(self._public, first_v, self.public_until)

    def record(self, event: Event) -> int:
        """Version ``event`` and keep each view's text of it (nothing is sent); its version."""
        v = self.v + 1
        encoded: dict[str, str] = {}  # views that see the event alike share one text
        for seat, frames in self._frames.items():
            frames.append(self._text(v, event, seat, encoded))
        self.fair.observe(v, event)
        if self._watchable:
            self._public.append(self._text(v, event, None, encoded))
            if isinstance(event, HandStarted):
                self.public_until = v - 1
            elif isinstance(event, MatchEnded):
                self.public_until = v
        return v

    def publish(self, event: Event) -> None:
        """``record`` the event, then send it to every seat's connections (with its fair-wall
        frames), and to the spectators the hands it made public."""
        shown = self.public_until
        v = self.record(event)
        fair = self.fair.after(v)
        for seat, outboxes in self._outboxes.items():
            frame = self._frames[seat][-1]
            for outbox in list(outboxes):
                outbox.push(frame)
                for extra in fair:
                    outbox.push(extra)
        for public_v in range(shown + 1, self.public_until + 1):
            for outbox in list(self._watchers):
                outbox.push(self._public[public_v - 1])
                for extra in self.fair.after(public_v):
                    outbox.push(extra)

    def _text(self, v: int, event: Event, seat: int | None, encoded: dict[str, str]) -> str:
        """Event ``v`` redacted for ``seat`` (``None``: for nobody) as JSON text, one shared
        text per distinct view (``encoded``)."""
        text = protocol.EventFrame(v, event_to_wire(redact(event, seat), self._red_fives)).encode()
        return encoded.setdefault(text, text)

    def send_seat(self, seat: int, frame: protocol.Frame) -> None:
        """``frame`` to every connection of ``seat``."""
        for outbox in list(self._outboxes[seat]):
            outbox.push(frame)

    def broadcast(self, frame: protocol.Frame, *, but: int | None = None) -> None:
        """``frame`` to every connection (but those of seat ``but``) and every spectator."""
        for seat, outboxes in self._outboxes.items():
            if seat != but:
                for outbox in list(outboxes):
                    outbox.push(frame)
        for outbox in list(self._watchers):
            outbox.push(frame)
