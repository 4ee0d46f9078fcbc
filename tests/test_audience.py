"""Who is sent what at a table (``sanma/server/rooms/audience.py``): each event encoded once per
distinct view and shared, each seat its own redacted log, spectators a hand behind."""

from __future__ import annotations

import json

from sanma.engine.events import HandStarted
from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.server import protocol
from sanma.server.rooms.audience import Audience


class Inbox:
    def __init__(self) -> None:
        self.texts: list[str] = []

    def push(self, frame: protocol.ServerFrame) -> None:
        self.texts.append(protocol.encode(frame))

    def push_many(self, frames: list[str]) -> None:
        self.texts += frames

    def frames(self) -> list[dict]:
        return [json.loads(t) for t in self.texts]


def test_each_seat_gets_its_own_view_and_alike_views_share_one_text():
    events = Match(11, Rules()).events  # MatchStarted, HandStarted (each hand hidden but one's own)
    audience = Audience([0, 2], red_fives=True, watchable=False, seed=11)
    for event in events:
        audience.record(event)
    seat0, seat2 = audience.backlog(0, 1), audience.backlog(2, 1)
    started = next(v for v, e in enumerate(events, 1) if isinstance(e, HandStarted))
    assert seat0[0] is seat2[0]  # MatchStarted looks the same to both: one text
    hands0 = json.loads(audience.backlog(0, started)[0])["e"]["hands"]
    assert hands0[0] != ["?"] * len(hands0[0]) and set(hands0[2]) == {"?"}  # its own hand only


def test_a_published_event_reaches_every_connection_of_its_seat_and_nobody_detached():
    match = Match(12, Rules())
    audience = Audience([1], red_fives=True, watchable=False, seed=12)
    first, second, gone = Inbox(), Inbox(), Inbox()
    for box in (first, second, gone):
        audience.attach(1, box)
    assert audience.detach(gone) == 1 and audience.connected(1)
    for event in match.events:
        audience.publish(event)
    assert first.texts == second.texts and first.texts[0] is second.texts[0]
    assert [f["v"] for f in first.frames() if f["t"] == "event"] == list(range(1, len(match.events) + 1))
    assert gone.texts == []
    audience.send_seat(1, protocol.Pong())
    audience.broadcast(protocol.Pong(), but=1)
    assert first.frames()[-1] == {"t": "pong"} and len(first.texts) == len(second.texts)
    assert audience.detach(first) == 1 and audience.detach(second) == 1
    assert not audience.connected(1) and audience.empty


def test_spectators_see_each_hand_once_the_next_starts_redacted_for_nobody():
    match = Match(13, Rules())
    audience = Audience([0], red_fives=True, watchable=True, seed=13)
    watcher = Inbox()
    audience.attach_watcher(watcher)
    assert audience.watching(watcher) and audience.seat_of(watcher) is None
    for event in match.events:
        audience.publish(event)
    started = next(v for v, e in enumerate(match.events, 1) if isinstance(e, HandStarted))
    assert audience.public_until == started - 1  # the hand in play is not shown
    shown = [f for f in watcher.frames() if f["t"] == "event"]
    assert [f["v"] for f in shown] == list(range(1, started))
    assert audience.public_backlog(1) == watcher.texts
    audience.broadcast(protocol.Presence(0, "away"))
    assert watcher.frames()[-1] == {"t": "presence", "seat": 0, "state": "away"}
