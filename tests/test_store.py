"""The store: Alembic on an empty database, guests, matches and event logs, the event codec.

Runs against SQLite always, and against PostgreSQL too when a server can be started
locally (``initdb``/``pg_ctl`` on PATH and the ``psycopg`` driver installed); otherwise
those cases skip with the reason.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, inspect, text

from sanma.engine.events import MatchEnded
from sanma.engine.match import Match
from sanma.engine.replay import replay
from sanma.engine.rules import DEFAULT
from sanma.server.codec import event_from_store, event_to_store, rules_from_json, rules_to_json
from sanma.store import db
from sanma.store import rooms as room_store
from sanma.store.guests import create_guest, guest_for_token, token_hash
from sanma.store.matches import (
    SeatPlayer,
    append_events,
    create_match,
    event_count,
    get_match,
    latest_playing,
    load_events,
    players_of,
    result_of,
)
from tests.services import scratch_postgres

# -- a scratch PostgreSQL, when one can be started here (tests/services.py) ------------------


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A scratch PostgreSQL server for the session; skips with the reason where none can be
    started (fails in CI, where .ci/run installs it)."""
    with scratch_postgres() as url:
        yield url


def _head() -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(db.alembic_config("sqlite://")).get_current_head()
    assert head is not None
    return head


HEAD = _head()


def random_match(seed: int, length: str = "one-hand") -> Match:
    """A whole match of random legal play (independent of the bots)."""
    rng = random.Random(seed)
    match = Match(seed, DEFAULT.with_options(length=length))
    while not match.finished:
        seat = match.awaiting()[0]
        match.apply(seat, rng.choice(list(match.legal_actions(seat))))
    return match


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Engine:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'sanma.db'}"
    else:
        url = request.getfixturevalue("postgres_url")
    eng = db.open_engine(url)
    db.upgrade(eng)
    yield eng
    eng.dispose()


def test_alembic_upgrade_on_an_empty_sqlite_file(tmp_path):
    path = tmp_path / "nested" / "sanma.db"
    eng = db.open_engine(f"sqlite:///{path}")
    assert db.current_revision(eng) is None
    db.upgrade(eng)
    assert path.is_file()
    assert db.current_revision(eng) == HEAD
    insp = inspect(eng)
    assert {"guests", "matches", "match_events", "alembic_version"} <= set(insp.get_table_names())
    assert {c["name"] for c in insp.get_columns("guests")} == {"id", "token_hash", "created_at"}
    assert {c["name"] for c in insp.get_columns("match_events")} == {"match_id", "v", "event"}
    db.upgrade(eng)  # a second upgrade is a no-op
    assert db.current_revision(eng) == HEAD
    eng.dispose()


def test_guest_token_is_stored_only_as_its_hash(engine):
    guest = create_guest(engine)
    assert len(guest.token) >= 40
    assert guest_for_token(engine, guest.token) == guest.id
    assert guest_for_token(engine, guest.token + "x") is None
    assert guest_for_token(engine, "") is None
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT id, token_hash FROM guests")).all()
    assert rows == [(guest.id, token_hash(guest.token))]
    assert all(guest.token not in str(value) for row in rows for value in row)


def test_match_log_round_trips_and_replays(engine):
    guest = create_guest(engine)
    match = random_match(7, "east")
    seed = (1 << 63) + 12345  # more bits than a signed BIGINT holds
    record = create_match(
        engine, guest_id=guest.id, rules=rules_to_json(match.rules), seed=seed, bot_level="normal", human_seat=1
    )
    assert latest_playing(engine, guest.id) == record.id
    stored = [event_to_store(e) for e in match.events]
    half = len(stored) // 2
    append_events(engine, record.id, 1, stored[:half], ended=False)
    append_events(engine, record.id, half + 1, stored[half:], ended=True)
    again = get_match(engine, record.id)
    assert again is not None
    assert (again.seed, again.human_seat, again.status, again.bot_level) == (seed, 1, "ended", "normal")
    assert rules_from_json(again.rules) == match.rules
    assert event_count(engine, record.id) == len(match.events)
    assert latest_playing(engine, guest.id) is None
    loaded = [event_from_store(e) for e in load_events(engine, record.id)]
    assert loaded == match.events
    assert replay(loaded) == match
    final = match.events[-1]
    assert isinstance(final, MatchEnded)
    assert result_of(engine, record.id) == {
        "points": list(final.points),
        "placements": list(final.placements),
        "final_scores": list(final.final_scores),
    }


def test_match_players_default_and_explicit(engine):
    host, friend = create_guest(engine), create_guest(engine)
    practice = create_match(engine, guest_id=host.id, rules={}, seed=1, bot_level="expert", human_seat=2)
    assert players_of(engine, practice.id) == [
        SeatPlayer(0, None, "expert"),
        SeatPlayer(1, None, "expert"),
        SeatPlayer(2, host.id, None),
    ]
    assert result_of(engine, practice.id) is None
    seats = [SeatPlayer(0, friend.id, None), SeatPlayer(1, host.id, None), SeatPlayer(2, None, "normal")]
    room = create_match(
        engine, guest_id=host.id, rules={}, seed=2, bot_level="normal", human_seat=1, kind="room", players=seats
    )
    assert players_of(engine, room.id) == seats
    assert latest_playing(engine, friend.id) == room.id  # seated, though not the owner
    assert get_match(engine, room.id).kind == "room"  # type: ignore[union-attr]
    for bad in (seats[:2], [*seats[:2], SeatPlayer(2, friend.id, "normal")], [*seats[:2], SeatPlayer(1, None, "x")]):
        with pytest.raises(ValueError, match="one per seat"):
            create_match(engine, guest_id=host.id, rules={}, seed=3, bot_level="x", human_seat=0, players=bad)


def test_migration_0002_fills_in_the_players_of_older_matches(tmp_path):
    eng = db.open_engine(f"sqlite:///{tmp_path / 'old.db'}")
    db.upgrade(eng, "0001")
    with eng.begin() as conn:
        conn.execute(text("INSERT INTO guests (id, token_hash, created_at) VALUES ('g', 'h', '2026-01-01')"))
        conn.execute(
            text(
                "INSERT INTO matches (id, guest_id, kind, rules, seed, bot_level, human_seat, status, created_at,"
                " updated_at) VALUES ('m', 'g', 'practice', '{}', '1', 'normal', 1, 'playing', '2026-01-01',"
                " '2026-01-01')"
            )
        )
    db.upgrade(eng)
    assert players_of(eng, "m") == [
        SeatPlayer(0, None, "normal"),
        SeatPlayer(1, "g", None),
        SeatPlayer(2, None, "normal"),
    ]
    eng.dispose()


def test_a_second_writer_of_the_same_version_fails(engine):
    guest = create_guest(engine)
    record = create_match(engine, guest_id=guest.id, rules={}, seed=1, bot_level="beginner", human_seat=0)
    append_events(engine, record.id, 1, [{"t": "RiichiAccepted", "seat": 0}], ended=False)
    with pytest.raises(Exception, match=r"(?i)unique|duplicate|constraint"):
        append_events(engine, record.id, 1, [{"t": "RiichiAccepted", "seat": 1}], ended=False)
    assert [e["seat"] for e in load_events(engine, record.id)] == [0]


def test_a_rooms_removed_guests_are_stored_and_survive_later_changes(engine):
    host, friend = create_guest(engine), create_guest(engine)
    room = room_store.create_room(engine, code="BARRED", host_guest=host.id, options={}, timers={})
    assert room is not None and room.barred == frozenset()
    room = room_store.save_room(engine, room.with_seat(1, room_store.Seat(friend.id, None)))
    assert room is not None
    removed = room_store.save_room(engine, room.without_guest(1))
    assert removed is not None and removed.seats[1].empty
    stored = room_store.get_room(engine, "BARRED")
    assert stored is not None and stored.barred == frozenset({friend.id}) and stored.seats[1].empty
    later = room_store.save_room(engine, stored.with_seat(2, room_store.Seat(None, "expert")))
    assert later is not None
    assert room_store.get_room(engine, "BARRED") == later and later.barred == frozenset({friend.id})
    with pytest.raises(AssertionError):
        later.without_guest(0)  # never the host


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_event_codec_round_trips_every_event_type(seed):
    match = random_match(seed, "east-south" if seed % 2 else "east")
    for event in match.events:
        data = event_to_store(event)
        assert event_from_store(json.loads(json.dumps(data))) == event


def test_event_codec_rejects_unknown_data():
    from sanma.engine.errors import InvalidLog

    for bad in ({"t": "Nope"}, {"t": "TileDrawn", "seat": 1, "tile": 3, "extra": 1}, [], {"seat": 1}):
        with pytest.raises(InvalidLog):
            event_from_store(bad)  # type: ignore[arg-type]
