"""Who sees a table and what: each human seat's log redacted for it, with the seat's
connections, and a friend room's spectators (``docs/rooms.md``, "Spectators").

Spectators watch live by default: each event as it happens, redacted for nobody (no concealed
tile, no seed), which every player already sees, so it can help nobody.  A room whose host
turned on "open hands for watchers" (``open_hands``) shows them every tile instead, and
then a whole hand behind: a hand is released once the next one starts (or the match ends)
and played back at the pace it was played, event by event, so a watcher could never pass a
hand to an opponent while it is played.

Each event is encoded once per distinct view and the text is shared by every connection of
that view; the fair-wall frames (``FairWalls``) follow the event they belong to."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Final, Protocol

from sanma.engine.events import Event, HandStarted, MatchEnded, MatchStarted
from sanma.engine.visibility import redact
from sanma.server import protocol
from sanma.server.codec import event_to_wire
from sanma.server.rooms.fairwalls import FairWalls

# Open hands: the longest pause between two events of a hand played back while a later hand is
# already released too (the table played it faster): the watcher catches up instead of
# falling further behind.
CATCH_UP_S: Final = 0.25


class Outbox(Protocol):
    """Where a room puts frames for one connection; ``push`` never blocks."""

    def push(self, frame: protocol.ServerFrame) -> None:
        """Queue ``frame`` to be sent (a frame, or JSON text that other outboxes share)."""

    def push_many(self, frames: list[str]) -> None:
        """Queue a backlog (a join's or a resync's events, in order)."""


class Audience:
    """The connections of one table and the logs they are sent (see the module docstring).
    ``watchable``: spectators are kept a public log (a friend room's); ``open_hands``: it
    shows every tile, a hand behind; ``clock``: when events happen (the playback's pace)."""

    def __init__(
        self,
        seats: Iterable[int],
        *,
        red_fives: bool,
        watchable: bool,
        seed: int,
        open_hands: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._red_fives = red_fives
        self._watchable = watchable
        self.open_hands = watchable and open_hands
        self._clock = clock
        # Each human seat's redacted log as JSON text (index = v - 1) and its connections.
        self._frames: dict[int, list[str]] = {s: [] for s in seats}
        self._outboxes: dict[int, set[Outbox]] = {s: set() for s in self._frames}
        # The seat of every joined connection: given at join, never taken from a message.
        self._seat_of: dict[Outbox, int] = {}
        # Spectators and their log (index = v - 1): sent up to ``public_until``.  Live, that is
        # every event; with open hands, what the playback has reached, never past ``_released``
        # (the end of the last finished hand).
        self._watchers: set[Outbox] = set()
        self._public: list[str] = []
        self.public_until = 0
        self._released = 0
        # Open hands: when each event happened (index = v - 1), and the released versions not
        # yet played back, each with the moment it was released.
        self._stamps: list[float] = []
        self._queue: deque[tuple[int, float]] = deque()
        self._queued = 0  # the last version put in the queue (or shown)
        self._playback: asyncio.Task[None] | None = None
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
        """A spectator gets each event shown to spectators from now on."""
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
        """Version ``event`` and keep each view's text of it, nothing sent (a rebuilt room's
        log: what spectators may see of it counts as shown); its version."""
        v = self._keep(event)
        self.public_until = self._queued = self._released
        return v

    def publish(self, event: Event) -> None:
        """Keep the event as ``record`` does, then send it to every seat's connections (with its
        fair-wall frames) and to the spectators: live at once, with open hands the hand it
        ends once played back."""
        v = self._keep(event)
        fair = self.fair.after(v)
        for seat, outboxes in self._outboxes.items():
            frame = self._frames[seat][-1]
            for outbox in list(outboxes):
                outbox.push(frame)
                for extra in fair:
                    outbox.push(extra)
        if self.open_hands:
            self._play_back()
        elif self._watchable:
            self._show(v)

    def close(self) -> None:
        """Stop the playback (the room stops here)."""
        if self._playback is not None:
            self._playback.cancel()

    def _keep(self, event: Event) -> int:
        v = self.v + 1
        encoded: dict[str, str] = {}  # views that see the event alike share one text
        for seat, frames in self._frames.items():
            frames.append(self._text(v, redact(event, seat), encoded))
        self.fair.observe(v, event)
        if not self._watchable:
            return v
        self._public.append(self._text(v, self._shown(event), encoded))
        if not self.open_hands:
            self._released = v
            return v
        self._stamps.append(self._clock())
        if isinstance(event, HandStarted):
            self._released = v - 1
        elif isinstance(event, MatchEnded):
            self._released = v
        return v

    def _shown(self, event: Event) -> Event:
        """``event`` as spectators see it: redacted for nobody; with open hands every tile,
        but not the seed (it deals every later wall of the match)."""
        if not self.open_hands or isinstance(event, MatchStarted):
            return redact(event, None)
        return event

    def _show(self, v: int) -> None:
        """Send spectators event ``v`` (the one after ``public_until``) with its fair-wall frames."""
        self.public_until = v
        frame = self._public[v - 1]
        fair = self.fair.after(v)
        for outbox in list(self._watchers):
            outbox.push(frame)
            for extra in fair:
                outbox.push(extra)

    def _play_back(self) -> None:
        """Queue the versions just released and make sure the playback runs."""
        now = self._clock()
        for v in range(self._queued + 1, self._released + 1):
            self._queue.append((v, now))
        self._queued = max(self._queued, self._released)
        if self._queue and (self._playback is None or self._playback.done()):
            self._playback = asyncio.get_running_loop().create_task(self._play(), name="spectator-playback")

    async def _play(self) -> None:
        """Show the queued events at the pace they happened: each one no earlier than it was
        released and the same time after the one before as at the table (at most
        ``CATCH_UP_S`` while a later hand waits behind it)."""
        last = self._clock()
        while self._queue:
            v, released_at = self._queue[0]
            gap = self._stamps[v - 1] - self._stamps[v - 2] if v >= 2 else 0.0
            if self._queue[-1][1] > released_at:
                gap = min(gap, CATCH_UP_S)
            due = max(last + gap, released_at)
            wait = due - self._clock()
            if wait > 0:
                await asyncio.sleep(wait)
            self._queue.popleft()
            self._show(v)
            last = due

    def _text(self, v: int, shown: Event, encoded: dict[str, str]) -> str:
        """Event ``v`` as a view sees it (``shown``) as JSON text, one shared text per distinct
        view (``encoded``)."""
        text = protocol.EventFrame(v, event_to_wire(shown, self._red_fives)).encode()
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
