"""The account sheet's Stats tab in Chromium against a real server: the server's figures as
GET /api/account/stats gives them, a match kept only in this browser folded into the counts,
the group picker, the trend's two lines, every text translated, nothing off the sheet on a
desktop and an upright phone (screenshots: SANMA_SCREENSHOTS=1)."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page

from sanma.store import db
from tests.fixtures.account_pages import fresh_page, open_account
from tests.fixtures.browser import DESKTOP
from tests.fixtures.i18n import DICTS, VISIBLE_TEXTS, outside_dictionaries
from tests.fixtures.replay_viewer import guest_of
from tests.fixtures.replays import store_ended
from tests.fixtures.server import LiveServer

PORTRAIT = {"width": 390, "height": 844}

# A match this browser kept that the server does not know (from a backup of another account).
LOCAL = {
    "match": "f" * 32,
    "kind": "practice",
    "rules": {"length": "east", "red_fives": True},
    "started_at": "2026-11-01T10:00:00+00:00",
    "ended_at": "2026-11-01T10:30:00+00:00",
    "seat": 0,
    "seats": [
        {"seat": 0, "name": None, "bot_level": None, "you": True},
        {"seat": 1, "name": None, "bot_level": "expert", "you": False},
        {"seat": 2, "name": None, "bot_level": "expert", "you": False},
    ],
    "placement": 1,
    "points": 55000,
    "final_score": 35.0,
    "result": {},
}

FIGURES = """() => Object.fromEntries([...document.querySelectorAll('#stats-figures [data-figure]')]
    .map(e => [e.dataset.figure, e.querySelector('dd').textContent.trim()]))"""


def stats_page(browser, live: LiveServer, viewport: dict[str, int], seeds: tuple[int, ...]) -> tuple[Page, dict]:
    page = fresh_page(browser, live, viewport=viewport)
    guest, token = guest_of(page)
    engine = db.open_engine(live.settings.db_url)
    try:
        for n, seed in enumerate(seeds):
            store_ended(engine, seed, guest, seat=n % 3)
    finally:
        engine.dispose()
    page.evaluate("e => localStorage.setItem('sanma.history', JSON.stringify([e]))", LOCAL)
    api = httpx.get(f"{live.http}/api/account/stats", headers={"Authorization": f"Bearer {token}"}).json()
    open_account(page, "stats")
    page.wait_for_selector("#stats-figures")
    return page, api


@pytest.mark.slow
def test_the_stats_tab_shows_the_servers_figures_with_the_local_match(browser, live, shots):
    page, api = stats_page(browser, live, DESKTOP, (5, 6))
    assert api["total"]["matches"] == 2
    shown = page.evaluate(FIGURES)
    assert shown["matches"] == "3"  # the two the server knows and the one kept here
    assert shown["hands"] == str(api["total"]["hands"])  # a local match brings no hands
    win = api["total"]["figures"]["win_rate"]
    assert shown["win_rate"] == f"{100 * win:.1f}%"
    placements = api["total"]["placements"]
    assert f"{placements[0] + 1} · " in page.inner_text("[data-figure=placements] .place-1")
    average = (api["total"]["placement_sum"] + 1) / 3
    assert shown["avg_placement"] == f"{average:.2f}"
    assert "only in this browser (1)" in page.inner_text("#stats-local")
    # The trend: the server's placements, both windows (two lines, each with its end point).
    assert page.locator("#stats-trend path").count() == 2
    assert page.locator("#stats-trend circle").count() == 2
    # The local match has a group of its own (practice with Expert bots); picking it redraws.
    options = page.locator("#stats-group option").evaluate_all("els => els.map(e => [e.value, e.textContent])")
    expert = next(value for value, text in options if "Expert" in text)
    page.select_option("#stats-group", expert)
    page.wait_for_selector(f"#stats-figures[data-group='{expert}']")
    picked = page.evaluate(FIGURES)
    assert (picked["matches"], picked["hands"], picked["avg_placement"]) == ("1", "0", "1.00")
    assert picked["win_rate"] == "–"  # nothing to divide by
    page.select_option("#stats-group", "all")
    page.wait_for_selector("#stats-figures[data-group=all]")
    # Every text a dictionary's; nothing off the sheet.
    bad = outside_dictionaries(page.evaluate(VISIBLE_TEXTS, ["#account-sheet"]), "en", {"Kenji", "Sari"})
    assert bad == [], bad
    assert_within(page)
    page.screenshot(path=str(shots / "desktop-1280-account-stats.png"))
    page.locator(".stats-trend-box").screenshot(path=str(shots / "desktop-1280-account-stats-trend.png"))
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.slow
def test_the_stats_tab_fits_an_upright_phone_and_speaks_indonesian(browser, live, shots):
    page, _ = stats_page(browser, live, PORTRAIT, (7,))
    page.evaluate("() => localStorage.setItem('sanma.lang', 'id')")
    page.reload()
    page.wait_for_selector("#play")
    open_account(page, "stats")
    page.wait_for_selector("#stats-figures")
    assert DICTS["id"]["acct.stats.win_rate"] in page.inner_text("#stats-figures")
    bad = outside_dictionaries(page.evaluate(VISIBLE_TEXTS, ["#account-sheet"]), "id", {"Kenji", "Sari"})
    assert bad == [], bad
    assert_within(page)
    page.screenshot(path=str(shots / "portrait-390-account-stats.png"), full_page=True)
    assert page.errors == []  # type: ignore[attr-defined]


def assert_within(page: Page) -> None:
    """No tab, figure card or the trend reaches out of the sheet's width."""
    sheet = page.locator("#account-panel").bounding_box()
    assert sheet is not None
    boxes = page.locator(".acct-tabs .choice, .stat, svg.trend, .stats-pick").evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; })"
    )
    assert boxes
    for left, right in boxes:
        assert sheet["x"] - 0.5 <= left and right <= sheet["x"] + sheet["width"] + 0.5, (left, right, sheet)
    width = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert width[0] <= width[1], width
