"""Benchmark players: the Normal and Expert bots with another nine-terminals rule.

The shipped bots declare the abortive draw when it is legal and they hold fewer than 11
terminal and honor kinds.  These variants play on instead (``*_never``) or declare only with
exactly nine kinds (``*_nine``), so a paired arena run on the same walls measures the rule:

    .venv/bin/sanma arena --players normal,normal,normal --matches 600 --length east \\
        --seed 2401 --workers 2 --no-progress --json /tmp/a.json
    .venv/bin/sanma arena --players py:bench.nine_terminals:normal_never,normal,normal ... --json /tmp/b.json
    .venv/bin/python bench/arena_pair.py /tmp/a.json /tmp/b.json --index 0
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from sanma.bots.base import Player

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanma.bots.expert import ExpertBot
from sanma.bots.heuristics import know, nine_terminal_kinds
from sanma.bots.normal import NormalBot
from sanma.engine.actions import Action, NineTerminals
from sanma.engine.kyoku import LegalActions


def _declare_below(bot: Player, legal: LegalActions, limit: int) -> Action | None:
    """The declaration when it is legal and the hand holds fewer than ``limit`` kinds."""
    if NineTerminals() in legal and nine_terminal_kinds(know(bot.view)) < limit:
        return NineTerminals()
    return None


def _without_abort(legal: LegalActions) -> LegalActions:
    """The same choices less the declaration, so the shipped rule cannot take it."""
    return dataclasses.replace(legal, actions=tuple(a for a in legal.actions if a != NineTerminals()))


class NormalNever(NormalBot):
    """Normal that always plays the hand on."""

    limit = 0

    def decide(self, legal: LegalActions) -> Action:
        return _declare_below(self, legal, self.limit) or super().decide(_without_abort(legal))


class NormalNine(NormalNever):
    """Normal that declares only with exactly nine kinds."""

    limit = 10


class ExpertNever(ExpertBot):
    """Expert that always plays the hand on."""

    limit = 0

    def decide(self, legal: LegalActions) -> Action:
        return _declare_below(self, legal, self.limit) or super().decide(_without_abort(legal))


class ExpertNine(ExpertNever):
    """Expert that declares only with exactly nine kinds."""

    limit = 10


normal_never, normal_nine, expert_never, expert_nine = NormalNever, NormalNine, ExpertNever, ExpertNine
