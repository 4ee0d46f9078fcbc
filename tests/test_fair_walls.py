"""Provably fair walls (sanma-fair-v2): the revealed seed rebuilds every played wall of
1,000+ seeded hands, every commitment opens, and a changed wall or seed is caught; over a
real WebSocket nothing that opens a commitment (or shows another seat's hand) goes out
before ``MatchEnded``, the salt is random, stored hidden, and the same after a restart."""

from __future__ import annotations

import dataclasses
import functools
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from sanma.bots.registry import make_bot
from sanma.engine import fairness as fair
from sanma.engine.errors import InvalidHand
from sanma.engine.events import Event, HandStarted, MatchStarted
from sanma.engine.match import Match
from sanma.engine.replay import replay
from sanma.engine.rules import Rules
from sanma.engine.tiles import tile_name
from sanma.engine.visibility import HIDDEN_SEED, redact
from sanma.engine.wall import WALL_ALGORITHM, Deal, deal_from_seed
from sanma.server.codec import event_from_store, event_to_store, event_to_wire
from sanma.server.rooms.fairwalls import new_salt


def _play_default(seed: int) -> list[Event]:
    match = Match(seed)
    while not match.finished:
        seat = match.awaiting()[0]
        default = match.legal_actions(seat).default
        assert default is not None
        match.apply(seat, default)
    return list(match.events)


def _play_bots(seed: int) -> list[Event]:
    """Beginner bots call, declare kita and win: the seen-tile check meets every event kind."""
    match = Match(seed)
    bots = [make_bot("beginner", s, seed) for s in range(3)]
    for event in match.events:
        for s, bot in enumerate(bots):
            bot.observe(redact(event, s))
    while not match.finished:
        seat = match.awaiting()[0]
        for event in match.apply(seat, bots[seat].decide(match.legal_actions(seat))):
            for s, bot in enumerate(bots):
                bot.observe(redact(event, s))
    return list(match.events)


@functools.cache
def _matches() -> list[tuple[int, list[Event]]]:
    played = [(seed, _play_bots(seed)) for seed in range(9000, 9012)]
    seed = 1
    while sum(len(fair.hand_events(ev)) for _, ev in played) < 1000:
        played.append((seed * 7919, _play_default(seed * 7919)))
        seed += 1
    return played


def _commitments(seed: int, events: list[Event]) -> list[tuple[Deal, str, str, str, list[Event]]]:
    """Per hand: the deal, its salt, its commitment and wall_digest as the server sends them."""
    salt = fair.derived_salt(seed)
    out = []
    for k, hand in enumerate(fair.hand_events(events)):
        start = hand[0]
        assert isinstance(start, HandStarted)
        hs = fair.hand_salt(salt, k)
        out.append((deal_from_seed(seed, k), hs, fair.hand_commitment(hs, start.wall_digest), start.wall_digest, hand))
    return out


@pytest.mark.slow
def test_a_thousand_hands_rebuild_and_every_commitment_opens() -> None:
    total = 0
    kinds: set[str] = set()
    for seed, events in _matches():
        salt = fair.derived_salt(seed)
        hands = _commitments(seed, events)
        for k, (deal, hs, commitment, digest, hand) in enumerate(hands):
            kinds |= {type(e).__name__ for e in hand}
            full = fair.check_hand(k, deal, hs, commitment, digest, hand)
            assert full.ok, full
            for viewer in (0, 1, 2, None):  # as each seat and a spectator saw the hand
                seen = fair.check_hand(k, deal, hs, commitment, digest, [redact(e, viewer) for e in hand])
                assert seen.ok, seen
        checks = fair.check_match(seed, salt, fair.match_commitment(salt, seed), [h[0] for h in hands])
        assert all(c.ok for c in checks) and len(checks) == len(hands)
        total += len(hands)
    assert total >= 1000
    assert {"MeldCalled", "KitaDeclared", "HandWon", "HandDrawn", "DoraRevealed"} <= kinds


def _swap(deal: Deal, a: int, b: int) -> Deal:
    live = list(deal.live)
    live[a], live[b] = live[b], live[a]
    return dataclasses.replace(deal, live=tuple(live))


@pytest.mark.slow
def test_a_wall_with_two_tiles_swapped_is_caught() -> None:
    caught = 0
    for seed, events in _matches()[:40]:
        for k, (deal, hs, commitment, digest, hand) in enumerate(_commitments(seed, events)):
            bad = _swap(deal, 0, 1)
            if bad == deal:
                continue
            assert not fair.check_hand(k, bad, hs, commitment, digest).ok  # the digest no longer matches
            seen = fair.check_seen(bad, [redact(e, hand[1].seat) for e in hand])  # type: ignore[attr-defined]
            assert seen, "the first two draws differ from what was drawn"
            salt = fair.derived_salt(seed)
            assert not fair.check_match(seed, salt, fair.match_commitment(salt, seed), [bad])[0].ok or k > 0
            caught += 1
    assert caught > 200


def test_a_changed_seed_or_salt_does_not_open_the_commitment() -> None:
    seed, events = _matches()[0]
    salt = fair.derived_salt(seed)
    commitment = fair.match_commitment(salt, seed)
    deals = [deal_from_seed(seed, k) for k in range(len(fair.hand_events(events)))]
    assert all(c.ok for c in fair.check_match(seed, salt, commitment, deals))
    for wrong_seed, wrong_salt in ((seed + 1, salt), (seed, fair.derived_salt(seed + 1))):
        checks = fair.check_match(wrong_seed, wrong_salt, commitment, deals)
        assert not any(c.ok for c in checks)
    # Another seed with a commitment made for it opens, but rebuilds other walls.
    other = fair.derived_salt(seed + 1)
    assert not any(c.ok for c in fair.check_match(seed + 1, other, fair.match_commitment(other, seed + 1), deals))


def test_hand_salts_are_distinct_and_hide_the_match_salt() -> None:
    salt = new_salt()
    salts = {fair.hand_salt(salt, k) for k in range(50)}
    assert len(salts) == 50 and salt not in salts
    assert len(salt) == 32 and int(salt, 16) >= 0 and new_salt() != salt
    # A log from before sanma-fair-v2 has no salt: the one derived from its seed, as v1 sent.
    assert fair.derived_salt(12345) == fair.derived_salt(12345) != fair.derived_salt(12346)
    assert fair.salt_of(MatchStarted(12345, Rules(), WALL_ALGORITHM)) == fair.derived_salt(12345)
    assert fair.salt_of(MatchStarted(12345, Rules(), WALL_ALGORITHM, salt)) == salt


def test_the_salt_is_kept_with_the_seed_and_hidden_like_it() -> None:
    """``MatchStarted.salt``: stored and replayed with the match, hidden from every viewer
    (``null`` on the wire) exactly like the seed; a stored start without one reads as none."""
    salt = new_salt()
    match = Match(4242, Rules(length="one-hand"), salt=salt)
    start = match.events[0]
    assert isinstance(start, MatchStarted) and start.salt == salt
    stored = [event_to_store(e) for e in match.events]
    assert stored[0]["salt"] == salt and event_from_store(stored[0]) == start
    assert replay([event_from_store(e) for e in stored]).events[0] == start
    for viewer in (0, 1, 2, None):
        seen = redact(start, viewer)
        assert isinstance(seen, MatchStarted) and (seen.seed, seen.salt) == (HIDDEN_SEED, "")
        wire = event_to_wire(seen, True)
        assert wire["seed"] is None and wire["salt"] is None and salt not in json.dumps(wire)
    assert event_to_wire(start, True)["salt"] == salt  # an ended match's open replay shows it
    before_v2 = {k: v for k, v in stored[0].items() if k != "salt"}
    assert event_from_store(before_v2) == dataclasses.replace(start, salt="")


def test_a_revealed_deal_round_trips_and_bad_ones_are_typed_errors() -> None:
    deal = deal_from_seed(77, 3)
    assert fair.deal_from_json(json.loads(json.dumps(fair.deal_to_json(deal)))) == deal
    for bad in ([], {"hands": [[1] * 13] * 2}, {**fair.deal_to_json(deal), "live": [1, 200]}, {"hands": "x"}):
        with pytest.raises(InvalidHand):
            fair.deal_from_json(bad)


def _log(tmp_path: Path, events: list[Event]) -> Path:
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(event_to_store(e)) + "\n" for e in events))
    return path


def _cli(*args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from sanma.cli import main; sys.exit(main())", "verify-wall", *args],
        capture_output=True,
        text=True,
    )
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else {"stderr": done.stderr}


def test_verify_wall_checks_a_stored_log_and_catches_a_changed_one(tmp_path: Path) -> None:
    seed, events = _matches()[0]
    rc, out = _cli(str(_log(tmp_path, events)))
    assert rc == 0 and out["ok"] is True and out["seed"] == seed
    assert [h["result"] for h in out["hands"]] == ["ok"] * len(fair.hand_events(events))
    # One tile of hand 2's first draw changed in the log: that hand is a mismatch, the others ok.
    starts = [i for i, e in enumerate(events) if isinstance(e, HandStarted)]
    i = starts[1] + 1
    changed = list(events)
    changed[i] = dataclasses.replace(events[i], tile=(events[i].tile + 4) % 108)  # type: ignore[call-arg,attr-defined]
    rc, out = _cli(str(_log(tmp_path, changed)))
    assert rc == 1 and out["ok"] is False
    assert [h["result"] for h in out["hands"]][:3] == ["ok", "mismatch", "ok"]
    # A log whose seed was changed rebuilds other walls.
    first = events[0]
    assert isinstance(first, MatchStarted)
    rc, out = _cli(str(_log(tmp_path, [dataclasses.replace(first, seed=seed + 1), *events[1:]])))
    assert rc == 1 and all(h["result"] == "mismatch" for h in out["hands"])


def test_verify_wall_checks_a_log_with_its_random_salt(tmp_path: Path) -> None:
    """An ended match's log.jsonl now carries its salt: the commitment sent at the start opens."""
    salt = new_salt()
    match = Match(31337, Rules(length="one-hand"), salt=salt)
    while not match.finished:
        seat = match.awaiting()[0]
        match.apply(seat, match.legal_actions(seat).default)  # type: ignore[arg-type]
    commitment = fair.match_commitment(salt, 31337)
    rc, out = _cli(str(_log(tmp_path, match.events)), "--match-commitment", commitment)
    assert rc == 0 and out["ok"] is True and out["salt"] == salt and out["match_commitment_opens"] is True
    assert out["algorithm"] == "sanma-fair-v2"
    # The salt derived from the seed (a pre-v2 log) does not open a commitment made with a random one.
    rc, out = _cli(str(_log(tmp_path, [dataclasses.replace(match.events[0], salt=""), *match.events[1:]])),
                   "--match-commitment", commitment)  # fmt: skip
    assert rc == 1 and out["match_commitment_opens"] is False


def test_verify_wall_checks_values(tmp_path: Path) -> None:
    """The values of a fair_seed frame: seed, salt, and each hand's salt, digest, commitment."""
    seed, salt = 4242, new_salt()
    commitment = fair.match_commitment(salt, seed)
    digests = [deal_from_seed(seed, k).digest() for k in range(3)]
    salts = [fair.hand_salt(salt, k) for k in range(3)]
    hands = [fair.hand_commitment(hs, d) for hs, d in zip(salts, digests, strict=True)]
    given = ["--seed", str(seed), "--salt", salt, "--match-commitment", commitment, "--hands", "3"]
    walls = ["--wall-digests", ",".join(digests), "--hand-commitments", ",".join(hands)]
    rc, out = _cli(*given, *walls, "--hand-salts", ",".join(salts))
    assert rc == 0 and out["ok"] is True and len(out["hands"]) == 3
    rc, out = _cli(*given, *walls, "--hand-salts", ",".join([salts[0], salts[0], salts[2]]))
    assert rc == 1 and [h["result"] for h in out["hands"]] == ["ok", "mismatch", "ok"]
    rc, out = _cli("--seed", str(seed + 1), "--salt", salt, "--match-commitment", commitment, "--hands", "3")
    assert rc == 1 and out["ok"] is False
    rc, out = _cli("--seed", str(seed), "--match-commitment", commitment, "--hands", "3")  # no --salt: derived
    assert rc == 1 and out["match_commitment_opens"] is False
    rc, out = _cli(str(tmp_path / "missing.jsonl"))
    assert rc == 2 and "error" in out


# -- over a real WebSocket ----------------------------------------------------------------


def _settings(tmp_path: Path):  # type: ignore[no-untyped-def]
    from sanma.server.settings import Settings
    from tests.fixtures.server import free_port

    return Settings(port=free_port(), data_dir=tmp_path / "data", bot_delay_s=0.0, rate_per_s=200.0, rate_burst=400)


@pytest.fixture
def live(tmp_path: Path):  # type: ignore[no-untyped-def]
    from tests.fixtures.server import SEEDS, serving

    yield from serving(tmp_path / "data", SEEDS[1])


Frame = dict[str, Any]


def _kind(frame: Frame) -> str:
    return str(frame["e"]["type"] if frame["t"] == "event" else frame["t"])


def _lists(value: Any) -> Iterator[list[Any]]:
    """Every JSON list inside ``value``."""
    if isinstance(value, list):
        yield value
        for item in value:
            yield from _lists(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _lists(item)


def _keys(value: Any) -> Iterator[str]:
    """Every JSON object key inside ``value``."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item)


def _early_leaks(frames: list[Frame], seat: int | None) -> list[str]:
    """What the frames before ``MatchEnded`` (as seat ``seat`` got them; ``None``: a
    spectator) show that only the match's end may: the seed, the match salt, a hand's salt,
    a deal, or another seat's starting hand.  The secrets are read from the fair_seed frame."""
    end = next(i for i, f in enumerate(frames) if _kind(f) == "MatchEnded")
    reveal = next(f for f in frames[end:] if f["t"] == "fair_seed")
    seed = int(reveal["seed"])
    hidden = [f'"seed":{seed}', f'"seed":"{seed}"', f'"{seed}"', reveal["salt"], *reveal["hand_salts"]]
    others = [s for s in range(3) if s != seat]
    starting = []  # another seat's starting hand, as tile ids and as sorted names
    for k in range(reveal["hands"]):
        for o in others:
            dealt = deal_from_seed(seed, k).hands[o]
            starting += [sorted(dealt), sorted(tile_name(t) for t in dealt)]
    leaks = []
    for i, frame in enumerate(frames[:end]):
        text = json.dumps(frame, separators=(",", ":"))
        leaks += [f"frame {i}: a secret" for needle in hidden if needle in text]
        leaks += [f"frame {i}: a deal" for key in _keys(frame) if key in ("deal", "hand_salts")]
        e = frame.get("e", {})
        if _kind(frame) == "HandStarted":
            leaks += [f"frame {i}: seat {o}'s hand" for o in others if set(e["hands"][o]) != {"?"}]
        elif _kind(frame) == "TileDrawn" and e["seat"] != seat and e["tile"] != "?":
            leaks.append(f"frame {i}: seat {e['seat']}'s draw")
        elif frame["t"] != "event":  # no other frame lists another seat's starting hand
            for seq in _lists(frame):
                alike = all(isinstance(x, int) for x in seq) or all(isinstance(x, str) for x in seq)
                if alike and sorted(seq) in starting:
                    leaks.append(f"frame {i}: a starting hand")
    return leaks


def _fair_frames_in_place(frames: list[Frame]) -> list[Frame]:
    """The fair frames, each checked to follow its event; returned in order."""
    got, hand = [], -1
    for i, frame in enumerate(frames):
        hand += _kind(frame) == "HandStarted"
        before = _kind(frames[i - 1]) if i else None
        if frame["t"] == "fair_match":
            assert before == "MatchStarted"
        elif frame["t"] == "fair_hand":
            assert before == "HandStarted" and frame["hand"] == hand
        elif frame["t"] == "fair_seed":
            assert before == "MatchEnded"
        if frame["t"].startswith("fair_"):
            got.append(frame)
    return got


def _stored(settings: Any, match: str) -> list[dict[str, Any]]:
    from sanma.store import db
    from sanma.store.matches import load_events

    engine = db.open_engine(settings.db_url)
    try:
        return load_events(engine, match)
    finally:
        engine.dispose()


def _every_hand_verifies(got: list[Frame], stored: list[dict[str, Any]], seat: int | None) -> int:
    """After the match's end: the seed and salt open the match commitment, sanma-wall-v1
    rebuilds every hand, each hand commitment opens with its salt, and every tile the viewer
    saw is where the wall put it.  The number of hands."""
    kinds = [f["t"] for f in got]
    hands = kinds.count("fair_hand")
    assert hands >= 1 and kinds == ["fair_match"] + ["fair_hand"] * hands + ["fair_seed"], kinds
    start, end = got[0], got[-1]
    assert start["algorithm"] == end["algorithm"] == "sanma-fair-v2"
    seed, salt = int(end["seed"]), end["salt"]
    assert end["hands"] == len(end["hand_salts"]) == hands and end["commitment"] == start["commitment"]
    log = [event_from_store(e) for e in stored]
    assert isinstance(log[0], MatchStarted) and (log[0].seed, log[0].salt) == (seed, salt)  # stored with the match
    assert salt != fair.derived_salt(seed)  # random, not the seed's HMAC
    played = fair.hand_events(log)
    deals = [deal_from_seed(seed, k) for k in range(hands)]
    assert all(c.ok for c in fair.check_match(seed, salt, start["commitment"], deals))
    for commit, hs, deal, events in zip(got[1:-1], end["hand_salts"], deals, played, strict=True):
        k = commit["hand"]
        seen = [redact(e, seat) for e in events]
        check = fair.check_hand(k, deal, hs, commit["commitment"], commit["wall_digest"], seen)
        assert check.ok, check
    return hands


@pytest.mark.slow
def test_a_practice_match_shows_nothing_before_its_end_and_every_hand_verifies_after(live) -> None:  # type: ignore[no-untyped-def]
    from tests.fixtures.server import Client, new_guest, new_match, play_to_end

    token = new_guest(live)
    match = new_match(live, token, length="east")
    client = Client(live, token, match)
    # A running match's replay shows neither the seed nor the salt.
    running = httpx.get(f"{live.http}/api/matches/{match}/replay", headers={"Authorization": f"Bearer {token}"})
    assert running.status_code == 200 and running.json()["events"][0]["salt"] is None
    assert running.json()["events"][0]["seed"] is None
    play_to_end(client, client.until("prompt"))
    client.until("fair_seed")  # it follows MatchEnded
    frames = [f for f in client.frames if f["t"] != "prompt"]
    assert _early_leaks(frames, 0) == []
    got = _fair_frames_in_place(frames)
    hands = _every_hand_verifies(got, _stored(live.settings, match), 0)
    assert hands >= 2
    # An ended match's open replay shows the salt the fair_seed frame revealed.
    ended = httpx.get(f"{live.http}/api/matches/{match}/replay", headers={"Authorization": f"Bearer {token}"})
    assert ended.json()["events"][0]["salt"] == got[-1]["salt"]
    # A reconnect from the start sends the same fair frames again, in the same places.
    again = Client(live, token, match)
    again.until("welcome")
    while again.frames[-1]["t"] != "fair_seed":
        again.recv()
    assert _fair_frames_in_place(again.frames) == got
    client.close()
    again.close()


@pytest.mark.slow
def test_a_friend_room_shows_no_seat_and_no_watcher_anything_before_the_end(tmp_path: Path) -> None:
    from tests.fixtures.rooms import Api, Player
    from tests.fixtures.server import SEEDS, LiveServer

    live = LiveServer(_settings(tmp_path), seed_source=lambda: SEEDS[0])
    try:
        host, friend = Api(live), Api(live)
        code = host.ok("POST", "", {"length": "east"}, 201)["code"]
        friend.ok("POST", f"/{code}/join")
        host.ok("POST", f"/{code}/bots", {"seat": 2, "level": "beginner"})
        match = host.ok("POST", f"/{code}/start")["match"]
        watcher = Player(live, Api(live).token, match)
        assert watcher.until("welcome")["spectator"] is True
        players = [Player(live, api.token, match) for api in (host, friend)]
        threads = [threading.Thread(target=p.play, daemon=True) for p in players]
        for t in threads:
            t.start()
        watcher.until("fair_seed")
        for t in threads:
            t.join(timeout=120)
        stored = _stored(live.settings, match)
        for seat, viewer in ((0, players[0]), (1, players[1]), (None, watcher)):
            assert viewer.error is None
            if viewer is not watcher:
                viewer.until("fair_seed")
            frames = [f for f in viewer.frames if f["t"] not in ("prompt", "presence")]
            assert _early_leaks(frames, seat) == [], seat
            assert _every_hand_verifies(_fair_frames_in_place(frames), stored, seat) >= 2
        for p in (*players, watcher):
            p.close()
    finally:
        live.stop()


@pytest.mark.slow
def test_two_matches_of_one_seed_get_their_own_salts_and_a_restart_keeps_them(tmp_path: Path) -> None:
    """The same seed twice: the same walls, other salts, so other commitments.  A room rebuilt
    from the store after the server stopped sends the commitments it sent before, and the
    reveal at the end opens them."""
    from tests.fixtures.server import SEEDS, Client, LiveServer, answer, new_guest, new_match, play_to_end

    settings = _settings(tmp_path)
    live = LiveServer(settings, seed_source=lambda: SEEDS[1])
    try:
        token, other = new_guest(live), new_guest(live)
        first, second = new_match(live, token), new_match(live, other)
        before = {}
        for match, who in ((first, token), (second, other)):
            client = Client(live, who, match)
            prompt = client.until("prompt")
            if match == first:
                for _ in range(3):  # a few turns in: the room has stored more than its start
                    answer(client, prompt)
                    prompt = client.until("prompt")
            before[match] = [f for f in client.frames if f["t"].startswith("fair_")]
            client.close()
        a, b = before[first], before[second]
        assert [f["t"] for f in a] == [f["t"] for f in b] == ["fair_match", "fair_hand"]
        assert a[1]["wall_digest"] == b[1]["wall_digest"]  # one seed, one wall
        assert a[0]["commitment"] != b[0]["commitment"] and a[1]["commitment"] != b[1]["commitment"]
        salts = {_stored(settings, m)[0]["salt"] for m in (first, second)}
        assert len(salts) == 2 and fair.derived_salt(SEEDS[1]) not in salts
    finally:
        live.stop()
    live = LiveServer(settings)  # same SQLite file, a new process state: the room is rebuilt
    try:
        client = Client(live, token, first)
        play_to_end(client, client.until("prompt"))
        client.until("fair_seed")
        got = _fair_frames_in_place(client.frames)
        assert got[:2] == before[first]
        _every_hand_verifies(got, _stored(settings, first), 0)
        client.close()
    finally:
        live.stop()
