"""The client's one translation system: both languages have every key (with the same
placeholders), every key the code names exists, no module keeps texts of its own, and in
Chromium every visible text of the start screen, the table, the account sheet and the replay
viewer, in both languages, comes from the dictionaries (or is data: a number, a player's name,
a date, the game's own name)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.fixtures.i18n import DICTS, PLACEHOLDER, VISIBLE_TEXTS, WEB, outside_dictionaries
from tests.fixtures.replay_viewer import ended_match_in_history, open_history, page_for
from tests.fixtures.replays import shared_logs
from tests.fixtures.server import LiveServer, free_port


def test_both_languages_have_every_key_with_the_same_placeholders():
    en, id_ = DICTS["en"], DICTS["id"]
    assert sorted(set(en) ^ set(id_)) == []
    for key in en:
        assert en[key].strip() and id_[key].strip(), key
        assert set(PLACEHOLDER.findall(en[key])) == set(PLACEHOLDER.findall(id_[key])), key


# Every dictionary and rules file on disk, offered (``LANGS`` in i18n.js) or not yet: Japanese and
# Russian are written ahead of their wiring, and must not drift from English meanwhile.
WRITTEN = sorted(path.stem for path in (WEB / "src" / "i18n").glob("*.json"))


@pytest.mark.parametrize("lang", [lang for lang in WRITTEN if lang != "en"])
def test_every_written_dictionary_has_every_key_with_the_same_placeholders(lang: str) -> None:
    en = DICTS["en"]
    other = json.loads((WEB / "src" / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    assert sorted(set(en) ^ set(other)) == []
    for key, text in en.items():
        assert other[key].strip(), key
        assert sorted(PLACEHOLDER.findall(other[key])) == sorted(PLACEHOLDER.findall(text)), key


def _shape(value: object) -> object:
    """A JSON value with its prose taken out: keys, list lengths and what is not prose
    (an ``id``, a number, a han cell) are what every language's rules share."""
    if isinstance(value, dict):
        return {key: item if key == "id" else _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(item) for item in value]
    return type(value).__name__


@pytest.mark.parametrize("lang", sorted(p.stem for p in (WEB / "src" / "rules").glob("*.json") if p.stem != "en"))
def test_every_rules_text_has_the_english_ones_sections_and_tables(lang: str) -> None:
    en = json.loads((WEB / "src" / "rules" / "en.json").read_text(encoding="utf-8"))
    other = json.loads((WEB / "src" / "rules" / f"{lang}.json").read_text(encoding="utf-8"))
    assert _shape(other) == _shape(en)
    assert lang in WRITTEN  # rules.js names its yaku from the dictionary of the same language


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
@pytest.mark.parametrize("lang", ["en", "id"])
def test_every_visible_text_of_the_account_sheet_and_the_viewer_is_translated(browser, live, lang):
    page = page_for(browser, live)
    page.evaluate("l => localStorage.setItem('sanma.lang', l)", lang)
    page.reload()
    page.wait_for_selector("#play")
    match, _ = ended_match_in_history(page, live)
    # Data: the practice bots' names (render/table.js), the shop's items (named in both
    # languages by the server's catalogue).
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


@pytest.mark.parametrize("lang", ["en", "id"])
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
    data = {"Sanma", "EN", "ID", "Kenji", "Sari"}
    assert len(seen) > 30
    bad = sorted(set(outside_dictionaries(seen, lang, data)))
    assert bad == [], bad
