"""The interactive rules guide (``web/src/guide/examples.json``) is checked against the
engine: every step's tiles exist (no fifth copy, hand sizes right, melds of one kind), and
every claim a step makes - waits, tenpai after a discard, furiten, a complete hand, the dora
an indicator points at, han, fu and payments, nagashi mangan, nine terminals - is the
engine's own answer.  The numbers a caption quotes are the engine's, in every language.  In
Chromium, every board labels as "Dora" the tiles the engine's dora rule makes of its
indicators, and the indicators as indicators."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from sanma.engine.context import WinContext
from sanma.engine.hand import Meld, MeldType
from sanma.engine.rules import DEFAULT
from sanma.engine.scoring import score_win
from sanma.engine.settlement import nagashi_deltas
from sanma.engine.shanten import is_complete, kokushi_shanten, waits
from sanma.engine.tiles import (
    EAST,
    NORTH,
    SOUTH,
    counts_of_kinds,
    dora_of,
    is_terminal_or_honor,
    kind_name,
    kinds_to_mpsz,
    parse,
    parse_kind,
    parse_tiles,
    to_mpsz,
)
from tests.fixtures.browser import DESKTOP, open_page
from tests.fixtures.i18n import LANGS

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser

    from tests.fixtures.server import LiveServer

GUIDE = Path(__file__).resolve().parents[1] / "web" / "src" / "guide" / "examples.json"
EXAMPLES: list[dict[str, Any]] = json.loads(GUIDE.read_text(encoding="utf-8"))["examples"]
STEPS = [(ex["id"], i, s) for ex in EXAMPLES for i, s in enumerate(ex["steps"])]
TOKEN = re.compile(r"\{([0-9][mps]|[1-7]z)\}")
# What the issue asks the guide to show, each at least once.
REQUIRED = {"kita", "riichi", "furiten", "calls", "tsumo_loss", "dora", "nagashi", "nine_terminals"}


def kinds(text: str) -> list[int]:
    return [k for k, _ in parse(text)] if text else []


def melds_of(step: dict[str, Any]) -> list[Meld]:
    out = []
    for m in step.get("melds", []):
        out.append(Meld(MeldType(m["type"]), tuple(parse_tiles(m["tiles"]))))
    return out


def concealed(step: dict[str, Any], extra: str = "") -> list[int]:
    return kinds(step["hand"] + extra)


def hand_waits(step: dict[str, Any]) -> str:
    melds = melds_of(step)
    own = counts_of_kinds(concealed(step) + [m.kind for m in melds for _ in m.tiles] + [NORTH] * step.get("kita", 0))
    return kinds_to_mpsz(waits(counts_of_kinds(concealed(step)), len(melds), own))


def said_in_every_caption(step: dict[str, Any]) -> set[int]:
    """The numbers every language's caption of the step writes."""
    return set.intersection(*(numbers(caption) for caption in step["caption"].values()))


def numbers(text: str) -> set[int]:
    """Every number a caption writes (1,000 in English and Japanese, 1.000 in Indonesian,
    35\u00a0000 in Russian)."""
    return {int(re.sub(r"[.,\u00a0]", "", n)) for n in re.findall(r"\d[\d.,\u00a0]*\d|\d", text)}


def test_the_guide_covers_every_example_the_issue_asks_for() -> None:
    assert {ex["id"] for ex in EXAMPLES} >= REQUIRED
    for ex in EXAMPLES:
        assert all(ex["title"].values()) and sorted(ex["title"]) == sorted(LANGS) and len(ex["steps"]) >= 2


@pytest.mark.parametrize(("example", "index", "step"), STEPS, ids=[f"{e}-{i + 1}" for e, i, _ in STEPS])
def test_step_tiles_exist_and_captions_match(example: str, index: int, step: dict[str, Any]) -> None:
    en, id_ = step["caption"]["en"], step["caption"]["id"]
    assert en and id_ and en != id_
    # The same tiles are drawn in every language's caption.
    for lang, caption in step["caption"].items():
        assert caption and TOKEN.findall(caption) == TOKEN.findall(en), lang
    # No fifth copy of any kind, no second red five, over everything on show.
    shown = step["hand"] + step.get("drawn", "") + step.get("river", "") + step.get("offer", "") + step.get("dora", "")
    shown += "".join(m["tiles"] for m in step.get("melds", [])) + "4z" * step.get("kita", 0)
    parse_tiles(shown)  # raises InvalidHand on a fifth copy
    melds = melds_of(step)
    size = len(concealed(step)) + 3 * len(melds) + ("drawn" in step)
    assert size == (14 if "drawn" in step or step["check"].get("must_discard") else 13)
    for m in step.get("melds", []):
        assert (m["type"] == "ankan") == ("from" not in m)
    marked = set(kinds(step.get("mark", "")))
    assert marked <= set(concealed(step, step.get("drawn", "") + step.get("offer", "") + step.get("river", "")))
    for i in step.get("called", []) + ([step["riichi_at"]] if "riichi_at" in step else []):
        assert 0 <= i < len(kinds(step["river"]))


@pytest.mark.parametrize(("example", "index", "step"), STEPS, ids=[f"{e}-{i + 1}" for e, i, _ in STEPS])
def test_step_claims_are_the_engines(example: str, index: int, step: dict[str, Any]) -> None:
    check: dict[str, Any] = step["check"]
    assert check, "every step claims something the test can check"
    captions = step["caption"]["en"] + " " + step["caption"]["id"]
    if "waits" in check:
        assert hand_waits(step) == check["waits"]
        river = set(kinds(step.get("river", "")))
        furiten = any(k in river for k in kinds(check["waits"]))
        if "furiten" in check:
            assert furiten == (check["furiten"] == "discard")
    if "offer_wins" in check:
        assert (kinds(step["offer"])[0] in kinds(hand_waits(step))) == check["offer_wins"]
    if "tenpai_after" in check:
        after = dict(step, hand=_remove(step["hand"] + step["drawn"], check["tenpai_after"]["discard"]))
        assert hand_waits(after) == check["tenpai_after"]["waits"]
    if "complete" in check:
        tiles = concealed(step, step.get("drawn") or step.get("offer", ""))
        assert is_complete(counts_of_kinds(tiles), len(melds_of(step))) == check["complete"]
    if "dora" in check:
        indicators = kinds(step["dora"])
        for indicator, dora in check["dora"]:
            assert parse_kind(indicator) in indicators
            assert dora_of(parse_kind(indicator)) == parse_kind(dora)
    if "score" in check:
        _check_score(step, check["score"], captions)
    if "nagashi" in check:
        _check_nagashi(step, check["nagashi"], captions)
    if "not_nagashi" in check:
        river = kinds(step["river"])
        assert step.get("called") or not all(is_terminal_or_honor(k) for k in river)
    if "nine_terminals" in check:
        distinct = {k for k in concealed(step, step.get("drawn", "")) if is_terminal_or_honor(k)}
        assert len(distinct) == check["nine_terminals"] >= 9
        assert str(check["nine_terminals"]) in step["caption"]["en"] or index > 0
    if "kokushi_shanten" in check:
        assert kokushi_shanten(counts_of_kinds(concealed(step, step["drawn"]))) == check["kokushi_shanten"]
    if "call" in check:
        held = concealed(step).count(kinds(step["offer"])[0])
        assert held == {"pon": 2, "daiminkan": 3}[check["call"]]
    if "kan" in check:
        drawn = kinds(step["drawn"])[0]
        if check["kan"] == "kakan":
            assert any(m.type is MeldType.PON and m.kind == drawn for m in melds_of(step))
        else:
            assert concealed(step).count(drawn) == 3


def _remove(text: str, tile: str) -> str:
    items = parse(text)
    items.remove(parse(tile)[0])
    return to_mpsz(items)


def _check_score(step: dict[str, Any], claim: dict[str, Any], captions: str) -> None:
    win = claim["win"]
    tiles = parse_tiles(step["hand"] + win)
    ctx = WinContext(
        tsumo=claim["tsumo"],
        riichi=claim.get("riichi", False),
        rinshan=claim.get("rinshan", False),
        seat_wind={"east": EAST, "south": SOUTH}[claim["seat"]],
        round_wind=EAST,
        dora_indicators=tuple(kinds(step.get("dora", ""))),
        kita=step.get("kita", 0),
        honba=claim.get("honba", 0),
    )
    score = score_win(tiles, tiles[-1], melds_of(step), ctx, DEFAULT)
    dealer = claim["seat"] == "east"
    assert (score.han, score.fu) == (claim["han"], claim["fu"])
    assert score.payments.as_dict(claim["tsumo"], dealer) == claim["payments"]
    assert score.total == claim["total"]
    said = said_in_every_caption(step)
    assert {*claim["payments"].values(), claim["total"]} <= said, captions


def _check_nagashi(step: dict[str, Any], claim: dict[str, Any], captions: str) -> None:
    river = kinds(step["river"])
    assert all(is_terminal_or_honor(k) for k in river) and not step.get("called")
    assert step.get("left") == 0  # only at an exhaustive draw
    seat = 0 if claim["dealer"] else 1
    deltas = nagashi_deltas([seat], dealer=0)
    assert deltas[seat] == claim["gain"]
    paid = {"non_dealer": -deltas[1]} if claim["dealer"] else {"dealer": -deltas[0], "non_dealer": -deltas[2]}
    assert paid == claim["payments"]
    if index_mentions_numbers(step):
        said = said_in_every_caption(step)
        assert {claim["gain"], *paid.values()} <= said, captions


def index_mentions_numbers(step: dict[str, Any]) -> bool:
    """Whether a nagashi step quotes payments (the first one only shows the river)."""
    return bool(numbers(step["caption"]["en"]) - {0})


# The spoken names (aria-label) of tiles, by the page's own i18n.js, in language `lang`.
NAMES = """async ([lang, tiles]) => {
    const i18n = await import("/src/i18n.js");
    await i18n.loadI18n();
    i18n.setLang(lang);
    return tiles.map((x) => i18n.tileName(x));
}"""
LABELS = "(sel) => [...document.querySelectorAll(sel)].map((el) => el.getAttribute('aria-label'))"


def _mpsz_list(text: str) -> list[str]:
    """The tiles of an mpsz string one by one: 9p3z gives 9p and 3z (a red five stays 0p)."""
    out: list[str] = []
    for digits, suit in re.findall(r"(\d+)([mpsz])", text):
        out += [d + suit for d in digits]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
def test_every_board_labels_the_dora_its_indicators_point_to(browser: Browser, live: LiveServer, lang: str) -> None:
    page = open_page(browser, live, DESKTOP, lang=lang)
    page.wait_for_selector("#play")
    page.click("#start [data-cmd=rules]")
    page.wait_for_selector("[data-testid=guide]")
    words = json.loads((GUIDE.parent.parent / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    dora_group = f"[data-testid=guide] .g-top [role=group][aria-label='{words['label.dora']}']"
    checked = 0
    for i, example in enumerate(EXAMPLES):
        page.click(f"[data-testid=guide] [data-guide-ex='{i}']")
        for j, step in enumerate(example["steps"]):
            page.click(f"[data-testid=guide] [data-guide-step='{j}']")
            page.wait_for_selector(f"[data-testid=guide] .g-body[data-example='{example['id']}'][data-step='{j}']")
            indicators = _mpsz_list(step["dora"])
            dora = [kind_name(dora_of(parse_kind(x))) for x in indicators]  # the engine's rule
            where = (example["id"], j + 1, step["dora"])
            # Only the tiles the indicators point to carry the "Dora" label ...
            assert page.evaluate(LABELS, f"{dora_group} .tile") == page.evaluate(NAMES, [lang, dora]), where
            assert page.locator(f"[data-testid=guide] .g-top [aria-label='{words['label.dora']}']").count() == 1
            # ... and the indicators are named as indicators.
            shown = page.evaluate(LABELS, "[data-testid=guide-indicators] .tile")
            assert shown == page.evaluate(NAMES, [lang, indicators]), where
            label = page.get_attribute("[data-testid=guide-indicators]", "aria-label")
            assert label == words["label.dora_indicators" if len(indicators) > 1 else "label.indicator"]
            checked += 1
    assert checked == len(STEPS)
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()
