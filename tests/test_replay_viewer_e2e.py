"""The replay viewer end to end in Chromium (Playwright) against a real server: a finished
practice match from the history (jump to hand 3, autoplay to its end, its result panel against
the engine's result; open hands, which a running match's replay never shows); the tenhou.net/6
download against the engine's export and its re-import; every shared test log opened from a
file with every hand's result compared with the log; broken files with their clear errors;
a share link opened by another browser; keyboard and touch."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from sanma.engine.events import HandStarted, HandWon, KitaDeclared, MatchEnded, RiichiAccepted
from sanma.engine.formats import tenhou6
from sanma.engine.rules import DEFAULT
from sanma.store import db
from tests.fixtures.browser import DESKTOP, PHONE
from tests.fixtures.replay_viewer import (
    ended_match_in_history,
    guest_of,
    open_history,
    open_replay,
    page_for,
)
from tests.fixtures.replay_viewer import live as live  # the replay viewer's live, not conftest's
from tests.fixtures.replays import shared_logs, store_ended
from tests.fixtures.server import new_match


def points(n: int) -> str:
    return f"{n:,}"


def scores_after(hand: list[Any]) -> tuple[int, int, int]:
    """Each seat's points at the end of a hand, from its events (riichi sticks paid, deltas)."""
    start = hand[0]
    assert isinstance(start, HandStarted)
    scores = list(start.scores)
    for e in hand:
        if isinstance(e, RiichiAccepted):
            scores[e.seat] -= 1000
        if hasattr(e, "deltas") and not isinstance(e, HandStarted):
            scores = [s + d for s, d in zip(scores, e.deltas, strict=True)]
    return (scores[0], scores[1], scores[2])


def shown_scores(page: Page) -> list[str]:
    """The result panel's new score of each seat (the last column of the changes table)."""
    return list(
        page.locator("#replay-result table.changes tbody tr").evaluate_all(
            "rows => rows.map(r => r.lastElementChild.textContent.trim())"
        )
    )


@pytest.mark.slow
def test_a_practice_match_from_the_history(browser, live, shots):
    page = page_for(browser, live)
    match, events = ended_match_in_history(page, live)
    hands = tenhou6.split_hands(events)
    assert len(hands) >= 3
    open_replay(page, match)
    # The hand list shows every hand with its result; jump to hand 3.
    assert page.locator(".replay-hands li").count() == len(hands)
    page.click("#replay-hand-3")
    assert page.inner_text("#replay-hand-of") == f"Hand 3 of {len(hands)}"
    # Autoplay, fastest, to the hand's end: the result panel is the engine's result.
    page.select_option("#replay-speed", "16")
    page.click("#replay-play")
    # A bound, not a measure: a hand of ~40 turns at 16x is a few seconds, more on a busy machine.
    page.wait_for_selector("#replay-result .hand-end", timeout=240_000)
    assert page.get_attribute("#replay-play", "aria-pressed") == "false"  # it stopped at the result
    assert page.inner_text("#replay-hand-of") == f"Hand 3 of {len(hands)}"
    page.screenshot(path=str(shots / "desktop-replay-result-en.png"))
    hand = hands[2]
    assert shown_scores(page) == [points(s) for s in scores_after(hand)]
    [win] = [e for e in hand if isinstance(e, HandWon)]
    assert page.locator("#replay-result .end-title.win").count() == 1
    assert page.locator("#replay-result ul.yaku li").count() == len(win.score.yaku)
    assert page.inner_text("#replay-result [data-testid=fu-total]") == str(win.score.fu)
    fu_items = page.locator("#replay-result [data-testid=fu-breakdown] li[data-fu]").evaluate_all(
        "els => els.map(e => Number(e.dataset.fu))"
    )
    assert fu_items == [fu for _, fu in win.score.fu_breakdown]
    pay = page.inner_text("#replay-result .pay")
    for part in (win.score.payments.dealer, win.score.payments.non_dealer, win.score.payments.ron):
        if part:
            assert points(part) in pay, (pay, win.score.payments)
    assert page.locator("#replay-result .win-hand > .tile").count() == len(win.hand) + 1  # the winner's hand and tile
    # The winner's kita beside the hand, as many as "North tiles" counts.
    kita = sum(1 for e in hand if isinstance(e, KitaDeclared) and e.seat == win.seat)
    assert kita and page.locator("#replay-result [data-testid=win-kita] .tile").count() == kita
    assert ("kita", kita) in win.score.yaku
    # The match has ended: open hands by default, the opponents' tiles face up; off: backs.
    assert page.locator("#replay .opponent .tile.open-hand").count() > 0
    page.click("#replay-open-hands")
    assert page.locator("#replay .opponent .tile.open-hand").count() == 0
    assert page.locator("#replay .opponent .tile.back").count() > 0
    page.click("#replay-open-hands")
    page.click("#replay-hand-2")
    for _ in range(6):
        page.keyboard.press("ArrowRight")
    page.screenshot(path=str(shots / "desktop-replay-en.png"))
    # Keyboard: Right a turn, Shift+Right an event, Down a hand, Space plays.
    page.click("#replay-hand-1")
    before = page.inner_text("#replay-step")
    page.keyboard.press("Shift+ArrowRight")
    assert page.inner_text("#replay-step") != before
    page.keyboard.press("ArrowDown")
    assert page.inner_text("#replay-hand-of") == f"Hand 2 of {len(hands)}"
    page.keyboard.press("Space")
    assert page.get_attribute("#replay-play", "aria-pressed") == "true"
    page.keyboard.press("Space")
    assert page.get_attribute("#replay-play", "aria-pressed") == "false"
    # The final standings with uma.
    page.keyboard.press("End")
    page.wait_for_selector("#replay-result .match-end")
    final = next(e for e in events if isinstance(e, MatchEnded))
    assert "Uma +15 / 0 / -15" in page.inner_text("#replay-result")
    shown = page.inner_text("#replay-result .match-end").replace("\u2212", "-")  # a typographic minus
    for seat in range(3):
        assert f"{final.final_scores[seat]:.1f}" in shown
    assert page.locator("#replay-result .match-end button").count() == 0  # the table's buttons are not the replay's
    page.keyboard.press("Escape")
    page.wait_for_selector("#replay-view", state="detached")
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_running_match_replay_shows_no_hidden_tile(browser, live):
    page = page_for(browser, live)
    _, token = guest_of(page)
    match = new_match(live, token, seat=0, length="east")
    # The viewer asked for a running match: the server sends it redacted, the viewer says so.
    page.evaluate(
        """async m => { const r = await fetch(`/api/matches/${m}/replay`, {headers: {Authorization:
             `Bearer ${localStorage.getItem('sanma.token')}`}});
           const mod = await import('/src/replay.js'); mod.openViewer(await r.json()); }""",
        match,
    )
    page.wait_for_selector("#replay-view #replay-closed")
    assert page.locator("#replay-open-hands").count() == 0
    assert page.locator("#replay .opponent .tile.open-hand").count() == 0
    assert page.locator("#replay .opponent .tile.back").count() > 0
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.slow
def test_tenhou6_download_round_trips(browser, live, tmp_path):
    page = page_for(browser, live)
    match, events = ended_match_in_history(page, live, seed=3)
    open_history(page)
    with page.expect_download() as download:
        page.click(f"tr[data-match='{match}'] [data-download=tenhou6]")
    path = tmp_path / "match.json"
    download.value.save_as(path)
    assert download.value.suggested_filename == f"sanma-{match}.tenhou6.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    hands = tenhou6.split_hands(events)
    assert data["log"] == json.loads(json.dumps([tenhou6.export_hand(h, DEFAULT, sort_haipai=True) for h in hands]))
    game = tenhou6.loads(path.read_text(encoding="utf-8"))
    assert all(c.match for c in tenhou6.check_game(game, tenhou6.rules_for(game, "default")))
    with page.expect_download() as log:
        page.click(f"tr[data-match='{match}'] [data-download=jsonl]")
    assert len(Path(log.value.path()).read_text().splitlines()) == len(events)
    # Opened again in the viewer (Sanma's own preset chosen), every hand agrees.
    page.select_option("#log-preset", "default")
    page.set_input_files("#log-file", str(path))
    page.wait_for_selector("#replay-view #replay-step")
    assert page.locator("#replay-differs").count() == 0
    assert page.locator(".replay-hands li").count() == len(hands)


def _end_of_hand(page: Page, k: int, count: int) -> None:
    """Show hand ``k``'s (1-based) result: the start of the next hand, one turn back."""
    if k < count:
        page.click(f"#replay-hand-{k + 1}")
    else:
        page.click("#replay-next-turn")  # the focus into the viewer
        page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#replay-result .hand-end")


@pytest.mark.slow
def test_every_shared_log_opens_and_each_hand_shows_the_logs_result(browser, live):
    page = page_for(browser, live)
    open_history(page)
    for path in shared_logs():
        game = tenhou6.loads(path.read_text(encoding="utf-8"))
        page.set_input_files("#log-file", str(path))
        page.wait_for_selector("#replay-view #replay-step")
        count = len(game.hands)
        assert page.locator(".replay-hands li").count() == count, path.name
        for k, hand in enumerate(game.hands, start=1):
            _end_of_hand(page, k, count)
            after = game.hands[k].scores if k < count else game.final_scores
            assert after is not None
            assert shown_scores(page) == [points(s) for s in after], (path.name, k)
            log = hand.result
            assert page.locator("#replay-result .end-title.win").count() == len(log.wins), (path.name, k)
            fus = page.locator("#replay-result [data-testid=fu-total]").all_inner_texts()
            for w, fu in zip(log.wins, fus, strict=False):
                if w.fu:
                    assert fu == str(w.fu), (path.name, k)
        page.keyboard.press("Escape")
        page.wait_for_selector("#replay-view", state="detached")
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.slow
def test_broken_files_get_their_clear_errors(browser, live, tmp_path):
    page = page_for(browser, live)
    open_history(page)
    text = shared_logs()[0].read_text(encoding="utf-8")
    data = json.loads(text)
    four = copy.deepcopy(data)
    four["rule"]["disp"] = "四鳳南喰赤"
    sixth = copy.deepcopy(data)
    sixth["log"][2][4][:6] = [21] * 6
    cases = {
        "four.json": (json.dumps(four).encode(), "four-player log"),
        "cut.json": (text[: len(text) // 2].encode(), "The file is cut off"),
        "big.json": (b" " * (10 * 1024 * 1024), "too large"),
        "sixth.json": (json.dumps(sixth).encode(), "hand 3: haipai/indicators: a fifth copy of tile 21 (1p)"),
    }
    for name, (body, expected) in cases.items():
        page.set_input_files("#log-file", {"name": name, "mimeType": "application/json", "buffer": body})
        page.wait_for_function("() => document.getElementById('acct-error').textContent !== ''")
        assert expected in page.inner_text("#acct-error"), (name, page.inner_text("#acct-error"))
        assert page.locator("#replay-view").count() == 0
        page.evaluate("() => { document.getElementById('acct-error').textContent = ''; }")


@pytest.mark.slow
def test_a_share_link_opens_in_another_browser(browser, live, shots):
    page = page_for(browser, live)
    match, _ = ended_match_in_history(page, live, seed=7)
    open_history(page)
    page.click(f"[data-share='{match}']")
    page.wait_for_selector("#share-link")
    url = page.input_value("#share-link")
    assert re.fullmatch(re.escape(live.http) + r"/\?replay=[0-9a-f]{32}", url)
    other = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
    other.goto(url)
    other.wait_for_selector("#replay-view #replay-step")
    other.screenshot(path=str(shots / "phone-replay-shared-en.png"))
    assert other.locator("#replay .opponent .tile.open-hand").count() > 0
    assert "You" not in other.inner_text("#replay .board")  # a spectator: nobody is "You"
    other.tap("#replay-next-turn")  # the focus into the viewer
    other.keyboard.press("End")
    other.wait_for_selector("#replay-result .match-end")
    assert not re.search(r"\b(You|you)\b|match\.result", other.inner_text("#replay-result"))
    other.keyboard.press("Home")
    # Touch: the buttons, and a swipe to the left for the next turn.
    before = other.inner_text("#replay-step")
    other.tap("#replay-next-turn")
    assert other.inner_text("#replay-step") != before
    before = other.inner_text("#replay-step")
    box = other.locator(".replay-stage").bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    for kind, at in (("pointerdown", x), ("pointerup", x - 120)):
        other.dispatch_event(
            ".replay-stage .board", kind, {"pointerType": "touch", "clientX": at, "clientY": y, "bubbles": True}
        )
    assert other.inner_text("#replay-step") != before
    size = other.evaluate("() => ({sw: document.documentElement.scrollWidth, w: innerWidth})")
    assert size["sw"] <= size["w"], size
    # Stopped sharing, the link says so.
    page.click("#share-stop")
    page.wait_for_selector("#share-link", state="detached")
    again = browser.new_context().new_page()
    again.goto(url)
    again.wait_for_selector("#replay-error")
    assert "does not work" in again.inner_text("#replay-error")


# The result panel's main button, in the viewport and in the stage, with nothing scrolled inside.
FITS = """() => {
  const button = document.querySelector('#replay-result .panel-foot .primary');
  const stage = document.querySelector('#replay-result');
  const body = document.querySelector('#replay-result .panel-body');
  const viewer = document.querySelector('.replay-panel');
  const b = button.getBoundingClientRect(), s = stage.getBoundingClientRect();
  return {bottom: b.bottom, stageBottom: s.bottom, height: innerHeight,
          stageScrolls: stage.scrollHeight > stage.clientHeight + 1,
          bodyScrolls: body.scrollHeight > body.clientHeight + 1,
          pageScrolls: viewer.scrollHeight > viewer.clientHeight + 1};
}"""


def hand_list_changes(page: Page, k: int) -> str:
    return page.inner_text(f"#replay-hand-{k} .hand-result")


@pytest.mark.slow
def test_a_result_panel_fits_and_the_hand_list_says_its_change(browser, live, shots):
    """At 1280x800 a hand's whole result panel (its payments, the scores, Next hand) shows
    without a scroll inside it; the hand list's figure is the change the panel shows (a riichi
    winner's own stick is not counted as won)."""
    page = page_for(browser, live)
    match, events = ended_match_in_history(page, live)
    hands = tenhou6.split_hands(events)
    open_replay(page, match)
    _end_of_hand(page, 3, len(hands))
    page.screenshot(path=str(shots / "desktop-replay-result-fit-en.png"))
    fit = page.evaluate(FITS)
    assert fit["bottom"] <= fit["height"] and fit["bottom"] <= fit["stageBottom"] + 0.5, fit
    assert not fit["stageScrolls"] and not fit["bodyScrolls"] and not fit["pageScrolls"], fit
    for k, hand in enumerate(hands, start=1):
        wins = [e for e in hand if isinstance(e, HandWon)]
        if not wins:
            continue
        _end_of_hand(page, k, len(hands))
        deltas = page.locator("#replay-result tr[data-seat] .delta").evaluate_all(
            "els => els.map(e => [Number(e.closest('tr').dataset.seat), e.textContent.trim()])"
        )
        shown = dict(deltas)
        listed = hand_list_changes(page, k)
        for win in wins:
            assert shown[win.seat] in listed, (k, shown, listed)
    # Hand 3: a riichi tsumo, whose winner's change is the deltas less the stick paid.
    [win] = [e for e in hands[2] if isinstance(e, HandWon)]
    assert f"+{points(win.deltas[win.seat] - 1000)}" in hand_list_changes(page, 3)
    assert page.errors == []  # type: ignore[attr-defined]


PORTRAIT = {"width": 390, "height": 844}
# The narrowest an opponent's open tile is drawn (CSS px on screen, zoom included).
OPEN_TILE_WIDTHS = """() => [...document.querySelectorAll('#replay .opponent .tile.open-hand')]
  .map(t => t.getBoundingClientRect().width)"""


@pytest.mark.slow
@pytest.mark.parametrize("viewport", [PHONE, PORTRAIT], ids=["landscape", "portrait"])
def test_on_a_phone_the_open_hands_are_readable(browser, live, shots, viewport):
    """A phone's replay draws the opponents' open hands at a size a face can be read at (they
    were their backs' 8 px, about 6 px under the landscape board's zoom), and nothing is wider
    than the screen."""
    page = page_for(browser, live, viewport, has_touch=True, is_mobile=True)
    match, events = ended_match_in_history(page, live)
    open_replay(page, match)
    page.click("#replay-hand-3")
    for _ in range(12):
        page.click("#replay-next-turn")
    name = "phone" if viewport is PHONE else "portrait"
    page.screenshot(path=str(shots / f"{name}-replay-open-hands-en.png"))
    widths = page.evaluate(OPEN_TILE_WIDTHS)
    assert widths and min(widths) >= 13, widths
    size = page.evaluate("() => ({sw: document.documentElement.scrollWidth, w: innerWidth})")
    assert size["sw"] <= size["w"], size
    _end_of_hand(page, 3, len(tenhou6.split_hands(events)))
    page.screenshot(path=str(shots / f"{name}-replay-result-en.png"))
    fit = page.evaluate(FITS)
    # The panel's foot (the scores, its button) in view: in the stage and on the screen.
    assert fit["bottom"] <= fit["height"] and fit["bottom"] <= fit["stageBottom"] + 0.5, fit
    assert page.errors == []  # type: ignore[attr-defined]


# Each seat's name in the final standings of the replay shown: {seat: name}.
STANDINGS_NAMES = """() => Object.fromEntries([...document.querySelectorAll('#replay-result .results tr[data-seat]')]
  .map(r => [r.dataset.seat, r.querySelector('th').textContent.trim()]))"""


def standings_names(page: Page) -> dict[int, str]:
    page.click("#replay-next-turn")  # the focus into the viewer
    page.keyboard.press("End")
    page.wait_for_selector("#replay-result .match-end")
    return {int(seat): name for seat, name in page.evaluate(STANDINGS_NAMES).items()}


@pytest.mark.slow
def test_bots_are_named_as_the_table_names_them_everywhere(browser, live, tmp_path):
    """A practice match's bots have one name each at the table, in the history, in its replay,
    on its share link, in the tenhou.net/6 download and in that file opened again (they were
    "Normal bot (1)/(3)" on the link and "bot (normal)" twice in the file)."""
    page = page_for(browser, live)
    guest, _ = guest_of(page)
    engine = db.open_engine(live.settings.db_url)
    try:
        match, _ = store_ended(engine, 3, guest, seat=1)
    finally:
        engine.dispose()
    table = page.evaluate(
        "async () => { const m = await import('/src/render/table.js'); return [0, 2].map(s => m.seatName(s, 1)); }"
    )
    bots = {0: table[0], 2: table[1]}
    assert bots == {0: "Sari", 2: "Kenji"}
    open_history(page)
    listed = page.inner_text(f"tr[data-match='{match}'] .hist-seats")
    assert listed == "Sari (Normal) · You · Kenji (Normal)", listed  # "You", as at the table
    page.click(f"[data-replay='{match}']")
    page.wait_for_selector("#replay-view #replay-step")
    replayed = standings_names(page)
    assert {s: replayed[s] for s in bots} == bots and replayed[1] == "You"
    page.keyboard.press("Escape")
    page.wait_for_selector("#replay-view", state="detached")
    with page.expect_download() as download:
        page.click(f"tr[data-match='{match}'] [data-download=tenhou6]")
    path = tmp_path / "match.json"
    download.value.save_as(path)
    names = json.loads(path.read_text(encoding="utf-8"))["name"][:3]
    assert names == [bots[0], "Player 2", bots[2]], names
    page.select_option("#log-preset", "default")
    page.set_input_files("#log-file", str(path))
    page.wait_for_selector("#replay-view #replay-step")
    assert standings_names(page) == {0: bots[0], 1: "Player 2", 2: bots[2]}
    page.keyboard.press("Escape")
    page.wait_for_selector("#replay-view", state="detached")
    page.click(f"[data-share='{match}']")
    page.wait_for_selector("#share-link")
    other = browser.new_context(viewport=DESKTOP).new_page()
    other.goto(page.input_value("#share-link"))
    other.wait_for_selector("#replay-view #replay-step")
    assert standings_names(other) == {0: bots[0], 1: "Player 2", 2: bots[2]}
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.slow
def test_a_kept_log_is_listed_at_once_and_the_keys_still_work(browser, live):
    """Saving an opened file ("Save to my history") lists it in the tab under the viewer at
    once (it showed after switching tabs), and the viewer's keys go on working (the Save
    button took the focus away with it)."""
    page = page_for(browser, live)
    open_history(page)
    page.set_input_files("#log-file", str(shared_logs()[0]))
    page.wait_for_selector("#replay-view #replay-save")
    assert page.locator("#saved-logs li").count() == 0
    page.click("#replay-save")
    page.wait_for_selector("#replay-saved")
    page.wait_for_function("() => document.querySelectorAll('#saved-logs li').length === 1")
    title = page.inner_text("#replay-title")
    assert page.inner_text("#saved-logs .saved-title") in title
    before = page.inner_text("#replay-step")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("b => document.getElementById('replay-step').textContent !== b", arg=before)
    page.keyboard.press("Escape")
    page.wait_for_selector("#replay-view", state="detached")
    assert page.locator("#saved-logs li").count() == 1 and page.is_visible("#saved-logs li")
    assert page.errors == []  # type: ignore[attr-defined]


# Each history row's height and its first tool button's; each fact cell's label on screen (its
# column's header, or the label a phone shows before it).
HISTORY_ROWS = """() => [...document.querySelectorAll('#hist-server tbody tr[data-match]')].map(r => ({
  height: r.getBoundingClientRect().height,
  button: r.querySelector('.hist-tools .choice').getBoundingClientRect().height,
  labels: [...r.querySelectorAll('td[data-label]')].map(td => {
    const head = document.querySelector('#hist-server thead');
    const shown = head && getComputedStyle(head).display !== 'none';
    const before = getComputedStyle(td, '::before').content.replace(/^"|"$/g, '');
    return shown ? td.dataset.label : (before === 'none' ? '' : before);
  }),
}))"""


@pytest.mark.slow
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE, PORTRAIT], ids=["desktop", "landscape", "portrait"])
def test_history_rows_keep_their_labels_and_fit_a_line(browser, live, shots, viewport):
    """The history list at every size: on a desktop a match is one line (it took three); where
    the header row is hidden (an upright phone) each fact is labelled with its column."""
    page = page_for(browser, live, viewport)
    ended_match_in_history(page, live, seed=3)
    ended_match_in_history(page, live, seed=7)
    open_history(page)
    page.wait_for_selector("#hist-server tbody tr[data-match]")
    name = {1280: "desktop", 844: "phone", 390: "portrait"}[viewport["width"]]
    page.screenshot(path=str(shots / f"{name}-history-en.png"))
    rows = page.evaluate(HISTORY_ROWS)
    columns = ["Ended", "Rules", "Players", "Place", "Points"]
    assert len(rows) == 2
    for row in rows:
        assert row["labels"] == columns, row
        if viewport is DESKTOP:
            assert row["height"] < 2 * row["button"] + 8, row  # one line of facts and tools
    size = page.evaluate("() => ({sw: document.documentElement.scrollWidth, w: innerWidth})")
    assert size["sw"] <= size["w"], size
    assert page.errors == []  # type: ignore[attr-defined]
