"""The learned policy (``sanma.learn.policy``), alone and as the master's first answer.

Each decision encodes the seat's view (``sanma.learn.encode``: only what the seat sees),
runs the network once and plays the best-scored legal action.  It keeps nothing between
decisions but the view and the tile the current window asks about, so its answer depends
only on what the seat has seen, never on what it was asked before.  No randomness: the
seed is kept for the ``Player`` interface only.

``LearnedBot`` plays the policy alone (a benchmark player); the level ``master``
(``sanma.bots.master.LearnedMaster``) is a ``PolicyPlayer`` too, and asks it first.
"""

from __future__ import annotations

import numpy as np

from sanma.bots.base import Player
from sanma.engine.actions import Action, Pass
from sanma.engine.events import DoraRevealed, Event, RiichiAccepted
from sanma.engine.kyoku import LegalActions
from sanma.engine.tiles import Tile
from sanma.engine.view import SeatView
from sanma.learn import encode as enc
from sanma.learn.policy import Policy, served


def best_of(legal_logits: np.ndarray, view: SeatView, legal: LegalActions) -> tuple[Action, dict[Action, float]]:
    """The best-scored legal action and every legal action's probability."""
    index = int(legal_logits.argmax())
    odds = np.exp(legal_logits - legal_logits[index])
    odds /= odds.sum()
    legal_indices = np.flatnonzero(np.isfinite(legal_logits))
    probabilities = {enc.action_of(int(i), view, legal): float(odds[i]) for i in legal_indices}
    return enc.action_of(index, view, legal), probabilities


class PolicyPlayer(Player):
    """A player that asks the learned policy: it keeps the policy, the tile the current window
    asks about, and every legal action's probability at its last question (the coach's order
    of the choices nothing else priced)."""

    def __init__(self, seat: int, seed: int = 0, policy: Policy | None = None) -> None:
        super().__init__(seat, seed)
        self.policy = policy if policy is not None else served()
        self.offered: Tile | None = None
        self.last_probabilities: dict[Action, float] = {}

    def observe(self, event: Event) -> None:
        super().observe(event)
        # a new dora or an accepted riichi between a play and its window changes no offer
        if not isinstance(event, DoraRevealed | RiichiAccepted):
            self.offered = enc.offered_tile(event)

    def inputs(self, offered: Tile | None) -> tuple[np.ndarray, np.ndarray]:
        """The network's inputs for the seat's view: planes and scalars (a hook for variants
        that show the network a changed picture, in ``bench/``)."""
        return enc.encode(self.view, offered), enc.scalars(self.view, offered)

    def legal_logits(self, legal: LegalActions) -> np.ndarray:
        """The policy's logit for each of the encoder's actions, ``-inf`` where not legal (a
        hook for variants in ``bench/``)."""
        planes, scalars = self.inputs(self.offered if Pass() in legal else None)
        logits = self.policy.logits(planes[None], scalars[None])[0]
        return np.where(enc.legal_mask(self.view, legal), logits, -np.inf)

    def policy_answer(self, legal: LegalActions) -> Action:
        """The policy's best-scored legal action (and ``last_probabilities``)."""
        answer, self.last_probabilities = best_of(self.legal_logits(legal), self.view, legal)
        return answer


class LearnedBot(PolicyPlayer):
    """Plays the learned policy's best legal action."""

    name = "Learned policy"

    def decide(self, legal: LegalActions) -> Action:
        return self.policy_answer(legal)
