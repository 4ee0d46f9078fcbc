"""The browser's tile-by-tile fair-wall check (issue 15): web/src/fairness.js `checkSeen`, the
port of sanma/engine/fairness.py `check_seen`, against the engine's on seeded hands as a seat
sees them (honest deals agree, a changed one does not, whenever the engine's check says so);
in a played match, a tile shown to the seat that is not where the wall rebuilt from the
revealed seed put it, or a revealed salt that does not open its commitment, makes the
match-end line fail, never "checked"; the replay viewer checks a finished match's tiles
against the walls rebuilt from its seed."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from sanma.engine import fairness as fair
from sanma.engine.tiles import tile_name
from sanma.engine.visibility import redact
from sanma.engine.wall import deal_from_seed
from sanma.server.codec import event_to_wire
from tests.fixtures.browser import DESKTOP, start_match, step
from tests.fixtures.fair_walls import page as page  # a loaded page that fails on page errors
from tests.fixtures.replay_viewer import ended_match_in_history, open_replay
from tests.fixtures.replays import hands_of, played_match
from tests.fixtures.server import LiveServer


def _js_seen(page: Any, deal: dict[str, Any], events: list[dict[str, Any]], red: bool) -> list[str]:
    return page.evaluate(
        "async (a) => (await import('/src/fairness.js')).checkSeen(a.deal, a.events, a.red)",
        {"deal": deal, "events": events, "red": red},
    )


def _changed(deal: dict[str, Any], where: str, i: int, j: int) -> dict[str, Any]:
    """``deal`` with tiles ``i`` and ``j`` of ``where`` ("live" or a seat's hand) swapped."""
    out = json.loads(json.dumps(deal))
    seq = out["live"] if where == "live" else out["hands"][int(where)]
    seq[i], seq[j] = seq[j], seq[i]
    return out


def _swap_with_live(deal: dict[str, Any], seat: int, i: int, k: int) -> dict[str, Any]:
    """``deal`` with tile ``i`` of seat's hand and live tile ``k`` exchanged."""
    out = json.loads(json.dumps(deal))
    out["hands"][seat][i], out["live"][k] = out["live"][k], out["hands"][seat][i]
    return out


# Changes to a deal: (where, i, j) swaps tile i of `where` with tile j of the live wall ("live":
# two live tiles; "0"/"1"/"2": a seat's starting hand).
CHANGES = [("live", 0, 7), ("live", 2, 30), ("0", 3, 1), ("1", 5, 4), ("2", 0, 9)]


def _changed(deal: dict[str, Any], where: str, i: int, j: int) -> tuple[dict[str, Any], bool]:
    """``deal`` with the two tiles swapped, and whether their names differ (a swap of two copies
    of one kind changes nothing the page can see: it compares names, the engine copies)."""
    out = json.loads(json.dumps(deal))
    seq = out["live"] if where == "live" else out["hands"][int(where)]
    seq[i], out["live"][j] = out["live"][j], seq[i]
    return out, tile_name(seq[i]) != tile_name(out["live"][j])


@pytest.mark.slow
def test_check_seen_agrees_with_the_engine_on_seeded_hands(page: Any) -> None:
    """Every hand of two seeded matches, as seat 0 saw it and as the whole log: the honest deal
    passes both checks; a changed deal fails in JavaScript exactly when it fails in Python,
    whenever the change is one of names."""
    compared = caught = 0
    for seed in (56, 7):
        for k, events in enumerate(hands_of(list(played_match(seed).events))):
            deal = deal_from_seed(seed, k)
            honest = fair.deal_to_json(deal)
            for viewer in (0, None):
                shown = [e if viewer is None else redact(e, viewer) for e in events]
                wire = [event_to_wire(e, True) for e in shown]
                assert fair.check_seen(deal, shown) == [] and _js_seen(page, honest, wire, True) == [], (seed, k)
                for change in CHANGES:
                    changed, renamed = _changed(honest, *change)
                    py = fair.check_seen(fair.deal_from_json(changed), shown)
                    js = _js_seen(page, changed, wire, True)
                    assert bool(js) == (bool(py) and renamed), (seed, k, viewer, change, py, js)
                    compared += 1
                    caught += bool(js)
    assert compared == 2 * 3 * 2 * len(CHANGES) and caught >= compared // 2, (compared, caught)


def _other(tile: str) -> str:
    """A tile name other than ``tile``."""
    return "2p" if tile != "2p" else "3p"


def _page_with_changed_frames(browser: Any, live: LiveServer, change: Any) -> Any:
    """A page whose socket passes each frame the server sends through ``change`` (a dict in,
    a dict out)."""
    page = browser.new_page(viewport=DESKTOP)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def down(message: Any) -> None:
            ws.send(json.dumps(change(json.loads(message))) if isinstance(message, str) else message)

        server.on_message(down)  # what the page sends still goes to the server unchanged

    page.route_web_socket(re.compile(r"/ws"), route)
    page.add_init_script("localStorage.setItem('sanma.lang', 'en')")
    page.goto(live.http + "/")
    return page


def _other_dora(frame: dict[str, Any]) -> dict[str, Any]:
    """Every HandStarted with another first dora indicator than the server dealt: as if the
    server committed to one wall and showed the seat another."""
    e = frame.get("e") if frame.get("t") == "event" else None
    if e and e.get("type") == "HandStarted":
        e["dora_indicator"] = _other(e["dora_indicator"])
    return frame


def _other_hand_salt(frame: dict[str, Any]) -> dict[str, Any]:
    """The fair_seed frame with hand 0's salt changed: its commitment no longer opens."""
    if frame.get("t") == "fair_seed":
        frame["hand_salts"][0] = "0" * 32
    return frame


def _match_end_line(page: Any) -> Any:
    """Play the page's one-hand match to its end; the match-end panel's wall line."""
    start_match(page, length="one-hand")
    for _ in range(300):
        if step(page) == "hand-end":
            break
    else:
        raise AssertionError("the hand did not end")
    line = page.wait_for_selector("[data-testid=hand-end] [data-testid=fair]", timeout=20_000)
    assert line.get_attribute("data-fair") == "committed"  # nothing is checked, or revealed, yet
    page.click("[data-panel=next]")
    selector = "[data-testid=match-end] [data-testid=fair]:not([data-fair=checking])"
    return page.wait_for_selector(selector, timeout=20_000)


@pytest.mark.slow
def test_a_tile_shown_where_the_seeds_wall_did_not_put_it_fails_the_match_end_line(
    browser: Any, live: LiveServer
) -> None:
    """The reveal opens every commitment (the server is honest about the walls it committed
    to); the seat was shown another dora indicator than the wall's: the match-end line says
    the check failed, never "checked"."""
    page = _page_with_changed_frames(browser, live, _other_dora)
    line = _match_end_line(page)
    assert line.get_attribute("data-fair") == "mismatch" and line.get_attribute("data-why") == "seen"
    assert "hand 0: the first dora indicator differs" in (line.get_attribute("data-problems") or "")
    assert (
        line.inner_text()
        == "Wall check failed: a tile you saw is not where the wall rebuilt from the revealed seed put it."
    )
    assert "checked" not in line.inner_text().lower()
    assert page.errors == []
    page.close()


@pytest.mark.slow
def test_a_hand_salt_that_does_not_open_its_commitment_fails_the_match_end_line(browser: Any, live: LiveServer) -> None:
    page = _page_with_changed_frames(browser, live, _other_hand_salt)
    line = _match_end_line(page)
    assert (line.get_attribute("data-fair"), line.get_attribute("data-why")) == ("mismatch", "mismatch")
    assert "hand 0: the hand commitment does not open" in (line.get_attribute("data-problems") or "")
    assert line.inner_text().startswith("Wall check failed:") and "checked" not in line.inner_text().lower()
    assert page.errors == []
    page.close()


def _first_result(page: Any) -> Any:
    """The first hand's result panel (one event before the second hand's deal) and its wall line."""
    page.click("#replay-hand-2")
    page.keyboard.press("Shift+ArrowLeft")
    return page.wait_for_selector("#replay-result .hand-end [data-testid=fair]", timeout=20_000)


@pytest.mark.slow
def test_the_replay_viewer_checks_a_finished_matchs_tiles_against_its_seed(page: Any, live: LiveServer) -> None:
    match, _ = ended_match_in_history(page, live)
    open_replay(page, match)
    line = _first_result(page)
    assert line.get_attribute("data-fair") == "ok"
    assert (
        line.inner_text()
        == "Wall checked: every tile of this hand is where the wall rebuilt from the match's seed put it."
    )
    # A replay without a seed (a running match, an opened tenhou.net/6 log) gets no line at all.
    unseeded = [{"type": "MatchStarted", "seed": None, "rules": {}, "wall_algorithm": "tenhou.net/6"}]
    assert page.evaluate("async (e) => (await import('/src/fairness.js')).checkReplay(e, [{}])", unseeded) == []


@pytest.mark.slow
def test_the_replay_viewer_fails_a_hand_whose_tiles_the_seed_does_not_give(page: Any, live: LiveServer) -> None:
    """The replay answer with the first hand's dora indicator changed: that hand fails, the
    next one is still checked."""
    match, _ = ended_match_in_history(page, live)

    def change(route: Any) -> None:
        answer = route.fetch()
        data = answer.json()
        first = next(e for e in data["events"] if e["type"] == "HandStarted")
        first["dora_indicator"] = _other(first["dora_indicator"])
        route.fulfill(response=answer, body=json.dumps(data))

    page.route(re.compile(r"/api/matches/[^/]+/replay$"), change)
    open_replay(page, match)
    line = _first_result(page)
    assert (line.get_attribute("data-fair"), line.get_attribute("data-why")) == ("mismatch", "seen")
    assert "checked" not in line.inner_text().lower()
    page.click("#replay-hand-3")
    page.keyboard.press("Shift+ArrowLeft")
    second = page.wait_for_selector("#replay-result .hand-end [data-testid=fair]", timeout=20_000)
    assert second.get_attribute("data-fair") == "ok"
