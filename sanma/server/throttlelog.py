"""A log that a flood cannot fill: at most one line per (kind, client address) per window.

Bad input (a body that is not JSON, one too large or too slow, a request h11 cannot parse, a
connection over the per-address cap) is the client's fault, not the server's: it gets one
short line, never a traceback, and a client that repeats it a thousand times a second still
gets one line a minute.  An unexpected server fault (a 500) keeps its traceback, but under the
same rule, so that one bug hit in a loop cannot fill the disk.  Each line says how many like
it were held back since the previous one of its key.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from sanma.server.netaddr import UNKNOWN

# Keys remembered at once; beyond them (many addresses in one window) the newcomers share the
# key ``(kind, "*")``, so the lines per window stay bounded by keys + kinds.
MAX_KEYS = 4096
WINDOW_S = 60.0
OTHERS = "*"


@dataclass(slots=True)
class _Window:
    start: float
    held: int = 0


class ThrottledLog:
    """``write(level, kind, key, msg, *args)``: writes the line unless one of the same
    ``(kind, key)`` was written less than ``window_s`` ago (then it only counts it).

    >>> now = [0.0]
    >>> quiet = ThrottledLog(logging.getLogger("doctest"), clock=lambda: now[0])
    >>> [quiet.write(logging.INFO, "bad_json", "192.0.2.1", "x") for _ in range(3)]
    [True, False, False]
    >>> quiet.write(logging.INFO, "bad_json", "192.0.2.2", "x"), quiet.held("bad_json", "192.0.2.1")
    (True, 2)
    >>> now[0] = 61.0
    >>> quiet.write(logging.INFO, "bad_json", "192.0.2.1", "x"), quiet.held("bad_json", "192.0.2.1")
    (True, 0)
    """

    def __init__(
        self,
        logger: logging.Logger,
        window_s: float = WINDOW_S,
        max_keys: int = MAX_KEYS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.window_s = window_s
        self.max_keys = max_keys
        self.clock = clock
        self._windows: dict[tuple[str, str], _Window] = {}

    def write(
        self, level: int, kind: str, key: str | None, msg: str, *args: object, exc_info: BaseException | None = None
    ) -> bool:
        """Write ``msg % args`` (with ``exc_info``'s traceback when given) unless one of
        ``(kind, key)`` was written less than a window ago; whether it was written.  ``key``:
        the client's address for bad input, the fault and the route for a 500."""
        now = self.clock()
        pair = (kind, key or UNKNOWN)
        window = self._windows.get(pair)
        if window is None and len(self._windows) >= self.max_keys:
            self._forget_before(now - self.window_s)
            if len(self._windows) >= self.max_keys:
                pair = (kind, OTHERS)
                window = self._windows.get(pair)
        if window is not None and now - window.start < self.window_s:
            window.held += 1
            return False
        held = window.held if window is not None else 0
        self._windows[pair] = _Window(now)
        note = f" ({held} more like it held back in the last {self.window_s:g} s)" if held else ""
        self.logger.log(level, msg + "%s", *args, note, exc_info=exc_info)
        return True

    def held(self, kind: str, key: str) -> int:
        """How many lines of ``(kind, key)`` were held back since its last written one."""
        window = self._windows.get((kind, key))
        return 0 if window is None else window.held

    def _forget_before(self, cutoff: float) -> None:
        # A window that ended is only kept for its count of held lines: losing it loses a count.
        for key in [k for k, w in self._windows.items() if w.start < cutoff]:
            del self._windows[key]
