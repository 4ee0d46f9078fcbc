"""A bot's answer depends on what its seat has seen, never on what it was asked before.

The mjai bot repeats an answer rather than asking twice, a review asks a bot about one
decision out of a whole match, and a rebuilt room seats a fresh bot mid-hand: each of them
is right only if a bot that was asked every earlier decision answers as a fresh bot that
saw the same events and was asked nothing.  Checked at every decision of seeded East
matches (the decisions themselves are not pinned: the master's model file changes).
"""

from __future__ import annotations

import pytest

from sanma.bots.base import ask
from sanma.bots.registry import make_bot
from sanma.engine.events import Event
from sanma.engine.match import Match
from sanma.engine.rules import preset
from sanma.engine.visibility import redact

MATCHES = [(seed, ("default", "tenhou", "mahjongsoul")[seed % 3]) for seed in range(1, 7)]
# The master prices every decision (about 10 ms, and the fresh bot prices it again): three
# matches, one per rule preset, rather than six.
CASES = [
    (level, seed, rules)
    for level in ("beginner", "normal", "expert", "master")
    for seed, rules in MATCHES
    if level != "master" or seed <= 3
]


@pytest.mark.slow
@pytest.mark.parametrize(("level", "seed", "rules"), CASES)
def test_every_answer_equals_a_fresh_bots_that_saw_the_same_events(level: str, seed: int, rules: str) -> None:
    match = Match(seed, preset(rules).with_options(length="east"))
    bots = [make_bot(level, seat, seed) for seat in range(3)]
    seen: list[list[Event]] = [[], [], []]

    def tell(events: list[Event]) -> None:
        for event in events:
            for seat, bot in enumerate(bots):
                redacted = redact(event, seat)
                bot.observe(redacted)
                seen[seat].append(redacted)

    tell(match.events)
    decisions = 0
    while not match.finished:
        seat = match.awaiting()[0]
        legal = match.legal_actions(seat)
        answer = ask(bots[seat], legal)
        fresh = make_bot(level, seat, seed)
        for event in seen[seat]:
            fresh.observe(event)
        assert ask(fresh, legal).action == answer.action, (
            f"{level}, match {seed} ({rules}), decision {decisions} of seat {seat}, "
            f"{len(seen[seat])} events in: asked before {answer.action}, fresh {ask(fresh, legal).action}"
        )
        decisions += 1
        tell(match.apply(seat, answer.action))
    assert decisions > 50
