"""Your data in Chromium (Playwright) against a real server and a real local SMTP server:
"Download my data" saves the server's export of this account; "Delete my account" shows what
goes and what stays, is confirmed with the code mailed to the linked address (or the button
alone without one), and leaves the browser on the start screen as a fresh guest while the
other player's history keeps the match they shared, the seat anonymous.  Both languages, at
desktop and phone width (the screenshots are for review)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page

from sanma.store import accounts as acc
from sanma.store import db
from sanma.store.guests import create_guest
from tests.fixtures.account_pages import fresh_page, open_account
from tests.fixtures.account_pages import live as live  # the account pages' live (mail to inbox), not conftest's
from tests.fixtures.browser import PHONE, assert_no_overflow
from tests.fixtures.privacy import room_match
from tests.fixtures.server import LiveServer


def token_of(page: Page) -> str:
    return str(page.evaluate("() => localStorage.getItem('sanma.token')"))


def account(server: LiveServer, token: str) -> httpx.Response:
    return httpx.get(f"{server.http}/api/account", headers={"Authorization": f"Bearer {token}"}, timeout=30)


@pytest.mark.slow
def test_download_and_delete_with_the_mailed_code(browser, live, inbox, shots):
    page = fresh_page(browser, live)
    open_account(page)
    page.fill("#acct-name", "Ann")
    page.click("#acct-name-save")
    page.wait_for_function("() => document.getElementById('acct-name-shown').textContent === 'Ann'")
    page.fill("#link-email", "ann@example.org")
    page.click("#link-send")
    page.wait_for_selector("#link-code", state="visible")
    page.fill("#link-code", inbox.code("ann@example.org"))
    page.click("#link-verify")
    page.wait_for_selector("#acct-email-state:has-text('a***n@example.org')")
    ann_token = token_of(page)
    ann = str(account(live, ann_token).json()["guest"])
    engine = db.open_engine(live.settings.db_url)
    try:
        bob = create_guest(engine)
        acc.set_display_name(engine, bob.id, "Bob")
        shared = room_match(engine, [ann, bob.id, None], 3)
    finally:
        engine.dispose()

    # The export: this account's rows, nothing of Bob's but the name his seat showed.
    with page.expect_download() as saved:
        page.click("#data-export")
    doc = json.loads(Path(saved.value.path()).read_text(encoding="utf-8"))
    assert saved.value.suggested_filename.startswith("sanma-account-")
    assert doc["guest"]["id"] == ann and doc["account"]["display_name"] == "Ann"
    assert [m["id"] for m in doc["matches"]] == [shared]
    assert bob.id not in json.dumps(doc) and bob.token not in json.dumps(doc)

    # The confirmation says what goes and what stays, and asks for the mailed code.
    page.click("#delete-open")
    page.wait_for_selector("#delete-box")
    assert page.get_attribute("#delete-open", "aria-expanded") == "true"
    assert "anonymous" in page.inner_text("#delete-box")
    page.locator("#delete-box").scroll_into_view_if_needed()
    assert_no_overflow(page)
    page.screenshot(path=str(shots / "desktop-account-delete-en.png"))
    page.fill("#delete-email", "ann@example.org")
    page.click("#delete-send")
    page.wait_for_selector("#delete-code", state="visible")
    page.fill("#delete-code", "00000000")
    page.click("#delete-confirm")
    page.wait_for_selector("#acct-error:has-text('Wrong or expired code')")
    page.fill("#delete-code", inbox.code("ann@example.org", 2))
    page.click("#delete-confirm")

    # Back on the start screen as a fresh guest; the old token is gone, as is the local history.
    page.wait_for_selector("#account-sheet", state="hidden")
    page.wait_for_selector("#play", state="visible")
    page.wait_for_function(
        "t => localStorage.getItem('sanma.token') && localStorage.getItem('sanma.token') !== t", arg=ann_token
    )
    assert account(live, ann_token).status_code == 401
    fresh = account(live, token_of(page)).json()
    assert fresh["guest"] != ann and fresh["name"] is None and fresh["email"] is None
    assert page.evaluate("() => localStorage.getItem('sanma.history')") is None
    assert page.errors == []  # type: ignore[attr-defined]

    # Bob's history keeps the match, seat 0 anonymous.
    history = httpx.get(
        f"{live.http}/api/account/history", headers={"Authorization": f"Bearer {bob.token}"}, timeout=30
    ).json()
    [entry] = history["matches"]
    assert entry["match"] == shared and [s["name"] for s in entry["seats"]] == [None, "Bob", None]


@pytest.mark.parametrize(
    ("name", "viewport", "lang"), [("phone", PHONE, "id"), ("narrow", {"width": 360, "height": 740}, "en")]
)
def test_an_account_without_an_address_deletes_with_the_button(browser, live, shots, name, viewport, lang):
    page = fresh_page(browser, live, lang=lang, viewport=viewport)
    open_account(page)
    old = token_of(page)
    page.click("#delete-open")
    page.wait_for_selector("#delete-box")
    assert page.locator("#delete-email").count() == 0  # nothing to mail: the button confirms
    page.locator("#delete-box").scroll_into_view_if_needed()
    assert_no_overflow(page)
    page.screenshot(path=str(shots / f"{name}-account-delete-{lang}.png"))
    page.click("#delete-cancel")
    page.wait_for_selector("#delete-box", state="detached")
    assert page.get_attribute("#delete-open", "aria-expanded") == "false"
    page.click("#delete-open")
    page.click("#delete-confirm")
    page.wait_for_selector("#play", state="visible")
    page.wait_for_function("t => localStorage.getItem('sanma.token') !== t", arg=old)
    assert account(live, old).status_code == 401
    assert page.errors == []  # type: ignore[attr-defined]
