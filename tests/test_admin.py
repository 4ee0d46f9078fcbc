"""``sanma admin`` end to end (``docs/server.md``, "Administration"): a real server (uvicorn, its
metrics port with ``SANMA_ADMIN_TOKEN``), real WebSockets, the command as an operator runs it.
Listing while a practice match runs; a bar closes the guest's socket and refuses its next hello
and its HTTP calls until unbar; closing a friend room; refusals without or with a wrong token;
unknown targets exit non-zero; every action logs one ``admin`` line.  Over two processes with
Redis and PostgreSQL (skipped locally without them, as ``tests/test_scaleout.py``): a bar given
through one process closes the guest's socket on the other."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from sanma.cli import main as sanma
from sanma.engine.events import HandStarted, MatchEnded
from sanma.server import protocol
from sanma.server.metrics import Metrics, serve_metrics
from sanma.server.settings import Settings
from sanma.store import db
from sanma.store.guests import SignedIn, bar_guest, create_guest, signed_in, unbar_guest
from tests.fixtures.hand_break import play_to_break
from tests.fixtures.scaleout import Node, Player, new_practice
from tests.fixtures.server import Client, LiveServer, answer, full_log, new_guest, new_match, serving
from tests.services import free_port

TOKEN = "admin-token-0123456789"


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    yield from serving(tmp_path / "data", metrics_port=free_port(), admin_token=TOKEN)


def admin(
    live: LiveServer | str, capsys: pytest.CaptureFixture[str], *args: str, token: str = TOKEN
) -> tuple[int, str]:
    """Run ``sanma admin ARGS`` against ``live`` (or the metrics URL given): the exit status and
    what it printed (out + err)."""
    url = live if isinstance(live, str) else f"http://127.0.0.1:{live.settings.metrics_port}"
    capsys.readouterr()
    status = sanma(["admin", "--url", url, "--token", token, *args])
    out = capsys.readouterr()
    return status, out.out + out.err


def admin_json(live: LiveServer | str, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    status, out = admin(live, capsys, *args, "--json")
    assert status == 0, out
    return dict(json.loads(out))


def admin_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if getattr(r, "event", None) == "admin"]


def closed_with(client: Client) -> int | None:
    """Read until the server closes the socket; its close code."""
    try:
        while True:
            client.recv()
    except ConnectionClosed as exc:
        return None if exc.rcvd is None else exc.rcvd.code


def test_matches_lists_a_running_practice_match(live: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    token = new_guest(live)
    match = new_match(live, token)
    client = Client(live, token, match)
    client.until("prompt")
    listed = admin_json(live, capsys, "matches")["matches"]
    assert [m["match"] for m in listed] == [match]
    assert listed[0]["kind"] == "practice" and listed[0]["events"] > 1 and listed[0]["node"]
    status, table = admin(live, capsys, "matches")
    assert status == 0 and table.splitlines()[0].split() == ["MATCH", "KIND", "EVENTS", "NODE", "SEATS", "UPDATED"]
    assert match in table and "practice" in table and token not in table
    assert admin(live, capsys, "rooms")[1].strip().endswith("(none)")  # no friend room yet
    client.close()


def test_bar_closes_the_socket_refuses_the_guest_until_unbar(
    live: LiveServer, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="sanma.admin")
    token = new_guest(live)
    match = new_match(live, token)
    client = Client(live, token, match)
    client.until("prompt")
    seats = admin_json(live, capsys, "matches")["matches"][0]["seats"]
    guest = next(s for s in seats if not s.startswith("bot:"))

    status, out = admin(live, capsys, "bar", guest, "--reason", "abuse in chat")
    assert status == 0, out
    assert closed_with(client) == protocol.CLOSE_BARRED
    again = Client(live, token, match)
    refused = again.recv()
    assert (refused["t"], refused["code"]) == ("error", protocol.BARRED)
    assert closed_with(again) == protocol.CLOSE_BARRED
    api = httpx.get(f"{live.http}/api/account/history", headers={"Authorization": f"Bearer {token}"})
    assert (api.status_code, api.json()["error"]) == (403, "barred")

    status, out = admin(live, capsys, "unbar", guest, "--reason", "appeal granted")
    assert status == 0, out
    back = Client(live, token, match)
    assert back.until("welcome")["t"] == "welcome"
    back.close()
    api = httpx.get(f"{live.http}/api/account/history", headers={"Authorization": f"Bearer {token}"})
    assert api.status_code == 200

    lines = [(r.action, r.target, r.reason) for r in admin_lines(caplog)]  # type: ignore[attr-defined]
    assert lines == [("bar", guest, "abuse in chat"), ("unbar", guest, "appeal granted")]
    assert not any(token in r.getMessage() for r in caplog.records)


def test_close_a_friend_room(
    live: LiveServer, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="sanma.admin")
    host, friend = new_guest(live), new_guest(live)
    r = httpx.post(f"{live.http}/api/rooms", json={}, headers={"Authorization": f"Bearer {host}"})
    assert r.status_code == 201, r.text
    code = r.json()["code"]
    r = httpx.post(f"{live.http}/api/rooms/{code}/join", json={}, headers={"Authorization": f"Bearer {friend}"})
    assert r.status_code == 200, r.text
    rooms = admin_json(live, capsys, "rooms")["rooms"]
    assert [(room["code"], room["status"]) for room in rooms] == [(code, "lobby")]

    status, out = admin(live, capsys, "close", code, "--reason", "offensive name")
    assert status == 0, out
    for player in (host, friend):  # the lobby's next look finds no room
        seen = httpx.get(f"{live.http}/api/rooms/{code}", headers={"Authorization": f"Bearer {player}"})
        assert (seen.status_code, seen.json()["error"]) == (404, "no_room")
    assert admin_json(live, capsys, "rooms")["rooms"] == []
    (line,) = admin_lines(caplog)
    assert (line.action, line.reason) == ("close", "offensive name")  # type: ignore[attr-defined]
    assert code not in line.getMessage() and code not in str(line.target)  # type: ignore[attr-defined]


@pytest.mark.slow
def test_end_a_match_shows_its_end_to_the_player(live: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    token = new_guest(live)
    match = new_match(live, token, length="east")
    client = Client(live, token, match)
    answer(client, client.until("prompt"))  # the bots play on while the end is asked
    status, out = admin(live, capsys, "end", match, "--reason", "stuck")
    assert status == 0, out
    while client.next_prompt_or_end() is not None:
        pass
    ended = client.events()[-1]["e"]
    assert ended["reason"] == "operator" and sorted(ended["placements"]) == [1, 2, 3]
    assert admin_json(live, capsys, "matches")["matches"] == []
    status, out = admin(live, capsys, "end", match)  # a second end: refused, the match has ended
    assert status == 1 and "(ended)" in out
    log = full_log(live.settings, match)  # the stored log replays
    assert isinstance(log[-1], MatchEnded) and log[-1].reason == "operator"
    client.close()


@pytest.mark.slow
def test_end_in_a_break_and_the_match_opens_everywhere(live: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    """Ended while the player reads a hand's result: the held deal is stored and sent, then the
    end; the replay, the tenhou.net/6 download (the abandoned hand left out) and the history
    open the match."""
    token = new_guest(live)
    match = new_match(live, token, length="east")
    client = Client(live, token, match)
    brk, _ = play_to_break(client)
    assert brk["t"] == "hand_break"
    assert admin(live, capsys, "end", match, "--reason", "test")[0] == 0
    assert client.next_prompt_or_end() is None
    kinds = [f["e"]["type"] for f in client.events() if f["v"] > brk["v"]]
    assert kinds[0] == "HandStarted" and kinds[-1] == "MatchEnded"  # the held deal, then the end
    assert "TileDiscarded" not in kinds
    log = full_log(live.settings, match)
    assert isinstance(log[-1], MatchEnded) and isinstance(log[brk["v"]], HandStarted)
    headers = {"Authorization": f"Bearer {token}"}
    replayed = httpx.get(f"{live.http}/api/matches/{match}/replay", headers=headers)
    assert replayed.status_code == 200 and replayed.json()["events"][-1]["type"] == "MatchEnded"
    exported = httpx.get(f"{live.http}/api/matches/{match}/tenhou6", headers=headers)
    assert exported.status_code == 200 and len(exported.json()["log"]) == 1  # the one whole hand
    history = httpx.get(f"{live.http}/api/account/history", headers=headers)
    assert history.status_code == 200 and match in history.text
    client.close()


def test_unknown_targets_exit_non_zero_with_a_clear_message(
    live: LiveServer, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="sanma.admin")
    for args, code in [
        (["end", "0" * 32], "no_match"),
        (["close", "ZZZZZZ"], "no_room"),
        (["bar", "f" * 32], "no_guest"),
        (["unbar", "f" * 32], "not_barred"),
    ]:
        status, out = admin(live, capsys, *args)
        assert status == 1 and f"({code})" in out, (args, out)
    assert admin(live, capsys, "bar")[0] == 2  # no target given
    assert admin_lines(caplog) == []  # nothing done, nothing logged


def test_admin_without_or_with_a_wrong_token_is_refused(live: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = admin(live, capsys, "rooms", token="not-the-admin-token")
    assert status == 1 and "(unauthorized)" in out
    url = f"http://127.0.0.1:{live.settings.metrics_port}/admin/rooms"
    assert httpx.get(url).status_code == 401
    assert httpx.get(url, headers={"Authorization": f"Basic {TOKEN}"}).status_code == 401
    assert httpx.get(url, headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
    # Never on the public port.
    assert httpx.get(f"{live.http}/admin/rooms", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 404


def test_no_admin_token_no_admin_routes() -> None:
    async def main() -> int:
        port = free_port()
        listener = await serve_metrics(Metrics(), "127.0.0.1", port)  # what the app does with no token
        try:
            async with httpx.AsyncClient() as client:
                r = await client.get(f"http://127.0.0.1:{port}/admin/rooms", headers={"Authorization": "Bearer x"})
                return r.status_code
        finally:
            listener.close()
            await listener.wait_closed()

    assert asyncio.run(main()) == 404
    with pytest.raises(ValueError, match="SANMA_METRICS_PORT"):
        Settings.from_env({"SANMA_ADMIN_TOKEN": TOKEN})
    with pytest.raises(ValueError, match="16 characters"):
        Settings.from_env({"SANMA_ADMIN_TOKEN": "short", "SANMA_METRICS_PORT": "9100"})


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_bar_is_stored_and_lifted_on_sqlite_and_postgresql(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = f"sqlite:///{tmp_path / 'sanma.db'}" if kind == "sqlite" else request.getfixturevalue("database_url")
    engine = db.open_engine(url)
    try:
        db.upgrade(engine)  # migration 0012 included
        guest = create_guest(engine)
        assert signed_in(engine, guest.token) == SignedIn(guest.id, barred=False)
        assert bar_guest(engine, guest.id, "first") and bar_guest(engine, guest.id, "again")  # barred twice: fine
        assert signed_in(engine, guest.token) == SignedIn(guest.id, barred=True)
        assert not bar_guest(engine, "0" * 32, "")  # no such guest
        assert unbar_guest(engine, guest.id) and not unbar_guest(engine, guest.id)
        assert signed_in(engine, guest.token) == SignedIn(guest.id, barred=False)
        assert signed_in(engine, "not a token") is None
    finally:
        engine.dispose()


# -- two processes -------------------------------------------------------------------------------


@pytest.mark.slow
def test_over_two_processes_a_bar_given_on_one_closes_the_socket_on_the_other(
    database_url: str, redis_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    a = Node("node-a", database_url, redis_url, tmp_path, SANMA_METRICS_PORT=str(port), SANMA_ADMIN_TOKEN=TOKEN)
    try:
        b = Node("node-b", database_url, redis_url, tmp_path)  # no admin routes of its own
    except BaseException:
        a.stop()
        raise
    url = f"http://127.0.0.1:{port}"
    try:
        token, match = new_practice(a)  # owned by A
        player = Player(b, token, match)  # relayed by B
        assert player.next_prompt_or_end() is not None
        listed = admin_json(url, capsys, "matches")["matches"]
        mine = next(m for m in listed if m["match"] == match)
        assert mine["node"] == "node-a"
        guest = next(s for s in mine["seats"] if not s.startswith("bot:"))
        status, out = admin(url, capsys, "bar", guest, "--reason", "two processes")
        assert status == 0, out
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                player.ws.recv(timeout=20)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == protocol.CLOSE_BARRED
        again = Player(b, token, match)
        refused = json.loads(again.ws.recv(timeout=20))
        assert (refused["t"], refused["code"]) == ("error", protocol.BARRED)
        assert admin(url, capsys, "unbar", guest)[0] == 0
    finally:
        a.stop()
        b.stop()


@pytest.mark.slow
def test_over_two_processes_an_end_asked_on_one_ends_the_match_the_other_owns(
    database_url: str, redis_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    a = Node("node-a", database_url, redis_url, tmp_path)  # owns the match, no admin routes
    try:
        b = Node("node-b", database_url, redis_url, tmp_path, SANMA_METRICS_PORT=str(port), SANMA_ADMIN_TOKEN=TOKEN)
    except BaseException:
        a.stop()
        raise
    url = f"http://127.0.0.1:{port}"
    try:
        token, match = new_practice(a)
        player = Player(a, token, match)
        assert player.next_prompt_or_end() is not None
        status, out = admin(url, capsys, "end", match, "--reason", "two processes")  # an End on the bus
        assert status == 0, out
        while player.next_prompt_or_end() is not None:
            pass
        assert all(m["match"] != match for m in admin_json(url, capsys, "matches")["matches"])
        assert admin(url, capsys, "end", match)[0] == 1  # ended already
    finally:
        a.stop()
        b.stop()
