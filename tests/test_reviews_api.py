"""The master's review over HTTP, on a real uvicorn server with real worker processes: asked
for, its progress, computed once and kept (a second ask and a restarted server read the
store), the bounds (one unfinished review per guest, the queue's cap: 429), the typed errors,
a review past its time limit (failed, its worker stopped and replaced), a review left running
by a server that died (queued again, or failed after its last try), a review kept from another
master (shown as outdated, computed again when asked), and the store's review table on SQLite
and PostgreSQL."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, text

from sanma.bots.review import REVIEWER, review
from sanma.cli.review_cmd import read_log
from sanma.engine.errors import SanmaError
from sanma.server.reviewer import MAX_ATTEMPTS
from sanma.server.settings import Settings
from sanma.store import db
from sanma.store import matches as match_store
from sanma.store import reviews as store
from tests.fixtures.replays import guest_token, store_ended
from tests.fixtures.server import LiveServer, new_guest
from tests.services import free_port

ORDER = ("queued", "running", "done")


def base_settings(tmp_path: Path, **changes: Any) -> Settings:
    settings = Settings(
        port=free_port(), data_dir=tmp_path / "data", bot_delay_s=0.0, rate_per_s=500.0, rate_burst=1000
    )
    return settings.with_changes(**changes)


@pytest.fixture
def running() -> Iterator[list[LiveServer]]:
    """Servers a test started, stopped at its end (whatever happened)."""
    live: list[LiveServer] = []
    yield live
    for server in live:
        if server.thread.is_alive():
            server.stop()


def start(running: list[LiveServer], settings: Settings) -> LiveServer:
    server = LiveServer(settings)
    running.append(server)
    return server


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def ask(live: LiveServer, match: str, token: str, sender: str | None = None) -> httpx.Response:
    """POST a review; ``sender``: the client address a trusted proxy says it forwards for."""
    headers = auth(token) | ({} if sender is None else {"X-Forwarded-For": sender})
    return httpx.post(f"{live.http}/api/matches/{match}/review", headers=headers, timeout=30)


def read(live: LiveServer, match: str, token: str) -> httpx.Response:
    return httpx.get(f"{live.http}/api/matches/{match}/review", headers=auth(token), timeout=30)


def until_finished(live: LiveServer, match: str, token: str, timeout_s: float = 180) -> list[dict[str, Any]]:
    """Every answer of GET until the review is done or failed (polled every 20 ms)."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        r = read(live, match, token)
        assert r.status_code == 200, r.text
        seen.append(r.json())
        if seen[-1]["state"] in ("done", "failed"):
            return seen
        time.sleep(0.02)
    raise AssertionError(f"the review did not finish in {timeout_s} s: {seen[-1]}")


def ended_match(live: LiveServer, seed: int, seat: int = 1) -> tuple[str, str, str]:
    """(guest id, token, match id) of a guest with an ended East match at ``seat``."""
    engine = db.open_engine(live.settings.db_url)
    try:
        guest, token = guest_token(engine)
        match, _ = store_ended(engine, seed, guest, seat)
    finally:
        engine.dispose()
    return guest, token, match


def queue(
    engine: Engine,
    match: str,
    seat: int,
    guest: str,
    *,
    total: int,
    queue_cap: int,
    address: str = "ip:192.0.2.1",
    per_address: int = 10,
) -> tuple[store.ReviewRow, bool]:
    """``store.request_review`` under today's master, by default from an address with room."""
    return store.request_review(
        engine,
        match,
        seat,
        guest,
        address=address,
        total=total,
        queue_cap=queue_cap,
        per_address=per_address,
        current=REVIEWER,
    )


@pytest.mark.slow
def test_a_review_is_computed_once_shown_with_progress_and_kept(tmp_path, running):
    settings = base_settings(tmp_path)
    live = start(running, settings)
    _, token, match = ended_match(live, 21, seat=1)
    first = ask(live, match, token)
    assert first.status_code == 202, first.text
    assert first.json()["state"] in ("queued", "running") and first.json()["seat"] == 1
    seen = until_finished(live, match, token)
    states = [s["state"] for s in seen]
    assert states[-1] == "done", seen[-1]
    assert [ORDER.index(s) for s in states] == sorted(ORDER.index(s) for s in states)  # never goes back
    assert "running" in states  # a worker process takes a while to start: the poll sees it run
    dones = [s["done"] for s in seen]
    assert dones == sorted(dones) and seen[-1]["done"] == seen[-1]["total"] > 0
    result = seen[-1]["result"]
    assert live.app.state.reviews.computed == 1
    assert result["reviewer"] == REVIEWER and seen[-1]["outdated"] is False

    engine = db.open_engine(settings.db_url)
    log = read_log(json.dumps(match_store.load_events(engine, match)))  # the CLI's reader of the store form
    engine.dispose()
    assert seen[-1]["total"] == len(log)
    expected = review(log, 1).as_dict()
    assert result["decisions"] == expected["decisions"] > 0
    # The decisions and what the seat did are the log's; the master's answers may differ where
    # its time budget cut a search short on a loaded machine.
    assert sorted((m["index"], m["choice"]) for m in result["mistakes"]) == sorted(
        (m["index"], m["choice"]) for m in expected["mistakes"]
    )
    losses = [m["loss"] for m in result["mistakes"] if m["loss"] is not None]
    assert losses == sorted(losses, reverse=True) and result["priced"] == len(losses)

    again = ask(live, match, token)
    assert again.status_code == 200 and again.json()["result"] == result
    assert read(live, match, token).json()["result"] == result
    assert live.app.state.reviews.computed == 1  # served from the store
    live.stop()

    restarted = start(running, settings)
    assert ask(restarted, match, token).json()["result"] == result
    assert restarted.app.state.reviews.computed == 0


@pytest.mark.slow
def test_with_no_worker_it_waits_queued_and_a_server_with_one_computes_it(tmp_path, running):
    settings = base_settings(tmp_path, review_workers=0)
    front = start(running, settings)
    _, token, match = ended_match(front, 22, seat=0)
    r = ask(front, match, token)
    assert r.status_code == 202
    body = r.json()
    assert body["state"] == "queued" and body["done"] == 0 and body["total"] > 0
    time.sleep(2.5)  # longer than the dispatcher's poll: nothing takes it here
    assert read(front, match, token).json()["state"] == "queued"
    assert front.app.state.reviews.computed == 0
    front.stop()

    worker = start(running, settings.with_changes(review_workers=1, port=free_port()))
    seen = until_finished(worker, match, token)
    assert seen[-1]["state"] == "done" and seen[-1]["result"]["seat"] == 0
    assert worker.app.state.reviews.computed == 1


def test_one_unfinished_review_per_guest_and_a_capped_queue(tmp_path, running):
    live = start(running, base_settings(tmp_path, review_workers=0, review_queue=2, reviews_per_address=10))
    engine = db.open_engine(live.settings.db_url)
    guest, token = guest_token(engine)
    first, _ = store_ended(engine, 23, guest)
    second, _ = store_ended(engine, 24, guest)
    others = [guest_token(engine) for _ in range(2)]
    their = [store_ended(engine, 25 + i, g)[0] for i, (g, _) in enumerate(others)]
    engine.dispose()

    assert ask(live, first, token).status_code == 202
    assert ask(live, first, token).status_code == 202  # the same review again: no new one
    busy = ask(live, second, token)
    assert busy.status_code == 429 and busy.json()["error"] == "review_busy"
    assert busy.headers["retry-after"].isdigit()
    assert ask(live, their[0], others[0][1]).status_code == 202  # the queue now holds 2
    full = ask(live, their[1], others[1][1])
    assert full.status_code == 429 and full.json()["error"] == "review_queue_full", full.text
    assert read(live, their[1], others[1][1]).json()["error"] == "no_review"


def test_one_address_holds_only_a_few_places_of_the_queue(tmp_path, running):
    settings = base_settings(tmp_path, review_workers=0, reviews_per_address=2, trusted_proxies=("127.0.0.1",))
    live = start(running, settings)
    engine = db.open_engine(live.settings.db_url)
    fresh = [guest_token(engine) for _ in range(4)]  # fresh guests, three of them at one address
    matches = [store_ended(engine, 35 + i, g)[0] for i, (g, _) in enumerate(fresh)]
    engine.dispose()
    crowd, alone = "203.0.113.5", "198.51.100.9"
    assert [ask(live, matches[i], fresh[i][1], crowd).status_code for i in range(2)] == [202, 202]
    over = ask(live, matches[2], fresh[2][1], crowd)
    assert over.status_code == 429 and over.json()["error"] == "review_address_busy", over.text
    assert "this address" in over.json()["detail"] and over.headers["retry-after"].isdigit()
    assert read(live, matches[2], fresh[2][1]).json()["error"] == "no_review"  # nothing was queued
    assert ask(live, matches[3], fresh[3][1], alone).status_code == 202  # another address has room
    engine = db.open_engine(live.settings.db_url)
    rows = [store.get_review(engine, m, 1) for m in matches]
    engine.dispose()
    assert [None if r is None else r.address for r in rows] == ["ip:" + crowd, "ip:" + crowd, None, "ip:" + alone]


@pytest.mark.slow
def test_typed_errors(tmp_path, running):
    live = start(running, base_settings(tmp_path, review_workers=0))
    _, token, match = ended_match(live, 27)
    stranger = new_guest(live)
    assert ask(live, match, stranger).json()["error"] == "no_match"
    assert ask(live, match, stranger).status_code == 404
    assert read(live, "nope", token).json()["error"] == "no_match"
    r = read(live, match, token)
    assert r.status_code == 404 and r.json()["error"] == "no_review"
    engine = db.open_engine(live.settings.db_url)
    guest, mine = guest_token(engine)
    playing = match_store.create_match(  # never finished
        engine, guest_id=guest, rules={"length": "east"}, seed=2, bot_level="normal", human_seat=0
    ).id
    engine.dispose()
    r = ask(live, playing, mine)
    assert r.status_code == 409 and r.json()["error"] == "match_running"
    r = httpx.post(f"{live.http}/api/matches/{match}/review", timeout=10)
    assert r.status_code == 401 and r.json()["error"] == "unauthorized"


@pytest.mark.slow
def test_a_log_the_review_cannot_read_fails_with_its_reason(tmp_path, running):
    live = start(running, base_settings(tmp_path))
    engine = db.open_engine(live.settings.db_url)
    guest, token = guest_token(engine)
    record = match_store.create_match(
        engine, guest_id=guest, rules={"length": "east"}, seed=1, bot_level="normal", human_seat=0
    )
    match_store.append_events(engine, record.id, 1, [{"t": "HandDrawn"}], ended=True)
    engine.dispose()
    assert ask(live, record.id, token).status_code == 202
    last = until_finished(live, record.id, token)[-1]
    assert last["state"] == "failed" and last["result"] is None and last["error"]
    assert live.app.state.reviews.computed == 1


@pytest.mark.slow
def test_a_review_past_its_time_limit_fails_and_frees_the_worker(tmp_path, running):
    live = start(running, base_settings(tmp_path))
    reviews = live.app.state.reviews
    reviews.limit_s = 0.05  # far less than a worker takes to start
    _, token, match = ended_match(live, 31)
    assert ask(live, match, token).status_code == 202
    last = until_finished(live, match, token)[-1]
    assert last["state"] == "failed" and "longer than 0.05 s" in last["error"]
    reviews.limit_s = 600.0
    _, other, second = ended_match(live, 32)
    assert ask(live, second, other).status_code == 202
    assert until_finished(live, second, other)[-1]["state"] == "done"  # a new worker took it
    assert reviews.computed == 2


@pytest.mark.slow
def test_a_review_running_when_the_server_died_is_started_again_or_failed(tmp_path, running):
    settings = base_settings(tmp_path)
    engine = db.open_engine(settings.db_url)
    db.upgrade(engine)
    guest, token = guest_token(engine)
    crashed, _ = store_ended(engine, 28, guest, seat=1)
    other, other_token = guest_token(engine)
    doomed, _ = store_ended(engine, 29, other, seat=1)
    # A server that died once under the first review and MAX_ATTEMPTS times under the second.
    queue(engine, crashed, 1, guest, total=5, queue_cap=10)
    assert store.claim_next(engine, "dead-node", 30.0) is not None
    queue(engine, doomed, 1, other, total=5, queue_cap=10)
    for _ in range(MAX_ATTEMPTS):
        row = store.claim_next(engine, "dead-node", 30.0)
        assert row is not None and row.match_id == doomed
        if row.attempts < MAX_ATTEMPTS:
            assert store.retry(engine, doomed, 1, "dead-node", max_attempts=MAX_ATTEMPTS, error="x") == "queued"
    assert store.get_review(engine, doomed, 1).attempts == MAX_ATTEMPTS  # type: ignore[union-attr]
    engine.dispose()

    live = start(running, settings)  # alone on its database: what was running is not running now
    assert until_finished(live, crashed, token)[-1]["state"] == "done"
    failed = read(live, doomed, other_token).json()
    assert failed["state"] == "failed" and "stopped" in failed["error"]
    assert ask(live, doomed, other_token).status_code == 202  # a failed review may be asked again
    assert until_finished(live, doomed, other_token)[-1]["state"] == "done"


def test_store_reviews(any_engine: Engine) -> None:
    guest, _ = guest_token(any_engine)
    match, _ = store_ended(any_engine, 30, guest)
    row, new = queue(any_engine, match, 1, guest, total=40, queue_cap=1)
    assert new and row.state == "queued" and row.total == 40 and row.attempts == 0
    assert queue(any_engine, match, 1, guest, total=40, queue_cap=1) == (row, False)
    claimed = store.claim_next(any_engine, "a", 0.0)  # a lease that has run out already
    assert claimed is not None and claimed.state == "running" and claimed.attempts == 1 and claimed.node == "a"
    assert store.claim_next(any_engine, "b", 30.0) is None  # nothing else queued
    assert store.renew(any_engine, match, 1, "a", done=7, total=40, lease_s=0.0)
    assert not store.renew(any_engine, match, 1, "b", done=8, total=40, lease_s=30.0)  # not b's
    assert store.recover(any_engine, max_attempts=2, spare="a") == (0, 0)  # a knows its own is alive
    assert store.recover(any_engine, max_attempts=2) == (1, 0)  # its lease ran out: queued again
    assert store.claim_next(any_engine, "b", 30.0) is not None
    assert store.recover(any_engine, max_attempts=2) == (0, 0)  # b's lease holds
    assert not store.finish(any_engine, match, 1, "a", {"seat": 1})  # a lost it
    kept = {"reviewer": REVIEWER, "seat": 1, "mistakes": []}
    assert store.finish(any_engine, match, 1, "b", kept)
    done = store.get_review(any_engine, match, 1)
    assert done is not None and done.state == "done" and done.done == 40 and done.result == kept
    assert done.attempts == 2 and done.node is None
    assert queue(any_engine, match, 1, guest, total=40, queue_cap=1) == (done, False)
    assert not store.outdated(done, REVIEWER)
    assert store.get_review(any_engine, match, 0) is None


def test_store_one_address_is_capped_and_the_claim_serves_the_addresses_in_turn(
    any_engine: Engine,
) -> None:
    crowd, alone = f"ip:crowd-{secrets.token_hex(4)}", f"ip:alone-{secrets.token_hex(4)}"  # PostgreSQL: one database
    players = [guest_token(any_engine)[0] for _ in range(5)]
    matches = [store_ended(any_engine, 40 + i, g)[0] for i, g in enumerate(players)]

    def ask_from(i: int, address: str) -> tuple[store.ReviewRow, bool]:
        return queue(any_engine, matches[i], 1, players[i], total=40, queue_cap=10, address=address, per_address=2)

    assert ask_from(0, crowd)[1] and ask_from(1, crowd)[1]  # fresh guests of one address, first in the queue
    with pytest.raises(store.ReviewRefused) as refused:
        ask_from(2, crowd)
    assert refused.value.reason == "address"
    assert ask_from(3, alone)[1]  # asked last, from another address
    claimed = [store.claim_next(any_engine, "n", 30.0) for _ in range(3)]
    assert [(c.match_id, c.address) for c in claimed if c] == [
        (matches[0], crowd),
        (matches[3], alone),
        (matches[1], crowd),
    ]
    assert store.finish(any_engine, matches[0], 1, "n", {"seat": 1})  # a place of the crowd's is free again
    assert ask_from(2, crowd)[1] and ask_from(4, alone)[1]
    # The crowd has two reviews running or lately done, the other address one: its later ask goes first.
    assert [c.match_id for c in [store.claim_next(any_engine, "n", 30.0) for _ in range(2)] if c] == [
        matches[4],
        matches[2],
    ]
    assert store.claim_next(any_engine, "n", 30.0) is None


def test_migration_0011_keeps_older_reviews_claimable(tmp_path: Path) -> None:
    engine = db.open_engine(f"sqlite:///{tmp_path / 'old.db'}")
    db.upgrade(engine, "0010")
    guest, _ = guest_token(engine)
    match, _ = store_ended(engine, 46, guest, ending=False)
    with engine.begin() as conn:  # ended as the code of 0010 ended it (no statistics rows: no table yet)
        conn.execute(text("UPDATE matches SET status = 'ended' WHERE id = :m"), {"m": match})
    with engine.begin() as conn:  # a review queued before the asker's address was kept
        conn.execute(
            text(
                "INSERT INTO match_reviews (match_id, seat, guest_id, state, created_at, updated_at)"
                " VALUES (:match, 1, :guest, 'queued', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
            ),
            {"match": match, "guest": guest},
        )
    db.upgrade(engine)
    old = store.get_review(engine, match, 1)
    assert old is not None and old.address is None and old.state == "queued"
    other, _ = guest_token(engine)
    newer, _ = store_ended(engine, 47, other)
    assert queue(engine, newer, 1, other, total=40, queue_cap=10, per_address=1)[1]  # the old row is no address's
    assert [(c.match_id, c.address) for c in [store.claim_next(engine, "n", 30.0) for _ in range(2)] if c] == [
        (match, None),
        (newer, "ip:192.0.2.1"),
    ]
    engine.dispose()


def finished_by(
    engine: Engine, match: str, seat: int, guest: str, result: dict[str, Any], *, asked: bool = False
) -> store.ReviewRow:
    """A done review of ``seat`` kept with ``result`` (as a worker of some master left it);
    ``asked``: it is queued already."""
    if not asked:
        queue(engine, match, seat, guest, total=40, queue_cap=10)
    claimed = store.claim_next(engine, "old", 30.0)
    assert claimed is not None and (claimed.match_id, claimed.seat) == (match, seat)
    assert store.finish(engine, match, seat, "old", result)
    row = store.get_review(engine, match, seat)
    assert row is not None and row.state == "done"
    return row


@pytest.mark.parametrize("kept", [{"reviewer": "ev-0", "seat": 1}, {"seat": 1}], ids=["another", "unnamed"])
def test_store_a_review_of_another_master_is_queued_again(any_engine: Engine, kept: dict[str, Any]) -> None:
    guest, _ = guest_token(any_engine)
    match, _ = store_ended(any_engine, 33, guest)
    old = finished_by(any_engine, match, 1, guest, kept)
    assert old.attempts == 1 and store.outdated(old, REVIEWER)
    row, new = queue(any_engine, match, 1, guest, total=41, queue_cap=10)
    assert new and row.state == "queued" and row.attempts == 0 and row.total == 41 and row.result is None
    assert not store.outdated(row, REVIEWER)  # only a done review is outdated
    # Computed again by today's master (the database is the module's on PostgreSQL: none is left queued).
    again = finished_by(any_engine, match, 1, guest, {"reviewer": REVIEWER, "seat": 1}, asked=True)
    assert again.attempts == 1 and not store.outdated(again, REVIEWER)
    assert queue(any_engine, match, 1, guest, total=41, queue_cap=10) == (again, False)


@pytest.mark.slow
def test_a_review_of_another_master_is_shown_outdated_and_computed_again(tmp_path, running):
    settings = base_settings(tmp_path)
    engine = db.open_engine(settings.db_url)
    db.upgrade(engine)
    guest, token = guest_token(engine)
    match, _ = store_ended(engine, 34, guest, seat=1)
    # As the master before this version kept it: another opinion, no "reviewer".
    old = {"seat": 1, "decisions": 1, "priced": 1, "agreed": 0, "total_loss": 0.5, "mistakes": []}
    finished_by(engine, match, 1, guest, old)
    engine.dispose()

    live = start(running, settings)
    shown = read(live, match, token).json()
    assert shown["state"] == "done" and shown["outdated"] is True  # what is kept, said to be old
    assert shown["result"]["total_loss"] == 0.5 and shown["result"]["reviewer"] is None
    again = ask(live, match, token)
    assert again.status_code == 202 and again.json()["state"] in ("queued", "running"), again.text
    last = until_finished(live, match, token)[-1]
    assert last["state"] == "done" and last["outdated"] is False
    assert last["result"]["reviewer"] == REVIEWER and last["result"]["decisions"] > 1
    assert live.app.state.reviews.computed == 1
    assert ask(live, match, token).json()["result"] == last["result"]  # today's is kept
    assert live.app.state.reviews.computed == 1


def test_the_settings_of_the_reviews() -> None:
    found = Settings.from_env(
        {"SANMA_REVIEW_WORKERS": "0", "SANMA_REVIEW_QUEUE": "3", "SANMA_REVIEWS_PER_ADDRESS": "4"}
    )
    assert (found.review_workers, found.review_queue, found.reviews_per_address) == (0, 3, 4)
    assert (Settings().review_workers, Settings().review_queue, Settings().reviews_per_address) == (1, 16, 2)
    for bad in (
        {"SANMA_REVIEW_WORKERS": "-1"},
        {"SANMA_REVIEW_QUEUE": "0"},
        {"SANMA_REVIEW_WORKERS": "two"},
        {"SANMA_REVIEWS_PER_ADDRESS": "0"},
    ):
        with pytest.raises(SanmaError, match="SANMA_REVIEW"):
            Settings.from_env(bad)
