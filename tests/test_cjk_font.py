"""The client's CJK fallback font (web/assets/fonts/, scripts/cjk_font.py): it holds every kanji
and kana the client's files use, the CSS names it with the script's unicode-range after the
systems' own Japanese fonts, the real server sends it as a font, and a Chromium that sees no
system CJK font draws a Japanese page with it (and an English page never fetches it)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from scripts.cjk_font import FAMILY, WEIGHTS, client_characters, in_ranges, unicode_range
from tests.fixtures.browser import CHROMIUM, CHROMIUM_ARGS, _missing
from tests.fixtures.server import LiveServer

try:
    from fontTools.ttLib import TTFont
except ImportError:  # pragma: no cover - fontTools is in requirements-dev.txt
    TTFont = None

try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError:  # pragma: no cover - depends on the environment
    sync_playwright = None

STYLE = Path(__file__).resolve().parents[1] / "web" / "assets" / "style.css"
FACES = re.compile(r"@font-face\s*{([^}]*)}")
KANJI = "日"  # a character every system CJK font has: fc-list finds them by it


def _cmap(path: Path) -> set[str]:
    if TTFont is None:
        pytest.skip("fontTools is not installed (pip install -r requirements-dev.txt)")
    return {chr(code) for code in TTFont(str(path))["cmap"].getBestCmap()}


@pytest.mark.parametrize("weight", sorted(WEIGHTS))
def test_the_font_has_every_kanji_and_kana_the_client_shows(weight: str) -> None:
    chars = client_characters()
    assert "立" in chars and "ア" in chars and "。" in chars  # the Japanese texts were read
    missing = sorted(chars - _cmap(WEIGHTS[weight][0]))
    assert missing == [], f"run scripts/cjk_font.py: {''.join(missing)}"


def test_the_css_names_the_font_last_with_the_scripts_unicode_range() -> None:
    css = STYLE.read_text(encoding="utf-8")
    faces = [body for body in FACES.findall(css) if FAMILY in body]
    assert len(faces) == len(WEIGHTS)
    for (out, _source), body in zip(WEIGHTS.values(), faces, strict=True):
        assert f'url("fonts/{out.name}") format("woff2")' in body
        assert f"unicode-range: {unicode_range()};" in body
        assert "font-display: swap;" in body
    # After the systems' fonts in both stacks: a Japanese font of the system wins where present.
    for stack in ("--cjk-sans", "--cjk-serif"):
        line = re.search(rf"{stack}: ([^;]*);", css)
        assert line is not None and line.group(1).endswith(f'"{FAMILY}"'), stack
    assert not any(in_ranges(c) for c in "Riichi Риичи 0123456789,.%")


def test_the_server_sends_the_font_as_a_font(live: LiveServer) -> None:
    for out, _source in WEIGHTS.values():
        answer = httpx.get(f"{live.http}/assets/fonts/{out.name}")
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "font/woff2"
        assert answer.content == out.read_bytes()


# ---- the browser, with every system font that has kanji hidden from it ----


def _fontconfig(folder: Path) -> Path:
    """A fontconfig file: the system's configuration less every font that has a kanji."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        _missing("fc-list is missing (apt-get install -y fontconfig)")
    found = subprocess.run([fc_list, f":charset={ord(KANJI):x}", "file"], capture_output=True, text=True, check=True)
    files = sorted({line.split(":")[0].strip() for line in found.stdout.splitlines() if line.strip()})
    rejects = "".join(f"<glob>{f}</glob>" for f in files)
    conf = folder / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
        '<include ignore_missing="yes">/etc/fonts/fonts.conf</include>'
        f"<selectfont><rejectfont>{rejects}</rejectfont></selectfont>"
        f"<cachedir>{folder / 'cache'}</cachedir></fontconfig>",
        encoding="utf-8",
    )
    return conf


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """This module's Chromium: as tests/fixtures/browser.py's, but blind to system CJK fonts."""
    if sync_playwright is None:
        _missing("playwright is not installed")
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        _missing(f"{CHROMIUM} is missing (apt-get install -y chromium)")
    conf = _fontconfig(tmp_path_factory.mktemp("fontconfig"))
    with sync_playwright() as p:
        env = {**os.environ, "FONTCONFIG_FILE": str(conf)}
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, env=env)
        yield b
        b.close()


def _start_page(browser: Browser, live: LiveServer, lang: str) -> Page:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.add_init_script(f"localStorage.setItem('sanma.lang', '{lang}')")
    page.goto(live.http + "/")
    page.wait_for_selector("#play")
    page.evaluate("() => document.fonts.ready")
    return page


def _faces(page: Page) -> dict[str, str]:
    """The status of each weight of the shipped face: unloaded, loading, loaded or error."""
    return page.evaluate(
        """(family) => Object.fromEntries([...document.fonts]
          .filter((f) => f.family.replace(/"/g, "") === family).map((f) => [f.weight, f.status]))""",
        FAMILY,
    )


def _fonts_drawing(page: Page, selector: str) -> list[dict[str, Any]]:
    """The fonts Chromium drew the text of ``selector`` with (DevTools' platform fonts)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    return cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]


def test_a_japanese_page_draws_its_kanji_with_the_shipped_font(browser: Browser, live: LiveServer) -> None:
    page = _start_page(browser, live, "ja")
    text = page.inner_text("#play")
    assert any(in_ranges(c) for c in text), text
    page.wait_for_function(f"() => document.fonts.check('16px \"{FAMILY}\"', {text!r})", timeout=10_000)
    page.evaluate("() => document.fonts.ready.then(() => new Promise((done) => requestAnimationFrame(done)))")
    assert "loaded" in _faces(page).values()
    # Every kanji and kana came from it (none fell to a box of a Latin font), in the button and in
    # the texts drawn before the face had arrived (start.js lays them out again).
    for selector in ("#play", ".tagline", ".hint", "button[data-opt=length].on"):
        text = page.inner_text(selector)
        fonts = {f["familyName"]: f for f in _fonts_drawing(page, selector)}
        assert FAMILY in fonts and fonts[FAMILY]["isCustomFont"], (selector, fonts)
        assert fonts[FAMILY]["glyphCount"] == sum(1 for c in text if in_ranges(c)), (selector, fonts, text)
    page.context.close()


def test_an_english_page_never_fetches_the_font(browser: Browser, live: LiveServer) -> None:
    page = _start_page(browser, live, "en")
    assert set(_faces(page).values()) == {"unloaded"}
    page.context.close()
