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
    # The policy learned from phoenix-room games; the expected-value master it replaced
    # stays reachable as py:sanma.bots.ev:EVBot (the arena's "old master").
    "master": ("sanma.bots.learned", "LearnedBot", "Mahjong master"),
}


def make_bot(level: str, seat: int, seed: int = 0) -> Player:
    """A fresh bot of ``level`` for ``seat``; the same seed and events give the same decisions.
    No level needs a clock: the master's decision is one fixed-size forward pass."""
    try:
        module_name, class_name, _ = LEVELS[level]
    except KeyError:
        raise SanmaError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}") from None
    cls = getattr(importlib.import_module(module_name), class_name)
    player = cls(seat, seed)
    assert isinstance(player, Player)
    return player


def display_name(level: str) -> str:
    """The level as players see it, e.g. ``"Mahjong master"``."""
    return LEVELS[level][2]
