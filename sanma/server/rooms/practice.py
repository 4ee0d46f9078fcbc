"""The practice room: one human against two bots, one asyncio task per room (the only writer).

Every step goes the same way (design.md, "The flow of one action"): a seat answers, the
engine applies it, the new events get versions ``v`` (1, 2, ... = position in the log), are
appended to the store, then go to every connection of the human redacted for its seat,
and to the bots.  Then the next awaited seat is asked: a bot through ``bots.base.ask`` in
a worker thread, the human through a numbered prompt.

A room is rebuilt from its stored log with ``replay`` (a reload, a reconnect, a restart):
the log holds every completed step, so the rebuilt match is at the same point.  Answers
inside a still-open window are not in the log (passes leave no event) and are asked again.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Engine

from sanma.bots.base import Player, ask
from sanma.engine.actions import Action, Pass
from sanma.engine.errors import IllegalAction
from sanma.engine.events import Event
from sanma.engine.kyoku import LegalActions
from sanma.engine.match import Match
from sanma.engine.replay import replay
from sanma.engine.visibility import redact
from sanma.server import protocol
from sanma.server.aids import prompt_aids
from sanma.server.codec import action_to_wire, event_from_store, event_to_store, event_to_wire, rules_from_json
from sanma.store import matches as store
from sanma.store.matches import MatchRecord

log = logging.getLogger(__name__)

BotFactory = Callable[[str, int, int], Player]
"""``(level, seat, seed) -> Player``; ``sanma.bots.registry.make_bot`` by default."""


class Outbox(Protocol):
    """Where a room puts frames for one connection; ``push`` never blocks."""

    def push(self, frame: dict[str, Any]) -> None:
        """Queue ``frame`` to be sent."""


@dataclass(frozen=True, slots=True)
class Prompt:
    """What the human is asked now: ``frame`` is sent as is; ``choices`` maps each legal
    action's wire form (as a JSON-comparable tuple) to the action."""

    seq: int
    frame: dict[str, Any]
    choices: dict[str, Action]


@dataclass(frozen=True, slots=True)
class _Reply:
    outbox: Outbox
    seq: int
    action: dict[str, Any]


def bot_seed(seed: int, seat: int) -> int:
    """A bot's own seed, derived from the match seed (so a rebuilt room gets the same bots)."""
    digest = hashlib.sha256(f"sanma-bot:{seed}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _key(wire: dict[str, Any]) -> str:
    return repr(sorted(wire.items()))


class PracticeRoom:
    """One practice match on the server; ``start()`` runs its task."""

    def __init__(
        self,
        record: MatchRecord,
        match: Match,
        engine: Engine,
        bots: dict[int, Player],
        *,
        bot_delay_s: float,
        bot_budget_s: float,
    ) -> None:
        self.record = record
        self.id = record.id
        self.seat = record.human_seat
        self.match = match
        self.red_fives = match.rules.red_fives
        self._engine = engine
        self._bots = bots
        self._bot_delay_s = bot_delay_s
        self._speed = 1.0  # the player's pacing choice (protocol.SPEEDS), kept while the room lives
        self._bot_budget_s = bot_budget_s
        # The log as published: frames for the human, in order (index = v - 1).
        self._frames: list[dict[str, Any]] = []
        self._outboxes: set[Outbox] = set()
        self._inbox: asyncio.Queue[_Reply] = asyncio.Queue()
        self._prompt: Prompt | None = None
        self._seq = 0
        self._task: asyncio.Task[None] | None = None
        self.failed: BaseException | None = None
        for event in match.events:
            self._fan_out_local(event)

    # -- building --------------------------------------------------------------------------

    @classmethod
    def rebuild(
        cls, record: MatchRecord, stored: list[dict[str, Any]], engine: Engine, make_bot: BotFactory, **timing: float
    ) -> PracticeRoom:
        """The room of a stored match, at the point its log ends (``replay`` checks the log)."""
        events = [event_from_store(e) for e in stored]
        match = replay(events) if events else Match(record.seed, rules_from_json(record.rules))
        bots = {s: make_bot(record.bot_level, s, bot_seed(record.seed, s)) for s in range(3) if s != record.human_seat}
        return cls(record, match, engine, bots, **timing)

    # -- connections -----------------------------------------------------------------------

    @property
    def v(self) -> int:
        """The version of the last published event."""
        return len(self._frames)

    @property
    def finished(self) -> bool:
        """Whether the match has ended."""
        return self.match.finished

    def join(self, outbox: Outbox, last_v: int) -> None:
        """Attach a connection: it gets the events after ``last_v``, then the current prompt.
        Synchronous, so no event can slip between the backlog and the live stream."""
        outbox.push(
            {
                "t": "welcome",
                "protocol": protocol.PROTOCOL_VERSION,
                "match": self.id,
                "seat": self.seat,
                "v": self.v,
                "bot_level": self.record.bot_level,
            }
        )
        self._send_from(outbox, last_v + 1)
        self._outboxes.add(outbox)

    def leave(self, outbox: Outbox) -> None:
        """Detach a connection (the match goes on waiting for the human)."""
        self._outboxes.discard(outbox)

    def resync(self, outbox: Outbox, from_v: int) -> None:
        """Send the events from ``from_v`` on again, then the current prompt."""
        self._send_from(outbox, max(1, from_v))

    def _send_from(self, outbox: Outbox, first_v: int) -> None:
        for v in range(first_v, self.v + 1):
            outbox.push(self._frames[v - 1])
        if self._prompt is not None:
            outbox.push(self._prompt.frame)

    def set_speed(self, speed: str) -> None:
        """Pace the bots as the player asked (``protocol.SPEEDS``); the next bot move uses it."""
        self._speed = protocol.SPEEDS[speed]

    @property
    def bot_delay_s(self) -> float:
        """Seconds before a bot's turn action at the current speed."""
        return self._bot_delay_s * self._speed

    def submit(self, outbox: Outbox, seq: int, action: dict[str, Any]) -> None:
        """A connection's answer to prompt ``seq`` (already schema-checked)."""
        self._inbox.put_nowait(_Reply(outbox, seq, action))

    # -- the task --------------------------------------------------------------------------

    def start(self) -> asyncio.Task[None]:
        """Run the room until the match ends (or the room fails, alone)."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"room-{self.id}")
        return self._task

    async def stop(self) -> None:
        """Cancel the task (server shutdown); the stored log is already complete."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        try:
            while not self.match.finished:
                await self._step()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a failing room ends alone, never the process
            log.exception("room %s failed", self.id)
            self.failed = exc
            for outbox in list(self._outboxes):
                outbox.push(protocol.error_frame(protocol.ROOM_FAILED, "the match stopped; reconnect to resume"))

    async def _step(self) -> None:
        awaited = self.match.awaiting()
        bots = [s for s in awaited if s != self.seat]
        if bots:
            seat = bots[0]
            legal = self.match.legal_actions(seat)
            if self.bot_delay_s > 0 and Pass() not in legal:
                await asyncio.sleep(self.bot_delay_s)
            answer = await asyncio.to_thread(ask, self._bots[seat], legal, self._bot_budget_s)
            await self._apply(seat, answer.action)
            return
        action = await self._ask_human(self.match.legal_actions(self.seat))
        await self._apply(self.seat, action)

    async def _ask_human(self, legal: LegalActions) -> Action:
        self._seq += 1
        choices = {_key(action_to_wire(a, self.red_fives)): a for a in legal}
        assert legal.default is not None
        frame = {
            "t": "prompt",
            "seq": self._seq,
            "v": self.v,
            "legal": [action_to_wire(a, self.red_fives) for a in legal],
            "default": action_to_wire(legal.default, self.red_fives),
            "aids": prompt_aids(self.match.kyoku, self.seat),
        }
        self._prompt = Prompt(self._seq, frame, choices)
        self._broadcast(frame)
        while True:
            reply = await self._inbox.get()
            if reply.seq != self._seq:
                reply.outbox.push(
                    protocol.error_frame(protocol.STALE_SEQ, f"the current prompt is {self._seq}", seq=reply.seq)
                )
                continue
            action = choices.get(_key(reply.action))
            if action is None:
                reply.outbox.push(
                    protocol.error_frame(protocol.ILLEGAL_ACTION, "not one of the legal actions", seq=reply.seq)
                )
                reply.outbox.push(frame)
                continue
            self._prompt = None
            return action

    async def _apply(self, seat: int, action: Action) -> None:
        try:
            events = self.match.apply(seat, action)
        except IllegalAction:
            # Only actions from the legal list get here; should the engine still refuse,
            # the default keeps the match going.
            default = self.match.legal_actions(seat).default
            assert default is not None
            log.warning("room %s: seat %d %s refused; default %s", self.id, seat, action, default)
            events = self.match.apply(seat, default)
        if not events:
            return
        first_v = self.v + 1
        stored = [event_to_store(e) for e in events]
        await asyncio.to_thread(store.append_events, self._engine, self.id, first_v, stored, ended=self.match.finished)
        for event in events:
            frame = self._fan_out_local(event)
            self._broadcast(frame)

    def _fan_out_local(self, event: Event) -> dict[str, Any]:
        """Version the event, keep the human's frame, show it to the bots (each redacted)."""
        frame = protocol.event_frame(self.v + 1, event_to_wire(redact(event, self.seat), self.red_fives))
        self._frames.append(frame)
        for seat, bot in self._bots.items():
            bot.observe(redact(event, seat))
        return frame

    def _broadcast(self, frame: dict[str, Any]) -> None:
        for outbox in list(self._outboxes):
            outbox.push(frame)
