"""The break between hands and autoplay in a real browser (issue 24; ``docs/rooms.md``,
"Between hands", "Timers and autoplay"): in practice nothing of the next hand reaches the page
before "Next hand" is pressed; in a room the result panel counts down and no turn timer runs
behind it; after time-outs a banner says the seat is on autoplay and a tap takes it back.

Every wait is on a condition of the page (or of the frames it received), never a sleep.  With
``SANMA_SCREENSHOTS`` set the pictures go to ``docs/screenshots/`` (else a scratch folder)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from sanma.store import db
from sanma.store.matches import event_count
from tests.fixtures.browser import DESKTOP, PHONE, open_page, start_match, step
from tests.fixtures.server import LiveServer, live_server, serving

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser, Page

PORTRAIT = {"width": 390, "height": 844}
SIZES = {"desktop": DESKTOP, "phone": PHONE, "portrait": PORTRAIT}
HAND_ENDS = ("HandWon", "HandDrawn", "HandAborted")


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    yield from serving(tmp_path / "data")


# Every frame the page's sockets receive, kept in the page (its early socket included).
RECORD = """
window.__frames = [];
const Socket = window.WebSocket;
window.WebSocket = class extends Socket {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (m) => window.__frames.push(JSON.parse(m.data)));
  }
};
"""


def recording(browser: Browser, live: LiveServer) -> Page:
    page = open_page(browser, live, DESKTOP)
    page.add_init_script(RECORD)
    page.reload()  # the recorder is in place before the page's modules run
    return page


def frames(page: Page) -> list[dict[str, Any]]:
    return list(page.evaluate("() => window.__frames"))


def wait_frame(page: Page, condition: str) -> None:
    """Wait until a received frame ``f`` meets ``condition`` (JavaScript)."""
    page.wait_for_function(f"() => window.__frames.some((f) => {condition})", timeout=20_000)


def hand_end_v(frames: list[dict[str, Any]]) -> int:
    return max(f["v"] for f in frames if f["t"] == "event" and f["e"]["type"] in HAND_ENDS)


def play_to_hand_end(page: Page) -> None:
    """Click through the first hand until its result panel is up."""
    for _ in range(300):
        if step(page) == "hand-end":
            return
    raise AssertionError("the hand did not end")


def shoot(page: Page, folder: Path, name: str) -> None:
    """The page at each of the three sizes (the panel laid out again for each)."""
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)  # type: ignore[arg-type]
        size_is = "([w, h]) => innerWidth === w && innerHeight === h"
        page.wait_for_function(size_is, arg=[viewport["width"], viewport["height"]])
        page.screenshot(path=str(folder / f"{size}-{name}.png"))
    page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]


@pytest.mark.slow
def test_practice_shows_nothing_of_the_next_hand_before_next_hand(
    browser: Browser, live: LiveServer, shots: Path
) -> None:
    page = recording(browser, live)
    start_match(page, length="east")
    play_to_hand_end(page)
    # The server says it waits for this seat (before: it dealt the next hand at once, and the
    # bots played it behind the panel).
    wait_frame(page, "f.t === 'hand_break'")
    got = frames(page)
    end_v = hand_end_v(got)
    assert [f for f in got if f["t"] == "hand_break"] == [
        {"t": "hand_break", "v": end_v, "ready": [], "waiting": [0], "left_s": None}
    ]
    assert not [f for f in got if f["t"] in ("event", "prompt") and f["v"] > end_v]
    page.wait_for_selector("[data-testid=hand-end] [data-panel=next]:not([disabled])")
    assert page.locator("[data-testid=break-countdown]").count() == 0  # practice has no countdown
    engine = db.open_engine(live.settings.db_url)
    try:
        match = page.evaluate("() => localStorage.getItem('sanma.match')")
        assert event_count(engine, match) == end_v  # the next deal does not exist anywhere yet
    finally:
        engine.dispose()
    shoot(page, shots, "hand-break-practice")
    page.click("[data-panel=next]")
    wait_frame(page, f"f.t === 'prompt' && f.v > {end_v}")
    after = [f for f in frames(page) if f["t"] == "event" and f["v"] > end_v]
    assert after[0]["e"]["type"] == "HandStarted" and after[0]["v"] == end_v + 1
    assert page.errors == [], page.errors  # type: ignore[attr-defined]


def open_room(page: Page, length: str) -> None:
    """From the start screen: a room of ``length`` with two bots, started by its host."""
    page.wait_for_selector("[data-room-cmd=open]")
    page.click("[data-room-cmd=open]")
    page.click(f"button[data-room-opt=length][data-value={length}]")
    page.click("[data-room-cmd=create]")
    page.wait_for_selector("#room-code-shown")
    for seat in ("1", "2"):
        page.click(f'[data-room-cmd=add-bot][data-seat="{seat}"]')
        page.wait_for_function("(n) => document.querySelectorAll('.room-seat.bot').length >= n", arg=int(seat))
    page.click("[data-room-cmd=start]")
    page.wait_for_selector(".hand-tile", timeout=20_000)


@pytest.mark.slow
def test_a_rooms_panel_counts_down_and_no_turn_timer_runs_behind_it(
    browser: Browser, tmp_path: Path, shots: Path
) -> None:
    # A turn and a bank (1 + 2 s) far shorter than the room's countdown (15 s): before, the
    # next hand's prompts ran out behind the panel ("2s +0s bank"), three of them autoplay.
    live = live_server(tmp_path / "data", turn_s=1.0, bank_s=2.0)
    try:
        page = recording(browser, live)
        open_room(page, "east")
        play_to_hand_end(page)
        countdown = page.wait_for_selector("[data-testid=break-countdown]", timeout=20_000)
        first = int(countdown.get_attribute("data-left") or 0)
        assert 10 <= first <= 15, first
        assert page.locator("#turn-timer").count() == 0
        shoot(page, shots, "hand-break-room")
        # Longer than a whole turn and bank goes by with the panel open; the countdown moves,
        # nothing of the next hand comes, no prompt is played for the seat.
        page.wait_for_function(
            "(n) => Number(document.querySelector('[data-testid=break-countdown]').dataset.left) <= n", arg=first - 4
        )
        got = frames(page)
        end_v = hand_end_v(got)
        assert not [f for f in got if f["t"] in ("event", "prompt") and f["v"] > end_v]
        assert not [f for f in got if f["t"] == "expired" or (f["t"] == "presence" and f["state"] == "auto")]
        assert page.locator("[data-testid=autoplay]:visible").count() == 0
        page.click("[data-panel=next]")  # the only human: the deal comes at once
        page.wait_for_function("() => !document.querySelector('[data-testid=hand-end]')")
        wait_frame(page, f"f.t === 'prompt' && f.v > {end_v}")
        prompt = next(f for f in frames(page) if f["t"] == "prompt" and f["v"] > end_v)
        assert prompt["timer"]["bank_s"] == 2.0  # the whole bank: nothing was spent behind the panel
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
    finally:
        live.stop()


@pytest.mark.slow
def test_autoplay_is_announced_and_a_tap_takes_the_seat_back(browser: Browser, tmp_path: Path, shots: Path) -> None:
    live = live_server(tmp_path / "data", turn_s=0.4, bank_s=0.0, bot_delay_s=0.4)  # a hand long enough to look at
    try:
        page = recording(browser, live)
        page.wait_for_selector("#play")
        page.click("button[data-opt=timer][data-value=true]")
        start_match(page, length="east")
        # Three prompts run out: the seat goes to autoplay, and the banner says so.
        banner = page.wait_for_selector("[data-testid=autoplay]:visible", timeout=30_000)
        assert banner.inner_text().splitlines()[0] == "You are on autoplay - tap to play"
        assert {"t": "presence", "seat": 0, "state": "auto"} in frames(page)
        shoot(page, shots, "autoplay")
        page.mouse.click(640, 300)  # any tap, on the board
        page.wait_for_selector("[data-testid=autoplay]", state="hidden")
        wait_frame(page, "f.t === 'presence' && f.seat === 0 && f.state === 'connected'")  # the server gave it back
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
    finally:
        live.stop()


@pytest.mark.slow
def test_a_watchers_panel_deals_nothing_and_closes_with_the_deal(browser: Browser, tmp_path: Path) -> None:
    from tests.fixtures.rooms import Api, Player
    from tests.fixtures.server import choose
    from tests.fixtures.watch import watch

    live = live_server(tmp_path / "data", turn_s=60.0, bank_s=0.0)
    try:
        host = Api(live)
        code = host.ok("POST", "", {"length": "east", "break_s": 60}, 201)["code"]
        for seat in (1, 2):
            host.ok("POST", f"/{code}/bots", {"seat": seat, "level": "beginner"})
        match = host.ok("POST", f"/{code}/start")["match"]
        player = Player(live, host.token, match)
        page = watch(browser, live, code, DESKTOP, "en")
        while (frame := player.recv())["t"] != "hand_break":
            if frame["t"] == "prompt":
                player.send({"t": "act", "seq": frame["seq"], "a": choose(frame)})
        # The watcher's panel: the countdown and who is still reading, no "Next hand" (before:
        # a button that dismissed the panel while the table played the next hand on).
        page.wait_for_selector("[data-testid=hand-end] [data-testid=break-countdown]", timeout=20_000)
        assert page.locator("[data-testid=hand-end] [data-panel=next]").count() == 0
        line = page.inner_text("[data-testid=break-line]")
        assert "Waiting for Player 1" in line and "you" not in line.lower(), line
        player.send({"t": "next_hand", "v": frame["v"]})  # the only player is ready: dealt
        page.wait_for_selector("[data-testid=hand-end]", state="detached", timeout=20_000)
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
        player.close()
    finally:
        live.stop()
