"""The browser client end to end: Debian's Chromium driven by Playwright against a real
server (uvicorn in a thread, temporary SQLite).  A one-hand practice match is played by
clicking until the match-end screen; a reload resumes at the same point; the language
switch changes the visible text; a phone-size viewport shows the table without overflow.

Screenshots go to a temporary folder, or to docs/screenshots/ with ``SANMA_SCREENSHOTS=1``.
In CI (``CI`` set) a missing Chromium or Playwright fails instead of skipping."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from sanma.engine.actions import Discard
from sanma.engine.events import TileDiscarded
from sanma.engine.replay import replay
from sanma.server.codec import action_to_wire, wire_tile
from sanma.server.settings import Settings
from tests.fixtures.aids import AIDS_SEED, eager_choice, expected_aids
from tests.fixtures.browser import (
    ACTIONABLE,
    DESKTOP,
    PHONE,
    SHOTS,
    assert_no_overflow,
    hand_labels,
    open_page,
    play_to_match_end,
    start_match,
    step,
)
from tests.fixtures.server import SEEDS, LiveServer, free_port, full_log

try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError:  # pragma: no cover - depends on the environment
    sync_playwright = None


def river_labels(page: Page) -> list[str]:
    return [str(x) for x in page.locator(".river-me .tile").evaluate_all("els => els.map(e => e.ariaLabel)")]


@pytest.mark.slow
def test_one_hand_match_played_by_clicking(browser: Browser, live: LiveServer, shots: Path) -> None:
    page = open_page(browser, live, DESKTOP)
    page.wait_for_selector("#play")
    page.screenshot(path=str(shots / "desktop-start.png"))
    start_match(page)
    assert page.locator(".hand .hand-tile").count() in (13, 14)
    assert page.locator(".centre .dora .tile").count() >= 1
    counts = play_to_match_end(page, shots, "desktop")
    assert counts.get("discard", 0) >= 1 and counts.get("hand-end") == 1
    assert getattr(page, "checked_fu", 0) >= 20  # this seed's hand ends in a win
    assert counts.get("pass") == 1  # one pon offer to skip (the no-calls test relies on it)
    rows = page.locator(".results tbody tr")
    assert rows.count() == 3
    assert sorted(rows.locator(".place").all_inner_texts()) == ["1st", "2nd", "3rd"]
    assert page.locator("[data-panel=room]").count() == 0  # practice has no room to go back to
    page.click("[data-panel=again]")
    page.wait_for_selector("#play")
    # The last choices are remembered.
    assert page.locator("button[data-opt=length][data-value=one-hand]").get_attribute("aria-checked") == "true"
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.slow
def test_the_page_runs_under_its_content_security_policy(browser: Browser, live: LiveServer) -> None:
    page = open_page(browser, live, DESKTOP)
    start_match(page)  # the client, its styles and its WebSocket work under the policy
    assert page.errors == [], page.errors  # type: ignore[attr-defined]
    # What an injected script would try: inline code, a script or a beacon from elsewhere.
    page.evaluate(
        """() => {
            const inline = document.createElement("script");
            inline.textContent = "window.pwned = true";
            document.head.append(inline);
            const remote = document.createElement("script");
            remote.src = "http://127.0.0.1:9/x.js";
            document.head.append(remote);
            fetch("http://127.0.0.1:9/beacon").catch(() => {});
        }"""
    )
    page.wait_for_function("() => true")
    assert page.evaluate("() => window.pwned") is None
    page.wait_for_timeout(300)  # the console messages of the refusals arrive asynchronously
    refused = " ".join(page.errors)  # type: ignore[attr-defined]
    assert "script-src" in refused and "connect-src" in refused, refused
    page.close()


def test_the_game_is_installable_as_a_web_app(browser: Browser, live: LiveServer) -> None:
    page = open_page(browser, live, PHONE)
    page.wait_for_selector("#play")
    cdp = page.context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"].endswith("/manifest.json") and manifest["errors"] == [], manifest["errors"]
    parsed = json.loads(manifest["data"])
    assert (parsed["name"], parsed["display"], parsed["start_url"]) == ("Sanma", "standalone", "/")
    for icon in parsed["icons"]:  # every icon it names is served, as the type it says
        r = httpx.get(f"{live.http}/{icon['src']}")
        assert r.status_code == 200 and r.headers["content-type"].startswith(icon["type"]), icon
    # Chromium's own verdict; a test browser context is always incognito, which alone blocks it.
    errors = [e["errorId"] for e in cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]]
    assert errors == ["in-incognito"], errors
    assert page.errors == [], page.errors  # type: ignore[attr-defined]
    page.close()


MELD_LAYOUT = """async () => {
    const { meldHtml } = await import("/src/render/common.js");
    const layout = (meld, seat) => {
        const box = document.createElement("div");
        box.innerHTML = meldHtml(meld, seat);
        return [...box.firstElementChild.children].map((el) =>
            el.classList.contains("kakan-stack") ? "stack" : el.classList.contains("sideways") ? "side" : "flat");
    };
    const pon = (from) => ({type: "pon", tiles: ["3s", "3s", "3s"], called: "3s", from_seat: from});
    const kakan = {type: "kakan", tiles: ["0p", "5p", "5p", "5p"], called: "5p", added: "5p", from_seat: 0};
    const ankan = {type: "ankan", tiles: ["1m", "1m", "1m", "1m"], called: null, from_seat: null};
    return {
        fromRight: layout(pon(1), 0), fromLeft: layout(pon(2), 0), wrapsRound: layout(pon(0), 2),
        kakanFromRight: layout(kakan, 2), ankan: layout(ankan, 0),
    };
}"""


def test_a_called_tile_lies_on_the_side_of_the_seat_that_gave_it(browser: Browser, live: LiveServer) -> None:
    page = open_page(browser, live, DESKTOP)
    page.wait_for_selector("#play")
    shown = page.evaluate(MELD_LAYOUT)
    assert shown == {
        "fromRight": ["flat", "flat", "side"],  # the next seat sits on the right
        "fromLeft": ["side", "flat", "flat"],
        "wrapsRound": ["flat", "flat", "side"],  # seat 2's next seat is seat 0
        "kakanFromRight": ["flat", "flat", "stack"],  # the added tile on the called one
        "ankan": ["flat", "flat", "flat", "flat"],
    }
    assert page.errors == [], page.errors  # type: ignore[attr-defined]
    page.close()


@pytest.mark.slow
def test_reload_resumes_at_the_same_point(browser: Browser, live: LiveServer) -> None:
    page = open_page(browser, live, DESKTOP)
    start_match(page)
    discards = 0
    while discards < 4:
        what = step(page)
        assert what not in ("hand-end", "match-end"), "the hand ended too early for this check"
        discards += what == "discard"
    page.wait_for_function("() => document.querySelector('.hand.my-turn .hand-tile:not(.blocked)')", timeout=20_000)
    before = (hand_labels(page), river_labels(page), page.locator("[data-testid=tiles-left]").inner_text())
    assert len(before[1]) == 4
    token = page.evaluate("() => localStorage.getItem('sanma.token')")
    page.reload()
    page.wait_for_function("() => document.querySelector('.hand.my-turn .hand-tile:not(.blocked)')", timeout=20_000)
    after = (hand_labels(page), river_labels(page), page.locator("[data-testid=tiles-left]").inner_text())
    assert after == before
    assert page.evaluate("() => localStorage.getItem('sanma.token')") == token
    assert page.locator("#overlay").is_hidden()


@pytest.mark.slow
def test_language_switch_changes_visible_text(browser: Browser, live: LiveServer) -> None:
    page = open_page(browser, live, DESKTOP, lang="id")
    page.wait_for_selector("#play")
    assert page.inner_text("#play") == "Main"
    assert "Satu tangan" in page.inner_text("#start")
    page.click("button[data-lang=en]")
    assert page.inner_text("#play") == "Play"
    assert "One hand" in page.inner_text("#start")
    page.reload()
    page.wait_for_selector("#play")
    assert page.inner_text("#play") == "Play"  # remembered
    start_match(page)
    assert "Tiles left" in page.inner_text(".centre")
    page.click("#game-lang button[data-lang=id]")
    assert "Sisa ubin" in page.inner_text(".centre")


@pytest.mark.slow
def test_phone_landscape_has_no_overflow(browser: Browser, live: LiveServer, shots: Path) -> None:
    page = open_page(browser, live, PHONE)
    page.wait_for_selector("#play")
    page.screenshot(path=str(shots / "phone-start.png"))
    start_match(page)
    page.wait_for_function(ACTIONABLE, timeout=20_000)
    assert_no_overflow(page)
    counts = play_to_match_end(page, shots, "phone")
    assert counts.get("match-end") == 1


@pytest.mark.slow
def test_no_calls_toggle_skips_pon_offers_and_is_remembered(browser: Browser, live: LiveServer) -> None:
    page = open_page(browser, live, DESKTOP)
    start_match(page)
    toggle = page.locator("#toggles [data-toggle=no_calls]")
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    page.reload()
    page.wait_for_selector(".hand-tile")
    assert page.locator("#toggles [data-toggle=no_calls]").get_attribute("aria-pressed") == "true"
    counts: dict[str, int] = {}
    while (what := step(page)) not in ("hand-end", "match-end"):
        counts[what] = counts.get(what, 0) + 1
    # The same seeded hand as the clicked match, where the one pon offer needed a Skip click.
    assert counts.get("pass", 0) == 0 and counts.get("discard", 0) >= 1, counts
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.slow
def test_rules_panel_in_both_languages_from_start_and_table(browser: Browser, live: LiveServer, shots: Path) -> None:
    page = open_page(browser, live, DESKTOP, lang="id")
    page.wait_for_selector("#play")
    page.click("#start [data-cmd=rules]")
    rules = page.locator("[data-testid=rules]")
    rules.locator(".rules-section").first.wait_for()
    text = rules.inner_text()
    assert "108 ubin" in text and "Tidak ada chi" in text and "Kerugian tsumo" in text
    assert rules.locator(".yaku-table tbody tr").count() >= 30  # yaku and yakuman, closed/open han
    if os.environ.get("SANMA_SCREENSHOTS"):
        page.screenshot(path=str(shots / "desktop-rules.png"))
    rules.locator("button[data-lang=en]").click()
    text = page.locator("[data-testid=rules]").inner_text()
    assert "108 tiles" in text and "There is no chi" in text and "Tsumo loss" in text
    page.keyboard.press("Escape")
    assert page.locator("#sheet").is_hidden()
    # From the table's menu too, over a live hand, without disturbing it.
    start_match(page)
    page.click("#menu-btn")
    page.click("#menu [data-cmd=rules]")
    page.locator("[data-testid=rules] .rules-section").first.wait_for()
    assert "Furiten" in page.locator("[data-testid=rules]").inner_text()
    page.click("[data-cmd=close-rules]")
    assert page.locator("#sheet").is_hidden()
    assert step(page) in ("discard", "pass", "riichi", "tsumo", "ron")
    assert page.errors == []  # type: ignore[attr-defined]


# -- the aids against the engine (seeded deal: tests/test_aids.py's AIDS_SEED) --------------

POINTER_AWAY = (2, 2)  # a corner of the page, so no hand tile is hovered


def _shown_waits(page: Page, box: str) -> list[list[Any]]:
    return [
        [w, int(n)]
        for w, n in page.locator(f"{box} .wait").evaluate_all(
            "els => els.map(e => [e.dataset.wait, e.querySelector('b').textContent])"
        )
    ]


def _click_action(page: Page, wire: dict[str, Any]) -> None:
    if wire["type"] == "discard":
        page.locator(f".hand.my-turn .hand-tile[data-tile='{wire['tile']}']:not(.blocked)").first.click()
    else:
        page.locator(f"#actions .action-{wire['type']}").first.click()


@pytest.mark.slow
def test_aids_strip_why_not_riichi_and_wait_preview_match_the_engine(browser: Browser, tmp_path: Path) -> None:
    settings = Settings(port=free_port(), data_dir=tmp_path / "data", bot_delay_s=0.0, rate_per_s=200.0, rate_burst=400)
    live = LiveServer(settings, seed_source=lambda: AIDS_SEED)
    try:
        page = open_page(browser, live, DESKTOP)
        start_match(page)
        match = str(page.evaluate("() => localStorage.getItem('sanma.match')"))
        checked: set[str] = set()
        for _ in range(200):
            page.mouse.move(*POINTER_AWAY)
            page.wait_for_function(ACTIONABLE, timeout=20_000)
            if page.locator("#overlay .panel").count():
                break
            log = full_log(settings, match)
            state = replay(log)
            legal = state.legal_actions(0)
            expected = expected_aids(log, len(log), 0)
            # (a) the strip: waits with unseen counts, the furiten badge naming its kind.
            assert _shown_waits(page, "[data-testid=waits]") == expected["waits"]
            badge = page.locator("[data-testid=furiten]")
            if expected["furiten"] == "none":
                assert badge.count() == 0
            else:
                assert badge.get_attribute("data-furiten") == expected["furiten"]
                checked.add(f"furiten {expected['furiten']}")
            # (b) a complete hand that may not win says why.
            why = page.locator("[data-testid=why-not]")
            assert (why.get_attribute("data-why") if why.count() else None) == expected["why_not"]
            if expected["why_not"]:
                assert page.locator("#actions .action-tsumo, #actions .action-ron").count() == 0
                checked.add(f"why_not {expected['why_not']}")
            riichi_tiles = {wire_tile(a.tile, True) for a in legal if isinstance(a, Discard) and a.riichi}
            if riichi_tiles and "riichi" not in checked:
                _check_riichi_discards(page, riichi_tiles)
                checked.add("riichi")
            if expected["discard_waits"] and "preview" not in checked:
                _check_wait_preview(page, expected["discard_waits"])
                checked.add("preview")
            _click_action(page, action_to_wire(eager_choice(state.kyoku, 0, legal), True))
        assert {"furiten discard", "why_not no_yaku", "riichi", "preview"} <= checked, checked
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        live.stop()


def _clickable_tiles(page: Page) -> set[str]:
    return set(
        page.locator(".hand.my-turn .hand-tile:not(.blocked)").evaluate_all("els => els.map(e => e.dataset.tile)")
    )


def _check_riichi_discards(page: Page, riichi_tiles: set[str]) -> None:
    """(c) With Riichi pressed only the legal riichi discards may be clicked; a blocked
    tile does nothing; pressing Riichi again gives every discard back."""
    every = _clickable_tiles(page)
    assert riichi_tiles < every  # this seed's moment has tiles that cannot declare riichi
    page.click("#actions .action-riichi")
    assert page.locator("#actions .action-riichi").get_attribute("aria-pressed") == "true"
    assert _clickable_tiles(page) == riichi_tiles
    blocked = page.locator(".hand.my-turn .hand-tile.blocked")
    assert blocked.count() >= 1 and blocked.first.get_attribute("aria-disabled") == "true"
    hand = hand_labels(page)
    blocked.first.click(force=True)  # aria-disabled: Playwright would wait for it to enable
    page.wait_for_timeout(150)
    assert hand_labels(page) == hand and page.locator(".hand.my-turn").count() == 1
    page.click("#actions .action-riichi")
    assert _clickable_tiles(page) == every


def _check_wait_preview(page: Page, previews: dict[str, Any]) -> None:
    """(d) Hovering a tile shows the waits its discard would leave (and "no longer tenpai"
    for one that breaks tenpai); keyboard focus does the same."""
    tiles = page.locator(".hand.my-turn .hand-tile:not(.blocked)")
    names = [str(x) for x in tiles.evaluate_all("els => els.map(e => e.dataset.tile)")]
    keeping = [i for i, name in enumerate(names) if name in previews]
    breaking = [i for i, name in enumerate(names) if name not in previews]
    assert keeping
    tiles.nth(keeping[0]).hover()
    shown = page.locator("[data-testid=preview]")
    assert shown.get_attribute("data-tile") == names[keeping[0]]
    assert _shown_waits(page, "[data-testid=preview]") == previews[names[keeping[0]]]["waits"]
    assert "keeps-tenpai" in (tiles.nth(keeping[0]).get_attribute("class") or "")
    if os.environ.get("SANMA_SCREENSHOTS"):
        page.screenshot(path=str(SHOTS / "desktop-wait-preview.png"))
    if breaking:
        tiles.nth(breaking[0]).hover()
        assert shown.get_attribute("data-tile") == names[breaking[0]]
        assert shown.locator(".wait").count() == 0 and "tenpai" in shown.inner_text()
    page.mouse.move(*POINTER_AWAY)
    assert page.locator("[data-testid=preview]").count() == 0
    # Keyboard: the arrows move the focus along the hand, the preview follows it.
    page.keyboard.press("ArrowRight")
    focused = str(page.evaluate("() => document.activeElement.dataset.tile"))
    if focused in previews:
        assert _shown_waits(page, "[data-testid=preview]") == previews[focused]["waits"]
    page.mouse.move(*POINTER_AWAY)


# -- the interactive guide ------------------------------------------------------------------

GUIDE = json.loads((Path(__file__).resolve().parents[1] / "web/src/guide/examples.json").read_text(encoding="utf-8"))


def _expand(mpsz: str) -> list[str]:
    out, digits = [], ""
    for c in mpsz:
        if c.isdigit():
            digits += c
        else:
            out += [d + c for d in digits]
            digits = ""
    return out


def _stage_tiles(page: Page) -> list[str]:
    labels = page.locator("[data-testid=guide] .g-hand .g-tile").evaluate_all("els => els.map(e => e.ariaLabel)")
    return [str(x) for x in labels]


@pytest.mark.slow
@pytest.mark.parametrize(("viewport", "name"), [(DESKTOP, "desktop"), (PHONE, "phone")])
def test_guide_steps_change_the_tiles_by_click_and_keyboard(
    browser: Browser, live: LiveServer, shots: Path, viewport: dict[str, int], name: str
) -> None:
    page = open_page(browser, live, viewport)
    page.wait_for_selector("#play")
    page.click("#start [data-cmd=rules]")
    guide = page.locator("[data-testid=guide]")
    guide.wait_for()
    examples = GUIDE["examples"]
    assert guide.locator("[data-guide-ex]").count() == len(examples)
    kita = next(i for i, e in enumerate(examples) if e["id"] == "kita")
    guide.locator(f"[data-guide-ex='{kita}']").click()
    steps = examples[kita]["steps"]
    assert guide.locator(".g-steps button").count() == len(steps)
    first = _stage_tiles(page)
    assert len(first) == len(_expand(steps[0]["hand"])) + ("drawn" in steps[0])
    assert guide.locator(".g-melds .kita").count() == 0
    caption = guide.locator("[data-testid=guide-caption]").inner_text()
    assert guide.locator("[data-guide-go='-1']").is_disabled()
    page.click("[data-testid=guide] [data-guide-go='1']")
    # Step 2: the North is set aside (kita pile) and a replacement tile is drawn.
    assert page.locator("[data-testid=guide] .g-body").get_attribute("data-step") == "1"
    assert page.locator("[data-testid=guide] .g-melds .kita").count() == 1
    assert _stage_tiles(page) != first
    assert page.locator("[data-testid=guide-caption]").inner_text() != caption
    # Keyboard: the focus stays on Next, the arrows step on and back.
    assert page.evaluate("() => document.activeElement.dataset.guideGo") == "1"
    page.keyboard.press("ArrowRight")
    assert page.locator("[data-testid=guide] .g-body").get_attribute("data-step") == "2"
    page.keyboard.press("ArrowLeft")
    assert page.locator("[data-testid=guide] .g-body").get_attribute("data-step") == "1"
    # Tiles carry their spoken names; the caption's tiles too.
    assert all(_stage_tiles(page)) and page.locator("[data-testid=guide-caption] .tile[aria-label]").count() >= 1
    # Every example, every step, renders its hand (data -> tiles), in both languages.
    for i, example in enumerate(examples):
        page.click(f"[data-testid=guide] [data-guide-ex='{i}']")
        for j, step in enumerate(example["steps"]):  # noqa: F402 - a guide step, not the helper
            page.click(f"[data-testid=guide] [data-guide-step='{j}']")
            assert len(_stage_tiles(page)) == len(_expand(step["hand"])) + ("drawn" in step), (example["id"], j)
            assert page.locator(".g-top [data-testid=guide-indicators] .tile").count() == len(_expand(step["dora"]))
            for meld in step.get("melds", []):  # every tile of every meld is drawn
                shown = page.locator(f"[data-testid=guide] .g-melds .meld-{meld['type']} .tile")
                assert shown.count() == len(_expand(meld["tiles"])), (example["id"], j, meld)
                if meld["type"] == "kakan":  # the added tile lies on the called one
                    upper, lower = (
                        page.locator("[data-testid=guide] .kakan-stack .tile").nth(k).bounding_box() for k in (0, 1)
                    )
                    assert upper is not None and lower is not None
                    assert upper["y"] < lower["y"] and abs(upper["x"] - lower["x"]) < 1
    page.click(f"[data-testid=guide] [data-guide-ex='{kita}']")
    page.click("[data-testid=guide] [data-guide-step='1']")
    if os.environ.get("SANMA_SCREENSHOTS"):
        page.locator("#rules-guide").scroll_into_view_if_needed()
        page.screenshot(path=str(shots / f"{name}-guide.png"))
    page.locator("[data-testid=rules] button[data-lang=id]").click()
    assert "Utara" in page.locator("[data-testid=guide-caption]").inner_text()
    assert page.locator("[data-testid=guide] .g-body").get_attribute("data-step") == "1"  # the step is kept
    if name == "phone":
        size = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
        assert size[0] <= size[1]
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.slow
def test_speed_control_is_remembered_and_the_server_honours_it(browser: Browser, tmp_path: Path) -> None:
    delay = 10.0  # one paced bot turn takes longer than the whole instant run, however busy the machine
    settings = Settings(
        port=free_port(), data_dir=tmp_path / "data", bot_delay_s=delay, rate_per_s=200.0, rate_burst=400
    )
    live = LiveServer(settings, seed_source=lambda: SEEDS[0])
    try:
        page = open_page(browser, live, DESKTOP)
        start_match(page)
        speed = page.locator("#toggles [data-cmd=speed]")
        assert speed.get_attribute("data-speed") == "normal"
        speed.click()
        speed.click()
        assert page.locator("#toggles [data-cmd=speed]").get_attribute("data-speed") == "instant"
        page.reload()  # remembered, and sent again after the new welcome
        page.wait_for_selector(".hand-tile")
        assert page.locator("#toggles [data-cmd=speed]").get_attribute("data-speed") == "instant"
        discards = 0
        start = time.monotonic()
        while discards < 3:
            what = step(page)
            assert what not in ("hand-end", "match-end")
            discards += what == "discard"
        # Each discard is followed by two bot turns, each at least ``delay`` when paced: six of
        # them took less than one.
        page.wait_for_function(ACTIONABLE, timeout=20_000)
        assert time.monotonic() - start < delay
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        live.stop()


def _own_discards(settings: Settings, match: str) -> list[str]:
    """Seat 0's discards so far in the stored log, as wire tiles."""
    return [wire_tile(e.tile, True) for e in full_log(settings, match) if isinstance(e, TileDiscarded) and e.seat == 0]


@pytest.mark.slow
def test_wait_preview_on_the_first_tap_of_a_touch_screen(browser: Browser, tmp_path: Path) -> None:
    """On a touch screen the first tap raises a tile and shows the waits its discard leaves;
    the second tap discards it."""
    settings = Settings(port=free_port(), data_dir=tmp_path / "data", bot_delay_s=0.0, rate_per_s=200.0, rate_burst=400)
    live = LiveServer(settings, seed_source=lambda: AIDS_SEED)
    try:
        context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)  # type: ignore[arg-type]
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.add_init_script("localStorage.setItem('sanma.lang', 'en')")
        page.goto(live.http + "/")
        start_match(page)
        match = str(page.evaluate("() => localStorage.getItem('sanma.match')"))
        for _ in range(60):
            page.wait_for_function(ACTIONABLE, timeout=20_000)
            assert not page.locator("#overlay .panel").count(), "no tenpai choice before the hand ended"
            log = full_log(settings, match)
            state = replay(log)
            legal = state.legal_actions(0)
            previews = expected_aids(log, len(log), 0)["discard_waits"]
            tiles = page.locator(".hand.my-turn .hand-tile:not(.blocked)")
            names = [str(x) for x in tiles.evaluate_all("els => els.map(e => e.dataset.tile)")]
            keeping = [i for i, name in enumerate(names) if name in previews]
            if not keeping:
                choice = action_to_wire(eager_choice(state.kyoku, 0, legal), True)
                if choice["type"] == "discard":  # tapped twice, as a touch player does
                    tile = page.locator(f".hand.my-turn .hand-tile[data-tile='{choice['tile']}']:not(.blocked)").first
                    tile.tap()
                    tile = page.locator(f".hand.my-turn .hand-tile[data-tile='{choice['tile']}'].raised").first
                    tile.tap()
                else:
                    page.locator(f"#actions .action-{choice['type']}").first.tap()
                continue
            before = hand_labels(page)
            # A mouse resting over another hand tile (a touch laptop, or the spot where an
            # earlier click left it) gets a hover event when the tap redraws the hand under
            # it; the tapped tile's preview must still win.
            other = next(i for i, name in enumerate(names) if name != names[keeping[0]])
            box = tiles.nth(other).bounding_box()
            assert box is not None
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            tiles.nth(keeping[0]).tap()
            raised = page.locator(".hand-tile.raised")
            assert raised.count() == 1 and raised.get_attribute("data-tile") == names[keeping[0]]
            assert page.locator("[data-testid=preview]").get_attribute("data-tile") == names[keeping[0]]
            assert _shown_waits(page, "[data-testid=preview]") == previews[names[keeping[0]]]["waits"]
            assert hand_labels(page) == before  # not discarded yet
            discards = _own_discards(settings, match)
            raised.tap()
            # The server's log, not the page, says the second tap discarded: with bots at no
            # delay the next draw can come back before the page is polled between the two.
            deadline = time.monotonic() + 20
            while _own_discards(settings, match) == discards:
                assert time.monotonic() < deadline, "the second tap did not discard"
                time.sleep(0.05)
            assert _own_discards(settings, match)[len(discards)] == names[keeping[0]]
            break
        else:
            raise AssertionError("no tenpai choice reached")
        assert errors == []
        context.close()
    finally:
        live.stop()
