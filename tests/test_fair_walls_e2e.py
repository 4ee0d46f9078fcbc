"""The browser's fair-wall checks (web/src/fairness.js) in Chromium: its sanma-wall-v1
shuffle and deal digest equal the engine's, its checks accept the server's real frames and
reject a changed wall or seed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from sanma.engine import fairness as fair
from sanma.engine.wall import deal_from_seed, shuffled_tiles
from tests.test_server import LiveServer
from tests.test_web_e2e import DESKTOP, open_page, start_match, step
from tests.test_web_e2e import browser as browser
from tests.test_web_e2e import live as live

SEEDS = (0, 1, 56, 20261130, 987654321987654321, 2**64 - 1)


@pytest.fixture
def page(browser: Any, live: LiveServer) -> Iterator[Any]:
    page = open_page(browser, live, DESKTOP)
    page.wait_for_function("() => document.readyState === 'complete'")
    yield page
    assert not page.errors  # type: ignore[attr-defined]
    page.close()


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


def test_the_javascript_checks_accept_honest_reveals_and_catch_changed_ones(page: Any) -> None:
    seed = 987654321987654321
    salt = fair.match_salt(seed)
    match = {"t": "fair_match", "commitment": fair.match_commitment(salt, seed)}
    reveals, commits = [], []
    for k in range(3):
        deal = deal_from_seed(seed, k)
        hs = fair.hand_salt(salt, k)
        commits.append({"hand": k, "wall_digest": deal.digest(), "commitment": fair.hand_commitment(hs, deal.digest())})
        reveals.append({"hand": k, "salt": hs, "deal": fair.deal_to_json(deal)})
    end = {"seed": str(seed), "salt": salt}
    check = "return [await f.checkReveal(arg.c, arg.r), await f.checkSeed(arg.m, arg.e, arg.rs)];"
    assert _js(page, check, {"c": commits[1], "r": reveals[1], "m": match, "e": end, "rs": reveals}) == ["ok", "ok"]
    swapped = {
        **reveals[1],
        "deal": {**reveals[1]["deal"], "live": [*reveals[1]["deal"]["live"][1::-1], *reveals[1]["deal"]["live"][2:]]},
    }
    bad = _js(page, check, {"c": commits[1], "r": swapped, "m": match, "e": end, "rs": [reveals[0], swapped]})
    assert bad == ["mismatch", "mismatch"]
    other = {"seed": str(seed + 1), "salt": salt}
    assert _js(page, check, {"c": commits[0], "r": reveals[0], "m": match, "e": other, "rs": reveals})[1] == "mismatch"


def test_the_hand_end_and_match_end_panels_say_the_walls_were_checked(page: Any) -> None:
    """A one-hand practice match played in the page: its hand-end panel says the revealed wall
    opens the commitment made before the hand, its match-end panel that every wall was rebuilt
    from the revealed seed (the page is on localhost, where SHA-256 is available)."""
    start_match(page, length="one-hand")
    for _ in range(300):
        if step(page) == "hand-end":
            break
    else:
        raise AssertionError("the hand did not end")
    line = page.wait_for_selector("[data-testid=hand-end] [data-testid=fair]", timeout=20_000)
    assert line.get_attribute("data-fair") == "ok"
    ok = "Wall checked: this hand's wall was fixed before it began, and every tile you saw matches it."
    assert line.inner_text() == ok
    page.click("[data-panel=next]")
    line = page.wait_for_selector("[data-testid=match-end] [data-testid=fair][data-fair=ok]", timeout=20_000)
    assert "rebuilt from the revealed seed" in line.inner_text()
