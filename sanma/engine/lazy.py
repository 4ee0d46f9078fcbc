"""Names a module re-exports from modules imported on first use (PEP 562).

``sanma score`` is run once per file piped through it, so its start-up counts: each frozen
dataclass costs ~4.4 M instructions to create, and ``dataclasses`` itself (with ``inspect``,
``ast``, ``dis``, ``tokenize``) ~47 M, a fifth of the whole start-up.  Its path reads requests
and rules into plain slotted objects, so the value classes it never builds (``Score``,
``WinContext``, ``Meld``...) live in modules of their own, which the module they always came
from re-exports on first access: ``from sanma.engine.scoring import Score`` works as before.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING: the score path does not import typing (~3 ms of start-up)
if TYPE_CHECKING:
    from collections.abc import Callable


def on_demand(namespace: dict[str, object], homes: dict[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``homes`` (name -> the module that defines it): the first
    access imports that module and keeps the value in ``namespace`` (the module's globals), so
    later accesses are plain lookups; any other name is an ``AttributeError`` as usual."""

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value: object = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    return __getattr__
