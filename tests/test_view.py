"""SeatView: a seat's table folded only from its redacted events."""

from __future__ import annotations

import pytest

from sanma.engine.errors import InvalidLog
from sanma.engine.events import MeldCalled, TileDiscarded
from sanma.engine.match import Match
from sanma.engine.rules import DEFAULT
from sanma.engine.view import SeatView
from sanma.engine.visibility import redact, redact_all
from tests.fixtures.selfplay import VIEWERS, RandomPlayer, check_views


def check_against_engine(view: SeatView, match: Match) -> None:
    """Every public fact of the view equals the engine's."""
    k = match.kyoku
    assert (view.round_wind, view.dealer, view.honba) == (k.round_wind, k.dealer, k.honba)
    assert tuple(view.scores) == match.scores
    assert view.deposits == match.deposits
    for s in range(3):
        assert view.hand_sizes[s] == len(k.hand(s))
        assert [r.tile for r in view.rivers[s]] == list(k.river(s))
        assert tuple(view.melds[s]) == k.melds(s)
        assert tuple(view.kita[s]) == k.kita_tiles(s)
        assert view.riichi[s] == k.in_riichi(s)
    assert tuple(view.dora_indicators) == k.dora_indicators()
    assert view.live_left == k.live_left
    if view.seat is not None:
        assert view.concealed() == k.hand(view.seat)
    else:
        assert view.hand == []


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_views_follow_the_engine_after_every_step(seed: int) -> None:
    match = Match(seed, DEFAULT.with_options(length="east"))
    player = RandomPlayer(seed)
    views = {v: SeatView.fold(redact_all(match.events, v), v) for v in VIEWERS}
    while not match.finished:
        seat = player.rng.choice(match.awaiting())
        for event in match.apply(seat, player.choose(match, seat)):
            for v, view in views.items():
                view.apply(redact(event, v))
        check_views(match, views)
        if not match.finished:
            for view in views.values():
                check_against_engine(view, match)
    # Folding the whole log at once gives the same view as folding it event by event.
    for v, view in views.items():
        assert SeatView.fold(redact_all(match.events, v), v) == view
        assert view.final is not None
        assert tuple(view.scores) == match.scores


def test_river_marks_tsumogiri_riichi_and_called() -> None:
    for seed in range(40):
        match = Match(seed, DEFAULT.with_options(length="one-hand"))
        player = RandomPlayer(seed)
        while not match.finished:
            seat = match.awaiting()[0]
            match.apply(seat, player.choose(match, seat))
        view = SeatView.fold(redact_all(match.events, None), None)
        discards = [e for e in match.events if isinstance(e, TileDiscarded)]
        river = [r for s in range(3) for r in view.rivers[s]]
        assert sorted((r.tile, r.tsumogiri, r.riichi) for r in river) == sorted(
            (d.tile, d.tsumogiri, d.riichi) for d in discards
        )
        called = {e.meld.called for e in match.events if isinstance(e, MeldCalled) and e.meld.from_seat is not None}
        assert {r.tile for r in river if r.called} == called
        if any(r.riichi for r in river) and called:
            return
    pytest.fail("no seed with both a riichi and a call")


def test_a_view_refuses_its_own_hidden_hand() -> None:
    match = Match(3)
    with pytest.raises(InvalidLog):
        SeatView.fold(redact_all(match.events, 1), 0)


@pytest.mark.parametrize("seed", [21, 22])
def test_seen_visible_and_owned_counts_follow_the_engine(seed: int) -> None:
    match = Match(seed, DEFAULT.with_options(length="one-hand"))
    player = RandomPlayer(seed)
    views = {s: SeatView.fold(redact_all(match.events, s), s) for s in range(3)}
    while not match.finished:
        k = match.kyoku
        for s, view in views.items():
            seen = set(k.hand(s)) | set(k.dora_indicators())
            for other in range(3):
                seen |= set(k.river(other)) | set(k.kita_tiles(other))
                seen |= {t for m in k.melds(other) for t in m.tiles}
            want = [0] * 27
            for t in seen:
                want[t >> 2] += 1
            assert view.seen_counts() == want
            own = [0] * 27
            for t in (*k.hand(s), *k.kita_tiles(s), *(t for m in k.melds(s) for t in m.tiles)):
                own[t >> 2] += 1
            assert view.owned_counts() == own
            hand = [0] * 27
            for t in k.hand(s):
                hand[t >> 2] += 1
            assert view.visible_counts() == [a - b for a, b in zip(want, hand, strict=True)]
        seat = match.awaiting()[0]
        events = match.apply(seat, player.choose(match, seat))
        for s, view in views.items():
            for e in events:
                view.apply(redact(e, s))
