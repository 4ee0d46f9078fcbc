"""The accounts store on SQLite and PostgreSQL: check-ins once a day (also under 100 threads),
purchases all-or-nothing and never negative, the ledger equal to the balance, one-time codes
(hashed, single use, expiring, limited tries), recovery and history."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, inspect, select, text

from sanma.store import accounts as acc
from sanma.store import db
from sanma.store.guests import create_guest, guest_for_token
from sanma.store.matches import SeatPlayer, append_events, create_match
from sanma.store.tables import email_codes
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


def balance_and_ledger(engine: Engine, guest: str) -> tuple[int, int]:
    return acc.get_account(engine, guest).coins, acc.ledger_sum(engine, guest)


def test_migration_creates_the_account_tables(engine):
    names = set(inspect(engine).get_table_names())
    assert {"accounts", "coin_ledger", "checkins", "owned_items", "email_codes"} <= names


def test_a_guest_without_a_row_has_the_defaults(engine):
    guest = create_guest(engine).id
    account = acc.get_account(engine, guest)
    assert (account.coins, account.display_name, account.email_hint, account.owned) == (0, None, None, ())
    assert (account.last_checkin, account.streak) == (None, 0)


def test_checkin_once_a_day_with_a_streak(engine):
    guest = create_guest(engine).id
    first = acc.check_in(engine, guest, DAY)
    assert (first.granted, first.coins, first.streak, first.balance) == (True, 100, 1, 100)
    again = acc.check_in(engine, guest, DAY)
    assert (again.granted, again.balance) == (False, 100)
    second = acc.check_in(engine, guest, DAY + timedelta(days=1))
    assert (second.granted, second.coins, second.streak, second.balance) == (True, 120, 2, 220)
    # A gap breaks the streak.
    third = acc.check_in(engine, guest, DAY + timedelta(days=3))
    assert (third.coins, third.streak, third.balance) == (100, 1, 320)
    assert balance_and_ledger(engine, guest) == (320, 320)
    assert [r.reason for r in acc.ledger(engine, guest)] == ["checkin"] * 3


def test_a_week_long_streak_is_capped():
    assert [acc.checkin_reward(s) for s in range(1, 10)] == [100, 120, 140, 160, 180, 200, 220, 220, 220]


def test_a_hundred_threads_check_in_once(engine):
    guest = create_guest(engine).id
    barrier = threading.Barrier(100)
    results: list[acc.Checkin] = []
    errors: list[BaseException] = []

    def go() -> None:
        try:
            barrier.wait()
            results.append(acc.check_in(engine, guest, DAY))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=go) for _ in range(100)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sum(r.granted for r in results) == 1
    assert balance_and_ledger(engine, guest) == (100, 100)


def test_buying_is_all_or_nothing(engine):
    guest = create_guest(engine).id
    with pytest.raises(acc.AccountError) as poor:
        acc.buy(engine, guest, "back-indigo", 100)
    assert poor.value.code == "not_enough_coins"
    assert acc.get_account(engine, guest).owned == ()  # the refused purchase left nothing behind
    acc.check_in(engine, guest, DAY)
    assert acc.buy(engine, guest, "back-indigo", 100) == 0
    with pytest.raises(acc.AccountError) as twice:
        acc.buy(engine, guest, "back-indigo", 0)
    assert twice.value.code == "already_owned"
    assert acc.get_account(engine, guest).owned == ("back-indigo",)
    assert acc.owns(engine, guest, "back-indigo") and not acc.owns(engine, guest, "back-jade")
    assert balance_and_ledger(engine, guest) == (0, 0)
    assert [(r.delta, r.reason, r.item) for r in acc.ledger(engine, guest)] == [
        (100, "checkin", None),
        (-100, "buy", "back-indigo"),
    ]


def test_parallel_purchases_never_go_below_zero(engine):
    guest = create_guest(engine).id
    acc.check_in(engine, guest, DAY)  # 100 coins: enough for one of the items below
    items = [f"item-{i}" for i in range(20)] + ["item-0"] * 10
    barrier = threading.Barrier(len(items))
    outcomes: list[str] = []

    def go(item: str) -> None:
        barrier.wait()
        try:
            acc.buy(engine, guest, item, 60)
            outcomes.append("ok")
        except acc.AccountError as exc:
            outcomes.append(exc.code)

    threads = [threading.Thread(target=go, args=(i,)) for i in items]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count("ok") == 1
    assert set(outcomes) <= {"ok", "not_enough_coins", "already_owned"}
    assert balance_and_ledger(engine, guest) == (40, 40)
    assert len(acc.get_account(engine, guest).owned) == 1


def test_the_balance_cannot_go_negative_even_by_hand(engine):
    guest = create_guest(engine).id
    acc.set_display_name(engine, guest, "x")
    with pytest.raises(Exception, match=r"(?i)check|constraint"), engine.begin() as conn:
        conn.execute(text("UPDATE accounts SET coins = -1 WHERE guest_id = :g"), {"g": guest})


def test_equip_and_display_name(engine):
    guest = create_guest(engine).id
    acc.set_display_name(engine, guest, "<img src=x onerror=alert(1)>")
    acc.equip(engine, guest, "tile_back", "back-jade")
    acc.equip(engine, guest, "cloth", None)
    account = acc.get_account(engine, guest)
    assert (account.display_name, account.tile_back, account.cloth) == (
        "<img src=x onerror=alert(1)>",
        "back-jade",
        None,
    )
    with pytest.raises(ValueError):
        acc.equip(engine, guest, "hat", "x")


def test_codes_are_hashed_single_use_and_bound_to_the_asker(engine):
    guest, other = create_guest(engine).id, create_guest(engine).id
    acc.store_code(engine, "link", "Ann@Example.org", guest, "12345678", 600)
    with engine.connect() as conn:
        dump = [tuple(str(v) for v in row) for row in conn.execute(select(email_codes)).all()]
    assert not any("12345678" in v or "ann@example.org" in v for row in dump for v in row)
    assert acc.spend_code(engine, "link", "ann@example.org", "12345678", 5, other) is None  # someone else's
    assert acc.spend_code(engine, "recover", "ann@example.org", "12345678", 5) is None  # other purpose
    assert acc.spend_code(engine, "link", " ANN@example.org ", "12345678", 5, guest) == guest
    assert acc.spend_code(engine, "link", "ann@example.org", "12345678", 5, guest) is None  # used


def test_a_code_dies_after_its_tries_and_when_it_expires(engine):
    guest = create_guest(engine).id
    acc.store_code(engine, "link", "a@b.co", guest, "11112222", 600)
    for wrong in ("00000000", "00000001", "00000002"):
        assert acc.spend_code(engine, "link", "a@b.co", wrong, 3, guest) is None
    assert acc.spend_code(engine, "link", "a@b.co", "11112222", 3, guest) is None  # too many tries
    acc.store_code(engine, "link", "a@b.co", guest, "33334444", -1)
    assert acc.spend_code(engine, "link", "a@b.co", "33334444", 3, guest) is None  # expired


def test_a_new_code_replaces_the_earlier_one(engine):
    guest = create_guest(engine).id
    acc.store_code(engine, "link", "a@b.co", guest, "11111111", 600)
    acc.store_code(engine, "link", "a@b.co", guest, "22222222", 600)
    assert acc.spend_code(engine, "link", "a@b.co", "11111111", 5, guest) is None
    assert acc.spend_code(engine, "link", "a@b.co", "22222222", 5, guest) == guest


def test_a_code_for_an_unknown_address_never_signs_in(engine):
    acc.store_code(engine, "recover", "nobody@b.co", None, "12121212", 600)
    assert acc.spend_code(engine, "recover", "nobody@b.co", "12121212", 5) is None


def test_an_address_links_to_one_account(engine):
    first, second = create_guest(engine).id, create_guest(engine).id
    acc.link_email(engine, first, "Ann@Example.org")
    assert acc.get_account(engine, first).email_hint == "a***n@example.org"
    assert acc.account_for_email(engine, "ann@example.ORG") == first
    with pytest.raises(acc.AccountError) as taken:
        acc.link_email(engine, second, "ann@example.org")
    assert taken.value.code == "email_taken"
    assert acc.account_for_email(engine, "other@example.org") is None


def _ended_match(engine: Engine, owner: str, seat: int, players: list[SeatPlayer] | None = None) -> str:
    record = create_match(
        engine, guest_id=owner, rules={}, seed=1, bot_level="normal", human_seat=seat, players=players
    )
    final = {
        "t": "MatchEnded",
        "points": [40000, 35000, 30000],
        "placements": [1, 2, 3],
        "final_scores": [20.0, 0.0, -20.0],
    }
    append_events(engine, record.id, 1, [final], ended=True)
    return record.id


def test_recovery_moves_the_account_and_absorbs_the_browser_guest(engine):
    account = create_guest(engine)
    acc.link_email(engine, account.id, "a@b.co")
    browser = create_guest(engine)
    acc.check_in(engine, browser.id, DAY)
    done = _ended_match(engine, browser.id, 1)
    playing = create_match(engine, guest_id=browser.id, rules={}, seed=2, bot_level="normal", human_seat=0).id
    token = acc.recover(engine, account.id, browser.id)
    assert guest_for_token(engine, token) == account.id
    assert guest_for_token(engine, account.token) is None  # the old browser is signed out
    assert guest_for_token(engine, browser.token) is None  # the browser's guest is retired
    assert [e.match_id for e in acc.history(engine, account.id)] == [done]
    assert acc.seat_of(engine, done, account.id) == 1
    assert acc.seat_of(engine, playing, account.id) is None
    assert acc.get_account(engine, account.id).coins == 0  # coins do not move


def test_recovery_leaves_a_linked_browser_guest_alone(engine):
    account, browser = create_guest(engine), create_guest(engine)
    acc.link_email(engine, account.id, "a@b.co")
    acc.link_email(engine, browser.id, "c@d.co")
    done = _ended_match(engine, browser.id, 0)
    acc.recover(engine, account.id, browser.id)
    assert guest_for_token(engine, browser.token) == browser.id
    assert acc.history(engine, account.id) == []
    assert acc.seat_of(engine, done, browser.id) == 0


def test_history_lists_finished_matches_with_every_seat(engine):
    host, friend = create_guest(engine).id, create_guest(engine).id
    acc.set_display_name(engine, friend, "Budi")
    players = [SeatPlayer(0, host, None), SeatPlayer(1, friend, None), SeatPlayer(2, None, "expert")]
    room = _ended_match(engine, host, 0, players)
    create_match(engine, guest_id=friend, rules={}, seed=3, bot_level="normal", human_seat=0)  # still playing
    [entry] = acc.history(engine, friend)
    assert (entry.match_id, entry.seat, entry.result["placements"]) == (room, 1, [1, 2, 3])
    assert [(s.seat, s.name, s.bot_level) for s in entry.seats] == [
        (0, None, None),
        (1, "Budi", None),
        (2, None, "expert"),
    ]
    assert acc.history(engine, friend, limit=1, offset=1) == []
    assert [e.match_id for e in acc.history(engine, host)] == [room]
