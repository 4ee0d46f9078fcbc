"""The wire protocol's frames (``docs/protocol.md``): parsing client frames, and one class per
server frame (``to_wire()`` gives its JSON object, ``encode()`` its text).

Every client frame is checked here before anything acts on it: size, JSON, schema.  A
frame that fails gets an ``error`` frame with a ``code``; nothing else happens.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Final

from sanma.engine.fairness import FAIR_VERSION
from sanma.server.codec import BadAction, normalize_action

PROTOCOL_VERSION: Final = 1

# Error codes (docs/protocol.md lists what each means).
TOO_BIG: Final = "too_big"
BAD_FRAME: Final = "bad_frame"
BAD_JSON: Final = "bad_json"
BAD_SCHEMA: Final = "bad_schema"
RATE_LIMITED: Final = "rate_limited"
HELLO_FIRST: Final = "hello_first"
ALREADY_JOINED: Final = "already_joined"
UNAUTHORIZED: Final = "unauthorized"
NO_MATCH: Final = "no_match"
STALE_SEQ: Final = "stale_seq"
ILLEGAL_ACTION: Final = "illegal_action"
ROOM_FAILED: Final = "room_failed"
TOO_MANY_SOCKETS: Final = "too_many_sockets"
BARRED: Final = "barred"  # the server's operator barred the guest (``sanma admin bar``)
NO_COACH: Final = "no_coach"  # the coach is offered at practice tables only (docs/coach.md)
NO_STAMPS: Final = "no_stamps"  # stamps come from a seated player at a table that allows them (docs/rooms.md)

# The stamps a seated player may send (docs/rooms.md, "Stamps"): a fixed set of friendly
# reactions, drawn by the client's own SVG (web/src/stamps.js), never free text to strangers.
STAMPS: Final = ("hello", "nice", "thanks", "sorry", "wow", "think", "gg", "cry")

# WebSocket close codes of the server's own (4000-4999 are the application's; docs/protocol.md).
CLOSE_HELLO_TIMEOUT: Final = 4000  # no accepted hello within SANMA_HELLO_TIMEOUT seconds
CLOSE_TOO_SLOW: Final = 4001  # the client read too slowly: its outgoing queue was full
CLOSE_TOO_MANY: Final = 4002  # too many sockets for this guest or this address
CLOSE_BARRED: Final = 4003  # the server's operator barred the guest (its open sockets too)
CLOSE_FLOOD: Final = 1008  # policy violation: a long run of rate-limited frames


class ProtocolError(Exception):
    """A client frame that cannot be accepted; becomes an ``error`` frame."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Hello:
    """Join ``match`` as the guest holding ``token``; ``last_v`` events are already known."""

    token: str
    match: str
    last_v: int


@dataclass(frozen=True, slots=True)
class Act:
    """Answer prompt ``seq`` with ``action`` (canonical wire form)."""

    seq: int
    action: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Resync:
    """Send the events from version ``from_v`` on again, then the current prompt."""

    from_v: int


@dataclass(frozen=True, slots=True)
class Ping:
    """Keep-alive; answered with ``pong``."""


# Pacing of the bots' moves: each speed scales the server's bot delay (instant: none).
SPEEDS: Final = {"normal": 1.0, "fast": 0.35, "instant": 0.0}


@dataclass(frozen=True, slots=True)
class Speed:
    """Pace the bots of the joined match: ``normal``, ``fast`` or ``instant``."""

    speed: str


@dataclass(frozen=True, slots=True)
class NextHand:
    """The player has read the hand's result (its events up to ``v``): deal the next hand
    once the others are ready too (``docs/rooms.md``, "Between hands")."""

    v: int


@dataclass(frozen=True, slots=True)
class Resume:
    """The player takes the seat back from autoplay."""


@dataclass(frozen=True, slots=True)
class CoachToggle:
    """Turn the coach on or off at the joined practice match (``docs/coach.md``)."""

    on: bool


@dataclass(frozen=True, slots=True)
class SendStamp:
    """Show stamp ``stamp`` (one of ``STAMPS``) beside the connection's seat, to the whole table."""

    stamp: str


ClientFrame = Hello | Act | Resync | Ping | Speed | NextHand | Resume | CoachToggle | SendStamp
_MAX_INT: Final = 2**53  # what a browser's JSON numbers hold exactly


def parse_client_frame(text: str, max_bytes: int) -> ClientFrame:
    """Check and read one client text frame; ``ProtocolError`` says what is wrong.

    >>> parse_client_frame('{"t":"act","seq":3,"a":{"type":"pass"}}', 4096)
    Act(seq=3, action={'type': 'pass'})
    """
    if len(text) > max_bytes or len(text.encode("utf-8")) > max_bytes:
        raise ProtocolError(TOO_BIG, f"frames are at most {max_bytes} bytes")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError(BAD_JSON, "the frame is not JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError(BAD_SCHEMA, "a frame is a JSON object")
    kind = data.get("t")
    if kind == "hello":
        _fields(data, {"t", "token", "match", "last_v"}, {"t", "token", "match"})
        return Hello(_text(data, "token", 256), _text(data, "match", 64), _count(data, "last_v", 0))
    if kind == "act":
        _fields(data, {"t", "seq", "a"}, {"t", "seq", "a"})
        try:
            action = normalize_action(data["a"])
        except BadAction as exc:
            raise ProtocolError(BAD_SCHEMA, f"a: {exc}") from None
        return Act(_count(data, "seq", None), action)
    if kind == "resync":
        _fields(data, {"t", "from"}, {"t", "from"})
        return Resync(_count(data, "from", None))
    if kind == "ping":
        _fields(data, {"t"}, {"t"})
        return Ping()
    if kind == "speed":
        _fields(data, {"t", "speed"}, {"t", "speed"})
        if not isinstance(data["speed"], str) or data["speed"] not in SPEEDS:
            raise ProtocolError(BAD_SCHEMA, f"speed is one of {', '.join(SPEEDS)}")
        return Speed(data["speed"])
    if kind == "next_hand":
        _fields(data, {"t", "v"}, {"t", "v"})
        return NextHand(_count(data, "v", None))
    if kind == "resume":
        _fields(data, {"t"}, {"t"})
        return Resume()
    if kind == "coach":
        _fields(data, {"t", "on"}, {"t", "on"})
        if not isinstance(data["on"], bool):
            raise ProtocolError(BAD_SCHEMA, "on is true or false")
        return CoachToggle(data["on"])
    if kind == "stamp":
        _fields(data, {"t", "id"}, {"t", "id"})
        if not isinstance(data["id"], str) or data["id"] not in STAMPS:
            raise ProtocolError(BAD_SCHEMA, f"id is one of {', '.join(STAMPS)}")
        return SendStamp(data["id"])
    raise ProtocolError(BAD_SCHEMA, f"unknown frame type {kind!r:.20}")


def _fields(data: dict[str, Any], allowed: set[str], required: set[str]) -> None:
    missing = required - set(data)
    if missing:
        raise ProtocolError(BAD_SCHEMA, f"missing field(s) {sorted(missing)}")
    extra = set(data) - allowed
    if extra:
        raise ProtocolError(BAD_SCHEMA, f"unexpected field(s) {sorted(extra)!r:.60}")


def _text(data: dict[str, Any], name: str, longest: int) -> str:
    value = data[name]
    if not isinstance(value, str) or not 0 < len(value) <= longest:
        raise ProtocolError(BAD_SCHEMA, f"{name} is a non-empty string of at most {longest} characters")
    return value


def _count(data: dict[str, Any], name: str, default: int | None) -> int:
    value = data.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX_INT:
        raise ProtocolError(BAD_SCHEMA, f"{name} is a non-negative integer")
    return value


# -- server frames -------------------------------------------------------------------------


class Frame:
    """A server frame: ``to_wire()`` is its JSON object (keys in the documented order)."""

    __slots__ = ()

    def to_wire(self) -> dict[str, Any]:
        """The frame as a JSON object."""
        raise NotImplementedError

    def encode(self) -> str:
        """The frame's JSON text, as it goes on the socket.

        >>> Pong().encode()
        '{"t":"pong"}'
        """
        return wire_text(self.to_wire())


ServerFrame = Frame | str
"""A frame for a client: a ``Frame``, or one already encoded as JSON text (a room's events,
encoded once per viewer and shared by every connection of that viewer)."""


def wire_text(data: dict[str, Any]) -> str:
    """Compact JSON text of a frame's object (also of one relayed from another process)."""
    return json.dumps(data, separators=(",", ":"))


def encode(frame: ServerFrame) -> str:
    """The JSON text of a server frame (an encoded one as it is).

    >>> encode(Pong()), encode('{"t":"pong"}')
    ('{"t":"pong"}', '{"t":"pong"}')
    """
    return frame if isinstance(frame, str) else frame.encode()


@dataclass(frozen=True, slots=True)
class Pong(Frame):
    """The answer to a ``ping``."""

    def to_wire(self) -> dict[str, Any]:
        """See ``Frame.to_wire``."""
        return {"t": "pong"}


@dataclass(frozen=True, slots=True)
class Error(Frame):
    """A refused frame (``code``: one of the error codes above), with the ``seq`` of the
    answer it concerns, or the ``retry_ms`` before the next frame is accepted; ``about``:
    the kind of frame refused where it is not an answer (``"stamp"``: the client sends
    nothing again, unlike an answer dropped for the frame rate)."""

    code: str
    detail: str
    seq: int | None = None
    retry_ms: int | None = None
    about: str | None = None

    def to_wire(self) -> dict[str, Any]:
        """See ``Frame.to_wire``."""
        wire: dict[str, Any] = {"t": "error", "code": self.code, "detail": self.detail}
        if self.seq is not None:
            wire["seq"] = self.seq
        if self.retry_ms is not None:
            wire["retry_ms"] = self.retry_ms
        if self.about is not None:
            wire["about"] = self.about
        return wire


@dataclass(frozen=True, slots=True)
class Player:
    """One seat of a friend room's or a quick match's welcome: a guest's display name (and at a
    quick match its rank code, ``docs/ranks.md``), or a bot's level."""

    seat: int
    name: str | None
    bot_level: str | None
    rank: str | None = None

    def to_wire(self) -> dict[str, Any]:
        """The welcome's ``players`` entry (``rank`` only where there is one: a friend room's
        welcome is as it was)."""
        entry: dict[str, Any] = {"seat": self.seat, "name": self.name, "bot_level": self.bot_level}
        if self.rank is not None:
            entry["rank"] = self.rank
        return entry


@dataclass(frozen=True, slots=True)
class Welcome(Frame):
    """After a good hello: the match at version ``v``, seen from ``seat``.  A spectator's has
    ``spectator`` (and seat 0), and ``open_hands`` when it is shown every tile a hand behind;
    a friend room's has its ``players``; ``stamps``: the seat may send stamps (its table's
    seating allows them; never a spectator)."""

    match: str
    kind: str
    seat: int
    v: int
    bot_level: str
    spectator: bool = False
    players: tuple[Player, ...] | None = None
    open_hands: bool = False
    stamps: bool = False

    def to_wire(self) -> dict[str, Any]:
        """See ``Frame.to_wire``."""
        wire: dict[str, Any] = {
            "t": "welcome",
            "protocol": PROTOCOL_VERSION,
            "match": self.match,
            "kind": self.kind,
            "seat": self.seat,
        }
        if self.spectator:
            wire["spectator"] = True
        if self.open_hands:
            wire["open_hands"] = True
        wire |= {"v": self.v, "bot_level": self.bot_level}
        if self.players is not None:
            wire["players"] = [p.to_wire() for p in self.players]
        if self.stamps:
            wire["stamps"] = True
        return wire


@dataclass(frozen=True, slots=True)
class Timer:
    """The time a prompt leaves: ``turn_s`` of the turn, then ``bank_s`` of the hand's bank."""

    turn_s: float
    bank_s: float

    def to_wire(self) -> dict[str, Any]:
        """The prompt's ``timer`` (hundredths of a second)."""
        return {"turn_s": round(self.turn_s, 2), "bank_s": round(self.bank_s, 2)}


@dataclass(frozen=True, slots=True)
class Prompt(Frame):
    """A human seat is awaited: prompt ``seq`` at version ``v``, its legal actions (wire form),
    the default, the aids, and the ``timer`` where the match has turn timers."""

    seq: int
    v: int
    legal: tuple[dict[str, Any], ...]
    default: dict[str, Any]
    aids: dict[str, Any] = field(default_factory=dict)
    timer: Timer | None = None

    def to_wire(self) -> dict[str, Any]:
        """See ``Frame.to_wire``."""
        wire: dict[str, Any] = {
            "t": "prompt",
            "seq": self.seq,
            "v": self.v,
            "legal": list(self.legal),
            "default": self.default,
            "aids": self.aids,
        }
        if self.timer is not None:
            wire["timer"] = self.timer.to_wire()
        return wire


@dataclass(frozen=True, slots=True)
class Coach(Frame):
    """The coach's advice on prompt ``seq`` (sent after it, when ready; only to that seat):
    the hand's ``shanten`` and the master's top ``choices``, each with its reason and its
    action in wire form (``a``); ``priced``: the runners-up follow the master's prices."""

    seq: int
    shanten: int
    priced: bool
    choices: tuple[dict[str, Any], ...]

    def to_wire(self) -> dict[str, Any]:
        """See ``Frame.to_wire``."""
        return {
            "t": "coach",
            "seq": self.seq,
            "shanten": self.shanten,
            "priced": self.priced,
            "choices": list(self.choices),
        }


@dataclass(frozen=True, slots=True)
class CoachState(Frame):
    """Whether the coach is on for the connection's seat (the answer to a ``coach`` frame,
    and part of the state a joining connection gets)."""

    on: bool

    def to_wire(self) -> dict[str, Any]:
        """See ``Frame.to_wire``."""
        return {"t": "coach_state", "on": self.on}


@dataclass(frozen=True, slots=True)
class Stamp(Frame):
    """Seat ``seat`` sent stamp ``stamp`` (to every seat and spectator of the table; not an
    event: no ``v``, never stored, nothing changes in the match)."""

    seat: int
    stamp: str

    def to_wire(self) -> dict[str, Any]:
        """See ``Frame.to_wire``."""
        return {"t": "stamp", "seat": self.seat, "id": self.stamp}


@dataclass(frozen=True, slots=True)
class Expired(Frame):
    """Prompt ``seq``'s time ran out (or its seat is away): ``action`` was played for it."""

    seq: int
    action: dict[str, Any]

    def to_wire(self) -> dict[str, Any]:
        """See ``Frame.to_wire``."""
        return {"t": "expired", "seq": self.seq, "a": self.action}


@dataclass(frozen=True, slots=True)
class Presence(Frame):
    """What the others see of ``seat``: ``connected``, ``away``, ``auto`` or ``bot``."""

    seat: int
    state: str

    def to_wire(self) -> dict[str, Any]:
        """See ``Frame.to_wire``."""
        return {"t": "presence", "seat": self.seat, "state": self.state}


@dataclass(frozen=True, slots=True)
class HandBreak(Frame):
    """Between hands: the hand ended at version ``v``; the seats ``ready`` for the next one and
    those still ``waiting``; ``left_s`` until the countdown deals it anyway (``None``: none)."""

    v: int
    ready: tuple[int, ...]
    waiting: tuple[int, ...]
    left_s: float | None

    def to_wire(self) -> dict[str, Any]:
        """See ``Frame.to_wire``."""
        left = None if self.left_s is None else round(self.left_s, 2)
        ready, waiting = list(self.ready), list(self.waiting)
        return {"t": "hand_break", "v": self.v, "ready": ready, "waiting": waiting, "left_s": left}


@dataclass(frozen=True, slots=True)
class EventFrame(Frame):
    """One event (wire form, already redacted) at version ``v``."""

    v: int
    event: dict[str, Any]

    def to_wire(self) -> dict[str, Any]:
        """See ``Frame.to_wire``."""
        return {"t": "event", "v": self.v, "e": self.event}


# -- provably fair walls (sanma-fair-v2; docs/protocol.md, "Fair walls") -----------------------
# Not events: they carry no ``v``; each goes right after the event it belongs to.  Nothing
# that opens a commitment goes before ``MatchEnded``.


@dataclass(frozen=True, slots=True)
class FairMatch(Frame):
    """After ``MatchStarted``: the commitment to the match seed."""

    commitment: str

    def to_wire(self) -> dict[str, Any]:
        """See ``Frame.to_wire``."""
        return {"t": "fair_match", "algorithm": FAIR_VERSION, "commitment": self.commitment}


@dataclass(frozen=True, slots=True)
class FairHand(Frame):
    """After hand ``hand``'s ``HandStarted``: its commitment."""

    hand: int
    wall_digest: str
    commitment: str

    def to_wire(self) -> dict[str, Any]:
        """See ``Frame.to_wire``."""
        return {"t": "fair_hand", "hand": self.hand, "wall_digest": self.wall_digest, "commitment": self.commitment}


@dataclass(frozen=True, slots=True)
class FairSeed(Frame):
    """After ``MatchEnded``: the seed, the match salt and each hand's salt (``hand_salts[k]``
    for hand k, every hand played), which open every commitment sent; sanma-wall-v1 rebuilds
    each hand's deal from the seed.  The seed goes as a string: 64 bits do not fit a
    browser's JSON numbers."""

    seed: int
    salt: str
    commitment: str
    hand_salts: tuple[str, ...]

    def to_wire(self) -> dict[str, Any]:
        """See ``Frame.to_wire``."""
        return {
            "t": "fair_seed",
            "algorithm": FAIR_VERSION,
            "seed": str(self.seed),
            "salt": self.salt,
            "commitment": self.commitment,
            "hands": len(self.hand_salts),
            "hand_salts": list(self.hand_salts),
        }
