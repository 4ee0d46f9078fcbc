"""Candidates for a paired arena run: the learned policy, pushed towards riichi.

The policy learned the phoenix players' caution (it declares riichi on 29% of its hands, the
Expert on 41%), which pays against people who read a river and not against bots that push
every tenpai.  Two ways to undo that, each a factory ``(seat, seed) -> Player`` for
``py:bench.learn_tuned:NAME``:

* ``riichi_bias_1`` .. ``riichi_bias_3``: add that much to every riichi discard's logit;
* ``expert_riichi``: the Expert says whether to declare; the policy picks the tile;
* ``expert_riichi_south``: the same, and in an East match the network is told it is one round
  later (East as South, South as West, four hands more): every phoenix game is East-South, so
  the policy learned the end of a match only in the South round.

Run from the repository root so that ``bench`` imports:

    nice -n 5 .venv/bin/python -m sanma arena \\
        --players py:bench.learn_tuned:riichi_bias_2,expert,expert --matches 2400 --rotations 6 \\
        --length east --seed 12001 --workers 2
"""

from __future__ import annotations

import numpy as np

from sanma.bots.expert import ExpertBot
from sanma.bots.learned import LearnedBot
from sanma.engine.actions import Action, Discard
from sanma.engine.events import Event
from sanma.engine.kyoku import LegalActions
from sanma.engine.tiles import Tile
from sanma.learn import encode as enc


class BiasedPolicy(LearnedBot):
    """The policy's best legal action after ``bias`` is added to the riichi logits."""

    def __init__(self, seat: int, seed: int = 0, bias: float = 0.0) -> None:
        super().__init__(seat, seed)
        self.bias = np.zeros(enc.ACTION_COUNT, dtype=np.float32)
        self.bias[enc.RIICHI : enc.PON] = bias

    def legal_logits(self, legal: LegalActions) -> np.ndarray:
        return super().legal_logits(legal) + self.bias  # -inf stays -inf: still only the legal


class ExpertRiichi(BiasedPolicy):
    """The Expert decides riichi or not; the policy chooses the tile."""

    def __init__(self, seat: int, seed: int = 0) -> None:
        super().__init__(seat, seed)
        self.expert = ExpertBot(seat, seed)

    def observe(self, event: Event) -> None:
        super().observe(event)
        self.expert.observe(event)

    def decide(self, legal: LegalActions) -> Action:
        logits = self.legal_logits(legal)
        if not any(riichi for _, riichi in legal.discard_tiles):
            return enc.action_of(int(logits.argmax()), self.view, legal)
        answer = self.expert.decide(legal)
        wanted = isinstance(answer, Discard) and answer.riichi
        riichi = np.zeros(enc.ACTION_COUNT, dtype=bool)
        riichi[enc.RIICHI : enc.PON] = True
        chosen = np.where(riichi == wanted, logits, -np.inf)
        return enc.action_of(int(chosen.argmax()), self.view, legal)


class EastAsSouth(ExpertRiichi):
    """``ExpertRiichi`` that shows the network an East match's rounds as an East-South's last."""

    def inputs(self, offered: Tile | None) -> tuple[np.ndarray, np.ndarray]:
        planes, scalars = super().inputs(offered)
        rules = self.view.rules
        if rules is None or rules.length != "east":
            return planes, scalars
        rounds = scalars[ROUND : ROUND + 3].copy()
        scalars[ROUND : ROUND + 3] = 0.0
        scalars[ROUND + 1 : ROUND + 3] = rounds[:2]  # East -> South, South (extension) -> West
        scalars[HAND_NUMBER] += LATER_HANDS / 10  # encode.scalars keeps hand_number / 10
        return planes, scalars


ROUND = enc.SCALAR_NAMES.index("round_east")
HAND_NUMBER = enc.SCALAR_NAMES.index("hand_number")
LATER_HANDS = 4  # about the hands of a phoenix game's East round (three dealers and repeats)


def riichi_bias_1(seat: int, seed: int) -> BiasedPolicy:
    return BiasedPolicy(seat, seed, 1.0)


def riichi_bias_2(seat: int, seed: int) -> BiasedPolicy:
    return BiasedPolicy(seat, seed, 2.0)


def riichi_bias_3(seat: int, seed: int) -> BiasedPolicy:
    return BiasedPolicy(seat, seed, 3.0)


def expert_riichi(seat: int, seed: int) -> ExpertRiichi:
    return ExpertRiichi(seat, seed)


def expert_riichi_south(seat: int, seed: int) -> EastAsSouth:
    return EastAsSouth(seat, seed)
