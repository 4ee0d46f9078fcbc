"""A small progress bar on stderr (no dependency): redrawn in place on a terminal, a line
every tenth of the way otherwise (so logs stay short)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """Call it with ``(done, total)``; ``close()`` ends the line."""

    def __init__(self, label: str = "", stream: TextIO | None = None, width: int = 30) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.tty = self.stream.isatty()
        self.start = time.perf_counter()
        self._last_tenth = -1
        self._drawn = False

    def __call__(self, done: int, total: int) -> None:
        tenth = 10 * done // max(total, 1)
        if not self.tty and tenth == self._last_tenth:
            return
        self._last_tenth = tenth
        elapsed = time.perf_counter() - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (total - done) / rate if rate > 0 else 0.0
        filled = self.width * done // max(total, 1)
        bar = "#" * filled + "-" * (self.width - filled)
        text = f"{self.label}[{bar}] {done}/{total} {elapsed:.0f}s elapsed, eta {eta:.0f}s"
        self.stream.write(("\r" + text) if self.tty else text + "\n")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        """Finish the bar's line on a terminal."""
        if self.tty and self._drawn:
            self.stream.write("\n")
            self.stream.flush()
