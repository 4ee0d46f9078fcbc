"""The aids a prompt carries: waits with how many of each are unseen, furiten, why-not.

Only what the seat itself can see goes into the counts: its own concealed tiles, every
river, meld and kita pile, and the revealed dora indicators.
"""

from __future__ import annotations

from typing import Any

from sanma.engine.kyoku import Kyoku
from sanma.engine.tiles import kind_name, kind_of


def seen_counts(kyoku: Kyoku, seat: int) -> list[int]:
    """Copies of each kind that ``seat`` can see (a called tile is in a river and a meld:
    counted once, by its physical id)."""
    seen: set[int] = set(kyoku.hand(seat))
    for s in range(3):
        seen.update(kyoku.river(s))
        seen.update(kyoku.kita_tiles(s))
        for meld in kyoku.melds(s):
            seen.update(meld.tiles)
    seen.update(kyoku.dora_indicators())
    counts = [0] * 27
    for tile in seen:
        counts[kind_of(tile)] += 1
    return counts


def prompt_aids(kyoku: Kyoku, seat: int) -> dict[str, Any]:
    """``{"waits": [["3p", 2], ...], "furiten": ..., "why_not": null | "no_yaku" | "furiten"}``."""
    status = kyoku.win_status(seat)
    counts = seen_counts(kyoku, seat)
    return {
        "waits": [[kind_name(k), max(0, 4 - counts[k])] for k in status.waits],
        "furiten": status.furiten,
        "why_not": status.reason if status.complete else None,
    }
