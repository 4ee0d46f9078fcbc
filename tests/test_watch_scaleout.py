"""Watching through the room bus (tests/test_scaleout.py's two ``sanma serve`` processes, a
scratch PostgreSQL and ``redis-server``; skipped locally without them, a failure in CI): a
spectator connected to the process that does not own the room gets the same live view as one
on the owner, each event while the table still waits for the next answer."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from sanma.engine.visibility import redact
from sanma.server.codec import event_to_wire
from tests.fixtures.scaleout import Node, Player, stored_log


def call(node: Node, token: str, path: str, body: Any = None) -> dict[str, Any]:
    r = httpx.post(f"{node.http}/api/rooms{path}", json=body, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code in (200, 201), r.text
    return dict(r.json())


@pytest.mark.slow
def test_a_spectator_on_the_other_process_sees_each_event_as_it_happens(nodes: tuple[Node, Node], database_url: str):
    a, b = nodes
    host = httpx.post(f"{a.http}/api/guest").json()["token"]
    code = call(a, host, "", {"length": "one-hand"})["code"]
    for seat in (1, 2):
        call(a, host, f"/{code}/bots", {"seat": seat, "level": "beginner"})
    match = call(a, host, f"/{code}/start")["match"]
    player = Player(a, host, match)  # the room is A's
    watcher = Player(b, httpx.post(f"{b.http}/api/guest").json()["token"], match)  # relayed by B
    seen: list[dict[str, Any]] = []
    prompt = player.next_prompt_or_end(timeout=60)
    prompts = 0
    while prompt is not None:
        # The table waits for the host: the spectator on B already has every event up to now.
        while not seen or seen[-1]["v"] < prompt["v"]:
            frame = json.loads(watcher.ws.recv(timeout=10))
            if frame["t"] == "event":
                seen.append(frame)
        assert seen[-1]["v"] == prompt["v"]
        prompts += 1
        player.answer(prompt)
        prompt = player.next_prompt_or_end(timeout=60)
    while seen[-1]["e"]["type"] != "MatchEnded":
        frame = json.loads(watcher.ws.recv(timeout=10))
        if frame["t"] == "event":
            seen.append(frame)
    assert prompts > 5
    log = stored_log(database_url, match)
    assert [f["v"] for f in seen] == list(range(1, len(log) + 1))
    assert [f["e"] for f in seen] == [event_to_wire(redact(e, None), True) for e in log]
    player.close()
    watcher.close()
