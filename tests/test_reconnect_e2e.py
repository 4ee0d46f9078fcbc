"""The browser client keeps playing through what the server does to its socket (issue 15):
a ``room_failed`` (the room lost its lease, or its task stopped), a server restart, and an
answer dropped by the rate limit.  Debian's Chromium driven by Playwright, as in
``tests/fixtures/browser.py`` (whose fixtures these are); every wait is for a condition."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from sanma.server.settings import Settings
from tests.fixtures.browser import DESKTOP, open_page, start_match, step
from tests.fixtures.server import SEEDS, LiveServer, free_port

if TYPE_CHECKING:
    from playwright.sync_api import Browser

OFFLINE = "() => document.getElementById('conn').textContent !== ''"
ONLINE = "() => document.getElementById('conn').textContent === ''"
RIVER = "() => document.querySelectorAll('.river-me .tile').length"


def settings_for(tmp_path: Path, **changes: object) -> Settings:
    base = Settings(port=free_port(), data_dir=tmp_path / "data", bot_delay_s=0.0, rate_per_s=200.0, rate_burst=400)
    return base.with_changes(**changes)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return settings_for(tmp_path)


@pytest.fixture
def live(settings: Settings) -> Iterator[LiveServer]:
    server = LiveServer(settings, seed_source=lambda: SEEDS[0])
    yield server
    server.stop()


def play_to_the_end(page, limit: int = 400) -> None:  # type: ignore[no-untyped-def]
    for _ in range(limit):
        what = step(page)
        if what == "match-end":
            return
        if what == "hand-end":
            page.click("[data-panel=next]")
    raise AssertionError("the match did not end")


def discard_twice(page) -> None:  # type: ignore[no-untyped-def]
    discards = 0
    while discards < 2:
        what = step(page)
        assert what not in ("hand-end", "match-end"), "the hand ended too early for this check"
        discards += what == "discard"


@pytest.mark.slow
def test_the_client_reconnects_after_room_failed_and_plays_on(browser: Browser, live: LiveServer) -> None:
    page = open_page(browser, live, DESKTOP)
    start_match(page)
    discard_twice(page)
    match = page.evaluate("() => localStorage.getItem('sanma.match')")
    rooms = live.app.state.rooms
    room = rooms._rooms[match]
    live.run(rooms._lose(match))  # as when another process took the lease: room_failed to its sockets
    page.wait_for_function(OFFLINE, timeout=20_000)
    assert page.inner_text("#conn") == "Reconnecting…"
    page.wait_for_function(ONLINE, timeout=20_000)
    assert rooms._rooms[match] is not room  # rebuilt from the store by the reconnect's hello
    play_to_the_end(page)
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.slow
def test_the_client_reconnects_after_a_server_restart_and_plays_on(
    browser: Browser,
    settings: Settings,
) -> None:
    live = LiveServer(settings, seed_source=lambda: SEEDS[0])
    try:
        page = open_page(browser, live, DESKTOP)
        start_match(page)
        discard_twice(page)
        page.wait_for_function(f"() => ({RIVER})() === 2", timeout=20_000)
    finally:
        live.stop()
    page.wait_for_function(OFFLINE, timeout=20_000)  # "Reconnecting…" while the server is down
    live = LiveServer(settings)  # the same port and database, a new process state
    try:
        page.wait_for_function(ONLINE, timeout=30_000)
        page.wait_for_function("() => document.querySelector('.hand.my-turn')", timeout=20_000)
        assert page.evaluate(RIVER) == 2  # the same point of the match
        play_to_the_end(page)
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        live.stop()


@pytest.mark.slow
def test_an_answer_dropped_by_the_rate_limit_is_sent_again(browser: Browser, tmp_path: Path) -> None:
    # Two frames at once, then one every 2 s: the hello and the speed frame take the two, so
    # the first answers are dropped (rate_limited) and the client sends them again.
    live = LiveServer(settings_for(tmp_path, rate_per_s=0.5, rate_burst=2), seed_source=lambda: SEEDS[0])
    try:
        page = open_page(browser, live, DESKTOP)
        start_match(page)
        discard_twice(page)
        page.wait_for_function(f"() => ({RIVER})() === 2", timeout=30_000)
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        live.stop()
