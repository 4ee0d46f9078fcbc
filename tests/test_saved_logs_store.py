"""Kept logs in the store (issue 23): the per-guest caps by count and by bytes, saves at the cap
at once, a listing that reads no text, and migration 0010 on a database with older rows.

Runs against SQLite and, where a scratch server can be started, PostgreSQL (as test_store.py).
"""

from __future__ import annotations

import threading
import uuid
import zlib
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, event, text

from sanma.store import db
from sanma.store import matches as store
from sanma.store.guests import create_guest
from tests.services import scratch_postgres


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    with scratch_postgres() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def blank_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The URL of an empty database (PostgreSQL: a new database on the module's server)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp('db') / 'sanma.db'}"
    server: str = request.getfixturevalue("postgres_url")
    name = f"t{uuid.uuid4().hex[:12]}"
    admin = db.open_engine(server).execution_options(isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    admin.dispose()
    return server.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture
def engine(blank_url: str) -> Iterator[Engine]:
    eng = db.open_engine(blank_url)
    db.upgrade(eng)
    yield eng
    eng.dispose()


def keep(engine: Engine, guest: str, log: str, opened: bytes | None = None, **caps: int) -> store.SavedLog:
    return store.save_log(engine, guest, title="t", preset="tenhou", log=log, opened=opened, **caps)


def test_the_count_cap_refuses_one_more_log_of_that_guest_only(engine):
    guest, other = create_guest(engine).id, create_guest(engine).id
    kept = [keep(engine, guest, '{"log": []}', max_count=3, max_bytes=10_000) for _ in range(3)]
    with pytest.raises(store.LogQuotaExceeded) as refused:
        keep(engine, guest, '{"log": []}', max_count=3, max_bytes=10_000)
    assert (refused.value.what, refused.value.limit) == ("count", 3)
    assert len(store.saved_logs_of(engine, guest)) == 3
    keep(engine, other, '{"log": []}', max_count=3, max_bytes=10_000)  # another guest's quota is its own
    assert store.delete_saved_log(engine, kept[0].id, guest)
    keep(engine, guest, '{"log": []}', max_count=3, max_bytes=10_000)  # a deleted log frees its place


def test_the_byte_cap_counts_the_text_in_utf8_and_the_answer(engine):
    guest = create_guest(engine).id
    log = "é" * 200  # 200 characters, 400 bytes
    first = keep(engine, guest, log, b"x" * 100, max_count=10, max_bytes=1000)
    keep(engine, guest, log, b"x" * 100, max_count=10, max_bytes=1000)  # 1,000 bytes: at the cap, not past it
    with pytest.raises(store.LogQuotaExceeded) as refused:
        keep(engine, guest, "{}", max_count=10, max_bytes=1000)
    assert (refused.value.what, refused.value.limit) == ("bytes", 1000)
    with pytest.raises(store.LogQuotaExceeded) as alone:
        keep(engine, create_guest(engine).id, "x" * 1001, max_count=10, max_bytes=1000)
    assert alone.value.what == "bytes"
    assert [item.size for item in store.saved_logs_of(engine, guest)] == [500, 500]
    again = store.saved_log(engine, first.id, guest)
    assert again is not None and (again.log, again.opened) == (log, b"x" * 100)


def race(engine: Engine, guest: str, caps: dict[str, int], threads: int) -> list[str]:
    """``threads`` saves of one guest let go at once: what each got ("kept" or the cap's name)."""
    start, results = threading.Barrier(threads), []

    def save() -> None:
        start.wait()
        try:
            keep(engine, guest, "x" * 100, **caps)
            results.append("kept")
        except store.LogQuotaExceeded as exc:
            results.append(exc.what)

    workers = [threading.Thread(target=save) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return results


@pytest.mark.parametrize("cap", ["count", "bytes"])
def test_saves_at_once_at_the_cap_let_exactly_one_in(engine, cap):
    caps = {"max_count": 4, "max_bytes": 10**6} if cap == "count" else {"max_count": 100, "max_bytes": 4 * 100}
    for _ in range(3):
        guest = create_guest(engine).id
        for _ in range(3):
            keep(engine, guest, "x" * 100, **caps)
        assert sorted(race(engine, guest, caps, 8)) == sorted(["kept"] + [cap] * 7)
        assert len(store.saved_logs_of(engine, guest)) == 4


def test_the_listing_reads_no_text_or_answer(engine):
    guest = create_guest(engine).id
    big = keep(engine, guest, "{" + " " * 300_000 + "}", zlib.compress(b"a" * 1000))
    small = keep(engine, guest, "{}")
    statements: list[str] = []

    def seen(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        listed = store.saved_logs_of(engine, guest)
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert {item.id: item.size for item in listed} == {big.id: 300_002 + len(big.opened or b""), small.id: 2}
    assert not any(field in item.__slots__ for item in listed for field in ("log", "opened"))
    (query,) = statements
    selected = query.split(" FROM ")[0]
    assert "saved_logs.log" not in selected and "opened" not in selected


def test_store_opened_fills_an_old_row_and_grows_its_size(engine):
    guest, other = create_guest(engine).id, create_guest(engine).id
    old = keep(engine, guest, "{\\n}")  # a backslash: bytes are counted as stored, not as escapes
    answer = zlib.compress(b'{"hands": []}')
    store.store_opened(engine, old.id, other, answer)  # not theirs: nothing changes
    assert store.saved_log(engine, old.id, guest).opened is None
    store.store_opened(engine, old.id, guest, answer)
    assert store.saved_log(engine, old.id, guest).opened == answer
    assert store.saved_logs_of(engine, guest)[0].size == 4 + len(answer)


def test_migration_0010_backfills_the_size_of_older_rows(blank_url):
    eng = db.open_engine(blank_url)
    db.upgrade(eng, "0009")
    guest = create_guest(eng).id
    texts = {"a": '{"title": ["東風戦"]}', "b": "{\\u00e9}", "c": ""}
    with eng.begin() as conn:
        for key, log in texts.items():
            conn.execute(
                text(
                    "INSERT INTO saved_logs (id, guest_id, title, preset, log, created_at)"
                    " VALUES (:id, :guest, 't', 'tenhou', :log, CURRENT_TIMESTAMP)"
                ),
                {"id": key, "guest": guest, "log": log},
            )
    db.upgrade(eng)
    sizes = {item.id: item.size for item in store.saved_logs_of(eng, guest)}
    assert sizes == {key: len(log.encode()) for key, log in texts.items()}
    for key, log in texts.items():
        row = store.saved_log(eng, key, guest)
        assert row is not None and (row.log, row.opened) == (log, None)
    with pytest.raises(store.LogQuotaExceeded):  # the old rows count against the quota
        keep(eng, guest, "{}", max_count=3, max_bytes=10**6)
    eng.dispose()
