"""replay(events): a match rebuilt from its log through the rules code."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sanma.engine.errors import InvalidLog
from sanma.engine.events import Event, HandStarted, HandWon, MatchEnded, TileDiscarded
from sanma.engine.match import Match
from sanma.engine.replay import replay
from sanma.engine.rules import DEFAULT, PRESETS
from sanma.engine.visibility import redact_all
from tests.fixtures.match import chiihou_deal, play_defaults_until_a_win, tenhou_deal
from tests.fixtures.selfplay import RandomPlayer


def played(seed: int, length: str = "east") -> tuple[Match, list[Match]]:
    """A finished match and a copy of it after every step."""
    match = Match(seed, DEFAULT.with_options(length=length))
    player = RandomPlayer(seed)
    snapshots = [match.copy()]
    while not match.finished:
        seat = player.rng.choice(match.awaiting())
        match.apply(seat, player.choose(match, seat))
        snapshots.append(match.copy())
    return match, snapshots


@pytest.fixture(scope="module")
def game() -> tuple[Match, list[Match]]:
    return played(31)


def test_replay_reproduces_events_and_state(game: tuple[Match, list[Match]]) -> None:
    match, _ = game
    again = replay(match.events)
    assert again.events == match.events
    assert again == match
    assert again.standings == match.standings


def test_replay_of_every_prefix_gives_the_state_at_that_step(game: tuple[Match, list[Match]]) -> None:
    _, snapshots = game
    for snap in snapshots[::7] + snapshots[-3:]:
        assert replay(snap.events) == snap


@pytest.mark.parametrize("preset", ["tenhou", "mahjongsoul"])
def test_replay_keeps_the_rules_of_the_log(preset: str) -> None:
    match = Match(5, PRESETS[preset].with_options(length="one-hand"))
    player = RandomPlayer(5)
    while not match.finished:
        seat = match.awaiting()[0]
        match.apply(seat, player.choose(match, seat))
    again = replay(match.events)
    assert again.rules == PRESETS[preset].with_options(length="one-hand")
    assert again == match


def test_replay_of_scripted_deals_needs_the_deals() -> None:
    rules = DEFAULT.with_options(length="east", starting_points=100_000, return_points=100_000)
    deals = [chiihou_deal(0, 1), chiihou_deal(1, 0), tenhou_deal(2)]
    match = Match(3, rules, deals=deals.__getitem__)
    while not match.finished:
        play_defaults_until_a_win(match)
    assert replay(match.events, deals=deals.__getitem__) == match
    with pytest.raises(InvalidLog):
        replay(match.events)  # the seed's own walls give other hands


def tampered(events: list[Event], index: int, event: Event) -> list[Event]:
    out = list(events)
    out[index] = event
    return out


def test_a_changed_discard_is_rejected(game: tuple[Match, list[Match]]) -> None:
    match, _ = game
    i, discard = next((i, e) for i, e in enumerate(match.events) if isinstance(e, TileDiscarded) and i > 40)
    other = next(t for t in range(108) if t != discard.tile)
    with pytest.raises(InvalidLog):
        replay(tampered(match.events, i, replace(discard, tile=other)))
    with pytest.raises(InvalidLog):
        replay(tampered(match.events, i, replace(discard, tsumogiri=not discard.tsumogiri)))


def test_a_changed_score_is_rejected(game: tuple[Match, list[Match]]) -> None:
    match, _ = game
    i, win = next((i, e) for i, e in enumerate(match.events) if isinstance(e, HandWon))
    with pytest.raises(InvalidLog):
        replay(tampered(match.events, i, replace(win, deltas=(0, 0, 0))))


def test_a_log_cut_inside_a_step_or_running_past_the_end_is_rejected(game: tuple[Match, list[Match]]) -> None:
    match, _ = game
    # A hand's end and the next deal come from one action: cutting between them is a cut step.
    i = next(i for i, e in enumerate(match.events) if isinstance(e, HandStarted) and i > 5)
    with pytest.raises(InvalidLog, match="inside a step"):
        replay(match.events[:i])
    ended = match.events[-1]
    assert isinstance(ended, MatchEnded)
    with pytest.raises(InvalidLog):
        replay([*match.events, ended])


def test_a_redacted_or_headless_log_is_rejected(game: tuple[Match, list[Match]]) -> None:
    match, _ = game
    with pytest.raises(InvalidLog, match="redacted"):
        replay(redact_all(match.events, 0))
    with pytest.raises(InvalidLog):
        replay(match.events[1:])
    with pytest.raises(InvalidLog):
        replay([])
