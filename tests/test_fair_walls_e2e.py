"""The browser's fair-wall checks (web/src/fairness.js) in Chromium: its sanma-wall-v1
shuffle and deal digest equal the engine's, its match-end check accepts the server's real
frames and rejects a changed seed, salt, wall or tile; in a played match the hand-end panel
only says the wall was committed to and the match-end panel checks every hand."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sanma.engine import fairness as fair
from sanma.engine.events import HandStarted
from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.engine.visibility import redact
from sanma.engine.wall import deal_from_seed, shuffled_tiles
from sanma.server.codec import event_to_wire
from sanma.server.rooms.fairwalls import new_salt
from tests.fixtures.browser import start_match, step
from tests.fixtures.fair_walls import page as page  # a loaded page that fails on page errors

SEEDS = (0, 1, 56, 20261130, 987654321987654321, 2**64 - 1)


def _js(page: Any, body: str, arg: Any) -> Any:
    return page.evaluate(f"async (arg) => {{ const f = await import('/src/fairness.js'); {body} }}", arg)


def test_the_javascript_shuffle_and_digest_equal_the_engine(page: Any) -> None:
    assert _js(page, "return f.canCheck();", None) is True  # localhost: crypto.subtle is there
    for seed in SEEDS:
        for hand in (0, 1, 7):
            got = _js(page, "return await f.shuffledTiles(arg[0], arg[1]);", [str(seed), hand])
            assert got == shuffled_tiles(seed, hand), (seed, hand)
            deal = deal_from_seed(seed, hand)
            js_deal = _js(page, "return await f.dealFromSeed(arg[0], arg[1]);", [str(seed), hand])
            assert js_deal == fair.deal_to_json(deal)
            assert _js(page, "return await f.dealDigest(arg);", js_deal) == deal.digest()


def _match_frames(seed: int, hands: int) -> dict[str, Any]:
    """What a table sends for a match of ``seed`` (a random salt): the fair_match, fair_hand
    and fair_seed frames, and each hand's events as seat 0 saw them (wire form)."""
    salt = new_salt()
    match = Match(seed, Rules(length="east"), salt=salt)
    while not match.finished and len(fair.hand_events(match.events)) <= hands:
        seat = match.awaiting()[0]
        match.apply(seat, match.legal_actions(seat).default)  # type: ignore[arg-type]
    played = fair.hand_events(match.events)[:hands]
    commits = []
    for k, events in enumerate(played):
        start = events[0]
        assert isinstance(start, HandStarted)
        commitment = fair.hand_commitment(fair.hand_salt(salt, k), start.wall_digest)
        commits.append({"hand": k, "wall_digest": start.wall_digest, "commitment": commitment})
    hand_salts = [fair.hand_salt(salt, k) for k in range(hands)]
    return {
        "m": {"t": "fair_match", "commitment": fair.match_commitment(salt, seed)},
        "e": {"seed": str(seed), "salt": salt, "hands": hands, "hand_salts": hand_salts},
        "c": commits,
        "ev": [[event_to_wire(redact(e, 0), True) for e in events] for events in played],
    }


def _check(page: Any, frames: dict[str, Any]) -> dict[str, Any]:
    return _js(page, "return await f.checkMatch(arg.m, arg.e, arg.c, arg.ev);", frames)  # type: ignore[no-any-return]


def test_the_match_end_check_accepts_honest_frames_and_catches_changed_ones(page: Any) -> None:
    honest = _match_frames(987654321987654321, 3)
    assert _check(page, honest) == {"result": "ok", "hands": 3, "problems": []}
    other_seed = {**honest, "e": {**honest["e"], "seed": str(987654321987654322)}}
    got = _check(page, other_seed)
    assert got["result"] == "mismatch" and "the match commitment does not open" in got["problems"][0]
    salts = honest["e"]["hand_salts"]
    swapped = {**honest, "e": {**honest["e"], "hand_salts": [salts[1], salts[0], salts[2]]}}
    got = _check(page, swapped)
    assert got["result"] == "mismatch" and [p.split(":")[0] for p in got["problems"]] == ["hand 0", "hand 1"]
    # A hand committed to another wall than the seed deals.
    commits = [dict(c) for c in honest["c"]]
    commits[2]["wall_digest"] = deal_from_seed(1, 0).digest()
    got = _check(page, {**honest, "c": commits})
    assert got["result"] == "mismatch" and got["problems"][0].startswith("hand 2: the wall rebuilt from the seed")
    # Every commitment opens, but the seat was shown another first dora indicator in hand 1.
    events = json.loads(json.dumps(honest["ev"]))
    events[1][0]["dora_indicator"] = "2p" if events[1][0]["dora_indicator"] != "2p" else "3p"
    got = _check(page, {**honest, "ev": events})
    assert got == {"result": "seen", "hands": 3, "problems": ["hand 1: the first dora indicator differs"]}


@pytest.mark.slow
def test_the_hand_end_panel_reveals_nothing_and_the_match_end_panel_checks_every_hand(page: Any) -> None:
    """A one-hand practice match played in the page: its hand-end panel says the wall was
    committed to and is checked at the end (nothing was revealed), its match-end panel that
    every wall came from the committed seed and every tile seen matches (the page is on
    localhost, where SHA-256 is available)."""
    start_match(page, length="one-hand")
    for _ in range(300):
        if step(page) == "hand-end":
            break
    else:
        raise AssertionError("the hand did not end")
    line = page.wait_for_selector("[data-testid=hand-end] [data-testid=fair]", timeout=20_000)
    assert line.get_attribute("data-fair") == "committed"
    committed = "This hand's wall was committed to before it began; every wall is checked when the match ends."
    assert line.inner_text() == committed
    page.click("[data-panel=next]")
    line = page.wait_for_selector("[data-testid=match-end] [data-testid=fair][data-fair=ok]", timeout=20_000)
    assert line.get_attribute("data-why") == "ok" and line.get_attribute("data-problems") is None
    ok = "Walls checked: every wall of the match (1 in all) came from the seed committed to before it began"
    assert line.inner_text() == ok + ", and every tile you saw matches."
