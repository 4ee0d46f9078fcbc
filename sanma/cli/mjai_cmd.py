"""``sanma mjai-bot --level LEVEL``: one of our bots as an mjai bot on stdin/stdout.

The dialect is ``shared/spec/mjai-3p.md``.  Every line read gets exactly one line back
(per-event framing), ``{"type":"none"}`` when the event is not a decision for this seat;
a ``dora`` line repeats the answer to the line before it (a kan dora may come between a
cue and the table's wait, and the table reads the last answer).  A line holding a JSON
array is a batch (every event since the last decision) and gets one answer.  The stream
carries no legal actions, so the seat's own view (``SeatView.legal``) works them out with
the engine's rules; a ``possible_actions`` list, when a table sends one, is
preferred.  A line that cannot be read is answered ``none`` and logged to standard error;
the bot never stops on one.  After ``end_game`` it keeps reading.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from sanma.bots.base import Player, ask
from sanma.engine.actions import Action, Discard, Pass
from sanma.engine.events import Event, MatchStarted
from sanma.engine.formats.mjai import (
    REACH,
    MjaiError,
    MjaiEvent,
    MjaiReader,
    Reach,
    answer_for,
    parse_answer,
)
from sanma.engine.kyoku import LegalActions
from sanma.engine.legality import Cue
from sanma.engine.rules import Rules, preset
from sanma.engine.tiles import is_red, kind_of
from sanma.engine.view import SeatView

PlayerFactory = Callable[[int], Player]
"""Builds the bot for a seat once the seat is known."""

NONE: MjaiEvent = {"type": "none"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--level`` (required), ``--seed``, ``--rules``, ``--no-red-fives``."""
    parser.add_argument("--level", required=True, help="bot level: beginner, normal, expert or master")
    parser.add_argument("--seed", type=int, default=0, help="the bot's seed (same seed, same decisions)")
    parser.add_argument("--rules", default="default", help="rule preset: default, tenhou or mahjongsoul")
    parser.add_argument("--no-red-fives", action="store_true", help="the table plays without red fives")


def run(args: argparse.Namespace) -> int:
    """Play on standard input/output until end of input."""
    from sanma.bots.registry import LEVELS, make_bot

    if args.level not in LEVELS:
        print(f"sanma mjai-bot: unknown level {args.level!r}; choose one of {', '.join(LEVELS)}", file=sys.stderr)
        return 2
    rules = preset(args.rules)
    if args.no_red_fives:
        rules = rules.with_options(red_fives=False)
    make_bot(args.level, 0, args.seed)  # fail now, not at the first hand, if the level cannot load
    session = MjaiBotSession(lambda seat: make_bot(args.level, seat, args.seed), rules, log=sys.stderr)
    session.serve(sys.stdin, sys.stdout)
    return 0


class MjaiBotSession:
    """The bot side of an mjai stream: events in, one answer per line out."""

    def __init__(self, factory: PlayerFactory, rules: Rules | None = None, log: TextIO | None = None) -> None:
        self.factory = factory
        self.rules = rules if rules is not None else preset("default")
        self.log = log
        self.errors = 0
        self._new_match()

    def _new_match(self) -> None:
        self.reader = MjaiReader(self.rules)
        self.player: Player | None = None
        self._waiting: list[Event] = []  # events before the seat is known
        self._riichi_pick: Discard | None = None
        self._said: MjaiEvent = dict(NONE)  # the answer to the last line (or batch)

    # -- the stream ------------------------------------------------------------------------

    def serve(self, inp: TextIO, out: TextIO) -> None:
        """Answer every non-blank line of ``inp`` on ``out``, flushing each answer."""
        for line in inp:
            if not line.strip():
                continue
            out.write(json.dumps(self.answer_line(line), separators=(",", ":")) + "\n")
            out.flush()

    def answer_line(self, line: str) -> MjaiEvent:
        """The answer to one line: an event, or a batch (a JSON array of events)."""
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            return self._fail(f"not JSON: {exc.msg}: {line.strip()[:200]}")
        if not isinstance(data, list):
            return self.answer_event(data)
        if not data:
            return dict(NONE)
        # A batch is every event since the last decision: read them all, then answer the
        # decision one of them cued (a kan dora may come after the cue, never stands for it).
        before = self._cue()
        for obj in data[:-1]:
            self._answer(obj, before, decide=False)
        return self._answer(data[-1], before)

    def answer_event(self, obj: object) -> MjaiEvent:
        """Take in one mjai event and answer it: ``none`` unless the event itself cues a
        decision of the seat.  A ``dora`` cues nothing, but a table may send it after the
        cue and before it waits (a pending kan dora after a ``kita`` or a kan, riichienv's
        after the replacement ``tsumo``): it gets the answer the line before it got, so the
        last answer before the wait is the decision, and the bot is not asked twice."""
        return self._answer(obj, self._cue())

    def _cue(self) -> Cue | None:
        return self.player.view.cue if self.player is not None else None

    def _answer(self, obj: object, before: Cue | None, decide: bool = True) -> MjaiEvent:
        """Read ``obj``; answer the seat's decision if one was cued since ``before``."""
        try:
            if not isinstance(obj, Mapping):
                raise MjaiError(f"an event is a JSON object, not {type(obj).__name__}")
            if obj.get("type") == "start_game":
                self._new_match()
            for event in self.reader.read(obj):
                self._take(event)
            if not decide:
                return dict(NONE)
            answer = self._decide(obj, before)
        except Exception as exc:  # a bad line (or a failing bot) must never stop the stream
            answer = self._fail(f"{type(exc).__name__}: {exc} (event {json.dumps(obj)[:200]})")
        self._said = answer
        return answer

    def _fail(self, message: str) -> MjaiEvent:
        self.errors += 1
        if self.log is not None:
            print(f"sanma mjai-bot: {message}", file=self.log, flush=True)
        return dict(NONE)

    def _take(self, event: Event) -> None:
        seat = self.reader.seat
        if self.player is None:
            self._waiting.append(event)
            if seat is None:
                return
            self.player = self.factory(seat)
            events, self._waiting = self._waiting, []
            if not isinstance(events[0], MatchStarted):  # joined mid-match: the rules still apply
                events.insert(0, MatchStarted(seed=-1, rules=self.rules, wall_algorithm="mjai"))
        else:
            events = [event]
        for e in events:
            self.player.observe(e)

    # -- decisions -------------------------------------------------------------------------

    def _decide(self, obj: Mapping[str, Any], before: Cue | None) -> MjaiEvent:
        player = self.player
        if player is None:
            return dict(NONE)
        seat, view = player.seat, player.view
        if obj.get("type") == "reach" and obj.get("actor") == seat:
            return self._riichi_discard(player)
        cue = view.cue
        if cue is not None and cue is before and obj.get("type") == "dora":
            return dict(self._said)  # the decision cued before the dora is still the one open
        if cue is None or cue is before:
            return dict(NONE)  # no decision, or one already cued (and answered) before this event
        legal = self._legal(obj, view)
        if not len(legal):
            return dict(NONE)
        action = ask(player, legal).action
        if isinstance(action, Discard) and action.riichi:
            self._riichi_pick = action
            return answer_for(REACH, seat, view, None)
        return answer_for(action, seat, view, _offer(cue))

    def _legal(self, obj: Mapping[str, Any], view: SeatView) -> LegalActions:
        own = view.legal()
        offered = obj.get("possible_actions")
        if not isinstance(offered, list):
            return own
        try:
            return legal_from_possible(offered, view, own)
        except MjaiError as exc:
            self._fail(f"possible_actions ignored: {exc}")
            return own

    def _riichi_discard(self, player: Player) -> MjaiEvent:
        """After our ``reach`` is echoed: the discard chosen with it (or ask again)."""
        pick, self._riichi_pick = self._riichi_pick, None
        view = player.view
        turn = view.legal()
        riichi = [a for a in turn if isinstance(a, Discard) and a.riichi]
        if not riichi:
            raise MjaiError("reach echoed, but no discard keeps the hand ready")
        if pick is None or pick not in turn:
            drawn = view.drawn
            default = next((a for a in riichi if a.tile == drawn), riichi[0])
            tiles = frozenset((t, r) for t, r in turn.discard_tiles if r)
            pick_action = ask(player, LegalActions(tuple(riichi), default, tiles)).action
            assert isinstance(pick_action, Discard)
            pick = pick_action
        return answer_for(Discard(pick.tile), player.seat, view, None)


def _offer(cue: Cue) -> tuple[int, int] | None:
    return (cue.seat, cue.tile) if cue.tile is not None else None


def legal_from_possible(offered: list[Any], view: SeatView, own: LegalActions) -> LegalActions:
    """The table's ``possible_actions`` as our ``LegalActions``.  A ``reach`` stands for the
    riichi discards our own legality finds (or, failing that, every offered discard)."""
    seat = view.seat
    assert seat is not None, "a bot plays a seat"
    red = view.rules.red_fives if view.rules is not None else True
    actions: list[Action] = []
    tiles: set[tuple[int, bool]] = set()
    reach = False
    for item in offered:
        parsed = parse_answer(item, seat, view)
        if isinstance(parsed, Reach):
            reach = True
            continue
        if isinstance(parsed, Discard):
            same = [
                t
                for t in view.hand
                if kind_of(t) == kind_of(parsed.tile) and is_red(t, red) == is_red(parsed.tile, red)
            ]
            tiles |= {(t, False) for t in same}
            # The drawn copy stands for its name, as in the engine (a riichi hand may only let it go).
            parsed = Discard(view.drawn if view.drawn in same else parsed.tile)
        actions.append(parsed)
    if reach:
        riichi = [a for a in own if isinstance(a, Discard) and a.riichi]
        if not riichi:
            riichi = [Discard(a.tile, riichi=True) for a in actions if isinstance(a, Discard)]
        actions += riichi
        tiles |= {(t, True) for t, _ in tiles} if not own.discard_tiles else {x for x in own.discard_tiles if x[1]}
    if not actions:
        raise MjaiError("possible_actions lists nothing")
    default: Action
    if Pass() in actions:
        default = Pass()
    else:
        discards = [a for a in actions if isinstance(a, Discard) and not a.riichi]
        drawn = view.drawn
        default = next((a for a in discards if a.tile == drawn), discards[-1] if discards else actions[0])
    return LegalActions(tuple(actions), default, frozenset(tiles))
