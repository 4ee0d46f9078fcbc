"""The engine's small values: the rule presets are the plain table they are written in, and the
scoring values are frozen, slotted dataclasses defined once (no second plain copy)."""

from __future__ import annotations

import dataclasses

import pytest

from sanma.engine.context import WinContext
from sanma.engine.errors import SanmaError
from sanma.engine.hand import Meld
from sanma.engine.reading import Reading
from sanma.engine.rules import CHANGES, DEFAULT, DEFAULTS, PRESET_NAMES, PRESETS, Rules, preset
from sanma.engine.scoring import Payments, Score


def test_rules_defaults_are_the_plain_table() -> None:
    assert Rules() == DEFAULT == Rules(**DEFAULTS) and PRESETS["default"] is DEFAULT
    assert [f.name for f in dataclasses.fields(Rules)] == list(DEFAULTS)
    assert set(CHANGES) == set(PRESET_NAMES) == set(PRESETS)


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_each_preset_is_the_defaults_with_its_changes(name: str) -> None:
    assert preset(name) is PRESETS[name] == Rules(**{**DEFAULTS, **CHANGES[name]})
    assert preset(name).with_options(red_fives=False).red_fives is False


def test_an_unknown_preset_is_a_typed_error() -> None:
    with pytest.raises(SanmaError) as got:
        preset("nosuch")
    assert str(got.value) == "unknown rule preset 'nosuch'; choose one of default, tenhou, mahjongsoul"


@pytest.mark.parametrize("cls", [Rules, WinContext, Meld, Reading, Score, Payments])
def test_values_are_frozen_slotted_dataclasses(cls: type) -> None:
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    assert dataclasses.is_dataclass(cls) and params.frozen and "__slots__" in vars(cls)
