"""The coach in the browser (issue 27): at a practice table the menu's toggle turns it on;
one match is resized through desktop 1280x800, phone landscape 844x390 and phone portrait
390x844, and at a turn in each the panel shows three choices, the first the master's answer
for that position (``LearnedMaster.decide`` on the seat's own log, what ``sanma mjai-bot --level
master`` answers), beside the hand and never over it; after the discard the panel says whether
it was the master's choice; played to its end, the match is marked coached in the history and
the statistics give it a group of its own.  At a friend room's table there is no toggle and no panel."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from sanma.bots.coach import reasons_for
from sanma.bots.master import LearnedMaster
from sanma.engine.replay import replay
from sanma.engine.visibility import redact
from tests.fixtures.browser import ACTIONABLE, DESKTOP, open_page, start_match, step
from tests.fixtures.replay_viewer import open_history
from tests.fixtures.server import LiveServer, full_log, live_server

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser, Page

VIEWPORTS = {"desktop-1280": (1280, 800), "landscape-844": (844, 390), "portrait-390": (390, 844)}

PANEL = """() => {
  const el = document.getElementById('coach');
  if (!el || el.hidden) return null;
  const box = (e) => { const r = e.getBoundingClientRect(); return {l: r.left, t: r.top, r: r.right, b: r.bottom}; };
  return {seq: Number(el.dataset.seq), box: box(el),
          choices: [...el.querySelectorAll('.coach-choice')].map(li => li.dataset.action),
          hand: [...document.querySelectorAll('.hand .hand-tile')].map(box),
          buttons: [...document.querySelectorAll('#actions .action')].map(box)};
}"""


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    server = live_server(tmp_path / "data")
    yield server
    server.stop()


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return a["l"] < b["r"] and b["l"] < a["r"] and a["t"] < b["b"] and b["t"] < a["b"]


def _master_choice(live: LiveServer, match: str, seq: int) -> str:
    """The master's answer at prompt ``seq`` from the seat's own redacted log, as the coach
    names it (``Reason.action``)."""
    seat = next(s for s in range(3) if (seq - 1 - s) % 3 == 0)
    v = (seq - 1 - seat) // 3
    log = full_log(live.settings, match)[:v]
    bot = LearnedMaster(seat)
    for event in log:
        bot.observe(redact(event, seat))
    action = bot.decide(replay(log).legal_actions(seat))
    return reasons_for(bot, action).action


def _turn_with_advice(page: Page, after: int) -> dict[str, Any]:
    """Wait for the player's own discard turn and its advice (a call offer is passed, once
    its own advice is in: the coach advises on calls too)."""
    while True:
        page.wait_for_function(ACTIONABLE, timeout=20_000)
        page.wait_for_function(f"() => {{ const p = ({PANEL})(); return p && p.seq > {after}; }}", timeout=20_000)
        panel: dict[str, Any] = page.evaluate(PANEL)
        if "pass" not in panel["choices"]:
            return panel
        after = panel["seq"]
        page.locator("#actions .action-pass").click()


def test_the_coach_shows_the_masters_three_choices_at_each_viewport(
    browser: Browser, live: LiveServer, shots: Path
) -> None:
    page = open_page(browser, live, DESKTOP)
    start_match(page)
    match = page.evaluate("() => localStorage.getItem('sanma.match')")
    page.click("#menu-btn")
    page.click("[data-coach]")
    page.wait_for_selector("[data-coach][aria-checked=true]")
    page.click("#menu-btn")  # closed again
    seq = 0
    for i, (name, (width, height)) in enumerate(VIEWPORTS.items()):
        page.set_viewport_size({"width": width, "height": height})
        panel = _turn_with_advice(page, seq)
        seq = panel["seq"]
        assert len(panel["choices"]) == 3, (name, panel)
        master = _master_choice(live, match, seq)
        assert panel["choices"][0] == master, name
        for box in panel["hand"] + panel["buttons"]:
            assert not _overlap(panel["box"], box), (name, panel["box"], box)
        # The first viewport plays the master's tile, the others another: both verdicts show.
        pick = master if i == 0 else panel["choices"][1]
        tile = page.locator(f".hand.my-turn .hand-tile[data-tile='{pick}']:not(.blocked)")
        if not tile.count():
            tile = page.locator(f".hand.my-turn .hand-tile[data-tile='0{pick[1]}']:not(.blocked)")
        tile.first.click()
        verdict = "matched" if i == 0 else "differed"
        page.wait_for_selector(f"#coach [data-verdict={verdict}]", timeout=20_000)
        if verdict == "differed":
            assert page.inner_text("#coach [data-verdict]").startswith("The master chose ")
        page.wait_for_function(f"() => {{ const p = ({PANEL})(); return p && p.seq > {seq}; }}", timeout=20_000)
        page.screenshot(path=str(shots / f"coach-{name}.png"))  # the next advice, under it the verdict
    seq = page.evaluate(PANEL)["seq"]
    # Played to its end: the history marks the match coached, the stats keep it apart.
    page.set_viewport_size(DESKTOP)
    for _ in range(400):
        what = step(page)
        if what == "hand-end":
            page.click("[data-panel=next]")
        if what == "match-end":
            break
    page.click("[data-panel=again]")
    open_history(page)
    page.wait_for_selector(f"tr[data-match='{match}'] [data-coached]")
    page.click("[data-acct-tab=stats]")
    page.wait_for_selector("#stats-group")
    options = page.locator("#stats-group option").evaluate_all("els => els.map(e => e.textContent)")
    assert any(" · coached (" in text and "Beginner" in text for text in options), options
    assert not page.errors  # type: ignore[attr-defined]


def test_no_coach_at_a_friend_rooms_table(browser: Browser, live: LiveServer) -> None:
    page = open_page(browser, live, DESKTOP)
    page.evaluate("() => localStorage.setItem('sanma.coach', 'on')")  # kept on from practice
    page.wait_for_selector("[data-room-cmd=open]")
    page.click("[data-room-cmd=open]")
    page.click("button[data-room-opt=length][data-value=one-hand]")
    page.click("[data-room-cmd=create]")
    for seat in ("1", "2"):
        page.select_option(f'select[data-room-level="{seat}"]', "beginner")
        page.click(f'[data-room-cmd=add-bot][data-seat="{seat}"]')
        page.wait_for_selector(f'.room-seat.bot[data-seat="{seat}"]')
    page.click("[data-room-cmd=start]")
    page.wait_for_selector(".hand-tile", timeout=20_000)
    page.wait_for_function(ACTIONABLE, timeout=20_000)
    page.click("#menu-btn")
    page.wait_for_selector("#menu [data-cmd=leave]")
    assert page.locator("[data-coach]").count() == 0
    page.wait_for_timeout(500)
    assert page.locator("#coach:not([hidden])").count() == 0
    assert not page.errors  # type: ignore[attr-defined]
