"""Quick match (``docs/quick.md``): the grouping, then the queue socket on a live server: three
strangers at one table, one player alone seated with bots after its wait, leaving, a lost
socket, a guest queued twice, resuming, bad frames; the ladder moving once at the end."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from sanma.server.quick import Ticket, group
from sanma.store import db
from sanma.store.ladder import RANKS, Standing, after
from sanma.store.tables import rank_changes, ranks
from tests.fixtures.quick import Queuer
from tests.fixtures.server import Client, LiveServer, live_server, new_guest, serving

# -- grouping (pure) -------------------------------------------------------------------------------


def ticket(
    guest: str, since: float = 0.0, *, mu: float = 25.0, address: str = "", wait_s: float = 20.0, **kw: Any
) -> Ticket:
    fields: dict[str, Any] = {"length": "east", "red_fives": True, "rank": 0, "socket": "s"} | kw
    return Ticket(guest, wait_s=wait_s, since=since, address=address or f"addr-{guest}", mu=mu, **fields)


def guests(tables: list[Any]) -> list[list[str]]:
    return [[t.guest for t in table.tickets] for table in tables]


def test_three_of_a_pool_sit_together_at_once_oldest_first():
    waiting = [ticket("c", 2), ticket("a", 0), ticket("b", 1), ticket("d", 3)]
    assert guests(group(waiting, now=3.5)) == [["a", "b", "c"]]


def test_pools_do_not_mix_and_a_lone_player_waits_until_its_wait_is_over():
    waiting = [ticket("a", 0), ticket("b", 0, length="east-south"), ticket("c", 0, red_fives=False)]
    assert group(waiting, now=19.9) == []
    tables = guests(group(waiting, now=20.0))
    assert sorted(tables) == [["a"], ["b"], ["c"]]  # each with two bots


def test_the_rating_window_widens_with_the_wait():
    waiting = [ticket("a", 0, mu=25), ticket("b", 0.1, mu=25), ticket("far", 0.2, mu=45)]
    assert group(waiting, now=1.0) == []  # 20 apart: outside 6 + 1 s
    assert guests(group(waiting, now=14.5)) == [["a", "b", "far"]]  # 6 + 14.5 s >= 20


def test_one_address_sits_together_only_when_nobody_else_waits():
    same = [ticket("a", 0, address="x"), ticket("b", 1, address="x"), ticket("c", 2, address="y")]
    # Nobody else of another address: the two of "x" may share the table.
    assert guests(group(same, now=3)) == [["a", "c", "b"]]
    crowd = [*same, ticket("far", 3, address="z", mu=40)]
    # "far" (another address, outside a's window) waits too: a does not take b yet.
    assert group(crowd, now=4) == []
    assert guests(group(crowd, now=10)) == [["a", "c", "far"]]


def test_a_due_player_takes_whoever_waits_and_bots_take_the_rest():
    waiting = [ticket("a", 0, mu=10, wait_s=5), ticket("b", 1, mu=40, wait_s=60)]
    assert guests(group(waiting, now=5)) == [["a", "b"]]


# -- the queue socket ------------------------------------------------------------------------------

WAIT = 0.6


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    yield from serving(
        tmp_path, quick_wait_s=WAIT, quick_wait_choices=(WAIT, 60.0), quick_tick_s=0.1, quick_abandon_s=0.5
    )


def three_seated(live: LiveServer) -> tuple[list[str], list[dict[str, Any]]]:
    """Three new guests queued together, and the ``seated`` frame each got."""
    tokens = [new_guest(live) for _ in range(3)]
    return tokens, [q.until("seated") for q in [Queuer(live.ws, t) for t in tokens]]


def until_ended(client: Client) -> dict[str, Any]:
    """The ``MatchEnded`` event frame the client gets next."""
    while True:
        frame = client.until("event")
        if frame["e"]["type"] == "MatchEnded":
            return frame


def welcome(live: LiveServer, token: str, match: str) -> tuple[Client, dict[str, Any]]:
    client = Client(live, token, match)
    return client, client.until("welcome")


@pytest.mark.slow
def test_three_strangers_are_seated_at_one_table(live):
    tokens = [new_guest(live) for _ in range(3)]
    queuers = [Queuer(live.ws, t) for t in tokens]
    seated = [q.until("seated") for q in queuers]
    assert len({s["match"] for s in seated}) == 1
    assert sorted(s["seat"] for s in seated) == [0, 1, 2]
    client, hello = welcome(live, tokens[0], seated[0]["match"])
    assert hello["kind"] == "quick" and hello["seat"] == seated[0]["seat"]
    assert [p["bot_level"] for p in hello["players"]] == [None, None, None]
    assert [p["rank"] for p in hello["players"]] == ["6k"] * 3
    client.close()
    with pytest.raises(ConnectionClosed):  # the queue socket closes after seated
        queuers[0].recv(5)


@pytest.mark.slow
def test_a_player_alone_gets_two_bots_after_the_wait(live):
    token = new_guest(live)
    q = Queuer(live.ws, token, wait_s=WAIT)
    first = q.until("queued")
    assert first["wait_s"] == WAIT and first["waiting"] == 1 and first["length"] == "east"
    seated = q.until("seated")
    client, hello = welcome(live, token, seated["match"])
    bots = [p for p in hello["players"] if p["bot_level"] is not None]
    assert len(bots) == 2 and {b["bot_level"] for b in bots} == {"normal"} and all("rank" not in b for b in bots)
    client.close()


@pytest.mark.slow
def test_a_guest_cannot_queue_twice_and_leaving_frees_the_ticket(live):
    token = new_guest(live)
    first = Queuer(live.ws, token)
    first.until("queued")
    second = Queuer(live.ws, token)
    assert second.until("error")["code"] == "already_queued"
    first.send({"t": "leave"})
    assert first.until("left")["t"] == "left"
    assert live.run(live.app.state.quick.queue.tickets()) == []
    third = Queuer(live.ws, token)
    assert third.until("queued")["waiting"] >= 1
    third.close()


@pytest.mark.slow
def test_a_lost_socket_leaves_the_queue(live):
    token = new_guest(live)
    q = Queuer(live.ws, token)
    q.until("queued")
    q.close()
    deadline = time.monotonic() + 5
    while live.run(live.app.state.quick.queue.tickets()):
        assert time.monotonic() < deadline, "the ticket outlived its socket"
        time.sleep(0.05)
    again = Queuer(live.ws, token)
    assert again.until("queued", "error")["t"] == "queued"
    again.close()


@pytest.mark.slow
def test_a_guest_with_a_quick_match_being_played_goes_back_to_it(live):
    token = new_guest(live)
    seated = Queuer(live.ws, token, wait_s=WAIT).until("seated")
    back = Queuer(live.ws, token)
    assert back.until("seated", "queued") == seated  # no second table


@pytest.mark.slow
def test_bad_frames_get_typed_errors(live):
    q = Queuer(live.ws, "")
    q.send("not json")
    assert q.recv()["code"] == "bad_json"
    q.send({"t": "queue", "token": "x", "length": "east", "red_fives": True, "wait_s": 7})
    assert q.recv()["code"] == "bad_schema"  # not one of the waits offered
    q.send({"t": "queue", "token": "x", "length": "one-hand", "red_fives": True, "wait_s": 60})
    assert q.recv()["code"] == "bad_schema"
    q.send({"t": "queue", "token": "no-such-token", "length": "east", "red_fives": True, "wait_s": 60})
    assert q.recv()["code"] == "unauthorized"


@pytest.mark.slow
def test_quick_info_names_the_waits_and_the_players_ranks(live):
    token = new_guest(live)
    info = httpx.get(f"{live.http}/api/quick", headers={"Authorization": f"Bearer {token}"}).json()
    assert info["wait_s"] == WAIT and info["wait_choices"] == [WAIT, 60.0]
    assert info["ranks"]["east"] == {"rank": "6k", "points": 0, "promote_at": 20, "games": 0}
    assert set(info["waiting"]) == {"east", "east-south"}


# -- the ladder at the end -----------------------------------------------------------------------------


def end_match(live: LiveServer, match: str) -> None:
    async def end() -> None:
        room = await live.app.state.rooms.get(match)
        room.end_now("test")

    live.run(end())


def rows(live: LiveServer, table: Any) -> list[dict[str, Any]]:
    engine = db.open_engine(live.settings.db_url)
    try:
        with engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(table.select())]
    finally:
        engine.dispose()


@pytest.mark.slow
def test_the_ladder_moves_once_by_placement_and_a_gone_player_counts_last(live):
    tokens, seated = three_seated(live)
    match = seated[0]["match"]
    clients = [welcome(live, t, match)[0] for t in tokens[:2]]  # the third never comes
    time.sleep(0.7)  # past quick_abandon_s: the third has been gone long enough
    end_match(live, match)
    placements = until_ended(clients[0])["e"]["placements"]
    changes = {r["guest_id"]: r for r in rows(live, rank_changes)}
    assert len(changes) == 3
    by_seat = {s["seat"]: t for s, t in zip(seated, tokens, strict=True)}
    absent_seat = seated[2]["seat"]
    for row in changes.values():
        assert row["match_id"] == match and row["length"] == "east"
    standing = {r["guest_id"]: Standing(r["rank"], r["points"], r["games"]) for r in rows(live, ranks)}
    history = {}
    for seat, token in by_seat.items():
        items = httpx.get(f"{live.http}/api/account/history", headers={"Authorization": f"Bearer {token}"}).json()
        (item,) = items["matches"]
        history[seat] = item["rank_change"]
        expected_place = 3 if seat == absent_seat else placements[seat]
        assert item["rank_change"]["placement"] == expected_place
        assert item["rank_change"]["abandoned"] == (seat == absent_seat)
        moved = after(Standing(), expected_place, "east")
        assert (item["rank_change"]["rank_after"], item["rank_change"]["points_after"]) == (moved.code, moved.points)
    assert sorted((s.rank, s.points, s.games) for s in standing.values()) == sorted(
        (after(Standing(), history[s]["placement"], "east").rank, history[s]["points_after"], 1) for s in by_seat
    )
    # The leaderboard lists the three, in the ladder's order, each sees its own line.
    board = httpx.get(
        f"{live.http}/api/ranks/leaderboard",
        params={"length": "east"},
        headers={"Authorization": f"Bearer {tokens[0]}"},
    ).json()
    assert len(board["top"]) == 3 and board["you"]["you"] is True
    order = [(RANKS.index(e["rank"]), e["points"]) for e in board["top"]]
    assert order == sorted(order, reverse=True)
    for c in clients:
        c.close()


@pytest.mark.slow
def test_a_second_settlement_of_one_match_fails_instead_of_counting_twice(live):
    from sanma.store import ranks as store

    tokens, seated = three_seated(live)
    match = seated[0]["match"]
    client = welcome(live, tokens[0], match)[0]
    end_match(live, match)
    until_ended(client)
    engine = db.open_engine(live.settings.db_url)
    try:
        before = rows(live, ranks)
        with pytest.raises(Exception, match=r"(?i)unique|constraint"), engine.begin() as conn:
            store.settle(conn, match, store_now())
        assert rows(live, ranks) == before
    finally:
        engine.dispose()
    client.close()


def store_now() -> Any:
    from datetime import UTC, datetime

    return datetime.now(UTC)


@pytest.mark.slow
def test_queue_frames_are_json_keyed_by_t(live):
    token = new_guest(live)
    q = Queuer(live.ws, token)
    frame = q.until("queued")
    assert set(frame) == {"t", "length", "red_fives", "wait_s", "waited_s", "waiting"}
    q.send({"t": "ping"})
    assert q.until("pong")["t"] == "pong"
    json.dumps(frame)
    q.close()


@pytest.mark.slow
def test_a_players_ranks_are_in_its_export_and_go_with_its_account(live):
    tokens, seated = three_seated(live)
    client = welcome(live, tokens[0], seated[0]["match"])[0]
    end_match(live, seated[0]["match"])
    until_ended(client)
    client.close()
    auth = {"Authorization": f"Bearer {tokens[0]}"}
    doc = httpx.get(f"{live.http}/api/account/export", headers=auth).json()
    assert [r["length"] for r in doc["ranks"]] == ["east"] and doc["ranks"][0]["games"] == 1
    assert [r["match_id"] for r in doc["rank_changes"]] == [seated[0]["match"]]
    assert httpx.post(f"{live.http}/api/account/delete", headers=auth, json={}).status_code == 200
    other = {"Authorization": f"Bearer {tokens[1]}"}
    board = httpx.get(f"{live.http}/api/ranks/leaderboard", headers=other).json()
    assert len(board["top"]) == 2  # the deleted player left the board
    assert len(rows(live, ranks)) == 2 and len(rows(live, rank_changes)) == 2


@pytest.mark.slow
def test_a_restart_in_the_middle_neither_loses_nor_doubles_the_change(tmp_path):
    settings = {"quick_wait_s": WAIT, "quick_wait_choices": (WAIT, 60.0), "quick_tick_s": 0.1}
    first = live_server(tmp_path, **settings)
    try:
        token = new_guest(first)
        seated = Queuer(first.ws, token, wait_s=WAIT).until("seated")
        client = Client(first, token, seated["match"])
        client.until("prompt")
        client.close()
    finally:
        first.stop()  # the server goes down in the middle of the match
    second = live_server(tmp_path, **settings)
    try:
        back = Queuer(second.ws, token)
        assert back.until("seated", "queued") == seated  # the match is still there
        client = Client(second, token, seated["match"])
        client.until("welcome")
        end_match(second, seated["match"])
        until_ended(client)
        client.close()
        (change,) = rows(second, rank_changes)
        (standing,) = rows(second, ranks)
        assert change["match_id"] == seated["match"] and standing["games"] == 1
    finally:
        second.stop()


@pytest.mark.slow
def test_strangers_at_a_quick_table_may_send_stamps(live):
    tokens, seated = three_seated(live)
    clients = [welcome(live, t, seated[0]["match"]) for t in tokens]
    assert all(hello["stamps"] is True for _, hello in clients)
    clients[0][0].send({"t": "stamp", "id": "nice"})
    for client, _ in clients:
        assert client.until("stamp") == {"t": "stamp", "seat": seated[0]["seat"], "id": "nice"}
    for client, _ in clients:
        client.close()


@pytest.mark.slow
def test_the_operator_sees_the_queue_and_the_waits(live):
    def scrape() -> str:
        return live.app.state.metrics.exposition().decode()

    token = new_guest(live)
    q = Queuer(live.ws, token, wait_s=WAIT)
    q.until("queued")
    assert 'sanma_quick_waiting{length="east"} 1.0' in scrape()
    q.until("seated")
    deadline = time.monotonic() + 5
    while 'sanma_quick_waiting{length="east"} 0.0' not in scrape():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    text = scrape()
    assert 'sanma_quick_wait_seconds_count{length="east"} 1.0' in text
    assert 'sanma_matches_total{kind="quick",phase="started"} 1.0' in text
