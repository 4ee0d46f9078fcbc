"""Candidate masters for a paired arena run, the learned policy mixed with a program:

* ``PolicyWithEV``: the policy, with the expected-value program pricing its own-turn decisions
  while an opponent is in riichi (push or fold);
* ``expert_calm``: the Expert while nobody threatens it, the policy under pressure (the Expert's
  own test of pressure: a riichi, or an open hand that looks tenpai);
* ``policy_calm``: the other way round, the policy while calm and the Expert under pressure;
* ``EVOverPolicy``: the expected-value master with the policy in the Expert's place: the policy
  answers, and the program overrides it wherever it overrides the Expert (a threat, or the
  match's last dealer turns) when it prices another action higher by its margin.  Since
  session 20 this is the level master (``sanma.bots.master.LearnedMaster``), which also takes
  every legal win; this class keeps the policy's answer there, as it was measured.

* ``master_margin_01``: the level master overruling the policy by a 0.1 edge, not 0.25 (session 22).

``expert_calm`` and ``policy_calm`` take every legal win, as every level does.

Not a level: issue 25 keeps the program in the master only where a paired run on the same
walls shows it adds strength.  Run from the repository root so that ``bench`` imports:

    nice -n 5 .venv/bin/python -m sanma arena \\
        --players py:bench.learn_hybrid:PolicyWithEV,expert,expert --matches 2400 --rotations 6 \\
        --length east --seed 12001 --workers 2 --json /work/data/arena/hybrid_vs_experts.json
    .venv/bin/python bench/arena_pair.py /work/data/arena/master_vs_experts.json \\
        /work/data/arena/hybrid_vs_experts.json --index 0
"""

from __future__ import annotations

from sanma.bots.base import Player
from sanma.bots.ev import EVBot, priced_as
from sanma.bots.expert import ExpertBot
from sanma.bots.heuristics import winning_action
from sanma.bots.learned import LearnedBot
from sanma.bots.master import LearnedMaster
from sanma.engine.actions import Action, Pass
from sanma.engine.events import Event
from sanma.engine.kyoku import LegalActions


class PolicyWithEV(LearnedBot):
    """The policy's answer, unless an opponent is in riichi and the program prices another
    own-turn action higher by its margin."""

    name = "Mahjong master + EV under riichi"

    def __init__(self, seat: int, seed: int = 0) -> None:
        super().__init__(seat, seed)
        self.program = EVBot(seat, seed)
        self.overruled = 0

    def observe(self, event: Event) -> None:
        super().observe(event)
        self.program.observe(event)

    def decide(self, legal: LegalActions) -> Action:
        choice = super().decide(legal)
        view = self.view
        threatened = any(view.riichi[s] for s in range(3) if s != self.seat)
        if not threatened or view.riichi[self.seat] or Pass() in legal:
            return choice
        values = self.program.price(legal, choice)
        mine = priced_as(choice, values)
        if not values or mine is None:
            return choice
        best = max(values, key=lambda a: (values[a], a == mine))
        if values[best] - values[mine] < self.program.margin:
            return choice
        self.overruled += 1
        return best


class SplitByPressure(Player):
    """One player while the Expert feels no pressure, another while it does."""

    name = "Mahjong master (split by pressure)"

    def __init__(self, seat: int, seed: int = 0, policy_when_pressed: bool = True) -> None:
        super().__init__(seat, seed)
        self.expert = ExpertBot(seat, seed)
        self.policy = LearnedBot(seat, seed)
        self.policy_when_pressed = policy_when_pressed
        self.by_policy = 0
        self.decisions = 0

    def observe(self, event: Event) -> None:
        super().observe(event)
        self.expert.observe(event)
        self.policy.observe(event)

    def decide(self, legal: LegalActions) -> Action:
        win = winning_action(legal)
        if win is not None:
            return win
        answer = self.expert.decide(legal)  # also tells whether it is under pressure now
        self.decisions += 1
        if self.expert.pressed != self.policy_when_pressed:
            return answer
        self.by_policy += 1
        return self.policy.decide(legal)


def expert_calm(seat: int, seed: int) -> SplitByPressure:
    return SplitByPressure(seat, seed, policy_when_pressed=True)


def policy_calm(seat: int, seed: int) -> SplitByPressure:
    return SplitByPressure(seat, seed, policy_when_pressed=False)


class EVOverPolicy(LearnedMaster):
    """The level master as session 19 measured it (``bench/learn_hybrid.py`` then): the
    policy's answer stands where a win is legal too (the level takes every win), and where
    riichi is legal (the level asks the Expert since session 21)."""

    name = "Mahjong master (EV over the policy, as measured in session 19)"

    def base(self, legal: LegalActions) -> Action:
        return self.policy_answer(legal)


class EVOverExpertRiichi(LearnedMaster):
    """The level master with the Expert deciding riichi or not, as session 20 measured it;
    since session 21 the level master itself (``LearnedMaster.base``), kept under this name
    for the commands in docs/benchmarks.md."""

    name = "Mahjong master (EV over the policy, the Expert's riichi)"


def master_margin_01(seat: int, seed: int) -> LearnedMaster:
    """The level master trusting the program more: it overrules the policy by 0.1 placement
    points rather than 0.25 (the margin was measured with the Expert as the base)."""
    master = LearnedMaster(seat, seed)
    master.margin = 0.1
    return master
