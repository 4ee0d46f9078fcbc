"""The master's reading of its opponents: a tenpai chance fitted on real positions.

The Expert guesses how likely an opponent is tenpai with hand-set steps per call and per
turn.  Measured on 22,240 opponent positions of master-vs-Expert East matches (the
opponent's real hand checked with the engine's shanten at every discard of the master),
those steps undercount open hands by about half late in a hand: one call at turns 9-11
was tenpai 41% of the time (the Expert's guess 23-27%), two calls 62% (42-48%).  The same
data show the tedashi/tsumogiri pattern: an open hand whose last three discards were all
drawn tiles let straight go was tenpai about twice as often as one that changed its hand
each time.

``tenpai_estimate`` is a logistic fit of that data (calls, turns, tsumogiri among the last
three discards); riichi is tenpai.  ``master_threats`` is ``defence.threats`` with it.
Refit with ``bench/master_tenpai_fit.py``.  ``recent_tsumogiri`` lives in ``sanma.bots.defence``
(the expected-value master reads it too).
"""

from __future__ import annotations

import math
from dataclasses import replace

from sanma.bots.defence import (
    TYPICAL_DANGER,
    Shapes,
    Threat,
    deal_in_loss,
    flush_suit,
    recent_tsumogiri,
    safe_kinds,
)
from sanma.bots.base import Player as BotPlayer  # the bots' base since the one observer record
from sanma.bots.heuristics import Knowledge

# Logistic weights (intercept, two calls or more, three or more, turns/10, recent tsumogiri).
_OPEN = (-2.562, 0.769, 0.311, 1.467, 0.353)
_CLOSED = (-4.625, 1.29, 0.304)
# The wait model refitted (``bench/master_danger_fit.py --matches 600 --seed 7000``:
# 100,286 kinds in the master's hand against really tenpai opponents): deal-in chance per
# unit of each shape (shanpon, tanki, two-sided, closed, edge; pair shapes are collinear,
# hence the negative term), apart for a riichi and for a silent or open tenpai.  The
# Expert's hand-set model undercounts: where it says 6-9% the real rate was 12-13%.
RIICHI_SHAPES: Shapes = (-0.0407, 0.0896, 0.0608, 0.0092, 0.0643)
OTHER_SHAPES: Shapes = (-0.0508, 0.1099, 0.0578, 0.0321, 0.016)
FITTED_DORA = 1.07
# What a ron really paid against the Expert's guess (same run): riichi hands 1.09-1.11x,
# silent or open hands 0.60-0.67x (they are cheaper than it assumes).
RIICHI_LOSS = 1.1
OTHER_LOSS = 0.62
# Past this many discards the fit overshoots (tenpai rates level off late in the hand).
_TURN_CAP = 14


def _logistic(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def tenpai_estimate(bot: BotPlayer, seat: int) -> float:
    """Chance that ``seat`` is tenpai now, from its riichi, calls, turns and tsumogiri."""
    view = bot.view
    if view.riichi[seat]:
        return 1.0
    turns = min(len(view.rivers[seat]), _TURN_CAP) / 10
    calls = sum(1 for m in view.melds[seat] if m.is_open)
    tsumogiri = recent_tsumogiri(bot, seat)
    if calls == 0:
        a, b, c = _CLOSED
        return _logistic(a + b * turns + c * tsumogiri)
    a, two, three, b, c = _OPEN
    return _logistic(a + two * (calls >= 2) + three * (calls >= 3) + b * turns + c * tsumogiri)


def master_threats(
    bot: BotPlayer, k: Knowledge, fitted_waits: bool = False, fitted_loss: bool = False, typical: float = TYPICAL_DANGER
) -> list[Threat]:
    """Both opponents as threats, with the fitted tenpai chance; ``fitted_waits`` and
    ``fitted_loss``: with the wait model and the deal-in costs refitted on real hands too."""
    out = []
    for seat in range(3):
        if seat == k.seat:
            continue
        threat = Threat(
            seat=seat,
            tenpai=tenpai_estimate(bot, seat),
            loss=deal_in_loss(bot, k, seat),
            safe=safe_kinds(bot, seat),
            flush_suit=flush_suit(bot, seat),
            typical=typical,
        )
        riichi = bot.view.riichi[seat]
        if fitted_waits:
            threat = replace(threat, shapes=RIICHI_SHAPES if riichi else OTHER_SHAPES, dora=FITTED_DORA)
        if fitted_loss:
            threat = replace(threat, loss=threat.loss * (RIICHI_LOSS if riichi else OTHER_LOSS))
        out.append(threat)
    return out
