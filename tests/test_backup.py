"""``sanma backup`` and ``sanma restore`` (``store/backup.py``) on real SQLite files: a copy
taken while another connection writes is whole, a restore keeps the old file and migrates an
older backup, the refusals and their exit codes; and end to end, a backup taken by the real
command while a real ``sanma serve`` plays matches restores every account and every match that
had ended before it started; on PostgreSQL, the docs' pg_dump / pg_restore recipe."""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text
from sqlalchemy.engine.url import make_url

from sanma.cli import main
from sanma.engine.match import Match
from sanma.engine.replay import replay
from sanma.engine.rules import DEFAULT
from sanma.server.codec import event_from_store, event_to_store, rules_to_json
from sanma.store import db
from sanma.store.accounts import get_account, set_display_name
from sanma.store.backup import before_restore, check, lock_path, serving_lock, take
from sanma.store.guests import create_guest, guest_for_token
from sanma.store.matches import append_events, create_match, get_match, load_events
from tests.fixtures.server import Client, new_guest, new_match, play_to_end
from tests.services import ROOT, ServeProcess, _pg_tool, free_port, scratch_postgres, unavailable

HEAD = ScriptDirectory.from_config(db.alembic_config("sqlite://")).get_current_head()


def url_of(path: Path) -> str:
    return f"sqlite:///{path}"


def fresh(path: Path, revision: str = "head") -> Engine:
    engine = db.open_engine(url_of(path))
    db.upgrade(engine, revision)
    return engine


def store_match(engine: Engine, guest_id: str, seed: int) -> str:
    """A whole random match, its log in two transactions (a torn copy would show an ended match
    without its last events)."""
    rng = random.Random(seed)
    match = Match(seed, DEFAULT.with_options(length="one-hand"))
    while not match.finished:
        seat = match.awaiting()[0]
        match.apply(seat, rng.choice(list(match.legal_actions(seat))))
    record = create_match(
        engine, guest_id=guest_id, rules=rules_to_json(match.rules), seed=seed, bot_level="beginner", human_seat=0
    )
    stored = [event_to_store(e) for e in match.events]
    half = len(stored) // 2
    append_events(engine, record.id, 1, stored[:half], ended=False)
    append_events(engine, record.id, half + 1, stored[half:], ended=True)
    return record.id


def assert_whole(engine: Engine, match_ids: list[str]) -> None:
    """Every match is there, ended, and its stored log replays to the end."""
    for match_id in match_ids:
        record = get_match(engine, match_id)
        assert record is not None and record.status == "ended", match_id
        assert replay([event_from_store(e) for e in load_events(engine, match_id)]).finished


def ended_matches(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return [row[0] for row in conn.execute("SELECT id FROM matches WHERE status = 'ended'")]


def sanma(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sanma", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_a_backup_taken_while_another_connection_writes_is_whole(tmp_path):
    source = tmp_path / "live.db"
    engine = fresh(source)
    guest = create_guest(engine)
    before = [store_match(engine, guest.id, seed) for seed in range(4)]
    with sqlite3.connect(source) as conn:  # 8 MB more: thousands of one-page steps
        conn.execute("CREATE TABLE padding (b BLOB)")
        conn.executemany("INSERT INTO padding VALUES (?)", [(bytes(1000),)] * 8000)
    stop, written = threading.Event(), []

    def writer() -> None:
        seed = 100
        while not stop.is_set():
            written.append(store_match(engine, guest.id, seed))
            seed += 1

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        while len(written) < 2 and thread.is_alive():
            stop.wait(0.01)
        started = len(written)
        # One page a step: every commit of the writer restarts the copy, until the rest is
        # taken in one step (without that fallback it might never end).
        summary = take(url_of(source), tmp_path / "copy.db", step_pages=1)
        during = len(written) - started
    finally:
        stop.set()
        thread.join()
    assert during > 0, "the writer never wrote during the backup"
    assert summary.revision == HEAD and summary.rows["guests"] == 1
    assert summary.rows["matches"] >= len(before)
    copy = db.open_engine(url_of(tmp_path / "copy.db"))
    try:
        assert_whole(copy, before)
        assert_whole(copy, ended_matches(tmp_path / "copy.db"))  # no match ended without its whole log
    finally:
        copy.dispose()
        engine.dispose()
    assert not list(tmp_path.glob(".copy.db.partial-*"))


def test_the_commands_back_up_and_restore_keeping_the_replaced_file(tmp_path, capsys):
    source, backup, target = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "restored" / "c.db"
    engine = fresh(source)
    guest = create_guest(engine)
    set_display_name(engine, guest.id, "Sari")
    match = store_match(engine, guest.id, 7)
    engine.dispose()
    assert main(["backup", "--database", url_of(source), str(backup)]) == 0
    line = capsys.readouterr().out
    assert line.count("\n") == 1 and f"revision {HEAD}" in line and "1 guests, 1 accounts, 1 matches" in line
    assert main(["restore", "--database", url_of(target), str(backup)]) == 0
    assert not before_restore(target).exists()  # nothing was there to keep
    # A second restore over it keeps what it replaces.
    stale = fresh(target)
    create_guest(stale)
    stale.dispose()
    assert main(["restore", "--database", url_of(target), str(backup)]) == 0
    assert "kept as" in capsys.readouterr().out
    assert check(before_restore(target)).rows["guests"] == 2
    restored = db.open_engine(url_of(target))
    try:
        assert guest_for_token(restored, guest.token) == guest.id
        assert get_account(restored, guest.id).display_name == "Sari"
        assert_whole(restored, [match])
    finally:
        restored.dispose()


def test_an_older_backup_is_migrated_to_the_head(tmp_path, capsys):
    old = fresh(tmp_path / "old.db", "0009")
    guest = create_guest(old)
    old.dispose()
    target = tmp_path / "new.db"
    assert main(["restore", "--database", url_of(target), str(tmp_path / "old.db")]) == 0
    assert f"from revision 0009 to {HEAD}" in capsys.readouterr().out
    engine = db.open_engine(url_of(target))
    try:
        assert db.current_revision(engine) == HEAD
        assert guest_for_token(engine, guest.token) == guest.id
    finally:
        engine.dispose()


def refused(args: list[str], capsys: Any) -> tuple[int, str]:
    status = main(args)
    return status, capsys.readouterr().err


def test_bad_input_is_refused_with_status_2_and_leaves_the_target_alone(tmp_path, capsys):
    target = tmp_path / "t.db"
    fresh(target).dispose()
    kept = target.read_bytes()
    status, err = refused(["backup", "--database", url_of(tmp_path / "none.db"), str(tmp_path / "x")], capsys)
    assert status == 2 and "does not exist" in err
    status, err = refused(["backup", "--database", "postgresql+psycopg://u@h/db", str(tmp_path / "x")], capsys)
    assert status == 2 and "pg_dump" in err
    status, err = refused(["restore", "--database", url_of(target), str(tmp_path / "none.db")], capsys)
    assert status == 2 and "does not exist" in err
    (tmp_path / "notes.txt").write_text("not a database at all, just some words\n" * 200)
    status, err = refused(["restore", "--database", url_of(target), str(tmp_path / "notes.txt")], capsys)
    assert status == 2 and "not a SQLite database" in err
    newer = tmp_path / "newer.db"
    fresh(newer).dispose()
    with sqlite3.connect(newer) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0999'")
    status, err = refused(["restore", "--database", url_of(target), str(newer)], capsys)
    assert status == 2 and "0999" in err and "newer sanma" in err
    broken = tmp_path / "broken.db"
    engine = fresh(broken)
    guest = create_guest(engine)
    for seed in range(3):
        store_match(engine, guest.id, seed)
    engine.dispose()
    data = bytearray(broken.read_bytes())
    page = 4096
    for n in range(2, len(data) // page):  # every page but the header's: the b-trees break
        data[n * page + 8 : n * page + 64] = b"\xff" * 56
    broken.write_bytes(bytes(data))
    status, err = refused(["restore", "--database", url_of(target), str(broken)], capsys)
    assert status == 2 and "integrity" in err
    assert target.read_bytes() == kept and not before_restore(target).exists()


def test_restore_is_refused_while_a_server_or_a_transaction_uses_the_database(tmp_path, capsys):
    target, backup = tmp_path / "t.db", tmp_path / "b.db"
    fresh(target).dispose()
    assert main(["backup", "--database", url_of(target), str(backup)]) == 0
    with serving_lock(url_of(target)):  # what sanma serve holds
        status, err = refused(["restore", "--database", url_of(target), str(backup)], capsys)
    assert status == 1 and "stop it before restoring" in err
    writer = sqlite3.connect(target, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # a server started some other way, mid-transaction
    try:
        status, err = refused(["restore", "--database", url_of(target), str(backup)], capsys)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert status == 1 and "in use" in err
    assert not before_restore(target).exists() and lock_path(target).exists()
    assert main(["restore", "--database", url_of(target), str(backup)]) == 0


def play_one(live: ServeProcess, name: str | None) -> tuple[str, str]:
    """A guest (an account when ``name``) plays a one-hand practice match to its end."""
    token = new_guest(live)  # type: ignore[arg-type]
    if name is not None:
        r = httpx.post(
            f"{live.http}/api/account/name", json={"name": name}, headers={"Authorization": f"Bearer {token}"}
        )
        assert r.status_code == 200, r.text
    match = new_match(live, token)  # type: ignore[arg-type]
    client = Client(live, token, match)  # type: ignore[arg-type]
    try:
        play_to_end(client, client.next_prompt_or_end())
    finally:
        client.close()
    return token, match


@pytest.mark.slow
def test_a_backup_under_load_restores_every_finished_match_and_account(tmp_path):
    data = tmp_path / "data"
    env = {"SANMA_DATA_DIR": str(data), "SANMA_BOT_DELAY": "0", "SANMA_RATE_PER_S": "500", "SANMA_RATE_BURST": "1000"}
    live = ServeProcess(free_port(), env, tmp_path / "serve.log")
    finished: list[tuple[str, str, str]] = []  # token, match, name
    stop, failures = threading.Event(), []

    def player(k: int) -> None:
        n = 0
        while not stop.is_set():
            name = f"P{k}-{n}"
            try:
                token, match = play_one(live, name)
            except Exception as exc:  # told after the join: an assert in a thread is lost
                failures.append(exc)
                return
            finished.append((token, match, name))
            n += 1

    try:
        threads = [threading.Thread(target=player, args=(k,)) for k in range(3)]
        for t in threads:
            t.start()
        while len(finished) < 6 and not failures:
            stop.wait(0.05)
        before = list(finished)  # ended before the backup started: all must be in it
        taken = sanma("backup", "--database", url_of(data / "sanma.db"), str(tmp_path / "backup.db"))
        # The server holds its lock: a restore over its database is refused.
        in_use = sanma("restore", "--database", url_of(data / "sanma.db"), str(tmp_path / "backup.db"))
        stop.set()
        for t in threads:
            t.join(timeout=60)
    finally:
        stop.set()
        live.stop()
    assert not failures, failures
    assert taken.returncode == 0, taken.stderr
    assert taken.stdout.startswith("backup ") and f"revision {HEAD}" in taken.stdout
    assert in_use.returncode == 1 and "stop it before restoring" in in_use.stderr
    target = tmp_path / "elsewhere" / "sanma.db"
    restored = sanma("restore", "--database", url_of(target), str(tmp_path / "backup.db"))
    assert restored.returncode == 0, restored.stderr
    assert check(target).revision == HEAD  # integrity_check ok
    engine = db.open_engine(url_of(target))
    try:
        for token, _match, name in before:
            guest_id = guest_for_token(engine, token)
            assert guest_id is not None
            assert get_account(engine, guest_id).display_name == name
        assert_whole(engine, [match for _token, match, _name in before])
        assert_whole(engine, ended_matches(target))
    finally:
        engine.dispose()


@pytest.mark.slow
def test_the_documented_postgresql_recipe_round_trips(tmp_path):
    """docs/server.md's pg_dump -Fc / pg_restore into a fresh database, then the store on it."""
    tools = {name: _pg_tool(name) for name in ("pg_dump", "pg_restore")}
    if not all(tools.values()):
        unavailable("the PostgreSQL recipe needs pg_dump and pg_restore (apt-get install -y postgresql)")
    with scratch_postgres() as url:
        engine = db.open_engine(url)
        db.upgrade(engine)
        guest = create_guest(engine)
        set_display_name(engine, guest.id, "Sari")
        match = store_match(engine, guest.id, 3)
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("CREATE DATABASE sanma_restored TEMPLATE template0"))
        engine.dispose()
        status = sanma("backup", "--database", url, str(tmp_path / "x.db"))
        assert status.returncode == 2 and "pg_dump" in status.stderr
        libpq = make_url(url).set(drivername="postgresql")
        dump = tmp_path / "sanma.dump"
        subprocess.run(
            [str(tools["pg_dump"]), "-Fc", "-d", libpq.render_as_string(hide_password=False), "-f", str(dump)],
            check=True,
            timeout=60,
        )
        target = libpq.set(database="sanma_restored").render_as_string(hide_password=False)
        subprocess.run([str(tools["pg_restore"]), "--no-owner", "-d", target, str(dump)], check=True, timeout=60)
        restored = db.open_engine(make_url(url).set(database="sanma_restored").render_as_string(hide_password=False))
        try:
            assert db.current_revision(restored) == HEAD  # alembic_version came with the dump
            assert guest_for_token(restored, guest.token) == guest.id
            assert get_account(restored, guest.id).display_name == "Sari"
            assert_whole(restored, [match])
        finally:
            restored.dispose()
