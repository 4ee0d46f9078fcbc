"""Provably fair walls (sanma-fair-v1): the revealed seed rebuilds every played wall of
1,000+ seeded hands, every commitment opens, and a changed wall or seed is caught."""

from __future__ import annotations

import dataclasses
import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sanma.bots.registry import make_bot
from sanma.engine import fairness as fair
from sanma.engine.errors import InvalidHand
from sanma.engine.events import Event, HandStarted, MatchStarted
from sanma.engine.match import Match
from sanma.engine.visibility import redact
from sanma.engine.wall import Deal, deal_from_seed
from sanma.server.codec import event_to_store


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
    salt = fair.match_salt(seed)
    out = []
    for k, hand in enumerate(fair.hand_events(events)):
        start = hand[0]
        assert isinstance(start, HandStarted)
        hs = fair.hand_salt(salt, k)
        out.append((deal_from_seed(seed, k), hs, fair.hand_commitment(hs, start.wall_digest), start.wall_digest, hand))
    return out


def test_a_thousand_hands_rebuild_and_every_commitment_opens() -> None:
    total = 0
    kinds: set[str] = set()
    for seed, events in _matches():
        salt = fair.match_salt(seed)
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
            salt = fair.match_salt(seed)
            assert not fair.check_match(seed, salt, fair.match_commitment(salt, seed), [bad])[0].ok or k > 0
            caught += 1
    assert caught > 200


def test_a_changed_seed_or_salt_does_not_open_the_commitment() -> None:
    seed, events = _matches()[0]
    salt = fair.match_salt(seed)
    commitment = fair.match_commitment(salt, seed)
    deals = [deal_from_seed(seed, k) for k in range(len(fair.hand_events(events)))]
    assert all(c.ok for c in fair.check_match(seed, salt, commitment, deals))
    for wrong_seed, wrong_salt in ((seed + 1, salt), (seed, fair.match_salt(seed + 1))):
        checks = fair.check_match(wrong_seed, wrong_salt, commitment, deals)
        assert not any(c.ok for c in checks)
    # Another seed with a commitment made for it opens, but rebuilds other walls.
    other = fair.match_salt(seed + 1)
    assert not any(c.ok for c in fair.check_match(seed + 1, other, fair.match_commitment(other, seed + 1), deals))


def test_hand_salts_are_distinct_and_hide_the_match_salt() -> None:
    salt = fair.match_salt(12345)
    salts = {fair.hand_salt(salt, k) for k in range(50)}
    assert len(salts) == 50 and salt not in salts
    assert len(salt) == 32 and fair.match_salt(12345) == salt != fair.match_salt(12346)


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


def test_verify_wall_checks_values(tmp_path: Path) -> None:
    seed = 4242
    salt = fair.match_salt(seed)
    commitment = fair.match_commitment(salt, seed)
    rc, out = _cli("--seed", str(seed), "--salt", salt, "--match-commitment", commitment, "--hands", "3")
    assert rc == 0 and out["ok"] is True and len(out["hands"]) == 3
    rc, out = _cli("--seed", str(seed + 1), "--salt", salt, "--match-commitment", commitment, "--hands", "3")
    assert rc == 1 and out["ok"] is False
    rc, out = _cli(str(tmp_path / "missing.jsonl"))
    assert rc == 2 and "error" in out


# -- over a real WebSocket ----------------------------------------------------------------


@pytest.fixture
def live(tmp_path: Path):  # type: ignore[no-untyped-def]
    from sanma.server.settings import Settings
    from tests.test_server import SEEDS, LiveServer, free_port

    settings = Settings(port=free_port(), data_dir=tmp_path / "data", bot_delay_s=0.0, rate_per_s=200.0, rate_burst=400)
    server = LiveServer(settings, seed_source=lambda: SEEDS[1])
    yield server
    server.stop()


_HAND_END = ("HandWon", "HandDrawn", "HandAborted")


def _check_order_and_no_early_leak(frames: list[dict], seed: int) -> list[dict]:  # type: ignore[type-arg]
    """Fair frames in order, each right after its event; nothing of a hand (its salt, its
    live wall) before its end, nothing of the seed or match salt before the match's end.
    Returns the fair frames."""
    salt = fair.match_salt(seed)
    secret = {"seed": [salt, f'"seed":{seed}', f'"seed":"{seed}"']}  # what may not show yet
    hand, ended, fair_frames = -1, False, []
    for i, frame in enumerate(frames):
        kind = frame["e"]["type"] if frame["t"] == "event" else frame["t"]
        if kind == "HandStarted":
            hand, ended = hand + 1, False
            live = json.dumps(list(deal_from_seed(seed, hand).live), separators=(",", ":"))
            secret[f"hand {hand}"] = [fair.hand_salt(salt, hand), live.strip("[]")]
        ended = ended or kind in _HAND_END
        prev = frames[i - 1] if i else {"t": None}
        before = prev["e"]["type"] if prev["t"] == "event" else prev["t"]
        if kind == "fair_match":
            assert before == "MatchStarted"
        elif kind == "fair_hand":
            assert before == "HandStarted" and frame["hand"] == hand
        elif kind == "fair_reveal":
            assert before in _HAND_END and ended and frame["hand"] == hand
            del secret[f"hand {hand}"]
        elif kind == "fair_seed":
            assert before == "MatchEnded"
            del secret["seed"]
        if kind.startswith("fair_"):
            fair_frames.append(frame)
        text = json.dumps(frame, separators=(",", ":"))
        for what, needles in secret.items():
            assert not any(n in text for n in needles), (what, frame)
    assert not secret  # every hand and the match were revealed in the end
    return fair_frames


def test_fair_frames_arrive_in_order_and_nothing_leaks_early(live) -> None:  # type: ignore[no-untyped-def]
    from tests.test_server import SEEDS, Client, new_guest, new_match, play_to_end

    seed = SEEDS[1]
    token = new_guest(live)
    match = new_match(live, token, length="east")
    client = Client(live, token, match)
    play_to_end(client, client.until("prompt"))
    client.until("fair_seed")  # it follows MatchEnded
    frames = [f for f in client.frames if f["t"] in ("event",) or f["t"].startswith("fair_")]
    got = _check_order_and_no_early_leak(frames, seed)
    kinds = [f["t"] for f in got]
    hands = sum(f["t"] == "event" and f["e"]["type"] == "HandStarted" for f in frames)
    assert hands >= 2 and kinds == ["fair_match"] + ["fair_hand", "fair_reveal"] * hands + ["fair_seed"]
    # What the client can check: each reveal against its commitment and the tiles it saw, the
    # seed against the match commitment, and sanma-wall-v1 rebuilds every revealed deal.
    from sanma.server.codec import event_from_store
    from sanma.store import db
    from sanma.store.matches import load_events

    engine = db.open_engine(live.settings.db_url)
    try:
        log = [event_from_store(e) for e in load_events(engine, match)]
    finally:
        engine.dispose()
    commits = {f["hand"]: f for f in got if f["t"] == "fair_hand"}
    deals = []
    for reveal, played in zip((f for f in got if f["t"] == "fair_reveal"), fair.hand_events(log), strict=True):
        deal = fair.deal_from_json(reveal["deal"])
        commit = commits[reveal["hand"]]
        check = fair.check_hand(
            reveal["hand"],
            deal,
            reveal["salt"],
            commit["commitment"],
            commit["wall_digest"],
            [redact(e, 0) for e in played],
        )
        assert check.ok, check
        deals.append(deal)
    end = got[-1]
    assert int(end["seed"]) == seed and end["hands"] == hands
    assert end["commitment"] == got[0]["commitment"]
    assert all(c.ok for c in fair.check_match(int(end["seed"]), end["salt"], got[0]["commitment"], deals))
    # A reconnect from the start sends the same fair frames again, in the same places.
    again = Client(live, token, match)
    again.until("welcome")
    while again.frames[-1]["t"] != "fair_seed":
        again.recv()
    replayed = [f for f in again.frames if f["t"] == "event" or f["t"].startswith("fair_")]
    assert [f for f in replayed if f["t"].startswith("fair_")] == got
    client.close()
    again.close()
