"""The game server end to end: a real uvicorn on 127.0.0.1 (a free port, in a thread), real
HTTP and WebSocket clients.  Every frame of seeded one-hand matches is compared with the
engine's full log redacted for the seat; reconnects and a server restart resume at the same
version with the same prompt; bad frames get error frames and the match goes on."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from sanma.engine.events import MatchEnded
from sanma.engine.replay import replay
from sanma.server.settings import Settings
from tests.fixtures.server import (
    SEEDS,
    Client,
    LiveServer,
    answer,
    check_frames_against_log,
    free_port,
    full_log,
    new_guest,
    new_match,
    play_to_end,
)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(port=free_port(), data_dir=tmp_path / "data", bot_delay_s=0.0, rate_per_s=200.0, rate_burst=400)


@pytest.fixture
def server(settings: Settings) -> Iterator[LiveServer]:
    live = LiveServer(settings, seed_source=lambda: SEEDS[0])
    yield live
    live.stop()


def test_answers_carry_the_security_headers(server):
    # The API pages too: Swagger UI from local files (api/docs.py, tests/test_http_edge.py).
    for path in ("/", "/src/main.js", "/api/health", "/api/nowhere", "/api/docs"):
        headers = httpx.get(f"{server.http}{path}").headers
        assert headers["x-content-type-options"] == "nosniff", path
        assert headers["referrer-policy"] == "no-referrer" and headers["x-frame-options"] == "DENY", path
        csp = headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe" not in csp, path


@pytest.mark.slow
def test_readiness_says_whether_the_database_and_the_bus_answer(settings):
    operator = {"Authorization": "Bearer " + "operator-token-0123"}
    server = LiveServer(settings.with_changes(operator_token="operator-token-0123"))
    try:
        ready = httpx.get(f"{server.http}/api/ready")
        assert ready.status_code == 200, ready.text
        # Nobody but the operator learns the node id (host name, pid) or the room count.
        assert ready.json() == {"ok": True, "database": True, "bus": "memory", "bus_ok": True}
        body = httpx.get(f"{server.http}/api/ready", headers=operator).json()
        assert (body["ok"], body["rooms"]) == (True, 0) and body["node"]
        new_match(server, new_guest(server))
        assert httpx.get(f"{server.http}/api/ready", headers=operator).json()["rooms"] == 1
    finally:
        server.stop()
    # Redis that does not answer (nothing listens on the port): alive, but not ready.
    cut_off = LiveServer(settings.with_changes(port=free_port(), redis_url=f"redis://127.0.0.1:{free_port()}"))
    try:
        assert httpx.get(f"{cut_off.http}/api/health").status_code == 200
        ready = httpx.get(f"{cut_off.http}/api/ready")
        assert ready.status_code == 503
        assert {k: ready.json()[k] for k in ("ok", "database", "bus", "bus_ok")} == {
            "ok": False,
            "database": True,
            "bus": "redis",
            "bus_ok": False,
        }
    finally:
        cut_off.stop()


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("seat", [0, 2])
def test_one_hand_practice_match_every_frame_redacted(settings, seed, seat):
    live = LiveServer(settings, seed_source=lambda: seed)
    try:
        token = new_guest(live)
        match = new_match(live, token, seat=seat)
        client = Client(live, token, match)
        welcome = client.until("welcome")
        assert (welcome["match"], welcome["seat"], welcome["protocol"]) == (match, seat, 1)
        play_to_end(client, client.next_prompt_or_end())
        client.close()
        log = check_frames_against_log(client, settings, match, seat)
        assert isinstance(log[-1], MatchEnded)
        status = httpx.get(f"{live.http}/api/matches/{match}", headers={"Authorization": f"Bearer {token}"}).json()
        assert (status["status"], status["v"], status["seat"]) == ("ended", len(log), seat)
        assert replay(log).finished
    finally:
        live.stop()


@pytest.mark.slow
def test_reconnect_resumes_at_the_same_v_with_the_same_prompt(server, settings):
    token = new_guest(server)
    match = new_match(server, token)
    client = Client(server, token, match)
    prompt = client.next_prompt_or_end()
    for _ in range(3):
        assert prompt is not None
        answer(client, prompt)
        prompt = client.next_prompt_or_end()
    assert prompt is not None
    last_v = client.events()[-1]["v"]
    client.close()

    again = Client(server, token, match, last_v=last_v)
    welcome = again.until("welcome")
    assert welcome["v"] == last_v
    resumed = again.next_prompt_or_end()
    assert resumed == prompt  # same seq, legal actions, default and aids
    assert again.events() == []
    # A fresh page (last_v 0) gets the whole log again, identical.
    third = Client(server, token, match, last_v=0)
    assert third.next_prompt_or_end() == prompt
    assert third.events() == client.events()
    third.close()
    play_to_end(again, resumed)
    again.close()
    everything = Client(server, token, match)
    everything.until("welcome")
    while everything.events()[-1:] == [] or everything.events()[-1]["e"]["type"] != "MatchEnded":
        everything.recv()
    everything.close()
    check_frames_against_log(everything, settings, match, 0)


@pytest.mark.slow
def test_server_restart_resumes_the_match(settings):
    live = LiveServer(settings, seed_source=lambda: SEEDS[1])
    token = new_guest(live)
    match = new_match(live, token)
    client = Client(live, token, match)
    prompt = client.next_prompt_or_end()
    for _ in range(4):
        assert prompt is not None
        answer(client, prompt)
        prompt = client.next_prompt_or_end()
    assert prompt is not None
    last_v = client.events()[-1]["v"]
    client.close()
    live.stop()

    live = LiveServer(settings)  # same SQLite file, a new process state
    try:
        again = Client(live, token, match, last_v=last_v)
        assert again.until("welcome")["v"] == last_v
        resumed = again.next_prompt_or_end()
        assert resumed is not None
        assert {k: resumed[k] for k in ("v", "legal", "default", "aids")} == {
            k: prompt[k] for k in ("v", "legal", "default", "aids")
        }
        play_to_end(again, resumed)
        again.close()
        log = full_log(settings, match)
        assert isinstance(log[-1], MatchEnded)
        assert replay(log).finished
    finally:
        live.stop()


@pytest.mark.slow
def test_bad_frames_get_error_frames_and_the_match_goes_on(settings):
    live = LiveServer(settings.with_changes(rate_per_s=5.0, rate_burst=10), seed_source=lambda: SEEDS[0])
    try:
        token = new_guest(live)
        match = new_match(live, token)
        early = connect(live.ws, legacy=True)
        early.send(json.dumps({"t": "act", "seq": 1, "a": {"type": "pass"}}))
        assert json.loads(early.recv(timeout=10))["code"] == "hello_first"
        early.send(json.dumps({"t": "hello", "token": "nope", "match": match}))
        assert json.loads(early.recv(timeout=10))["code"] == "unauthorized"
        other = new_guest(live)
        early.send(json.dumps({"t": "hello", "token": other, "match": match}))
        assert json.loads(early.recv(timeout=10))["code"] == "no_match"
        early.close()

        client = Client(live, token, match)
        prompt = client.next_prompt_or_end()
        assert prompt is not None
        bad: list[tuple[str | bytes | dict[str, Any], str]] = [
            ("this is not json", "bad_json"),
            ("x" * (settings.max_frame_bytes + 1), "too_big"),
            (b"\x00\x01", "bad_frame"),
            ({"t": "act"}, "bad_schema"),
            ({"t": "act", "seq": prompt["seq"], "a": {"type": "discard", "tile": "2m"}}, "bad_schema"),
            ({"t": "act", "seq": prompt["seq"], "a": {"type": "fly"}}, "bad_schema"),
            ({"t": "shout"}, "bad_schema"),
            ({"t": "act", "seq": prompt["seq"] + 7, "a": dict(prompt["default"])}, "stale_seq"),
        ]
        for frame, code in bad:
            client.send(frame)
            got = client.until("error")
            assert got["code"] == code, (frame, got)
        hand = {a["tile"] for a in prompt["legal"] if a["type"] == "discard"}
        missing = next(t for t in ("1z", "2z", "3z", "4z", "5z", "6z", "7z", "1m", "9m") if t not in hand)
        client.send({"t": "act", "seq": prompt["seq"], "a": {"type": "discard", "tile": missing, "riichi": False}})
        assert client.until("error")["code"] == "illegal_action"
        assert client.until("prompt") == prompt  # the same prompt again
        time.sleep(2.5)  # refill the bucket
        for _ in range(30):
            client.send({"t": "ping"})
        replies = [client.recv() for _ in range(30)]
        codes = [f.get("code") for f in replies if f["t"] == "error"]
        assert "rate_limited" in codes and {"t": "pong"} in replies
        time.sleep(2.5)
        client.send({"t": "resync", "from": 1})
        assert client.recv()["v"] == 1  # the log again from v 1 ...
        # ... then the prompt, and the match goes on (paced under this server's 5 frames/s)
        play_to_end(client, client.until("prompt"), pace_s=0.25)
        client.close()
        log = full_log(settings, match)
        assert isinstance(log[-1], MatchEnded)
    finally:
        live.stop()


@pytest.mark.slow
def test_http_api_checks_identity_and_options(server):
    r = httpx.post(f"{server.http}/api/practice", json={"length": "one-hand"})
    assert r.status_code == 401
    token = new_guest(server)
    auth = {"Authorization": f"Bearer {token}"}
    for body in ({"length": "forever"}, {"level": "god"}, {"red_fives": "yes"}, {"seat": 3}, {"colour": 1}):
        r = httpx.post(f"{server.http}/api/practice", json=body, headers=auth)
        assert r.status_code == 422, body
        assert r.json()["error"] == "bad_schema"
    r = httpx.post(f"{server.http}/api/practice", content=b"{nope", headers=auth)
    assert r.status_code == 400
    match = new_match(server, token, seat="random")
    assert httpx.get(f"{server.http}/api/practice/current", headers=auth).json() == {"match": match}
    other = {"Authorization": f"Bearer {new_guest(server)}"}
    assert httpx.get(f"{server.http}/api/matches/{match}", headers=other).status_code == 404
    assert httpx.get(f"{server.http}/api/health").json() == {"ok": True}


@pytest.mark.slow
def test_http_api_refusals_share_one_shape_and_the_schema_is_published(server):
    auth = {"Authorization": f"Bearer {new_guest(server)}"}
    r = httpx.post(f"{server.http}/api/practice", content=b"{" + b" " * 5000 + b"}", headers=auth)
    assert (r.status_code, r.json()["error"]) == (413, "too_large")
    r = httpx.post(f"{server.http}/api/practice", json={"seat": 1}, headers={"Authorization": "Bearer nobody"})
    assert (r.status_code, r.json()["error"]) == (401, "unauthorized")
    r = httpx.get(f"{server.http}/api/nothing-here")
    assert (r.status_code, r.json()["error"]) == (404, "not_found")
    r = httpx.delete(f"{server.http}/api/guest")
    assert (r.status_code, r.json()["error"]) == (405, "method_not_allowed")
    # No body: the default options.
    r = httpx.post(f"{server.http}/api/practice", headers=auth)
    assert r.status_code == 201, r.text
    info = httpx.get(f"{server.http}/api/matches/{r.json()['match']}", headers=auth).json()
    assert (info["bot_level"], info["rules"]["length"]) == ("normal", "east-south")
    schema = httpx.get(f"{server.http}/api/openapi.json").json()
    assert {"/api/guest", "/api/practice", "/api/practice/current", "/api/matches/{match_id}"} <= set(schema["paths"])
    options = schema["components"]["schemas"]["PracticeOptions"]["properties"]
    assert set(options["level"]["enum"]) == {"beginner", "normal", "expert", "master"}


@pytest.mark.slow
def test_ended_rooms_leave_memory_and_are_rebuilt_on_a_later_hello(settings):
    live = LiveServer(settings.with_changes(keep_ended_s=0.0), seed_source=lambda: SEEDS[0])
    try:
        rooms = live.server.config.app.state.rooms
        token = new_guest(live)
        first = new_match(live, token)
        client = Client(live, token, first)
        play_to_end(client, client.next_prompt_or_end())
        seen = client.events()
        client.close()
        assert rooms.live_count == 1
        second = new_match(live, token)  # the registry drops the ended room on its next call
        assert rooms.live_count == 1
        assert httpx.get(f"{live.http}/api/practice/current", headers={"Authorization": f"Bearer {token}"}).json() == {
            "match": second
        }
        # The ended match is still there for a hello: rebuilt from the store, the same events.
        again = Client(live, token, first)
        again.until("welcome")
        while again.events()[-1:] == [] or again.events()[-1]["e"]["type"] != "MatchEnded":
            again.recv()
        assert again.events() == seen
        again.close()
    finally:
        live.stop()


@pytest.mark.slow
def test_practice_turn_timer_is_chosen_and_runs_only_while_the_player_is_there(settings):
    live = LiveServer(settings.with_changes(turn_s=0.3, bank_s=0.0), seed_source=lambda: SEEDS[0])
    try:
        token = new_guest(live)
        plain = Client(live, token, new_match(live, token))
        assert "timer" not in plain.until("prompt")  # no timer unless chosen
        plain.close()
        match = new_match(live, token, timer=True)
        client = Client(live, token, match)
        prompt = client.until("prompt")
        assert 0 < prompt["timer"]["turn_s"] <= 0.3 and prompt["timer"]["bank_s"] == 0
        expired = client.until("expired")  # nobody answered: the default was played for us
        assert (expired["seq"], expired["a"]) == (prompt["seq"], prompt["default"])
        following = client.until("prompt")
        last_v = client.events()[-1]["v"]
        client.close()
        time.sleep(1.5)  # five turns' time away: practice waits
        again = Client(live, token, match, last_v=last_v)
        assert again.until("welcome")["v"] == last_v
        resumed = again.until("prompt")
        assert resumed["seq"] == following["seq"]
        assert resumed["timer"]["turn_s"] > 0.15  # the clock started again on return
        again.close()
    finally:
        live.stop()
