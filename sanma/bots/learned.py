"""The learned policy (``sanma.learn.policy``), alone and as the master's first answer.

Each decision encodes the seat's view (``sanma.learn.encode``: only what the seat sees),
runs the network once and plays the best-scored legal action.  It keeps nothing between
decisions but the view and the tile the current window asks about, so its answer depends
only on what the seat has seen, never on what it was asked before.  No randomness: the
seed is kept for the ``Player`` interface only.

``LearnedBot`` plays the policy alone (a benchmark player: the level ``master`` is
``sanma.bots.master.LearnedMaster``, which asks the same functions for its first answer).
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


def next_offer(offered: Tile | None, event: Event) -> Tile | None:
    """The tile a window asks about after ``event``: a new dora or an accepted riichi between
    a play and its window changes no offer."""
    if isinstance(event, DoraRevealed | RiichiAccepted):
        return offered
    return enc.offered_tile(event)


def policy_logits(policy: Policy, view: SeatView, offered: Tile | None, legal: LegalActions) -> np.ndarray:
    """The policy's logit for each of the encoder's actions, ``-inf`` where not legal
    (``offered``: the tile the last play put up, asked about only in a window)."""
    offer = offered if Pass() in legal else None
    return legal_only(policy.logits(enc.encode(view, offer)[None], enc.scalars(view, offer)[None])[0], view, legal)


def legal_only(logits: np.ndarray, view: SeatView, legal: LegalActions) -> np.ndarray:
    """``logits`` with ``-inf`` where the action is not legal."""
    return np.where(enc.legal_mask(view, legal), logits, -np.inf)


def best_of(legal_logits: np.ndarray, view: SeatView, legal: LegalActions) -> tuple[Action, dict[Action, float]]:
    """The best-scored legal action and every legal action's probability."""
    index = int(legal_logits.argmax())
    odds = np.exp(legal_logits - legal_logits[index])
    odds /= odds.sum()
    legal_indices = np.flatnonzero(np.isfinite(legal_logits))
    probabilities = {enc.action_of(int(i), view, legal): float(odds[i]) for i in legal_indices}
    return enc.action_of(index, view, legal), probabilities


class LearnedBot(Player):
    """Plays the learned policy's best legal action."""

    name = "Learned policy"

    def __init__(self, seat: int, seed: int = 0, policy: Policy | None = None) -> None:
        super().__init__(seat, seed)
        self.policy = policy if policy is not None else served()
        self.offered: Tile | None = None
        self.last_probabilities: dict[Action, float] = {}

    def observe(self, event: Event) -> None:
        super().observe(event)
        self.offered = next_offer(self.offered, event)

    def inputs(self, offered: Tile | None) -> tuple[np.ndarray, np.ndarray]:
        """The network's inputs for the seat's view: planes and scalars (a hook for variants
        that show the network a changed picture, in ``bench/``)."""
        return enc.encode(self.view, offered), enc.scalars(self.view, offered)

    def legal_logits(self, legal: LegalActions) -> np.ndarray:
        """``policy_logits`` through ``inputs`` (a hook for variants in ``bench/``)."""
        planes, scalars = self.inputs(self.offered if Pass() in legal else None)
        return legal_only(self.policy.logits(planes[None], scalars[None])[0], self.view, legal)

    def decide(self, legal: LegalActions) -> Action:
        action, self.last_probabilities = best_of(self.legal_logits(legal), self.view, legal)
        return action
