"""The client's settings (issue 24), in Debian's Chromium against a real server.

Language: a browser with no saved choice starts in the first of its languages the client has
(``navigator.languages`` in order, Indonesian for ``id``/``id-ID``), English otherwise; a
saved choice wins over the browser's."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from tests.test_web_e2e import DESKTOP, browser, live

__all__ = ["browser", "live"]  # the fixtures, used by name

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser, Page

    from tests.test_server import LiveServer


# A choice saved by an earlier visit (set before the page's own scripts run, once).
SAVED = "localStorage.getItem('sanma.lang') || localStorage.setItem('sanma.lang', '{lang}')"


def fresh_page(browser: Browser, live: LiveServer, init: str = "", **context: Any) -> Page:
    """A page in a new context (no saved settings), `init` run before the page's scripts."""
    ctx = browser.new_context(viewport=DESKTOP, **context)  # type: ignore[arg-type]
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors  # type: ignore[attr-defined]
    if init:
        page.add_init_script(init)
    page.goto(live.http + "/")
    page.wait_for_selector("#play")
    return page


def page_lang(page: Page) -> str:
    return str(page.evaluate("() => document.documentElement.lang"))


def languages(prefs: list[str]) -> str:
    """An init script giving the browser the preference list `prefs` (Playwright's `locale`
    sets one language only)."""
    return f"Object.defineProperty(Navigator.prototype, 'languages', {{ get: () => {json.dumps(prefs)} }});"


@pytest.mark.parametrize(
    ("context", "init", "expected", "play"),
    [
        ({"locale": "de-DE"}, "", "en", "Play"),
        ({"locale": "id-ID"}, "", "id", "Main"),
        ({"locale": "fr-FR"}, languages(["fr-FR", "id-ID"]), "id", "Main"),
        ({"locale": "fr-FR"}, languages(["fr-FR", "en-GB", "id-ID"]), "en", "Play"),
        ({"locale": "en-US"}, SAVED.format(lang="id"), "id", "Main"),
        ({"locale": "id-ID"}, SAVED.format(lang="en"), "en", "Play"),
    ],
    ids=["de-DE", "id-ID", "fr-then-id", "fr-then-en-then-id", "saved-id-over-en", "saved-en-over-id"],
)
def test_the_first_language_comes_from_the_browser_and_a_saved_choice_wins(
    browser: Browser, live: LiveServer, context: dict[str, Any], init: str, expected: str, play: str
) -> None:
    page = fresh_page(browser, live, init, **context)
    assert page_lang(page) == expected
    assert page.inner_text("#play").strip() == play
    page.close()


def test_the_language_chosen_is_remembered_over_the_browsers(browser: Browser, live: LiveServer) -> None:
    page = fresh_page(browser, live, locale="de-DE")
    assert page_lang(page) == "en"
    page.click("#start button[data-lang=id]")
    assert page_lang(page) == "id"
    page.reload()
    page.wait_for_selector("#play")
    assert page_lang(page) == "id" and page.inner_text("#play").strip() == "Main"
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()
