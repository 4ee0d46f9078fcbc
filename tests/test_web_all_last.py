"""Why a match ended (issue 24): a match the engine ends by all-last (agari-yame: the last
hand's dealer won or was tenpai and is then first) says so on the match-end panel; a match
that ran its course, or ended on points below zero, says nothing more; a match an operator
ended (``sanma admin end``) says that.

Real matches: the engine plays East and East-South matches between the demo's players
(``sanma demo``), each a full event log; the browser folds that log as seat 0 receives it
(redacted, on the wire) with its own state.js and ending.js, and its verdict is compared with
the engine's own: the match ended although its last hand's result kept the dealer.  The rules
page explains it in both languages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from sanma.cli.demo_cmd import play_match
from sanma.engine.match import Match
from sanma.engine.rules import PRESET_NAMES, Rules
from sanma.engine.visibility import redact
from sanma.server.codec import event_to_wire
from tests.fixtures.all_last import engine_all_last
from tests.fixtures.browser import DESKTOP, open_page

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser

    from tests.fixtures.server import LiveServer

RULES = Path(__file__).resolve().parents[1] / "web" / "src" / "rules"

# Folds a wire log as seat 0 and asks ending.js why the match ended; renders its line.
VERDICT = """async ([lang, events]) => {
    const i18n = await import("/src/i18n.js");
    const { fold, newState } = await import("/src/state.js");
    const { endReason, endReasonHtml, trackEnds } = await import("/src/ending.js");
    await i18n.loadI18n();
    i18n.setLang(lang);
    const state = newState();
    const ends = [];
    for (const e of events) {
      fold(state, e);
      trackEnds(ends, e);
    }
    const reason = endReason(state.rules, state.hand, ends, state.matchEnd);
    const box = document.createElement("div");
    box.innerHTML = endReasonHtml(reason) || "";
    return { reason, line: box.textContent.trim() };
}"""


def wire_log(match: Match) -> list[dict[str, Any]]:
    return [event_to_wire(redact(e, 0), match.rules.red_fives) for e in match.events]


def matches(length: str, seeds: range) -> list[Match]:
    return [play_match(seed, Rules(length=length)) for seed in seeds]


@pytest.mark.slow
@pytest.mark.parametrize(("length", "seeds"), [("east", range(24)), ("east-south", range(30, 38))])
def test_the_panel_says_all_last_exactly_when_the_engine_ended_the_match_so(
    browser: Browser, live: LiveServer, length: str, seeds: range
) -> None:
    page = open_page(browser, live, DESKTOP)
    page.wait_for_selector("#play")
    verdicts = {True: 0, False: 0}
    for match in matches(length, seeds):
        expected = engine_all_last(match)
        shown = page.evaluate(VERDICT, ["en", wire_log(match)])
        assert shown["reason"] == ("all_last" if expected else None), (length, match.seed)
        assert bool(shown["line"]) == expected
        verdicts[expected] += 1
    # Both kinds of end were met (the seeds are fixed: the demo players are deterministic).
    assert verdicts[True] >= 1 and verdicts[False] >= 1, verdicts
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()


@pytest.mark.slow
def test_the_line_reads_in_both_languages(browser: Browser, live: LiveServer) -> None:
    page = open_page(browser, live, DESKTOP)
    page.wait_for_selector("#play")
    match = next(m for m in matches("east", range(10)) if engine_all_last(m))
    en = page.evaluate(VERDICT, ["en", wire_log(match)])["line"]
    id_ = page.evaluate(VERDICT, ["id", wire_log(match)])["line"]
    assert "dealer" in en.lower() and "all-last" in en
    assert "dealer" in id_.lower() and "all-last" in id_ and en != id_
    page.close()


def test_an_operators_end_says_so_in_both_languages(browser: Browser, live: LiveServer) -> None:
    match = Match(5, Rules(length="east"))
    for _ in range(12):  # a few moves into the first hand, then the operator ends it
        seat = match.awaiting()[0]
        default = match.legal_actions(seat).default
        assert default is not None
        match.apply(seat, default)
    match.end_now()
    page = open_page(browser, live, DESKTOP)
    page.wait_for_selector("#play")
    en = page.evaluate(VERDICT, ["en", wire_log(match)])
    id_ = page.evaluate(VERDICT, ["id", wire_log(match)])
    assert en["reason"] == id_["reason"] == "operator"
    assert "operator" in en["line"] and "operator" in id_["line"].lower() and en["line"] != id_["line"]
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()


# Each language's words for all-last, agari-yame and tenpai, and for the three presets.
MATCH_END_WORDS = {
    "en": (("all-last", "agari-yame", "tenpai"), ("Default", "Tenhou", "Mahjong Soul")),
    "id": (("all-last", "agari-yame", "tenpai"), ("Default", "Tenhou", "Mahjong Soul")),
    "ja": (("オーラス", "アガリ止め", "聴牌"), ("標準", "天鳳", "雀魂")),
    "ru": (("олл-ласт", "агари-ямэ", "темпа"), ("по умолчанию", "Tenhou", "Mahjong Soul")),
}


@pytest.mark.parametrize("lang", MATCH_END_WORDS)
def test_the_rules_explain_how_a_match_ends(lang: str) -> None:
    rules = json.loads((RULES / f"{lang}.json").read_text(encoding="utf-8"))
    section = next(s for s in rules["sections"] if s["id"] == "match_end")
    text = " ".join(section["text"]).lower()
    # All-last by its names, the dealer's win or tenpai, first place, and every preset (the
    # engine has no option to turn it off: sanma/engine/match.py, presets.py).
    (all_last, agari_yame, tenpai), presets = MATCH_END_WORDS[lang]
    assert all(word.lower() in text for word in (all_last, agari_yame, tenpai))
    assert all(name.lower() in text for name in presets)
    assert set(PRESET_NAMES) == {"default", "tenhou", "mahjongsoul"}  # the three the text names
    faq = next(s for s in rules["sections"] if s["id"] == "faq")["qa"]
    assert any(all_last.lower() in a.lower() or agari_yame.lower() in a.lower() for _, a in faq)
