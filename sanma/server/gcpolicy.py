"""The garbage collector's policy for a long-running server process (``SANMA_GC_FREEZE``).

A server holding hundreds of rooms keeps millions of long-lived objects (matches, bots'
views, each seat's frames).  CPython's full (generation 2) collection scans all of them and
stops the event loop while it does: about 200 ms with 300 practice tables on the 2-core
development machine, which is what the p99 of action-to-broadcast latency then measures
(``docs/benchmarks.md``, "Rooms and load").  With the policy on, the heap is frozen every
``freeze_s`` seconds (``gc.freeze``: what exists now is never scanned again), so the
collector only walks what is new; every ``collect_s`` seconds it is thawed and collected
once in full, so cyclic garbage among frozen objects is reclaimed after at most that long.
Reference counting frees everything else at once, frozen or not.
"""

from __future__ import annotations

import gc
import threading
import time

# Fewer young collections: the youngest generation is collected after this many net allocations.
YOUNG_THRESHOLD = 20_000


def start(freeze_s: float, collect_s: float) -> threading.Thread | None:
    """Apply the policy from now on, in a daemon thread (``None`` when ``freeze_s`` is 0: the
    interpreter's default collector stays as it is)."""
    if freeze_s <= 0:
        return None
    gc.set_threshold(YOUNG_THRESHOLD, 20, 20)
    gc.freeze()  # the modules and tables loaded at start-up
    thread = threading.Thread(target=_run, args=(freeze_s, collect_s), name="gc-policy", daemon=True)
    thread.start()
    return thread


def _run(freeze_s: float, collect_s: float) -> None:
    last_full = time.monotonic()
    while True:
        time.sleep(freeze_s)
        if collect_s > 0 and time.monotonic() - last_full >= collect_s:
            gc.unfreeze()
            gc.collect()
            last_full = time.monotonic()
        gc.freeze()
