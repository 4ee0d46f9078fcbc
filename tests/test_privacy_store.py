"""A player's data in the store, on SQLite and PostgreSQL: the export holds every row of the
account and nothing of another account (a second account's rows are planted beside it), and
deletion removes every row of the account in one transaction while the matches it shared keep
their seats, held by an anonymous guest, for the other player's history and log."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, insert, select, text

from sanma.server.codec import event_to_store, rules_to_json
from sanma.store import accounts as acc
from sanma.store import db, privacy, reviews
from sanma.store import matches as match_store
from sanma.store import rooms as room_store
from sanma.store.guests import create_guest, guest_for_token
from sanma.store.tables import drills, guests, match_events, metadata, rooms
from tests.fixtures.privacy import room_match
from tests.fixtures.replays import played_match
from tests.services import scratch_postgres

DAY = date(2026, 11, 30)


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    with scratch_postgres() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    url = f"sqlite:///{tmp_path / 'sanma.db'}" if request.param == "sqlite" else request.getfixturevalue("pg_url")
    eng = db.open_engine(url)
    if request.param == "postgresql":
        with eng.begin() as conn:  # a clean schema for each test on the shared server
            conn.execute(text("DROP SCHEMA public CASCADE"))
            conn.execute(text("CREATE SCHEMA public"))
    db.upgrade(eng)
    yield eng
    eng.dispose()


@dataclass
class Player:
    id: str
    token: str
    name: str
    email: str
    log_title: str


def player(engine: Engine, name: str, email: str) -> Player:
    """An account with something in every table of its own: name, address, coins and a
    purchase, a code, a kept log."""
    guest = create_guest(engine)
    acc.set_display_name(engine, guest.id, name)
    acc.link_email(engine, guest.id, email)
    acc.check_in(engine, guest.id, DAY)
    acc.buy(engine, guest.id, "indigo", 100)
    acc.store_code(engine, "recover", email, guest.id, "12345678", 600, f"guest:{guest.id}")
    title = f"{name}'s kept log"
    match_store.save_log(engine, guest.id, title=title, preset="tenhou", log='{"log": []}')
    return Player(guest.id, guest.token, name, email, title)


def review(engine: Engine, match_id: str, seat: int, guest: str) -> None:
    reviews.request_review(
        engine, match_id, seat, guest, address="ip:127.0.0.1", total=10, queue_cap=10, per_address=5, current="m"
    )


@pytest.fixture
def world(engine: Engine) -> tuple[Player, Player, str]:
    """Ann and Bob with their own data, a room match they shared (Ann at 0, Bob at 1), each a
    share link and a review of it, a lobby Ann hosts with Bob seated, a room Bob hosts that
    barred Ann."""
    ann = player(engine, "Ann", "ann@example.org")
    bob = player(engine, "Bob", "bob@example.org")
    shared = room_match(engine, [ann.id, bob.id, None], 3)
    for p, seat in ((ann, 0), (bob, 1)):
        match_store.share_match(engine, shared, p.id)
        review(engine, shared, seat, p.id)
        with engine.begin() as conn:  # a day's drill made of the reviewed match
            row = {"guest_id": p.id, "day": DAY, "slot": 0, "match_id": shared, "seat": seat, "event_index": 5}
            conn.execute(insert(drills).values(**row, choice="discard 1m", master="discard 9m", loss=0.2))
    lobby = room_store.create_room(engine, code="ANNS", host_guest=ann.id, options={}, timers={})
    assert lobby is not None
    assert room_store.save_room(engine, lobby.with_seat(1, room_store.Seat(bob.id, None)))
    bobs = room_store.create_room(engine, code="BOBS", host_guest=bob.id, options={}, timers={})
    assert bobs is not None
    assert room_store.save_room(engine, replace(bobs, barred=frozenset({ann.id})))
    return ann, bob, shared


def test_the_export_holds_the_accounts_rows_and_nothing_of_another(engine, world):
    ann, bob, shared = world
    doc = privacy.export(engine, ann.id)
    assert (doc["format"], doc["version"], doc["guest"]["id"]) == ("sanma-account-export", 1, ann.id)
    assert (doc["account"]["display_name"], doc["account"]["email_hint"], doc["account"]["coins"]) == (
        "Ann",
        "a***n@example.org",
        0,
    )
    assert [(r["delta"], r["reason"]) for r in doc["coin_ledger"]] == [(100, "checkin"), (-100, "buy")]
    assert [(r["day"], r["coins"]) for r in doc["checkins"]] == [(DAY.isoformat(), 100)]
    assert [r["item"] for r in doc["owned_items"]] == ["indigo"]
    assert [r["purpose"] for r in doc["email_codes"]] == ["recover"]
    assert [r["title"] for r in doc["saved_logs"]] == [ann.log_title]
    assert [r["match_id"] for r in doc["match_shares"]] == [shared]
    assert [(r["match_id"], r["seat"]) for r in doc["match_reviews"]] == [(shared, 0)]
    assert [(r["match_id"], r["seat"], r["master"]) for r in doc["drills"]] == [(shared, 0, "discard 9m")]
    [match] = doc["matches"]
    assert (match["id"], match["kind"], match["status"], match["your_seats"]) == (shared, "room", "ended", [0])
    assert [(s["you"], s["name"], s["bot_level"]) for s in match["seats"]] == [
        (True, "Ann", None),
        (False, "Bob", None),
        (False, None, "normal"),
    ]
    assert sorted((r["code"], r["host"], r["seat"], r["barred"]) for r in doc["rooms"]) == [
        ("ANNS", True, 0, False),
        ("BOBS", False, None, True),
    ]
    text_ = json.dumps(doc)
    # Nothing of Bob's but the name his table showed; no secrets of Ann's.
    for absent in (bob.id, "b***b@example.org", bob.log_title, bob.token, ann.token):
        assert absent not in text_
    held = keys({k: v for k, v in doc.items() if k != "left_out"})
    assert not held & {"token_hash", "code_hash", "salt", "email_hash", "seed", "node", "lease_until", "opened"}
    assert json.loads(json.dumps(privacy.export(engine, bob.id)))["account"]["display_name"] == "Bob"


def keys(value: object) -> set[str]:
    """Every key of every object inside ``value``."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys(v)}
    return set()


def rows_of(engine: Engine, guest_id: str) -> dict[str, int]:
    """Every row of every table that names ``guest_id`` in any column (walks the metadata)."""
    found: dict[str, int] = {}
    with engine.connect() as conn:
        for table in metadata.sorted_tables:
            for column in table.c:
                if column.type.python_type is not str:
                    continue
                hit = column == guest_id if table.name != "rooms" else column.like(f"%{guest_id}%")
                if table.name == "email_codes" and column.name == "requester":
                    hit = column == f"guest:{guest_id}"
                count = conn.execute(select(func.count()).select_from(table).where(hit)).scalar_one()
                if count:
                    found[f"{table.name}.{column.name}"] = int(count)
    return found


@pytest.mark.slow
def test_deleting_removes_every_row_and_keeps_the_shared_match_whole(engine, world):
    ann, bob, shared = world
    before_events = match_store.event_count(engine, shared)
    bob_before = privacy.export(engine, bob.id)
    assert rows_of(engine, ann.id)  # the walk finds Ann before
    anonymous = privacy.delete_account(engine, ann.id)
    assert rows_of(engine, ann.id) == {}
    assert guest_for_token(engine, ann.token) is None
    assert acc.account_for_email(engine, ann.email) is None
    # The seat is an anonymous guest: no name, no account row, no token.
    assert rows_of(engine, anonymous) == {"guests.id": 1, "matches.guest_id": 1, "match_players.guest_id": 1}
    [entry] = acc.history(engine, bob.id)
    assert entry.match_id == shared and entry.seat == 1
    assert [(s.guest_id, s.name, s.bot_level) for s in entry.seats] == [
        (anonymous, None, None),
        (bob.id, "Bob", None),
        (None, None, "normal"),
    ]
    assert match_store.event_count(engine, shared) == before_events
    assert match_store.load_events(engine, shared)[-1]["t"] == "MatchEnded"
    assert match_store.seat_labels(engine, shared) == [(0, None, None), (1, "Bob", None), (2, None, "normal")]
    # Bob keeps all of his: his share link and review of the match, coins, his room; Ann's
    # lobby passed to him.
    bob_after = privacy.export(engine, bob.id)
    for key in ("account", "coin_ledger", "owned_items", "saved_logs", "match_shares", "match_reviews", "drills"):
        assert bob_after[key] == bob_before[key], key
    assert reviews.get_review(engine, shared, 1) is not None and reviews.get_review(engine, shared, 0) is None
    lobby = room_store.get_room(engine, "ANNS")
    assert lobby is not None and lobby.host_guest == bob.id and lobby.seat_of(bob.id) == 1
    assert lobby.seats[0].empty and lobby.version == 3
    barring = room_store.get_room(engine, "BOBS")
    assert barring is not None and barring.barred == frozenset()
    # The address is free for a new account.
    carl = create_guest(engine).id
    acc.link_email(engine, carl, ann.email)
    assert acc.account_for_email(engine, ann.email) == carl


def test_a_host_alone_closes_the_room_and_a_practice_match_stays_anonymous(engine):
    guest = create_guest(engine).id
    assert room_store.create_room(engine, code="SOLO", host_guest=guest, options={}, timers={})
    match = played_match(5)
    record = match_store.create_match(
        engine, guest_id=guest, rules=rules_to_json(match.rules), seed=5, bot_level="normal", human_seat=0
    )
    match_store.append_events(engine, record.id, 1, [event_to_store(e) for e in match.events[:3]], ended=False)
    anonymous = privacy.delete_account(engine, guest)
    assert room_store.get_room(engine, "SOLO") is None
    assert match_store.get_match(engine, record.id).guest_id == anonymous  # type: ignore[union-attr]
    assert match_store.event_count(engine, record.id) == 3
    with pytest.raises(acc.AccountError) as gone:
        privacy.delete_account(engine, guest)
    assert gone.value.code == "no_account"


def test_a_running_room_match_refuses_and_changes_nothing(engine, world):
    ann, bob, _ = world
    running = room_match(engine, [None, bob.id, ann.id], 7, ended=False)
    before = rows_of(engine, ann.id)
    assert privacy.running_room_match(engine, ann.id) == running
    with pytest.raises(acc.AccountError) as refused:
        privacy.delete_account(engine, ann.id)
    assert refused.value.code == "match_running"
    assert rows_of(engine, ann.id) == before
    with engine.connect() as conn:  # no anonymous guest was left behind
        assert conn.execute(select(func.count()).select_from(guests)).scalar_one() == 2
        assert conn.execute(select(func.count()).select_from(match_events)).scalar_one() > 0
        assert conn.execute(select(func.count()).select_from(rooms)).scalar_one() == 2
