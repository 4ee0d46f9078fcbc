"""The expected-value master's A/B switches and variants, kept for the benchmarks' history.

``sanma.bots.ev.EVBot`` is the calm master as measured best: the program prices a decision
only under threat or in the match's last dealer turn, a later push risks the hand's average
tile, and the Expert's answer stands unless another beats it by ``margin``.  The switches
that turned those choices off or built the variants measured against it (docs/bots.md, "The
expected-value master") live here: ``VariantEVBot`` takes them as keywords (the defaults give
the same decisions as ``EVBot``), and the module-level factories are the variants the docs'
commands name (``py:legacy.ev_variants:calm_priced``, run from the repository root).

Frozen: it overrides private pieces of ``sanma.bots.ev`` (``_Run``, ``Program._turns``) and is
not maintained with it.
"""

from __future__ import annotations

from typing import Any

from sanma.bots import ev
from sanma.bots.expert import ExpertBot
from sanma.bots.heuristics import Knowledge, know, winning_action
from sanma.engine.actions import Action, Discard, Pass, Pon
from sanma.engine.kyoku import LegalActions
from sanma.engine.tiles import KIND_COUNT

EVERYWHERE_MARGIN = 0.5  # the margin of the master that prices every near hand (``everywhere``)


class VariantEVBot(ev.EVBot):
    """``EVBot`` with its A/B switches: ``calm_expert`` (off: every near hand priced, calm or
    not), ``keep_riichi``, ``drawn_risk``, ``calm_margin`` and ``last_turns``."""

    def __init__(
        self,
        seat: int,
        seed: int = 0,
        *,
        calm_expert: bool = True,
        keep_riichi: bool = False,
        drawn_risk: bool = False,
        calm_margin: float | None = None,
        last_turns: int = ev.LAST_TURNS,
        **options: Any,
    ) -> None:
        super().__init__(seat, seed, **options)
        # Leave calm decisions to the Expert before the match's last ``last_turns`` dealer turns.
        self.calm_expert = calm_expert
        # When the Expert declares riichi, the program only chooses among riichi discards (the
        # calm master riichis in 34.5% of hands, the Experts in 40.1%).
        self.keep_riichi = keep_riichi
        # A later pushed discard's risk: the drawn tile's (unseen kinds by copies), or the
        # average of the hand's own kinds (``EVBot``'s).
        self.drawn_risk = drawn_risk
        # With ``calm_expert``: a calm decision is priced too, but the Expert's answer stands
        # unless another beats it by this much (``None``: calm decisions are not priced).
        self.calm_margin = calm_margin
        self._calm = False  # whether the decision being priced is a calm one
        self.last_turns = last_turns

    def decide(self, legal: LegalActions) -> Action:
        """``EVBot.decide`` with ``keep_riichi`` and ``calm_margin``."""
        expert = ExpertBot.decide(self, legal)
        self.last_expert = expert
        self.last_values = {}
        self._calm = False
        if winning_action(legal) is not None:
            return expert
        values = self.price(legal, expert)
        if not values:
            return expert
        if self.keep_riichi and isinstance(expert, Discard) and expert.riichi:
            values = {a: v for a, v in values.items() if isinstance(a, Discard) and a.riichi}
        self.last_values = values
        mine = ev.priced_as(expert, values)
        if mine is None:
            return expert
        best = max(values, key=lambda a: (values[a], a == mine))
        margin = self.calm_margin if self._calm and self.calm_margin is not None else self.margin
        if values[best] - values[mine] < margin:
            return expert
        return best

    def price(self, legal: LegalActions, expert: Action | None = None) -> dict[Action, float]:
        if self.view.riichi[self.seat]:
            return {}
        run = _VariantRun(self, know(self.view), legal)
        if any(isinstance(a, Pon) for a in legal) or (Pass() in legal and not ev._discards(legal)):
            return run.calls(expert)
        return run.turn(expert)


class VariantProgram(ev.Program):
    """The program with ``drawn_risk``: a later pushed discard risks the tile just drawn."""

    bot: VariantEVBot

    def _turns(self) -> ev.Turn:
        turns = super()._turns()
        if not self.bot.drawn_risk:
            return turns
        # A pushed discard of a later turn is mostly the tile just drawn (a draw that does not
        # bring the hand closer goes straight out): an unseen kind, weighted by its copies.
        drawn = [kind for kind in range(KIND_COUNT) if self.pool[kind]]
        pool = max(1, sum(self.pool[kind] for kind in drawn))
        for i in range(self.draws + 2):
            pushed = [(self.pool[kind], self.tile_risk(kind, i)) for kind in drawn]
            turns.push_risk[i] = sum(c * r[0] for c, r in pushed) / pool
            turns.push_util[i] = sum(c * r[1] for c, r in pushed) / pool
        return turns


class _VariantRun(ev._Run):
    bot: VariantEVBot

    def program(self, k: Knowledge, riichi_legal: bool, kita: int | None = None) -> ev.Program:
        return VariantProgram(self.bot, k, riichi_legal, self.bot.budget, kita=kita)

    def left_to_base(self, program: ev.Program) -> bool:
        if self.threatened(program):
            return False
        bot = self.bot
        calm = bot.calm_expert and program.table.turns_left > bot.last_turns
        bot._calm = calm
        return not self.near or (calm and bot.calm_margin is None)


def one_shanten(seat: int, seed: int = 0) -> VariantEVBot:
    """The EV master pricing every hand one shanten or closer only (an A/B variant of
    ``everywhere``); 2-shanten hands are the Expert's."""
    return VariantEVBot(seat, seed, margin=EVERYWHERE_MARGIN, calm_expert=False, max_shanten=1)


def everywhere(seat: int, seed: int = 0) -> VariantEVBot:
    """The EV master pricing every hand two shanten or closer, calm or not, with margin 0.5
    (the default until the calm master measured better)."""
    return VariantEVBot(seat, seed, margin=EVERYWHERE_MARGIN, calm_expert=False)


def keep_riichi(seat: int, seed: int = 0) -> VariantEVBot:
    """The calm master that riichis whenever the Expert would (an A/B variant)."""
    return VariantEVBot(seat, seed, keep_riichi=True)


def pressed(seat: int, seed: int = 0) -> VariantEVBot:
    """The calm master with margin 0.5 (an A/B variant)."""
    return VariantEVBot(seat, seed, margin=EVERYWHERE_MARGIN)


def calm_priced(seat: int, seed: int = 0) -> VariantEVBot:
    """The calm master that prices its calm decisions too and overrules the Expert there
    only by 1.0 placement points (an A/B variant)."""
    return VariantEVBot(seat, seed, calm_margin=1.0)
