"""Watching a friend room in a real browser (Playwright + Debian's chromium, fixtures from
tests/fixtures/browser.py): a host plays over a WebSocket against two bots while watchers' pages
(English at 1280x800 and 844x390, Indonesian at 390x844) show each discard as it is made,
every concealed tile hidden, nobody as "You", and the seat chosen for the bottom; with the
host's "open hands for watchers", a watcher sees every tile, a hand behind."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.fixtures.browser import DESKTOP, PHONE
from tests.fixtures.rooms import Player
from tests.fixtures.server import LiveServer, choose
from tests.fixtures.watch import ADDRESSED, PORTRAIT, panel_text, room_with_bots, watch
from tests.fixtures.watch import live as live  # the watch pages' live, not conftest's

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser

RIVER_TILES = "() => document.querySelectorAll('#board .river .river-tile').length"


def discards_in_hand(frames: list[dict[str, Any]]) -> int:
    """The discards of the hand in play, as a player's frames have them so far."""
    n = 0
    for frame in frames:
        if frame["t"] == "event":
            kind = frame["e"]["type"]
            n = 0 if kind == "HandStarted" else n + (kind == "TileDiscarded")
    return n


@pytest.mark.slow
def test_watchers_see_each_discard_as_it_is_made_and_are_never_addressed_as_you(
    browser: Browser, live: LiveServer, shots: Path
) -> None:
    host, code, match = room_with_bots(live, "one-hand")
    player = Player(live, host.token, match)
    watchers = {  # named as their screenshots in docs/screenshots/
        "desktop-rooms-watching-live": watch(browser, live, code, DESKTOP, "en"),
        "phone-rooms-watching-live": watch(browser, live, code, PHONE, "en"),
        "portrait-rooms-watching-live-id": watch(browser, live, code, PORTRAIT, "id"),
    }
    for page in watchers.values():
        assert "live" in page.inner_text("[data-testid=watching]").lower() or "langsung" in page.inner_text(
            "[data-testid=watching]"
        )
    counted = 0
    while not player.ended():
        frame = player.recv()
        if frame["t"] != "prompt":
            continue
        # The table waits for the host: each watcher's board has every discard of the hand so far,
        # within a second of the player's frames.
        n = discards_in_hand(player.frames)
        for page in watchers.values():
            page.wait_for_function(f"n => ({RIVER_TILES})() === n", arg=n, timeout=1_000)
        if n >= 6 and counted < 6:  # once, mid-hand
            for name, page in watchers.items():
                page.screenshot(path=str(shots / f"{name}.png"))
        counted = max(counted, n)
        player.send({"t": "act", "seq": frame["seq"], "a": choose(frame)})
    assert counted >= 6
    for page in watchers.values():
        # No concealed tile of any seat: the bottom hand is backs only (no hand tile has a face).
        faces = page.evaluate("() => [...document.querySelectorAll('#hand .hand-tile')].map((b) => b.dataset.tile)")
        assert faces and set(faces) == {"?"}, faces
        assert page.locator("#board .opponent .open-hand").count() == 0
        assert page.locator("#actions .action").count() == 0
        text = panel_text(page, "hand-end")
        assert not ADDRESSED.search(text), text
        assert page.locator("[data-testid=hand-end] tr.me").count() == 0  # no seat's row is the reader's
        page.click("[data-panel=next]")
        text = panel_text(page, "match-end")
        assert not ADDRESSED.search(text), text
        assert page.locator("[data-testid=match-end] tr.me").count() == 0
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
    player.close()


@pytest.mark.slow
def test_a_watcher_chooses_the_seat_at_the_bottom_and_keeps_it_for_the_session(
    browser: Browser, live: LiveServer
) -> None:
    host, code, match = room_with_bots(live, "one-hand")
    player = Player(live, host.token, match)
    page = watch(browser, live, code, DESKTOP, "en")
    page.wait_for_selector('[data-view-seat="2"]', timeout=20_000)
    assert page.get_attribute('[data-view-seat="0"]', "aria-pressed") == "true"  # seat 0 by default
    page.click('[data-view-seat="2"]')
    assert page.get_attribute('[data-view-seat="2"]', "aria-pressed") == "true"
    # Seat 2 is drawn at the bottom: its river is "me", seat 0 (the next seat) on the right.
    page.wait_for_selector('#board .river-me[data-seat="2"]')
    assert page.locator('#board .river-right[data-seat="0"]').count() == 1
    page.goto(f"{live.http}/?room={code}")  # the page loaded again, in the same session
    page.click("[data-room-cmd=watch]")
    page.wait_for_selector('#board .river-me[data-seat="2"]', timeout=20_000)  # remembered
    assert page.get_attribute('[data-view-seat="2"]', "aria-pressed") == "true"
    assert page.errors == [], page.errors  # type: ignore[attr-defined]
    player.close()


@pytest.mark.slow
def test_with_open_hands_a_watcher_sees_every_tile_a_hand_behind(browser: Browser, live: LiveServer) -> None:
    host, code, match = room_with_bots(live, "east", open_hands=True)
    player = Player(live, host.token, match)
    page = watch(browser, live, code, DESKTOP, "en")
    assert "one hand behind" in page.inner_text("[data-testid=watching]")
    # Nothing of the first hand until it is over.
    assert page.locator("#board .river-tile").count() == 0
    hands = 0
    while not player.ended() and hands < 2:
        frame = player.recv()
        if frame["t"] == "event" and frame["e"]["type"] == "HandStarted":
            hands += 1
        elif frame["t"] == "prompt":
            player.send({"t": "act", "seq": frame["seq"], "a": choose(frame)})
    # The second hand began: the first is played back, every hand open (faces, no backs).
    page.wait_for_function("() => document.querySelectorAll('#board .river-tile').length > 0", timeout=20_000)
    faces = page.evaluate("() => [...document.querySelectorAll('#hand .hand-tile')].map((b) => b.dataset.tile)")
    assert faces and "?" not in faces, faces
    page.wait_for_selector("#board .opponent .open-hand", timeout=5_000)
    assert page.errors == [], page.errors  # type: ignore[attr-defined]
    player.close()
