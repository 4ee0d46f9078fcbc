"""The prompt aids on a live server: every prompt of a seeded match, played by a
tenpai-seeking player, carries waits, furiten and the wait preview (``discard_waits``) equal
to the engine's own answers, with unseen counts from the seat's view alone; the pacing
frame (``speed``) is validated and honoured (instant: no bot delay)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from sanma.engine.actions import Action, Discard, Kita, Pon, Ron, Tsumo
from sanma.engine.events import Event, TileDrawn
from sanma.engine.kyoku import Kyoku, LegalActions
from sanma.engine.replay import replay
from sanma.engine.shanten import discard_ukeire
from sanma.engine.tiles import counts_of_tiles, kind_name, kind_of
from sanma.engine.view import SeatView
from sanma.engine.visibility import redact
from sanma.server.codec import action_to_wire, wire_tile
from sanma.server.protocol import ProtocolError, Speed, parse_client_frame
from sanma.server.settings import Settings
from tests.fixtures.server import Client, LiveServer, free_port, full_log, new_guest, new_match

# A seed whose one-hand match (human at seat 0, Beginner bots, ``eager_choice``) has
# riichi offers, wait previews, a no-yaku complete hand and discard furiten (found by a
# search over seeds, scripts-free: the first of 1.. that has all four).
AIDS_SEED = 4


def visible_counts(view: SeatView) -> list[int]:
    """Copies of each kind a seat's own view shows (a called tile counted once)."""
    seen = set(view.hand) | set(view.dora_indicators)
    for s in range(3):
        seen.update(r.tile for r in view.rivers[s])
        seen.update(view.kita[s])
        for meld in view.melds[s]:
            seen.update(meld.tiles)
    counts = [0] * 27
    for tile in seen:
        if tile >= 0:
            counts[kind_of(tile)] += 1
    return counts


def eager_choice(kyoku: Kyoku, seat: int, legal: LegalActions) -> Action:
    """A simple player that reaches tenpai often: wins when it may, calls every pon and
    kita, never declares riichi, and discards for the lowest shanten, then the most
    unseen tiles that improve it, then the highest kind."""
    actions = list(legal)
    for cls in (Tsumo, Ron, Pon, Kita):
        chosen = [a for a in actions if isinstance(a, cls)]
        if chosen:
            return chosen[0]
    discards = [a for a in actions if isinstance(a, Discard) and not a.riichi]
    if not discards:
        assert legal.default is not None
        return legal.default
    hand = kyoku.hand(seat)
    counts = counts_of_tiles(hand)
    seen = _engine_seen(kyoku, seat)
    options = discard_ukeire(counts, len(kyoku.melds(seat)), [seen[k] - counts[k] for k in range(27)])

    def rank(a: Discard) -> tuple[int, int, int, int]:
        shanten, improving = options[kind_of(a.tile)]
        return (shanten, -sum(improving.values()), -kind_of(a.tile), a.tile)

    return min(discards, key=rank)


def _engine_seen(kyoku: Kyoku, seat: int) -> list[int]:
    seen = set(kyoku.hand(seat)) | set(kyoku.dora_indicators())
    for s in range(3):
        seen.update(kyoku.river(s))
        seen.update(kyoku.kita_tiles(s))
        for meld in kyoku.melds(s):
            seen.update(meld.tiles)
    counts = [0] * 27
    for tile in seen:
        counts[kind_of(tile)] += 1
    return counts


def expected_aids(log: Sequence[Event], v: int, seat: int) -> dict[str, Any]:
    """The aids of a prompt at version ``v``, from the engine's answers: ``win_status`` now,
    and ``win_status`` after each legal discard (applied to a copy); unseen counts from the
    seat's own folded view of its redacted events."""
    match = replay(list(log[:v]))
    kyoku = match.kyoku
    view = SeatView.fold([redact(e, seat) for e in log[:v]], seat)
    visible = visible_counts(view)

    def unseen(kinds: Sequence[int]) -> list[list[Any]]:
        return [[kind_name(k), 4 - visible[k]] for k in kinds]

    status = kyoku.win_status(seat)
    preview: dict[str, Any] = {}
    for action in match.legal_actions(seat):
        if not isinstance(action, Discard) or action.riichi:
            continue
        after = kyoku.copy()
        after.apply(seat, action)
        left = after.win_status(seat)
        if left.waits:
            river = {kind_of(t) for t in after.river(seat)}
            furiten = any(k in river for k in left.waits)
            preview[wire_tile(action.tile, True)] = {"waits": unseen(left.waits), "furiten": furiten}
    return {
        "waits": unseen(status.waits),
        "yaku_waits": [kind_name(k) for k in kyoku.yaku_waits(seat)],
        "furiten": status.furiten,
        "why_not": status.reason if status.complete else None,
        "discard_waits": preview,
    }


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(port=free_port(), data_dir=tmp_path / "data", bot_delay_s=0.0, rate_per_s=200.0, rate_burst=400)


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


@pytest.mark.parametrize("speed", ["normal", "instant"])
def test_bot_pacing_follows_the_players_speed(tmp_path: Path, speed: str) -> None:
    delay = 0.8
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
        # Paced, these turns would take bot_turns * delay; instant skips every delay.
        assert elapsed < 0.25 * bot_turns * delay, (elapsed, bot_turns)
        client.close()
    finally:
        live.stop()
