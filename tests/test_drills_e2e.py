"""The account sheet's Drills tab in Chromium against a real server, on a desktop and on a phone
(upright and sideways): the day's problems from the player's reviewed matches, one answered
right (the master's discard) and one wrong, the master's choice and the values shown, the rest
of the hand stepped to its end, the streak once the set is done; every text translated,
nothing off the sheet; and a player with no reviewed match asking the reviews from the tab
(screenshots: SANMA_SCREENSHOTS=1)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from playwright.sync_api import Page, expect

from sanma.bots.drill import answer_tile, discarded_tile
from sanma.store import db
from sanma.store import drills as store
from tests.fixtures.account_pages import fresh_page, open_account
from tests.fixtures.browser import DESKTOP, PHONE
from tests.fixtures.drills import SEAT, SEEDS, keep_review, reviewed
from tests.fixtures.i18n import OVERFLOWS, VISIBLE_TEXTS, outside_dictionaries
from tests.fixtures.replay_viewer import guest_of
from tests.fixtures.replays import store_ended
from tests.fixtures.server import LiveServer

PORTRAIT = {"width": 390, "height": 844}

OFF_SHEET = """() => {
  const panel = document.querySelector('#account-panel').getBoundingClientRect();
  return [...document.querySelectorAll('#drills button, #drills .drill-seat, #drills h3')]
    .filter(e => {
      const r = e.getBoundingClientRect();
      return r.width && (r.left < panel.left - 1 || r.right > panel.right + 1);
    })
    .map(e => e.id || e.className);
}"""


def drills_page(
    browser, live: LiveServer, viewport: dict[str, int], lang: str = "en"
) -> tuple[Page, list[store.Drill]]:
    """A page whose guest has the reviewed matches of ``SEEDS`` (five problems), on the Drills tab."""
    page = fresh_page(browser, live, lang=lang, viewport=viewport)
    guest, _ = guest_of(page)
    engine = db.open_engine(live.settings.db_url)
    try:
        for seed in SEEDS:
            match, _ = store_ended(engine, seed, guest, SEAT)
            keep_review(engine, match, SEAT, guest, reviewed(seed)[1])
        drills = store.daily_set(engine, guest, datetime.now(UTC).date())  # what the tab will show
    finally:
        engine.dispose()
    open_account(page, "drills")
    page.wait_for_selector("#drills .drill")
    return page, drills


def legal_of(page: Page) -> list[str]:
    return list(page.locator("#drills button.drill-tile").evaluate_all("els => els.map(e => e.dataset.tile)"))


def shown_slot(page: Page) -> int:
    return int(page.get_attribute("#drills .drill-pick[aria-pressed=true]", "data-slot") or -1)


@pytest.mark.slow
@pytest.mark.parametrize("viewport", [DESKTOP, PORTRAIT, PHONE], ids=["desktop", "portrait", "landscape"])
def test_answer_drills_right_and_wrong_see_the_master_the_rest_and_the_streak(browser, live, shots, viewport):
    page, drills = drills_page(browser, live, viewport)
    name = f"{viewport['width']}x{viewport['height']}"
    assert page.locator("#drills .drill-pick").count() == len(drills) == store.SET_SIZE
    assert "Days in a row: 0" in page.inner_text("#drill-streak")
    assert page.inner_text("#drill-question") == "What would you discard?"
    assert not page.evaluate(OFF_SHEET)
    page.screenshot(path=str(shots / f"drills-{name}-question.png"))

    # Right: the master's discard.
    first = drills[shown_slot(page)]
    tile = answer_tile(legal_of(page), str(discarded_tile(first.problem.master)))
    page.click(f"#drills button.drill-tile[data-tile='{tile}']")
    page.wait_for_selector("#drill-verdict.right")
    assert page.locator("#drills .drill-values li.master").count() == 1
    assert page.locator("#drills .drill-hand .drill-tile.master").count() >= 1
    assert "The master discards" in page.inner_text("#drills .drill-solution")
    assert "-shanten" in page.inner_text("#drills .drill-why") or "tenpai" in page.inner_text("#drills .drill-why")
    assert not page.evaluate(OFF_SHEET)
    page.screenshot(path=str(shots / f"drills-{name}-right.png"), full_page=True)
    # The rest of the hand: from the decision to its end.
    expect(page.locator("#drills .drill-at")).to_have_text(re.compile(r"^1 / \d+$"))
    page.click("#drill-step-next")
    expect(page.locator("#drills .drill-at")).to_have_text(re.compile(r"^2 / \d+$"))
    page.click("#drill-step-last")
    expect(page.locator("#drill-event")).to_contain_text(re.compile("wins by|draw|aborted"))
    expect(page.locator("#drill-step-next")).to_be_disabled()
    page.screenshot(path=str(shots / f"drills-{name}-rest.png"), full_page=True)

    # Wrong: another legal discard.
    page.click("#drill-next")
    page.wait_for_selector("#drill-question")
    second = drills[shown_slot(page)]
    master = answer_tile(legal_of(page), str(discarded_tile(second.problem.master)))
    wrong = next(t for t in legal_of(page) if t != master)
    page.click(f"#drills button.drill-tile[data-tile='{wrong}']")
    page.wait_for_selector("#drill-verdict.wrong")
    assert page.locator("#drills .drill-hand .drill-tile.answered").count() >= 1
    assert page.locator("#drills .drill-pick.right").count() == 1
    assert page.locator("#drills .drill-pick.wrong").count() == 1
    expect(page.locator("#drill-streak")).to_contain_text("2 of 5 answered today")

    # The rest of the set: the day is done and the streak counts it.
    for _ in range(3):
        page.click("#drill-next")
        page.wait_for_selector("#drill-question")
        page.click("#drills button.drill-tile >> nth=0")
        page.wait_for_selector("#drill-verdict")
    expect(page.locator("#drill-streak")).to_contain_text("Days in a row: 1")
    assert page.locator("#drill-next").count() == 0
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["ja", "ru"])
def test_every_text_of_the_drills_tab_is_translated_and_fits(browser, live, shots, lang):
    for viewport in (DESKTOP, PHONE, PORTRAIT):
        page, _ = drills_page(browser, live, viewport, lang)
        name = f"{viewport['width']}x{viewport['height']}-{lang}"
        seen = page.evaluate(VISIBLE_TEXTS, ["#account-sheet"])
        assert page.evaluate(OVERFLOWS) == [], name
        page.click("#drills button.drill-tile >> nth=0")
        page.wait_for_selector("#drill-verdict")
        page.click("#drill-step-last")
        seen += page.evaluate(VISIBLE_TEXTS, ["#account-sheet"])
        assert page.evaluate(OVERFLOWS) == [], name
        assert not outside_dictionaries(seen, lang, set()), name
        page.screenshot(path=str(shots / f"drills-{name}-rest.png"))
        page.context.close()


@pytest.mark.slow
def test_a_player_without_reviews_is_told_how_and_asks_them_from_the_tab(browser, live, shots):
    page = fresh_page(browser, live, viewport=PORTRAIT)
    guest, _ = guest_of(page)
    engine = db.open_engine(live.settings.db_url)
    try:
        store_ended(engine, SEEDS[0], guest, SEAT)
    finally:
        engine.dispose()
    open_account(page, "drills")
    page.wait_for_selector("#drills-empty")
    assert "finish a practice match" in page.inner_text("#drills").lower()
    page.screenshot(path=str(shots / "drills-390x844-empty.png"))
    page.click("#drill-ask")
    page.wait_for_selector("#drills .drill", timeout=240_000)  # the server's review worker reviewed it
    assert page.locator("#drills .drill-pick").count() == store.SET_SIZE
