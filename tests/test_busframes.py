"""The messages of a room's channel (``sanma/server/rooms/busframes.py``): each one round-trips
through its JSON text, a malformed one is a typed error, and the owner's listener drops it and
reads on (a real ``RoomHost`` on the in-process bus)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from sanma.server.rooms import busframes
from sanma.server.rooms.busframes import BadBusMessage, parse
from sanma.server.rooms.host import RoomHost
from sanma.server.rooms.remote import room_channel
from sanma.server.rooms.table import Outbox

EVERY = [
    busframes.Probe(),
    busframes.Speed("n1", "fast"),
    busframes.Join("n1", "c1", 12, 2),
    busframes.Join("n1", "c1", 0, None),
    busframes.Watch("n1", "c2", 3),
    busframes.Act("n1", "c1", 7, {"type": "discard", "tile": "5p", "riichi": False}),
    busframes.Resync("n1", "c1", 40),
    busframes.NextHand("n1", "c1", 88),
    busframes.Resume("n1", "c1"),
    busframes.Coach("n1", "c1", True),
    busframes.Coach("n1", "c1", False),
    busframes.Leave("n1", "c1"),
    busframes.End("cheating reported"),
    busframes.Bar("g1"),
]


@pytest.mark.parametrize("message", EVERY, ids=lambda m: type(m).__name__)
def test_every_message_round_trips_through_its_json_text(message: busframes.RoomMessage | busframes.Bar) -> None:
    text = json.dumps(message.to_wire())
    assert parse(json.loads(text)) == message


def test_the_wire_keeps_the_field_names_older_processes_send() -> None:
    # A rolling restart mixes versions: the JSON stays what remote.py published before the classes.
    assert busframes.Resync("n", "c", 5).to_wire() == {"op": "resync", "node": "n", "conn": "c", "from": 5}
    assert busframes.Act("n", "c", 1, {"type": "pass"}).to_wire()["a"] == {"type": "pass"}
    assert busframes.Speed("n", "instant").to_wire() == {"op": "speed", "node": "n", "conn": None, "speed": "instant"}
    assert busframes.Coach("n", "c", True).to_wire() == {"op": "coach", "node": "n", "conn": "c", "on": True}


@pytest.mark.parametrize(
    "data",
    [
        "not an object",
        {"op": "explode"},
        {"node": "n", "conn": "c"},
        {"op": "act", "node": "n", "conn": "c", "seq": -1, "a": {}},
        {"op": "act", "node": "n", "conn": "c", "seq": 1, "a": "pass"},
        {"op": "join", "node": "n", "conn": "c", "last_v": True},
        {"op": "join", "node": "n", "last_v": 0},
        {"op": "resync", "node": "", "conn": "c", "from": 0},
        {"op": "speed", "node": "n"},
        {"op": "end"},
        {"op": "bar", "guest": 5},
        {"op": "coach", "node": "n", "conn": "c"},
        {"op": "coach", "node": "n", "conn": "c", "on": 1},
        {"op": "coach", "node": "n", "conn": "c", "on": "true"},
        {"op": "coach", "node": "n", "on": True},
    ],
)
def test_a_malformed_message_is_a_typed_error(data: Any) -> None:
    with pytest.raises(BadBusMessage):
        parse(data)
    assert issubclass(BadBusMessage, ValueError)


class _Room:
    """A stand-in for a table that writes down the calls the host makes on it."""

    id = "m1"
    failed = None

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def join(self, outbox: Outbox, last_v: int, seat: int | None = None) -> None:
        self.calls.append(("join", (last_v, seat)))

    def submit(self, outbox: Outbox, seq: int, action: dict[str, Any]) -> None:
        self.calls.append(("submit", (seq, action)))

    def set_coach(self, outbox: Outbox, on: bool) -> None:
        self.calls.append(("coach", on))

    def leave(self, outbox: Outbox) -> None:
        self.calls.append(("leave", None))


def test_the_host_drops_a_malformed_message_and_reads_on() -> None:
    async def main() -> list[tuple[str, Any]]:
        host = RoomHost.open(None, "node-a")
        room = _Room()
        try:
            assert await host.claim("m1")
            host.serve(room)  # type: ignore[arg-type]
            channel = room_channel("m1")
            pubsub = host.bus.pubsub
            await pubsub.publish(channel, {"op": "act", "node": "n", "conn": "c", "seq": "x", "a": {}})
            await pubsub.publish(channel, {"op": "nonsense"})
            await pubsub.publish(channel, busframes.Join("n", "c", 0, 1).to_wire())
            await pubsub.publish(channel, busframes.Act("n", "c", 3, {"type": "pass"}).to_wire())
            await pubsub.publish(channel, {"op": "coach", "node": "n", "conn": "c", "on": None})
            await pubsub.publish(channel, busframes.Coach("n", "c", True).to_wire())
            await pubsub.publish(channel, busframes.Leave("n", "c").to_wire())
            for _ in range(100):
                if len(room.calls) == 4:
                    break
                await asyncio.sleep(0.01)
            return room.calls
        finally:
            await host.close()

    calls = asyncio.run(main())
    assert calls == [("join", (0, 1)), ("submit", (3, {"type": "pass"})), ("coach", True), ("leave", None)]
