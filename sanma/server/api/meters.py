"""Meters on what one client may create or ask for: guests, friend rooms, practice matches
and log work (the log routes).

Rates are token buckets on the bus (``limits.SharedLimiter``: every server process shares
them), per guest and per client address (``netaddr.client_key``: the peer, or the right-most
untrusted ``X-Forwarded-For`` hop behind ``SANMA_TRUSTED_PROXIES``).  Practice matches are
also counted while they run: at most so many per guest and per address at once, counted by
each process for the matches created through it (a new match is owned by the process that
created it), as those whose room is held by some process (its lease) and whose match has not
ended.  A match left alone leaves memory after its idle time and stops counting.  Beyond any
meter: ``429`` with ``rate_limited`` (a rate) or ``too_many_matches`` (running at once).
Every log route (opening and keeping a file, reading a kept log or a share link, a match's
replay and downloads) counts on one meter per guest and one per address, since each asks a
log worker for work (``server/logwork.py``).
``docs/server.md``, "Limits per client".
"""

from __future__ import annotations

import asyncio
import time
from typing import Annotated

from fastapi import Depends, Request

from sanma.server.api.deps import ApiError, Services, app_object
from sanma.server.limits import SharedLimiter
from sanma.server.netaddr import client_key
from sanma.server.rooms.remote import lease_key
from sanma.store import matches as match_store

HOUR = 3600.0
MINUTE = 60.0


class RunningMatches:
    """The practice matches created through this process, by key (``guest:<id>``,
    ``ip:<address>``), for as long as they run."""

    # Above this many keys, entries older than ``FORGET_AFTER_S`` are forgotten.
    PRUNE_AT = 10_000
    FORGET_AFTER_S = 86_400.0

    def __init__(self, app: Services) -> None:
        self._app = app
        self._by_key: dict[str, list[tuple[str, float]]] = {}
        self._pending: dict[str, int] = {}

    async def count(self, key: str) -> int:
        """How many of ``key``'s matches run now (those being created included); forgets the rest."""
        checked = [m for m, _ in self._by_key.get(key, [])]
        running = await self._running(checked) if checked else set()
        gone = set(checked) - running
        # Entries added while this looked are kept: they were not checked.
        kept = [(m, at) for m, at in self._by_key.get(key, []) if m not in gone]
        if kept:
            self._by_key[key] = kept
        else:
            self._by_key.pop(key, None)
        return len(kept) + self._pending.get(key, 0)

    def reserve(self, keys: tuple[str, ...]) -> None:
        """A match for ``keys`` is being created (counted until ``settle``)."""
        for key in keys:
            self._pending[key] = self._pending.get(key, 0) + 1

    def settle(self, keys: tuple[str, ...], match_id: str | None) -> None:
        """The match reserved for ``keys`` exists (``match_id``) or failed (``None``)."""
        now = time.monotonic()
        for key in keys:
            left = self._pending.get(key, 0) - 1
            if left > 0:
                self._pending[key] = left
            else:
                self._pending.pop(key, None)
            if match_id is not None:
                self._by_key.setdefault(key, []).append((match_id, now))
        if len(self._by_key) > self.PRUNE_AT:
            cutoff = now - self.FORGET_AFTER_S
            for key in [k for k, entries in self._by_key.items() if entries[-1][1] < cutoff]:
                del self._by_key[key]

    async def _running(self, match_ids: list[str]) -> set[str]:
        bus = self._app.rooms.bus
        held = match_ids
        if bus is not None:
            owners = await bus.leases.owners([lease_key(m) for m in match_ids])
            held = [m for m, owner in zip(match_ids, owners, strict=True) if owner]
        return await asyncio.to_thread(match_store.playing_among, self._app.engine, held)


class Meters:
    """The creation meters of one app (made on first use: ``meters``)."""

    def __init__(self, app: Services) -> None:
        s, bus = app.settings, app.rooms.bus
        self.settings = s
        self.guests = SharedLimiter(bus, "guests-address", s.guests_per_address_per_h, HOUR)
        self.rooms_by_guest = SharedLimiter(bus, "rooms-guest", s.rooms_per_guest_per_h, HOUR)
        self.rooms_by_address = SharedLimiter(bus, "rooms-address", s.rooms_per_address_per_h, HOUR)
        self.practice_by_guest = SharedLimiter(bus, "practice-guest", s.practice_per_guest_per_min, MINUTE)
        self.practice_by_address = SharedLimiter(bus, "practice-address", s.practice_per_address_per_min, MINUTE)
        self.logs_by_guest = SharedLimiter(bus, "logs-guest", s.logs_per_guest_per_min, MINUTE)
        self.logs_by_address = SharedLimiter(bus, "logs-address", s.logs_per_address_per_min, MINUTE)
        self.running = RunningMatches(app)

    def address(self, request: Request) -> str:
        """The request's client key (``ip:...``)."""
        return client_key(request.scope, self.settings)

    async def new_guest(self, request: Request) -> None:
        """Count a guest creation; 429 beyond the meter."""
        if not await self.guests.hit(self.address(request)):
            raise ApiError(429, "rate_limited", "too many new guests from this address; wait and try again")

    async def new_room(self, request: Request, guest: str) -> None:
        """Count a room opened by ``guest``; 429 beyond either meter (a guest over its own
        meter spends nothing of its address's)."""
        if not (await self.rooms_by_guest.hit(guest) and await self.rooms_by_address.hit(self.address(request))):
            raise ApiError(429, "rate_limited", "too many rooms opened; wait and try again")

    async def log_route(self, request: Request, guest: str | None) -> None:
        """Count a request to a log route (``guest``: ``None`` for a share link, which needs no
        token); 429 beyond either meter."""
        if guest is not None and not await self.logs_by_guest.hit(guest):
            raise ApiError(429, "rate_limited", "too many logs asked for; wait a minute")
        if not await self.logs_by_address.hit(self.address(request)):
            raise ApiError(429, "rate_limited", "too many logs asked for from this address; wait a minute")

    async def new_practice(self, request: Request, guest: str) -> tuple[str, ...]:
        """Count a practice match about to be created by ``guest``; 429 beyond a meter.  The
        keys returned are reserved: pass them to ``RunningMatches.settle`` once it exists."""
        address = self.address(request)
        if not (await self.practice_by_guest.hit(guest) and await self.practice_by_address.hit(address)):
            raise ApiError(429, "rate_limited", "too many practice matches started; wait a minute")
        s = self.settings
        keys = (f"guest:{guest}", address)
        caps = (s.practice_live_per_guest, s.practice_live_per_address)
        for key, cap in zip(keys, caps, strict=True):
            if await self.running.count(key) >= cap:
                raise ApiError(
                    429,
                    "too_many_matches",
                    f"at most {cap} practice matches may run at once; finish one, or leave it a while",
                )
        self.running.reserve(keys)
        return keys


def meters(request: Request) -> Meters:
    """The app's meters (made on first use)."""
    return app_object(request, "meters", Meters)


AppMeters = Annotated[Meters, Depends(meters)]
"""A route parameter: the app's creation meters."""
