"""The rule set as one immutable value, ``Rules``, with the presets of sanma-rules.md
section 12 (their values as plain data first, so each default is written once)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from sanma.engine.errors import SanmaError

MatchLength = Literal["one-hand", "east", "east-south"]
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


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule choice of a match.  Defaults (and what each means) are ``DEFAULTS``:
    ``shared/spec/sanma-rules.md``."""

    preset: str = DEFAULTS["preset"]
    red_fives: bool = DEFAULTS["red_fives"]
    length: MatchLength = DEFAULTS["length"]
    starting_points: int = DEFAULTS["starting_points"]
    return_points: int = DEFAULTS["return_points"]
    uma: tuple[int, int, int] = DEFAULTS["uma"]
    double_yakuman: bool = DEFAULTS["double_yakuman"]
    kokushi_robs_ankan: bool = DEFAULTS["kokushi_robs_ankan"]
    kita_ron_keeps_ippatsu: bool = DEFAULTS["kita_ron_keeps_ippatsu"]
    riichi_kan_keeps_readings: bool = DEFAULTS["riichi_kan_keeps_readings"]
    melds_block_waits: bool = DEFAULTS["melds_block_waits"]

    def with_options(self, **changes: object) -> Rules:
        """A copy with some options changed (e.g. ``length`` or ``red_fives``)."""
        return replace(self, **changes)  # type: ignore[arg-type]


PRESETS: Final[dict[str, Rules]] = {name: Rules(**changes) for name, changes in CHANGES.items()}
DEFAULT: Final = PRESETS["default"]


def preset(name: str) -> Rules:
    """Look up a preset by name (``default``, ``tenhou``, ``mahjongsoul``)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise SanmaError(f"unknown rule preset {name!r}; choose one of {', '.join(PRESET_NAMES)}") from None
