"""The match loop the classic master's fitting scripts share (``master_tenpai_fit``, ``master_danger_fit``)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from legacy.master import MasterBot
from sanma.bots.base import ask
from sanma.bots.registry import make_bot
from sanma.engine.events import Event
from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.engine.visibility import redact

# Called with the match (its real hands), the master, one action's events and the index of
# the event at hand, before the bots observe that event (so the master's view is the one it
# decided with).
Visit = Callable[[Match, MasterBot, Sequence[Event], int], None]


def probe_match(seed: int, visit: Visit) -> None:
    """One East match of the classic master (in seat ``seed % 3``) against two Experts."""
    hero = seed % 3
    match = Match(seed, Rules(length="east"))
    master = MasterBot(hero, seed * 7 + hero)
    bots = [master if s == hero else make_bot("expert", s, seed * 7 + s) for s in range(3)]
    for e in match.events:
        for s, bot in enumerate(bots):
            bot.observe(redact(e, s))
    while not match.finished:
        seat = match.awaiting()[0]
        batch = match.apply(seat, ask(bots[seat], match.legal_actions(seat)).action)
        for i, e in enumerate(batch):
            visit(match, master, batch, i)
            for s, bot in enumerate(bots):
                bot.observe(redact(e, s))
