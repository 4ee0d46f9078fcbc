"""The master's review in Chromium against a real server and its worker process: a finished
match in the history, Review pressed, its progress in the row, then the replay with the
mistakes beside it (the server's, biggest first); a click on the first moves the replay to that
decision.  At every size of the layout test (the upright phones in Indonesian) the same review
opens at once (it was kept), folded under the table on a phone; open, it leaves the board
uncovered and a jump brings the board into view; every text it shows comes from the
dictionaries."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Page

from tests.fixtures.i18n import DICTS, VISIBLE_TEXTS, outside_dictionaries
from tests.fixtures.layout import VIEWPORTS
from tests.fixtures.replay_viewer import ended_match_in_history, guest_of, open_history, page_for
from tests.fixtures.replay_viewer import live as live  # the replay viewer's live, not conftest's
from tests.fixtures.server import LiveServer

# An East match of random legal play whose seat 0 makes priced mistakes (tests/test_replays.py).
SEED = 56
REVIEW_S = 180_000  # ms: a worker process starts, then folds the whole match


def server_review(live: LiveServer, token: str, match: str) -> dict[str, Any]:
    r = httpx.get(f"{live.http}/api/matches/{match}/review", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    assert body["state"] == "done"
    return body["result"]


def listed(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The mistakes the panel lists (review.js mistakesOf): priced losses of 0.005 or more."""
    return [m for m in result["mistakes"] if m["loss"] is not None and m["loss"] >= 0.005]


def box(page: Page, selector: str) -> dict[str, float]:
    found = page.locator(selector).bounding_box()
    assert found is not None, selector
    return found


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


@pytest.mark.slow
def test_review_from_the_history_then_on_a_phone(browser, live, shots):
    page = page_for(browser, live)
    match, events = ended_match_in_history(page, live, SEED)
    _, token = guest_of(page)
    open_history(page)
    page.click(f"[data-review='{match}']")
    page.wait_for_selector(f"#review-status-{match}")  # queued or running, in the row
    page.wait_for_selector("#review-panel #review-list", timeout=REVIEW_S)
    page.wait_for_selector(f"#review-status-{match}", state="detached")
    result = server_review(live, token, match)
    mistakes = listed(result)
    assert mistakes, "the seed's seat 0 makes priced mistakes"
    items = page.locator("#review-list .review-item")
    assert items.count() == len(mistakes)
    positions = [int(p) for p in items.evaluate_all("els => els.map(e => e.dataset.pos)")]
    assert positions == [m["index"] + 1 for m in mistakes]  # the server's order: biggest loss first
    first = mistakes[0]
    assert page.inner_text("#review-item-1 .review-loss") == f"−{first['loss']:.2f}"
    page.click("#review-item-1")
    page.wait_for_selector("#review-item-1[aria-current=true]")
    # The replay stands right after the event that asked seat 0 for the decision.
    assert page.inner_text("#replay-step") == f"Event {first['index'] + 1} of {len(events)}"
    assert page.inner_text("#replay-event").strip()
    texts = page.evaluate(VISIBLE_TEXTS, ["#replay-view"])
    assert outside_dictionaries(texts, "en", {"Kenji", "Sari"}) == []
    assert live.app.state.reviews.computed == 1
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()

    # The same player at every size (the upright phones in Indonesian): the kept review opens
    # at once, folded on a phone; open, it never covers the board, and a jump shows the board.
    for name, (width, height, touch) in VIEWPORTS.items():
        lang = "id" if name.startswith("portrait") else "en"
        other = page_for(browser, live, {"width": width, "height": height}, has_touch=touch)
        other.evaluate(
            "([t, l]) => { localStorage.setItem('sanma.token', t); localStorage.setItem('sanma.lang', l) }",
            [token, lang],
        )
        other.reload()
        other.wait_for_selector("#play")
        open_history(other)
        other.click(f"[data-review='{match}']")
        other.wait_for_selector("#review-panel")
        folded = other.locator("#review-fold[aria-expanded=false]").count() == 1
        assert folded == (width <= 700 or height <= 520), name  # review.js WIDE, style.css
        assert not overlaps(box(other, "#review-panel"), box(other, ".replay-board")), name
        if folded:
            other.click("#review-fold")
        k = 2 if folded else 1
        other.locator(f"#review-item-{k}").scroll_into_view_if_needed()
        other.click(f"#review-item-{k}")
        other.wait_for_selector(f"#review-item-{k}[aria-current=true]")
        step = DICTS[lang]["replay.step"].format(i=mistakes[k - 1]["index"] + 1, n=len(events))
        assert other.inner_text("#replay-step") == step, name
        board, panel = box(other, ".replay-board"), box(other, "#review-panel")
        assert not overlaps(panel, board), name
        assert board["y"] >= -1 and board["y"] + board["height"] <= height + 1, (name, board)  # in view
        assert board["x"] >= -1 and board["x"] + board["width"] <= width + 1, (name, board)
        texts = other.evaluate(VISIBLE_TEXTS, ["#replay-view"])
        assert outside_dictionaries(texts, lang, {"Kenji", "Sari"}) == [], name
        assert other.errors == [], name  # type: ignore[attr-defined]
        other.screenshot(path=str(shots / f"review-{name}-{lang}.png"))
        other.context.close()
    assert live.app.state.reviews.computed == 1  # kept: never computed again


# The review panel for `result` in `lang` with the match's `rules`: its summary and scale lines.
SCALE = """async ([lang, result, rules]) => {
    const i18n = await import("/src/i18n.js");
    const { reviewHtml } = await import("/src/review.js");
    await i18n.loadI18n();
    i18n.setLang(lang);
    const box = document.createElement("div");
    box.innerHTML = reviewHtml(result, 1, rules);
    document.body.append(box);
    const text = (id) => box.querySelector(id)?.textContent.trim() ?? null;
    const out = { summary: text("#review-summary"), scale: text("#review-scale") };
    box.remove();
    return out;
}"""


def test_the_loss_has_a_scale_in_both_languages(browser, live):
    """The summary "0.80 placement points lost" says what that is (800 points at the end), and a line
    defines a placement point from the match's own return points and uma."""
    page = page_for(browser, live)
    mistake = {"hand": "E1-0", "turn": 3, "choice": "discard 5p", "master": "discard 9m", "values": {}}
    result = {
        "agreed": 30,
        "decisions": 32,
        "mistakes": [{**mistake, "index": 10, "loss": 0.5}, {**mistake, "index": 20, "loss": 0.3}],
    }
    rules = {"return_points": 40000, "uma": [20, 0, -20]}
    en = page.evaluate(SCALE, ["en", result, rules])
    assert en["summary"] == "2 mistakes, 0.80 placement points lost (= 800 points at the end)", en
    assert "(points at the end − 40,000) ÷ 1,000" in en["scale"] and "(+20 / 0 / −20)" in en["scale"], en
    id_ = page.evaluate(SCALE, ["id", result, rules])
    # The loss in the page's language's way (review.js lossText): a decimal comma in Indonesian.
    assert id_["summary"] == "2 kesalahan, 0,80 poin peringkat hilang (= 800 poin di akhir)", id_
    assert "(poin di akhir − 40.000) ÷ 1.000" in id_["scale"] and "(+20 / 0 / −20)" in id_["scale"], id_
    assert page.errors == []  # type: ignore[attr-defined]
