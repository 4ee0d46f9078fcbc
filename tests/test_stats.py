"""A player's statistics (issue 27): every figure checked against a count made here, walking the
stored event logs as engine events (not with the store's summary code): seeded bot matches
stored as the server stores them (SQLite and, where one can be started, PostgreSQL), migration
0013 filling the rows of matches that ended before it, and seeded matches played through the
real server, read back from GET /api/account/stats.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, text

from sanma.arena.duplicate import play_seated
from sanma.bots.registry import make_bot
from sanma.engine.events import (
    Event,
    HandAborted,
    HandDrawn,
    HandStarted,
    HandWon,
    KitaDeclared,
    MatchEnded,
    MeldCalled,
    TileDiscarded,
)
from sanma.engine.hand import MeldType
from sanma.engine.match import Match
from sanma.engine.rules import DEFAULT
from sanma.server.api.history import _group
from sanma.server.codec import event_from_store, event_to_store, rules_to_json
from sanma.server.settings import Settings
from sanma.store import db
from sanma.store.guests import create_guest
from sanma.store.matches import SeatPlayer, append_events, create_match, load_events
from sanma.store.stats import player_stats
from tests.fixtures.server import Client, LiveServer, chooser, new_guest, new_match
from tests.services import free_port

FIGURES = {
    "avg_placement": ("placement_sum", "matches"),
    "avg_final_score": ("final_score_sum", "matches"),
    "win_rate": ("wins", "hands"),
    "deal_in_rate": ("deal_ins", "hands"),
    "tsumo_share": ("tsumo_wins", "wins"),
    "riichi_rate": ("riichi_hands", "hands"),
    "call_rate": ("called_hands", "hands"),
    "kita_per_hand": ("kita", "hands"),
    "avg_win": ("win_points", "wins"),
    "avg_deal_in": ("deal_in_points", "deal_ins"),
    "draw_tenpai_rate": ("draws_tenpai", "draws"),
}


# -- the independent count ------------------------------------------------------------------


def hands_of(events: Sequence[Event]) -> list[list[Event]]:
    """The log cut at each HandStarted (the events before the first are left out)."""
    hands: list[list[Event]] = []
    for e in events:
        if isinstance(e, HandStarted):
            hands.append([])
        elif hands:
            hands[-1].append(e)
    return hands


def count(events: Sequence[Event], seat: int) -> Counter[str]:
    """One seat's sums over one match's log, by the definitions of docs/stats.md."""
    c: Counter[str] = Counter()
    final = next(e for e in events if isinstance(e, MatchEnded))
    c["matches"] = 1
    c[f"place{final.placements[seat]}"] = 1
    c["placement_sum"] = final.placements[seat]
    c["final_score_sum"] = final.final_scores[seat]  # type: ignore[assignment]
    for hand in hands_of(events):
        if not any(isinstance(e, HandWon | HandDrawn | HandAborted) for e in hand):
            continue  # abandoned by the operator: not a hand played
        wins = [e for e in hand if isinstance(e, HandWon)]
        c["hands"] += 1
        c["wins"] += any(w.seat == seat for w in wins)
        c["tsumo_wins"] += any(w.seat == seat == w.from_seat for w in wins)
        c["deal_ins"] += any(w.from_seat == seat != w.seat for w in wins)
        c["win_points"] += sum(w.deltas[seat] for w in wins if w.seat == seat)
        c["deal_in_points"] -= sum(w.deltas[seat] for w in wins if w.from_seat == seat != w.seat)
        c["riichi_hands"] += any(isinstance(e, TileDiscarded) and e.seat == seat and e.riichi for e in hand)
        opened = (MeldType.PON, MeldType.DAIMINKAN)
        c["called_hands"] += any(isinstance(e, MeldCalled) and e.seat == seat and e.meld.type in opened for e in hand)
        c["kita"] += sum(isinstance(e, KitaDeclared) and e.seat == seat for e in hand)
        for drawn in (e for e in hand if isinstance(e, HandDrawn)):
            c["draws"] += 1
            c["draws_tenpai"] += seat in drawn.tenpai
    return c


def added(counts: Iterable[Counter[str]]) -> Counter[str]:
    """The sums of ``counts`` (``update``, not ``+``: a Counter's ``+`` drops what is not positive)."""
    out: Counter[str] = Counter()
    for c in counts:
        out.update(c)
    return out


def expected_figures(c: Counter[str]) -> dict[str, float | None]:
    return {name: (c[top] / c[bottom] if c[bottom] else None) for name, (top, bottom) in FIGURES.items()}


def assert_group(got: dict[str, Any], want: Counter[str]) -> None:
    """``got`` (the API's group) holds ``want``'s sums and the figures made from them."""
    assert got["matches"] == want["matches"]
    assert got["placements"] == [want["place1"], want["place2"], want["place3"]]
    assert got["final_score_sum"] == pytest.approx(want["final_score_sum"])
    for name in ("placement_sum", "hands", "wins", "tsumo_wins", "deal_ins", "riichi_hands", "called_hands", "kita"):
        assert got[name] == want[name], name
    for name in ("win_points", "deal_in_points", "draws", "draws_tenpai"):
        assert got[name] == want[name], name
    for name, value in expected_figures(want).items():
        assert got["figures"][name] == (None if value is None else pytest.approx(value)), name


def stored_log(engine: Engine, match_id: str) -> list[Event]:
    return [event_from_store(e) for e in load_events(engine, match_id)]


# -- the store ------------------------------------------------------------------------------


def played(seed: int, length: str, level: str) -> list[dict[str, Any]]:
    """A whole bot match, in the store's form."""
    bots = [make_bot(level, seat, seed + seat) for seat in range(3)]
    match = play_seated(bots, seed, DEFAULT.with_options(length=length)).match
    return [event_to_store(e) for e in match.events]


# (seed, length, level, kind, the player's seat)
PLAYED = [
    (11, "east", "beginner", "practice", 0),
    (12, "east", "beginner", "practice", 1),
    (13, "one-hand", "normal", "practice", 2),
    (14, "east-south", "normal", "practice", 0),
    (15, "east", "normal", "room", 1),
    (16, "east", "normal", "room", 2),
]


def store_match(engine: Engine, guest: str, seed: int, length: str, level: str, kind: str, seat: int) -> str:
    """Stored as a table stores it: in pieces, the last one ending the match."""
    log = played(seed, length, level)
    rules = rules_to_json(DEFAULT.with_options(length=length))
    players = [SeatPlayer(s, guest, None) if s == seat else SeatPlayer(s, None, level) for s in range(3)]
    record = create_match(
        engine, guest_id=guest, rules=rules, seed=seed, bot_level=level, human_seat=seat, kind=kind, players=players
    )
    half = len(log) // 2
    append_events(engine, record.id, 1, log[:half], ended=False)
    append_events(engine, record.id, half + 1, log[half:], ended=True)
    return record.id


@pytest.mark.slow
def test_every_figure_equals_a_count_of_the_stored_logs(any_engine: Engine) -> None:
    engine = any_engine
    guest, other = create_guest(engine).id, create_guest(engine).id
    ids = [store_match(engine, guest, *spec) for spec in PLAYED]
    store_match(engine, other, 99, "east", "normal", "practice", 0)  # another player's: not counted
    unfinished = create_match(engine, guest_id=guest, rules={}, seed=1, bot_level="normal", human_seat=0)
    append_events(engine, unfinished.id, 1, played(17, "east", "normal")[:50], ended=False)
    found = player_stats(engine, guest)

    groups: dict[tuple[str, str | None, str], Counter[str]] = {}
    total: Counter[str] = Counter()
    for match_id, (_, length, level, kind, seat) in zip(ids, PLAYED, strict=True):
        mine = count(stored_log(engine, match_id), seat)
        key = (kind, level if kind == "practice" else None, length)
        groups.setdefault(key, Counter()).update(mine)
        total.update(mine)
    assert total["wins"] and total["deal_ins"] and total["riichi_hands"] and total["kita"], total
    got = {(g.kind, g.bot_level, g.length): _group(g).model_dump() for g in found.groups}
    assert set(got) == set(groups)
    for key, want in groups.items():
        assert_group(got[key], want)
    assert_group(_group(found.total).model_dump(), total)
    assert found.groups[0].matches == max(g["matches"] for g in groups.values())  # most played first
    placements = [next(e for e in stored_log(engine, i) if isinstance(e, MatchEnded)).placements for i in ids]
    assert found.recent == tuple(p[spec[4]] for p, spec in zip(placements, PLAYED, strict=True))


def test_a_player_without_matches_has_empty_figures(any_engine: Engine) -> None:
    engine = any_engine
    found = player_stats(engine, create_guest(engine).id)
    assert found.groups == () and found.recent == () and found.total.matches == 0
    assert set(_group(found.total).figures.values()) == {None}


def test_the_trend_keeps_the_last_matches_in_order(any_engine: Engine) -> None:
    engine = any_engine
    guest = create_guest(engine).id
    order = [(1, 2, 3), (2, 3, 1), (3, 1, 2)]
    for n in range(23):
        placements = order[n % 3] if n % 7 else order[0]
        ended = {"t": "MatchEnded", "points": [35000] * 3, "placements": placements, "final_scores": [0.0] * 3}
        record = create_match(engine, guest_id=guest, rules={}, seed=n, bot_level="normal", human_seat=n % 3)
        append_events(engine, record.id, 1, [ended], ended=True)
    found = player_stats(engine, guest, trend=20)
    assert found.total.matches == 23 and len(found.recent) == 20
    assert found.recent == tuple((order[n % 3] if n % 7 else order[0])[n % 3] for n in range(3, 23))
    assert player_stats(engine, guest).recent[-20:] == found.recent
    assert [(g.kind, g.bot_level, g.length) for g in found.groups] == [("practice", "normal", "")]


def test_migration_0013_fills_the_rows_of_matches_that_ended_before_it(tmp_path: Path):
    eng = db.open_engine(f"sqlite:///{tmp_path / 'old.db'}")
    db.upgrade(eng, "0012")
    guest = create_guest(eng).id
    ended: list[tuple[str, int]] = []
    for seed, seat in ((31, 0), (32, 2)):
        log = played(seed, "east", "beginner")
        record = create_match(
            eng, guest_id=guest, rules=rules_to_json(DEFAULT.with_options(length="east")), seed=seed,
            bot_level="beginner", human_seat=seat,
        )  # fmt: skip
        # Before 0013 the ending wrote no summary: the rows are written by hand, as it did.
        with eng.begin() as conn:
            for v, e in enumerate(log, start=1):
                conn.execute(
                    text("INSERT INTO match_events (match_id, v, event) VALUES (:m, :v, :e)"),
                    {"m": record.id, "v": v, "e": json.dumps(e)},
                )
            final = log[-1]
            result = {k: final[k] for k in ("points", "placements", "final_scores")}
            conn.execute(
                text("UPDATE matches SET status = 'ended', result = :r WHERE id = :m"),
                {"r": json.dumps(result), "m": record.id},
            )
        ended.append((record.id, seat))
    playing = create_match(eng, guest_id=guest, rules={}, seed=3, bot_level="beginner", human_seat=1)
    db.upgrade(eng)
    want = added(count(stored_log(eng, m), seat) for m, seat in ended)
    assert_group(_group(player_stats(eng, guest).total).model_dump(), want)
    with eng.connect() as conn:
        rows = conn.execute(text("SELECT match_id, COUNT(*) FROM match_stats GROUP BY match_id")).all()
    assert dict(rows) == {m: 3 for m, _ in ended} and playing.id not in dict(rows)
    eng.dispose()


# -- through the server ---------------------------------------------------------------------

SEEDS = [1001, 1002, 1003]


@pytest.mark.slow
def test_matches_played_through_the_server_give_the_counted_figures(tmp_path: Path):
    settings = Settings(port=free_port(), data_dir=tmp_path / "data", bot_delay_s=0.0, rate_per_s=400.0, rate_burst=800)
    seeds = iter(SEEDS)
    live = LiveServer(settings, seed_source=lambda: next(seeds))
    try:
        token = new_guest(live)
        auth = {"Authorization": f"Bearer {token}"}
        empty = httpx.get(f"{live.http}/api/account/stats", headers=auth).json()
        assert empty["groups"] == [] and empty["total"]["matches"] == 0 and empty["recent"] == []
        played_ids = []
        for n, (length, level, seat) in enumerate(
            (("east", "beginner", 0), ("one-hand", "normal", 1), ("east", "beginner", 2))
        ):
            match = new_match(live, token, length=length, level=level, seat=seat)
            client = Client(live, token, match)
            choose = chooser(SEEDS[n])
            try:
                prompt = client.next_prompt_or_end()
                while prompt is not None:
                    client.send({"t": "act", "seq": prompt["seq"], "a": choose(prompt)})
                    prompt = client.next_prompt_or_end()
            finally:
                client.close()
            played_ids.append((match, length, level, seat))
        deadline = time.monotonic() + 10
        while (got := httpx.get(f"{live.http}/api/account/stats", headers=auth).json())["total"]["matches"] < 3:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert httpx.get(f"{live.http}/api/account/stats").status_code == 401
        stranger = {"Authorization": f"Bearer {new_guest(live)}"}
        assert httpx.get(f"{live.http}/api/account/stats", headers=stranger).json()["total"]["matches"] == 0
    finally:
        live.stop()
    engine = db.open_engine(settings.db_url)
    try:
        logs = {m: stored_log(engine, m) for m, *_ in played_ids}
    finally:
        engine.dispose()
    groups: dict[tuple[str, str, str], Counter[str]] = {}
    for match, length, level, seat in played_ids:
        key = ("practice", level, length)
        groups.setdefault(key, Counter()).update(count(logs[match], seat))
    assert_group(got["total"], added(groups.values()))
    assert {(g["kind"], g["bot_level"], g["length"]) for g in got["groups"]} == set(groups)
    for g in got["groups"]:
        assert_group(g, groups[(g["kind"], g["bot_level"], g["length"])])
    finals = [next(e for e in logs[m] if isinstance(e, MatchEnded)) for m, *_ in played_ids]
    assert got["recent"] == [f.placements[seat] for f, (_, _, _, seat) in zip(finals, played_ids, strict=True)]


def test_an_operators_end_counts_the_match_but_not_the_hand_it_abandoned(any_engine: Engine) -> None:
    engine = any_engine
    guest = create_guest(engine).id
    rng = random.Random(5)
    match = Match(5, DEFAULT.with_options(length="east"))
    hands = 0
    while hands < 2 or len(match.events) < 40:  # into the second hand, after a few discards
        seat = match.awaiting()[0]
        match.apply(seat, rng.choice(list(match.legal_actions(seat))))
        hands = sum(isinstance(e, HandStarted) for e in match.events)
    match.end_now()
    log = [event_to_store(e) for e in match.events]
    record = create_match(engine, guest_id=guest, rules={"length": "east"}, seed=5, bot_level="normal", human_seat=0)
    append_events(engine, record.id, 1, log, ended=True)
    found = player_stats(engine, guest)
    assert found.total.matches == 1 and found.total.hands == hands - 1
    assert_group(_group(found.total).model_dump(), count(stored_log(engine, record.id), 0))
