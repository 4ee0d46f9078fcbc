"""The client's one translation system: every language it offers (English, Indonesian, Japanese,
Russian) has its dictionary with every key of English's (the same placeholders), its rules text
and the guide's captions; the yaku names are the reviewed table of docs/yaku-names.md; every key
the code names exists, no module keeps texts of its own; each language writes numbers as Intl
does for it; and in Chromium every visible text of the start screen, the table, the account
sheet and the replay viewer, in every language, comes from the dictionaries (or is data: a
number, a player's name, a date, the game's own name)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fixtures.browser import ACTIONABLE, open_page, start_match
from tests.fixtures.i18n import DICTS, LANGS, OVERFLOWS, PLACEHOLDER, VISIBLE_TEXTS, WEB, outside_dictionaries
from tests.fixtures.layout import VIEWPORTS
from tests.fixtures.replay_viewer import ended_match_in_history, open_history, page_for
from tests.fixtures.replays import shared_logs
from tests.fixtures.server import LiveServer, free_port


def _json(*parts: str) -> Any:
    return json.loads(WEB.joinpath("src", *parts).read_text(encoding="utf-8"))


def test_every_language_offered_has_its_texts_and_no_other_is_written():
    assert LANGS[0] == "en" and len(set(LANGS)) == len(LANGS) >= 4
    assert sorted(path.stem for path in (WEB / "src" / "i18n").glob("*.json")) == sorted(LANGS)
    assert sorted(path.stem for path in (WEB / "src" / "rules").glob("*.json")) == sorted(LANGS)
    for example in _json("guide", "examples.json")["examples"]:
        assert sorted(example["title"]) == sorted(LANGS), example["id"]
        for step in example["steps"]:
            assert sorted(step["caption"]) == sorted(LANGS), example["id"]


@pytest.mark.parametrize("lang", LANGS[1:])
def test_every_dictionary_has_every_key_with_the_same_placeholders(lang: str) -> None:
    en, other = DICTS["en"], DICTS[lang]
    assert sorted(set(en) ^ set(other)) == []
    for key, text in en.items():
        assert text.strip() and other[key].strip(), key
        assert sorted(PLACEHOLDER.findall(other[key])) == sorted(PLACEHOLDER.findall(text)), key


def _shape(value: object) -> object:
    """A JSON value with its prose taken out: keys, list lengths and what is not prose
    (an ``id``, a number, a han cell) are what every language's rules share."""
    if isinstance(value, dict):
        return {key: item if key == "id" else _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(item) for item in value]
    return type(value).__name__


@pytest.mark.parametrize("lang", LANGS[1:])
def test_every_rules_text_has_the_english_ones_sections_and_tables(lang: str) -> None:
    assert _shape(_json("rules", f"{lang}.json")) == _shape(_json("rules", "en.json"))


YAKU_NAMES = WEB.parent / "docs" / "yaku-names.md"
COLUMNS = {"English": "en", "Indonesian": "id", "Japanese": "ja", "Russian": "ru"}


def reviewed_yaku_names() -> dict[str, dict[str, str]]:
    """docs/yaku-names.md's table: {language: {key: name}}, the languages by its header."""
    lines = [line for line in YAKU_NAMES.read_text(encoding="utf-8").splitlines() if line.startswith("| ")]
    cells = [[cell.strip().strip("`") for cell in line.strip("|").split("|")] for line in lines]
    header, rows = cells[0], cells[1:]
    assert header[0] == "Key" and sorted(COLUMNS[name] for name in header[1:]) == sorted(LANGS)
    return {COLUMNS[name]: {row[0]: row[i] for row in rows} for i, name in enumerate(header) if i}


def test_the_yaku_names_are_the_reviewed_table():
    table = reviewed_yaku_names()
    for lang in LANGS:
        names = {key.removeprefix("yaku."): text for key, text in DICTS[lang].items() if key.startswith("yaku.")}
        assert names == table[lang], lang
    # The Rules sheet names each row of its yaku tables by the dictionary's yaku.<id>.
    for lang in LANGS:
        ids = {row[0] for section in _json("rules", f"{lang}.json")["sections"] for row in section.get("yaku", [])}
        assert ids and ids <= set(table["en"]), lang


def _sources() -> list[Path]:
    return sorted((WEB / "src").rglob("*.js"))


def test_every_key_the_code_names_exists():
    missing = []
    for path in _sources():
        for key in re.findall(r"""\bt\(\s*["']([\w.]+)["']""", path.read_text(encoding="utf-8")):
            if key not in DICTS["en"]:
                missing.append(f"{path.name}: {key}")
    assert missing == []


def test_no_module_keeps_texts_of_its_own():
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        assert "const TEXTS" not in text and "function tr(" not in text, path.name
    core = (WEB / "src" / "account-core.js").read_text(encoding="utf-8")
    assert "Account" not in core and "Akun" not in core


def _strings(value: object) -> Iterator[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def indonesian_texts() -> Iterator[tuple[str, str]]:
    """(where, text) for every Indonesian text: the dictionary, the rules, the guide's captions
    and titles, and what the server writes in Indonesian (the code e-mails, the shop's names)."""
    from sanma.server.cosmetics import CATALOGUE
    from sanma.server.mail import code_message

    for key, text in DICTS["id"].items():
        yield f"i18n/id.json {key}", text
    rules = json.loads((WEB / "src" / "rules" / "id.json").read_text(encoding="utf-8"))
    for text in _strings(rules):
        yield "rules/id.json", text
    guide = json.loads((WEB / "src" / "guide" / "examples.json").read_text(encoding="utf-8"))
    for example in guide["examples"]:
        yield f"guide {example['id']}", example["title"]["id"]
        for step in example["steps"]:
            yield f"guide {example['id']}", step["caption"]["id"]
    for purpose in ("link", "recover"):
        message = code_message("a@example.org", "b@example.org", "123456", purpose, "id", 900)
        yield f"mail {purpose}", f"{message['Subject']}\n{message.get_content()}"
    for item in CATALOGUE:
        yield f"shop {item.id}", item.name_id


def test_indonesian_speaks_to_the_player_as_kamu_everywhere():
    # One register, the informal one of the table and the guide: "kamu" and "-mu", never the
    # formal "Anda".
    texts = list(indonesian_texts())
    assert len(texts) > 400
    formal = [(where, text) for where, text in texts if re.search(r"\banda\b", text, re.I)]
    assert formal == []
    assert any(re.search(r"\bkamu\b", text, re.I) for _, text in texts)


# -- what the browser shows ----------------------------------------------------------------------


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    from sanma.server.settings import Settings

    settings = Settings(
        port=free_port(), data_dir=tmp_path / "data", bot_delay_s=0.0, rate_per_s=500.0, rate_burst=1000
    )
    server = LiveServer(settings)
    yield server
    server.stop()


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
def test_every_visible_text_of_the_account_sheet_and_the_viewer_is_translated(browser, live, lang):
    page = page_for(browser, live)
    page.evaluate("l => localStorage.setItem('sanma.lang', l)", lang)
    page.reload()
    page.wait_for_selector("#play")
    match, _ = ended_match_in_history(page, live)
    # Data: the practice bots' names (render/table.js), the shop's items (named in every
    # language by the server's catalogue).
    data = {"Kenji", "Sari"}
    # The history names a practice match's bots with their level: data in a dictionary's frame.
    levels = [text for key, text in DICTS[lang].items() if key.startswith("level.")]
    frame = DICTS[lang]["acct.history.named_bot"]
    data |= {frame.format(name=bot, level=level) for bot in ("Kenji", "Sari") for level in levels}
    items = httpx.get(f"{live.http}/api/shop").json()["items"]
    data |= {item["name"][lang] for item in items}
    seen: list[str] = []
    roots = ["#account-sheet", "#replay-view"]
    for tab in ("profile", "shop"):
        if tab == "profile":
            page.click("#account-btn")
            page.wait_for_selector("#account-panel")
        page.click(f"[data-acct-tab={tab}]")
        page.wait_for_selector(f"[data-acct-tab={tab}][aria-pressed=true]")
        seen += page.evaluate(VISIBLE_TEXTS, roots)
    page.click("[data-acct-close]")
    open_history(page)
    seen += page.evaluate(VISIBLE_TEXTS, roots)
    page.click(f"[data-replay='{match}']")
    page.wait_for_selector("#replay-view #replay-step")
    for key in ("ArrowRight", "ArrowRight", "ArrowDown", "End"):
        page.keyboard.press(key)
        seen += page.evaluate(VISIBLE_TEXTS, roots)
    page.keyboard.press("ArrowLeft")  # the last hand's result
    seen += page.evaluate(VISIBLE_TEXTS, roots)
    page.keyboard.press("Escape")
    # An opened log: its players' names are data.
    path = shared_logs()[0]
    names = json.loads(path.read_text(encoding="utf-8"))["name"]
    data |= {n for n in names if n}
    page.set_input_files("#log-file", str(path))
    page.wait_for_selector("#replay-view #replay-step")
    page.keyboard.press("ArrowDown")
    seen += page.evaluate(VISIBLE_TEXTS, roots)
    data |= set(page.inner_text("#replay-title").split(" · "))  # the log's title: room name and players
    assert len(seen) > 100
    bad = sorted(set(outside_dictionaries(seen, lang, data)))
    assert bad == [], bad


@pytest.mark.parametrize("lang", LANGS)
def test_every_visible_text_of_the_start_screen_and_the_table_is_translated(browser, live, lang):
    page = page_for(browser, live)
    page.evaluate("l => localStorage.setItem('sanma.lang', l)", lang)
    page.reload()
    page.wait_for_selector("#play")
    seen = page.evaluate(VISIBLE_TEXTS, ["#start"])
    page.click("#play")
    page.wait_for_selector(".hand-tile")
    seen += page.evaluate(VISIBLE_TEXTS, ["#game"])
    # Data: the game's name on its logo, the language buttons' own codes, the bots' names.
    data = {"Sanma", "Kenji", "Sari"} | {code.upper() for code in LANGS}
    assert len(seen) > 30
    bad = sorted(set(outside_dictionaries(seen, lang, data)))
    assert bad == [], bad


# Each language's numbers by the page's own modules: whole points grouped by hand
# (render/common.js) as Intl groups them for the language, and the history's dates.
FORMATS = """async ([lang, numbers]) => {
    const i18n = await import("/src/i18n.js");
    const common = await import("/src/render/common.js");
    await i18n.loadI18n();
    i18n.setLang(lang);
    const intl = new Intl.NumberFormat(common.numberLocale());
    const when = new Date(Date.UTC(2026, 11, 3, 14, 5));
    return {
        points: numbers.map((n) => common.points(n)),
        intl: numbers.map((n) => intl.format(n)),
        date: when.toLocaleString(i18n.localeOf("date"), { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }),
    };
}"""
THIRTY_FIVE_THOUSAND = {"en": "35,000", "id": "35.000", "ja": "35,000", "ru": "35\u00a0000"}
DECEMBER = {"en": "Dec", "id": "Des", "ja": "2026/12/03", "ru": "дек"}


def test_every_language_writes_numbers_and_dates_its_own_way(browser, live):
    page = open_page(browser, live, {"width": 800, "height": 600})
    page.wait_for_selector("#play")
    numbers = [0, 7, 300, 1000, 3900, 35000, -12000, 100000, 1234567]
    for lang in LANGS:
        shown = page.evaluate(FORMATS, [lang, numbers])
        assert shown["points"] == shown["intl"], lang
        assert shown["points"][numbers.index(35000)] == THIRTY_FIVE_THOUSAND[lang]
        assert DECEMBER[lang] in shown["date"] and "2026" in shown["date"], (lang, shown["date"])
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()


def _fits(page, where: str) -> None:
    overflows = page.evaluate(OVERFLOWS)
    assert overflows == [], (where, overflows)


@pytest.mark.slow
@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang not in ("en", "id")])
def test_every_screen_fits_its_texts_at_the_three_viewports(browser, live, lang: str) -> None:
    # Japanese and Russian on the start screen, the settings, the rules, the account's tabs and
    # the table, at a desktop and a phone held both ways (phones are touch contexts).
    errors: list[str] = []
    for name in ("desktop-1280", "landscape-844", "portrait-390"):
        width, height, touch = VIEWPORTS[name]
        context = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.add_init_script(f"localStorage.setItem('sanma.lang', '{lang}')")
        page.goto(live.http + "/")
        page.wait_for_selector("#play")
        _fits(page, (name, "start"))
        page.click("#start [data-cmd=settings]")
        page.wait_for_selector("[data-testid=settings]")
        _fits(page, (name, "settings"))
        page.keyboard.press("Escape")
        page.click("#start [data-cmd=rules]")
        page.locator("[data-testid=rules] .rules-section").first.wait_for()
        _fits(page, (name, "rules"))
        page.keyboard.press("Escape")
        page.click("#account-btn")
        page.wait_for_selector("#account-panel")
        for tab in ("profile", "shop", "history", "stats"):
            page.click(f"[data-acct-tab={tab}]")
            page.wait_for_selector(f"[data-acct-tab={tab}][aria-pressed=true]")
            _fits(page, (name, "account", tab))
        page.click("[data-acct-close]")
        start_match(page)
        page.wait_for_function(ACTIONABLE, timeout=20_000)
        _fits(page, (name, "table"))
        assert errors == [], (name, errors)
        context.close()
