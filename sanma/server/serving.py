"""The one uvicorn configuration of the server (``sanma serve``, tests and benchmarks use it).

- ``proxy_headers=False``: uvicorn would otherwise believe ``X-Forwarded-For`` from loopback
  peers; the client's address comes from ``server/netaddr.py`` alone (``SANMA_TRUSTED_PROXIES``).
- A header deadline (``SANMA_HEADER_TIMEOUT``, 5 s): a connection that has not sent a whole
  request head that long after it opened, or after the first byte of its next request, is
  closed.  uvicorn's h11 protocol has no such timer (its keep-alive timer stops at the first
  byte), so one client could hold a file descriptor for ever with half a header.
- ``timeout_keep_alive`` (``SANMA_KEEP_ALIVE``) between requests, and the largest header
  block h11 buffers (``SANMA_MAX_HEADER_BYTES``).  The body's own deadline is the app's
  (``edge.BodyLimit``, ``SANMA_BODY_TIMEOUT`` and ``SANMA_BODY_MIN_RATE``).
- A cap on plain-HTTP connections open at once per client address
  (``SANMA_HTTP_CONNECTIONS_PER_ADDRESS``), counted here by the TCP peer before any byte is
  parsed: the refused connection gets a canned ``503 too_many_connections`` and is closed.
  Peers in ``SANMA_TRUSTED_PROXIES`` are not capped (a proxy carries many clients; the app's
  meters see the clients behind it).  A connection stops counting when it becomes a WebSocket:
  those have their own caps per guest and per address (``server/ws.py``), and a player's
  socket should not use up the allowance of the page's own requests.
- An answer that closes the connection while the client is still sending its body (a ``413``
  of ``edge.BodyLimit``, sent before the body is read): closing a socket with unread bytes resets
  the connection, and the client, or a proxy (nginx answers ``502``), may lose the answer.  The
  rest is read and dropped after a half-close, for ``UNREAD_BODY_LINGER_S`` and up to
  ``LINGER_BYTES`` at most, as for the cap's refusal.
- The protocol's own refusals (a request h11 cannot parse, the cap) carry the security headers
  as every answer of the app does, and their log lines go through a ``ThrottledLog``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import Counter
from typing import Any, ClassVar

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from sanma.server.edge import refusal_headers
from sanma.server.netaddr import IPNetwork, address_key, parse_address, parse_proxies
from sanma.server.settings import Settings
from sanma.server.throttlelog import ThrottledLog
from sanma.server.ws import WebSocketProtocol

log = logging.getLogger(__name__)
# Seconds a connection refused by the per-address cap is read (and its bytes dropped) after
# the 503, before it is closed (``DeadlineH11Protocol._admit``): its request is small.
REFUSED_LINGER_S = 1.0
# Seconds the rest of a body is read and dropped after an answer that did not wait for it
# (``DeadlineH11Protocol.close_answered``): a proxy sends a body it buffered in milliseconds,
# a client at the slowest rate a body may come (``SANMA_BODY_MIN_RATE``, 512 KiB/s) 1 MiB.
UNREAD_BODY_LINGER_S = 2.0
# The most bytes a lingering connection is read for: twice the largest body a route takes (a
# 2 MiB log file); a client sending more is cut off (and may lose the answer).
LINGER_BYTES = 4 * 1024 * 1024
# uvicorn's line for a request h11 cannot parse, written once per such request: ours is throttled.
_UVICORN_INVALID = "Invalid HTTP request received."


class DeadlineH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline (``header_timeout_s``) on whatever the client owes
    while the app is not running: a request head (from the connection's start, or from the
    first byte of the next request on a kept-alive connection), or the rest of a body that the
    app answered without reading."""

    header_timeout_s: float = 5.0
    # The cap's state, one per server (``protocol_for`` makes a class per settings).
    per_address: ClassVar[int] = 32
    trusted: ClassVar[tuple[IPNetwork, ...]] = ()
    open_by_address: ClassVar[Counter[str]] = Counter()
    quiet: ClassVar[ThrottledLog] = ThrottledLog(log)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.logger = _ThrottledUvicornLog(self.logger, self)  # type: ignore[assignment]
        self._counted: str | None = None
        self._lingering: asyncio.TimerHandle | None = None  # answered: reading only to drop
        self._linger_left = LINGER_BYTES

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._deadline: asyncio.TimerHandle | None = None
        if not self._admit():
            return
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._lingering is not None:  # dropped, so that the close does not reset the answer
            self._linger_left -= len(data)
            if self._linger_left < 0:
                self.transport.close()
            return
        if self._deadline is None and self._owed():
            self._arm()
        super().data_received(data)
        if not self._owed():  # the head is in (an upgrade to the WebSocket included)
            self._cancel()

    def handle_events(self) -> None:
        super().handle_events()
        # A new request's cycle (its task has not run yet) closes through close_answered.
        if self.cycle is not None and not isinstance(self.cycle.transport, _CycleTransport):
            self.cycle.transport = _CycleTransport(self)  # type: ignore[assignment]

    def close_answered(self) -> None:
        """The request cycle's close, once its answer is written.  A client still sending the
        body the app did not read gets a half-close (the answer is whole) and the rest of its
        body is dropped as it comes, until it closes or ``UNREAD_BODY_LINGER_S`` has passed
        or it sent ``LINGER_BYTES``; then the connection is closed."""
        if self.conn.their_state is h11.SEND_BODY and self._lingering is None and not self.transport.is_closing():
            self._linger(UNREAD_BODY_LINGER_S)
        else:
            self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._lingering is not None:
            self._unset_keepalive_if_required()  # the linger's own bounds end it
            self._cancel()
            return
        if self.conn.their_state is h11.IDLE or not self._owed():
            self._cancel()  # kept alive: uvicorn's keep-alive timer runs until the next byte
        elif self._deadline is None:
            self._arm()  # answered, but the client still owes the body

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel()
        self._release()
        if self._lingering is not None:
            self._lingering.cancel()
        super().connection_lost(exc)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._release()  # from here on server/ws.py's caps count it (the h11 protocol is done with it)
        super().handle_websocket_upgrade(event)

    def send_400_response(self, msg: str) -> None:
        """A request h11 cannot parse (a malformed head, a ``Content-Length`` that is not a
        number, ...): 400 in the API's error shape, then the connection closes."""
        peer = self._peer()  # (msg is uvicorn's "Invalid HTTP request received.": nothing more)
        self.quiet.write(logging.WARNING, "bad_request", peer, "refused a request from %s: not valid HTTP/1.1", peer)
        body = json.dumps({"error": "bad_request", "detail": "not a valid HTTP/1.1 request"}).encode()
        headers = refusal_headers(body)
        events = (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"), h11.Data(data=body))
        try:
            for event in (*events, h11.EndOfMessage()):
                self.transport.write(self.conn.send(event) or b"")
        except h11.LocalProtocolError:  # a response was already under way: just close
            pass
        self.transport.close()

    def _admit(self) -> bool:
        """Count this connection against its address; over the cap, answer the canned 503
        and close (no byte of it is parsed).  Closing a socket with unread bytes resets the
        connection, and the client may then lose the 503 it has not read yet: the refused
        connection's bytes are dropped as they come for up to ``REFUSED_LINGER_S`` (its
        request is small unless it is an upload), and the client's own close ends it sooner."""
        address = parse_address(self.client[0]) if self.client else None
        if address is not None and any(address.version == n.version and address in n for n in self.trusted):
            return True  # a reverse proxy: its clients are many
        key = address_key(address)
        if self.open_by_address[key] >= self.per_address:
            self.quiet.write(
                logging.WARNING,
                "too_many_connections",
                key,
                "refused a connection from %s: %d plain-HTTP connections open (SANMA_HTTP_CONNECTIONS_PER_ADDRESS)",
                key,
                self.per_address,
            )
            self.transport.write(_OVER_CAP)
            self._linger(REFUSED_LINGER_S)
            return False
        self.open_by_address[key] += 1
        self._counted = key
        return True

    def _linger(self, seconds: float) -> None:
        """Half-close after an answer, then read and drop what comes (``data_received``) until
        the client closes (uvicorn closes on its end of file), ``seconds`` pass or more than
        ``LINGER_BYTES`` come."""
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.flow.resume_reading()  # uvicorn pauses it while a body waits for the app
        self._lingering = self.loop.call_later(seconds, self.transport.close)

    def _release(self) -> None:
        key, self._counted = self._counted, None
        if key is not None:
            self.open_by_address[key] -= 1
            if self.open_by_address[key] <= 0:
                del self.open_by_address[key]

    def _peer(self) -> str:
        return self.client[0] if self.client else "unknown"

    def _owed(self) -> bool:
        their = self.conn.their_state
        return their is h11.IDLE or (self.conn.our_state is h11.DONE and their is h11.SEND_BODY)

    def _arm(self) -> None:
        self._cancel()
        self._deadline = self.loop.call_later(self.header_timeout_s, self._timed_out)

    def _cancel(self) -> None:
        timer = getattr(self, "_deadline", None)
        if timer is not None:
            timer.cancel()
            self._deadline = None

    def _timed_out(self) -> None:
        self._deadline = None
        if self._owed() and not self.transport.is_closing():
            log.debug("closing a connection that sent no whole request head in %.1f s", self.header_timeout_s)
            self.transport.close()


def _canned(status: int, reason: str, code: str, detail: str) -> bytes:
    body = json.dumps({"error": code, "detail": detail}).encode()
    head = [f"HTTP/1.1 {status} {reason}".encode()]
    head += [name + b": " + value for name, value in refusal_headers(body)]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


_OVER_CAP = _canned(
    503, "Service Unavailable", "too_many_connections", "too many connections from this address; retry after one closes"
)


class _CycleTransport:
    """The transport as a request's cycle (uvicorn's ``RequestResponseCycle``) holds it: the
    protocol's own, but its ``close`` is ``DeadlineH11Protocol.close_answered``."""

    def __init__(self, protocol: DeadlineH11Protocol) -> None:
        self.protocol = protocol

    def close(self) -> None:
        self.protocol.close_answered()

    def __getattr__(self, name: str) -> Any:  # write, is_closing, ...
        return getattr(self.protocol.transport, name)


class _ThrottledUvicornLog(logging.LoggerAdapter):  # type: ignore[type-arg]
    """uvicorn's logger for one connection, less its unthrottled line per unparsable request
    (``send_400_response`` writes a throttled one)."""

    def __init__(self, logger: logging.Logger, protocol: DeadlineH11Protocol) -> None:
        super().__init__(logger, {})
        self.protocol = protocol

    @property
    def level(self) -> int:  # uvicorn reads it to skip its trace lines
        return int(self.logger.level)

    def log(self, level: int, msg: object, *args: object, **kwargs: Any) -> None:
        if msg != _UVICORN_INVALID:
            super().log(level, msg, *args, **kwargs)


def protocol_for(settings: Settings) -> type[H11Protocol]:
    """``DeadlineH11Protocol`` with the settings' header deadline and per-address cap, and a
    count of open connections of its own (one server's)."""
    state = {
        "header_timeout_s": settings.header_timeout_s,
        "per_address": settings.http_connections_per_address,
        "trusted": parse_proxies(settings.trusted_proxies),
        "open_by_address": Counter(),
        "quiet": ThrottledLog(log),
    }
    return type("SanmaH11Protocol", (DeadlineH11Protocol,), state)


def uvicorn_config(app: Any, settings: Settings, **extra: Any) -> uvicorn.Config:
    """The uvicorn config serving ``app`` on the settings' host and port (``extra`` on top,
    e.g. ``lifespan="on"``)."""
    options: dict[str, Any] = {
        "host": settings.host,
        "port": settings.port,
        "log_level": "warning",
        "ws_max_size": settings.ws_max_size,
        "ws": WebSocketProtocol,  # server/ws.py: no traceback per bad frame, a close that cannot hang
        "proxy_headers": False,
        "forwarded_allow_ips": "",
        "http": protocol_for(settings),
        "timeout_keep_alive": settings.keep_alive_s,
        "h11_max_incomplete_event_size": settings.max_header_bytes,
        "server_header": False,
    }
    options.update(extra)
    return uvicorn.Config(app, **options)


def serve(app: Any, settings: Settings, **extra: Any) -> None:
    """Run ``app`` until the server is stopped (``uvicorn.run`` with ``uvicorn_config``)."""
    server = uvicorn.Server(uvicorn_config(app, settings, **extra))
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    if not server.started:
        raise SystemExit(3)  # as uvicorn.run: it could not start (e.g. the port is taken)
