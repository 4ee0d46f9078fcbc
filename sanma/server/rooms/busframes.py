"""The messages server processes send each other about a room over the bus (``docs/server.md``,
"Scale-out"): one frozen class per message, as ``protocol.py`` has one per client frame.

``RemoteRoom`` publishes them on ``room:<id>``; the room's owner (``RoomHost``) reads each with
``parse`` and makes the same call on the real room.  ``to_wire()`` gives the JSON object (``op``
names the message; ``node`` and ``conn`` name the connection it concerns, ``conn:<node>:<conn>``
is where the room's frames for it go back).  What travels back is the room's own frames,
already JSON text for the client: they are not messages of this module.

A message that does not parse raises ``BadBusMessage``: the owner logs it and drops it, and
reads on.  Fields a message does not know are ignored, so that a process of the next version
may add one during a rolling restart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from sanma.engine.errors import SanmaError
from sanma.server.protocol import STAMPS

_MAX_INT: Final = 2**53  # as protocol.py: what a JSON number holds exactly


class BadBusMessage(SanmaError):
    """A bus message that is not one of this module's (wrong ``op``, a field missing or of the
    wrong type)."""


@dataclass(frozen=True, slots=True)
class Probe:
    """Is anybody listening on the room's channel?  (The keeper asks; nothing is done.)"""

    def to_wire(self) -> dict[str, Any]:
        """The message as a JSON object."""
        return {"op": "probe"}


@dataclass(frozen=True, slots=True)
class Speed:
    """Pace the room's bots (a practice player's choice)."""

    node: str
    speed: str

    def to_wire(self) -> dict[str, Any]:
        """The message as a JSON object."""
        return {"op": "speed", "node": self.node, "conn": None, "speed": self.speed}


@dataclass(frozen=True, slots=True)
class Join:
    """Attach the connection ``conn`` of process ``node`` for ``seat`` (``None``: the owner's
    seat), which already has the events up to ``last_v``."""

    node: str
    conn: str
    last_v: int
    seat: int | None

    def to_wire(self) -> dict[str, Any]:
        """The message as a JSON object."""
        return {"op": "join", "node": self.node, "conn": self.conn, "last_v": self.last_v, "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Watch:
    """Attach the connection as a spectator of a friend room's match."""

    node: str
    conn: str
    last_v: int

    def to_wire(self) -> dict[str, Any]:
        """The message as a JSON object."""
        return {"op": "watch", "node": self.node, "conn": self.conn, "last_v": self.last_v}


@dataclass(frozen=True, slots=True)
class Act:
    """The connection's answer ``action`` (the gateway checked its shape) to prompt ``seq``."""

    node: str
    conn: str
    seq: int
    action: dict[str, Any]

    def to_wire(self) -> dict[str, Any]:
        """The message as a JSON object."""
        return {"op": "act", "node": self.node, "conn": self.conn, "seq": self.seq, "a": self.action}


@dataclass(frozen=True, slots=True)
class Resync:
    """Send the connection the events from ``from_v`` on again, then its prompt."""

    node: str
    conn: str
    from_v: int

    def to_wire(self) -> dict[str, Any]:
        """The message as a JSON object."""
        return {"op": "resync", "node": self.node, "conn": self.conn, "from": self.from_v}


@dataclass(frozen=True, slots=True)
class NextHand:
    """The connection's seat is ready for the next hand (it has the events up to ``v``)."""

    node: str
    conn: str
    v: int

    def to_wire(self) -> dict[str, Any]:
        """The message as a JSON object."""
        return {"op": "next_hand", "node": self.node, "conn": self.conn, "v": self.v}


@dataclass(frozen=True, slots=True)
class Resume:
    """The connection's seat is taken back from autoplay."""

    node: str
    conn: str

    def to_wire(self) -> dict[str, Any]:
        """The message as a JSON object."""
        return {"op": "resume", "node": self.node, "conn": self.conn}


@dataclass(frozen=True, slots=True)
class Coach:
    """Turn the coach on or off for the connection's seat (the owner's table decides whether
    the match offers one, and answers ``no_coach`` where it does not)."""

    node: str
    conn: str
    on: bool

    def to_wire(self) -> dict[str, Any]:
        """The message as a JSON object."""
        return {"op": "coach", "node": self.node, "conn": self.conn, "on": self.on}


@dataclass(frozen=True, slots=True)
class Stamp:
    """The connection's seat sends stamp ``stamp`` (one of ``protocol.STAMPS``); the owner's
    table decides whether it may (``no_stamps``), counts it against the seat's allowance and
    shows it to the whole table, this connection included, through the relay."""

    node: str
    conn: str
    stamp: str

    def to_wire(self) -> dict[str, Any]:
        """The message as a JSON object."""
        return {"op": "stamp", "node": self.node, "conn": self.conn, "id": self.stamp}


@dataclass(frozen=True, slots=True)
class Leave:
    """The connection left (its socket closed)."""

    node: str
    conn: str

    def to_wire(self) -> dict[str, Any]:
        """The message as a JSON object."""
        return {"op": "leave", "node": self.node, "conn": self.conn}


@dataclass(frozen=True, slots=True)
class End:
    """The operator ends the match now (``sanma admin end``); ``reason`` is for the log."""

    reason: str

    def to_wire(self) -> dict[str, Any]:
        """The message as a JSON object."""
        return {"op": "end", "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Bar:
    """On ``ADMIN_CHANNEL``: the operator barred ``guest``; every process closes its sockets."""

    guest: str

    def to_wire(self) -> dict[str, Any]:
        """The message as a JSON object."""
        return {"op": "bar", "guest": self.guest}


RoomMessage = Probe | Speed | Join | Watch | Act | Resync | NextHand | Resume | Coach | Stamp | Leave | End
"""A message on a room's channel."""

ADMIN_CHANNEL: Final = "admin"
"""The channel every process listens on for the operator's ``Bar``."""


def parse(data: Any) -> RoomMessage | Bar:
    """The message a JSON object from a room's channel holds; ``BadBusMessage`` says what is wrong.

    >>> parse({"op": "act", "node": "n1", "conn": "c1", "seq": 4, "a": {"type": "pass"}})
    Act(node='n1', conn='c1', seq=4, action={'type': 'pass'})
    >>> parse(Join("n1", "c1", 0, None).to_wire()) == Join("n1", "c1", 0, None)
    True
    """
    if not isinstance(data, dict):
        raise BadBusMessage("a bus message is a JSON object")
    op = data.get("op")
    if op == "probe":
        return Probe()
    if op == "speed":
        return Speed(_text(data, "node"), _text(data, "speed"))
    if op == "end":
        reason = data.get("reason")
        if not isinstance(reason, str):
            raise BadBusMessage("reason is a string")
        return End(reason)
    if op == "bar":
        return Bar(_text(data, "guest"))
    node, conn = _text(data, "node"), _text(data, "conn")
    if op == "join":
        seat = data.get("seat")
        return Join(node, conn, _count(data, "last_v"), None if seat is None else _count(data, "seat"))
    if op == "watch":
        return Watch(node, conn, _count(data, "last_v"))
    if op == "act":
        action = data.get("a")
        if not isinstance(action, dict):
            raise BadBusMessage("a is a JSON object")
        return Act(node, conn, _count(data, "seq"), action)
    if op == "resync":
        return Resync(node, conn, _count(data, "from"))
    if op == "next_hand":
        return NextHand(node, conn, _count(data, "v"))
    if op == "resume":
        return Resume(node, conn)
    if op == "coach":
        on = data.get("on")
        if not isinstance(on, bool):
            raise BadBusMessage("on is true or false")
        return Coach(node, conn, on)
    if op == "stamp":
        stamp = data.get("id")
        if not isinstance(stamp, str) or stamp not in STAMPS:
            raise BadBusMessage("id is one of the stamps")
        return Stamp(node, conn, stamp)
    if op == "leave":
        return Leave(node, conn)
    raise BadBusMessage(f"unknown op {op!r:.40}")


def _text(data: dict[str, Any], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str) or not value:
        raise BadBusMessage(f"{name} is a non-empty string")
    return value


def _count(data: dict[str, Any], name: str) -> int:
    value = data.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX_INT:
        raise BadBusMessage(f"{name} is a non-negative integer")
    return value
