"""Rough edges of the table and the start screen (issue 24), in Debian's Chromium against a
real server: the menu closes on Escape and on a click outside it; a purchase in the shop
says what was bought and drops the check-in's note; a friend room's match left in play is
offered on the start screen and rejoined; a friend who opens an invite link is asked once for
a name, saved as the guest's display name, or may skip the question; your turn is said in
words, and a first tap on a touch screen lifts the tile by half its width."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.fixtures.browser import DESKTOP, PHONE, hand_labels, open_page, start_match
from tests.fixtures.room_pages import set_name
from tests.fixtures.server import LiveServer, serving

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser, Page


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    # A room seat's turn waits for the test, which leaves and comes back; nor is the seat played
    # for while it is away.
    yield from serving(tmp_path / "data", turn_s=60.0, bank_s=30.0, away_grace_s=60.0)


MENU_SHOWN = "() => !document.getElementById('menu').hidden"
MENU_HIDDEN = "() => document.getElementById('menu').hidden"


def test_the_menu_closes_on_escape_and_on_a_click_outside(browser: Browser, live: LiveServer) -> None:
    page = open_page(browser, live, DESKTOP)
    start_match(page)
    page.click("#menu-btn")
    page.wait_for_function(MENU_SHOWN)
    page.keyboard.press("Escape")
    page.wait_for_function(MENU_HIDDEN)
    assert page.evaluate("() => document.activeElement.id") == "menu-btn"  # back where it opened
    page.click("#menu-btn")
    page.wait_for_function(MENU_SHOWN)
    page.click(".centre")  # anywhere outside the menu and its button
    page.wait_for_function(MENU_HIDDEN)
    # A click inside it (a toggle) keeps it open; its own button still closes it.
    page.set_viewport_size(PHONE)  # the toggles move into the menu on a small screen
    page.click("#menu-btn")
    page.wait_for_function(MENU_SHOWN)
    page.click("#menu .menu-toggle >> nth=0")
    assert page.evaluate(MENU_SHOWN)
    page.click("#menu-btn")
    page.wait_for_function(MENU_HIDDEN)
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()


NOTE = "() => document.getElementById('acct-note').textContent"


@pytest.mark.slow
def test_a_purchase_is_confirmed_and_the_check_in_note_goes(browser: Browser, live: LiveServer) -> None:
    page = open_page(browser, live, DESKTOP)
    page.wait_for_selector("#play")
    page.click("#account-btn")
    page.wait_for_selector("#account-panel")
    page.click("[data-acct-tab=shop]")
    page.click("#checkin")
    page.wait_for_function("() => document.getElementById('acct-note').textContent.includes('coins!')")
    page.click("[data-buy=back-indigo]")
    page.wait_for_selector("[data-equip=back-indigo]")
    page.wait_for_function("() => document.getElementById('acct-note').textContent.includes('Bought')")
    note = page.evaluate(NOTE)
    name = page.inner_text("[data-item=back-indigo] strong")
    balance = page.inner_text("#coin-balance").split()[-1]
    assert name in note and f"{balance} coins" in note and "Streak" not in note, note
    page.click("[data-equip=back-indigo]")
    page.wait_for_selector("[data-item=back-indigo].on")
    page.wait_for_function("(n) => document.getElementById('acct-note').textContent.includes(n)", arg=name)
    assert "Bought" not in page.evaluate(NOTE)
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()


def room_match_with_two_bots(page: Page) -> str:
    """Create a room from the start screen, seat two bots, start: the room's code."""
    page.wait_for_selector("[data-room-cmd=open]")
    page.click("[data-room-cmd=open]")
    page.click("button[data-room-opt=length][data-value=east]")
    page.click("[data-room-cmd=create]")
    code = page.inner_text("#room-code-shown")
    for seat in ("1", "2"):
        page.click(f'[data-room-cmd=add-bot][data-seat="{seat}"]')
        page.wait_for_selector(f'.room-seat.bot[data-seat="{seat}"]')
    page.click("[data-room-cmd=start]")
    page.wait_for_selector(".hand-tile", timeout=20_000)
    return code


@pytest.mark.slow
def test_a_room_match_left_in_play_is_resumed_from_the_start_screen(browser: Browser, live: LiveServer) -> None:
    page = open_page(browser, live, DESKTOP)
    code = room_match_with_two_bots(page)
    page.wait_for_selector(".hand.my-turn .hand-tile")  # seat 0 deals: the match waits for it
    hand = hand_labels(page)
    page.click("#menu-btn")
    page.click("[data-cmd=leave]")
    assert "resume" in page.inner_text("[data-testid=leave-confirm]")  # the promise kept below
    page.click("[data-panel=leave-yes]")
    page.wait_for_selector("#resume")
    assert code in page.inner_text("#resume")
    page.click("#resume")
    page.wait_for_selector(".hand.my-turn .hand-tile", timeout=20_000)
    assert hand_labels(page) == hand  # the same seat at the same moment
    page.wait_for_selector('[data-presence-seat="1"][data-state=bot]')  # a room's table again
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()


@pytest.mark.slow
def test_an_invited_friend_is_asked_for_a_name_once(browser: Browser, live: LiveServer) -> None:
    host = open_page(browser, live, DESKTOP)
    host.wait_for_selector("[data-room-cmd=open]")
    set_name(host, "Ana")
    host.click("[data-room-cmd=open]")
    host.click("[data-room-cmd=create]")
    link = host.input_value("#room-link")

    friend = open_page(browser, live, PHONE, lang="id")
    friend.wait_for_selector("[data-room-cmd=open]")
    friend.goto(link)
    friend.wait_for_selector("[data-testid=name-ask]")
    assert friend.evaluate("() => document.activeElement.id") == "room-name"
    assert "Mau dipanggil siapa" in friend.inner_text("[data-testid=name-ask]")  # Indonesian, "kamu"
    friend.fill("#room-name", "Budi")
    friend.click("[data-room-cmd=name-save]")
    friend.wait_for_selector("[data-testid=name-ask]", state="detached")
    seat_1 = "document.querySelector('.room-seat[data-seat=\"1\"] .who')"
    friend.wait_for_function(f"() => {seat_1}.textContent.startsWith('Budi')")  # "Budi · Kamu"
    host.wait_for_function(f"() => {seat_1}?.textContent === 'Budi'")
    friend.context.close()

    # Another friend skips: nothing is saved, and a second invite is not asked again.
    other = open_page(browser, live, PHONE)
    other.wait_for_selector("[data-room-cmd=open]")
    other.goto(link)
    other.wait_for_selector("[data-testid=name-ask]")
    other.click("[data-room-cmd=name-skip]")
    other.wait_for_selector("[data-testid=name-ask]", state="detached")
    assert other.inner_text('.room-seat[data-seat="2"] .who') == "You"
    other.click("[data-room-cmd=leave]")
    other.wait_for_selector("[data-room-cmd=create]")
    other.goto(link)
    other.wait_for_selector("#room-code-shown")
    other.wait_for_function("() => document.querySelectorAll('.room-seat.human').length === 3")
    assert other.locator("[data-testid=name-ask]").count() == 0
    assert host.errors == [] and other.errors == []  # type: ignore[attr-defined]
    host.context.close()
    other.context.close()


LIFT = """() => { const t = document.querySelector('.hand-tile.raised');
  const other = document.querySelector('.hand-tile:not(.raised)');
  return t && other ? {lift: other.getBoundingClientRect().top - t.getBoundingClientRect().top,
                       width: t.getBoundingClientRect().width} : null; }"""


def test_your_turn_is_said_in_words_and_a_first_tap_lifts_the_tile_clearly(browser: Browser, live: LiveServer) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, reduced_motion="reduce")
    page = context.new_page()
    page.add_init_script("localStorage.setItem('sanma.lang', 'en')")
    page.goto(live.http + "/")
    start_match(page)
    page.wait_for_selector(".hand.my-turn .hand-tile:not(.blocked)")
    assert page.inner_text("[data-testid=turn-cue]") == "Your turn"
    page.locator(".hand.my-turn .hand-tile:not(.blocked)").first.tap()
    page.wait_for_selector(".hand-tile.raised")
    assert page.inner_text("[data-testid=turn-cue]") == "Tap again to discard"
    shown = page.evaluate(LIFT)
    assert shown["lift"] >= shown["width"] * 0.45, shown  # half a tile's width, not 6 px
    page.locator(".hand-tile.raised").tap()  # the second tap discards it
    page.wait_for_selector(".river-me .tile")
    context.close()
