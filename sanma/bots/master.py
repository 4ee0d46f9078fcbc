"""The Mahjong master: the policy learned from phoenix-room games, with the expected-value
program kept where a paired arena run showed it adds strength.

Every decision is first the policy's (``sanma.bots.learned``: the seat's view through the
network, the best-scored legal action).  The program (``sanma.bots.ev``) then prices the
decisions where it beat plain play: while an opponent threatens (a riichi, or an open hand
likely tenpai) and in the match's last dealer turns, on hands two shanten or closer; where it
prices another action higher than the policy's by its margin, that action is played.  On
the same 200 seed groups of East matches against two Experts this placed 0.067 +- 0.061
better than the policy with the Expert's riichi, the best policy without the program
(docs/bots.md, "Mahjong master: the learned policy with the expected-value program over it").

A legal win is always taken, as at every level: the policy follows the humans it learned
from, who now and then turn a win down.

Like every level it keeps nothing between decisions but the seat's view, the tile a window
asks about and the program's caches of the current event, so an answer depends only on what
the seat has seen.
"""

from __future__ import annotations

from sanma.bots.ev import EVBot
from sanma.bots.heuristics import winning_action
from sanma.bots.learned import PolicyPlayer
from sanma.engine.actions import Action
from sanma.engine.kyoku import LegalActions
from sanma.learn.policy import Policy


class LearnedMaster(EVBot, PolicyPlayer):
    """``EVBot`` whose base answer is the learned policy's (``PolicyPlayer.policy_answer``)."""

    name = "Mahjong master"

    def __init__(self, seat: int, seed: int = 0, policy: Policy | None = None) -> None:
        super().__init__(seat, seed)  # through EVBot and ExpertBot to PolicyPlayer: the served weights
        if policy is not None:
            self.policy = policy

    def base(self, legal: LegalActions) -> Action:
        answer = self.policy_answer(legal)
        return winning_action(legal) or answer
