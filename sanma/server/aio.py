"""Small asyncio helpers shared by the server's long-lived tasks."""

from __future__ import annotations

import asyncio
from typing import Any


async def cancel_and_wait(task: asyncio.Task[Any] | None) -> None:
    """Cancel ``task`` and wait until it has ended; its own cancellation or failure stays
    here (a failure was logged where it happened).

    If the *caller* is cancelled while it waits, that cancellation goes on: swallowing it
    (``suppress(CancelledError)`` around the await) would leave a caller looping forever
    after a shutdown asked it to stop."""
    if task is None or task.done():
        return
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise
    except Exception:
        pass
