"""A table on the server: one match with 1-3 human seats and bots elsewhere, run by one
asyncio task (the only writer).  What differs between a practice match and a friend room's
(``docs/rooms.md``) is its seating policy (``rooms/practice.py``, ``rooms/friend.py``); the
time rules of a seat are its ``SeatClock`` (``rooms/clock.py``, pure); the frames are
``protocol``'s classes; the log goes through a ``MatchLog`` (``rooms/matchlog.py``); who is
sent what is the ``Audience`` (``rooms/audience.py``, with the fair-wall frames of
``rooms/fairwalls.py``).  What stays here is the single-writer loop.

Every step goes the same way (design.md, "The flow of one action"): a seat answers, the
engine applies it, the new events get versions ``v`` (1, 2, ... = position in the log), are
appended to the log, then go to every connection of every human seat, each redacted for
its own seat, and to the bots.  Then the awaited seats are asked: a bot through
``botpool.answer`` (in a worker process, ``server/botpool.py``), each human through a
numbered prompt of its own.

The seat of a connection is given by the gateway (from the guest of the hello token) when
it joins, and every answer counts for that seat only: a message never names its seat.

A room is rebuilt from its stored log with ``replay`` (a reload, a reconnect, a restart):
the log holds every completed step, so the rebuilt match is at the same point.  Answers
inside a still-open window are not in the log (passes leave no event) and are asked again.

Between hands the table takes a break (``rooms/handbreak.py``): the next hand's deal is held,
unstored and unsent, until every human seat is ready or the room's countdown ends; nothing
runs meanwhile (no bot, no prompt, no seat clock).

An operator may end the match now (``end_now``, ``sanma admin end``): the task reads the
request at the top of each step and after each bot's answer, so a bot thinking delays it by
at most the bot budget; the hand in progress (or a break's held deal, stored and sent first)
is abandoned and the match ends as a normal end does.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import functools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine

from sanma.bots.base import Answer, Player
from sanma.engine.actions import Action, Pass
from sanma.engine.errors import IllegalAction
from sanma.engine.events import Event, HandStarted
from sanma.engine.kyoku import LegalActions
from sanma.engine.match import Match
from sanma.engine.visibility import redact
from sanma.server import botpool, protocol
from sanma.server.aids import prompt_aids
from sanma.server.aio import cancel_and_wait
from sanma.server.codec import action_to_wire, event_from_store, event_to_store, rules_from_json
from sanma.server.limits import TokenBucket
from sanma.server.metrics import Metrics
from sanma.server.rooms.audience import Audience, Outbox
from sanma.server.rooms.clock import SeatClock, TurnTimers, first_deadline
from sanma.server.rooms.friend import FriendSeating
from sanma.server.rooms.handbreak import HandBreak, replay_stored, split_deal
from sanma.server.rooms.matchlog import MatchLog, StoreMatchLog, StoreSeatRecords
from sanma.server.rooms.practice import PracticeSeating
from sanma.server.rooms.quick import QuickSeating
from sanma.server.rooms.seating import BotFactory, Seating, SeatPlan, bot_seed
from sanma.store.matches import MatchRecord, mark_coached

__all__ = ["BotFactory", "Outbox", "TableRoom", "TurnTimers", "bot_seed", "seating_for"]

log = logging.getLogger(__name__)

Clock = Callable[[], float]
"""Seconds on a monotonic clock (``time.monotonic``)."""

# The error code of an answer sent by a spectator.
SPECTATOR = "spectator"

# What the others see of a seat (``presence`` frames).
CONNECTED = "connected"
AWAY = "away"  # a human seat with no connection: plays on by default actions after a grace
AUTO = "auto"  # a human seat handed to autoplay after timeouts in a row, until its player returns
BOT = "bot"

# A seat's stamps (docs/rooms.md, "Stamps"): one every STAMP_EVERY_S seconds on average,
# STAMP_BURST at once, shared by all the seat's connections (two tabs get no more).
STAMP_EVERY_S = 3.0
STAMP_BURST = 3

SEATINGS: dict[str, Seating] = {s.kind: s for s in (PracticeSeating(), FriendSeating(), QuickSeating())}


def seating_for(kind: str) -> Seating:
    """The seating policy of a match kind (``practice``, ``room``, ``quick``)."""
    seating = SEATINGS.get(kind)
    if seating is None:
        raise ValueError(f"unknown match kind {kind!r}")
    return seating


@dataclass(frozen=True, slots=True)
class Prompt:
    """What a human seat is asked now: ``frame`` is sent as is (with the timer's remaining
    time filled in); ``choices`` maps each legal action's wire form to the action."""

    seq: int
    frame: protocol.Prompt
    choices: dict[str, Action]


@dataclass(slots=True)
class HumanSeat:
    """The room's view of one human seat."""

    guest_id: str
    clock: SeatClock
    prompt: Prompt | None = None
    auto: bool = False


@dataclass(frozen=True, slots=True)
class _Reply:
    outbox: Outbox
    seq: int
    action: dict[str, Any]


@dataclass(frozen=True, slots=True)
class _Ready:
    """A connection's "Next hand", having seen the events up to ``v``."""

    outbox: Outbox
    v: int


@dataclass(frozen=True, slots=True)
class _Resume:
    """A connection takes its seat back from autoplay."""

    outbox: Outbox


class _Wake:
    """Put in the inbox so the task looks at presence and deadlines again."""


@dataclass(frozen=True, slots=True)
class _End:
    """The operator ends the match now (``sanma admin end``), for ``reason``."""

    reason: str


def _key(wire: dict[str, Any]) -> str:
    return repr(sorted(wire.items()))


class TableRoom:
    """One match on the server; ``start()`` runs its task.  ``plan`` says who sits where
    (``seating.plan``); ``match_log`` is where the events are written; ``metrics``: the app's
    (the registry sets it; a room built alone counts into instruments nobody serves)."""

    metrics: Metrics = Metrics()

    def __init__(
        self,
        record: MatchRecord,
        match: Match,
        plan: SeatPlan,
        match_log: MatchLog,
        *,
        bot_delay_s: float,
        bot_budget_s: float,
        clock: Clock = time.monotonic,
        stored: int | None = None,
        make_coach: Callable[[int], Player] | None = None,
        mark_coached: Callable[[], None] | None = None,
    ) -> None:
        self.record = record
        self.id = record.id
        self.kind = record.kind
        self.seating = seating_for(record.kind)
        self.match = match
        self.red_fives = match.rules.red_fives
        self.timers = plan.timers
        self._clock = clock
        self._log = match_log
        self._bots = dict(plan.bots)
        self._standins = dict(plan.standins)
        self._bot_delay_s = bot_delay_s
        self._speed = 1.0  # the player's pacing choice (protocol.SPEEDS), kept while the room lives
        self._bot_budget_s = bot_budget_s
        # The coach (practice tables only, ``docs/coach.md``): a master per seat that turned it
        # on, seeing that seat's events; ``mark_coached`` marks the stored match once.
        self._make_coach = make_coach
        self._mark_coached = mark_coached
        self._coaches: dict[int, Player] = {}
        self._coaching: set[asyncio.Task[None]] = set()
        now = clock()
        pauses = self.seating.pauses_when_away
        self._humans = {
            s: HumanSeat(guest, SeatClock(plan.timers, pauses_when_away=pauses, now=now))
            for s, guest in sorted(plan.humans.items())
        }
        self._audience = Audience(
            self._humans,
            red_fives=self.red_fives,
            watchable=self.seating.watchable,
            seed=match.seed,
            open_hands=plan.open_hands,
            clock=clock,
        )
        self._inbox: asyncio.Queue[_Reply | _Ready | _Resume | _Wake | _End] = asyncio.Queue()
        # The operator's end, once asked (``end_now``): a request the task reads at the top of
        # each step and after each bot's answer (its ``_End`` item in the inbox only wakes it).
        self._ending: _End | None = None
        self._task: asyncio.Task[None] | None = None
        self.failed: BaseException | None = None
        # Since when no connection has been attached (``None``: one is); the registry drops a
        # practice room idle for long (rooms/__init__.py).
        self.idle_since: float | None = now
        # Events being appended to the store right now (the lease check allows for them).
        self.storing = 0
        # A friend room's players for the welcome (names as they were when the room was built).
        self.players = plan.players
        # The countdown between hands (``None``: the break waits for every player), and the
        # break now (``None``: a hand is being played).
        self.break_s = plan.break_s
        self._break: HandBreak | None = None
        # A quick match's: how long a player must have been gone at the end to have left it.
        self._abandon_s = plan.abandon_s
        # Each seat's stamp allowance, made at its first stamp (kept while the room lives).
        self._stamp_buckets: dict[int, TokenBucket] = {}
        # ``stored``: how many of the match's events are in the log (a room rebuilt between
        # hands: the rest is the next hand's deal, held by the break).
        stored = len(match.events) if stored is None else stored
        for event in match.events[:stored]:
            self._audience.record(event)
            self._observed(event)
        if stored < len(match.events):
            self._break = HandBreak(stored, list(match.events[stored:]), self._resumed_deadline(record, now))

    # -- building --------------------------------------------------------------------------

    @classmethod
    def open(
        cls, record: MatchRecord, match: Match, engine: Engine, make_bot: BotFactory, **timing: float
    ) -> TableRoom:
        """The room of ``record``'s match at the point ``match`` is, seated by its kind's
        policy and writing to the store (``timing``: ``bot_delay_s``, ``bot_budget_s``).
        May read the store: call it in a thread."""
        return cls._open(record, match, engine, make_bot, timing, None)

    @classmethod
    def _open(
        cls,
        record: MatchRecord,
        match: Match,
        engine: Engine,
        make_bot: BotFactory,
        timing: dict[str, float],
        stored: int | None,
    ) -> TableRoom:
        """``open``, with ``stored``: how many of the match's events the log holds (``None``: all)."""
        seating = seating_for(record.kind)
        plan = seating.plan(record, make_bot, StoreSeatRecords(engine))
        match_log = StoreMatchLog(engine, record.id, lobby=seating.has_lobby)
        delay_s, budget_s = timing["bot_delay_s"], timing["bot_budget_s"]
        coach = None
        if record.kind == "practice":  # never in friend rooms or quick match

            def coach(seat: int) -> Player:
                return make_bot("master", seat, bot_seed(record.seed, seat))

        return cls(
            record,
            match,
            plan,
            match_log,
            bot_delay_s=delay_s,
            bot_budget_s=budget_s,
            stored=stored,
            make_coach=coach,
            mark_coached=functools.partial(mark_coached, engine, record.id),
        )

    @classmethod
    def rebuild(
        cls, record: MatchRecord, stored: list[dict[str, Any]], engine: Engine, make_bot: BotFactory, **timing: float
    ) -> TableRoom:
        """The room of a stored match, at the point its log ends (``replay`` checks the log;
        a log that ends with a hand's result is a table between hands: the break goes on).
        Reads who sits where from the store: call it in a thread."""
        events = [event_from_store(e) for e in stored]
        if not events:
            return cls.open(record, Match(record.seed, rules_from_json(record.rules)), engine, make_bot, **timing)
        match, count = replay_stored(events)
        return cls._open(record, match, engine, make_bot, timing, count)

    def _resumed_deadline(self, record: MatchRecord, now: float) -> float | None:
        """A rebuilt break's countdown: it began when the hand's result was stored (the
        match's ``updated_at``), so a countdown that has run out deals at once."""
        if self.break_s is None:
            return None
        at = record.updated_at if record.updated_at.tzinfo is not None else record.updated_at.replace(tzinfo=UTC)
        elapsed = (datetime.now(UTC) - at).total_seconds()
        return now + max(0.0, self.break_s - max(0.0, elapsed))

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
        return self._audience.v

    @property
    def finished(self) -> bool:
        """Whether the match has ended."""
        return self.match.finished

    @property
    def waits_for_humans(self) -> bool:
        """Whether the match is at a point where only human seats are awaited (nothing runs)."""
        if self._break is not None:
            return self._break.deadline is None
        return not self.match.finished and all(s in self._humans for s in self.match.awaiting())

    def touch(self) -> None:
        """A connection is about to join: not idle any more, even before it does."""
        if self.idle_since is not None:
            self.idle_since = self._clock()

    def _attached(self) -> None:
        self.idle_since = None

    def _detached(self) -> None:
        if self._audience.empty:
            self.idle_since = self._clock()

    def _welcome(self, seat: int, *, spectator: bool = False) -> protocol.Welcome:
        v = self._audience.public_until if spectator else self.v
        open_hands = spectator and self._audience.open_hands
        stamps = self.seating.allows_stamps and not spectator
        return protocol.Welcome(
            self.id, self.kind, seat, v, self.record.bot_level, spectator, self.players, open_hands, stamps
        )

    def join(self, outbox: Outbox, last_v: int, seat: int | None = None) -> None:
        """Attach a connection of human ``seat`` (default: the owner's, ``seat``): it gets the
        events after ``last_v``, then its current prompt.  Synchronous, so no event can slip
        between the backlog and the live stream.  A reconnect ends the seat's autoplay."""
        seat = self.seat if seat is None else seat
        human = self._humans.get(seat)
        if human is None:
            raise ValueError(f"seat {seat} is not a human seat")
        outbox.push(self._welcome(seat))
        was = self.presence(seat)
        if human.clock.back(self._clock(), connected_before=self._audience.connected(seat)):
            self._inbox.put_nowait(_Wake())  # a paused clock starts again now
        self._send_from(outbox, seat, last_v + 1)
        human.auto = False
        if self.seating.shows_presence and was != CONNECTED:
            self._audience.broadcast(protocol.Presence(seat, CONNECTED), but=seat)
            self._inbox.put_nowait(_Wake())  # its deadline is no longer the away one
        self._audience.attach(seat, outbox)
        self._attached()
        if self.seating.shows_presence:
            self._push_presence(outbox)
        if self._break is not None:
            outbox.push(self._break_frame(self._break))
            self._inbox.put_nowait(_Wake())  # a seat that was away is no longer ready by absence

    def watch(self, outbox: Outbox, last_v: int) -> None:
        """Attach a spectator of a friend room (a guest with no seat in it): the events shown
        to spectators after ``last_v``, then each as it is shown (``Audience``: live, redacted
        for nobody; with open hands, every tile a hand behind); presence; never a prompt."""
        if not self.seating.watchable:
            raise ValueError("only a friend room's match can be watched")
        outbox.push(self._welcome(0, spectator=True))  # seat 0: where the view is drawn from
        outbox.push_many(self._audience.public_backlog(last_v + 1))
        self._audience.attach_watcher(outbox)
        self._attached()
        self._push_presence(outbox)
        if self._break is not None and not self._audience.open_hands:
            outbox.push(self._break_frame(self._break))

    def leave(self, outbox: Outbox) -> None:
        """Detach a connection (a room plays the seat on by default once it has none left)."""
        seat = self._audience.detach(outbox)
        self._detached()
        if seat is None or self._audience.connected(seat):
            return
        self._humans[seat].clock.left_table(self._clock())
        if self.seating.shows_presence:
            self._audience.broadcast(self._presence_frame(seat))
        self._inbox.put_nowait(_Wake())  # deadlines depend on presence (or the clock paused)

    def resync(self, outbox: Outbox, from_v: int) -> None:
        """Send the events from ``from_v`` on again, then the current prompt."""
        seat = self._audience.seat_of(outbox)
        if seat is not None:
            self._send_from(outbox, seat, max(1, from_v))
        elif self._audience.watching(outbox):
            outbox.push_many(self._audience.public_backlog(max(1, from_v)))

    def _send_from(self, outbox: Outbox, seat: int, first_v: int) -> None:
        human = self._humans[seat]
        outbox.push_many(self._audience.backlog(seat, first_v))
        if human.prompt is not None:
            outbox.push(self._prompt_frame(seat, human.prompt))

    def set_speed(self, speed: str) -> None:
        """Pace the bots as the player asked (``protocol.SPEEDS``); a friend room keeps its pace."""
        if self.seating.player_paces_bots:
            self._speed = protocol.SPEEDS[speed]

    @property
    def bot_delay_s(self) -> float:
        """Seconds before a bot's turn action at the current speed."""
        return self._bot_delay_s * self._speed

    def set_coach(self, outbox: Outbox, on: bool) -> None:
        """Turn the coach on or off for the connection's seat (``docs/coach.md``): refused with
        ``no_coach`` where the match offers none (a friend room) or for a spectator.  Turned on,
        the stored match is marked coached (once) and an open prompt gets its advice."""
        seat = self._audience.seat_of(outbox)
        if self._make_coach is None or seat is None:
            outbox.push(protocol.Error(protocol.NO_COACH, "the coach is offered at practice tables only"))
            return
        if not on:
            coach = self._coaches.pop(seat, None)
            if coach is not None:
                coach.close()
        elif seat not in self._coaches:
            coach = self._coaches[seat] = self._make_coach(seat)
            for event in self.match.events[: self.v]:
                coach.observe(redact(event, seat))
            if self._mark_coached is not None:
                mark, self._mark_coached = self._mark_coached, None
                self._spawn(asyncio.to_thread(mark))
            prompt = self._humans[seat].prompt
            if prompt is not None and self._break is None:
                self._coach_prompt(seat, prompt.seq, self.match.legal_actions(seat))
        self._audience.send_seat(seat, protocol.CoachState(seat in self._coaches))

    def send_stamp(self, outbox: Outbox, stamp: str) -> None:
        """A player's stamp (``docs/rooms.md``, "Stamps"; ``stamp`` already checked against
        ``protocol.STAMPS``), shown to every seat and spectator with the sender's seat: refused
        with ``no_stamps`` from a spectator or where the seating allows none, ``rate_limited``
        past the seat's allowance.  Not an event: nothing is stored, the match never waits."""
        seat = self._audience.seat_of(outbox)
        if seat is None or not self.seating.allows_stamps:
            refused = "stamps come from the players at a room's table"
            outbox.push(protocol.Error(protocol.NO_STAMPS, refused, about="stamp"))
            return
        bucket = self._stamp_buckets.get(seat)
        if bucket is None:
            bucket = self._stamp_buckets[seat] = TokenBucket(1 / STAMP_EVERY_S, STAMP_BURST, self._clock)
        if not bucket.take():
            retry_ms = max(1, round(bucket.wait_s() * 1000))
            outbox.push(protocol.Error(protocol.RATE_LIMITED, "too many stamps", retry_ms=retry_ms, about="stamp"))
            return
        self._audience.broadcast(protocol.Stamp(seat, stamp))

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._coaching.add(task)
        task.add_done_callback(self._coaching.discard)

    def _coach_prompt(self, seat: int, seq: int, legal: LegalActions) -> None:
        """Ask the seat's coach about prompt ``seq`` off the loop; the prompt is out already."""
        coach = self._coaches.get(seat)
        if coach is None:
            return
        if not isinstance(coach, botpool.PooledBot):
            coach = copy.deepcopy(coach)  # a bot of this process: the thread gets its own copy
        self._spawn(self._advise(seat, coach, seq, legal))

    async def _advise(self, seat: int, coach: Player, seq: int, legal: LegalActions) -> None:
        advice = await botpool.advise(coach, legal, self._bot_budget_s)
        prompt = self._humans[seat].prompt
        if advice is None or prompt is None or prompt.seq != seq or seat not in self._coaches:
            return  # late, failed, or the player already answered: no coach frame
        actions = advice.pop("actions")
        choices = tuple(
            c | {"a": action_to_wire(a, self.red_fives)} for c, a in zip(advice["choices"], actions, strict=True)
        )
        self._audience.send_seat(seat, protocol.Coach(seq, advice["shanten"], advice["priced"], choices))

    def submit(self, outbox: Outbox, seq: int, action: dict[str, Any]) -> None:
        """A connection's answer to prompt ``seq`` (already schema-checked), for its own seat."""
        self._inbox.put_nowait(_Reply(outbox, seq, action))

    def next_hand(self, outbox: Outbox, v: int) -> None:
        """A connection's "Next hand" for its own seat, having seen the events up to ``v``."""
        self._inbox.put_nowait(_Ready(outbox, v))

    def resume(self, outbox: Outbox) -> None:
        """A connection takes its own seat back from autoplay."""
        self._inbox.put_nowait(_Resume(outbox))

    def end_now(self, reason: str) -> None:
        """The operator ends the match now (``sanma admin end``): the task abandons the hand in
        progress, or the break, and ends the match from the points as they stand.  A second
        call, or one after the end, changes nothing."""
        if self._ending is None:
            self._ending = _End(reason)
            self._inbox.put_nowait(self._ending)

    # -- presence --------------------------------------------------------------------------

    def presence(self, seat: int) -> str:
        """What the others see of ``seat``: ``connected``, ``away``, ``auto`` or ``bot``."""
        human = self._humans.get(seat)
        if human is None:
            return BOT
        if human.auto:
            return AUTO
        return CONNECTED if self._audience.connected(seat) else AWAY

    def _presence_frame(self, seat: int) -> protocol.Presence:
        return protocol.Presence(seat, self.presence(seat))

    def _push_presence(self, outbox: Outbox) -> None:
        for s in range(3):
            outbox.push(self._presence_frame(s))

    def _set_auto(self, seat: int, auto: bool) -> None:
        self._humans[seat].auto = auto
        self._audience.broadcast(self._presence_frame(seat))
        self._inbox.put_nowait(_Wake())  # deadlines depend on presence

    # -- the task --------------------------------------------------------------------------

    def start(self) -> asyncio.Task[None]:
        """Run the room until the match ends (or the room fails, alone)."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"room-{self.id}")
        return self._task

    async def stop(self) -> None:
        """Cancel the task (server shutdown, or the room leaves memory); the stored log is
        already complete."""
        self._audience.close()
        await cancel_and_wait(self._task)
        self._release_bots()

    def _release_bots(self) -> None:
        """The bots and stand-ins are done (their worker drops them); a rebuilt room makes new ones."""
        for bot in (*self._bots.values(), *self._standins.values(), *self._coaches.values()):
            bot.close()
        for task in self._coaching:
            task.cancel()

    def fail(self, exc: BaseException, detail: str) -> None:
        """The room stops here (it failed, or moved to another process): tell every connection."""
        self.failed = exc
        self._audience.close()
        self._audience.broadcast(protocol.Error(protocol.ROOM_FAILED, detail))

    async def _run(self) -> None:
        played = False  # a rebuilt room of an ended match did not end it again
        try:
            while not self.match.finished:
                await self._step()
                played = True
            self._release_bots()
            if played:
                self.metrics.match(self.kind, "ended")
                log.info(
                    "room %s: match ended", self.id, extra={"event": "match_ended", "match": self.id, "kind": self.kind}
                )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a failing room ends alone, never the process
            log.exception("room %s failed", self.id)
            self.fail(exc, "the match stopped; reconnect to resume")

    async def _step(self) -> None:
        if self._ending is not None:
            await self._end(self._ending)
            return
        if self._break is not None:
            await self._wait_break(self._break)
            return
        awaited = self.match.awaiting()
        bots = [s for s in awaited if s in self._bots]
        if bots:
            await self._bot_turn(bots[0])
            return
        for seat in awaited:
            if self._humans[seat].prompt is None:
                self._ask(seat, self.match.legal_actions(seat))
        answered = await self._next_answer()
        if answered is not None and self._ending is None:
            await self._apply(*answered)

    async def _bot_turn(self, seat: int) -> None:
        legal = self.match.legal_actions(seat)
        if self.bot_delay_s > 0 and Pass() not in legal:
            await asyncio.sleep(self.bot_delay_s)
        answer = await botpool.answer(self._bots[seat], legal, self._bot_budget_s)
        self._decided(seat, self._bots[seat], answer)
        if self._ending is None:  # else the operator ended the match while the bot thought
            await self._apply(seat, answer.action)

    def _decided(self, seat: int, bot: Player, answer: Answer) -> None:
        """Count a bot's decision; one log line when the default had to stand in for it."""
        level = self.metrics.decided(bot, answer)
        if answer.status != "ok":
            fields = {"event": "bot_" + answer.status, "match": self.id, "seat": seat, "level": level}
            log.warning(
                "room %s: seat %d's %s bot: %s (%s); default played",
                self.id,
                seat,
                level,
                answer.status,
                answer.detail,
                extra=fields,
            )

    def _ask(self, seat: int, legal: LegalActions) -> None:
        # Unique per (version, seat) and growing, also across a rebuild: an answer to a prompt
        # of an earlier process can never pass for one of a later prompt.
        seq = self.v * 3 + seat + 1
        wires = [action_to_wire(a, self.red_fives) for a in legal]
        choices = {_key(wire): a for wire, a in zip(wires, legal, strict=True)}
        assert legal.default is not None
        default = action_to_wire(legal.default, self.red_fives)
        frame = protocol.Prompt(seq, self.v, tuple(wires), default, prompt_aids(self.match.kyoku, seat))
        human = self._humans[seat]
        human.prompt = Prompt(seq, frame, choices)
        human.clock.ask(self._clock())
        self._audience.send_seat(seat, self._prompt_frame(seat, human.prompt))
        self._coach_prompt(seat, seq, legal)

    def _prompt_frame(self, seat: int, prompt: Prompt) -> protocol.Prompt:
        timer = self._humans[seat].clock.left(self._clock())
        return prompt.frame if timer is None else dataclasses.replace(prompt.frame, timer=timer)

    def _deadlines(self) -> dict[int, float]:
        """When each seat's open prompt gets its default action (seats that wait have none)."""
        deadlines = {}
        for seat, human in self._humans.items():
            connected = self._audience.connected(seat)
            at = human.clock.deadline(connected=connected, auto=human.auto, standin_delay_s=self.bot_delay_s)
            if at is not None:
                deadlines[seat] = at
        return deadlines

    async def _next_answer(self) -> tuple[int, Action] | None:
        """Wait for a valid answer or the first deadline; ``None``: look again (woken up)."""
        first = first_deadline(self._deadlines(), self._clock())
        item = await self._next_item(None if first is None else first[1])
        if item is None:
            assert first is not None
            return first[0], await self._expire(first[0])
        if isinstance(item, _Reply):
            return self._check_reply(item)
        self._take(item)
        return None

    async def _next_item(self, timeout: float | None) -> _Reply | _Ready | _Resume | _Wake | _End | None:
        """The next item of the inbox, or ``None`` once ``timeout`` seconds passed."""
        # Not wait_for: a reply taken from the queue as the timeout fires must not be lost.
        getter = asyncio.ensure_future(self._inbox.get())
        try:
            await asyncio.wait({getter}, timeout=timeout)
        finally:
            if not getter.done():
                getter.cancel()
        if not getter.done() or getter.cancelled():
            return None
        return getter.result()

    def _take(self, item: _Ready | _Resume | _Wake | _End) -> None:
        """What is not an answer: a "Next hand", a seat taken back from autoplay, a wake-up (an
        ``_End`` only wakes the task: ``end_now`` has set ``_ending``)."""
        if isinstance(item, _Wake | _End):
            return
        seat = self._audience.seat_of(item.outbox)
        if seat is None:
            if self._audience.watching(item.outbox):
                item.outbox.push(protocol.Error(SPECTATOR, "spectators do not play"))
            return
        human = self._humans[seat]
        if human.auto:  # the player is back: a "Next hand" too takes the seat back
            human.clock.resumed()
            self._set_auto(seat, False)
        if isinstance(item, _Ready) and self._break is not None and self._break.press(seat, item.v):
            self._send_break(self._break)

    # -- the break between hands ---------------------------------------------------------------

    def _open_break(self, held: list[Event]) -> None:
        """The hand has ended and ``held`` deals the next one: it waits for the players."""
        deadline = None if self.break_s is None else self._clock() + self.break_s
        self._break = HandBreak(self.v, held, deadline)
        self._send_break(self._break)

    def _ready(self, brk: HandBreak) -> list[int]:
        """The human seats ready for the next hand.  Where the table plays on without its
        players (a friend room), a seat away or on autoplay counts as ready; practice waits."""
        absent = []
        if not self.seating.pauses_when_away:
            absent = [s for s in self._humans if self.presence(s) in (AWAY, AUTO)]
        return brk.ready(self._humans, absent)

    def _break_frame(self, brk: HandBreak) -> protocol.HandBreak:
        return brk.frame(tuple(self._humans), self._ready(brk), self._clock())

    def _send_break(self, brk: HandBreak) -> None:
        """Who is ready, and the countdown, to every seat, and to live spectators (an open-hands
        spectator's view is a hand behind: the break it would be told of is not its)."""
        frame = self._break_frame(brk)
        brk.shown = frame.ready
        if self._audience.open_hands:
            for seat in self._humans:
                self._audience.send_seat(seat, frame)
        else:
            self._audience.broadcast(frame)

    async def _wait_break(self, brk: HandBreak) -> None:
        """Deal once everyone is ready or the countdown ran out; else wait for a change."""
        ready = self._ready(brk)
        left = brk.left_s(self._clock())
        if len(ready) == len(self._humans) or left == 0.0:
            self._break = None
            await self._publish(brk.held)
            return
        if tuple(ready) != brk.shown:
            self._send_break(brk)  # a seat left, came back, or went to autoplay
        item = await self._next_item(left)
        if isinstance(item, _Reply):
            self._check_reply(item)  # no prompt is open: it is told so
        elif item is not None:
            self._take(item)

    def _check_reply(self, reply: _Reply) -> tuple[int, Action] | None:
        seat = self._audience.seat_of(reply.outbox)
        if seat is None:
            if self._audience.watching(reply.outbox):
                reply.outbox.push(protocol.Error(SPECTATOR, "spectators do not play", seq=reply.seq))
            return None  # else the connection left meanwhile
        human = self._humans[seat]
        prompt = human.prompt
        if prompt is None or reply.seq != prompt.seq:
            current = f"the current prompt is {prompt.seq}" if prompt is not None else "no prompt is open"
            reply.outbox.push(protocol.Error(protocol.STALE_SEQ, current, seq=reply.seq))
            return None
        action = prompt.choices.get(_key(reply.action))
        if action is None:
            reply.outbox.push(protocol.Error(protocol.ILLEGAL_ACTION, "not one of the legal actions", seq=reply.seq))
            reply.outbox.push(self._prompt_frame(seat, prompt))
            return None
        human.clock.answered(self._clock())
        human.prompt = None
        if human.auto:  # any answer returns the seat to its player
            self._set_auto(seat, False)
        return seat, action

    async def _expire(self, seat: int) -> Action:
        """The seat's time ran out, or it is away: its default action; on autoplay: its stand-in
        bot's choice.  The seat's connections are told which action was played."""
        human = self._humans[seat]
        prompt = human.prompt
        assert prompt is not None
        timed_out = self._audience.connected(seat) and not human.auto
        human.prompt = None
        legal = self.match.legal_actions(seat)
        action = legal.default
        standin = self._standins.get(seat)
        if human.auto and standin is not None:
            answer = await botpool.answer(standin, legal, self._bot_budget_s)
            self._decided(seat, standin, answer)
            action = answer.action
        assert action is not None
        self._audience.send_seat(seat, protocol.Expired(prompt.seq, action_to_wire(action, self.red_fives)))
        if not timed_out:
            human.clock.close()
        elif human.clock.timed_out():
            self._set_auto(seat, True)
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
        shown, held = split_deal(events)
        await self._publish(shown)
        if held:
            self._open_break(held)
        awaited = set() if self._break is not None else set(self.match.awaiting())
        for s, human in self._humans.items():
            if human.prompt is not None and s not in awaited:
                human.prompt = None
                human.clock.close()

    async def _end(self, ending: _End) -> None:
        """End the match now (``end_now``): open prompts close with their seats' clocks; a break's
        held deal is stored and sent first (the log then replays as an end inside that hand)."""
        held: list[Event] = []
        if self._break is not None:
            held, self._break = self._break.held, None
        for human in self._humans.values():
            if human.prompt is not None:
                human.prompt = None
                human.clock.close()
        events = self.match.end_now()
        if events:
            log.info(
                "room %s: the operator ends the match (%s)",
                self.id,
                ending.reason,
                extra={"event": "match_end_asked", "match": self.id, "reason": ending.reason},
            )
            await self._publish(held + events)

    async def _publish(self, events: list[Event]) -> None:
        """Store ``events``, then send them to everyone and show them to the bots."""
        await self._store(events)
        for event in events:
            self._audience.publish(event)
            self._observed(event)
        self.storing = 0

    async def _store(self, events: list[Event]) -> None:
        """Append ``events`` to the log (``storing`` says how many are on their way)."""
        stored = [event_to_store(e) for e in events]
        first_v = self.v + 1
        hand_started = any(isinstance(e, HandStarted) for e in events)
        self.storing = len(stored)
        ended = self.match.finished
        try:
            await asyncio.to_thread(
                self._log.append,
                first_v,
                stored,
                ended=ended,
                hand_started=hand_started,
                abandoned=self._abandoned() if ended else frozenset(),
            )
        except BaseException:
            self.storing = 0
            raise
        self.metrics.appended(len(stored))

    def _abandoned(self) -> frozenset[int]:
        """The human seats with no connection whose players have been gone for ``abandon_s``
        (none where the table does not count it)."""
        if self._abandon_s is None:
            return frozenset()
        cutoff = self._clock() - self._abandon_s
        return frozenset(
            s
            for s, human in self._humans.items()
            if not self._audience.connected(s) and human.clock.away_since <= cutoff
        )

    def _observed(self, event: Event) -> None:
        """What an event changes besides its frames: the banks at a hand's start; the bots and
        the stand-ins see it (each redacted for its seat)."""
        if isinstance(event, HandStarted):
            for human in self._humans.values():
                human.clock.new_hand()
        for seat, bot in (*self._bots.items(), *self._standins.items(), *self._coaches.items()):
            bot.observe(redact(event, seat))
