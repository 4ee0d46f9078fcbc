"""Tenhou's mjlog in the browser (Chromium, a live server): the history tab's "open a log" takes
a gzip-packed ``.mjlog`` (unpacked in the page, so what is kept is the log's text), shows it
in the viewer, keeps it, and says so plainly when a packed file is damaged."""

from __future__ import annotations

import gzip
from pathlib import Path

import httpx
import pytest

from tests.fixtures.mjlog import GAME
from tests.fixtures.replay_viewer import guest_of, open_history, page_for
from tests.fixtures.replay_viewer import live as live  # the replay viewer's live, not conftest's


@pytest.mark.slow
def test_a_packed_mjlog_opens_in_the_viewer_and_is_kept_as_text(browser, live, tmp_path: Path):
    page = page_for(browser, live)
    open_history(page)
    assert ".mjlog" in (page.get_attribute("#log-file", "accept") or "")
    assert "mjlog" in page.inner_text("#log-help")
    path = tmp_path / "2026011603gm-00b9-0000-00000000.mjlog"
    path.write_bytes(gzip.compress(GAME.encode()))
    page.set_input_files("#log-file", str(path))
    page.wait_for_selector("#replay-view #replay-save")
    assert page.locator("#replay-differs").count() == 0
    assert page.locator(".replay-hands li").count() == 2
    assert "三鳳南喰赤" in page.inner_text("#replay-title")
    page.click("#replay-save")
    page.wait_for_selector("#replay-saved")
    page.wait_for_function("() => document.querySelectorAll('#saved-logs li').length === 1")
    page.keyboard.press("Escape")
    page.wait_for_selector("#replay-view", state="detached")

    # A damaged packed file: the page's own refusal, nothing sent, nothing opened.
    page.set_input_files(
        "#log-file", {"name": "cut.mjlog", "mimeType": "application/gzip", "buffer": path.read_bytes()[:-40]}
    )
    page.wait_for_function("() => document.getElementById('acct-error').textContent !== ''")
    assert "not text" in page.inner_text("#acct-error")
    assert page.locator("#replay-view").count() == 0
    assert page.errors == []  # type: ignore[attr-defined]

    # What was kept is the log's XML, so the server reads it again as it reads any kept log.
    _, token = guest_of(page)
    auth = {"Authorization": f"Bearer {token}"}
    (kept,) = httpx.get(f"{live.http}/api/replays", headers=auth).json()["logs"]
    again = httpx.get(f"{live.http}/api/replays/{kept['id']}", headers=auth).json()
    assert [h["match"] for h in again["hands"]] == [True, True]
