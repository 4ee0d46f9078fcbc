"""redact(event, viewer): the one place that hides information."""

from __future__ import annotations

import pytest

from sanma.engine.events import Event, HandStarted, MatchStarted, TileDrawn
from sanma.engine.match import Match
from sanma.engine.rules import DEFAULT
from sanma.engine.tiles import TILE_COUNT
from sanma.engine.visibility import HIDDEN, HIDDEN_SEED, is_hidden, redact, redact_all
from tests.fixtures.selfplay import VIEWERS, RandomPlayer


@pytest.fixture(scope="module")
def log() -> list[Event]:
    match = Match(2024, DEFAULT.with_options(length="east"))
    player = RandomPlayer(2024)
    while not match.finished:
        seat = match.awaiting()[0]
        match.apply(seat, player.choose(match, seat))
    return match.events


def test_hidden_is_no_tile() -> None:
    assert HIDDEN not in range(TILE_COUNT)
    assert is_hidden(HIDDEN)
    assert not any(is_hidden(t) for t in range(TILE_COUNT))


def test_a_draw_is_seen_only_by_the_drawer() -> None:
    drawn = TileDrawn(seat=2, tile=77, replacement=True)
    assert redact(drawn, 2) == drawn
    for viewer in (0, 1, None):
        assert redact(drawn, viewer) == TileDrawn(seat=2, tile=HIDDEN, replacement=True)


def test_hands_at_the_deal_show_only_ones_own(log: list[Event]) -> None:
    start = next(e for e in log if isinstance(e, HandStarted))
    for viewer in VIEWERS:
        seen = redact(start, viewer)
        assert isinstance(seen, HandStarted)
        for seat in range(3):
            want = start.hands[seat] if seat == viewer else (HIDDEN,) * 13
            assert seen.hands[seat] == want
        # Everything else about the deal is public.
        assert (seen.scores, seen.dora_indicator, seen.wall_digest, seen.dealer) == (
            start.scores,
            start.dora_indicator,
            start.wall_digest,
            start.dealer,
        )


def test_the_seed_reaches_nobody(log: list[Event]) -> None:
    start = log[0]
    assert isinstance(start, MatchStarted)
    for viewer in VIEWERS:
        seen = redact(start, viewer)
        assert isinstance(seen, MatchStarted)
        assert seen.seed == HIDDEN_SEED
        assert (seen.rules, seen.wall_algorithm) == (start.rules, start.wall_algorithm)


def test_public_events_pass_unchanged_and_redaction_is_idempotent(log: list[Event]) -> None:
    for viewer in VIEWERS:
        for event in log:
            seen = redact(event, viewer)
            assert redact(seen, viewer) == seen
            if not isinstance(event, TileDrawn | HandStarted | MatchStarted):
                assert seen is event


def test_a_redacted_log_never_holds_another_seats_concealed_tile(log: list[Event]) -> None:
    for viewer in VIEWERS:
        for event in redact_all(log, viewer):
            if isinstance(event, TileDrawn) and event.seat != viewer:
                assert event.tile == HIDDEN
            elif isinstance(event, HandStarted):
                for seat, hand in enumerate(event.hands):
                    assert all(t == HIDDEN for t in hand) == (seat != viewer)
            elif isinstance(event, MatchStarted):
                assert event.seed == HIDDEN_SEED
