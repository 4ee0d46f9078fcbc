"""Render the app icon (web/assets/app-icon.svg) to the PNG sizes the web app manifest lists,
with the same Chromium the browser tests use.  Run after changing the icon:

    .venv/bin/python scripts/render_icons.py
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import sync_playwright

ASSETS = Path(__file__).resolve().parent.parent / "web" / "assets"
SIZES = (192, 512)


def main() -> None:
    svg = (ASSETS / "app-icon.svg").read_text()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        try:
            for size in SIZES:
                page = browser.new_page(viewport={"width": size, "height": size})
                page.set_content(f'<style>html,body{{margin:0}}svg{{display:block;width:{size}px;height:{size}px}}</style>{svg}')
                page.screenshot(path=str(ASSETS / f"app-icon-{size}.png"), omit_background=False)
                page.close()
        finally:
            browser.close()


if __name__ == "__main__":
    main()
