"""The rule set as one immutable value, with the presets of sanma-rules.md section 12."""

from __future__ import annotations

from dataclasses import dataclass, replace

from sanma.engine.errors import SanmaError

TYPE_CHECKING = False  # typing.TYPE_CHECKING: the score path does not import typing (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Final, Literal

    MatchLength = Literal["one-hand", "east", "east-south"]
else:
    MatchLength = str  # the Literal for the type checker only
MATCH_LENGTHS: Final = ("one-hand", "east", "east-south")
PRESET_NAMES: Final = ("default", "tenhou", "mahjongsoul")


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule choice of a match.  Defaults are ``shared/spec/sanma-rules.md``."""

    preset: str = "default"
    red_fives: bool = True
    length: MatchLength = "east-south"
    starting_points: int = 35_000
    # Final score = (points - return_points) / 1000 + uma[placement].
    return_points: int = 35_000
    uma: tuple[int, int, int] = (15, 0, -15)
    # 13-sided kokushi, suuankou tanki, junsei chuuren and daisuushii count double.
    double_yakuman: bool = True
    # Kokushi musou may ron the tile of a closed kan.
    kokushi_robs_ankan: bool = True
    # A riichi player who rons an extracted North keeps ippatsu.
    kita_ron_keeps_ippatsu: bool = True

    def with_options(self, **changes: object) -> Rules:
        """A copy with some options changed (e.g. ``length`` or ``red_fives``)."""
        return replace(self, **changes)  # type: ignore[arg-type]


DEFAULT: Final = Rules()

PRESETS: Final[dict[str, Rules]] = {
    "default": DEFAULT,
    # Tenhou's sanma rooms: no double yakuman, kokushi cannot rob a closed kan, and
    # the final score is (points - 40,000)/1000 with uma 20/0/-20 plus the 15,000
    # "oka" to first place, which is what its logs record as 1st +35.
    "tenhou": Rules(
        preset="tenhou",
        return_points=40_000,
        uma=(35, 0, -20),
        double_yakuman=False,
        kokushi_robs_ankan=False,
    ),
    "mahjongsoul": Rules(preset="mahjongsoul"),
}


def preset(name: str) -> Rules:
    """Look up a preset by name (``default``, ``tenhou``, ``mahjongsoul``)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise SanmaError(f"unknown rule preset {name!r}; choose one of {', '.join(PRESET_NAMES)}") from None
