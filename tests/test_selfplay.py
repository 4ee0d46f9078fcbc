"""Seeded random self-play with invariants after every step (design principle 10): the one
self-play suite.

Players pick random legal actions with the one policy of ``tests/fixtures/selfplay.py``,
biased so that hands end (wins are mostly taken, discards often lower the shanten) and so
that calls, kita, kans and riichi happen.  Two levels are played: whole matches (one hand,
East, East-South; red fives on and off; fixed seeds and hypothesis-drawn ones), and single
hands from starts that vary with the seed (round wind, dealer, honba, deposits, uneven
scores) under both presets, "default" and "tenhou".  After every step (``check_step``):
the engine's own invariants (the 108 tiles, points + deposits, the log folds to the state);
only awaited seats have legal actions and, in matches, each of them applies; illegal actions
raise and change nothing; a copy is equal and independent; in matches, no seat is sent or
sees another seat's concealed tiles.  At the end a match's log replays to the same state; the
same seed plays the same hand.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanma.engine.events import (
    DoraRevealed,
    Event,
    HandAborted,
    HandDrawn,
    HandStarted,
    HandWon,
    KitaDeclared,
    MatchStarted,
    MeldCalled,
    TileDiscarded,
    TileDrawn,
)
from sanma.engine.kyoku import Kyoku
from sanma.engine.match import Match
from sanma.engine.replay import replay
from sanma.engine.rules import DEFAULT, Rules
from sanma.engine.view import SeatView
from sanma.engine.visibility import HIDDEN, HIDDEN_SEED, redact
from tests.fixtures.selfplay import (
    VIEWERS,
    RandomPlayer,
    check_step,
    check_views,
    play_kyoku,
    public_tiles,
    step,
)

# -- the checks --------------------------------------------------------------------------------


def event_tiles(event: Event) -> set[int]:
    """Every tile id an event carries (hidden ones excluded)."""
    if isinstance(event, HandStarted):
        out = {t for h in event.hands for t in h} | {event.dora_indicator}
    elif isinstance(event, TileDrawn | TileDiscarded | KitaDeclared):
        out = {event.tile}
    elif isinstance(event, MeldCalled):
        out = set(event.meld.tiles)
    elif isinstance(event, DoraRevealed):
        out = {event.indicator}
    elif isinstance(event, HandWon):
        out = {event.tile, *event.hand, *event.ura_indicators} | {t for m in event.melds for t in m.tiles}
    elif isinstance(event, HandDrawn):
        out = {t for h in event.tenpai_hands for t in h}
    elif isinstance(event, HandAborted):
        out = set(event.hand)
    else:
        out = set()
    out.discard(HIDDEN)
    return out


def check_sent(kyoku: Kyoku, sent: list[Event], viewer: int | None) -> None:
    """The redacted events of one step (all of one hand) carry only the viewer's own and
    public tiles of that hand."""
    allowed = public_tiles(kyoku) | (set(kyoku.hand(viewer)) if viewer is not None else set())
    for event in sent:
        assert event_tiles(event) <= allowed, f"seat {viewer} was sent {event!r}"
        if isinstance(event, MatchStarted):
            assert event.seed == HIDDEN_SEED


def play(
    seed: int, rules: Rules, *, try_every_action: bool = True, player_seed: int | None = None
) -> tuple[Match, list[Event]]:
    """A whole checked match; returns it and its log."""
    match = Match(seed, rules)
    player = RandomPlayer(seed if player_seed is None else player_seed)
    views = {v: SeatView.fold((redact(e, v) for e in match.events), v) for v in VIEWERS}
    for v in VIEWERS:
        check_sent(match.kyoku, [redact(e, v) for e in match.events], v)
    check_step(match, try_every_action=try_every_action)
    check_views(match, views)
    while not match.finished:
        seat = player.rng.choice(match.awaiting())
        before = match.kyoku
        action = player.choose(match, seat)
        new = step(match, seat, action)
        for v, view in views.items():
            sent = [redact(e, v) for e in new]
            for event in sent:
                view.apply(event)
            # A step that ends a hand also deals the next one: check each part against its hand.
            cut = next((i for i, e in enumerate(sent) if isinstance(e, HandStarted)), len(sent))
            check_sent(before, sent[:cut], v)
            check_sent(match.kyoku, sent[cut:], v)
        check_step(match, try_every_action=try_every_action, last=action)
        check_views(match, views)
    assert replay(match.events) == match
    return match, match.events


def tally(events: list[Event]) -> Counter[str]:
    out: Counter[str] = Counter()
    for e in events:
        if isinstance(e, HandWon):
            out["tsumo" if e.seat == e.from_seat else "ron"] += 1
        elif isinstance(e, HandDrawn | HandAborted):
            out[e.reason] += 1
        elif isinstance(e, MeldCalled):
            out[e.meld.type.value] += 1
        elif isinstance(e, KitaDeclared):
            out["kita"] += 1
    return out


CASES = [
    (length, red, seed)
    for length, seeds in (("one-hand", range(1, 5)), ("east", range(5, 8)), ("east-south", range(8, 10)))
    for red in (True, False)
    for seed in seeds
]


@pytest.mark.slow
@pytest.mark.parametrize(("length", "red", "seed"), CASES)
def test_seeded_self_play_keeps_every_invariant(length: str, red: bool, seed: int) -> None:
    match, _ = play(seed, DEFAULT.with_options(length=length, red_fives=red))
    assert match.finished
    assert match.standings is not None
    assert sorted(s.placement for s in match.standings) == [1, 2, 3]


@pytest.mark.slow
def test_self_play_reaches_the_interesting_events() -> None:
    """Across a few light matches the random players win both ways, draw, call and kita,
    so the invariants above were checked on all of these paths."""
    seen: Counter[str] = Counter()
    for seed in range(6):
        _, events = play(100 + seed, DEFAULT.with_options(length="east"), try_every_action=False)
        seen += tally(events)
    for name in ("tsumo", "ron", "exhaustive", "pon", "kita"):
        assert seen[name] > 0, f"no {name} in {dict(seen)}"
    assert seen["daiminkan"] + seen["ankan"] + seen["kakan"] > 0, dict(seen)


@pytest.mark.slow
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**63 - 1), red=st.booleans())
def test_property_any_seed_keeps_every_invariant(seed: int, red: bool) -> None:
    play(seed, DEFAULT.with_options(length="east", red_fives=red), try_every_action=False)


# -- single hands from varied starts, under both presets ------------------------------------------

HANDS_PER_PRESET = 40


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["default", "tenhou"])
def test_hands_from_varied_starts_keep_every_invariant(preset: str) -> None:
    seen: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    for seed in range(HANDS_PER_PRESET):
        kyoku = play_kyoku(seed, preset)
        assert kyoku.result is not None
        outcomes[kyoku.result.outcome] += 1
        seen.update(type(e).__name__ for e in kyoku.events)
    assert outcomes["won"] and outcomes["drawn"], dict(outcomes)
    for name in ("MeldCalled", "KitaDeclared", "RiichiAccepted", "DoraRevealed", "HandWon", "HandDrawn"):
        assert seen[name], f"self-play never produced {name}"


def test_same_seed_same_hand() -> None:
    assert play_kyoku(5, "default").events == play_kyoku(5, "default").events
