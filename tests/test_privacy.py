"""A player's data over the real server (uvicorn, a local SMTP server): the export as an
attachment holding the account's rows and nothing of another account; deletion confirmed with
the code mailed to the linked address (or the token alone for an account without one),
refused while a room match runs; after it the other player's history and replay of the match
they shared still load, the deleted seat anonymous."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from sanma.server.settings import Settings
from sanma.store import accounts as acc
from sanma.store import db
from sanma.store import matches as match_store
from tests.fixtures.accounts import Inbox, get, link, post
from tests.fixtures.privacy import room_match
from tests.fixtures.server import LiveServer, free_port, new_guest


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


@pytest.fixture
def engine(server: LiveServer, settings: Settings) -> Iterator[Engine]:
    eng = db.open_engine(settings.db_url)
    yield eng
    eng.dispose()


def guest_of(live: LiveServer, token: str) -> str:
    return str(get(live, "/api/account", token).json()["guest"])


def named(live: LiveServer, name: str) -> tuple[str, str]:
    token = new_guest(live)
    assert post(live, "/api/account/name", token, {"name": name}).status_code == 200
    return token, guest_of(live, token)


@pytest.mark.slow
def test_export_is_an_attachment_of_the_accounts_rows_only(server, engine, inbox):
    ann, ann_id = named(server, "Ann")
    bob, bob_id = named(server, "Bob")
    link(server, inbox, ann, "ann@example.org")
    link(server, inbox, bob, "bob@example.org")
    for token in (ann, bob):
        assert post(server, "/api/account/checkin", token).status_code == 200
        assert post(server, "/api/shop/buy", token, {"item": "back-indigo"}).status_code == 200
    shared = room_match(engine, [ann_id, bob_id, None], 3)
    r = get(server, "/api/account/export", ann)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/json")
    assert r.headers["content-disposition"].startswith('attachment; filename="sanma-account-')
    assert r.headers["x-content-type-options"] == "nosniff" and r.headers["cache-control"] == "no-store"
    doc = r.json()
    assert (doc["guest"]["id"], doc["account"]["display_name"], doc["account"]["email_hint"]) == (
        ann_id,
        "Ann",
        "a***n@example.org",
    )
    assert [(e["reason"], e["delta"]) for e in doc["coin_ledger"]] == [("checkin", 100), ("buy", -100)]
    assert [i["item"] for i in doc["owned_items"]] == ["back-indigo"]
    assert [c["purpose"] for c in doc["email_codes"]] == ["link"]
    [match] = doc["matches"]
    assert (match["id"], match["your_seats"], [s["name"] for s in match["seats"]]) == (
        shared,
        [0],
        ["Ann", "Bob", None],
    )
    for absent in (bob_id, bob, ann, "b***b@example.org", "token_hash", "code_hash", "email_hash"):
        assert absent not in json.dumps({k: v for k, v in doc.items() if k != "left_out"})
    assert get(server, "/api/account/export", "not-a-token").status_code == 401


@pytest.mark.slow
def test_deleting_with_the_mailed_code_keeps_the_other_players_match_whole(server, engine, inbox):
    ann, ann_id = named(server, "Ann")
    bob, bob_id = named(server, "Bob")
    link(server, inbox, ann, "ann@example.org")
    assert post(server, "/api/account/checkin", ann).status_code == 200
    shared = room_match(engine, [ann_id, bob_id, None], 3)
    assert post(server, f"/api/matches/{shared}/share", ann).status_code == 200
    bob_replay = get(server, f"/api/matches/{shared}/replay", bob).json()
    assert bob_replay["names"][:2] == ["Ann", "Bob"]

    # Re-confirmation: an account with a linked address sends it and the code mailed to it.
    refused = post(server, "/api/account/delete", ann, {})
    assert (refused.status_code, refused.json()["error"]) == (403, "code_required")
    wrong = post(server, "/api/account/delete/code", ann, {"email": "bob@example.org"})
    assert (wrong.status_code, wrong.json()["error"]) == (409, "wrong_email")
    assert post(server, "/api/account/delete/code", ann, {"email": "Ann@Example.org", "lang": "id"}).status_code == 202
    mail = inbox.wait_for("ann@example.org", 2)
    assert "menghapus" in str(mail["Subject"])
    code = inbox.code("ann@example.org", 2)
    bad = post(server, "/api/account/delete", ann, {"email": "ann@example.org", "code": "00000000"})
    assert (bad.status_code, bad.json()["error"]) == (400, "bad_code")
    done = post(server, "/api/account/delete", ann, {"email": "ann@example.org", "code": code})
    assert (done.status_code, done.json()) == (200, {"deleted": True})
    assert get(server, "/api/account", ann).status_code == 401
    assert acc.account_for_email(engine, "ann@example.org") is None

    # Bob's history and replay load whole; seat 0 is an anonymous guest (no name).
    [entry] = get(server, "/api/account/history", bob).json()["matches"]
    assert entry["match"] == shared and entry["seat"] == 1
    assert [(s["name"], s["you"], s["bot_level"]) for s in entry["seats"]] == [
        (None, False, None),
        ("Bob", True, None),
        (None, False, "normal"),
    ]
    replay = get(server, f"/api/matches/{shared}/replay", bob)
    assert replay.status_code == 200
    after = replay.json()
    assert after["names"][:2] == [None, "Bob"] and after["open"] is True
    assert after["events"] == bob_replay["events"]
    assert "Ann" not in json.dumps(after["names"])
    assert get(server, f"/api/matches/{shared}/tenhou6", bob).status_code == 200
    assert len(match_store.load_events(engine, shared)) == len(bob_replay["events"])


@pytest.mark.slow
def test_an_account_without_an_address_deletes_with_its_token(server, engine):
    token, guest = named(server, "Solo")
    assert post(server, "/api/account/checkin", token).status_code == 200
    assert post(server, "/api/account/delete", token, {}).json() == {"deleted": True}
    assert get(server, "/api/account", token).status_code == 401
    assert acc.get_account(engine, guest).display_name is None


@pytest.mark.slow
def test_deleting_is_refused_while_a_room_match_runs(server, engine):
    ann, ann_id = named(server, "Ann")
    _, bob_id = named(server, "Bob")
    room_match(engine, [bob_id, ann_id, None], 4, ended=False)
    refused = post(server, "/api/account/delete", ann, {})
    assert (refused.status_code, refused.json()["error"]) == (409, "match_running")
    assert get(server, "/api/account", ann).json()["name"] == "Ann"
