"""The web client's one DOM builder (docs/architecture.md, "One DOM builder"): markup comes
from the `html` template of web/src/render/common.js, which escapes every value put in it, and
goes into the page only through `mount` / `nodeOf` there; events are caught by delegation.

Static checks over web/src hold the rule; browser checks show that a name made of markup
(another player's, an opened log's) is shown as text everywhere it appears."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.browser import DESKTOP, open_page
from tests.fixtures.server import LiveServer

SRC = Path(__file__).resolve().parents[1] / "web" / "src"
BUILDER = SRC / "render" / "common.js"
SOURCES = sorted(p for p in SRC.rglob("*.js") if p != BUILDER)
XSS = "<img src=x onerror=window.__pwned=1>"


def _code(path: Path) -> str:
    """The file without its comments (a comment may name what the code must not do)."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(?m)^\s*//.*$|\s//\s.*$", "", text)


def _offenders(pattern: str, files: list[Path] = SOURCES) -> list[str]:
    found = []
    for path in files:
        for n, line in enumerate(_code(path).splitlines(), 1):
            if re.search(pattern, line):
                found.append(f"{path.relative_to(SRC)}:{n}: {line.strip()}")
    return found


def test_the_sources_are_there() -> None:
    assert len(SOURCES) > 15 and BUILDER.exists()
    assert "export function html(" in BUILDER.read_text(encoding="utf-8")


def test_html_is_parsed_only_by_the_builder() -> None:
    """No innerHTML, outerHTML, insertAdjacentHTML, document.write or createElement outside
    render/common.js: every element comes from markup made by `html`."""
    assert _offenders(r"\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|createElement\b") == []


def test_there_is_no_second_builder() -> None:
    """No h() element builder, no hand-escaped strings (esc), no Markup made outside the builder."""
    assert _offenders(r"\bfunction h\(|\bh\(\"|\besc\(|new Markup\b|\bimport\b.*\besc\b") == []


def test_no_inline_style_in_markup() -> None:
    """The content security policy (style-src 'self') refuses style attributes in parsed markup:
    styles go through the CSSOM (el.style) instead."""
    assert _offenders(r"style=\\?\"") == []


def test_events_are_delegated() -> None:
    """Listeners sit on the document or on a screen's root (the replay viewer, the builder's
    `delegate`), never on each button."""
    listeners = _offenders(r"\.addEventListener\(")
    allowed = re.compile(r"(document|root|el)\.addEventListener\(")
    assert [x for x in listeners if not allowed.search(x)] == []
    per_element = [x for x in listeners if "el.addEventListener" in x]
    assert all(x.startswith("replay.js:") for x in per_element), per_element  # the viewer's root


def test_one_fetch_wrapper_and_one_token_key() -> None:
    """API calls go through api.js `request`; only api.js knows where the token is kept. The
    other fetches load the client's own JSON files (texts, rules, the guide)."""
    fetches = _offenders(r"\bfetch\(")
    own_files = ("fetch(`src/", 'fetch("src/')
    assert [x for x in fetches if not x.startswith("api.js:") and not any(f in x for f in own_files)] == []
    assert [x for x in _offenders(r"sanma\.token") if not x.startswith("api.js:")] == []


# -- in the browser ----------------------------------------------------------------------------


@pytest.fixture
def page(browser: Any, live: LiveServer) -> Iterator[Any]:
    page = open_page(browser, live, DESKTOP)
    page.wait_for_function("() => document.readyState === 'complete'")
    page.wait_for_selector("#play")
    yield page
    assert not page.errors  # type: ignore[attr-defined]
    page.close()


def test_the_template_escapes_values_and_keeps_markup(page: Any) -> None:
    got = page.evaluate(
        """async (x) => {
          const { html, join, mount, nodeOf } = await import('/src/render/common.js');
          const inner = html`<b>${x}</b>`;
          const out = {
            text: String(html`<p title="${x}">${x}</p>`),
            nested: String(html`<i>${inner}</i>`),
            list: String(html`<ul>${[1, 2].map((n) => html`<li>${n}</li>`)}</ul>`),
            empty: String(html`${null}${undefined}${false}${0}`),
            joined: String(join([inner, "&"])),
          };
          try { mount(document.body, "<b>plain</b>"); out.plain = "mounted"; } catch (e) { out.plain = e.name; }
          const box = nodeOf(html`<div>${x}</div>`);
          out.node = [box.childElementCount, box.textContent];
          return out;
        }""",
        XSS,
    )
    esc = "&#60;img src=x onerror=window.__pwned=1&#62;"
    assert got["text"] == f'<p title="{esc}">{esc}</p>'
    assert got["nested"] == f"<i><b>{esc}</b></i>"
    assert got["list"] == "<ul><li>1</li><li>2</li></ul>"
    assert got["empty"] == "false0"
    assert got["joined"] == f"<b>{esc}</b>&#38;"
    assert got["plain"] == "TypeError"  # a plain string is never taken as markup
    assert got["node"] == [0, XSS]


def test_a_players_name_made_of_markup_shows_as_text_at_the_table_and_its_panels(page: Any) -> None:
    """A friend room's players named with markup: the board's nameplates, the hand-end scores
    and the match-end standings show the name as text, and nothing of it runs."""
    got = page.evaluate(
        """async (x) => {
          const { html, mount } = await import('/src/render/common.js');
          const table = await import('/src/render/table.js');
          const panels = await import('/src/render/panels.js');
          const { fold, newState } = await import('/src/state.js');
          table.setPlayers([{ seat: 0, name: 'Ana' }, { seat: 1, name: x }, { seat: 2, bot_level: 'normal' }]);
          const s = newState();
          s.seat = 0;
          fold(s, { type: 'MatchStarted', rules: { length: 'east', red_fives: true } });
          const hand = (t) => Array(13).fill(t);
          fold(s, { type: 'HandStarted', round_wind: '1z', dealer: 0, honba: 0, deposits: 0,
                    scores: [35000, 35000, 35000], hands: [hand('1m'), hand('?'), hand('?')],
                    dora_indicator: '3p', live_size: 55 });
          const box = document.createElement('div');
          document.body.append(box);
          const end = { type: 'MatchEnded', placements: [2, 1, 3], points: [30000, 45000, 30000],
                        final_scores: [-15, 40, -25] };
          const board = table.boardHtml(s);
          mount(box, html`<div class="board">${board}</div>${panels.matchEndHtml(end, 0, true, s.rules)}`);
          const text = (sel) => box.querySelector(sel)?.textContent;
          const out = { imgs: box.querySelectorAll('img').length, plate: text('.opponent[data-seat="1"] .name'),
                        row: text('.results tr[data-seat="1"] th'), pwned: window.__pwned === 1 };
          box.remove();
          table.setPlayers(null);
          return out;
        }""",
        XSS,
    )
    assert got == {"imgs": 0, "plate": XSS, "row": XSS, "pwned": False}


def test_a_history_row_and_a_replay_title_made_of_markup_show_as_text(page: Any) -> None:
    """The history's seats (a room match's players) and an opened log's title reach the page
    through the same template."""
    page.evaluate(
        """(x) => localStorage.setItem('sanma.history', JSON.stringify([{
             match: 'm-xss', kind: 'room', ended_at: '2026-01-01T00:00:00Z',
             rules: { length: 'east', red_fives: true }, placement: 1, points: 40000,
             seats: [{ seat: 0, you: true }, { seat: 1, name: x }, { seat: 2, bot_level: 'normal' }] }]))""",
        XSS,
    )
    page.click("#account-btn")
    page.wait_for_selector("#account-panel")
    page.click("[data-acct-tab=history]")
    page.wait_for_selector("#hist-local")
    assert XSS in page.inner_text("#hist-local .hist-seats")
    page.evaluate(
        """async (x) => (await import('/src/replay.js')).openViewer(
             { seat: 0, open: true, rules: {}, names: [x, null, null], bots: [null, null, null], events: [] },
             { title: x, spectator: true })""",
        XSS,
    )
    page.wait_for_selector("#replay-title")
    assert page.inner_text("#replay-title") == XSS
    assert page.locator("#account-sheet img, #replay-view img").count() == 0
    assert page.evaluate("() => window.__pwned === undefined")
