"""Regenerate docs/screenshots/ for every viewport of issue 11, in one run.

Starts the real server (uvicorn in a thread, a temporary SQLite file, the browser tests' first
seed), drives Debian's Chromium with Playwright and writes, per viewport,
``docs/screenshots/<viewport>/<screen>.png`` for: start, table (after six discards), hand-end,
match-end, rules, guide, rooms (the create / join sheet), rooms-lobby, account (profile),
account-shop, account-history and account-stats.  The desktop 1280x800 and phone 844x390 shots also refresh
the flat names docs/web.md links (``desktop-table.png``, ``phone-hand-end.png``...).
``--lang id`` (or ``ja``, ``ru``: any language of web/src/i18n/) writes
``docs/screenshots/<viewport>-<lang>/`` instead; ``--out DIR`` writes under DIR rather than
docs/screenshots (to look at the shots before committing some of them).

    .venv/bin/python scripts/screenshots.py            # every viewport
    .venv/bin/python scripts/screenshots.py portrait-390 desktop-1280
    .venv/bin/python scripts/screenshots.py --lang ja --out /tmp/shots desktop-1280

Phones are touch contexts (has_touch), as a player's phone is.  About 20 s a viewport."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

from sanma.server.settings import Settings  # noqa: E402
from tests.fixtures.browser import ACTIONABLE, CHROMIUM, CHROMIUM_ARGS, start_match, step  # noqa: E402
from tests.fixtures.layout import VIEWPORTS  # noqa: E402  (name: (width, height, touch))
from tests.fixtures.server import SEEDS, LiveServer, free_port  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
LANGS = sorted(path.stem for path in (ROOT / "web" / "src" / "i18n").glob("*.json"))
FLAT = {"desktop-1280": "desktop", "landscape-844": "phone"}  # the names docs/web.md links


def shoot(page: Page, viewport: str, screen: str) -> None:
    lang = page.evaluate("() => document.documentElement.lang")
    folder = OUT / (viewport if lang == "en" else f"{viewport}-{lang}")
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{screen}.png"))
    if lang == "en" and viewport in FLAT and screen in ("start", "table", "hand-end", "match-end", "rules", "guide"):
        page.screenshot(path=str(OUT / f"{FLAT[viewport]}-{screen}.png"))


def new_page(browser: Browser, live: LiveServer, width: int, height: int, touch: bool, lang: str) -> Page:
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch)
    page = context.new_page()
    page.add_init_script(f"localStorage.setItem('sanma.lang', '{lang}')")
    page.goto(live.http + "/")
    page.wait_for_selector("#play")
    return page


def quiet(page: Page) -> None:
    """Wait until nothing moves and no call-out is up, so a shot shows the table at rest."""
    page.wait_for_function(
        "() => !document.querySelector('.callout') && document.getAnimations().every((a) => a.playState !== 'running')",
        timeout=10_000,
    )


def play_match(page: Page, viewport: str) -> None:
    start_match(page)
    discards = 0
    for _ in range(400):
        what = step(page)
        discards += what == "discard"
        if what == "discard" and discards == 6:
            page.wait_for_function(ACTIONABLE, timeout=20_000)
            page.mouse.move(2, 2)
            quiet(page)
            shoot(page, viewport, "table")
        elif what == "hand-end":
            quiet(page)
            shoot(page, viewport, "hand-end")
            page.click("[data-panel=next]")
        elif what == "match-end":
            quiet(page)
            shoot(page, viewport, "match-end")
            page.click("[data-panel=again]")
            page.wait_for_selector("#play")
            return
    raise RuntimeError(f"{viewport}: the match did not end")


def rules_and_guide(page: Page, viewport: str) -> None:
    page.click("#start [data-cmd=rules]")
    page.locator("[data-testid=rules] .rules-section").first.wait_for()
    page.locator("#rules-yaku").scroll_into_view_if_needed()
    shoot(page, viewport, "rules")
    page.locator("[data-testid=guide] [data-guide-go='1']").click()
    page.locator("#rules-guide").scroll_into_view_if_needed()
    shoot(page, viewport, "guide")
    page.keyboard.press("Escape")


def rooms(page: Page, viewport: str) -> None:
    page.click("[data-room-cmd=open]")
    page.wait_for_selector("[data-room-cmd=create]")
    shoot(page, viewport, "rooms")
    page.click("[data-room-cmd=create]")
    page.wait_for_selector(".room-code strong")
    shoot(page, viewport, "rooms-lobby")


def account(page: Page, viewport: str) -> None:
    page.click("#account-btn")
    page.wait_for_selector("#account-panel")
    shoot(page, viewport, "account")
    for tab in ("shop", "history", "stats"):
        page.click(f"[data-acct-tab={tab}]")
        page.wait_for_timeout(300)  # the tab's list comes from the API
        shoot(page, viewport, f"account-{tab}")


def run(names: list[str], lang: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            port=free_port(), data_dir=Path(tmp) / "data", bot_delay_s=0.0, rate_per_s=500.0, rate_burst=1000
        )
        live = LiveServer(settings, seed_source=lambda: SEEDS[0])
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for name in names:
                    width, height, touch = VIEWPORTS[name]
                    page = new_page(browser, live, width, height, touch, lang)
                    shoot(page, name, "start")
                    play_match(page, name)
                    rules_and_guide(page, name)
                    account(page, name)
                    page.goto(live.http + "/")
                    page.wait_for_selector("#play")
                    rooms(page, name)
                    page.context.close()
                    folder = OUT / (name if lang == "en" else f"{name}-{lang}")
                    print(f"{name}: {len(list(folder.glob('*.png')))} shots in {folder}")
                browser.close()
        finally:
            live.stop()


def main() -> None:
    global OUT  # --out: every shot's folder is under it
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("viewports", nargs="*", help=f"default: all of {', '.join(VIEWPORTS)}")
    parser.add_argument("--lang", default="en", choices=LANGS)
    parser.add_argument("--out", type=Path, default=OUT, help="where the shots go (default: docs/screenshots)")
    args = parser.parse_args()
    unknown = [v for v in args.viewports if v not in VIEWPORTS]
    if unknown:
        parser.error(f"unknown viewport(s): {', '.join(unknown)}")
    OUT = args.out
    run(args.viewports or list(VIEWPORTS), args.lang)


if __name__ == "__main__":
    main()
