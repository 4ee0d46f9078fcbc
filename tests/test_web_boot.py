"""The page's first seconds (issue 11, the first interactive table): the guest's current match
is asked once, by web/src/early.js as soon as its two small modules load, which also opens the
socket to it and sends the hello before the table's modules are in (the table takes it over;
any other screen closes it); the account's calls (profile, shop, history) wait until the
player has something to click, and the look equipped last time (tile back, cloth) is on from
the first frame, even when the account cannot answer at all."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx
import pytest

from tests.fixtures.account_pages import fresh_page
from tests.fixtures.browser import start_match

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser, Page

    from tests.fixtures.server import LiveServer

# When the first hand tile the player may click entered the page (performance.now()).
FIRST_CLICKABLE = """
window.__firstClickable = null;
new MutationObserver(() => {
  if (window.__firstClickable === null && document.querySelector('.hand.my-turn .hand-tile:not(.blocked)')) {
    window.__firstClickable = performance.now();
  }
}).observe(document, { childList: true, subtree: true, attributes: true });
"""
STARTS = """(path) => performance.getEntriesByType('resource')
  .filter(e => new URL(e.name).pathname === path).map(e => e.startTime)"""


def equip_indigo_back(page: Page) -> None:
    page.click("[data-cmd=account]")
    page.click("[data-acct-tab=shop]")
    page.click("#checkin")
    page.wait_for_function("() => document.getElementById('coin-balance').textContent.includes('100')")
    page.click("[data-buy=back-indigo]")
    page.click("[data-equip=back-indigo]")
    page.wait_for_selector("[data-item=back-indigo].on")
    page.keyboard.press("Escape")


def root_look(page: Page) -> dict[str, str]:
    return dict(
        page.evaluate(
            """() => ({ back: document.documentElement.dataset.tileBack || '',
                        a: document.documentElement.style.getPropertyValue('--back-a') })"""
        )
    )


@pytest.mark.slow
def test_the_look_of_last_time_is_on_before_the_account_answers(browser: Browser, live: LiveServer) -> None:
    page = fresh_page(browser, live)
    equip_indigo_back(page)
    # The account and the shop refuse to answer: the look can only come from the page's memory.
    page.route("**/api/account", lambda route: route.abort())
    page.route("**/api/shop", lambda route: route.abort())
    page.reload()
    page.wait_for_selector("#play")
    assert root_look(page) == {"back": "back-indigo", "a": "#3a4fb8"}
    # Without the remembered look the same load keeps the default back.
    page.evaluate("() => localStorage.removeItem('sanma.look')")
    page.reload()
    page.wait_for_selector("#play")
    assert root_look(page) == {"back": "", "a": ""}
    page.context.close()


def test_the_first_table_waits_for_no_account_call(browser: Browser, live: LiveServer) -> None:
    page = fresh_page(browser, live)
    start_match(page)
    page.add_init_script(FIRST_CLICKABLE)
    page.reload()  # the match resumes by itself: this load is the one looked at
    page.wait_for_selector(".hand.my-turn .hand-tile:not(.blocked)")
    page.wait_for_function(f"() => ({STARTS})('/api/account/history').length > 0")
    clickable = float(page.evaluate("() => window.__firstClickable"))
    current = page.evaluate(STARTS, "/api/practice/current")
    assert len(current) == 1  # early.js's call, the one boot waits for (not asked twice)
    for path in ("/api/account", "/api/shop", "/api/account/history"):
        starts = page.evaluate(STARTS, path)
        assert starts and min(starts) >= clickable, (path, starts, clickable)
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


# Every socket the page opens, and the frames each one received (text, in order).
SOCKETS = """
window.__sockets = [];
const PageSocket = window.WebSocket;
window.WebSocket = class extends PageSocket {
  constructor(...args) {
    super(...args);
    const seen = { frames: [], socket: this };
    window.__sockets.push(seen);
    this.addEventListener('message', (e) => seen.frames.push(String(e.data)));
  }
};
"""
FRAME_KINDS = "() => window.__sockets.map(s => s.frames.map(f => JSON.parse(f).t))"


@pytest.mark.slow
def test_the_socket_to_the_current_match_greets_before_the_table_modules_load(
    browser: Browser,
    live: LiveServer,
) -> None:
    page = fresh_page(browser, live)
    start_match(page)
    page.add_init_script(SOCKETS)
    # Without main.js (nor the table it imports) the page still opens the match's socket and
    # has its welcome, backlog and prompt: early.js sends the hello on its own.
    page.route("**/src/main.js", lambda route: route.abort())
    page.reload()
    page.wait_for_function("() => window.__sockets.length === 1 && window.__sockets[0].frames.length > 0")
    page.wait_for_function(f"() => ({FRAME_KINDS})()[0].includes('prompt')")
    kinds = page.evaluate(FRAME_KINDS)[0]
    assert kinds[0] == "welcome" and "event" in kinds, kinds
    # With the modules, the table takes that socket over: one socket, the frames it received
    # before the table was there are folded, and the turn is played on it.
    page.unroute("**/src/main.js")
    page.reload()
    tile = page.wait_for_selector(".hand.my-turn .hand-tile:not(.blocked)")
    river = page.locator(".river .tile").count()
    tile.click()
    page.wait_for_function(f"() => document.querySelectorAll('.river .tile').length > {river}")
    assert page.evaluate("() => window.__sockets.length") == 1
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.slow
def test_the_early_socket_closes_when_the_page_opens_something_else(
    browser: Browser,
    live: LiveServer,
) -> None:
    page = fresh_page(browser, live)
    start_match(page)  # a current practice match ...
    token = page.evaluate("() => localStorage.getItem('sanma.token')")
    room = httpx.post(f"{live.http}/api/rooms", headers={"Authorization": f"Bearer {token}"})
    assert room.status_code == 201, room.text
    # ... and a friend room's lobby to go back to, which boot opens instead.
    page.evaluate("(code) => localStorage.setItem('sanma.room', code)", room.json()["code"])
    page.add_init_script(SOCKETS)
    page.reload()
    page.wait_for_selector("#room-code-shown")
    page.wait_for_function("() => window.__sockets.length >= 1")
    page.wait_for_function("() => window.__sockets[0].socket.readyState === WebSocket.CLOSED")
    assert page.evaluate("() => window.__sockets.length") == 1  # nothing else opened one
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


# Set when the game screen is on view with no hand on it (a bare board before the match's events).
BARE_GAME = """
window.__bareGame = false;
new MutationObserver(() => {
  const shown = document.querySelector('#game:not([hidden])');
  if (shown && !shown.querySelector('.hand-tile')) window.__bareGame = true;
}).observe(document, { childList: true, subtree: true, attributes: true });
"""


@pytest.mark.slow
def test_a_resumed_match_shows_its_table_with_its_first_frame_not_a_bare_board_before(
    browser: Browser,
    live: LiveServer,
) -> None:
    page = fresh_page(browser, live)
    start_match(page)
    page.add_init_script(BARE_GAME)
    page.reload()
    page.wait_for_selector(".hand.my-turn .hand-tile:not(.blocked)")
    assert page.evaluate("() => window.__bareGame") is False
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()
