"""The replay viewer's match-end panel says why a match ended as the live table's does
(``web/src/ending.js``): a stored East match that the engine ended by all-last (found as
``tests/test_web_all_last.py`` finds them: the demo's players, fixed seeds) gets the line, in
both languages; a match that ran its course does not."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from sanma.cli.demo_cmd import play_match
from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.server.codec import event_to_store, rules_to_json
from sanma.store import db
from sanma.store import matches as store
from tests.fixtures.all_last import engine_all_last
from tests.fixtures.browser import DESKTOP
from tests.fixtures.replay_viewer import guest_of, open_history, page_for
from tests.fixtures.replay_viewer import live as live  # the replay viewer's live, not conftest's

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser

    from tests.fixtures.server import LiveServer

ALL_LAST_SEED, RAN_ITS_COURSE_SEED = 6, 2  # East matches of the demo's players (Expert bots)
LINE = "#replay-result .match-end [data-testid=end-reason]"


def store_match(live: LiveServer, guest: str, match: Match) -> str:
    """``match`` stored as an ended match of ``guest`` at seat 0, as the server stores one."""
    engine = db.open_engine(live.settings.db_url)
    try:
        record = store.create_match(
            engine, guest_id=guest, rules=rules_to_json(match.rules), seed=match.seed, bot_level="normal", human_seat=0
        )
        store.append_events(engine, record.id, 1, [event_to_store(e) for e in match.events], ended=True)
        return record.id
    finally:
        engine.dispose()


@pytest.mark.slow
@pytest.mark.parametrize(("lang", "words"), [("en", "all-last"), ("id", "all-last")])
def test_the_replays_match_end_panel_says_all_last(
    browser: Browser, live: LiveServer, shots: Path, lang: str, words: str
) -> None:
    all_last, ran = (play_match(seed, Rules(length="east")) for seed in (ALL_LAST_SEED, RAN_ITS_COURSE_SEED))
    assert engine_all_last(all_last) and not engine_all_last(ran)  # the seeds are what they say
    page = page_for(browser, live, DESKTOP)
    page.evaluate("lang => localStorage.setItem('sanma.lang', lang)", lang)
    page.reload()
    page.wait_for_selector("#play")
    guest, _ = guest_of(page)
    stored = {"all_last": store_match(live, guest, all_last), "ran": store_match(live, guest, ran)}
    open_history(page)
    shown = {}
    for name, match in stored.items():
        page.click(f"[data-replay='{match}']")
        page.wait_for_selector("#replay-view #replay-step")
        page.keyboard.press("End")
        page.wait_for_selector("#replay-result .match-end")
        shown[name] = page.locator(LINE).count()
        if name == "all_last":
            assert page.get_attribute(LINE, "data-reason") == "all_last"
            assert words in page.inner_text(LINE)
            page.screenshot(path=str(shots / f"desktop-replay-all-last-{lang}.png"))
        page.keyboard.press("Escape")
        page.wait_for_selector("#replay-view", state="detached")
    assert shown == {"all_last": 1, "ran": 0}
    assert page.errors == []  # type: ignore[attr-defined]
