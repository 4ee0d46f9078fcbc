"""A table on the server: one match with 1-3 human seats and bots elsewhere, run by one
asyncio task (the only writer).  A practice match is the case of one human and no timers
(``rooms/practice.py``); a friend room's match (``docs/rooms.md``) has up to three humans,
turn timers and autoplay for seats that time out or lose their connection.

Every step goes the same way (design.md, "The flow of one action"): a seat answers, the
engine applies it, the new events get versions ``v`` (1, 2, ... = position in the log), are
appended to the store, then go to every connection of every human seat, each redacted for
its own seat, and to the bots.  Then the awaited seats are asked: a bot through
``bots.base.ask`` in a worker thread, each human through a numbered prompt of its own.

The seat of a connection is given by the gateway (from the guest of the hello token) when
it joins, and every answer counts for that seat only: a message never names its seat.

A room is rebuilt from its stored log with ``replay`` (a reload, a reconnect, a restart):
the log holds every completed step, so the rebuilt match is at the same point.  Answers
inside a still-open window are not in the log (passes leave no event) and are asked again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy import Engine

from sanma.bots.base import Player, ask
from sanma.engine import fairness
from sanma.engine.actions import Action, Pass
from sanma.engine.errors import IllegalAction
from sanma.engine.events import Event, HandAborted, HandDrawn, HandStarted, HandWon, MatchEnded, MatchStarted
from sanma.engine.kyoku import LegalActions
from sanma.engine.match import Match
from sanma.engine.replay import replay
from sanma.engine.visibility import redact
from sanma.engine.wall import WALL_ALGORITHM, deal_from_seed
from sanma.server import protocol
from sanma.server.aids import prompt_aids
from sanma.server.aio import cancel_and_wait
from sanma.server.codec import action_to_wire, event_from_store, event_to_store, event_to_wire, rules_from_json
from sanma.store import accounts
from sanma.store import matches as store
from sanma.store import rooms as room_store
from sanma.store.matches import MatchRecord

log = logging.getLogger(__name__)

BotFactory = Callable[[str, int, int], Player]
"""``(level, seat, seed) -> Player``; ``sanma.bots.registry.make_bot`` by default."""

Clock = Callable[[], float]
"""Seconds on a monotonic clock (``time.monotonic``)."""

# What the others see of a seat (``presence`` frames).
# The error code of an answer sent by a spectator.
SPECTATOR = "spectator"

# The bot level that plays a human seat on autoplay.
STANDIN_LEVEL = "normal"

CONNECTED = "connected"
AWAY = "away"  # a human seat with no connection: plays on by default actions after a grace
AUTO = "auto"  # a human seat handed to autoplay after timeouts in a row, until its player returns
BOT = "bot"


class Outbox(Protocol):
    """Where a room puts frames for one connection; ``push`` never blocks."""

    def push(self, frame: protocol.ServerFrame) -> None:
        """Queue ``frame`` to be sent (a dict, or JSON text that other outboxes share)."""

    def push_many(self, frames: list[str]) -> None:
        """Queue a backlog (a join's or a resync's events, in order)."""


@dataclass(frozen=True, slots=True)
class TurnTimers:
    """A room's timers: ``turn_s`` per action, then a ``bank_s`` per hand; ``timeouts_to_auto``
    timeouts in a row hand the seat to autoplay; a seat with no connection waits
    ``away_grace_s`` before its default action."""

    turn_s: float
    bank_s: float
    timeouts_to_auto: int
    away_grace_s: float

    def to_json(self) -> dict[str, Any]:
        """The stored form."""
        return {
            "turn_s": self.turn_s,
            "bank_s": self.bank_s,
            "timeouts_to_auto": self.timeouts_to_auto,
            "away_grace_s": self.away_grace_s,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TurnTimers:
        """Read the stored form back."""
        return cls(
            float(data["turn_s"]), float(data["bank_s"]), int(data["timeouts_to_auto"]), float(data["away_grace_s"])
        )


@dataclass(frozen=True, slots=True)
class Prompt:
    """What a human seat is asked now: ``frame`` is sent as is (with the timer's remaining
    time filled in); ``choices`` maps each legal action's wire form to the action."""

    seq: int
    frame: dict[str, Any]
    choices: dict[str, Action]
    asked_at: float


@dataclass(slots=True)
class HumanSeat:
    """The room's view of one human seat."""

    guest_id: str
    # Its redacted log as JSON text (index = v - 1): encoded once, pushed to every connection.
    frames: list[str] = field(default_factory=list)
    outboxes: set[Outbox] = field(default_factory=set)
    prompt: Prompt | None = None
    away_since: float = 0.0
    bank_s: float = 0.0
    timeouts: int = 0
    auto: bool = False


@dataclass(frozen=True, slots=True)
class _Reply:
    outbox: Outbox
    seq: int
    action: dict[str, Any]


class _Wake:
    """Put in the inbox so the task looks at presence and deadlines again."""


def bot_seed(seed: int, seat: int) -> int:
    """A bot's own seed, derived from the match seed (so a rebuilt room gets the same bots)."""
    digest = hashlib.sha256(f"sanma-bot:{seed}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _key(wire: dict[str, Any]) -> str:
    return repr(sorted(wire.items()))


class TableRoom:
    """One match on the server; ``start()`` runs its task.  ``humans`` maps each human seat
    to its guest (``seat_guests``; by default every seat without a bot is the record's owner's);
    ``timers`` (``None``: no timers, and a seat with no connection is simply waited for, as in
    practice)."""

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
        self.kind = record.kind
        self.match = match
        self.red_fives = match.rules.red_fives
        self.timers: TurnTimers | None = None
        self._clock: Clock = time.monotonic
        self._engine = engine
        self._bots = bots
        self._standins: dict[int, Player] = {}
        self._bot_delay_s = bot_delay_s
        self._speed = 1.0  # the player's pacing choice (protocol.SPEEDS), kept while the room lives
        self._bot_budget_s = bot_budget_s
        # The seats without a bot are human; a practice match's one is its owner's (see seat_guests).
        now = self._clock()
        self._humans = {s: HumanSeat(record.guest_id, away_since=now) for s in range(3) if s not in bots}
        if not self._humans:
            raise ValueError("a table has at least one human seat")
        # The seat of every joined connection: given at join, never taken from a message.
        self._seat_of: dict[Outbox, int] = {}
        # Spectators of a friend room: the log redacted for nobody, up to ``_public_until``,
        # the version before the hand in play (they see each hand once the next one starts).
        self._watchers: set[Outbox] = set()
        self._public: list[str] = []
        self._public_until = 0
        self._inbox: asyncio.Queue[_Reply | _Wake] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self.failed: BaseException | None = None
        # Since when no connection has been attached (``None``: one is); the registry drops a
        # practice room idle for long (rooms/__init__.py).
        self.idle_since: float | None = now
        # Events being appended to the store right now (the lease check allows for them).
        self.storing = 0
        # A friend room's players for the welcome (``[{seat, name, bot_level}]``, names as they
        # were when the room was built); ``None`` for practice, whose client names its own bots.
        self.players: list[dict[str, Any]] | None = None
        # Fair walls: the frames that go right after event v (``_fair_after``), and the hand
        # being played (its index, and whether its deal is the seeded one and not yet revealed).
        self._fair: dict[int, list[str]] = {}
        self._fair_hands = 0
        self._fair_open = False
        self._fair_seeded = False
        for event in match.events:
            self._fan_out_local(event)

    # -- building --------------------------------------------------------------------------

    @classmethod
    def rebuild(
        cls,
        record: MatchRecord,
        stored: list[dict[str, Any]],
        engine: Engine,
        make_bot: BotFactory,
        *,
        bot_delay_s: float,
        bot_budget_s: float,
    ) -> TableRoom:
        """The room of a stored match, at the point its log ends (``replay`` checks the log).
        Reads who sits where (and a friend room's timers) from the store: call it in a thread."""
        events = [event_from_store(e) for e in stored]
        match = replay(events) if events else Match(record.seed, rules_from_json(record.rules))
        humans: dict[int, str] = {}
        bots: dict[int, Player] = {}
        standins: dict[int, Player] = {}
        timers: TurnTimers | None = None
        players: list[dict[str, Any]] | None = None
        if record.kind == "room":
            seated = store.players_of(engine, record.id)
            names = accounts.display_names(engine, [p.guest_id for p in seated if p.guest_id is not None])
            players = [
                {
                    "seat": p.seat,
                    "name": None if p.guest_id is None else names.get(p.guest_id),
                    "bot_level": p.bot_level,
                }
                for p in seated
            ]
            for p in seated:
                if p.guest_id is not None:
                    humans[p.seat] = p.guest_id
                else:
                    assert p.bot_level is not None
                    bots[p.seat] = make_bot(p.bot_level, p.seat, bot_seed(record.seed, p.seat))
            lobby = room_store.room_of_match(engine, record.id)
            if lobby is not None:
                timers = TurnTimers.from_json(lobby.timers)
            # Autoplay's bots: seeded apart from the seats' own (seat + 3), the same after a rebuild.
            standins = {s: make_bot(STANDIN_LEVEL, s, bot_seed(record.seed, s + 3)) for s in humans}
        else:
            humans = {record.human_seat: record.guest_id}
            timers = None if record.timers is None else TurnTimers.from_json(record.timers)
            bots = {
                s: make_bot(record.bot_level, s, bot_seed(record.seed, s)) for s in range(3) if s != record.human_seat
            }
        room = cls(record, match, engine, bots, bot_delay_s=bot_delay_s, bot_budget_s=bot_budget_s)
        room.seat_guests(humans, timers, standins)
        room.players = players
        return room

    def seat_guests(
        self, humans: dict[int, str], timers: TurnTimers | None, standins: dict[int, Player] | None = None
    ) -> None:
        """Say which guest sits at each human seat and set the turn timers (before ``start``);
        ``standins``: the bot that plays each human seat while it is on autoplay (it is shown
        the log so far, redacted for its seat, then every event)."""
        if set(humans) != set(self._humans) or not set(standins or {}) <= set(humans):
            raise ValueError("every seat without a bot needs its guest")
        for seat, guest in humans.items():
            self._humans[seat].guest_id = guest
            self._humans[seat].bank_s = timers.bank_s if timers is not None else 0.0
        self.timers = timers
        self._standins = dict(standins or {})
        for seat, bot in self._standins.items():
            for event in self.match.events:
                bot.observe(redact(event, seat))

    # -- connections -----------------------------------------------------------------------

    @property
    def seat(self) -> int:
        """The owner's seat (a practice match's only human one; a room's host at the start): the
        seat of a join that names none."""
        owner = self.record.human_seat
        return owner if owner in self._humans else next(iter(self._humans))

    @property
    def humans(self) -> dict[int, str]:
        """Each human seat's guest."""
        return {s: h.guest_id for s, h in self._humans.items()}

    def seat_of_guest(self, guest_id: str) -> int | None:
        """The seat of ``guest_id`` at this table, or ``None``."""
        for seat, human in self._humans.items():
            if human.guest_id == guest_id:
                return seat
        return None

    @property
    def v(self) -> int:
        """The version of the last published event."""
        return len(self._frames_any())

    @property
    def finished(self) -> bool:
        """Whether the match has ended."""
        return self.match.finished

    @property
    def waits_for_humans(self) -> bool:
        """Whether the match is at a point where only human seats are awaited (nothing runs)."""
        return not self.match.finished and all(s in self._humans for s in self.match.awaiting())

    def touch(self) -> None:
        """A connection is about to join: not idle any more, even before it does."""
        if self.idle_since is not None:
            self.idle_since = self._clock()

    def _attached(self) -> None:
        self.idle_since = None

    def _detached(self) -> None:
        if not self._seat_of and not self._watchers:
            self.idle_since = self._clock()

    def join(self, outbox: Outbox, last_v: int, seat: int | None = None) -> None:
        """Attach a connection of human ``seat`` (default: the owner's, ``seat``): it gets the
        events after ``last_v``, then its current prompt.  Synchronous, so no event can slip
        between the backlog and the live stream.  A reconnect ends the seat's autoplay."""
        seat = self.seat if seat is None else seat
        human = self._humans.get(seat)
        if human is None:
            raise ValueError(f"seat {seat} is not a human seat")
        outbox.push(
            {
                "t": "welcome",
                "protocol": protocol.PROTOCOL_VERSION,
                "match": self.id,
                "kind": self.kind,
                "seat": seat,
                "v": self.v,
                "bot_level": self.record.bot_level,
                **self._players_field(),
            }
        )
        if self.kind == "practice" and self.timers is not None and human.prompt is not None and not human.outboxes:
            # Practice's chosen timer stood still while its player was away: it starts again now.
            human.prompt = dataclasses.replace(human.prompt, asked_at=self._clock())
            self._inbox.put_nowait(_Wake())
        self._send_from(outbox, seat, last_v + 1)
        was = self.presence(seat)
        human.auto = False
        human.timeouts = 0
        if self.kind == "room" and was != CONNECTED:
            self._broadcast_others(seat, {"t": "presence", "seat": seat, "state": CONNECTED})
            self._inbox.put_nowait(_Wake())  # its deadline is no longer the away one
        human.outboxes.add(outbox)
        self._seat_of[outbox] = seat
        self._attached()
        if self.kind == "room":
            for s in range(3):
                outbox.push(self._presence_frame(s))

    def watch(self, outbox: Outbox, last_v: int) -> None:
        """Attach a spectator of a friend room (a guest with no seat in it): the events of the
        hands already over after ``last_v``, redacted for nobody, then each hand once the next
        one starts (or the match ends); presence; never a prompt."""
        if self.kind != "room":
            raise ValueError("only a friend room's match can be watched")
        outbox.push(
            {
                "t": "welcome",
                "protocol": protocol.PROTOCOL_VERSION,
                "match": self.id,
                "kind": self.kind,
                "seat": 0,  # the place the view is drawn from: a spectator holds no seat
                "spectator": True,
                "v": self._public_until,
                "bot_level": self.record.bot_level,
                **self._players_field(),
            }
        )
        outbox.push_many(self._with_fair(self._public, last_v + 1, self._public_until))
        self._watchers.add(outbox)
        self._attached()
        for s in range(3):
            outbox.push(self._presence_frame(s))

    def _players_field(self) -> dict[str, Any]:
        """The welcome's ``players`` (a friend room's only)."""
        return {} if self.players is None else {"players": [dict(p) for p in self.players]}

    def leave(self, outbox: Outbox) -> None:
        """Detach a connection (a room plays the seat on by default once it has none left)."""
        self._watchers.discard(outbox)
        seat = self._seat_of.pop(outbox, None)
        self._detached()
        if seat is None:
            return
        human = self._humans[seat]
        human.outboxes.discard(outbox)
        if not human.outboxes:
            human.away_since = self._clock()
            if self.kind == "room":
                self._presence_changed(seat)
            elif self.timers is not None:
                self._inbox.put_nowait(_Wake())  # practice's timer stops while its player is away

    def resync(self, outbox: Outbox, from_v: int) -> None:
        """Send the events from ``from_v`` on again, then the current prompt."""
        seat = self._seat_of.get(outbox)
        if seat is not None:
            self._send_from(outbox, seat, max(1, from_v))
        elif outbox in self._watchers:
            outbox.push_many(self._with_fair(self._public, max(1, from_v), self._public_until))

    def _send_from(self, outbox: Outbox, seat: int, first_v: int) -> None:
        human = self._humans[seat]
        outbox.push_many(self._with_fair(human.frames, first_v, len(human.frames)))
        if human.prompt is not None:
            outbox.push(self._prompt_frame(seat, human.prompt))

    def set_speed(self, speed: str) -> None:
        """Pace the bots as the player asked (``protocol.SPEEDS``); a friend room keeps its pace."""
        if self.kind != "room":
            self._speed = protocol.SPEEDS[speed]

    @property
    def bot_delay_s(self) -> float:
        """Seconds before a bot's turn action at the current speed."""
        return self._bot_delay_s * self._speed

    def submit(self, outbox: Outbox, seq: int, action: dict[str, Any]) -> None:
        """A connection's answer to prompt ``seq`` (already schema-checked), for its own seat."""
        self._inbox.put_nowait(_Reply(outbox, seq, action))

    # -- presence --------------------------------------------------------------------------

    def presence(self, seat: int) -> str:
        """What the others see of ``seat``: ``connected``, ``away``, ``auto`` or ``bot``."""
        human = self._humans.get(seat)
        if human is None:
            return BOT
        if human.auto:
            return AUTO
        return CONNECTED if human.outboxes else AWAY

    def _presence_frame(self, seat: int) -> dict[str, Any]:
        return {"t": "presence", "seat": seat, "state": self.presence(seat)}

    def _presence_changed(self, seat: int) -> None:
        self._broadcast(self._presence_frame(seat))
        self._inbox.put_nowait(_Wake())  # deadlines depend on presence

    # -- the task --------------------------------------------------------------------------

    def start(self) -> asyncio.Task[None]:
        """Run the room until the match ends (or the room fails, alone)."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"room-{self.id}")
        return self._task

    async def stop(self) -> None:
        """Cancel the task (server shutdown); the stored log is already complete."""
        await cancel_and_wait(self._task)

    async def _run(self) -> None:
        try:
            while not self.match.finished:
                await self._step()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a failing room ends alone, never the process
            log.exception("room %s failed", self.id)
            self.failed = exc
            self._broadcast(protocol.error_frame(protocol.ROOM_FAILED, "the match stopped; reconnect to resume"))

    async def _step(self) -> None:
        awaited = self.match.awaiting()
        bots = [s for s in awaited if s in self._bots]
        if bots:
            seat = bots[0]
            legal = self.match.legal_actions(seat)
            if self.bot_delay_s > 0 and Pass() not in legal:
                await asyncio.sleep(self.bot_delay_s)
            answer = await asyncio.to_thread(ask, self._bots[seat], legal, self._bot_budget_s)
            await self._apply(seat, answer.action)
            return
        for seat in awaited:
            if self._humans[seat].prompt is None:
                self._ask(seat, self.match.legal_actions(seat))
        answered = await self._next_answer()
        if answered is not None:
            await self._apply(*answered)

    def _ask(self, seat: int, legal: LegalActions) -> None:
        # Unique per (version, seat) and growing, also across a rebuild: an answer to a prompt
        # of an earlier process can never pass for one of a later prompt.
        seq = self.v * 3 + seat + 1
        choices = {_key(action_to_wire(a, self.red_fives)): a for a in legal}
        assert legal.default is not None
        frame = {
            "t": "prompt",
            "seq": seq,
            "v": self.v,
            "legal": [action_to_wire(a, self.red_fives) for a in legal],
            "default": action_to_wire(legal.default, self.red_fives),
            "aids": prompt_aids(self.match.kyoku, seat),
        }
        human = self._humans[seat]
        human.prompt = Prompt(seq, frame, choices, self._clock())
        self._send_seat(seat, self._prompt_frame(seat, human.prompt))

    def _prompt_frame(self, seat: int, prompt: Prompt) -> dict[str, Any]:
        if self.timers is None:
            return prompt.frame
        human = self._humans[seat]
        elapsed = max(0.0, self._clock() - prompt.asked_at)
        turn_left = max(0.0, self.timers.turn_s - elapsed)
        bank_left = human.bank_s - max(0.0, elapsed - self.timers.turn_s)
        return {**prompt.frame, "timer": {"turn_s": round(turn_left, 2), "bank_s": round(max(0.0, bank_left), 2)}}

    def _deadline(self, seat: int) -> float | None:
        """When the seat's open prompt gets its default action (``None``: never)."""
        human = self._humans[seat]
        prompt = human.prompt
        if prompt is None or self.timers is None:
            return None
        if human.auto:
            return prompt.asked_at + self.bot_delay_s
        if not human.outboxes and self.kind == "practice":
            return None  # practice waits for its one player: the chosen timer runs only at the table
        deadline = prompt.asked_at + self.timers.turn_s + human.bank_s
        if not human.outboxes:
            deadline = min(deadline, max(prompt.asked_at, human.away_since) + self.timers.away_grace_s)
        return deadline

    async def _next_answer(self) -> tuple[int, Action] | None:
        """Wait for a valid answer or the first deadline; ``None``: look again (woken up)."""
        deadlines = {s: d for s in self._humans if (d := self._deadline(s)) is not None}
        timeout = None
        if deadlines:
            timeout = max(0.0, min(deadlines.values()) - self._clock())
        # Not wait_for: a reply taken from the queue as the timeout fires must not be lost.
        getter = asyncio.ensure_future(self._inbox.get())
        try:
            await asyncio.wait({getter}, timeout=timeout)
        finally:
            if not getter.done():
                getter.cancel()
        if not getter.done() or getter.cancelled():
            seat = min(deadlines, key=lambda s: deadlines[s])
            return seat, await self._expire(seat)
        item = getter.result()
        if isinstance(item, _Wake):
            return None
        return self._check_reply(item)

    def _check_reply(self, reply: _Reply) -> tuple[int, Action] | None:
        seat = self._seat_of.get(reply.outbox)
        if seat is None:
            if reply.outbox in self._watchers:
                reply.outbox.push(protocol.error_frame(SPECTATOR, "spectators do not play", seq=reply.seq))
            return None  # else the connection left meanwhile
        human = self._humans[seat]
        prompt = human.prompt
        if prompt is None or reply.seq != prompt.seq:
            current = f"the current prompt is {prompt.seq}" if prompt is not None else "no prompt is open"
            reply.outbox.push(protocol.error_frame(protocol.STALE_SEQ, current, seq=reply.seq))
            return None
        action = prompt.choices.get(_key(reply.action))
        if action is None:
            reply.outbox.push(
                protocol.error_frame(protocol.ILLEGAL_ACTION, "not one of the legal actions", seq=reply.seq)
            )
            reply.outbox.push(self._prompt_frame(seat, prompt))
            return None
        if self.timers is not None:
            over = self._clock() - prompt.asked_at - self.timers.turn_s
            human.bank_s = max(0.0, human.bank_s - max(0.0, over))
        human.prompt = None
        human.timeouts = 0
        if human.auto:  # any answer returns the seat to its player
            human.auto = False
            self._presence_changed(seat)
        return seat, action

    async def _expire(self, seat: int) -> Action:
        """The seat's time ran out, or it is away: its default action; on autoplay: its stand-in
        bot's choice.  The seat's connections are told which action was played."""
        human = self._humans[seat]
        prompt = human.prompt
        assert prompt is not None and self.timers is not None
        timed_out = bool(human.outboxes) and not human.auto
        human.prompt = None
        legal = self.match.legal_actions(seat)
        action = legal.default
        standin = self._standins.get(seat)
        if human.auto and standin is not None:
            action = (await asyncio.to_thread(ask, standin, legal, self._bot_budget_s)).action
        assert action is not None
        self._send_seat(seat, {"t": "expired", "seq": prompt.seq, "a": action_to_wire(action, self.red_fives)})
        if timed_out:
            human.bank_s = 0.0
            human.timeouts += 1
            if human.timeouts >= self.timers.timeouts_to_auto:
                human.auto = True
                self._presence_changed(seat)
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
        first_v = len(self._frames_any()) + 1
        stored = [event_to_store(e) for e in events]
        self.storing = len(stored)
        try:
            await asyncio.to_thread(
                store.append_events, self._engine, self.id, first_v, stored, ended=self.match.finished
            )
        except BaseException:
            self.storing = 0
            raise
        if self.kind == "room" and (self.match.finished or any(isinstance(e, HandStarted) for e in events)):
            await asyncio.to_thread(room_store.touch_match_room, self._engine, self.id, ended=self.match.finished)
        for event in events:
            self._fan_out(event)
        self.storing = 0
        awaited = set(self.match.awaiting())
        for seat, human in self._humans.items():
            if human.prompt is not None and seat not in awaited:
                human.prompt = None

    def _frames_any(self) -> list[str]:
        return next(iter(self._humans.values())).frames

    def _fan_out_local(self, event: Event) -> None:
        """Version the event, keep each human seat's frame, show it to the bots (each redacted)."""
        v = len(self._frames_any()) + 1
        encoded: dict[str, str] = {}  # seats that see the event alike share one text
        for seat, human in self._humans.items():
            text = protocol.encode(protocol.event_frame(v, event_to_wire(redact(event, seat), self.red_fives)))
            human.frames.append(encoded.setdefault(text, text))
        self._fair_after(v, event)
        if isinstance(event, HandStarted) and self.timers is not None:
            for human in self._humans.values():
                human.bank_s = self.timers.bank_s
        for seat, bot in self._bots.items():
            bot.observe(redact(event, seat))
        for seat, bot in self._standins.items():
            bot.observe(redact(event, seat))
        if self.kind == "room":
            text = protocol.encode(protocol.event_frame(v, event_to_wire(redact(event, None), self.red_fives)))
            self._public.append(encoded.setdefault(text, text))
            if isinstance(event, HandStarted):
                self._public_until = v - 1
            elif isinstance(event, MatchEnded):
                self._public_until = v

    def _fan_out(self, event: Event) -> None:
        shown = self._public_until
        self._fan_out_local(event)
        v = len(self._frames_any())
        fair = self._fair.get(v, [])
        for human in self._humans.values():
            frame = human.frames[-1]
            for outbox in list(human.outboxes):
                outbox.push(frame)
                for extra in fair:
                    outbox.push(extra)
        for v in range(shown + 1, self._public_until + 1):
            for outbox in list(self._watchers):
                outbox.push(self._public[v - 1])
                for extra in self._fair.get(v, []):
                    outbox.push(extra)

    # -- fair walls (sanma-fair-v1, docs/protocol.md) -----------------------------------------

    def _with_fair(self, frames: list[str], first_v: int, last_v: int) -> list[str]:
        """Events ``first_v..last_v`` of ``frames``, each followed by its fair-wall frames."""
        out: list[str] = []
        start = first_v
        for v in sorted(k for k in self._fair if first_v <= k <= last_v):
            out += frames[start - 1 : v]
            out += self._fair[v]
            start = v + 1
        out += frames[start - 1 : last_v]
        return out

    def _fair_after(self, v: int, event: Event) -> None:
        """The fair-wall frames that go after event ``v`` (the same for every seat and spectator):
        commitments as the match and each hand start, a hand's deal and salt once it is over,
        the seed and salt once the match is.  Only walls dealt by sanma-wall-v1 from the seed
        are committed to (a scripted deal has nothing to prove)."""
        seed = self.match.seed
        salt = fairness.match_salt(seed)
        frames: list[dict[str, Any]] = []
        if isinstance(event, MatchStarted):
            self._fair_seeded = event.wall_algorithm == WALL_ALGORITHM
            if self._fair_seeded:
                frames.append(protocol.fair_match_frame(fairness.match_commitment(salt, seed)))
        elif isinstance(event, HandStarted):
            k = self._fair_hands
            self._fair_hands += 1
            self._fair_open = self._fair_seeded and deal_from_seed(seed, k).digest() == event.wall_digest
            if self._fair_open:
                commitment = fairness.hand_commitment(fairness.hand_salt(salt, k), event.wall_digest)
                frames.append(protocol.fair_hand_frame(k, event.wall_digest, commitment))
        elif isinstance(event, HandWon | HandDrawn | HandAborted) and self._fair_open:
            self._fair_open = False  # a double ron's second HandWon reveals nothing more
            k = self._fair_hands - 1
            deal = fairness.deal_to_json(deal_from_seed(seed, k))
            frames.append(protocol.fair_reveal_frame(k, fairness.hand_salt(salt, k), deal))
        elif isinstance(event, MatchEnded) and self._fair_seeded:
            commitment = fairness.match_commitment(salt, seed)
            frames.append(protocol.fair_seed_frame(seed, salt, commitment, self._fair_hands))
        if frames:
            self._fair[v] = [protocol.encode(f) for f in frames]

    def _send_seat(self, seat: int, frame: protocol.ServerFrame) -> None:
        for outbox in list(self._humans[seat].outboxes):
            outbox.push(frame)

    def _broadcast_others(self, seat: int, frame: protocol.ServerFrame) -> None:
        for other, human in self._humans.items():
            if other != seat:
                for outbox in list(human.outboxes):
                    outbox.push(frame)
        for outbox in list(self._watchers):
            outbox.push(frame)

    def _broadcast(self, frame: protocol.ServerFrame) -> None:
        for human in self._humans.values():
            for outbox in list(human.outboxes):
                outbox.push(frame)
        for outbox in list(self._watchers):
            outbox.push(frame)
