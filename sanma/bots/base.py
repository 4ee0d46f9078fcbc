"""The one interface every player implements, bots and remote players alike.

A player is told every event of the match as its own seat may see it (already passed
through ``visibility.redact``) and, when the engine awaits it, is asked to pick one of
its legal actions.  That is exactly the prompt a human gets in the browser, so a bot
can never see a hidden tile.  ``ask`` wraps ``decide`` with the safety rules that keep
a match going: a player that raises, answers with an illegal action or runs past its
time budget gets the default action (tsumogiri or pass) instead.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Literal

from sanma.engine.actions import Action
from sanma.engine.events import Event
from sanma.engine.kyoku import LegalActions
from sanma.engine.view import SeatView

AnswerStatus = Literal["ok", "error", "illegal", "overrun"]


class Player(ABC):
    """A seat's decision maker.  Deterministic given ``seed`` and the events it saw."""

    name: str = "player"

    def __init__(self, seat: int, seed: int = 0) -> None:
        self.seat = seat
        self.seed = seed
        self.view = SeatView(seat)

    def observe(self, event: Event) -> None:
        """Take in one event, redacted for this seat."""
        self.view.apply(event)

    @abstractmethod
    def decide(self, legal: LegalActions) -> Action:
        """Pick one of ``legal`` (never empty when asked)."""

    def close(self) -> None:  # noqa: B027 - optional hook, most players hold nothing
        """Release what the player holds (a subprocess, for a remote player)."""


@dataclass(frozen=True, slots=True)
class Answer:
    """What a player answered, and whether the default had to stand in for it."""

    action: Action
    status: AnswerStatus
    seconds: float
    detail: str = ""


def ask(player: Player, legal: LegalActions, budget_s: float | None = None) -> Answer:
    """Ask ``player`` for a decision, falling back to ``legal.default`` when it raises,
    answers illegally or overruns ``budget_s`` (the late answer is discarded so that a
    slow bot cannot gain from its overrun)."""
    default = legal.default
    if default is None:
        raise ValueError("ask() needs a seat that has something to decide")
    start = time.perf_counter()
    try:
        action = player.decide(legal)
    except Exception as exc:  # a broken bot must never end the match
        return Answer(default, "error", time.perf_counter() - start, f"{type(exc).__name__}: {exc}")
    seconds = time.perf_counter() - start
    if action not in legal:
        return Answer(default, "illegal", seconds, str(action))
    if budget_s is not None and seconds > budget_s:
        return Answer(default, "overrun", seconds, f"{seconds:.3f}s > {budget_s:.3f}s")
    return Answer(action, "ok", seconds)
