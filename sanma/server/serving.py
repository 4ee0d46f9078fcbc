"""The one uvicorn configuration of the server (``sanma serve``, tests and benchmarks use it).

- ``proxy_headers=False``: uvicorn would otherwise believe ``X-Forwarded-For`` from loopback
  peers; the client's address comes from ``server/netaddr.py`` alone (``SANMA_TRUSTED_PROXIES``).
- A header deadline (``SANMA_HEADER_TIMEOUT``, 5 s): a connection that has not sent a whole
  request head that long after it opened, or after the first byte of its next request, is
  closed.  uvicorn's h11 protocol has no such timer (its keep-alive timer stops at the first
  byte), so one client could hold a file descriptor for ever with half a header.
- ``timeout_keep_alive`` (``SANMA_KEEP_ALIVE``) between requests, and the largest header
  block h11 buffers (``SANMA_MAX_HEADER_BYTES``).  The body's own deadline is the app's
  (``app.BodyLimit``, ``SANMA_BODY_TIMEOUT``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from sanma.server.settings import Settings
from sanma.server.ws import WebSocketProtocol

log = logging.getLogger(__name__)


class DeadlineH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline (``header_timeout_s``) on whatever the client owes
    while the app is not running: a request head (from the connection's start, or from the
    first byte of the next request on a kept-alive connection), or the rest of a body that the
    app answered without reading."""

    header_timeout_s: float = 5.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._deadline: asyncio.TimerHandle | None = None
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._deadline is None and self._owed():
            self._arm()
        super().data_received(data)
        if not self._owed():  # the head is in (an upgrade to the WebSocket included)
            self._cancel()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.conn.their_state is h11.IDLE or not self._owed():
            self._cancel()  # kept alive: uvicorn's keep-alive timer runs until the next byte
        elif self._deadline is None:
            self._arm()  # answered, but the client still owes the body

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """A request h11 cannot parse (a malformed head, a ``Content-Length`` that is not a
        number, ...): 400 in the API's error shape, then the connection closes."""
        body = json.dumps({"error": "bad_request", "detail": "not a valid HTTP/1.1 request"}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        events = (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"), h11.Data(data=body))
        try:
            for event in (*events, h11.EndOfMessage()):
                self.transport.write(self.conn.send(event) or b"")
        except h11.LocalProtocolError:  # a response was already under way: just close
            pass
        self.transport.close()

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


def protocol_for(settings: Settings) -> type[H11Protocol]:
    """``DeadlineH11Protocol`` with the settings' header deadline."""
    return type("SanmaH11Protocol", (DeadlineH11Protocol,), {"header_timeout_s": settings.header_timeout_s})


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
