"""The level master (``sanma.bots.master.LearnedMaster``): the learned policy's answer (where
riichi is legal, its best action of the kind the Expert chose), which the expected-value
program replaces only by an action it prices higher by its margin; every legal win taken;
seeded self-play of three masters, invariants checked after every step."""

from __future__ import annotations

import pytest

from sanma.bots.base import ask
from sanma.bots.ev import priced_as
from sanma.bots.expert import ExpertBot
from sanma.bots.heuristics import winning_action
from sanma.bots.learned import LearnedBot
from sanma.bots.master import LearnedMaster, riichi_as
from sanma.bots.registry import make_bot
from sanma.bots.review import REVIEWER
from sanma.engine.actions import Discard
from sanma.engine.events import Event
from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.engine.visibility import redact
from sanma.learn.policy import served


def test_the_level_master_is_the_learned_master() -> None:
    bot = make_bot("master", 1, 5)
    assert isinstance(bot, LearnedMaster) and bot.name == "Mahjong master"


def test_the_reviews_name_the_weights_the_master_plays() -> None:
    """A stored review is computed again when its master changed: the name must change with
    the weights (``review.REVIEWER``)."""
    assert REVIEWER.split("+")[0] == served().meta["version"]


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "red"), [(51, True), (52, False)])
def test_the_master_plays_the_policy_unless_the_program_prices_better(seed: int, red: bool) -> None:
    match = Match(seed, Rules(length="east", red_fives=red))
    masters = [LearnedMaster(s, seed) for s in range(3)]
    policies = [LearnedBot(s, seed, masters[s].policy) for s in range(3)]
    experts = [ExpertBot(s, seed) for s in range(3)]
    counts = {"policy": 0, "priced": 0, "overruled": 0, "wins": 0, "riichi": 0, "expert_riichi": 0}

    def tell(events: list[Event]) -> None:
        for e in events:
            for s in range(3):
                masters[s].observe(redact(e, s))
                policies[s].observe(redact(e, s))
                experts[s].observe(redact(e, s))

    tell(list(match.events))
    while not match.finished:
        seat = match.awaiting()[0]
        legal = match.legal_actions(seat)
        answer = ask(masters[seat], legal)
        assert answer.status == "ok", answer
        master, values = masters[seat], masters[seat].last_values
        policy = policies[seat].decide(legal)
        if any(riichi for _, riichi in legal.discard_tiles):
            # Riichi legal: whether to declare is the Expert's, the tile the policy's.
            counts["riichi"] += 1
            expert = experts[seat].decide(legal)
            counts["expert_riichi"] += isinstance(expert, Discard) and expert.riichi
            policy = riichi_as(expert, policies[seat].last_probabilities) or policy
        win = winning_action(legal)
        if win is not None:
            assert answer.action == win
            counts["wins"] += 1
        elif not values:
            assert answer.action == policy
            counts["policy"] += 1
        else:
            counts["priced"] += 1
            base = priced_as(policy, values)
            assert base is not None  # the policy's own answer is always priced when any is
            if answer.action != policy:
                chosen = priced_as(answer.action, values)
                assert chosen is not None and values[chosen] - values[base] >= master.margin
                counts["overruled"] += 1
        tell(match.apply(seat, answer.action))
        match.check_invariants()
    assert counts["policy"] > 50 and counts["priced"] > 0 and counts["wins"] > 0, counts
    assert counts["riichi"] >= counts["expert_riichi"] > 0, counts
