"""The expected-value master's A/B switches (``legacy.ev_variants``, frozen; run by hand, see
legacy/README.md): with its defaults the variant bot is ``EVBot``, and each switch moves what
it says."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from legacy.ev_variants import VariantEVBot, VariantProgram, calm_priced, everywhere, keep_riichi, one_shanten, pressed
from sanma.bots.base import ask
from sanma.bots.ev import EVBot, priced_as
from sanma.bots.expert import ExpertBot
from sanma.bots.heuristics import know
from sanma.engine.actions import Action, Discard
from sanma.engine.kyoku import LegalActions
from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.engine.visibility import redact


def _play(bots: list[Any], seed: int) -> Match:
    match = Match(seed, Rules(length="east"))
    for e in match.events:
        for s, bot in enumerate(bots):
            bot.observe(redact(e, s))
    while not match.finished:
        seat = match.awaiting()[0]
        answer = ask(bots[seat], match.legal_actions(seat))
        assert answer.status == "ok", answer.detail
        for e in match.apply(seat, answer.action):
            for s, bot in enumerate(bots):
                bot.observe(redact(e, s))
    return match


def test_the_defaults_play_as_the_ev_master() -> None:
    assert _play([VariantEVBot(s, 3) for s in range(3)], 3).events == _play([EVBot(s, 3) for s in range(3)], 3).events


def test_every_variant_plays_legally() -> None:
    for factory in (one_shanten, everywhere, keep_riichi, pressed, calm_priced):
        match = _play([factory(0, 4), ExpertBot(1, 4), ExpertBot(2, 4)], 4)
        assert match.finished


Decision = tuple[VariantEVBot, VariantEVBot, LegalActions, Action, bool, bool]


def _own_discards(seed: int, **options: Any) -> Iterator[Decision]:
    """Every own-turn decision (not in riichi) of three variant masters built with ``options``
    in one East match: the bot before and after it, the legal actions, its answer, whether an
    opponent threatened and whether it was the match's last dealer turn."""
    match = Match(seed, Rules(length="east"))
    bots = [VariantEVBot(s, seed, **options) for s in range(3)]
    for e in match.events:
        for s, bot in enumerate(bots):
            bot.observe(redact(e, s))
    while not match.finished:
        seat = match.awaiting()[0]
        bot, legal = bots[seat], match.legal_actions(seat)
        before = copy.deepcopy(bot)
        answer = ask(bot, legal)
        assert answer.status == "ok" and answer.action in legal
        if any(isinstance(a, Discard) for a in legal) and not before.view.riichi[seat]:
            program = VariantProgram(before, know(before.view), False, before.budget)
            threatened = any(o.tenpai[0] >= before.threat for o in program.opps)
            yield before, bot, legal, answer.action, threatened, program.table.turns_left <= 1
        for e in match.apply(seat, answer.action):
            for s, b in enumerate(bots):
                b.observe(redact(e, s))


def test_the_calm_switches_move_the_line_between_the_expert_and_the_program() -> None:
    """``last_turns=0``: the last dealer turn is calm too (priced only under threat);
    ``calm_margin``: calm decisions are priced, and the program overrules the Expert there only
    by that margin."""
    for _, bot, _, _, threatened, _ in _own_discards(21, last_turns=0):
        assert not bot.last_values or threatened
    calm_priced = 0
    for before, bot, legal, action, threatened, last in _own_discards(21, calm_margin=1.0):
        if threatened or last or not bot.last_values:
            continue
        calm_priced += 1
        expert = ExpertBot.decide(before, legal)
        if action != expert:
            mine = priced_as(expert, bot.last_values)
            assert mine is not None and bot.last_values[action] - bot.last_values[mine] >= 1.0
    assert calm_priced > 20, calm_priced


def test_drawn_risk_prices_a_later_push_by_the_tiles_that_can_be_drawn() -> None:
    """``drawn_risk``: the risk of a later pushed discard is that of the unseen kinds weighted by
    their copies (the drawn tile goes out), not the average of the hand's own kinds."""
    differs = 0
    for before, _, _, _, threatened, _ in _own_discards(21):
        if not threatened:
            continue
        k = know(before.view)
        before.drawn_risk = True
        drawn = VariantProgram(before, k, False, before.budget)
        before.drawn_risk = False
        held = VariantProgram(before, k, False, before.budget)
        pool = [(drawn.pool[kind], drawn.tile_risk(kind, 0)[0]) for kind in range(len(drawn.pool))]
        expected = sum(n * p for n, p in pool) / sum(n for n, _ in pool)
        assert drawn.turns.push_risk[0] == pytest.approx(expected)
        differs += abs(drawn.turns.push_risk[0] - held.turns.push_risk[0]) > 1e-3
    assert differs > 0
