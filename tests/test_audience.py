"""Who is sent what at a table (``sanma/server/rooms/audience.py``): each event encoded once per
distinct view and shared, each seat its own redacted log, spectators live redacted for nobody
or, with open hands, a whole hand behind at the table's pace."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from sanma.engine.events import Event, HandStarted, MatchStarted
from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.engine.visibility import redact
from sanma.server import protocol
from sanma.server.codec import event_to_wire
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


def played(seed: int) -> list[Event]:
    """A match of tsumogiri and passes (every hand drawn), to its end."""
    match = Match(seed, Rules())
    while not match.finished:
        seat = match.awaiting()[0]
        default = match.legal_actions(seat).default
        assert default is not None
        match.apply(seat, default)
    return list(match.events)


def event_vs(inbox: Inbox) -> list[int]:
    return [f["v"] for f in inbox.frames() if f["t"] == "event"]


@pytest.mark.slow
def test_spectators_see_each_event_as_it_happens_redacted_for_nobody():
    log = played(13)
    audience = Audience([0], red_fives=True, watchable=True, seed=13)
    watcher = Inbox()
    audience.attach_watcher(watcher)
    assert audience.watching(watcher) and audience.seat_of(watcher) is None and not audience.open_hands
    for v, event in enumerate(log, 1):
        audience.publish(event)
        assert event_vs(watcher)[-1] == v and audience.public_until == v  # live: no hand held back
    shown = [f for f in watcher.frames() if f["t"] == "event"]
    assert [f["e"] for f in shown] == [event_to_wire(redact(e, None), True) for e in log]
    assert all(set(hand) == {"?"} for f in shown if f["e"]["type"] == "HandStarted" for hand in f["e"]["hands"])
    assert audience.public_backlog(1) == watcher.texts  # a late spectator gets the same, fair frames included
    audience.broadcast(protocol.Presence(0, "away"))
    assert watcher.frames()[-1] == {"t": "presence", "seat": 0, "state": "away"}


def test_a_rebuilt_live_room_shows_spectators_everything_recorded():
    log = played(14)[:40]
    audience = Audience([1], red_fives=True, watchable=True, seed=14)
    for event in log:
        audience.record(event)
    assert audience.public_until == len(log)
    assert [json.loads(t)["v"] for t in audience.public_backlog(1) if json.loads(t)["t"] == "event"] == list(
        range(1, len(log) + 1)
    )


def open_view(event: Event) -> dict:
    """What an open-hands spectator is sent of ``event``: every tile, never the seed."""
    return event_to_wire(redact(event, None) if isinstance(event, MatchStarted) else event, True)


class TimedInbox(Inbox):
    """An inbox that notes when each frame came."""

    def __init__(self) -> None:
        super().__init__()
        self.at: list[float] = []

    def push(self, frame: protocol.ServerFrame) -> None:
        super().push(frame)
        self.at.append(time.monotonic())


@pytest.mark.slow
def test_open_hands_are_a_whole_hand_behind_and_played_back_at_the_tables_pace():
    log = played(15)
    starts = [v for v, e in enumerate(log, 1) if isinstance(e, HandStarted)]
    assert len(starts) >= 3
    gap_s = 0.02

    async def run() -> TimedInbox:
        audience = Audience([0], red_fives=True, watchable=True, seed=15, open_hands=True)
        watcher = TimedInbox()
        audience.attach_watcher(watcher)
        for v, event in enumerate(log, 1):
            audience.publish(event)
            in_play = max((s for s in starts if s <= v), default=v + 1)
            # Nothing of the hand in play, or of any later one, has reached the spectator.
            assert all(seen < in_play for seen in event_vs(watcher)), v
            if v < starts[1]:
                await asyncio.sleep(gap_s)  # the first hand is played at a pace
            if v == starts[1]:
                # The first hand is played back while the second is played; wait for its end.
                while not event_vs(watcher) or event_vs(watcher)[-1] < v - 1:
                    await asyncio.sleep(0.01)
                assert event_vs(watcher)[-1] == v - 1
        while not event_vs(watcher) or event_vs(watcher)[-1] < len(log):
            await asyncio.sleep(0.01)
        assert audience.public_until == len(log) and audience.public_backlog(1) == watcher.texts
        return watcher

    watcher = asyncio.run(run())
    shown = [(f, at) for f, at in zip(watcher.frames(), watcher.at, strict=True) if f["t"] == "event"]
    assert [f["v"] for f, _ in shown] == list(range(1, len(log) + 1))  # each event once, in order
    assert [f["e"] for f, _ in shown] == [open_view(e) for e in log]
    started = next(f["e"] for f, _ in shown if f["e"]["type"] == "HandStarted")
    assert all("?" not in hand for hand in started["hands"])  # every hand shown
    assert next(f["e"] for f, _ in shown if f["e"]["type"] == "MatchStarted")["seed"] != log[0].seed
    # The first hand comes event by event at the table's pace, not at once with the next hand.
    first_hand = [at for f, at in shown if starts[0] <= f["v"] < starts[1]]
    played_s = (starts[1] - 1 - starts[0]) * gap_s
    assert first_hand[-1] - first_hand[0] >= played_s * 0.8
