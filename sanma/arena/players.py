"""Player specs: how the arena and ``sanma arena --players`` name a player.

A spec is a bot level (``beginner``, ``normal``, ``expert``, ``master``) or ``KIND:ARG``
where ``KIND`` is a registered hook:

* ``mjai:COMMAND``: an external mjai bot run as a subprocess (``sanma.bots.mjai_player``);
* ``py:MODULE:NAME``: any importable ``Player`` class or factory ``(seat, seed) -> Player``.

Other code may add hooks with ``register_kind``.  Factories are built from picklable pieces
(classes, module-level functions, ``functools.partial``) so worker processes can use them.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import shlex
from collections.abc import Callable
from typing import Final

from sanma.arena.duplicate import Entrant, PlayerFactory
from sanma.bots.base import Player
from sanma.bots.registry import LEVELS, make_bot
from sanma.engine.errors import SanmaError

KindHook = Callable[[str], PlayerFactory]
"""Turns the part of a spec after ``KIND:`` into a player factory."""


def _mjai_player(command: tuple[str, ...], seat: int, seed: int) -> Player:
    from sanma.bots.mjai_player import MjaiPlayer  # imported only when an mjai player is seated

    player = MjaiPlayer(seat, seed, command=list(command))
    assert isinstance(player, Player)
    return player


def _mjai_hook(arg: str) -> PlayerFactory:
    command = tuple(shlex.split(arg))
    if not command:
        raise SanmaError("mjai:COMMAND needs a command, e.g. mjai:'python -m sanma mjai-bot --level normal'")
    return functools.partial(_mjai_player, command)


def _python_hook(arg: str) -> PlayerFactory:
    module_name, _, attr = arg.partition(":")
    if not module_name or not attr:
        raise SanmaError(f"py:MODULE:NAME expected, got py:{arg}")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise SanmaError(f"cannot load player py:{arg}: {exc}") from None
    if not callable(factory):
        raise SanmaError(f"py:{arg} is not a player class or factory")
    return factory  # type: ignore[no-any-return]


KINDS: Final[dict[str, KindHook]] = {"mjai": _mjai_hook, "py": _python_hook}


def level_available(level: str) -> bool:
    """Whether the module of bot level ``level`` exists yet (levels are written one by one)."""
    if level not in LEVELS:
        return False
    try:
        return importlib.util.find_spec(LEVELS[level][0]) is not None
    except ImportError:
        return False


def register_kind(kind: str, hook: KindHook) -> None:
    """Let specs ``KIND:ARG`` build players through ``hook(ARG)``."""
    KINDS[kind] = hook


def parse_player(spec: str) -> Entrant:
    """The entrant a spec names (its name in reports is the spec itself)."""
    spec = spec.strip()
    if spec in LEVELS:
        return Entrant(spec, functools.partial(make_bot, spec))
    kind, sep, arg = spec.partition(":")
    if sep and kind in KINDS:
        return Entrant(spec, KINDS[kind](arg))
    kinds = ", ".join(f"{k}:..." for k in KINDS)
    raise SanmaError(f"unknown player {spec!r}: use a level ({', '.join(LEVELS)}) or {kinds}")


def parse_players(specs: str) -> tuple[Entrant, Entrant, Entrant]:
    """Three comma-separated specs, e.g. ``"normal,beginner,beginner"``."""
    parts = [p for p in (s.strip() for s in specs.split(",")) if p]
    if len(parts) != 3:
        raise SanmaError(f"the arena seats exactly three players, got {len(parts)}: {specs!r}")
    a, b, c = (parse_player(p) for p in parts)
    return a, b, c
