"""The rule presets of sanma-rules.md section 12 as plain data: ``rules.Rules`` (a frozen
dataclass) takes its defaults and presets from here, and ``sanma score`` reads a preset from
here as a ``PresetRules`` without creating that dataclass (start-up of a piped CLI, see
``lazy``)."""

from __future__ import annotations

from sanma.engine.errors import SanmaError

TYPE_CHECKING = False  # typing.TYPE_CHECKING: the score path does not import typing (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any, Final, Literal

    MatchLength = Literal["one-hand", "east", "east-south"]
else:
    MatchLength = str  # the Literal for the type checker only
MATCH_LENGTHS: Final = ("one-hand", "east", "east-south")
PRESET_NAMES: Final = ("default", "tenhou", "mahjongsoul")

# Every rule choice of a match and its default (shared/spec/sanma-rules.md): ``Rules``' fields.
DEFAULTS: Final[dict[str, Any]] = {
    "preset": "default",
    "red_fives": True,
    "length": "east-south",
    "starting_points": 35_000,
    # Final score = (points - return_points) / 1000 + uma[placement].
    "return_points": 35_000,
    "uma": (15, 0, -15),
    # 13-sided kokushi, suuankou tanki, junsei chuuren and daisuushii count double.
    "double_yakuman": True,
    # Kokushi musou may ron the tile of a closed kan.
    "kokushi_robs_ankan": True,
    # A riichi player who rons an extracted North keeps ippatsu.
    "kita_ron_keeps_ippatsu": True,
    # After riichi a closed kan must keep every reading of the hand, not only its waits.
    "riichi_kan_keeps_readings": True,
    # A kind whose four copies the seat owns, its melds and kita included, is no wait
    # (False: only four in the concealed hand make it none).
    "melds_block_waits": True,
}

# What each preset changes from the defaults.
CHANGES: Final[dict[str, dict[str, Any]]] = {
    "default": {},
    # Tenhou's sanma rooms: no double yakuman, kokushi cannot rob a closed kan, and
    # the final score is (points - 40,000)/1000 with uma 20/0/-20 plus the 15,000
    # "oka" to first place, which is what its logs record as 1st +35.  A riichi player's
    # closed kan need only keep the waits, and a wait on a kind whose copies sit in the
    # player's own kan still counts (its phoenix logs, docs/rules-notes.md).
    "tenhou": {
        "preset": "tenhou",
        "return_points": 40_000,
        "uma": (35, 0, -20),
        "double_yakuman": False,
        "kokushi_robs_ankan": False,
        "riichi_kan_keeps_readings": False,
        "melds_block_waits": False,
    },
    "mahjongsoul": {"preset": "mahjongsoul"},
}


def preset_values(name: str) -> dict[str, Any]:
    """Every field of a preset (``default``, ``tenhou``, ``mahjongsoul``) by name."""
    try:
        return {**DEFAULTS, **CHANGES[name]}
    except KeyError:
        raise SanmaError(f"unknown rule preset {name!r}; choose one of {', '.join(PRESET_NAMES)}") from None


class PresetRules:
    """What the scorer reads of a preset's rules (a ``rules.RuleFacts``), as a plain read-only
    object: ``sanma score`` scores with it instead of a ``Rules``, whose dataclass it then
    never creates.  ``preset_rules(name)`` holds the same values as ``rules.preset(name)``."""

    __slots__ = ("double_yakuman", "preset", "red_fives")
    preset: str
    red_fives: bool
    double_yakuman: bool

    def __init__(self, values: dict[str, Any]) -> None:
        """``values``: at least these fields of a ``Rules`` (see ``preset_values``)."""
        for name in PresetRules.__slots__:
            object.__setattr__(self, name, values[name])

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"PresetRules is read-only ({name})")

    def __repr__(self) -> str:
        return f"PresetRules(preset={self.preset!r}, red_fives={self.red_fives}, double_yakuman={self.double_yakuman})"

    def with_options(self, **changes: object) -> PresetRules:
        """A copy with some of these options changed (as ``Rules.with_options``)."""
        unknown = changes.keys() - set(PresetRules.__slots__)
        if unknown:
            raise TypeError(f"PresetRules has no option {sorted(unknown)}")
        return PresetRules({**{name: getattr(self, name) for name in PresetRules.__slots__}, **changes})


def preset_rules(name: str) -> PresetRules:
    """A preset's ``PresetRules`` by name (``SanmaError`` for an unknown one)."""
    return PresetRules(preset_values(name))
