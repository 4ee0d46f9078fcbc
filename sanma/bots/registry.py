"""Bot levels by name (the names of shared/spec/cli.md) and how to build one."""

from __future__ import annotations

import importlib
import time
from typing import Any, Final

from sanma.bots.base import Player
from sanma.engine.errors import SanmaError

# level -> (module, class, the name players see)
LEVELS: Final[dict[str, tuple[str, str, str]]] = {
    "beginner": ("sanma.bots.beginner", "BeginnerBot", "Beginner"),
    "normal": ("sanma.bots.normal", "NormalBot", "Normal"),
    "expert": ("sanma.bots.expert", "ExpertBot", "Expert"),
    # The expected-value master.  The policy learned from phoenix games is a candidate, not
    # a level, until an arena run shows it stronger (docs/bots.md): py:sanma.bots.learned:LearnedBot.
    "master": ("sanma.bots.ev", "EVBot", "Mahjong master"),
}


# A live table's master thinks under a clock: past this many seconds a decision is priced
# again on the short horizon, past twice it the Expert's answer stands (ev.EVBot's
# ``time_budget``), well inside the server's bot budget.  The wall clock, not CPU time: the
# server's bots share one process and its GIL, so a busy server slows a decision without it
# spending more CPU of its own, and the player waits by the wall clock.
LIVE_THINK_S: Final = 1.0
LIVE_OPTIONS: Final[dict[str, dict[str, Any]]] = {
    "master": {"time_budget": LIVE_THINK_S, "clock": time.perf_counter},
}


def make_bot(level: str, seat: int, seed: int = 0, *, live: bool = False) -> Player:
    """A fresh bot of ``level`` for ``seat``; the same seed gives the same decisions, unless
    ``live`` (a server's table), where a level that thinks under a clock gets one."""
    try:
        module_name, class_name, _ = LEVELS[level]
    except KeyError:
        raise SanmaError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}") from None
    cls = getattr(importlib.import_module(module_name), class_name)
    player = cls(seat, seed, **(LIVE_OPTIONS.get(level, {}) if live else {}))
    assert isinstance(player, Player)
    return player


def live_bot(level: str, seat: int, seed: int = 0) -> Player:
    """A bot for a live table (the server's default factory): ``make_bot(..., live=True)``."""
    return make_bot(level, seat, seed, live=True)


def display_name(level: str) -> str:
    """The level as players see it, e.g. ``"Mahjong master"``."""
    return LEVELS[level][2]
