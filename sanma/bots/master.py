"""The Mahjong master: the policy learned from phoenix-room games, with the expected-value
program kept where a paired arena run showed it adds strength.

Every decision is first the policy's (``sanma.bots.learned``: the seat's view through the
network, the best-scored legal action), except that where riichi is legal the Expert decides
whether to declare and the policy picks the tile (the policy declares on 30% of hands, the
Experts and the humans it learned from more often; this placed 0.02 better on the same walls,
docs/bots.md).  The program (``sanma.bots.ev``) then prices the
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
from sanma.bots.expert import ExpertBot
from sanma.bots.heuristics import winning_action
from sanma.bots.learned import PolicyPlayer
from sanma.engine.actions import Action, Discard
from sanma.engine.kyoku import LegalActions
from sanma.learn.policy import Policy


class LearnedMaster(EVBot, PolicyPlayer):
    """``EVBot`` whose base answer is the learned policy's (``PolicyPlayer.policy_answer``), with
    the Expert's riichi."""

    name = "Mahjong master"

    def __init__(self, seat: int, seed: int = 0, policy: Policy | None = None) -> None:
        super().__init__(seat, seed)  # through EVBot and ExpertBot to PolicyPlayer: the served weights
        if policy is not None:
            self.policy = policy

    def base(self, legal: LegalActions) -> Action:
        """A legal win; else where riichi is legal the policy's most probable action of the kind
        the Expert chose (a riichi discard, or anything else); else the policy's answer."""
        answer = self.policy_answer(legal)
        win = winning_action(legal)
        if win is not None:
            return win
        if not any(riichi for _, riichi in legal.discard_tiles):
            return answer
        return riichi_as(ExpertBot.decide(self, legal), self.last_probabilities) or answer


def riichi_as(expert: Action, odds: dict[Action, float]) -> Action | None:
    """Of the actions in ``odds``, the most probable one that declares riichi exactly when
    ``expert`` does (``None`` when there is none)."""
    wanted = isinstance(expert, Discard) and expert.riichi
    kind = [a for a in odds if (isinstance(a, Discard) and a.riichi) == wanted]
    return max(kind, key=odds.__getitem__) if kind else None
