"""The client's settings (issue 24), in Debian's Chromium against a real server.

Language: a browser with no saved choice starts in the first of its languages the client has
(``navigator.languages`` in order, Indonesian for ``id``/``id-ID``, Japanese for ``ja-JP``,
Russian for ``ru``), English otherwise; a saved choice wins over the browser's.

The settings panel, one place for what the player sets, opens from the start screen and the
table's menu at 1280x800, 844x390 and 390x844 and fits there, in both languages; Escape closes
it.  Its volume slider sets the gain every sound passes through, 0 silences the table (no audio
node starts while playing), and it is remembered.  The animations' speed is apart from the
bots' pace: animations off with normal bots moves nothing, full animations with instant bots
moves (counted by tests/test_web_motion.py's recorder while a seeded hand is played).  The
first-visit pointer to the guide shows until dismissed or followed, and is remembered."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from tests.fixtures.browser import DESKTOP, PHONE, start_match
from tests.fixtures.motion import play_hand, recording_page, seen

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser, Page

    from tests.fixtures.server import LiveServer


# A choice saved by an earlier visit (set before the page's own scripts run, once).
SAVED = "localStorage.getItem('sanma.lang') || localStorage.setItem('sanma.lang', '{lang}')"


def fresh_page(browser: Browser, live: LiveServer, init: str = "", **context: Any) -> Page:
    """A page in a new context (no saved settings), `init` run before the page's scripts."""
    ctx = browser.new_context(**{"viewport": DESKTOP, **context})  # type: ignore[arg-type]
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
        ({"locale": "ja-JP"}, "", "ja", "対局開始"),
        ({"locale": "fr-FR"}, languages(["fr-FR", "ru-RU", "en-US"]), "ru", "Играть"),
        ({"locale": "ru-RU"}, SAVED.format(lang="ja"), "ja", "対局開始"),
    ],
    ids=[
        "de-DE",
        "id-ID",
        "fr-then-id",
        "fr-then-en-then-id",
        "saved-id-over-en",
        "saved-en-over-id",
        "ja-JP",
        "fr-then-ru",
        "saved-ja-over-ru",
    ],
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


PORTRAIT = {"width": 390, "height": 844}
VIEWPORTS = [DESKTOP, PHONE, PORTRAIT]


def open_settings(page: Page, where: str) -> None:
    page.click(f"{where} [data-cmd=settings]")
    page.wait_for_selector("[data-testid=settings]")


def assert_fits(page: Page) -> None:
    """The panel lies inside the viewport (or scrolls inside its overlay), its close button and
    every control reachable, nothing wider than the screen."""
    width = page.evaluate("() => innerWidth")
    box = page.locator("[data-testid=settings]").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    for sel in (
        "[data-settings-close]",
        "#set-volume",
        "[data-setting=motion]",
        "[data-testid=settings] [data-cmd=rules]",
    ):
        page.locator(sel).first.scroll_into_view_if_needed()
        assert page.locator(sel).first.is_visible(), sel


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["1280x800", "844x390", "390x844"])
def test_one_settings_panel_from_the_start_screen_and_the_menu(
    browser: Browser, live: LiveServer, viewport: dict[str, int]
) -> None:
    page = fresh_page(browser, live, SAVED.format(lang="en"), viewport=viewport)
    open_settings(page, "#start")
    assert_fits(page)
    assert page.inner_text("#settings-title") == "Settings"
    assert page.evaluate("() => document.activeElement.hasAttribute('data-settings-close')")
    # The language switches inside the panel, which stays open in the new language.
    page.click("[data-testid=settings] button[data-lang=id]")
    page.wait_for_function("() => document.getElementById('settings-title').textContent === 'Pengaturan'")
    assert page.inner_text("#play").strip() == "Main"  # the screen behind too
    assert_fits(page)
    # Japanese and Russian fit too (a long Russian word in a button, the four languages' switch).
    for code, title in (("ja", "設定"), ("ru", "Настройки"), ("id", "Pengaturan")):
        page.click(f"[data-testid=settings] button[data-lang={code}]")
        page.wait_for_function(f"() => document.getElementById('settings-title').textContent === '{title}'")
        assert_fits(page)
    page.keyboard.press("Escape")
    assert page.locator("[data-testid=settings]").count() == 0
    assert page.evaluate("() => document.activeElement.dataset.cmd") == "settings"  # the focus came back
    # At the table: the menu has it (the table's keys do not act while it is open).
    start_match(page)
    page.click("#menu-btn")
    open_settings(page, "#menu")
    assert page.locator("#menu").is_hidden()
    assert_fits(page)
    assert page.locator("[data-testid=settings] [data-setting=bots]").count() == 3  # practice: the bots' pace
    page.keyboard.press("Escape")
    assert page.locator("[data-testid=settings]").count() == 0 and page.locator(".hand-tile").count() >= 13
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


AUDIO = "async () => (await import('/src/sound.js')).outputGain()"


@pytest.mark.slow
def test_the_volume_slider_sets_every_sounds_gain_and_zero_silences_the_table(
    browser: Browser, live: LiveServer
) -> None:
    page = recording_page(browser, live)
    page.wait_for_selector("#play")
    open_settings(page, "#start")  # the click is the first gesture: the audio exists
    assert page.input_value("#set-volume") == "70"
    page.locator("#set-volume").fill("30")
    assert page.inner_text("[data-testid=volume-value]") == "30%"
    assert page.evaluate(AUDIO) == pytest.approx(0.3)
    page.keyboard.press("Escape")
    page.reload()  # remembered
    page.wait_for_selector("#play")
    open_settings(page, "#start")
    assert page.input_value("#set-volume") == "30" and page.evaluate(AUDIO) == pytest.approx(0.3)
    page.locator("#set-volume").fill("0")
    page.keyboard.press("Escape")
    start_match(page)
    play_hand(page, stop_after_discards=3)
    assert seen(page)["sounds"] == 0  # discards and the turn bell, none started at volume 0
    page.click("#menu-btn")
    open_settings(page, "#menu")
    page.locator("#set-volume").fill("50")
    page.keyboard.press("Escape")
    play_hand(page, stop_after_discards=2)
    assert seen(page)["sounds"] > 0 and page.evaluate(AUDIO) == pytest.approx(0.5)
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.slow
def test_the_animations_speed_is_apart_from_the_bots_pace(browser: Browser, live: LiveServer) -> None:
    page = recording_page(browser, live)
    page.wait_for_selector("#play")
    open_settings(page, "#start")
    page.click("[data-setting=motion][data-value=instant]")  # animations off ...
    page.click("[data-setting=bots][data-value=normal]")  # ... the bots at their normal pace
    page.keyboard.press("Escape")
    start_match(page)
    play_hand(page, stop_after_discards=4)
    assert seen(page)["animations"] == 0
    assert page.get_attribute("#toggles [data-cmd=speed]", "data-speed") == "normal"
    page.context.close()

    page = recording_page(browser, live)
    page.wait_for_selector("#play")
    open_settings(page, "#start")
    page.click("[data-setting=motion][data-value=normal]")  # full animations ...
    page.click("[data-setting=bots][data-value=instant]")  # ... with instant bots
    assert page.get_attribute("[data-setting=bots][data-value=instant]", "aria-checked") == "true"
    page.keyboard.press("Escape")
    start_match(page)
    assert page.get_attribute("#toggles [data-cmd=speed]", "data-speed") == "instant"
    play_hand(page, stop_after_discards=4)
    assert seen(page)["animations"] > 0
    page.reload()  # both remembered, each its own
    page.wait_for_selector(".hand-tile")
    page.click("#menu-btn")
    open_settings(page, "#menu")
    assert page.get_attribute("[data-setting=motion][data-value=normal]", "aria-checked") == "true"
    assert page.get_attribute("[data-setting=bots][data-value=instant]", "aria-checked") == "true"
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.slow
def test_the_first_visit_pointer_to_the_guide_is_dismissable_and_remembered(browser: Browser, live: LiveServer) -> None:
    page = fresh_page(browser, live, SAVED.format(lang="en"))
    hint = page.locator("[data-testid=guide-hint]")
    assert hint.is_visible() and "guide" in hint.inner_text()
    hint.locator("[data-guide-hint=dismiss]").click()
    assert hint.count() == 0
    page.reload()
    page.wait_for_selector("#play")
    assert hint.count() == 0  # remembered
    page.context.close()
    # Followed instead: it opens the rules at the guide, and does not come back either.
    page = fresh_page(browser, live, SAVED.format(lang="id"), viewport=PORTRAIT)
    page.locator("[data-testid=guide-hint] [data-guide-hint=open]").click()
    page.wait_for_selector("[data-testid=guide]")
    assert page.locator("[data-testid=guide]").is_visible()
    page.keyboard.press("Escape")
    assert page.locator("[data-testid=guide-hint]").count() == 0
    page.reload()
    page.wait_for_selector("#play")
    assert page.locator("[data-testid=guide-hint]").count() == 0
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()
