"""The table on every screen (issue 11): a one-hand match played by clicking, in a mouse and in
a touch context, the page resized through the seven viewports (desktop to phone portrait) at
every own turn and panel, measuring element boxes as it goes.

At every own turn: nothing wider than the page, every hand tile inside the wooden frame,
no button over a tile, the minimum sizes (hand tiles >= 36 px wide on a landscape phone and
>= 25 px upright, river tiles >= 22 px), the board not moving as the rivers grow; phones
are touch contexts whose controls must be at least 44 x 44 CSS px and show no keyboard
hints.  The hand-end and match-end panels show their main button without scrolling, and so
does the replay viewer's result panel on a phone held sideways, with the viewer's controls."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.fixtures.browser import ACTIONABLE, start_match, step
from tests.fixtures.i18n import LANGS
from tests.fixtures.layout import VIEWPORTS
from tests.fixtures.server import LiveServer, live_server

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser, Page


MEASURE = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {l: r.left, t: r.top, r: r.right, b: r.bottom, w: r.width, h: r.height}; };
  const visible = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const all = (sel) => [...document.querySelectorAll(sel)].filter(visible).map(box);
  const game = document.getElementById("game");
  const cs = getComputedStyle(game);
  const g = game.getBoundingClientRect();
  const bw = parseFloat(cs.borderLeftWidth);
  return {
    page: {sw: document.documentElement.scrollWidth, cw: document.documentElement.clientWidth,
           sh: document.documentElement.scrollHeight, ch: document.documentElement.clientHeight},
    frame: {l: g.left + bw, t: g.top + bw, r: g.right - bw, b: g.bottom - bw},
    hand: all(".hand .hand-tile"),
    river: [...document.querySelectorAll(".river .tile:not(.sideways)")].filter(visible).map(box),
    buttons: all(".topbar button, #actions .action"),
    tiles: all(".hand .hand-tile, .river .tile, .centre .tile"),
    kbd: [...document.querySelectorAll("#actions kbd")].filter(visible).length,
    centre: box(document.querySelector(".centre")),
    riverMe: box(document.querySelector(".river-me")),
  };
}"""


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server for the module (each test plays or stores its own guest's matches on it)."""
    server = live_server(tmp_path_factory.mktemp("live") / "data")
    yield server
    server.stop()


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return min(a["r"], b["r"]) - max(a["l"], b["l"]) > 0.5 and min(a["b"], b["b"]) - max(a["t"], b["t"]) > 0.5


def check_table(m: dict[str, Any], name: str, width: int, height: int, touch: bool) -> None:
    page = m["page"]
    assert page["sw"] <= page["cw"] and page["sh"] <= page["ch"], (name, page)
    frame = m["frame"]
    assert m["hand"], name
    for tile in m["hand"]:  # every hand tile inside the frame
        inside = tile["l"] >= frame["l"] - 0.5 and tile["r"] <= frame["r"] + 0.5 and tile["b"] <= frame["b"] + 0.5
        assert inside, (name, tile, frame)
    for button in m["buttons"]:
        for tile in m["tiles"]:
            assert not _overlap(button, tile), (name, "a button covers a tile", button, tile)
    narrowest = min(t["w"] for t in m["hand"])
    if height <= 520:
        assert narrowest >= 36, (name, narrowest)
    elif width < height:
        assert narrowest >= 25, (name, narrowest)
    if m["river"]:
        assert min(t["w"] for t in m["river"]) >= 22 - 0.01, (name, m["river"][0])
    if touch:
        for button in m["buttons"]:
            assert button["w"] >= 44 - 0.01 and button["h"] >= 44 - 0.01, (name, "touch target", button)
        assert m["kbd"] == 0, name


def check_panel_button(page: Page, selector: str, name: str) -> None:
    """The panel's main button lies inside the viewport with the overlay at its top."""
    shown = page.evaluate(
        """(sel) => { const b = document.querySelector(sel).getBoundingClientRect();
            return {t: b.top, b: b.bottom, l: b.left, r: b.right, h: innerHeight, w: innerWidth,
                    scroll: document.getElementById("overlay").scrollTop}; }""",
        selector,
    )
    assert shown["scroll"] == 0 and shown["t"] >= 0 and shown["b"] <= shown["h"], (name, selector, shown)
    assert shown["l"] >= 0 and shown["r"] <= shown["w"], (name, selector, shown)


# Points over a panel on a grid: the element under each must be the panel's own (a river tile's
# tsumogiri dot once painted through the hand-end panels: z-index 1 outside the tile).
UNCOVERED = """(sel) => { const panel = document.querySelector(sel); const p = panel.getBoundingClientRect();
  const points = [];
  for (let i = 1; i < 12; i++) {
    for (let j = 1; j < 12; j++) points.push([p.left + (p.width * i) / 12, p.top + (p.height * j) / 12]);
  }
  // Every tile under the panel, at its centre and where a tsumogiri dot sits (top centre).
  for (const t of document.querySelectorAll('.tile')) {
    if (panel.contains(t)) continue;
    const r = t.getBoundingClientRect();
    points.push([(r.left + r.right) / 2, (r.top + r.bottom) / 2], [(r.left + r.right) / 2, r.top + r.width * 0.14]);
  }
  const over = [];
  for (const [x, y] of points) {
    if (x <= p.left || y <= p.top || x >= p.right || y >= p.bottom || x >= innerWidth || y >= innerHeight) continue;
    const hit = document.elementFromPoint(x, y);
    if (hit && !panel.contains(hit)) over.push([Math.round(x), Math.round(y), hit.className.baseVal ?? hit.className]);
  }
  return over; }"""


def check_uncovered(page: Page, selector: str, name: str) -> None:
    """Nothing of the page lies over the panel ``selector`` anywhere on it."""
    assert page.evaluate(UNCOVERED, selector) == [], (name, selector)


def viewports(touch: bool) -> list[str]:
    """The viewports of a touch context, or of a mouse one."""
    return [name for name, (_, _, t) in VIEWPORTS.items() if t == touch]


def resize(page: Page, name: str) -> None:
    """The page at viewport ``name``.  The table's layout follows from media queries alone (no
    script reads the size), so it is measured as it would be if loaded at that size."""
    width, height, _ = VIEWPORTS[name]
    page.set_viewport_size({"width": width, "height": height})


@pytest.mark.slow
@pytest.mark.parametrize("touch", [False, True], ids=["mouse", "touch"])
def test_the_table_fits_every_screen(browser: Browser, live: LiveServer, touch: bool) -> None:
    # One match per context, its page resized through the context's viewports at every own turn
    # and panel: a match per viewport cost seconds each.  Touch is the context's (pointer: coarse
    # does not follow a resize), hence a match for each.
    names = viewports(touch)
    width, height, _ = VIEWPORTS[names[0]]
    # Boxes are measured at rest: a tile still arriving would be caught mid-flight.
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch, reduced_motion="reduce")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.add_init_script("localStorage.setItem('sanma.lang', 'en')")
    page.goto(live.http + "/")
    start_match(page)
    positions: dict[str, set[tuple[int, int]]] = {name: set() for name in names}
    turns = 0
    seen = {"hand-end": 0, "match-end": 0}
    for _ in range(400):
        page.wait_for_function(ACTIONABLE, timeout=20_000)
        if not page.locator("#overlay .panel").count() and page.locator(".hand.my-turn").count():
            for name in names:
                resize(page, name)
                width, height, _ = VIEWPORTS[name]
                m = page.evaluate(MEASURE)
                check_table(m, name, width, height, touch)
                positions[name].add((round(m["centre"]["t"]), round(m["riverMe"]["t"])))
            turns += 1
        what = step(page)
        if what == "hand-end":
            seen[what] += 1
            for name in names:
                resize(page, name)
                check_panel_button(page, "[data-panel=next]", name)
                check_uncovered(page, "#overlay .panel", name)
            page.click("[data-panel=next]")
        elif what == "match-end":
            seen[what] += 1
            for name in names:
                resize(page, name)
                check_panel_button(page, "[data-testid=match-end] .primary", name)
            break
    assert seen == {"hand-end": 1, "match-end": 1} and turns >= 5, (seen, turns)
    # The rivers grew turn after turn; the centre and your river stayed where they were.
    for name in names:
        assert len(positions[name]) == 1, (name, positions[name])
    assert errors == [], errors
    context.close()


# The replay viewer's result panel on a phone held sideways: its main button (Next hand) and
# the viewer's controls in view without scrolling, as the table's hand-end panel is.
REPLAY_VIEWPORTS = ("landscape-844", "landscape-667")

SHOWN = """(sel) => { const el = document.querySelector(sel);
  if (!el) return null;
  const r = el.getBoundingClientRect();
  const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
  const hit = document.elementFromPoint(x, y);
  const scrolled = [...document.querySelectorAll('#replay-view, #replay-view .replay-panel, #replay-result')]
    .map((e) => e.scrollTop);
  return {t: r.top, b: r.bottom, l: r.left, r: r.right, h: innerHeight, w: innerWidth,
          on_top: hit !== null && (hit === el || el.contains(hit)), scrolled}; }"""


def check_shown(page: Page, selector: str, name: str) -> None:
    """``selector`` lies inside the viewport, is the element under its own centre (nothing clips
    or covers it), and nothing of the viewer had to scroll to get there."""
    shown = page.evaluate(SHOWN, selector)
    assert shown is not None, (name, selector)
    inside = shown["t"] >= 0 and shown["b"] <= shown["h"] and shown["l"] >= 0 and shown["r"] <= shown["w"]
    assert inside, (name, selector, shown)
    assert shown["on_top"] and not any(shown["scrolled"]), (name, selector, shown)


@pytest.fixture(scope="module")
def replay_at_the_first_result(browser: Browser, live: LiveServer) -> Iterator[Callable[[str], Page]]:
    """``at(name)``: a finished match's replay at viewport ``name``, at the first hand's result
    (one event before the second hand's deal).  One page per kind of context (touch and mobile,
    or neither), resized and brought to that result again for each viewport: the match stored
    and the replay opened once per kind, not once per viewport."""
    from tests.fixtures.replay_viewer import ended_match_in_history, open_replay

    pages: dict[bool, Page] = {}

    def at(name: str) -> Page:
        width, height, touch = VIEWPORTS[name]
        if touch not in pages:
            context = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch)
            page = context.new_page()
            page.add_init_script("localStorage.getItem('sanma.lang') || localStorage.setItem('sanma.lang', 'en')")
            page.goto(live.http + "/")
            page.wait_for_selector("#play")
            match, _ = ended_match_in_history(page, live)
            open_replay(page, match)
            pages[touch] = page
        page = pages[touch]
        resize(page, name)
        page.click("#replay-hand-2")
        page.keyboard.press("Shift+ArrowLeft")
        page.wait_for_selector("#replay-result .hand-end")
        return page

    yield at
    for page in pages.values():
        page.context.close()


@pytest.mark.slow
@pytest.mark.parametrize("name", REPLAY_VIEWPORTS)
def test_the_replay_result_panel_fits_a_phone_in_landscape(
    replay_at_the_first_result: Callable[[str], Page], name: str
) -> None:
    page = replay_at_the_first_result(name)
    controls = ["#replay-prev-hand", "#replay-play", "#replay-next-turn", "#replay-next-hand"]
    # The first hand's result, then the last's.
    for selector in ["#replay-result [data-panel=next]", *controls]:
        check_shown(page, selector, name)
    check_uncovered(page, "#replay-result .panel", name)
    page.keyboard.press("End")
    page.wait_for_selector("#replay-result .match-end")
    page.keyboard.press("Shift+ArrowLeft")
    page.wait_for_selector("#replay-result .hand-end")
    assert "results" in page.inner_text("#replay-result [data-panel=next]").lower()  # the last hand: To the results
    for selector in ["#replay-result [data-panel=next]", *controls]:
        check_shown(page, selector, name)
    # The standings at the end: the controls still in view.
    page.keyboard.press("End")
    page.wait_for_selector("#replay-result .match-end")
    for selector in controls:
        check_shown(page, selector, name)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["desktop-1280", "portrait-390"])
def test_nothing_of_the_board_shows_through_the_replay_result(
    replay_at_the_first_result: Callable[[str], Page], name: str
) -> None:
    page = replay_at_the_first_result(name)  # its rivers full of tsumogiri tiles below
    check_uncovered(page, "#replay-result .panel", name)


# Your river at 360x740 late in a hand: every tile inside the viewport, inside the board (which
# clips what overflows it) and not covered by anything (the player's area below the board).
RIVER_ME = """() => { const board = document.getElementById('board').getBoundingClientRect();
  return [...document.querySelectorAll('.river-me .tile')].map((t) => { const r = t.getBoundingClientRect();
    const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2, hit = document.elementFromPoint(x, y);
    return {l: r.left, t: r.top, r: r.right, b: r.bottom, board_b: board.bottom, w: innerWidth, h: innerHeight,
            shown: hit !== null && t.contains(hit)}; }); }"""

# The right edge of the left river's tiles and the left edge of the right river's (null: empty).
RIVER_EDGES = """() => { const edges = (sel, f) => { const xs = [...document.querySelectorAll(sel)].map(f);
  return xs.length ? xs : null; };
  const l = edges('.river-left .tile', (t) => t.getBoundingClientRect().right);
  const r = edges('.river-right .tile', (t) => t.getBoundingClientRect().left);
  return [l && Math.max(...l), r && Math.min(...r)]; }"""

# Its one hand runs to an exhaustive draw with a kita of yours: your river reaches a third row
# while your kita takes a row of your area, with the turn timer on.
LONG_HAND_SEED = 20


@pytest.mark.slow
def test_your_river_stays_in_view_late_in_a_hand_at_360x740(browser: Browser, tmp_path: Path) -> None:
    live = live_server(tmp_path / "data", LONG_HAND_SEED)
    width, height, touch = VIEWPORTS["portrait-360"]
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch, reduced_motion="reduce")
    page = context.new_page()
    page.add_init_script("localStorage.setItem('sanma.lang', 'en')")
    page.goto(live.http + "/")
    page.wait_for_selector("#play")
    page.click("button[data-opt=timer][data-value=true]")
    start_match(page)
    most = 0
    for _ in range(400):
        page.wait_for_function(ACTIONABLE, timeout=20_000)
        if not page.locator("#overlay .panel").count() and page.locator(".hand.my-turn").count():
            tiles = page.evaluate(RIVER_ME)
            most = max(most, len(tiles))
            for tile in tiles:
                inside = tile["l"] >= 0 and tile["r"] <= tile["w"] and tile["t"] >= 0 and tile["b"] <= tile["h"]
                assert inside and tile["b"] <= tile["board_b"] + 0.5 and tile["shown"], (len(tiles), tile)
            # The opponents' rivers side by side, neither reaching into the other (a sideways
            # riichi tile did), and the turn said in words beside the hand.
            left, right = page.evaluate(RIVER_EDGES)
            assert left is None or right is None or left <= right, (left, right)
            assert page.inner_text("[data-testid=turn-cue]") == "Your turn"
        kita = page.locator("#actions .action-kita")
        if kita.count():
            kita.click()
        elif step(page) in ("hand-end", "match-end"):
            break
    assert most >= 16 and page.locator(".my-melds .kita").count(), most  # a third row, and a kita
    context.close()
    live.stop()


TITLE_CLEAR = """() => {
  const box = (e) => e.getBoundingClientRect();
  const title = box(document.querySelector("#start .logo h1"));
  const hits = [...document.querySelectorAll("#start .start-top > *")].map((e) => [e, box(e)])
    .filter(([, r]) => r.width > 0 && r.left < title.right && r.right > title.left
                       && r.top < title.bottom && r.bottom > title.top)
    .map(([e]) => e.textContent.trim() || e.getAttribute("aria-label"));
  const card = box(document.querySelector("#start .start-card"));
  return {hits, sw: document.documentElement.scrollWidth, cw: document.documentElement.clientWidth,
          top: card.top, bottom: card.bottom, height: window.innerHeight};
}"""

WARN_SIGN = """() => {
  const button = document.getElementById("account-btn");
  const sign = document.createElement("span");
  sign.className = "warn-sign";
  sign.append(button.querySelector("svg").cloneNode(true));
  button.append(" ", sign);
}"""


@pytest.mark.parametrize("lang", LANGS)
def test_the_start_cards_top_row_never_covers_the_title(browser: Browser, live: LiveServer, lang: str) -> None:
    # On a phone held sideways the title sits beside the row of Account, Rules, the languages
    # and the settings, whose labels are longest in Russian: the row must wrap, never overlap.
    # Every viewport, touch (44 px targets) and mouse; each also with the warning sign that the
    # Account button of a guest without an e-mail address carries (one more icon, added here
    # as the icon beside it so the page needs no account).
    for touch in (True, False):
        for name in viewports(touch):
            width, height, _ = VIEWPORTS[name]
            context = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch)
            page = context.new_page()
            page.add_init_script(f"localStorage.setItem('sanma.lang', '{lang}')")
            page.goto(live.http + "/")
            page.wait_for_selector("#start .logo h1")
            for warned in (False, True):
                if warned:
                    page.evaluate(WARN_SIGN)
                measured = page.evaluate(TITLE_CLEAR)
                assert measured["hits"] == [], (lang, name, warned, measured)
                assert measured["sw"] <= measured["cw"], (lang, name, warned, measured)
                # Held sideways the whole card is on the screen, nothing to scroll for (upright,
                # a phone scrolls the card below Play).
                if width > height:
                    fits = measured["top"] >= 0 and measured["bottom"] <= measured["height"]
                    assert fits, (lang, name, warned, measured)
            context.close()
