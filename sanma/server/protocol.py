"""The wire protocol's frames (``docs/protocol.md``): parsing client frames, building server ones.

Every client frame is checked here before anything acts on it: size, JSON, schema.  A
frame that fails gets an ``error`` frame with a ``code``; nothing else happens.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

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

# WebSocket close codes of the server's own (4000-4999 are the application's; docs/protocol.md).
CLOSE_HELLO_TIMEOUT: Final = 4000  # no accepted hello within SANMA_HELLO_TIMEOUT seconds
CLOSE_TOO_SLOW: Final = 4001  # the client read too slowly: its outgoing queue was full
CLOSE_TOO_MANY: Final = 4002  # too many sockets for this guest or this address
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


ClientFrame = Hello | Act | Resync | Ping | Speed
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


ServerFrame = dict[str, Any] | str
"""A frame for a client: a dict, or the same already encoded as JSON text (a room's events,
encoded once per viewer and shared by every connection of that viewer)."""


def encode(frame: ServerFrame) -> str:
    """The JSON text of a server frame (an encoded one as it is).

    >>> encode({"t": "pong"}), encode('{"t":"pong"}')
    ('{"t":"pong"}', '{"t":"pong"}')
    """
    return frame if isinstance(frame, str) else json.dumps(frame, separators=(",", ":"))


def error_frame(code: str, detail: str, **extra: Any) -> dict[str, Any]:
    """``{"t": "error", "code": ..., "detail": ...}`` (plus e.g. the ``seq`` it concerns)."""
    return {"t": "error", "code": code, "detail": detail, **extra}


def event_frame(v: int, event: dict[str, Any]) -> dict[str, Any]:
    """One event (wire form, already redacted) at version ``v``."""
    return {"t": "event", "v": v, "e": event}


# -- provably fair walls (sanma-fair-v1; docs/protocol.md, "Fair walls") -----------------------
# Not events: they carry no ``v``; each goes right after the event it belongs to.


def fair_match_frame(commitment: str) -> dict[str, Any]:
    """After ``MatchStarted``: the commitment to the match seed."""
    return {"t": "fair_match", "algorithm": "sanma-fair-v1", "commitment": commitment}


def fair_hand_frame(hand: int, wall_digest: str, commitment: str) -> dict[str, Any]:
    """After hand ``hand``'s ``HandStarted``: its commitment."""
    return {"t": "fair_hand", "hand": hand, "wall_digest": wall_digest, "commitment": commitment}


def fair_reveal_frame(hand: int, salt: str, deal: dict[str, Any]) -> dict[str, Any]:
    """After the event that ends hand ``hand``: its deal (tile ids) and salt."""
    return {"t": "fair_reveal", "hand": hand, "salt": salt, "deal": deal}


def fair_seed_frame(seed: int, salt: str, commitment: str, hands: int) -> dict[str, Any]:
    """After ``MatchEnded``: the seed and the match salt (``hands`` hands were played).  The
    seed goes as a string: 64 bits do not fit a browser's JSON numbers."""
    return {"t": "fair_seed", "seed": str(seed), "salt": salt, "commitment": commitment, "hands": hands}
