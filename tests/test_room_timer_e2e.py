"""A friend room's turn timer in a real browser (issue 11): the timer's last seconds tick
(one short square tone a second over the last five seconds of turn time plus bank), the mute
toggle silences the ticks too, and the table of a friend room has no bot-speed button (the
room's pace is the room's: the server takes no speed frame there).

The host sits alone with two bots, on a server whose turn time and bank are short, and lets
its first turn run out while the page records every oscillator it starts (wave type and
frequency, read from the page's own WebAudio calls)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.fixtures.browser import DESKTOP, open_page
from tests.fixtures.server import LiveServer, serving

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser, Page

TURN_S = 2.0
BANK_S = 5.0  # turn + bank = 7 s: the last five seconds tick four or five times

# Every oscillator the page starts, with the wave and the first frequency it was given.
OSCILLATORS = """
window.__tones = [];
const setValue = AudioParam.prototype.setValueAtTime;
AudioParam.prototype.setValueAtTime = function (value, when) {
  if (this.__first === undefined) this.__first = value;
  return setValue.call(this, value, when);
};
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) {
  window.__tones.push({ type: this.type, freq: this.frequency.__first });
  return start.apply(this, args);
};
"""

TICK = {"type": "square", "freq": 1200}  # web/src/sound.js SOUNDS.tick


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    yield from serving(tmp_path / "data", turn_s=TURN_S, bank_s=BANK_S)


def ticks(page: Page) -> int:
    tones: list[dict[str, Any]] = page.evaluate("() => window.__tones")
    return sum(1 for tone in tones if tone == TICK)


def room_with_two_bots(page: Page) -> None:
    """Create a one-hand room from the start screen (clicks: the page's first gestures), fill
    both free seats with bots and start; the host deals, so its first turn is on the clock."""
    page.wait_for_selector("[data-room-cmd=open]")
    page.click("[data-room-cmd=open]")
    page.click("button[data-room-opt=length][data-value=one-hand]")
    page.click("[data-room-cmd=create]")
    page.wait_for_selector("#room-code-shown")
    for seat in ("1", "2"):
        page.click(f'[data-room-cmd=add-bot][data-seat="{seat}"]')
        page.wait_for_function("(n) => document.querySelectorAll('.room-seat.bot').length >= n", arg=int(seat))
    page.click("[data-room-cmd=start]")
    page.wait_for_selector(".hand.my-turn .hand-tile", timeout=20_000)
    page.wait_for_selector("#turn-timer", timeout=20_000)


def timed_out(page: Page) -> None:
    """Wait until the host's first turn has run out: its river holds the default discard."""
    page.wait_for_selector(".river-me .river-tile", timeout=(TURN_S + BANK_S + 10) * 1000)


def open_recording(browser: Browser, live: LiveServer) -> Page:
    page = open_page(browser, live, DESKTOP, lang="en")
    page.add_init_script(OSCILLATORS)
    page.reload()  # the recorder is in place before the page's modules run
    return page


@pytest.mark.slow
def test_the_last_seconds_of_a_turn_tick_and_a_room_has_no_speed_button(browser: Browser, live: LiveServer) -> None:
    page = open_recording(browser, live)
    room_with_two_bots(page)
    assert page.locator("#toggles [data-cmd=mute]").count() == 1
    assert page.locator("#toggles [data-cmd=speed]").count() == 0  # the room's pace is the room's
    assert ticks(page) == 0  # seven seconds left: not yet
    # Let the turn run out: the server plays the default (tsumogiri) into the host's river.
    timed_out(page)
    assert 3 <= ticks(page) <= 5, page.evaluate("() => window.__tones")
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()


@pytest.mark.slow
def test_muted_the_timer_does_not_tick(browser: Browser, live: LiveServer) -> None:
    page = open_recording(browser, live)
    page.evaluate("() => localStorage.setItem('sanma.mute', '1')")
    page.reload()
    room_with_two_bots(page)
    assert page.locator("#toggles [data-cmd=mute]").get_attribute("aria-pressed") == "true"
    timed_out(page)
    assert page.evaluate("() => window.__tones") == []  # muted: not one oscillator started
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()
