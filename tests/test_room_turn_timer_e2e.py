"""The host's turn-timer select in a real browser (Playwright + Debian's chromium, fixtures
from tests/fixtures/browser.py), in both languages: the server's timers as the default, the host's
choice stored at once, and the friend in the lobby shown it in words (no select)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.fixtures.browser import DESKTOP, PHONE, open_page
from tests.fixtures.server import LiveServer, serving

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    yield from serving(tmp_path / "data", turn_s=10.0, bank_s=20.0)


STORED_TIMER_IS = """async (want) => {
    const code = document.getElementById("room-code-shown").textContent;
    const auth = {Authorization: "Bearer " + localStorage.getItem("sanma.token")};
    return (await (await fetch("/api/rooms/" + code, {headers: auth})).json()).turn_timer === want;
}"""

# What the friend reads for each choice, by language.
WORDS = {
    "en": {"label": "Turn timer", "off": "Turn timer: Off", "5+10": "Turn timer: 5 s + 10 s bank"},
    "id": {
        "label": "Waktu giliran",
        "off": "Waktu giliran: Mati",
        "5+10": "Waktu giliran: 5 dtk + cadangan 10 dtk",
    },
}


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "id"])
def test_the_host_chooses_the_turn_timer_and_the_friend_sees_it(browser: Browser, live: LiveServer, lang: str) -> None:
    words = WORDS[lang]
    host = open_page(browser, live, DESKTOP, lang=lang)
    host.click("[data-room-cmd=open]")
    host.click("[data-room-cmd=create]")
    host.wait_for_selector("#room-code-shown")
    chooser = "select[data-lobby-opt=turn_timer]"
    assert host.input_value(chooser) == "10+20"  # the server's timers, not chosen yet
    assert host.get_attribute(chooser, "aria-label") == words["label"]
    values = host.eval_on_selector_all(f"{chooser} option", "os => os.map(o => o.value)")
    assert values == ["off", "5+10", "10+20", "20+40"]

    friend = open_page(browser, live, PHONE, lang=lang)
    friend.wait_for_selector("[data-room-cmd=open]")
    friend.goto(host.input_value("#room-link"))
    friend.wait_for_selector("#room-code-shown")
    assert friend.locator(chooser).count() == 0  # only the host chooses

    for choice in ("off", "5+10"):
        host.select_option(chooser, choice)
        host.wait_for_function(STORED_TIMER_IS, arg=choice)
        assert host.input_value(chooser) == choice
        friend.wait_for_function(
            "want => document.querySelector('.room-rules').textContent.includes(want)", arg=words[choice]
        )
    assert host.errors == [] and friend.errors == []  # type: ignore[attr-defined]
