"""The prompt aids on a live server: every prompt of a seeded match, played by a
tenpai-seeking player, carries waits, furiten and the wait preview (``discard_waits``) equal
to the engine's own answers, with unseen counts from the seat's view alone; the pacing
frame (``speed``) is validated and honoured (instant: no bot delay)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from sanma.engine.events import TileDrawn
from sanma.engine.replay import replay
from sanma.server.codec import action_to_wire
from sanma.server.protocol import ProtocolError, Speed, parse_client_frame
from sanma.server.settings import Settings
from tests.fixtures.aids import AIDS_SEED, eager_choice, expected_aids
from tests.fixtures.server import Client, LiveServer, free_port, full_log, new_guest, new_match


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(port=free_port(), data_dir=tmp_path / "data", bot_delay_s=0.0, rate_per_s=200.0, rate_burst=400)


@pytest.mark.slow
def test_every_prompt_carries_the_engines_aids_and_wait_preview(settings: Settings) -> None:
    live = LiveServer(settings, seed_source=lambda: AIDS_SEED)
    try:
        token = new_guest(live)
        match = new_match(live, token)
        client = Client(live, token, match)
        seen_kinds: set[str] = set()
        while (prompt := client.next_prompt_or_end()) is not None:
            log = full_log(settings, match)
            assert prompt["aids"] == expected_aids(log, prompt["v"], 0)
            aids = prompt["aids"]
            if aids["discard_waits"]:
                seen_kinds.add("preview")
                listed = {a["tile"] for a in prompt["legal"] if a["type"] == "discard"}
                assert set(aids["discard_waits"]) <= listed
            if aids["why_not"]:
                seen_kinds.add(f"why_not {aids['why_not']}")
            if aids["furiten"] != "none":
                seen_kinds.add(f"furiten {aids['furiten']}")
            if any(a.get("riichi") for a in prompt["legal"]):
                seen_kinds.add("riichi")
            state = replay(log[: prompt["v"]])
            action = eager_choice(state.kyoku, 0, state.legal_actions(0))
            client.send({"t": "act", "seq": prompt["seq"], "a": action_to_wire(action, True)})
        client.close()
        # The seed was chosen for these moments; the test would be weaker without them.
        assert {"preview", "riichi", "why_not no_yaku", "furiten discard"} <= seen_kinds, seen_kinds
    finally:
        live.stop()


def test_speed_frame_is_validated() -> None:
    assert parse_client_frame('{"t":"speed","speed":"instant"}', 4096) == Speed("instant")
    bad_frames = (
        '{"t":"speed","speed":"warp"}',
        '{"t":"speed"}',
        '{"t":"speed","speed":[]}',
        '{"t":"speed","speed":1}',
    )
    for bad in (*bad_frames, '{"t":"speed","speed":"fast","x":1}'):
        with pytest.raises(ProtocolError) as err:
            parse_client_frame(bad, 4096)
        assert err.value.code == "bad_schema"


def _seconds_to_next_prompt(client: Client, prompt: dict[str, Any]) -> tuple[float, dict[str, Any] | None]:
    start = time.monotonic()
    client.send({"t": "act", "seq": prompt["seq"], "a": prompt["default"]})
    nxt = client.next_prompt_or_end()
    return time.monotonic() - start, nxt


@pytest.mark.slow
@pytest.mark.parametrize("speed", ["normal", "instant"])
def test_bot_pacing_follows_the_players_speed(tmp_path: Path, speed: str) -> None:
    delay = 2.0
    settings = Settings(port=free_port(), data_dir=tmp_path / "data", bot_delay_s=delay)
    live = LiveServer(settings, seed_source=lambda: AIDS_SEED)
    try:
        token = new_guest(live)
        match = new_match(live, token)
        client = Client(live, token, match)
        prompt = client.next_prompt_or_end()  # seat 0 deals: no bot has moved yet
        client.send({"t": "speed", "speed": "warp"})
        assert client.until("error")["code"] == "bad_schema"
        client.send({"t": "speed", "speed": speed})
        assert prompt is not None
        if speed == "normal":
            # After the dealer's discard at least one bot takes a turn, paced.
            seconds, _ = _seconds_to_next_prompt(client, prompt)
            assert seconds >= delay
            return
        start = time.monotonic()
        while prompt is not None:
            _, prompt = _seconds_to_next_prompt(client, prompt)
        elapsed = time.monotonic() - start
        bot_turns = sum(1 for f in client.events() if f["e"]["type"] == TileDrawn.__name__ and f["e"]["seat"] != 0)
        assert bot_turns >= 10
        # Paced, these turns would take bot_turns * delay; instant skips every delay (half of it
        # leaves room for a busy machine: paced, ten turns alone are 20 s).
        assert elapsed < 0.5 * bot_turns * delay, (elapsed, bot_turns)
        client.close()
    finally:
        live.stop()
