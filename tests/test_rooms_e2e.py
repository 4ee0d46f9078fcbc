"""Friend rooms in a real browser (Playwright + Debian's chromium, fixtures from
tests/fixtures/browser.py): two guests in two browser contexts; the host creates a room from the
start screen, the friend opens the invite link (in Indonesian), the host adds a bot and
starts, both see presence badges and the turn timer, and both play a one-hand match to its
end by clicking; a third guest opening the link after the start watches it live; the
host removes a friend from the lobby, who is told and cannot join again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from sanma.engine.events import MatchEnded
from tests.fixtures.browser import DESKTOP, PHONE, assert_no_overflow, open_page
from tests.fixtures.room_pages import play_both_to_the_end, set_name
from tests.fixtures.server import LiveServer, full_log, serving

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser, Page


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    # The test clicks at its own pace; timers are tested in test_rooms.py.
    yield from serving(tmp_path / "data", turn_s=60.0, bank_s=30.0)


HOSTILE_NAME = "<script>x</script>"  # user text: must show as text, never as markup
NAME_OF_SEAT = '(s) => document.querySelector(`[data-presence-seat="${s}"] .who`)?.textContent'


@pytest.mark.slow
def test_two_guests_create_join_by_link_add_a_bot_and_play_to_the_end(
    browser: Browser, live: LiveServer, shots: Path
) -> None:
    host = open_page(browser, live, DESKTOP, lang="en")
    host.wait_for_selector("[data-room-cmd=open]")
    assert "Play with friends" in host.inner_text("[data-room-cmd=open]")
    set_name(host, "Ana")
    host.click("[data-room-cmd=open]")
    host.click("button[data-room-opt=length][data-value=one-hand]")
    host.click("[data-room-cmd=create]")
    code = host.inner_text("#room-code-shown")
    link = host.input_value("#room-link")
    assert len(code) == 6 and link.endswith(f"/?room={code}")
    assert host.locator(".room-seat.human").count() == 1 and host.locator("[data-room-cmd=start][disabled]").count()

    friend = open_page(browser, live, PHONE, lang="id")
    friend.wait_for_selector("[data-room-cmd=open]")
    set_name(friend, HOSTILE_NAME)
    friend.goto(link)
    friend.wait_for_selector("#room-code-shown")
    assert friend.inner_text("#room-code-shown") == code
    assert "Keluar dari room" in friend.inner_text("[data-room-cmd=leave]")  # Indonesian
    assert friend.locator(".room-seat.human").count() == 2
    assert "?room=" not in friend.url  # a reload does not join again

    host.wait_for_function("() => document.querySelectorAll('.room-seat.human').length === 2")
    # Names in the lobby: the friend's shown as text (no script element made of it).
    assert host.inner_text('.room-seat[data-seat="1"] .who') == HOSTILE_NAME
    assert host.inner_text('.room-seat[data-seat="0"] .who') == "Ana · You"
    assert friend.inner_text('.room-seat[data-seat="0"] .who') == "Ana"
    assert host.locator("#rooms-sheet script").count() == 0
    host.screenshot(path=str(shots / "desktop-rooms-lobby.png"))  # code, link, seats, host controls
    friend.screenshot(path=str(shots / "phone-rooms-lobby-id.png"))
    host.select_option('select[data-room-level="2"]', "beginner")
    host.click('[data-room-cmd=add-bot][data-seat="2"]')
    host.wait_for_selector(".room-seat.bot")
    host.click("[data-room-cmd=start]")

    for page in (host, friend):
        page.wait_for_selector(".hand-tile", timeout=20_000)
        page.wait_for_selector("#rooms-sheet[hidden]", state="attached")
    host.wait_for_selector('[data-presence-seat="1"][data-state=connected]', timeout=20_000)
    assert host.locator('[data-presence-seat="2"][data-state=bot]').count() == 1
    friend.wait_for_selector('[data-presence-seat="0"][data-state=connected]', timeout=20_000)
    # At the table: display names, the bot by its level (in the friend's Indonesian), no bot names.
    assert host.evaluate(NAME_OF_SEAT, 1) == HOSTILE_NAME and host.evaluate(NAME_OF_SEAT, 2) == "Beginner bot"
    assert friend.evaluate(NAME_OF_SEAT, 0) == "Ana" and friend.evaluate(NAME_OF_SEAT, 2) == "Bot Pemula"
    assert HOSTILE_NAME in host.inner_text("#board") and "Kenji" not in host.inner_text("#board")
    assert host.locator("#game script").count() == 0
    host.wait_for_selector("#turn-timer", timeout=20_000)  # seat 0 deals: its turn runs on the clock
    assert "bank" in host.inner_text("#turn-timer")
    friend.wait_for_selector("[data-presence-seat]")
    host.screenshot(path=str(shots / "desktop-rooms-table.png"))  # presence badges and the timer
    friend.screenshot(path=str(shots / "phone-rooms-table-id.png"))
    assert_no_overflow(friend)

    # A third guest opening the link after the start may watch (live: tests/test_watch_e2e.py).
    watcher = open_page(browser, live, DESKTOP, lang="en")
    watcher.wait_for_selector("[data-room-cmd=open]")
    watcher.goto(link)
    watcher.wait_for_selector("[data-room-cmd=watch]")
    watcher.screenshot(path=str(shots / "desktop-rooms-watch.png"))
    watcher.click("[data-room-cmd=watch]")
    watcher.wait_for_selector("[data-testid=watching]", timeout=20_000)
    watcher.wait_for_selector('[data-presence-seat="2"]', timeout=20_000)
    # A spectator is nobody's "You": every seat by its name.
    assert [watcher.evaluate(NAME_OF_SEAT, s) for s in range(3)] == ["Ana", HOSTILE_NAME, "Beginner bot"]

    counts = play_both_to_the_end([host, friend])
    # The one hand is over: the watcher sees it end on its panel, as the players do.
    watcher.wait_for_selector("[data-testid=hand-end]", timeout=20_000)
    watcher.screenshot(path=str(shots / "desktop-rooms-watching.png"))
    assert watcher.locator("#actions .action").count() == 0
    assert watcher.errors == [], watcher.errors  # type: ignore[attr-defined]
    assert counts.get("match-end") == 2 and counts.get("discard", 0) > 4, counts
    match = host.evaluate("() => localStorage.getItem('sanma.match')")
    assert match and match == friend.evaluate("() => localStorage.getItem('sanma.match')")
    assert isinstance(full_log(live.settings, match)[-1], MatchEnded)
    # Back to the room for a rematch: the same code, seats and bot, a lobby again.
    assert host.locator("[data-panel=room]").count() == 1
    friend.click("[data-panel=room]")
    friend.wait_for_selector("#room-code-shown")
    assert friend.inner_text("#room-code-shown") == code
    assert friend.locator(".room-seat.human").count() == 2 and friend.locator(".room-seat.bot").count() == 1
    assert friend.locator("[data-room-cmd=start]").count() == 0  # the host starts it
    # The host's history replays the room match with the names of its table, not the bots'.
    host.click("[data-panel=again]")
    host.wait_for_selector("#play")
    host.click("#account-btn")
    host.wait_for_selector("#account-panel")
    host.click("[data-acct-tab=history]")
    host.click(f"#hist-server [data-replay='{match}']")
    host.wait_for_selector("#replay-step")
    replay_text = host.inner_text("#account-panel")
    assert HOSTILE_NAME in replay_text and "Kenji" not in replay_text and "Sari" not in replay_text
    for page in (host, friend):
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
        page.close()


def lobby_with_a_friend(
    browser: Browser, live: LiveServer, friend_lang: str, friend_name: str | None = None
) -> tuple[Page, Page]:
    """A host (desktop, English) who created a room, and a friend (phone) who opened its link."""
    host = open_page(browser, live, DESKTOP, lang="en")
    host.wait_for_selector("[data-room-cmd=open]")
    host.click("[data-room-cmd=open]")
    host.click("[data-room-cmd=create]")
    link = host.input_value("#room-link")
    friend = open_page(browser, live, PHONE, lang=friend_lang)
    friend.wait_for_selector("[data-room-cmd=open]")
    if friend_name is not None:
        set_name(friend, friend_name)
    friend.goto(link)
    friend.wait_for_selector("#room-code-shown")
    return host, friend


@pytest.mark.slow
def test_the_host_hands_the_role_to_a_friend(browser: Browser, live: LiveServer) -> None:
    host, friend = lobby_with_a_friend(browser, live, "id")
    assert friend.locator("[data-room-cmd=start]").count() == 0
    heir = host.locator('[data-room-cmd=make-host][data-seat="1"]')
    heir.wait_for()
    heir.click()
    host.wait_for_selector('.room-seat[data-seat="1"] .tag')  # the host tag moved to the friend
    assert host.locator("[data-room-cmd=add-bot], [data-room-cmd=start]").count() == 0
    # The friend's lobby learns it at its next poll: the host's controls, in Indonesian.
    friend.wait_for_selector("[data-room-cmd=start]", timeout=10_000)
    assert friend.locator("[data-room-cmd=add-bot]").count() == 1
    assert friend.locator('[data-room-cmd=make-host][data-seat="0"]').count() == 1  # and could hand it back
    for page in (host, friend):
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
        page.close()


@pytest.mark.slow
def test_the_host_removes_a_friend_who_is_told_and_cannot_join_again(browser: Browser, live: LiveServer) -> None:
    host, friend = lobby_with_a_friend(browser, live, "en", HOSTILE_NAME)
    assert friend.locator("[data-room-cmd=remove-guest]").count() == 0  # only the host may remove

    remove = host.locator('[data-room-cmd=remove-guest][data-seat="1"]')
    remove.wait_for()
    assert remove.get_attribute("aria-label") == f"Remove {HOSTILE_NAME} from the room"
    assert host.locator("[data-room-cmd=remove-guest]").count() == 1  # never the host's own seat
    remove.click()
    host.wait_for_selector('.room-seat.empty[data-seat="1"]')
    # The friend's lobby learns it at its next poll: back to the rooms' start, told why.
    friend.wait_for_selector("#room-code", timeout=10_000)
    assert friend.inner_text("#rooms-sheet .error") == "The host removed you from this room."
    assert friend.evaluate("() => localStorage.getItem('sanma.room')") is None
    friend.click("[data-room-cmd=close]")
    friend.click("[data-room-cmd=open]")
    assert friend.inner_text("#rooms-sheet .error") == ""
    friend.fill("#room-code", host.inner_text("#room-code-shown"))
    friend.click("[data-room-cmd=join]")
    friend.wait_for_function("() => document.querySelector('#rooms-sheet .error').textContent !== ''")
    assert friend.inner_text("#rooms-sheet .error") == "The host removed you from this room."
    assert host.locator(".room-seat.human").count() == 1
    for page in (host, friend):
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
        page.close()


# The room's length as the server has it, asked with the page's own token.
STORED_LENGTH_IS = """async (want) => {
    const code = document.getElementById("room-code-shown").textContent;
    const auth = {Authorization: "Bearer " + localStorage.getItem("sanma.token")};
    return (await (await fetch("/api/rooms/" + code, {headers: auth})).json()).length === want;
}"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("viewport", "name", "lang"),
    [(DESKTOP, "desktop", "id"), (PHONE, "phone", "en"), (PHONE, "phone", "id")],
)
def test_rooms_home_and_lobby_fit_the_screen_in_both_languages(
    browser: Browser, live: LiveServer, shots: Path, viewport: dict[str, int], name: str, lang: str
) -> None:
    """The create / join sheet and a fresh lobby (host controls on two empty seats) stay
    inside the screen, in the longer Indonesian strings too; the screenshots are for review."""
    page = open_page(browser, live, viewport, lang=lang)
    page.click("[data-room-cmd=open]")
    page.wait_for_selector("[data-room-cmd=create]")
    assert page.evaluate("() => document.activeElement.id") == "room-code"
    page.screenshot(path=str(shots / f"{name}-rooms-home-{lang}.png"))
    page.click("[data-room-cmd=create]")
    page.wait_for_selector("#room-code-shown")
    assert page.locator("[data-room-cmd=add-bot]").count() == 2
    # The host changes the match length in the lobby: stored at once, shown as chosen.
    assert page.input_value("select[data-lobby-opt=length]") == "east"  # as created
    page.select_option("select[data-lobby-opt=length]", "one-hand")
    page.wait_for_function(STORED_LENGTH_IS, arg="one-hand")
    assert page.input_value("select[data-lobby-opt=length]") == "one-hand"
    page.screenshot(path=str(shots / f"{name}-rooms-lobby-host-{lang}.png"))
    # The keyboard copies the code (focused once the room exists), then Tab, Tab: the link.
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    code = page.inner_text("#room-code-shown")
    assert page.evaluate("() => document.activeElement.dataset.roomCmd") == "copy-code"
    page.keyboard.press("Enter")
    page.wait_for_function("c => navigator.clipboard.readText().then(t => t === c)", arg=code)
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "room-link"
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.dataset.roomCmd") == "copy"
    assert page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle") == "solid"  # focus shows
    page.keyboard.press("Enter")
    link = page.input_value("#room-link")
    page.wait_for_function("l => navigator.clipboard.readText().then(t => t === l)", arg=link)
    size = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert size[0] <= size[1]
    panel = page.locator(".rooms-panel").bounding_box()
    assert panel is not None and panel["x"] >= 0 and panel["x"] + panel["width"] <= viewport["width"] + 0.5
    page.keyboard.press("Escape")  # closes the sheet, the focus back on the button that opened it
    page.wait_for_selector("#rooms-sheet", state="hidden")
    assert page.evaluate("() => document.activeElement.dataset.roomCmd") == "open"
    assert page.errors == []  # type: ignore[attr-defined]
