"""The quick match in a real browser (Playwright + Debian's chromium, fixtures from
tests/fixtures/browser.py; the contract is docs/quick.md, the ladder docs/ranks.md): three guests
in three browser contexts press Quick match and land at one table; one guest alone gets two bots
after a short wait; a second tab of a guest already waiting is told so; a finished quick match
moves the ranks on the start screen, the leaderboard and the history."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from tests.fixtures.browser import DESKTOP, PHONE, assert_no_overflow, open_page
from tests.fixtures.room_pages import set_name
from tests.fixtures.server import LiveServer, free_port, serving

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser, Page

ADMIN_TOKEN = "quick-e2e-admin-token-0123456789"
PORTRAIT = {"width": 390, "height": 844}

# Every frame each socket of the page received (the welcome of /ws names the table's players).
SOCKETS = """
window.__frames = [];
const PageSocket = window.WebSocket;
window.WebSocket = class extends PageSocket {
  constructor(url, ...rest) {
    super(url, ...rest);
    this.addEventListener('message', (e) => window.__frames.push({ url: String(url), frame: JSON.parse(e.data) }));
  }
};
"""


def frames(page: Page, kind: str) -> list[dict[str, Any]]:
    found = page.evaluate("(t) => window.__frames.filter(f => f.frame.t === t).map(f => f.frame)", kind)
    return list(found)


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    # A long wait: three guests meet before any bot is asked for. The admin routes end a match.
    yield from serving(tmp_path / "data", turn_s=60.0, bank_s=30.0, metrics_port=free_port(), admin_token=ADMIN_TOKEN)


@pytest.fixture
def short_wait(tmp_path: Path) -> Iterator[LiveServer]:
    yield from serving(
        tmp_path / "data", turn_s=60.0, bank_s=30.0, quick_wait_s=1.0, quick_wait_choices=(1.0, 10.0, 20.0)
    )


def quick_page(browser: Browser, live: LiveServer, viewport: dict[str, int], lang: str = "en") -> Page:
    page = open_page(browser, live, viewport, lang=lang)
    page.add_init_script(SOCKETS)
    page.reload()
    page.wait_for_selector("[data-quick-cmd=open]")
    return page


def find_table(page: Page, length: str = "east", red_fives: bool = True, wait: int | None = None) -> None:
    page.click("[data-quick-cmd=open]")
    page.click(f"[data-quick-opt=length][data-value={length}]")
    page.click(f"[data-quick-opt=red_fives][data-value={'true' if red_fives else 'false'}]")
    if wait is not None:
        page.click(f"[data-quick-opt=wait_s][data-value='{wait}']")
    page.click("[data-quick-cmd=queue]")


def rank_shown(page: Page) -> dict[str, str]:
    return dict(page.eval_on_selector("[data-testid=quick-rank]", "el => ({...el.dataset, text: el.textContent})"))


@pytest.mark.slow
def test_three_guests_meet_at_one_table_and_their_ranks_move(browser: Browser, live: LiveServer, shots: Path) -> None:
    names = ["Ana", "Budi", "Chiyo"]
    pages = [quick_page(browser, live, view, lang) for view, lang in ((DESKTOP, "en"), (PHONE, "ja"), (PORTRAIT, "ru"))]
    for page, name in zip(pages, names, strict=True):
        set_name(page, name)
    pages[0].click("[data-quick-cmd=open]")
    pages[0].wait_for_selector("[data-testid=quick-rank] strong:text('6 kyu')")
    assert rank_shown(pages[0])["rank"] == "6k"
    pages[0].click("[data-quick-cmd=close]")
    for page in pages:
        find_table(page)
    # All three are seated together: each welcome names the same three humans, no bot.
    welcomes = []
    for page in pages:
        page.wait_for_selector(".hand-tile", timeout=30_000)
        page.wait_for_function("() => window.__frames.some(f => f.frame.t === 'welcome')")
        welcomes.append(frames(page, "welcome")[0])
    match = welcomes[0]["match"]
    assert {w["match"] for w in welcomes} == {match} and {w["kind"] for w in welcomes} == {"quick"}
    assert sorted(w["seat"] for w in welcomes) == [0, 1, 2]
    for w in welcomes:
        assert sorted(p["name"] for p in w["players"]) == names
        assert all(p.get("bot_level") is None and p["rank"] == "6k" for p in w["players"])
    # The others' ranks on their name plates, in the page's language.
    assert pages[0].locator(".opponent .rank-badge").all_inner_texts() == ["6 kyu", "6 kyu"]
    assert pages[1].locator(".opponent .rank-badge").all_inner_texts() == ["6級", "6級"]
    # One's own beside one's points in the centre.
    assert pages[0].locator(".cscore-me .rank-badge").inner_text() == "6 kyu"
    assert pages[2].locator(".cscore-me .rank-badge").inner_text() == "6 кю"
    pages[0].screenshot(path=str(shots / "quick-table-desktop-1280-en.png"))
    pages[1].screenshot(path=str(shots / "quick-table-landscape-844-ja.png"))
    pages[2].screenshot(path=str(shots / "quick-table-portrait-390-ru.png"))
    assert_no_overflow(pages[2])

    # The operator ends the match at once (docs/server.md): the points as they stand.
    r = httpx.post(
        f"http://127.0.0.1:{live.settings.metrics_port}/admin/matches/{match}/end",
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        json={"reason": "quick e2e"},
    )
    assert r.status_code == 200, r.text
    for page in pages:
        page.wait_for_selector("[data-testid=match-end]", timeout=20_000)
    assert pages[0].locator("[data-panel=quick-again]").count() == 1
    ended = next(f["e"] for f in frames(pages[0], "event") if f["e"]["type"] == "MatchEnded")
    placement = {w["seat"]: ended["placements"][w["seat"]] for w in welcomes}

    # docs/ranks.md: at 6 kyu an East match's first place earns 20 points, which is 6 kyu's
    # promotion line: 5 kyu with 0 points; the second earns 10, the third nothing (a floor rank).
    after = {1: ("5k", 0, "5 kyu · 0/20"), 2: ("6k", 10, "6 kyu · 10/20"), 3: ("6k", 0, "6 kyu · 0/20")}
    # The match-end panel says where the ladder put each player.
    for page, w in zip(pages, welcomes, strict=True):
        rank, points, _ = after[placement[w["seat"]]]
        page.wait_for_selector(f"[data-testid=quick-end-rank][data-rank='{rank}'][data-points='{points}']")
    assert pages[0].inner_text("[data-testid=quick-end-rank]").startswith("Your rank (East round): ")
    pages[2].screenshot(path=str(shots / "quick-match-end-portrait-390-ru.png"))
    # Quick match again: queued at once with the same choices (then cancelled).
    before = len(frames(pages[1], "queued"))
    pages[1].click("[data-panel=quick-again]")
    pages[1].wait_for_selector("[data-testid=quick-status] .quick-clock")
    pages[1].wait_for_function(f"() => window.__frames.filter(f => f.frame.t === 'queued').length > {before}")
    assert frames(pages[1], "queued")[-1]["length"] == "east"
    pages[1].keyboard.press("Escape")
    pages[1].wait_for_selector("[data-quick-cmd=queue]")
    pages[1].click("[data-quick-cmd=close]")
    for page, w in zip(pages, welcomes, strict=True):
        if page is not pages[1]:
            page.click("[data-panel=again]")
        page.wait_for_selector("#play")
        if page is pages[0]:
            want = after[placement[w["seat"]]][2]
            page.wait_for_function(f"() => document.getElementById('quick-mini').textContent.startsWith('{want}')")
    mine = after[placement[welcomes[0]["seat"]]]
    pages[0].click("[data-quick-cmd=open]")
    pages[0].wait_for_selector(f"[data-testid=quick-rank][data-rank='{mine[0]}']")
    assert rank_shown(pages[0])["points"] == str(mine[1])
    pages[0].click("[data-quick-cmd=board]")
    pages[0].wait_for_selector("[data-testid=leaderboard][data-length=east]")
    rows = [r.split("\t") for r in pages[0].locator("[data-testid=leaderboard] tbody tr").all_inner_texts()]
    assert len(rows) == 3
    shown = {next(n for n in names if n in r[1]): (r[2].strip(), r[3].strip(), r[4].strip()) for r in rows}
    for name, w in zip(names, welcomes, strict=True):
        rank, points, _ = after[placement[w["seat"]]]
        assert shown[name] == ({"5k": "5 kyu", "6k": "6 kyu"}[rank], str(points), "1"), (name, shown)
    assert rows[0][1].startswith(names[[placement[w["seat"]] for w in welcomes].index(1)])  # the first place leads
    assert pages[0].locator("[data-testid=leaderboard] tr.you").count() == 1
    assert "Ana" in pages[0].inner_text("[data-testid=leaderboard] tr.you")
    pages[0].screenshot(path=str(shots / "leaderboard-desktop-1280-en.png"))
    pages[2].click("[data-quick-cmd=open]")
    pages[2].click("[data-quick-cmd=board]")
    pages[2].wait_for_selector("[data-testid=leaderboard]")
    assert_no_overflow(pages[2])
    pages[2].screenshot(path=str(shots / "leaderboard-portrait-390-ru.png"))
    pages[2].keyboard.press("Escape")  # back to the sheet, then closed
    pages[2].wait_for_selector("[data-quick-cmd=queue]")
    # The history lists the match with its move on the ladder.
    pages[0].click("[data-quick-cmd=close]")
    pages[0].click("#account-btn")
    pages[0].click("[data-acct-tab=history]")
    change = pages[0].locator(f"#hist-server tr[data-match='{match}'] [data-testid=rank-change]")
    change.wait_for()
    earned = {"5k": "+20 · 6 kyu → 5 kyu", "6k": f"+{mine[1]} · 6 kyu" if mine[1] else "±0 · 6 kyu"}[mine[0]]
    assert change.inner_text() == earned
    for page in pages:
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
        page.context.close()


@pytest.mark.slow
def test_a_guest_alone_gets_two_bots_after_the_wait(browser: Browser, short_wait: LiveServer, shots: Path) -> None:
    page = quick_page(browser, short_wait, DESKTOP)
    find_table(page, length="east-south", red_fives=False, wait=1)
    page.wait_for_selector("[data-testid=quick-status]")
    assert page.evaluate("() => document.activeElement.dataset.quickCmd") == "leave"
    page.wait_for_selector(".hand-tile", timeout=30_000)
    welcome = frames(page, "welcome")[0]
    queued = frames(page, "queued")
    assert (
        queued and queued[0]["wait_s"] == 1 and queued[0]["length"] == "east-south" and queued[0]["red_fives"] is False
    )
    bots = [p for p in welcome["players"] if p["seat"] != welcome["seat"]]
    assert len(bots) == 2 and all(p["bot_level"] and p.get("rank") is None for p in bots)
    # Named as bots ("Normal bot"), no rank on their plates.
    names = page.locator(".opponent .nameplate .name").all_inner_texts()
    assert all(name.endswith(" bot") or " bot (" in name for name in names), names
    assert page.locator(".opponent .rank-badge").count() == 0
    # A reload comes back to the same table, its players named as before.
    page.reload()
    page.wait_for_selector(".hand-tile", timeout=30_000)
    assert page.locator(".opponent .nameplate .name").all_inner_texts() == names
    assert page.evaluate("() => JSON.parse(localStorage.getItem('sanma.quick'))") == {
        "length": "east-south",
        "red_fives": False,
        "wait_s": 1,
    }
    assert page.errors == [], page.errors  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.slow
def test_a_second_tab_of_a_waiting_guest_is_told(browser: Browser, live: LiveServer, shots: Path) -> None:
    # Two tabs of one browser: one context, so one stored guest token.
    context = browser.new_context(viewport=DESKTOP)  # type: ignore[arg-type]
    context.add_init_script("localStorage.setItem('sanma.lang', 'en')")
    first = context.new_page()
    first.goto(live.http + "/")
    first.wait_for_selector("[data-quick-cmd=open]")
    find_table(first, wait=60)
    first.wait_for_function("() => document.querySelector('.quick-count')?.textContent === '1 waiting'")
    first.screenshot(path=str(shots / "quick-waiting-desktop-1280-en.png"))
    second = context.new_page()
    second.goto(live.http + "/")
    second.wait_for_selector("[data-quick-cmd=open]")
    assert second.evaluate("() => localStorage.getItem('sanma.token')") == first.evaluate(
        "() => localStorage.getItem('sanma.token')"
    )
    find_table(second, wait=60)
    second.wait_for_function("() => document.querySelector('[data-testid=quick-error]')?.textContent")
    assert (
        second.inner_text("[data-testid=quick-error]")
        == "You are already looking for a table in another tab or window."
    )
    assert second.locator("[data-quick-cmd=queue]:not([disabled])").count() == 1
    # The first tab still waits; Escape cancels it, and the second may queue then.
    assert first.locator("[data-testid=quick-status]").count() == 1
    first.keyboard.press("Escape")
    first.wait_for_selector("[data-quick-cmd=queue]")
    assert first.evaluate("() => document.activeElement.dataset.quickCmd") == "queue"
    second.click("[data-quick-cmd=queue]")
    second.wait_for_selector(".quick-clock")
    assert second.locator("[data-testid=quick-status]").count() == 1
    second.keyboard.press("Escape")
    second.wait_for_selector("[data-quick-cmd=queue]")
    context.close()


@pytest.mark.slow
def test_a_lost_queue_socket_and_a_failed_table_queue_again(browser: Browser, short_wait: LiveServer) -> None:
    """The page's queue socket runs through a route that plays a failing server first: a
    `quick_failed` (queued again once by itself), then a socket closed under the player (opened
    again after a pause); the third socket reaches the real server, which seats the player."""
    page = quick_page(browser, short_wait, DESKTOP)
    opened: list[int] = []

    def route(ws: Any) -> None:
        opened.append(len(opened) + 1)
        if len(opened) == 1:
            ws.on_message(lambda _: (ws.send('{"t":"error","code":"quick_failed","detail":"test"}'), ws.close()))
        elif len(opened) == 2:
            ws.on_message(lambda _: ws.close())
        else:
            ws.connect_to_server()

    page.route_web_socket("**/ws/quick", route)
    find_table(page, wait=1)
    page.wait_for_selector(".hand-tile", timeout=30_000)
    assert opened == [1, 2, 3]
    assert page.errors == [], page.errors  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.slow
def test_a_queue_socket_lost_for_good_offers_a_retry(browser: Browser, short_wait: LiveServer) -> None:
    page = quick_page(browser, short_wait, PORTRAIT, lang="id")
    opened: list[int] = []
    down = [True]

    def route(ws: Any) -> None:
        opened.append(len(opened) + 1)
        if down[0]:
            ws.on_message(lambda _: ws.close())
        else:
            ws.connect_to_server()

    page.route_web_socket("**/ws/quick", route)
    find_table(page, wait=1)
    failed = page.locator("[data-testid=quick-failed]")
    failed.wait_for(timeout=15_000)
    assert failed.inner_text() == "Koneksi ke server terputus."
    assert len(opened) == 4  # the first socket and three more, then the player is told
    assert page.evaluate("() => document.activeElement.dataset.quickCmd") == "queue"
    assert_no_overflow(page)
    down[0] = False
    page.keyboard.press("Enter")  # Try again, focused
    page.wait_for_selector(".hand-tile", timeout=30_000)
    assert len(opened) == 5
    assert page.errors == [], page.errors  # type: ignore[attr-defined]
    page.context.close()
