"""The account pages end to end in Chromium (Playwright) against a real server and a real local
SMTP server: a display name that looks like HTML stays text; link an e-mail with the mailed
code; check in, buy and equip a tile back and see it on the opponents' hands in a match; the
match in the history with its replay; export the backup and import it in another
browser; recover the account on a fresh browser context with a mailed code."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from sanma.store import accounts as acc
from sanma.store import db
from tests.fixtures.account_pages import fresh_page, open_account
from tests.fixtures.account_pages import live as live  # the account pages' live (mail to inbox), not conftest's
from tests.fixtures.browser import DESKTOP, PHONE, assert_no_overflow, play_to_match_end, start_match
from tests.fixtures.server import LiveServer

XSS = "<img src=x onerror=f()>"
INDIGO = "rgb(58, 79, 184)"  # back-indigo's first colour, #3a4fb8


def close_account(page: Page) -> None:
    page.click("[data-acct-close]")
    page.wait_for_selector("#account-sheet", state="hidden")


def wait_for_back(page: Page, color: str) -> None:
    """Until an opponent's tile back shows ``color`` (the gradient its rect is filled with, one
    for every back: index.html ``#tile-back``).  Read in one go inside the page: the
    board is redrawn as events arrive, and a tile read while it is replaced is detached (its
    computed style is empty)."""
    page.wait_for_function(
        """c => { const r = document.querySelector('.opponent .backs .tile svg rect');
                  const id = r && /url\\("?#([\\w-]+)"?\\)/.exec(r.getAttribute('fill'))?.[1];
                  const s = id ? document.querySelector(`#${id} stop`) : null;
                  return s !== null && getComputedStyle(s).stopColor === c; }""",
        arg=color,
        timeout=10_000,
    )


@pytest.mark.slow
def test_account_pages_end_to_end(browser, live, inbox, tmp_path, shots):
    page = fresh_page(browser, live)
    # No e-mail linked yet: the button warns once the profile has loaded.
    page.wait_for_function("() => document.querySelector('#account-btn .warn-sign')")
    open_account(page)
    assert page.locator("#acct-warn").is_visible()

    # A name that looks like markup is shown as text and never runs.
    page.fill("#acct-name", XSS)
    page.click("#acct-name-save")
    page.wait_for_function("t => document.getElementById('acct-name-shown').textContent === t", arg=XSS)
    assert page.locator("#account-panel img").count() == 0
    assert page.errors == []  # type: ignore[attr-defined]

    # Link an e-mail with the code from the mail.
    page.fill("#link-email", "player@example.org")
    page.click("#link-send")
    page.wait_for_selector("#link-code", state="visible")
    page.fill("#link-code", inbox.code("player@example.org"))
    page.click("#link-verify")
    page.wait_for_function(
        "() => document.getElementById('acct-email-state').textContent.includes('p***r@example.org')"
    )
    assert page.locator("#acct-warn").count() == 0
    page.screenshot(path=str(shots / "desktop-account-profile.png"))

    # Check in, buy and equip a tile back.
    page.click("[data-acct-tab=shop]")
    page.click("#checkin")
    page.wait_for_function("() => document.getElementById('coin-balance').textContent.includes('100')")
    page.click("[data-buy=back-indigo]")
    page.click("[data-equip=back-indigo]")
    page.wait_for_selector("[data-item=back-indigo].on")
    assert "0" in page.inner_text("#coin-balance")
    page.screenshot(path=str(tmp_path / "account-shop.png"))  # see test_account_screens
    close_account(page)

    # The equipped back on the opponents' hands in a match, played to its end.
    start_match(page)
    wait_for_back(page, INDIGO)
    page.screenshot(path=str(tmp_path / "account-tile-back.png"))
    play_to_match_end(page, tmp_path, "acct")
    page.click("[data-panel=again]")
    page.wait_for_selector("#play")

    # The history lists it; its replay steps through the log, every hand open once the match
    # has ended (tests/test_replay_viewer_e2e.py tests the viewer itself).
    open_account(page, "history")
    page.wait_for_selector("#hist-server [data-replay]")
    # The bots by the names the table gave them, with their level.
    listed = page.inner_text("#hist-server")
    assert "Kenji (" in listed and "Sari (" in listed, listed
    page.click("#hist-server [data-replay]")
    page.wait_for_selector("#replay-step")
    first = page.inner_text("#replay-step")
    page.click("#replay-next-event")
    page.click("#replay-next-event")
    assert page.inner_text("#replay-step") != first
    assert page.locator("#replay .board .opponent .tile.open-hand").count() > 0
    assert page.locator("#replay-hand .tile").count() >= 13
    page.screenshot(path=str(tmp_path / "account-replay.png"))
    page.click("#replay-close")
    page.wait_for_selector("#replay-view", state="detached")
    page.wait_for_selector("#hist-server")

    # Export the backup (token + history).
    page.click("[data-acct-tab=profile]")
    with page.expect_download() as download:
        page.click("#backup-export")
    backup = tmp_path / "backup.json"
    download.value.save_as(backup)
    data = json.loads(backup.read_text())
    token = page.evaluate("() => localStorage.getItem('sanma.token')")
    assert data["format"] == "sanma-backup" and data["token"] == token and len(data["history"]) == 1

    # Import it in another browser: its history, and (confirmed) its account.
    other = fresh_page(browser, live)
    other.on("dialog", lambda d: d.accept())
    open_account(other)
    other.set_input_files("#backup-file", str(backup))
    other.wait_for_function("t => localStorage.getItem('sanma.token') === t", arg=token)
    other.click("[data-acct-tab=history]")
    other.wait_for_selector("#hist-server [data-replay]")
    assert len(json.loads(other.evaluate("() => localStorage.getItem('sanma.history')"))) == 1

    # Recover on a fresh browser (Indonesian) with the mailed code.
    fresh = fresh_page(browser, live, lang="id")
    assert "Akun" in fresh.inner_text("#account-btn")
    open_account(fresh)
    fresh.fill("#recover-email", "player@example.org")
    fresh.click("#recover-send")
    fresh.wait_for_selector("#recover-code", state="visible")
    fresh.fill("#recover-code", inbox.code("player@example.org", 2))
    fresh.click("#recover-verify")
    fresh.wait_for_function("t => document.getElementById('acct-name-shown')?.textContent === t", arg=XSS)
    assert fresh.evaluate("() => localStorage.getItem('sanma.token')") != token
    assert (
        fresh.evaluate("() => getComputedStyle(document.documentElement).getPropertyValue('--back-a')").strip()
        == "#3a4fb8"
    )
    assert "tertaut" in fresh.inner_text("#acct-email-state").lower()
    for p in (page, other, fresh):
        assert p.errors == []  # type: ignore[attr-defined]


def grant_two_past_checkins(live: LiveServer, page: Page) -> None:
    """Yesterday's and the day before's check-ins (100 + 120 coins), so that today's (+140)
    buys a tile back and a cloth: the shop and the table are shown with both equipped."""
    guest = str(
        page.evaluate("""async () => (await (await fetch('/api/account',
        {headers: {Authorization: 'Bearer ' + localStorage.getItem('sanma.token')}})).json()).guest""")
    )
    engine = db.open_engine(live.settings.db_url)
    try:
        today = datetime.now(UTC).date()
        for back in (2, 1):
            acc.check_in(engine, guest, today - timedelta(days=back))
    finally:
        engine.dispose()


# Each button of a history row's tools: its box, and whether its text fits inside it.
TOOL_BOXES = """els => els.map(e => { const r = e.getBoundingClientRect();
  return { x: r.x, y: r.y, width: r.width, height: r.height, fits: e.scrollWidth <= e.clientWidth + 1 }; })"""


def assert_row_tools_apart(page: Page) -> None:
    """A history row's buttons (replay, review, downloads, share) each show their whole text,
    lie inside the account panel and cover none of the others (they wrap instead)."""
    tools = page.locator("#hist-server tbody tr").first.locator(".hist-tools button").evaluate_all(TOOL_BOXES)
    panel = page.locator("#account-panel").bounding_box()
    assert len(tools) == 5 and panel
    for i, a in enumerate(tools):
        assert a["fits"], ("the text spills out of its button", i, a)
        assert panel["x"] <= a["x"] and a["x"] + a["width"] <= panel["x"] + panel["width"] + 0.5, (i, a, panel)
        for b in tools[i + 1 :]:
            apart = (
                a["x"] + a["width"] <= b["x"] + 0.5
                or b["x"] + b["width"] <= a["x"] + 0.5
                or a["y"] + a["height"] <= b["y"] + 0.5
                or b["y"] + b["height"] <= a["y"] + 0.5
            )
            assert apart, ("two buttons of a history row overlap", a, b)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("viewport", "name", "lang", "play"),
    [
        (DESKTOP, "desktop", "en", True),
        (PHONE, "phone", "id", True),
        ({"width": 390, "height": 844}, "portrait", "en", True),
        (DESKTOP, "desktop", "id", False),
        (PHONE, "phone", "en", False),
    ],
)
def test_account_screens(
    browser: Browser,
    live: LiveServer,
    tmp_path: Path,
    shots: Path,
    viewport: dict[str, int],
    name: str,
    lang: str,
    play: bool,
) -> None:
    """The profile, the shop with a back and a cloth bought and equipped, the table wearing
    them, the history and the replay: inside the screen at both sizes, in both languages
    (the screenshots are for review)."""
    page = fresh_page(browser, live, lang=lang, viewport=viewport)
    page.wait_for_function("() => document.querySelector('#account-btn .warn-sign')")
    grant_two_past_checkins(live, page)
    open_account(page)
    assert page.locator("#acct-warn").is_visible()
    # The redrawn sheet keeps the keyboard focus on the tab that was pressed.
    assert page.evaluate("() => document.activeElement.dataset.acctTab") == "profile"
    for field in ("#acct-name", "#link-email", "#recover-email"):
        assert page.locator(field).evaluate("el => !!el.labels?.length || !!el.getAttribute('aria-label')"), field
    if play:
        page.screenshot(path=str(shots / f"{name}-account-profile-{lang}.png"))
    page.click("[data-acct-tab=shop]")
    page.wait_for_selector("#checkin")
    page.screenshot(path=str(shots / f"{name}-account-checkin-{lang}.png"))
    page.click("#checkin")
    page.wait_for_function("() => document.getElementById('coin-balance').textContent.includes('360')")
    for item in ("back-indigo", "cloth-navy"):
        page.click(f"[data-buy={item}]")
        page.click(f"[data-equip={item}]")
        page.wait_for_selector(f"[data-item={item}].on")
    assert "60" in page.inner_text("#coin-balance")
    # The check-in shot shows the tile backs; this one scrolls down to the cloths.
    page.locator("[data-item=cloth-navy]").evaluate("el => el.scrollIntoView({block: 'end'})")
    page.screenshot(path=str(shots / f"{name}-account-shop-{lang}.png"))
    size = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert size[0] <= size[1]
    close_account(page)
    assert page.evaluate("() => document.activeElement.id") == "account-btn"
    if not play:
        return
    start_match(page)
    assert page.locator("html[data-cloth=cloth-navy]").count() == 1
    wait_for_back(page, INDIGO)
    page.screenshot(path=str(shots / f"{name}-table-cosmetics.png"))
    assert_no_overflow(page)
    play_to_match_end(page, tmp_path, name)
    page.click("[data-panel=again]")
    page.wait_for_selector("#play")
    open_account(page, "history")
    page.wait_for_selector("#hist-server [data-replay]")
    page.screenshot(path=str(shots / f"{name}-account-history-{lang}.png"))
    assert_row_tools_apart(page)
    page.click("#hist-server [data-replay]")
    page.wait_for_selector("#replay-step")
    for _ in range(12):
        page.click("#replay-next-event")
    page.screenshot(path=str(shots / f"{name}-account-replay-{lang}.png"))
    # The step is told in words (no raw event fields), the tiles carry their names, and the
    # keyboard steps on with the focus kept on the pressed button.
    said = page.inner_text("#replay-event")
    assert said and "=" not in said and "{" not in said, said
    labels = page.locator("#replay-hand .tile").evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")
    assert labels and all(labels), labels
    before = page.inner_text("#replay-step")
    page.focus("#replay-next-event")
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "replay-next-event"
    page.keyboard.press("Shift+ArrowLeft")  # one event back (a plain arrow steps a turn)
    assert page.inner_text("#replay-step") == before
    size = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert size[0] <= size[1]
    assert page.errors == []  # type: ignore[attr-defined]
