"""Drills (docs/drills.md): problems made from the master's review of the player's own matches.

A drill's position is checked against the test's own fold of the log as the seat saw it, and
every tile it shows against the tiles that seat was sent (no hidden tile); the master's discard
answers right, another legal discard wrong; the daily set is the same all day and another the
next (the day is passed in, never read off the clock); the streak counts the consecutive days
completed and starts again after a missed one; the typed errors.  The store on SQLite and
PostgreSQL; the routes on a real server, with a practice match played over the WebSocket and
reviewed by the server's own review worker."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine

from sanma.bots.drill import answer_tile, discarded_tile, is_problem, judge, position, reasons, rest_of_hand
from sanma.engine.events import (
    DoraRevealed,
    Event,
    HandAborted,
    HandDrawn,
    HandStarted,
    HandWon,
    KitaDeclared,
    MatchStarted,
    MeldCalled,
    RiichiAccepted,
    TileDiscarded,
    TileDrawn,
)
from sanma.engine.hand import MeldType
from sanma.engine.tiles import tile_name
from sanma.engine.visibility import is_hidden, redact
from sanma.server.codec import event_from_store
from sanma.server.settings import Settings
from sanma.store import db
from sanma.store import drills as store
from sanma.store import matches as match_store
from sanma.store.guests import create_guest
from sanma.store.privacy import delete_account
from tests.fixtures.drills import SEAT, SEEDS, keep_review, reviewed
from tests.fixtures.replays import store_ended
from tests.fixtures.server import Client, LiveServer, chooser, new_guest, new_match
from tests.services import free_port

DAY = date(2026, 12, 3)


# -- the test's own fold ----------------------------------------------------------------------


def seen(events: Sequence[Event], seat: int, index: int) -> dict[str, Any]:
    """What ``seat`` knew after ``events[: index + 1]``, folded here from its redacted events
    (not with the engine's fold), tiles named in mpsz."""
    red = events[0].rules.red_fives if isinstance(events[0], MatchStarted) else True
    hand: list[int] = []
    drawn: int | None = None
    rivers: list[list[tuple[int, bool]]] = [[], [], []]
    melds: list[list[int]] = [[], [], []]
    kita: list[list[int]] = [[], [], []]
    dora: list[int] = []
    scores = [0, 0, 0]
    riichi = [False, False, False]
    deposits = 0
    for e in (redact(x, seat) for x in events[: index + 1]):
        if isinstance(e, HandStarted):
            hand, drawn, dora = list(e.hands[seat]), None, [e.dora_indicator]
            rivers, melds, kita = [[], [], []], [[], [], []], [[], [], []]
            scores, riichi, deposits = list(e.scores), [False, False, False], e.deposits
        elif isinstance(e, TileDrawn) and e.seat == seat:
            hand.append(e.tile)
            drawn = e.tile
        elif isinstance(e, TileDiscarded):
            rivers[e.seat].append((e.tile, e.riichi))
            riichi[e.seat] = riichi[e.seat] or e.riichi
            if e.seat == seat:
                hand.remove(e.tile)
                drawn = None
        elif isinstance(e, MeldCalled):
            m = e.meld
            added = [m.added] if m.type is MeldType.KAKAN and m.added is not None else list(m.tiles)
            melds[e.seat] += added
            if e.seat == seat:
                for t in added if m.type is MeldType.KAKAN else [t for t in m.tiles if t != m.called]:
                    hand.remove(t)
                drawn = None
        elif isinstance(e, KitaDeclared):
            kita[e.seat].append(e.tile)
            if e.seat == seat:
                hand.remove(e.tile)
                drawn = None
        elif isinstance(e, DoraRevealed):
            dora.append(e.indicator)
        elif isinstance(e, RiichiAccepted):
            scores[e.seat] -= 1000
            deposits += 1

    def names(tiles: Sequence[int]) -> list[str]:
        return [tile_name(t, red) for t in tiles]

    return {
        "tiles": names(sorted(t for t in hand if t != drawn)),
        "drawn": None if drawn is None else tile_name(drawn, red),
        "rivers": [[(tile_name(t, red), r) for t, r in river] for river in rivers],
        "melds": [sorted(names(m)) for m in melds],
        "kita": [names(k) for k in kita],
        "dora_indicators": names(dora),
        "scores": scores,
        "riichi": riichi,
        "deposits": deposits,
    }


def sent_tiles(events: Sequence[Event], seat: int, index: int) -> Counter[str]:
    """Every tile ``seat`` was sent face up in ``events[: index + 1]`` (its redacted events), by name."""
    red = events[0].rules.red_fives if isinstance(events[0], MatchStarted) else True
    out: Counter[str] = Counter()

    def add(tiles: Sequence[int]) -> None:
        out.update(tile_name(t, red) for t in tiles if not is_hidden(t))

    for e in (redact(x, seat) for x in events[: index + 1]):
        if isinstance(e, HandStarted):
            out = Counter()  # a new deal: what the table shows starts again
            add([t for h in e.hands for t in h] + [e.dora_indicator])
        elif isinstance(e, TileDrawn | TileDiscarded | KitaDeclared):
            add([e.tile])
        elif isinstance(e, MeldCalled):
            add([t for t in e.meld.tiles if t != e.meld.called])  # the called tile was sent as a discard
        elif isinstance(e, DoraRevealed):
            add([e.indicator])
    return out


def shown_tiles(p: dict[str, Any]) -> Counter[str]:
    """Every tile a position shows, by name."""
    out = Counter(p["tiles"] + ([p["drawn"]] if p["drawn"] else []) + p["dora_indicators"])
    for s in range(3):
        out.update(r["tile"] for r in p["rivers"][s] if not r["called"])  # a called one lies in its meld
        out.update(t for m in p["melds"][s] for t in m["tiles"])
        out.update(p["kita"][s])
    return out


def assert_position(p: dict[str, Any], events: Sequence[Event], seat: int, index: int) -> None:
    want = seen(events, seat, index)
    assert p["seat"] == seat
    for name in ("tiles", "drawn", "dora_indicators", "scores", "riichi", "deposits"):
        assert p[name] == want[name], name
    assert [[(r["tile"], r["riichi"]) for r in river] for river in p["rivers"]] == want["rivers"]
    assert [sorted(t for m in melds for t in m["tiles"]) for melds in p["melds"]] == want["melds"]
    assert p["kita"] == want["kita"]
    # Nothing the seat was not sent: no more copies of a tile than the seat's events showed it.
    assert not shown_tiles(p) - sent_tiles(events, seat, index)
    assert len(p["tiles"]) + (p["drawn"] is not None) == p["hand_sizes"][seat]


# -- the fold and the judgement, without a database ----------------------------------------------


def test_each_drill_position_is_the_seats_view_at_its_decision_with_nothing_hidden_shown():
    checked = 0
    for seed in SEEDS:
        events, result = reviewed(seed)
        for m in result["mistakes"]:
            if not is_problem(m):
                continue
            p = position(events, SEAT, m["index"]).as_dict()
            assert_position(p, events, SEAT, m["index"])
            assert answer_tile(p["legal"], str(discarded_tile(m["choice"]))) is not None  # what the seat did
            assert answer_tile(p["legal"], str(discarded_tile(m["master"]))) is not None  # what the master would
            checked += 1
    assert checked == 29


def test_the_masters_discard_is_right_another_legal_one_wrong_and_a_tile_not_held_refused():
    events, result = reviewed(SEEDS[0])
    m = next(m for m in result["mistakes"] if is_problem(m))
    legal = position(events, SEAT, m["index"]).legal
    master = str(discarded_tile(m["master"]))
    assert judge(legal, master, m["master"]) == (answer_tile(legal, master), True)
    mine = str(discarded_tile(m["choice"]))
    assert judge(legal, mine, m["master"]) == (answer_tile(legal, mine), False)
    absent = next(n for n in ("1m", "9m", "1z", "7z", "9s") if n not in legal)
    assert judge(legal, absent, m["master"]) is None
    why_master, why_mine = reasons(events, SEAT, m["index"], (m["master"], m["choice"]))
    assert why_master is not None and why_master.tile == master and why_master.speed is not None
    assert why_mine is not None and why_mine.tile == mine


def test_a_red_five_counts_as_its_kind_unless_the_hand_holds_both():
    assert judge(["5p", "7s"], "0p", "discard 5p") == ("5p", True)
    assert judge(["0p", "7s"], "5p", "riichi 0p") == ("0p", True)
    assert judge(["0p", "5p"], "5p", "discard 0p") == ("5p", False)
    assert judge(["0p", "5p"], "0p", "discard 0p") == ("0p", True)


def test_the_rest_of_the_hand_runs_from_the_decision_to_the_hands_end_as_the_seat_saw_it():
    events, result = reviewed(SEEDS[1])
    m = next(m for m in result["mistakes"] if is_problem(m))
    hand, at = rest_of_hand(events, SEAT, m["index"])
    assert isinstance(hand[0], MatchStarted) and isinstance(hand[1], HandStarted)
    assert hand[at] == redact(events[m["index"]], SEAT)
    assert isinstance(hand[-1], HandWon | HandDrawn | HandAborted)
    assert sum(isinstance(e, HandStarted) for e in hand) == 1
    assert all(not isinstance(e, TileDrawn) or e.seat == SEAT or is_hidden(e.tile) for e in hand)


# -- the store: the daily set and the streak (SQLite and PostgreSQL) -------------------------------


def player_with_reviews(engine: Engine) -> str:
    guest = create_guest(engine).id
    for seed in SEEDS:
        events, result = reviewed(seed)
        match, stored = store_ended(engine, seed, guest, SEAT)
        assert stored == events
        keep_review(engine, match, SEAT, guest, result)
    return guest


def on(day: date) -> datetime:
    """A moment of ``day`` (UTC)."""
    return datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=12)


def answer_all(engine: Engine, guest: str, day: date) -> None:
    for d in store.daily_set(engine, guest, day):
        store.answer(engine, d.id, guest, "1m", False, on(day))


def key(d: store.Drill) -> tuple[str, int, int]:
    return d.problem.key


@pytest.mark.slow
def test_the_daily_set_is_the_same_all_day_another_the_next_and_never_an_answered_problem(any_engine: Engine):
    engine = any_engine
    guest = player_with_reviews(engine)
    first = store.daily_set(engine, guest, DAY)
    assert len(first) == store.SET_SIZE and [d.slot for d in first] == [0, 1, 2, 3, 4]
    assert all(is_problem({"choice": p.choice, "master": p.master, "loss": p.loss}) for p in (d.problem for d in first))
    assert store.daily_set(engine, guest, DAY) == first  # asked again the same day
    # The set comes from the biggest losses.
    with engine.connect() as conn:
        everything = sorted({p.loss for p in store.recent_problems(conn, guest)}, reverse=True)
    assert min(d.problem.loss for d in first) >= everything[store.POOL - 1]
    unanswered_next = store.daily_set(engine, guest, DAY + timedelta(days=1))
    assert {key(d) for d in unanswered_next} != {key(d) for d in first}  # another day, another draw
    answer_all(engine, guest, DAY)
    two_days = store.daily_set(engine, guest, DAY + timedelta(days=2))
    assert not {key(d) for d in two_days} & {key(d) for d in first}  # an answered problem never again
    other = player_with_reviews(engine)
    assert store.daily_set(engine, other, DAY) != first  # another player: another draw (and its own rows)


@pytest.mark.slow
def test_the_streak_counts_consecutive_completed_days_and_resets_after_a_missed_one(any_engine: Engine):
    engine = any_engine
    guest = player_with_reviews(engine)
    assert store.streak(engine, guest, DAY) == 0
    answer_all(engine, guest, DAY)
    assert store.streak(engine, guest, DAY) == 1
    assert store.streak(engine, guest, DAY + timedelta(days=1)) == 1  # today not done yet: still alive
    answer_all(engine, guest, DAY + timedelta(days=1))
    assert store.streak(engine, guest, DAY + timedelta(days=1)) == 2
    store.daily_set(engine, guest, DAY + timedelta(days=2))  # opened, never finished
    assert store.streak(engine, guest, DAY + timedelta(days=2)) == 2
    assert store.streak(engine, guest, DAY + timedelta(days=3)) == 0  # a day missed
    answer_all(engine, guest, DAY + timedelta(days=3))
    assert store.streak(engine, guest, DAY + timedelta(days=3)) == 1


def test_a_player_without_reviews_gets_no_set_and_its_unreviewed_matches(any_engine: Engine):
    engine = any_engine
    guest = create_guest(engine).id
    match, _ = store_ended(engine, SEEDS[2], guest, SEAT)
    assert store.daily_set(engine, guest, DAY) == []
    assert store.unreviewed(engine, guest) == [match]
    assert store.streak(engine, guest, DAY) == 0


@pytest.mark.slow
def test_an_answer_is_kept_once_and_only_for_its_player(any_engine: Engine):
    engine = any_engine
    guest = player_with_reviews(engine)
    d = store.daily_set(engine, guest, DAY)[0]
    with pytest.raises(store.DrillError) as e:
        store.answer(engine, d.id, create_guest(engine).id, "1m", False, on(DAY))
    assert e.value.code == "not_yours"
    with pytest.raises(store.DrillError) as e:
        store.answer(engine, d.id, guest, "1m", False, on(DAY + timedelta(days=1)))
    assert e.value.code == "expired"  # a missed day is not made up the next
    store.answer(engine, d.id, guest, "1m", True, on(DAY))
    with pytest.raises(store.DrillError) as e:
        store.answer(engine, d.id, guest, "2m", False, on(DAY))
    assert e.value.code == "answered"
    with pytest.raises(store.DrillError) as e:
        store.answer(engine, 10**6, guest, "1m", False, on(DAY))
    assert e.value.code == "no_drill"
    kept = store.get_drill(engine, d.id)
    assert kept is not None and (kept.answer, kept.right) == ("1m", True)


# -- the routes, on a real server ----------------------------------------------------------------


def until_reviewed(http: str, match: str, auth: dict[str, str], timeout_s: float = 240) -> dict[str, Any]:
    r = httpx.post(f"{http}/api/matches/{match}/review", headers=auth, timeout=30)
    assert r.status_code in (200, 202), r.text
    deadline = time.monotonic() + timeout_s
    while (got := httpx.get(f"{http}/api/matches/{match}/review", headers=auth, timeout=30).json())["state"] not in (
        "done",
        "failed",
    ):
        assert time.monotonic() < deadline, got
        time.sleep(0.1)
    assert got["state"] == "done", got
    return dict(got["result"])


def play(live: LiveServer, token: str, seed: int) -> str:
    """A practice East match at ``SEAT``, played over the WebSocket by a seeded chooser."""
    match = new_match(live, token, length="east", level="beginner", seat=SEAT)
    client = Client(live, token, match)
    choose = chooser(seed)
    try:
        prompt = client.next_prompt_or_end()
        while prompt is not None:
            client.send({"t": "act", "seq": prompt["seq"], "a": choose(prompt)})
            prompt = client.next_prompt_or_end()
    finally:
        client.close()
    return match


@pytest.mark.slow
def test_drills_over_http_from_a_match_played_and_reviewed_on_the_server(tmp_path: Path):
    settings = Settings(port=free_port(), data_dir=tmp_path / "data", bot_delay_s=0.0, rate_per_s=400.0, rate_burst=800)
    seeds = iter([3101, 3102, 3103])
    live = LiveServer(settings, seed_source=lambda: next(seeds))
    try:
        token = new_guest(live)
        auth = {"Authorization": f"Bearer {token}"}
        http = live.http
        assert httpx.get(f"{http}/api/drills/today").status_code == 401
        match = play(live, token, 3101)
        deadline = time.monotonic() + 10
        while (empty := httpx.get(f"{http}/api/drills/today", headers=auth).json())["unreviewed"] != [match]:
            assert time.monotonic() < deadline, empty  # the match's end is written after its last frame
            time.sleep(0.05)
        assert empty["drills"] == [] and empty["streak"] == 0 and empty["done"] is False
        result = until_reviewed(http, match, auth)
        today = httpx.get(f"{http}/api/drills/today", headers=auth).json()
        problems = [m for m in result["mistakes"] if is_problem(m)]
        assert len(today["drills"]) == min(store.SET_SIZE, len(problems)) >= 2, result
        assert today["unreviewed"] == [] and today["day"] == datetime.now(UTC).date().isoformat()
        engine = db.open_engine(settings.db_url)
        try:
            events = [event_from_store(e) for e in match_store.load_events(engine, match)]
            record = match_store.get_match(engine, match)
            assert record is not None
            stored = {d.id: d for d in store.daily_set(engine, record.guest_id, date.fromisoformat(today["day"]))}
        finally:
            engine.dispose()
        for item in today["drills"]:
            d = stored[item["id"]]
            assert item["state"] == "open" and item["solution"] is None and item["match"] == match
            assert_position(item["position"], events, SEAT, d.problem.index)

        first, second = today["drills"][0], today["drills"][1]
        master = answer_tile(first["position"]["legal"], str(discarded_tile(stored[first["id"]].problem.master)))
        r = httpx.post(f"{http}/api/drills/{first['id']}/answer", json={"tile": master}, headers=auth)
        assert r.status_code == 200, r.text
        sol = r.json()["solution"]
        assert sol["right"] is True and sol["answer"] == master and sol["master"] == stored[first["id"]].problem.master
        mistake = next(m for m in result["mistakes"] if m["index"] == stored[first["id"]].problem.index)
        assert sol["values"] == mistake["values"] and sol["loss"] == mistake["loss"]
        assert sol["master_reason"]["tile"] == discarded_tile(sol["master"])
        assert sol["choice_reason"]["tile"] == discarded_tile(sol["choice"])
        rest = sol["events"]
        assert rest[0]["type"] == "MatchStarted" and rest[-1]["type"] in ("HandWon", "HandDrawn", "HandAborted")
        assert all(e["type"] != "TileDrawn" or e["seat"] == SEAT or e["tile"] == "?" for e in rest)
        assert r.json()["streak"] == 0 and r.json()["done"] is False

        wrong = next(t for t in second["position"]["legal"] if t != discarded_tile(stored[second["id"]].problem.master))
        r = httpx.post(f"{http}/api/drills/{second['id']}/answer", json={"tile": wrong}, headers=auth)
        assert r.status_code == 200 and r.json()["solution"]["right"] is False, r.text

        again = httpx.post(f"{http}/api/drills/{first['id']}/answer", json={"tile": master}, headers=auth)
        assert again.status_code == 409 and again.json()["error"] == "answered"
        if len(today["drills"]) > 2:
            third = today["drills"][2]
            absent = next(n for n in ("1m", "9m", "1z", "7z", "9s", "1p") if n not in third["position"]["legal"])
            bad = httpx.post(f"{http}/api/drills/{third['id']}/answer", json={"tile": absent}, headers=auth)
            assert bad.status_code == 422 and bad.json()["error"] == "not_legal"
        missing = httpx.post(f"{http}/api/drills/999999/answer", json={"tile": "1m"}, headers=auth)
        assert missing.status_code == 404 and missing.json()["error"] == "no_drill"
        stranger = {"Authorization": f"Bearer {new_guest(live)}"}
        theirs = httpx.post(f"{http}/api/drills/{first['id']}/answer", json={"tile": master}, headers=stranger)
        assert theirs.status_code == 403 and theirs.json()["error"] == "not_yours"
        assert httpx.get(f"{http}/api/drills/today", headers=stranger).json()["drills"] == []
        shown = httpx.get(f"{http}/api/drills/today", headers=auth).json()
        assert [i["state"] for i in shown["drills"][:2]] == ["right", "wrong"]
        assert shown["drills"][0]["solution"]["events"] == rest
    finally:
        live.stop()


def test_a_deleted_account_takes_its_drills_with_it(any_engine: Engine):
    engine = any_engine
    guest = create_guest(engine).id
    _, result = reviewed(SEEDS[2])
    match, _ = store_ended(engine, SEEDS[2], guest, SEAT)
    keep_review(engine, match, SEAT, guest, result)
    d = store.daily_set(engine, guest, DAY)[0]
    store.answer(engine, d.id, guest, "1m", False, on(DAY))
    delete_account(engine, guest)
    assert store.get_drill(engine, d.id) is None
