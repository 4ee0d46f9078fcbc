"""The engine's value classes that ``sanma score`` never builds live in modules imported on first
use (``sanma.engine.lazy``): from every module they always came from they are the same frozen,
slotted dataclasses, and the CLI's ``PresetRules`` holds the same values as each ``Rules`` preset."""

from __future__ import annotations

import dataclasses
import importlib

import pytest

from sanma.engine import presets
from sanma.engine.errors import SanmaError
from sanma.engine.presets import PRESET_NAMES, PresetRules, preset_rules
from sanma.engine.rules import DEFAULT, PRESETS, Rules, preset

# (module imported from, name, the module that defines it)
REEXPORTS = [
    ("sanma.engine.scoring", "Score", "sanma.engine.score"),
    ("sanma.engine.scoring", "Payments", "sanma.engine.score"),
    ("sanma.engine.scoring", "WinContext", "sanma.engine.win_context"),
    ("sanma.engine.scoring", "score_win", "sanma.engine.score"),
    ("sanma.engine.scoring", "tsumo_payments", "sanma.engine.score"),
    ("sanma.engine.context", "WinContext", "sanma.engine.win_context"),
    ("sanma.engine.hand", "Meld", "sanma.engine.meld"),
    ("sanma.engine.yaku", "Reading", "sanma.engine.reading"),
    ("sanma.engine.decompose", "Block", "sanma.engine.decompose_search"),
    ("sanma.engine.decompose", "Decomposition", "sanma.engine.decompose_search"),
    ("sanma.engine.decompose", "decompositions", "sanma.engine.decompose_search"),
    ("sanma.engine.decompose", "standard_decompositions", "sanma.engine.decompose_search"),
]


@pytest.mark.parametrize(("module", "name", "home"), REEXPORTS)
def test_reexported_names_are_the_defining_modules(module: str, name: str, home: str) -> None:
    value = getattr(importlib.import_module(module), name)
    assert value is getattr(importlib.import_module(home), name)
    assert name in vars(importlib.import_module(module))  # kept: later reads are plain lookups
    if isinstance(value, type):
        params = value.__dataclass_params__  # type: ignore[attr-defined]
        assert dataclasses.is_dataclass(value) and params.frozen and "__slots__" in vars(value)


@pytest.mark.parametrize("module", sorted({m for m, _, _ in REEXPORTS}))
def test_other_names_are_still_attribute_errors(module: str) -> None:
    mod = importlib.import_module(module)
    assert not hasattr(mod, "no_such_name")
    with pytest.raises(AttributeError, match="no_such_name"):
        mod.no_such_name  # noqa: B018


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_preset_rules_hold_the_presets_values(name: str) -> None:
    rules, plain = preset(name), preset_rules(name)
    assert PRESETS[name] is rules and rules == Rules(**presets.preset_values(name))
    for field in PresetRules.__slots__:
        assert getattr(plain, field) == getattr(rules, field)
    for red in (True, False):
        changed = plain.with_options(red_fives=red)
        assert changed.red_fives is red and changed.double_yakuman == rules.with_options(red_fives=red).double_yakuman


def test_rules_defaults_are_the_plain_table() -> None:
    assert Rules() == DEFAULT == Rules(**presets.DEFAULTS) and PRESETS["default"] is DEFAULT
    assert [f.name for f in dataclasses.fields(Rules)] == list(presets.DEFAULTS)
    assert set(presets.CHANGES) == set(PRESET_NAMES)


def test_preset_rules_are_read_only_and_unknown_presets_are_errors() -> None:
    plain = preset_rules("tenhou")
    with pytest.raises(AttributeError):
        plain.red_fives = False  # type: ignore[misc]
    with pytest.raises(TypeError):
        plain.with_options(length="east")
    with pytest.raises(SanmaError) as got:
        preset_rules("nosuch")
    with pytest.raises(SanmaError) as want:
        preset("nosuch")
    assert (
        str(got.value) == str(want.value) == "unknown rule preset 'nosuch'; choose one of default, tenhou, mahjongsoul"
    )
