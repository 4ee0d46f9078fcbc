"""A watcher's match-end panel in a real browser (Playwright + Debian's chromium, fixtures from
tests/fixtures/browser.py): the standings and the watchers' wall check, no "Play again" (it would
start a practice match) and no "Replay in history" (the match is in no watcher's history);
Leave goes back to the start screen, and once the host starts the room's next match the panel
offers to watch it, in English and in Indonesian."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.fixtures.browser import DESKTOP
from tests.fixtures.rooms import Player
from tests.fixtures.server import LiveServer
from tests.fixtures.watch import ADDRESSED, PORTRAIT, panel_text, room_with_bots, watch
from tests.fixtures.watch import live as live  # the watch pages' live, not conftest's

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser

PANEL = "[data-testid=match-end]"


@pytest.mark.slow
def test_a_watchers_match_end_panel_offers_leave_and_the_rooms_next_match(
    browser: Browser, live: LiveServer, shots: Path
) -> None:
    host, code, match = room_with_bots(live, "one-hand")
    watchers = {"en": watch(browser, live, code, DESKTOP, "en"), "id": watch(browser, live, code, PORTRAIT, "id")}
    player = Player(live, host.token, match)
    playing = threading.Thread(target=player.play, daemon=True)
    playing.start()
    playing.join(timeout=120)
    assert player.error is None and player.ended()
    player.close()
    for page in watchers.values():
        panel_text(page, "hand-end")
        page.click("[data-panel=next]")
        text = panel_text(page, "match-end")
        assert not ADDRESSED.search(text), text
        assert page.locator(f"{PANEL} table.results tbody tr").count() == 3  # the standings
        page.wait_for_selector(f"{PANEL} [data-testid=fair][data-fair=ok]", timeout=20_000)  # fair.watch.ok
        for gone in ("rematch", "history", "room"):  # Play again, Replay in history, Back to the room
            assert page.locator(f"{PANEL} [data-panel={gone}]").count() == 0, gone
        assert page.locator(f"{PANEL} [data-panel=again]").count() == 1  # Leave
        assert page.locator(f"{PANEL} [data-panel=follow]").count() == 0  # no next match yet
    assert watchers["en"].inner_text(f"{PANEL} [data-panel=again]") == "Leave"
    assert watchers["id"].inner_text(f"{PANEL} [data-panel=again]") == "Keluar"

    # The host starts the room's next match: the panel offers it; the watcher follows.
    host.ok("POST", f"/{code}/reopen")
    second = host.ok("POST", f"/{code}/start")["match"]
    assert second != match
    follow = f"{PANEL} [data-panel=follow]"
    for page in watchers.values():
        page.wait_for_selector(follow, timeout=20_000)
    watchers["en"].screenshot(path=str(shots / "desktop-rooms-watch-end.png"))
    watchers["id"].screenshot(path=str(shots / "portrait-rooms-watch-end-id.png"))
    assert watchers["id"].inner_text(follow) == "Tonton permainan berikutnya"
    en = watchers["en"]
    assert en.inner_text(follow) == "Watch the next match"
    en.click(follow)
    en.wait_for_function("m => localStorage.getItem('sanma.match') === m", arg=second)
    en.wait_for_selector(PANEL, state="detached")
    en.wait_for_selector("[data-testid=watching]")
    # Leave: back to the start screen.
    out = watchers["id"]
    out.click(f"{PANEL} [data-panel=again]")
    out.wait_for_selector("#play", state="visible")
    assert out.locator(PANEL).count() == 0
    for page in watchers.values():
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
