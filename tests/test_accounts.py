"""The accounts API on a real uvicorn server with a real local SMTP server (aiosmtpd): names,
linking and recovering by e-mail (codes read from the received mail), answers that do not
tell registered addresses apart, rate limits, 100 parallel check-ins on SQLite and PostgreSQL,
the shop, the ledger, a practice match that leaves the coins alone, history and replay."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from email import message_from_bytes
from email.header import decode_header, make_header
from pathlib import Path
from typing import Any, get_args

import httpx
import pytest
from sqlalchemy import text

from sanma.server.codec import event_to_wire
from sanma.server.mail import Purpose, code_message
from sanma.server.settings import Settings
from sanma.store import accounts as acc
from sanma.store import db
from sanma.store.matches import load_events
from tests.fixtures.accounts import Inbox, auth, get, link, post
from tests.fixtures.i18n import LANGS
from tests.fixtures.server import Client, LiveServer, full_log, new_guest, new_match, play_to_end
from tests.services import ServeProcess, free_port, scratch_postgres

XSS = "<img src=x onerror=f()>"


@pytest.fixture
def settings(tmp_path: Path, inbox: Inbox) -> Settings:
    return Settings(
        port=free_port(),
        data_dir=tmp_path / "data",
        bot_delay_s=0.0,
        rate_per_s=200.0,
        rate_burst=400,
        smtp_host="127.0.0.1",
        smtp_port=inbox.port,
        smtp_starttls=False,
        account_writes_per_min=1000,
    )


@pytest.fixture
def server(settings: Settings) -> Iterator[LiveServer]:
    live = LiveServer(settings)
    yield live
    live.stop()


# -- profile --------------------------------------------------------------------------------


@pytest.mark.slow
def test_profile_and_display_name(server):
    token = new_guest(server)
    profile = get(server, "/api/account", token).json()
    assert profile["name"] is None and profile["email"] is None and profile["coins"] == 0
    assert (profile["tile_back"], profile["cloth"]) == ("back-amber", "cloth-green")
    assert profile["checked_in_today"] is False and profile["next_checkin_coins"] == 100
    r = post(server, "/api/account/name", token, {"name": f"  {XSS}  "})
    assert r.status_code == 200 and r.json()["name"] == XSS  # stored as text; the page escapes it
    assert post(server, "/api/account/name", token, {"name": "Ñoño 山田"}).json()["name"] == "Ñoño 山田"
    for bad in ("", "   ", "x" * 25, "a\u0000b", "evil\u202eman", "tab\there"):
        r = post(server, "/api/account/name", token, {"name": bad})
        assert (r.status_code, r.json()["error"]) == (422, "bad_name"), bad
    assert post(server, "/api/account/name", None, {"name": "x"}).status_code == 401


# -- e-mail ---------------------------------------------------------------------------------


def test_link_an_address_with_the_mailed_code(server, inbox):
    token = new_guest(server)
    assert post(server, "/api/account/email", token, {"email": "Ann@Example.org", "lang": "id"}).json() == {
        "sent": True
    }
    mail = inbox.wait_for("ann@example.org")
    assert mail["Subject"].startswith("Sanma: kode")
    code = inbox.code("ann@example.org")
    wrong = post(server, "/api/account/email/verify", token, {"email": "ann@example.org", "code": "00000000"})
    if code != "00000000":
        assert (wrong.status_code, wrong.json()["error"]) == (400, "bad_code")
    r = post(server, "/api/account/email/verify", token, {"email": "ann@example.org", "code": code})
    assert r.status_code == 200 and r.json()["email"] == "a***n@example.org"
    again = post(server, "/api/account/email/verify", token, {"email": "ann@example.org", "code": code})
    assert again.status_code == 400  # single use
    # Another guest may ask, but the address stays with the first account.
    other = new_guest(server)
    post(server, "/api/account/email", other, {"email": "ann@example.org"})
    r = post(
        server,
        "/api/account/email/verify",
        other,
        {"email": "ann@example.org", "code": inbox.code("ann@example.org", 2)},
    )
    assert (r.status_code, r.json()["error"]) == (409, "email_taken")


@pytest.mark.slow
def test_recover_on_a_new_browser(server, inbox, settings):
    old = new_guest(server)
    post(server, "/api/account/name", old, {"name": "Sari"})
    link(server, inbox, old, "sari@example.org")
    post(server, "/api/account/checkin", old)
    fresh = new_guest(server)
    r = post(server, "/api/account/recover", fresh, {"email": "SARI@example.org"})
    assert (r.status_code, r.json()) == (202, {"sent": True})
    code = inbox.code("sari@example.org", 2)
    r = post(server, "/api/account/recover/verify", fresh, {"email": "sari@example.org", "code": code})
    assert r.status_code == 200, r.text
    token = r.json()["token"]
    profile = get(server, "/api/account", token).json()
    assert (profile["name"], profile["coins"], profile["email"]) == ("Sari", 100, "s***i@example.org")
    assert get(server, "/api/account", old).status_code == 401  # the account moved
    assert get(server, "/api/account", fresh).status_code == 401  # the browser's empty guest retired
    again = post(server, "/api/account/recover/verify", None, {"email": "sari@example.org", "code": code})
    assert again.status_code == 400


@pytest.mark.slow
def test_a_stranger_cannot_lock_the_owner_out(tmp_path, inbox):
    """A real ``sanma serve`` behind a (pretend) proxy on loopback, so that the owner and the
    stranger have addresses of their own.  The stranger uses up every code it may ask for the
    owner's address and tries wrong codes; the owner, on a new browser at home, still gets a
    code and recovers, and the owner's signed-in guest keeps its own allowance."""
    env = {
        "SANMA_DATA_DIR": str(tmp_path / "data"),
        "SANMA_BOT_DELAY": "0",
        "SANMA_SMTP_HOST": "127.0.0.1",
        "SANMA_SMTP_PORT": str(inbox.port),
        "SANMA_SMTP_STARTTLS": "0",
        "SANMA_TRUSTED_PROXIES": "127.0.0.1",
    }
    live = ServeProcess(free_port(), env, tmp_path / "serve.log")
    home, away = {"X-Forwarded-For": "198.51.100.10"}, {"X-Forwarded-For": "203.0.113.66"}

    def call(path: str, token: str | None, body: Any, where: dict[str, str]) -> httpx.Response:
        headers = {**(auth(token) if token else {}), **where}
        return httpx.post(f"{live.http}{path}", json=body, headers=headers, timeout=30)

    def new(where: dict[str, str]) -> str:
        return str(httpx.post(f"{live.http}/api/guest", headers=where).json()["token"])

    try:
        owner = new(home)
        email = "owner@example.org"
        assert call("/api/account/email", owner, {"email": email}, home).status_code == 202
        linked = call("/api/account/email/verify", owner, {"email": email, "code": inbox.code(email)}, home)
        assert linked.status_code == 200
        mails = 1
        # The stranger, with fresh guests and none: its own allowance for that address runs out...
        asked = [call("/api/account/recover", new(away) if i % 2 else None, {"email": email}, away) for i in range(7)]
        assert [r.status_code for r in asked] == [202] * 5 + [429, 429]
        mails += 5
        inbox.wait_for(email, mails)
        stranger = new(away)
        for guess in ("00000000", "11111111", "22222222", "33333333", "44444444", "55555555"):
            r = call("/api/account/recover/verify", stranger, {"email": email, "code": guess}, away)
            assert r.status_code == 400
        # ...and none of it touches the owner's: a new browser at home asks, gets a code, recovers.
        browser = new(home)
        assert call("/api/account/recover", browser, {"email": email}, home).status_code == 202
        mails += 1
        code = inbox.code(email, mails)
        # A code is tried and spent only by whoever asked for it: the stranger cannot use it.
        assert call("/api/account/recover/verify", stranger, {"email": email, "code": code}, away).status_code == 400
        r = call("/api/account/recover/verify", browser, {"email": email, "code": code}, home)
        assert r.status_code == 200, r.text
        signed_in = r.json()["token"]
        # The owner's signed-in guest keeps an allowance of its own, even from the stranger's network.
        assert call("/api/account/recover", signed_in, {"email": email}, away).status_code == 202
    finally:
        live.stop()


@pytest.mark.slow
def test_answers_do_not_reveal_whether_an_address_is_registered(settings, inbox):
    # Limits raised so that every timed request does the full work (none is refused early).
    roomy = settings.with_changes(
        codes_per_address_per_h=1000,
        codes_per_client_per_h=1000,
        codes_per_guest_per_h=1000,
        code_checks_per_client_per_h=1000,
    )
    server = LiveServer(roomy)
    try:
        owner = new_guest(server)
        link(server, inbox, owner, "known@example.org")
        asker = new_guest(server)
        known = post(server, "/api/account/recover", asker, {"email": "known@example.org"})
        unknown = post(server, "/api/account/recover", asker, {"email": "unknown@example.org"})
        assert (known.status_code, known.content) == (unknown.status_code, unknown.content)
        assert (known.status_code, known.json()) == (202, {"sent": True})
        inbox.wait_for("known@example.org", 2)
        for email in ("known@example.org", "unknown@example.org"):
            r = post(server, "/api/account/recover/verify", asker, {"email": email, "code": "12345678"})
            assert (r.status_code, r.json()["error"]) == (400, "bad_code")
        # The same answers, request after request (the same work is done for both: a code row is
        # written either way; timing is a benchmark's business, not a test's: bench/account_timing.py).
        emails = ("known@example.org", "unknown@example.org")
        with httpx.Client(base_url=server.http, headers=auth(asker), timeout=30) as client:
            for i in range(25):
                asked = [client.post("/api/account/recover", json={"email": e}) for e in emails]
                assert {(r.status_code, r.content) for r in asked} == {(202, known.content)}
                body = {"code": f"{i:08d}"}
                checked = [client.post("/api/account/recover/verify", json={"email": e, **body}) for e in emails]
                assert {(r.status_code, r.json()["error"]) for r in checked} == {(400, "bad_code")}
        time.sleep(0.3)
        assert len([m for m in inbox.messages if m["To"] == "known@example.org"]) == 27
        assert not [m for m in inbox.messages if m["To"] == "unknown@example.org"]  # mail only when registered
    finally:
        server.stop()


@pytest.mark.slow
def test_codes_are_rate_limited_per_address_and_client(server, inbox):
    token = new_guest(server)
    answers = [post(server, "/api/account/email", token, {"email": "busy@example.org"}).status_code for _ in range(7)]
    assert answers[:5] == [202] * 5 and answers[5:] == [429, 429]
    r = post(server, "/api/account/recover", None, {"email": "busy@example.org"})
    assert (r.status_code, r.json()["error"]) == (429, "rate_limited")  # the same address, another route
    assert post(server, "/api/account/email", token, {"email": "not-an-address"}).status_code == 422


def test_a_code_dies_after_five_wrong_tries(server, inbox):
    token = new_guest(server)
    post(server, "/api/account/email", token, {"email": "t@example.org"})
    code = inbox.code("t@example.org")
    wrong = [c for c in ("00000000", "11111111", "22222222", "33333333", "44444444", "55555555") if c != code][:5]
    for guess in wrong:
        assert (
            post(server, "/api/account/email/verify", token, {"email": "t@example.org", "code": guess}).status_code
            == 400
        )
    r = post(server, "/api/account/email/verify", token, {"email": "t@example.org", "code": code})
    assert r.status_code == 400


def test_without_an_smtp_host_mail_goes_to_the_outbox(tmp_path):
    settings = Settings(port=free_port(), data_dir=tmp_path / "data", bot_delay_s=0.0)
    live = LiveServer(settings)
    try:
        token = new_guest(live)
        assert post(live, "/api/account/email", token, {"email": "dev@example.org"}).status_code == 202
        deadline = time.monotonic() + 10
        while not list((tmp_path / "data" / "outbox").glob("*.eml")):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        [eml] = (tmp_path / "data" / "outbox").glob("*.eml")
        mail = message_from_bytes(eml.read_bytes())
        assert mail["To"] == "dev@example.org" and re.search(r"\b\d{8}\b", str(mail.get_payload()))
    finally:
        live.stop()


# -- coins ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    with scratch_postgres() as url:
        yield url


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_hundred_parallel_checkins_grant_once(request, tmp_path, backend):
    # A hundred connections at once from 127.0.0.1: above the per-address cap, not this test's subject.
    settings = Settings(
        port=free_port(),
        data_dir=tmp_path / "data",
        bot_delay_s=0.0,
        account_writes_per_min=10_000,
        http_connections_per_address=200,
    )
    overrides: dict[str, Any] = {}
    if backend == "postgresql":
        engine = db.open_engine(request.getfixturevalue("pg_url"))
        with engine.begin() as conn:
            conn.execute(text("DROP SCHEMA public CASCADE"))
            conn.execute(text("CREATE SCHEMA public"))
        overrides["engine"] = engine
    live = LiveServer(settings, **overrides)
    try:
        token = new_guest(live)

        async def flood() -> list[httpx.Response]:
            async with httpx.AsyncClient(base_url=live.http, headers=auth(token), timeout=60) as client:
                return await asyncio.gather(*(client.post("/api/account/checkin") for _ in range(100)))

        answers = asyncio.run(flood())
        assert [r.status_code for r in answers] == [200] * 100
        assert sum(r.json()["granted"] for r in answers) == 1
        assert {r.json()["balance"] for r in answers} == {100}
        ledger = get(live, "/api/account/ledger", token).json()
        assert ledger["balance"] == 100 == sum(e["delta"] for e in ledger["entries"])
        assert get(live, "/api/account", token).json()["checked_in_today"] is True
    finally:
        live.stop()
        if "engine" in overrides:
            overrides["engine"].dispose()


@pytest.mark.slow
def test_shop_buy_and_equip(server):
    token = new_guest(server)
    items = httpx.get(f"{server.http}/api/shop").json()["items"]
    assert {i["slot"] for i in items} == {"tile_back", "cloth"} and len(items) >= 8
    assert post(server, "/api/shop/buy", token, {"item": "back-indigo"}).json()["error"] == "not_enough_coins"
    assert post(server, "/api/shop/buy", token, {"item": "nope"}).status_code == 404
    assert post(server, "/api/shop/buy", token, {"item": "back-amber"}).json()["error"] == "free_item"
    r = post(server, "/api/account/equip", token, {"slot": "tile_back", "item": "back-indigo"})
    assert (r.status_code, r.json()["error"]) == (409, "not_owned")
    post(server, "/api/account/checkin", token)
    r = post(server, "/api/shop/buy", token, {"item": "back-indigo"})
    assert r.json() == {"item": "back-indigo", "balance": 0}
    assert post(server, "/api/shop/buy", token, {"item": "back-indigo"}).json()["error"] == "already_owned"
    assert (
        post(server, "/api/account/equip", token, {"slot": "cloth", "item": "back-indigo"}).json()["error"]
        == "wrong_slot"
    )
    profile = post(server, "/api/account/equip", token, {"slot": "tile_back", "item": "back-indigo"}).json()
    assert profile["tile_back"] == "back-indigo" and "back-indigo" in profile["owned"] and profile["coins"] == 0
    ledger = get(server, "/api/account/ledger", token).json()
    assert [(e["delta"], e["reason"]) for e in ledger["entries"]] == [(100, "checkin"), (-100, "buy")]
    assert sum(e["delta"] for e in ledger["entries"]) == ledger["balance"] == 0
    profile = post(server, "/api/account/equip", token, {"slot": "tile_back", "item": None}).json()
    assert profile["tile_back"] == "back-amber"


def test_writes_are_rate_limited(tmp_path):
    settings = Settings(port=free_port(), data_dir=tmp_path / "data", account_writes_per_min=5)
    live = LiveServer(settings)
    try:
        token = new_guest(live)
        codes = [post(live, "/api/account/checkin", token).status_code for _ in range(7)]
        assert codes[:5] == [200] * 5 and codes[5:] == [429, 429]
    finally:
        live.stop()


# -- matches, history, replay ---------------------------------------------------------------


@pytest.mark.slow
def test_a_match_leaves_the_coins_alone_and_shows_in_history_with_an_open_replay(server, settings):
    token = new_guest(server)
    post(server, "/api/account/name", token, {"name": "Tester"})
    post(server, "/api/account/checkin", token)
    before = get(server, "/api/account/ledger", token).json()
    match = new_match(server, token, seat=1)
    client = Client(server, token, match)
    try:
        play_to_end(client, client.next_prompt_or_end())
    finally:
        client.close()
    deadline = time.monotonic() + 10
    while not get(server, "/api/account/history", token).json()["matches"]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert get(server, "/api/account/ledger", token).json() == before  # no cost, no award
    [entry] = get(server, "/api/account/history", token).json()["matches"]
    assert (entry["match"], entry["seat"], entry["kind"]) == (match, 1, "practice")
    assert [s["you"] for s in entry["seats"]] == [False, True, False]
    assert entry["seats"][1]["name"] == "Tester" and entry["seats"][0]["bot_level"] == "beginner"
    assert entry["placement"] in (1, 2, 3) and entry["points"] == entry["result"]["points"][1]
    replay = get(server, f"/api/matches/{match}/replay", token).json()
    engine = db.open_engine(settings.db_url)
    try:
        stored = load_events(engine, match)
        guest = str(get(server, "/api/account", token).json()["guest"])
        assert acc.ledger_sum(engine, guest) == acc.get_account(engine, guest).coins == 100
    finally:
        engine.dispose()
    # The match has ended: its replay shows every hand (a running one's is redacted:
    # tests/test_replays.py).
    assert replay["seat"] == 1 and replay["open"] is True
    # As the socket sent them: each win with its fu breakdown (the stored form keeps no reading;
    # the replay plays the log again), every other event as stored.
    assert replay["events"] == [event_to_wire(e, True) for e in full_log(settings, match)]
    assert len(replay["events"]) == len(stored)
    for e in replay["events"]:
        if e["type"] == "HandWon" and e["score"]["fu"]:
            assert sum(fu for _, fu in e["score"]["fu_breakdown"]) == e["score"]["fu"], e["score"]
    hands = next(e for e in replay["events"] if e["type"] == "HandStarted")["hands"]
    assert "?" not in hands[0] + hands[1] + hands[2]
    stranger = new_guest(server)
    assert get(server, f"/api/matches/{match}/replay", stranger).status_code == 404
    assert get(server, "/api/account/history", stranger).json() == {"matches": []}


@pytest.mark.parametrize(
    ("lang", "subject"), [("ja", "Sanma: メールアドレス連携のコード"), ("ru", "Sanma: код для привязки этого адреса")]
)
def test_the_code_mail_comes_in_the_pages_language(server, inbox, lang: str, subject: str) -> None:
    # Every language the client offers has its texts: a Japanese or Russian page no longer
    # gets English mail.  The code is on its own line, as in every language, and it works.
    token = new_guest(server)
    address = f"{lang}@example.org"
    assert post(server, "/api/account/email", token, {"email": address, "lang": lang}).status_code == 202
    mail = inbox.wait_for(address)
    assert (str(make_header(decode_header(mail["Subject"]))), mail["Content-Language"]) == (subject, lang)
    payload = mail.get_payload(decode=True)
    assert isinstance(payload, bytes)
    body = payload.decode(mail.get_content_charset() or "ascii")
    code = inbox.code(address)
    assert f"\n    {code}\n" in body and "Sanma" in body
    r = post(server, "/api/account/email/verify", token, {"email": address, "code": code})
    assert r.status_code == 200


def test_every_purpose_has_a_text_in_every_language_of_the_client() -> None:
    # the client's languages (web/src/i18n.js LANGS) are the mail's: each purpose, each language
    for lang in LANGS:
        for purpose in get_args(Purpose):
            message = code_message("from@sanma.test", "to@example.org", "12345678", purpose, lang, 600)
            body = message.get_content()
            assert "\n    12345678\n" in body and "10" in body, (lang, purpose)
            assert message["Subject"].startswith("Sanma: ") and message["Content-Language"] == lang
