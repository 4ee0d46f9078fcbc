"""The master's review of one seat's play in a finished match.

The match log is folded event by event as the reviewed seat saw it (``visibility.redact``),
into the master (``LearnedMaster``), whose ``SeatView`` also works out the seat's legal actions at
each of its decisions (the same rules and facts the engine uses).
The action the seat really took is read off the events that follow the cue (its discard,
kita, kan, win, call or, in a window, the pass).  At each decision the master answers as
it would have played, and where the expected-value program prices the actions (the
discards of a hand close to tenpai, or any hand while an opponent threatens) the loss of
the action taken is the value of the master's best minus the value of that action, in
expected final placement points.  Elsewhere the decision is listed unpriced (loss
``None``), with whether the master agrees.

Only what the seat could see is used: the review can be shown to that seat's player.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from sanma.bots.ev import priced_as
from sanma.bots.master import LearnedMaster
from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pass, Pon, Ron, Tsumo
from sanma.engine.errors import InvalidLog
from sanma.engine.events import (
    DoraRevealed,
    Event,
    HandAborted,
    HandStarted,
    HandWon,
    KitaDeclared,
    MatchStarted,
    MeldCalled,
    TileDiscarded,
)
from sanma.engine.hand import MeldType
from sanma.engine.kyoku import LegalActions
from sanma.engine.tiles import EAST, is_red, tile_name
from sanma.engine.visibility import redact

MasterFactory = Callable[[int], LearnedMaster]
Progress = Callable[[int, int], None]
"""Told ``(done, total)``: events of the log read so far, of all of them."""

REVIEWER: Final = "policy-2+expert-riichi+ev-calm-3"
"""The master a review's opinions are the opinions of, kept in every result (``"reviewer"``):
a stored review of another version is computed again when asked (``store/reviews.py``).
Change it whenever the master's decisions or values change (its policy's weights, ``ev.py``,
its models, what it prices): ``ev-calm-1`` prices only threatened and last-dealer-turn
decisions (session 8); ``ev-calm-2`` keeps its caches between two events only (session 12);
``policy-2+ev-calm-2`` is the learned master, the program over the policy ``policy-2``
(session 20)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of the reviewed seat."""

    index: int  # position in the log of the event that cued it
    hand: str  # e.g. "E2-0"
    turn: int  # the seat's discards so far in the hand
    tiles: str  # the seat's concealed tiles then
    choice: str
    master: str
    loss: float | None  # placement points the choice gave up (None: not priced)
    values: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "hand": self.hand,
            "turn": self.turn,
            "tiles": self.tiles,
            "choice": self.choice,
            "master": self.master,
            "loss": None if self.loss is None else round(self.loss, 4),
            "values": {k: round(v, 4) for k, v in self.values.items()},
        }


@dataclass(frozen=True, slots=True)
class Review:
    """Every decision of the seat, the biggest priced loss first."""

    seat: int
    decisions: tuple[Decision, ...]

    @property
    def total_loss(self) -> float:
        return sum(d.loss for d in self.decisions if d.loss is not None)

    def as_dict(self) -> dict[str, Any]:
        priced = [d for d in self.decisions if d.loss is not None]
        return {
            "reviewer": REVIEWER,
            "seat": self.seat,
            "decisions": len(self.decisions),
            "priced": len(priced),
            "agreed": sum(1 for d in self.decisions if d.choice == d.master),
            "total_loss": round(self.total_loss, 4),
            "mistakes": [d.as_dict() for d in self.decisions],
        }


def _order(d: Decision) -> tuple[float, int]:
    return (-(d.loss if d.loss is not None else -1.0), d.index)


def review(
    events: Sequence[Event], seat: int, master: MasterFactory | None = None, progress: Progress | None = None
) -> Review:
    """Review ``seat``'s decisions in the match ``events`` (a full or redacted log);
    ``progress`` is told ``(events read, all events)`` as it goes (the server shows it)."""
    if seat not in (0, 1, 2):
        raise InvalidLog(f"a seat is 0, 1 or 2, not {seat}")
    if not events or not isinstance(events[0], MatchStarted):
        raise InvalidLog("a match log starts with MatchStarted")
    bot = (master or LearnedMaster)(seat)
    view = bot.view  # the seat's one fold: the master's and the review's
    out: list[Decision] = []
    hand_label = ""
    cue = None
    for i, event in enumerate(events):
        if progress is not None:
            progress(i, len(events))
        bot.observe(redact(event, seat))
        if isinstance(event, HandStarted):
            hand_label = f"{'E' if event.round_wind == EAST else 'S'}{event.dealer + 1}-{event.honba}"
        if view.cue is None or view.cue is cue:
            continue
        cue = view.cue
        legal = view.legal()
        if not len(legal):
            continue
        taken = taken_action(events, i, seat, legal)
        if taken is None:
            continue  # the log ends here
        out.append(_decide(bot, legal, taken, i, hand_label))
    if progress is not None:
        progress(len(events), len(events))
    return Review(seat, tuple(sorted(out, key=_order)))


def _decide(bot: LearnedMaster, legal: LegalActions, taken: Action, index: int, hand: str) -> Decision:
    red = bot.view.rules.red_fives if bot.view.rules is not None else True
    tiles = "".join(tile_name(t, red) for t in sorted(bot.view.hand))
    turn = len(bot.view.rivers[bot.seat])
    chosen = bot.decide(legal)
    values = dict(bot.last_values)
    loss: float | None = None
    if values:
        rep, mine = priced_as(taken, values), priced_as(chosen, values)
        if rep is not None and mine is not None:
            loss = max(0.0, values[mine] - values[rep])  # the master's own choice is the reference
    named = {describe(a, red): v for a, v in values.items()}
    return Decision(index, hand, turn, tiles, describe(taken, red), describe(chosen, red), loss, named)


def describe(action: Action, red: bool = True) -> str:
    """An action in words, e.g. ``discard 5p``, ``riichi 0p`` (a red five), ``pon 7s``."""
    if isinstance(action, Discard):
        return f"{'riichi' if action.riichi else 'discard'} {tile_name(action.tile, red)}"
    return str(action)


def taken_action(events: Sequence[Event], i: int, seat: int, legal: LegalActions) -> Action | None:
    """What ``seat`` did at the decision cued by ``events[i]``, read off the next events."""
    for e in events[i + 1 :]:
        if isinstance(e, DoraRevealed):
            continue
        if isinstance(e, HandWon) and e.seat != seat and Ron() in legal:
            continue  # a double ron lists the other winner first: look on
        found = _action_of(e, seat, legal)
        if found is not None:
            return found
        return Pass() if Pass() in legal else None
    return None


def _action_of(e: Event, seat: int, legal: LegalActions) -> Action | None:
    if isinstance(e, TileDiscarded) and e.seat == seat:
        return Discard(e.tile, e.riichi)
    if isinstance(e, KitaDeclared) and e.seat == seat:
        return Kita()
    if isinstance(e, HandWon) and e.seat == seat:
        return Tsumo() if e.from_seat == seat else Ron()
    if isinstance(e, HandAborted) and e.seat == seat:
        return NineTerminals()
    if isinstance(e, MeldCalled) and e.seat == seat:
        meld = e.meld
        if meld.type is MeldType.PON:
            red = any(is_red(t, True) for t in meld.tiles if t != meld.called)
            pons = [a for a in legal if isinstance(a, Pon) and a.kind == meld.kind]
            return next((a for a in pons if a.red == red), pons[0] if pons else Pon(meld.kind, red))
        return Kan(meld.kind)
    return None
