"""Duplicate-seed bot matches and their statistics (``sanma arena`` and ``bench/``).

``run_arena(ArenaConfig(...), workers)`` plays seed groups (one seed, every seat rotation)
between any three players; ``ArenaResult.summaries()`` and ``to_json()`` give per-player
means and rates with 95% confidence intervals; ``parse_players`` turns specs such as
``"normal,beginner,mjai:CMD"`` into entrants.
"""

from sanma.arena.duplicate import (
    ROTATIONS,
    ArenaConfig,
    ArenaResult,
    Entrant,
    GroupResult,
    MatchOutcome,
    PlayedMatch,
    PlayerFactory,
    group_seed,
    play_group,
    play_match,
    play_seated,
    run_arena,
    seat_of,
    tally,
)
from sanma.arena.players import parse_player, parse_players, register_kind
from sanma.arena.stats import CI_METHOD, AnswerCounts, Estimate, PlayerMatch, PlayerSummary

__all__ = [
    "CI_METHOD",
    "ROTATIONS",
    "AnswerCounts",
    "ArenaConfig",
    "ArenaResult",
    "Entrant",
    "Estimate",
    "GroupResult",
    "MatchOutcome",
    "PlayedMatch",
    "PlayerFactory",
    "PlayerMatch",
    "PlayerSummary",
    "group_seed",
    "parse_player",
    "parse_players",
    "play_group",
    "play_match",
    "play_seated",
    "register_kind",
    "run_arena",
    "seat_of",
    "tally",
]
