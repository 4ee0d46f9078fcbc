"""The seating policies (``sanma/server/rooms/practice.py``, ``rooms/friend.py``): who sits
where at a table and what each kind allows, read from a real SQLite store; and a table built
from a plan follows its policy (``TableRoom`` with the store's match log)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from sanma.bots.base import Player
from sanma.bots.registry import make_bot
from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.server import protocol
from sanma.server.codec import event_to_store, rules_to_json
from sanma.server.rooms.clock import TurnTimers
from sanma.server.rooms.friend import FriendSeating
from sanma.server.rooms.matchlog import StoreMatchLog, StoreSeatRecords
from sanma.server.rooms.practice import PracticeSeating
from sanma.server.rooms.seating import STANDIN_LEVEL, SeatPlan, bot_seed
from sanma.server.rooms.table import TableRoom, seating_for
from sanma.store import accounts, db, guests
from sanma.store import matches as store
from sanma.store import rooms as room_store
from sanma.store.matches import MatchRecord, SeatPlayer

TIMERS = TurnTimers(turn_s=8.0, bank_s=15.0, timeouts_to_auto=3, away_grace_s=4.0)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = db.open_engine(f"sqlite:///{tmp_path / 'seating.db'}")
    db.upgrade(engine)
    yield engine
    engine.dispose()


class Made:
    """A bot factory that remembers what it made (the real bots, recorded)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int]] = []

    def __call__(self, level: str, seat: int, seed: int) -> Player:
        self.calls.append((level, seat, seed))
        return make_bot(level, seat, seed)


def practice_record(engine: Engine, *, seat: int = 1, timers: TurnTimers | None = None) -> MatchRecord:
    guest = guests.create_guest(engine).id
    return store.create_match(
        engine,
        guest_id=guest,
        rules=rules_to_json(Rules()),
        seed=77,
        bot_level="beginner",
        human_seat=seat,
        timers=None if timers is None else timers.to_json(),
    )


def friend_record(engine: Engine) -> tuple[MatchRecord, list[str]]:
    """A friend room's match: two guests (one named) at seats 0 and 2, a bot at 1, in a lobby."""
    host, friend = guests.create_guest(engine).id, guests.create_guest(engine).id
    accounts.set_display_name(engine, friend, "Kaori")
    lobby = room_store.create_room(engine, code="ABCD", host_guest=host, options={}, timers=TIMERS.to_json())
    assert lobby is not None
    players = [SeatPlayer(0, host, None), SeatPlayer(1, None, "normal"), SeatPlayer(2, friend, None)]
    record = store.create_match(
        engine,
        guest_id=host,
        rules=rules_to_json(Rules()),
        seed=5,
        bot_level="normal",
        human_seat=0,
        kind="room",
        players=players,
    )
    assert room_store.save_room(engine, dataclasses.replace(lobby, status="playing", match_id=record.id))
    return record, [host, friend]


def test_practice_seats_its_owner_where_chosen_and_bots_of_its_level_elsewhere(engine):
    record = practice_record(engine, seat=1, timers=TIMERS)
    made = Made()
    plan = PracticeSeating().plan(record, made, StoreSeatRecords(engine))
    assert plan.humans == {1: record.guest_id}
    assert sorted(plan.bots) == [0, 2] and plan.standins == {}
    assert made.calls == [("beginner", 0, bot_seed(77, 0)), ("beginner", 2, bot_seed(77, 2))]
    assert plan.timers == TIMERS and plan.players is None
    assert PracticeSeating().plan(practice_record(engine), made).timers is None  # no timer chosen


def test_a_friend_room_seats_its_guests_and_bots_from_the_store_with_standins_and_lobby_timers(engine):
    record, (host, friend) = friend_record(engine)
    made = Made()
    plan = FriendSeating().plan(record, made, StoreSeatRecords(engine))
    assert plan.humans == {0: host, 2: friend} and sorted(plan.bots) == [1]
    assert sorted(plan.standins) == [0, 2]
    # The seat's own bot from the match seed; the stand-ins seeded apart (seat + 3), the same after a rebuild.
    assert made.calls == [
        ("normal", 1, bot_seed(5, 1)),
        (STANDIN_LEVEL, 0, bot_seed(5, 3)),
        (STANDIN_LEVEL, 2, bot_seed(5, 5)),
    ]
    assert plan.timers == TIMERS
    assert plan.players == (
        protocol.Player(0, None, None),
        protocol.Player(1, None, "normal"),
        protocol.Player(2, "Kaori", None),
    )


def test_each_policy_refuses_the_other_kind_and_an_unknown_kind_has_none(engine):
    practice, (room, _) = practice_record(engine), friend_record(engine)
    with pytest.raises(ValueError, match="practice"):
        PracticeSeating().plan(room, make_bot)
    with pytest.raises(ValueError, match="friend"):
        FriendSeating().plan(practice, make_bot, StoreSeatRecords(engine))
    assert isinstance(seating_for("practice"), PracticeSeating) and isinstance(seating_for("room"), FriendSeating)
    with pytest.raises(ValueError, match="unknown match kind"):
        seating_for("tournament")


def test_what_each_kind_allows():
    practice, friend = PracticeSeating(), FriendSeating()
    assert (practice.pauses_when_away, friend.pauses_when_away) == (True, False)
    assert (practice.shows_presence, friend.shows_presence) == (False, True)
    assert (practice.watchable, friend.watchable) == (False, True)
    assert (practice.player_paces_bots, friend.player_paces_bots) == (True, False)
    assert (practice.has_lobby, friend.has_lobby) == (False, True)
    assert (practice.leaves_memory_when_idle, friend.leaves_memory_when_idle) == (True, False)


def test_a_plan_covers_the_three_seats_once():
    bot = make_bot("beginner", 1, 0)
    with pytest.raises(ValueError, match="at least one human"):
        SeatPlan({}, {0: bot, 1: bot, 2: bot})
    with pytest.raises(ValueError, match="three seats"):
        SeatPlan({0: "g"}, {1: bot})
    with pytest.raises(ValueError, match="three seats"):
        SeatPlan({0: "g", 1: "h"}, {1: bot, 2: bot})
    with pytest.raises(ValueError, match="stand-in"):
        SeatPlan({0: "g"}, {1: bot, 2: bot}, standins={1: bot})


class Inbox:
    """An outbox that keeps what it is given, as the JSON objects a client reads."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    def push(self, frame: protocol.ServerFrame) -> None:
        self.frames.append(json.loads(protocol.encode(frame)))

    def push_many(self, frames: list[str]) -> None:
        for frame in frames:
            self.push(frame)


def test_a_table_follows_its_policy_welcome_presence_watchers_and_pace(engine):
    # Practice: the welcome names no players, nobody sees presence, nobody may watch, the player paces the bots.
    record = practice_record(engine, seat=2)
    practice = TableRoom.open(record, Match(77, Rules()), engine, make_bot, bot_delay_s=1.0, bot_budget_s=1.0)
    inbox = Inbox()
    practice.join(inbox, 0)
    welcome = inbox.frames[0]
    assert welcome == {
        "t": "welcome",
        "protocol": protocol.PROTOCOL_VERSION,
        "match": record.id,
        "kind": "practice",
        "seat": 2,
        "v": practice.v,
        "bot_level": "beginner",
    }
    assert not any(f["t"] == "presence" for f in inbox.frames)
    with pytest.raises(ValueError, match="watched"):
        practice.watch(Inbox(), 0)
    practice.set_speed("instant")
    assert practice.bot_delay_s == 0.0

    # A friend room: players in the welcome, every seat's presence, spectators, its own pace.
    room_record, _guests = friend_record(engine)
    room = TableRoom.open(room_record, Match(5, Rules()), engine, make_bot, bot_delay_s=1.0, bot_budget_s=1.0)
    seated = Inbox()
    room.join(seated, 0, 2)
    assert seated.frames[0]["players"][2] == {"seat": 2, "name": "Kaori", "bot_level": None}
    presence = [f for f in seated.frames if f["t"] == "presence"]
    assert presence == [
        {"t": "presence", "seat": 0, "state": "away"},
        {"t": "presence", "seat": 1, "state": "bot"},
        {"t": "presence", "seat": 2, "state": "connected"},
    ]
    watcher = Inbox()
    room.watch(watcher, 0)
    assert watcher.frames[0]["spectator"] is True and watcher.frames[0]["seat"] == 0
    room.set_speed("instant")
    assert room.bot_delay_s == 1.0


def test_the_store_match_log_appends_and_marks_a_friend_rooms_lobby(engine):
    record, _guests = friend_record(engine)
    first = [event_to_store(e) for e in Match(5, Rules()).events]
    before = room_store.room_of_match(engine, record.id)
    assert before is not None
    StoreMatchLog(engine, record.id, lobby=True).append(1, first[:1], ended=False, hand_started=False)
    assert room_store.room_of_match(engine, record.id) == before  # nothing for the lobby to know
    StoreMatchLog(engine, record.id, lobby=True).append(2, first[1:], ended=False, hand_started=True)
    after = room_store.room_of_match(engine, record.id)
    assert after is not None and after.version == before.version + 1 and after.status == "playing"
    assert store.event_count(engine, record.id) == len(first)

    practice = practice_record(engine)
    StoreMatchLog(engine, practice.id, lobby=False).append(1, first, ended=False, hand_started=True)
    assert store.event_count(engine, practice.id) == len(first)
