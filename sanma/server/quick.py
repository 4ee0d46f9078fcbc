"""The quick match's queue and matchmaker (``docs/quick.md``).

The queue lives on the bus, so every server process of a scaled-out deployment shares it:

- a waiting player holds a **ticket**, the lease ``quick:ticket:<guest>`` whose value is the
  ticket's JSON (its pool, wait, address, rating, since when, and the id of the socket that
  queued it).  The socket renews it every second; a socket that dies (or a process that dies
  with its sockets) stops renewing, and the ticket lapses.  One lease per guest is what stops a
  guest from queuing twice;
- ``quick:waiting`` (a bus set) lists the guests with a ticket, for the matchmaker to read;
- one process at a time is the **matchmaker** (lease ``lease:quick:matchmaker``): every tick
  it reads the tickets, groups them into tables (``group``, pure), takes each table's tickets
  at once (``Leases.release_all``: all or none, so a player who left meanwhile is never
  seated) and hands the table to the process most of its players wait on (``quick:node:<node>``;
  itself when that process does not listen), which starts the match there, so that the rooms
  spread over the processes with their players, and tells each player on its channel
  ``quick:guest:<guest>``.  When the matchmaker dies, another process takes the lease within
  its time to live.

Grouping (``group``): per pool (length, red fives), oldest ticket first, it looks for two
others whose hidden ratings lie within a window that widens as the oldest waits; players from
one client address are put together only when no one else is waiting in the pool.  Once a
ticket's own wait is over, it is seated with whoever is waiting (up to two) and bots of a
level matched to the table's ranks take the rest (``ladder.bot_level_for``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final

from sanma.server.aio import cancel_and_wait
from sanma.server.bus import Bus

log = logging.getLogger(__name__)

WAITING: Final = "quick:waiting"
MATCHMAKER: Final = "lease:quick:matchmaker"
TICKET_TTL_S: Final = 5.0  # a ticket not renewed for this long lapses (its socket is gone)
MATCHMAKER_TTL_S: Final = 3.0
# The rating window (in the model's mu) around the oldest ticket: this wide at once, and this
# much wider for each second it has waited.
BASE_SPREAD: Final = 6.0
SPREAD_PER_S: Final = 1.0


def ticket_key(guest: str) -> str:
    """The lease a waiting guest holds."""
    return f"quick:ticket:{guest}"


def node_channel(node: str) -> str:
    """Where the matchmaker hands a table to the process most of its players wait on."""
    return f"quick:node:{node}"


def guest_channel(guest: str) -> str:
    """Where the matchmaker tells a guest its table (the guest's queue socket listens)."""
    return f"quick:guest:{guest}"


@dataclass(frozen=True, slots=True)
class Ticket:
    """One waiting player: the pool it waits in (``length``, ``red_fives``), how long it waits
    for people before bots (``wait_s``), since when (``since``, wall-clock seconds: processes
    compare it), its client ``address``, its hidden rating ``mu`` and ladder ``rank`` on that
    length, ``socket``, the id of the socket that queued it, and ``node``, the server process
    that socket is on."""

    guest: str
    length: str
    red_fives: bool
    wait_s: float
    since: float
    address: str
    mu: float
    rank: int
    socket: str
    node: str = ""

    @property
    def pool(self) -> tuple[str, bool]:
        """The kind of table it waits for."""
        return self.length, self.red_fives

    def text(self) -> str:
        """The lease's value."""
        return json.dumps(asdict(self), separators=(",", ":"), sort_keys=True)

    @classmethod
    def parse(cls, text: str) -> Ticket | None:
        """A ticket from a lease's value (``None``: not one, e.g. written by another version)."""
        try:
            data = json.loads(text)
            return cls(**data) if isinstance(data, dict) else None
        except (ValueError, TypeError):
            return None


@dataclass(frozen=True, slots=True)
class Table:
    """A table the matchmaker found: its waiting players, oldest first (1 to 3; bots take the
    other seats)."""

    tickets: tuple[Ticket, ...]


# -- grouping (pure) ------------------------------------------------------------------------------


def group(tickets: Sequence[Ticket], now: float) -> list[Table]:
    """The tables to start now from the waiting ``tickets`` (see the module docstring)."""
    pools: dict[tuple[str, bool], list[Ticket]] = {}
    for t in sorted(tickets, key=lambda t: (t.since, t.guest)):
        pools.setdefault(t.pool, []).append(t)
    tables: list[Table] = []
    for waiting in pools.values():
        tables += _group_pool(waiting, now)
    return tables


def _group_pool(waiting: list[Ticket], now: float) -> list[Table]:
    tables: list[Table] = []
    left = list(waiting)
    i = 0
    while i < len(left):
        first = left[i]
        others = left[:i] + left[i + 1 :]
        waited = now - first.since
        due = waited >= first.wait_s
        spread = float("inf") if due else BASE_SPREAD + SPREAD_PER_S * max(0.0, waited)
        chosen = _companions(first, others, spread)
        if len(chosen) == 2 or due:
            table = (first, *chosen)
            tables.append(Table(table))
            left = [t for t in left if t not in table]
            i = 0
        else:
            i += 1  # it waits; the next oldest may still find a table
    return tables


def _companions(first: Ticket, others: list[Ticket], spread: float) -> list[Ticket]:
    """Up to two of ``others`` for ``first``'s table: within ``spread`` of its rating, those of
    another address before those of one already at the table, nearer ratings first.  Two of
    one address sit together only when nobody else in the pool could take the seat."""
    near = [t for t in others if abs(t.mu - first.mu) <= spread]
    chosen: list[Ticket] = []
    for _ in range(2):
        addresses = {first.address, *(t.address for t in chosen)}
        pick = min(
            (t for t in near if t not in chosen),
            key=lambda t: (t.address in addresses, abs(t.mu - first.mu), t.since),
            default=None,
        )
        if pick is None:
            break
        if pick.address in addresses and any(t.address not in addresses for t in others if t not in chosen):
            break  # someone of another address waits (outside the window): wait for them
        chosen.append(pick)
    return chosen


# -- the queue on the bus -------------------------------------------------------------------------


class Queue:
    """The shared queue: tickets as leases, the waiting set, the guests' channels."""

    def __init__(self, bus: Bus) -> None:
        self._bus = bus

    async def join(self, ticket: Ticket) -> bool:
        """Queue ``ticket``; ``False``: the guest already waits on a live socket.  A ticket
        left by a socket that is gone (nobody listens on the guest's channel any more: its
        process died) is taken over."""
        key, text = ticket_key(ticket.guest), ticket.text()
        if not await self._bus.leases.acquire(key, text, TICKET_TTL_S):
            held = await self._bus.leases.owner(key)
            listening = await self._bus.pubsub.listeners([guest_channel(ticket.guest)])
            if held is None or listening[0] > 0:
                return False if held is not None else await self.join(ticket)
            if not await self._bus.leases.release_all([key], [held]):
                return False
            if not await self._bus.leases.acquire(key, text, TICKET_TTL_S):
                return False
        await self._bus.sets.add_member(WAITING, ticket.guest)
        return True

    async def keep(self, ticket: Ticket) -> bool:
        """Renew ``ticket``; ``False``: it is not held any more (taken for a table, or lapsed)."""
        return await self._bus.leases.renew(ticket_key(ticket.guest), ticket.text(), TICKET_TTL_S)

    async def leave(self, ticket: Ticket) -> bool:
        """Give ``ticket`` up (``False``: it was taken for a table meanwhile, or had lapsed)."""
        left = await self._bus.leases.release(ticket_key(ticket.guest), ticket.text())
        if left:
            await self._bus.sets.remove_member(WAITING, ticket.guest)
        return left

    async def tickets(self) -> list[Ticket]:
        """Every live ticket; the guests whose ticket lapsed leave the waiting set."""
        guests = sorted(await self._bus.sets.members(WAITING))
        texts = await self._bus.leases.owners([ticket_key(g) for g in guests])
        live: list[Ticket] = []
        for guest, text in zip(guests, texts, strict=True):
            ticket = None if text is None else Ticket.parse(text)
            if ticket is None:
                await self._bus.sets.remove_member(WAITING, guest)
            else:
                live.append(ticket)
        return live

    async def take(self, table: Table) -> bool:
        """Take the table's tickets out of the queue, all or none."""
        keys = [ticket_key(t.guest) for t in table.tickets]
        if not await self._bus.leases.release_all(keys, [t.text() for t in table.tickets]):
            return False
        for t in table.tickets:
            await self._bus.sets.remove_member(WAITING, t.guest)
        return True

    async def tell(self, guest: str, message: dict[str, Any]) -> int:
        """Send ``message`` to the guest's queue socket (how many processes listened)."""
        return await self._bus.pubsub.publish(guest_channel(guest), message)


StartTable = Callable[[Table], Awaitable[tuple[str, dict[str, int]]]]
"""Starts a table's match: its id and each guest's seat."""


class Matchmaker:
    """Runs in every process; acts while it holds the matchmaker's lease."""

    def __init__(
        self,
        bus: Bus,
        node: str,
        start_table: StartTable,
        *,
        tick_s: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.queue = Queue(bus)
        self._leases = bus.leases
        self._pubsub = bus.pubsub
        self._node = node
        self._start_table = start_table
        self._tick_s = tick_s
        self._clock = clock
        self._task: asyncio.Task[None] | None = None
        self._handed: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start ticking, and starting the tables handed to this process (server startup)."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="quick-matchmaker")
            self._handed = asyncio.create_task(self._take_handed(), name="quick-handed")

    async def close(self) -> None:
        """Stop ticking and give the lease back (server shutdown)."""
        await cancel_and_wait(self._task)
        await cancel_and_wait(self._handed)
        self._task = self._handed = None
        await self._leases.release(MATCHMAKER, self._node)

    async def _take_handed(self) -> None:
        """Start each table the matchmaker hands to this process."""
        sub = await self._pubsub.subscribe(node_channel(self._node))
        try:
            async for message in sub:
                table = _handed_table(message)
                if table is None:
                    log.warning("quick match: a malformed table was handed over: %.200r", message)
                else:
                    await self._seat(table)
        finally:
            await sub.close()

    async def _run(self) -> None:
        while True:
            try:
                await self.tick()
            except Exception:  # a failed tick (the bus, the store) is tried again next time
                log.warning("quick match: a matchmaking tick failed", exc_info=True)
            await asyncio.sleep(self._tick_s)

    async def _lead(self) -> bool:
        """Whether this process is the matchmaker now (renewing or taking the lease)."""
        return await self._leases.renew(MATCHMAKER, self._node, MATCHMAKER_TTL_S) or await self._leases.acquire(
            MATCHMAKER, self._node, MATCHMAKER_TTL_S
        )

    async def tick(self) -> None:
        """One look at the queue: seat every table ``group`` finds (only as the matchmaker)."""
        if not await self._lead():
            return
        tickets = await self.queue.tickets()
        for table in group(tickets, self._clock()):
            if await self.queue.take(table):
                await self._hand(table)

    async def _hand(self, table: Table) -> None:
        """Start ``table`` on the process most of its players wait on (the oldest's on a tie),
        or here when that is this process or it does not listen."""
        nodes = [t.node for t in table.tickets]
        home = max(nodes, key=nodes.count)
        if home and home != self._node:
            handed = {"kind": "start", "tickets": [t.text() for t in table.tickets]}
            if await self._pubsub.publish(node_channel(home), handed) > 0:
                return
        await self._seat(table)

    async def _seat(self, table: Table) -> None:
        """Start the table's match and tell its players (``quick_failed`` if it cannot start:
        they queue again)."""
        try:
            match_id, seats = await self._start_table(table)
        except Exception:
            log.exception("quick match: a table could not be started")
            for t in table.tickets:
                await self.queue.tell(t.guest, {"kind": "failed"})
            return
        for t in table.tickets:
            await self.queue.tell(t.guest, {"kind": "seated", "match": match_id, "seat": seats[t.guest]})


def _handed_table(message: dict[str, Any]) -> Table | None:
    """The table of a hand-over message (``None``: not one)."""
    texts = message.get("tickets")
    if not isinstance(texts, list) or not 1 <= len(texts) <= 3 or not all(isinstance(t, str) for t in texts):
        return None
    tickets = [Ticket.parse(t) for t in texts]
    return Table(tuple(t for t in tickets if t is not None)) if None not in tickets else None


def new_socket_id() -> str:
    """An id for one queue socket (it tells its own ticket from one it replaced)."""
    return secrets.token_hex(8)
