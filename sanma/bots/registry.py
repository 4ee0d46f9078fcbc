"""Bot levels by name (the names of shared/spec/cli.md) and how to build one."""

from __future__ import annotations

import importlib
from typing import Final

from sanma.bots.base import Player
from sanma.engine.errors import SanmaError

# level -> (module, class, the name players see)
LEVELS: Final[dict[str, tuple[str, str, str]]] = {
    "beginner": ("sanma.bots.beginner", "BeginnerBot", "Beginner"),
    "normal": ("sanma.bots.normal", "NormalBot", "Normal"),
    "expert": ("sanma.bots.expert", "ExpertBot", "Expert"),
    # The policy learned from phoenix games, the expected-value program over it where it adds
    # strength (docs/bots.md).  The EV master it replaced: py:sanma.bots.ev:EVBot.
    "master": ("sanma.bots.master", "LearnedMaster", "Mahjong master"),
}


def check_level(level: str) -> None:
    """Raise ``SanmaError`` unless ``level`` is one of ``LEVELS``."""
    if level not in LEVELS:
        raise SanmaError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}")


def make_bot(level: str, seat: int, seed: int = 0) -> Player:
    """A fresh bot of ``level`` for ``seat``; the same seed gives the same decisions (on a
    server too: its bots think in worker processes, where no other table slows them, so no
    level needs a clock of its own; ``server/botpool.py``)."""
    check_level(level)
    module_name, class_name, _ = LEVELS[level]
    cls = getattr(importlib.import_module(module_name), class_name)
    player = cls(seat, seed)
    assert isinstance(player, Player)
    return player


def display_name(level: str) -> str:
    """The level as players see it, e.g. ``"Mahjong master"``."""
    return LEVELS[level][2]
