"""Stamps in a real browser (docs/rooms.md, "Stamps"; Playwright + Debian's chromium, fixtures
from tests/fixtures/browser.py): two guests in two browser contexts at a friend room's table,
at desktop and both phone viewports.  The friend opens the picker from its button by the hand and sends
a stamp with the keyboard alone (Enter, the arrows, Enter; Escape closes and the focus comes
back to the button); the host sees it beside the friend's name plate and the friend beside
its own area; once the host turns on "Mute others' stamps" in the menu, the friend's next
stamp does not show on the host's page while the host's own still does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from sanma.server.protocol import STAMPS
from tests.fixtures.browser import DESKTOP, PHONE, open_page
from tests.fixtures.room_pages import set_name
from tests.fixtures.server import LiveServer, serving

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser, Page

PORTRAIT = {"width": 390, "height": 844}
VIEWPORTS = {"desktop-1280": DESKTOP, "landscape-844": PHONE, "portrait-390": PORTRAIT}


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    yield from serving(tmp_path / "data")


def _page(browser: Browser, live: LiveServer, viewport: dict[str, int], lang: str) -> Page:
    """A page at ``viewport``; a phone's with a touch screen (the 44 px targets of ``pointer: coarse``)."""
    if viewport is DESKTOP:
        return open_page(browser, live, viewport, lang)
    page = browser.new_page(viewport=viewport, has_touch=True, is_mobile=True)  # type: ignore[arg-type]
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    page.errors = errors  # type: ignore[attr-defined]
    page.add_init_script(f"localStorage.getItem('sanma.lang') || localStorage.setItem('sanma.lang', '{lang}')")
    page.goto(live.http + "/")
    return page


def _rooms(page: Page, path: str, body: Any = None) -> dict[str, Any]:
    """A rooms API call with the page's own token."""
    answer = page.evaluate(
        """async ([path, body]) => {
            const token = localStorage.getItem('sanma.token');
            const r = await fetch('/api/rooms' + path, {method: 'POST', body: JSON.stringify(body ?? {}),
              headers: {'Content-Type': 'application/json', Authorization: 'Bearer ' + token}});
            return {status: r.status, body: await r.json()};
        }""",
        [path, body],
    )
    assert answer["status"] in (200, 201), answer
    return dict(answer["body"])


def _shown(page: Page, seat: int, stamp: str) -> str:
    return f'.stamp-shown[data-seat="{seat}"][data-stamp="{stamp}"]'


def _beside(page: Page, shown: str, anchor: str) -> bool:
    """Whether the stamp's box touches (or nearly) the anchor's: it is shown beside that seat."""
    return bool(
        page.evaluate(
            """([a, b]) => {
                const r = document.querySelector(a).getBoundingClientRect();
                const s = document.querySelector(b).getBoundingClientRect();
                const gap = 24;
                const across = r.left < s.right + gap && s.left < r.right + gap;
                return across && r.top < s.bottom + gap && s.top < r.bottom + gap;
            }""",
            [shown, anchor],
        )
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", list(VIEWPORTS))
def test_a_stamp_sent_by_keyboard_shows_beside_the_sender_and_mute_hides_others(
    browser: Browser, live: LiveServer, shots: Path, name: str
) -> None:
    viewport = VIEWPORTS[name]
    host = _page(browser, live, viewport, "en")
    friend = _page(browser, live, viewport, "en")
    for page in (host, friend):
        page.wait_for_selector("#play")
    set_name(host, "Ana")
    set_name(friend, "Budi")
    code = _rooms(host, "", {"length": "one-hand", "red_fives": True, "turn_timer": "off"})["code"]
    _rooms(friend, f"/{code}/join")
    _rooms(host, f"/{code}/bots", {"seat": 2, "level": "beginner"})
    _rooms(host, f"/{code}/start")
    for page in (host, friend):
        page.reload()  # the page resumes the guest's current match: the room's table
        page.wait_for_selector(".hand-tile", timeout=20_000)
        page.wait_for_selector("#stamp-btn")
    # The client's stamps are the server's, in the same order.
    assert friend.evaluate("async () => (await import('/src/stamps.js')).STAMP_IDS") == list(STAMPS)

    # Keyboard only: Enter opens the picker on its first stamp, Escape closes it (the host's
    # table is not told to skip), the focus is back on the button.
    friend.focus("#stamp-btn")
    friend.keyboard.press("Enter")
    friend.wait_for_selector("#stamp-picker:not([hidden]) .stamp-choice")
    assert friend.evaluate("document.activeElement.dataset.stampSend") == "hello"
    assert friend.get_attribute("#stamp-btn", "aria-expanded") == "true"
    friend.keyboard.press("Escape")
    friend.wait_for_selector("#stamp-picker", state="hidden")
    assert friend.evaluate("document.activeElement.id") == "stamp-btn"
    friend.keyboard.press(" ")  # Space opens it too
    friend.wait_for_selector("#stamp-picker:not([hidden]) .stamp-choice")
    friend.keyboard.press("ArrowRight")
    assert friend.evaluate("document.activeElement.getAttribute('aria-label')") == "Nice!"
    if viewport is not DESKTOP:  # touch targets on a phone
        sizes = friend.evaluate(
            "[...document.querySelectorAll('#stamp-btn, .stamp-choice')]"
            ".map((b) => Math.min(b.offsetWidth, b.offsetHeight))"
        )
        assert min(sizes) >= 40, sizes
    friend.screenshot(path=str(shots / f"stamps-picker-{name}.png"))
    friend.keyboard.press("Enter")
    friend.wait_for_selector("#stamp-picker", state="hidden")
    assert friend.evaluate("document.activeElement.id") == "stamp-btn"

    # The host sees it beside the friend's name plate; the friend beside its own area.
    host.wait_for_selector(_shown(host, 1, "nice"))
    host.evaluate("Promise.all(document.getAnimations().map((a) => a.finished))")  # popped in
    assert _beside(host, _shown(host, 1, "nice"), '.opponent[data-seat="1"]')
    # Its name under the drawing, read out with the sender's name ("Budi: Nice!").
    assert host.text_content(_shown(host, 1, "nice")).strip() == "Budi: Nice!"
    assert host.evaluate(f"document.querySelector('{_shown(host, 1, 'nice')} .sr-only').offsetWidth") <= 1
    friend.wait_for_selector(_shown(friend, 1, "nice"))
    assert _beside(friend, _shown(friend, 1, "nice"), "#game .me-area")
    host.screenshot(path=str(shots / f"stamps-shown-{name}.png"))
    host.wait_for_selector(_shown(host, 1, "nice"), state="detached", timeout=10_000)  # gone after a few seconds

    # Mute others' stamps (the host's menu): the friend's next stamp is not shown on the host's page.
    host.click("#menu-btn")
    host.click("[data-stamps-mute]")
    host.wait_for_selector('[data-stamps-mute][aria-checked="true"]')
    host.keyboard.press("Escape")  # the menu closes
    friend.click("#stamp-btn")
    friend.click('[data-stamp-send="thanks"]')
    friend.wait_for_selector(_shown(friend, 1, "thanks"))  # the server sent it to both pages
    host.click("#stamp-btn")
    host.click('[data-stamp-send="gg"]')
    host.wait_for_selector(_shown(host, 0, "gg"))  # one's own still shows (sent after the friend's)
    assert host.locator('.stamp-shown[data-seat="1"]').count() == 0
    assert host.evaluate("localStorage.getItem('sanma.stamps_mute')") == "on"
    for page in (host, friend):
        assert page.errors == []  # type: ignore[attr-defined]
        page.close()
