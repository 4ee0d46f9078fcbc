"""The rule set as one immutable value, with the presets of sanma-rules.md section 12.

The defaults and presets themselves are plain data in ``presets`` (which ``sanma score``
reads without creating this dataclass).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sanma.engine.presets import CHANGES, DEFAULTS, preset_values
from sanma.engine.presets import MATCH_LENGTHS as MATCH_LENGTHS
from sanma.engine.presets import PRESET_NAMES as PRESET_NAMES
from sanma.engine.presets import MatchLength as MatchLength

TYPE_CHECKING = False  # typing.TYPE_CHECKING: the score path does not import typing (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Final, Protocol

    class RuleFacts(Protocol):
        """What the scorer (``scoring.score_counts``) reads of the rules, read only.  A ``Rules``
        is one; ``sanma score`` passes a ``presets.PresetRules``."""

        @property
        def red_fives(self) -> bool: ...
        @property
        def double_yakuman(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule choice of a match.  Defaults (and what each means) are ``presets.DEFAULTS``:
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
    if name not in PRESETS:
        preset_values(name)  # raises the SanmaError that names the presets
    return PRESETS[name]
