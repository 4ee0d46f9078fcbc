"""The result texts and the end-of-match flow of the browser client (issue 11), in Chromium.

The hand-end panel is built from wire events folded by the client's own state.js (a ron
with two riichi sticks on the table, a tsumo, a draw with a stick left over) and read back:
the big number is the hand's value with the sticks apart, a seat that paid a riichi stick and
lost shows -1,000 (not "±0"), a draw says the stick carries over, the titles speak to the
player in both languages, numbers follow the language (35,000 / 35.000), seat badges use the
tiles' wind letters.  The match-end panel shows points, uma and the final score in their own
columns.  Played for real: Play again starts a new match with the same options, leaving asks
in the page (never the browser's confirm()) and the start screen then offers Resume; a
reload that comes back to a match says so."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from sanma.engine.actions import Kan, Kita, Tsumo
from sanma.engine.tiles import parse_kind
from sanma.server.codec import event_to_wire
from tests.fixtures.browser import DESKTOP, PHONE, SHOTS, open_page, start_match, step
from tests.fixtures.kyoku import NEUTRAL0, NEUTRAL1, NEUTRAL2, act, discard, start

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser

    from tests.fixtures.server import LiveServer

HAND = ["1m", "9m", "1p", "2p", "3p", "4p", "4p", "6s", "7s", "8s", "5z", "5z", "5z"]

# Folds a hand with wire events and renders its end panel(s) in the given language.
RENDER = """async ([lang, events, me]) => {
    const i18n = await import("/src/i18n.js");
    const { fold, newState } = await import("/src/state.js");
    const { handEndHtml, matchEndHtml } = await import("/src/render/panels.js");
    await i18n.loadI18n();
    i18n.setLang(lang);
    const state = newState();
    state.seat = me;
    for (const e of events) fold(state, e);
    const box = document.createElement("div");
    box.innerHTML = state.ending.map((item) => handEndHtml(item, me, false)).join("")
      + (state.matchEnd ? matchEndHtml(state.matchEnd, me, false, { return_points: 35000 }) : "");
    document.body.append(box);
    const text = (sel) => [...box.querySelectorAll(sel)].map((el) => el.textContent.trim());
    const out = {
      titles: text(".end-title small"), values: text("[data-testid=win-value]"),
      sticks: text("[data-testid=win-sticks]"),
      pays: text(".value .pay"), carry: text("[data-testid=carry]"), deltas: text(".changes td.delta"),
      scores: text(".changes td:last-child"), uma: text(".results td.uma"), points: text(".results td.points"),
      finals: text(".results td.final"), heads: text(".results thead th"),
    };
    box.remove();
    return out;
}"""


def started(deposits: int = 0) -> dict[str, Any]:
    return {
        "type": "HandStarted",
        "round_wind": "1z",
        "dealer": 0,
        "honba": 0,
        "deposits": deposits,
        "scores": [35000, 35000, 35000],
        "hands": [HAND, ["?"] * 13, ["?"] * 13],
        "dora_indicator": "3p",
        "live_size": 55,
    }


def won(seat: int, from_seat: int, payments: dict[str, int], total: int, deltas: list[int]) -> dict[str, Any]:
    score = {
        "han": 2,
        "fu": 40,
        "yakuman": 0,
        "limit": "none",
        "yaku": [["riichi", 1], ["yakuhai_white", 1]],
        "fu_breakdown": [["base", 20], ["closed_ron", 10], ["closed_triplet 5z", 8], ["round_up", 2]],
        "base": 640,
        "payments": payments,
        "total": total,
    }
    return {
        "type": "HandWon",
        "seat": seat,
        "from_seat": from_seat,
        "tile": "5p",
        "hand": HAND,
        "melds": [],
        "ura_indicators": [],
        "score": score,
        "pao_seat": None,
        "deltas": deltas,
    }


def riichi(seat: int) -> dict[str, Any]:
    return {"type": "RiichiAccepted", "seat": seat}


def test_win_panel_value_sticks_changes_and_titles_in_both_languages(browser: Browser, live: LiveServer) -> None:
    page = open_page(browser, live, DESKTOP)
    page.wait_for_selector("#play")
    # You (seat 0) and Sari (seat 2) declared riichi; Kenji (seat 1) wins on your discard: 2,600
    # from you plus the two sticks.
    ron = [started(), riichi(0), riichi(2), won(1, 0, {"ron": 2600}, 4600, [-2600, 4600, 0])]
    en = page.evaluate(RENDER, ["en", ron, 0])
    assert en["titles"] == ["Kenji wins on your discard"]
    assert en["values"] == ["2,600"] and en["sticks"] == ["+ 2 riichi sticks: 2,000"], en
    assert en["pays"] == ["The discarder pays 2,600"]
    # Over the hand: you paid a stick and the ron, Sari's stick went to Kenji: -1,000, not ±0.
    assert en["deltas"] == ["-3,600", "+4,600", "-1,000"], en["deltas"]
    assert en["scores"] == ["31,400", "39,600", "34,000"]
    id_ = page.evaluate(RENDER, ["id", ron, 0])
    assert id_["titles"] == ["Kenji menang dari buanganmu"]
    assert id_["values"] == ["2.600"] and id_["sticks"] == ["+ 2 tongkat riichi: 2.000"]
    assert id_["deltas"] == ["-3.600", "+4.600", "-1.000"] and id_["scores"][0] == "31.400"
    # Your own wins speak to you; the other bot is named as the table names it.
    mine = [started(), won(0, 2, {"ron": 3900}, 3900, [3900, 0, -3900])]
    assert page.evaluate(RENDER, ["en", mine, 0])["titles"] == ["You win on Sari's discard"]
    assert page.evaluate(RENDER, ["id", mine, 0])["titles"] == ["Kamu menang dari buangan Sari"]
    tsumo = [started(), won(0, 0, {"non_dealer": 2600}, 5200, [5200, -2600, -2600])]
    shown = page.evaluate(RENDER, ["en", tsumo, 0])
    assert shown["titles"] == ["You win by self-draw"] and shown["values"] == ["5,200"] and shown["sticks"] == []
    assert shown["pays"] == ["Each of the others pays 2,600"]  # the dealer's tsumo
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()


def test_a_draw_carries_the_sticks_and_the_match_end_splits_points_and_uma(browser: Browser, live: LiveServer) -> None:
    page = open_page(browser, live, DESKTOP)
    page.wait_for_selector("#play")
    drawn = {
        "type": "HandDrawn",
        "reason": "exhaustive",
        "tenpai": [0],
        "tenpai_hands": [HAND, [], []],
        "nagashi": [],
        "deltas": [2000, -1000, -1000],
    }
    ended = {
        "type": "MatchEnded",
        "points": [45000, 33000, 27000],
        "placements": [1, 2, 3],
        "final_scores": [25.0, -2.0, -23.0],
    }
    shown = page.evaluate(RENDER, ["en", [started(), riichi(0), drawn, ended], 0])
    assert shown["carry"] == ["1 riichi stick stays on the table for the next hand's winner."], shown
    assert shown["deltas"] == ["+1,000", "-1,000", "-1,000"]  # +2,000 tenpai payments, -1,000 the stick
    assert shown["heads"] == ["Place", "", "Points", "Uma", "Final score"]
    assert shown["points"] == ["45,000", "33,000", "27,000"]
    assert shown["uma"] == ["+15.0", "0.0", "−15.0"] and shown["finals"] == ["+25.0", "−2.0", "−23.0"], shown
    shown = page.evaluate(RENDER, ["id", [started(), riichi(0), drawn, ended], 0])
    assert shown["carry"] == ["1 tongkat riichi tetap di meja untuk pemenang tangan berikutnya."]
    assert shown["points"] == ["45.000", "33.000", "27.000"] and shown["uma"][0] == "+15,0"
    page.close()


def test_seat_badges_use_the_tiles_wind_letters_in_indonesian(browser: Browser, live: LiveServer) -> None:
    page = open_page(browser, live, DESKTOP, lang="id")
    start_match(page)
    badges = page.locator(".wind-badge").all_inner_texts()
    assert set(badges) <= {"E", "S", "W", "N"} and len(badges) >= 3, badges
    assert page.locator(".opponent .wind-badge").first.get_attribute("title") in ("Timur", "Selatan", "Barat")
    assert "." in page.locator(".opponent .score").first.inner_text()  # 35.000
    page.close()


@pytest.mark.slow
def test_play_again_keeps_the_options_and_leaving_asks_in_the_page_then_offers_resume(
    browser: Browser, live: LiveServer
) -> None:
    page = open_page(browser, live, DESKTOP)
    page.on("dialog", lambda d: (_ for _ in ()).throw(AssertionError(f"a native dialog: {d.message}")))
    start_match(page, length="one-hand", level="beginner")
    first = page.evaluate("() => localStorage.getItem('sanma.match')")
    for _ in range(400):
        what = step(page)
        if what == "hand-end":
            page.click("[data-panel=next]")
        elif what == "match-end":
            break
    page.click("[data-panel=rematch]")  # Play again: a new match straight away, same options
    page.wait_for_function(
        f"() => localStorage.getItem('sanma.match') !== {first!r} && document.querySelector('.hand-tile')"
    )
    assert page.locator("#start").is_hidden()
    assert "Honba" in page.inner_text(".centre")
    second = page.evaluate("() => localStorage.getItem('sanma.match')")
    # Leaving asks in the page: Stay keeps the table, Leave goes to the start screen.
    page.click("#menu-btn")
    page.click("#menu [data-cmd=leave]")
    confirm = page.locator("[data-testid=leave-confirm]")
    assert confirm.is_visible()
    page.click("[data-panel=leave-no]")
    assert confirm.count() == 0 and page.locator("#game").is_visible()
    page.click("#menu-btn")
    page.click("#menu [data-cmd=leave]")
    page.click("[data-panel=leave-yes]")
    page.wait_for_selector("#resume")
    page.click("#resume")  # the match left is resumed where it was
    page.wait_for_selector(".hand-tile")
    assert page.evaluate("() => localStorage.getItem('sanma.match')") == second
    page.reload()  # a reload comes back to the match, and says so
    page.wait_for_function("() => document.getElementById('conn').textContent.includes('resumed')")
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()


@pytest.mark.slow
def test_the_match_end_links_to_the_replay_in_the_history(browser: Browser, live: LiveServer) -> None:
    page = open_page(browser, live, DESKTOP)
    start_match(page)
    for _ in range(400):
        what = step(page)
        if what == "hand-end":
            page.click("[data-panel=next]")
        elif what == "match-end":
            break
    page.click("[data-panel=history]")
    page.wait_for_selector("#account-panel")
    page.wait_for_selector("#hist-server [data-replay]")  # the match just played, with its Replay
    assert page.locator("#overlay").is_hidden()  # the match-end panel is gone
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()


# The waits strip of an open hand says "Waiting on" only when every wait is sure of a yaku.
OPEN_WAITS = """async ([melds, concealed, waits]) => {
    const i18n = await import("/src/i18n.js");
    const { aidsHtml, openWaitsWithYaku } = await import("/src/render/table.js");
    await i18n.loadI18n();
    i18n.setLang("en");
    const hand = { dealer: 0, roundWind: "1z", melds: [melds, [], []], concealed: [concealed, [], []],
      drawn: [null, null, null] };
    const sure = openWaitsWithYaku({ hand, seat: 0 }, waits);
    const box = document.createElement("div");
    box.innerHTML = aidsHtml({ legal: [], aids: { waits, furiten: "none", why_not: null } }, null, sure);
    return { sure: [...sure].sort(), label: box.querySelector("[data-testid=waits] .label").textContent };
}"""


def pon(tile: str) -> dict[str, Any]:
    return {"type": "pon", "tiles": [tile] * 3, "called": tile, "from_seat": 1}


def test_an_open_hand_without_a_sure_yaku_does_not_say_waiting_on(browser: Browser, live: LiveServer) -> None:
    page = open_page(browser, live, DESKTOP)
    page.wait_for_selector("#play")
    simples = ["2p", "3p", "4p", "5s", "6s", "7s", "6p", "6p", "4s", "5s"]
    # A called dragon: yakuhai whatever completes the hand.
    shown = page.evaluate(OPEN_WAITS, [[pon("6z")], simples, [["3s", 2], ["6s", 1]]])
    assert shown == {"sure": ["3s", "6s"], "label": "Waiting on"}
    # Your seat wind (seat 0 is the dealer: East) counts too; North does not.
    assert page.evaluate(OPEN_WAITS, [[pon("1z")], simples, [["3s", 2]]])["label"] == "Waiting on"
    north = page.evaluate(OPEN_WAITS, [[pon("4z")], simples, [["3s", 2]]])
    assert north == {"sure": [], "label": "Completes on (a win needs a yaku)"}
    # All simples: open tanyao on a simple wait, not on a terminal.
    tanyao = page.evaluate(OPEN_WAITS, [[pon("4s")], simples, [["3s", 2], ["9p", 1]]])
    assert tanyao == {"sure": ["3s"], "label": "Completes on (a win needs a yaku)"}
    assert page.evaluate(OPEN_WAITS, [[pon("4s")], simples, [["3s", 2], ["6s", 1]]])["label"] == "Waiting on"
    # A terminal in the hand: no sure yaku at all.
    assert page.evaluate(OPEN_WAITS, [[pon("3p")], [*simples[:-1], "9m"], [["3s", 2]]])["sure"] == []
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()


# Folds wire events and shows their hand-end panel over the page as the table does; what the
# panel says of the win: each yaku {id: name} and the winner's kita tiles.
SHOW_END = """async ([lang, events, me]) => {
    const i18n = await import("/src/i18n.js");
    const { fold, newState } = await import("/src/state.js");
    const { handEndHtml } = await import("/src/render/panels.js");
    await i18n.loadI18n();
    i18n.setLang(lang);
    const state = newState();
    state.seat = me;
    for (const e of events) fold(state, e);
    document.getElementById("kita-end")?.remove();
    const box = document.createElement("div");
    box.id = "kita-end";
    box.className = "overlay";
    box.innerHTML = handEndHtml(state.ending[0], me, false);
    document.body.append(box);
    return {
      yaku: Object.fromEntries([...box.querySelectorAll("ul.yaku li[data-yaku]")]
        .map((li) => [li.dataset.yaku, li.querySelector("span").textContent.trim()])),
      kita: box.querySelectorAll("[data-testid=win-kita] .tile").length,
    };
}"""


def kita_rinshan_events() -> list[dict[str, Any]]:
    """A hand played by the engine: East declares kita and wins on its replacement tile (the
    engine scores rinshan kaihou and one North), as the wire carries it."""
    k = start(["123456789p11s23s", NEUTRAL1, NEUTRAL2], "4z", reps="4s")
    act(k, 0, Kita())
    act(k, 0, Tsumo())
    return [event_to_wire(e, True) for e in k.events]


def kan_rinshan_events() -> list[dict[str, Any]]:
    """The engine's open kan and a win on its replacement tile (rinshan after a kan)."""
    k = start([NEUTRAL0, "111z23456789p99s", "1359p1359s23567z"], "?", reps="1p", dora="7s")
    discard(k, 0, "1z")
    act(k, 1, Kan(parse_kind("1z")))
    act(k, 1, Tsumo())
    return [event_to_wire(e, True) for e in k.events]


@pytest.mark.slow
def test_a_win_on_a_kita_replacement_says_so_and_shows_the_kita(
    browser: Browser, live: LiveServer, tmp_path: Path
) -> None:
    """The panel of a win on a kita's replacement tile names its rinshan as after a kita (it said
    "After a kan"), in both languages, and shows the winner's kita beside the hand ("North
    tiles 1 han" had no North to see); a kan's replacement win still says after a kan."""
    events = kita_rinshan_events()
    assert any(e["type"] == "KitaDeclared" for e in events) and events[-1]["type"] == "HandWon"
    assert {"rinshan", "kita"} <= {name for name, _ in events[-1]["score"]["yaku"]}
    shots = SHOTS if os.environ.get("SANMA_SCREENSHOTS") else tmp_path
    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE), ("portrait", {"width": 390, "height": 844})):
        page = open_page(browser, live, viewport)
        page.wait_for_selector("#play")
        shown = page.evaluate(SHOW_END, ["en", events, 1])
        assert shown["yaku"]["rinshan"] == "After a kita (rinshan)" and shown["yaku"]["kita"] == "North tiles", shown
        assert shown["kita"] == 1
        page.screenshot(path=str(shots / f"{name}-hand-end-kita-en.png"))
        box = page.locator("#kita-end [data-testid=win-kita]").bounding_box()
        size = page.viewport_size
        assert box is not None and size is not None and box["x"] + box["width"] <= size["width"]
        shown = page.evaluate(SHOW_END, ["id", events, 1])
        assert shown["yaku"]["rinshan"] == "Setelah kita (rinshan)" and shown["kita"] == 1, shown
        assert page.evaluate(SHOW_END, ["en", kan_rinshan_events(), 0])["yaku"]["rinshan"] == "After a kan"
        assert page.errors == []  # type: ignore[attr-defined]
        page.close()
