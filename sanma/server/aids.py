"""The aids a prompt carries: waits with how many of each are unseen, furiten, why-not, and
the wait preview (the waits each tenpai-keeping discard would leave).

Only what the seat itself can see goes into the counts: its own concealed tiles, every
river, meld and kita pile, and the revealed dora indicators.
"""

from __future__ import annotations

from typing import Any

from sanma.engine.actions import Discard
from sanma.engine.kyoku import Kyoku
from sanma.engine.shanten import waits
from sanma.engine.tiles import KIND_COUNT, Tile, TileKind, counts_of_tiles, kind_name, kind_of
from sanma.server.codec import wire_tile


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
    counts = [0] * KIND_COUNT
    for tile in seen:
        counts[kind_of(tile)] += 1
    return counts


def prompt_aids(kyoku: Kyoku, seat: int) -> dict[str, Any]:
    """``{"waits": [["3p", 2], ...], "yaku_waits": ["3p", ...], "furiten": ..., "why_not": null
    | "no_yaku" | "furiten", "discard_waits": {"4s": {"waits": [["3p", 2], ...], "furiten":
    false}, ...}}``; ``yaku_waits`` are the waits on which a win would have a yaku (all of a
    closed hand's; an open hand may complete on a kind it cannot win on)."""
    status = kyoku.win_status(seat)
    counts = seen_counts(kyoku, seat)
    return {
        "waits": _with_unseen(status.waits, counts),
        "yaku_waits": [kind_name(k) for k in kyoku.yaku_waits(seat, status.waits)],
        "furiten": status.furiten,
        "why_not": status.reason if status.complete else None,
        "discard_waits": discard_waits(kyoku, seat, counts),
    }


def discard_waits(kyoku: Kyoku, seat: int, counts: list[int] | None = None) -> dict[str, dict[str, Any]]:
    """For each legal discard of ``seat`` that leaves its hand tenpai, keyed by the tile as a
    discard action names it (``"0p"`` a red five): the waits it would leave with their unseen
    counts, and whether that discard would put the hand in discard furiten (a wait already in
    the river, or the discarded kind itself).  Empty when the seat has no discard to choose."""
    tiles = sorted({a.tile for a in kyoku.legal_actions(seat) if isinstance(a, Discard)})
    if not tiles:
        return {}
    if counts is None:
        counts = seen_counts(kyoku, seat)
    red_fives = kyoku.rules.red_fives
    melds = kyoku.melds(seat)
    own = counts_of_tiles(kyoku.hand(seat))
    for meld in melds:
        for tile in meld.tiles:
            own[kind_of(tile)] += 1
    for tile in kyoku.kita_tiles(seat):
        own[kind_of(tile)] += 1
    river = {kind_of(t) for t in kyoku.river(seat)}
    preview: dict[str, dict[str, Any]] = {}
    for tile in tiles:
        name = wire_tile(tile, red_fives)
        if name in preview:
            continue
        left = _waits_without(kyoku.hand(seat), tile, len(melds), own)
        if left:
            gone = river | {kind_of(tile)}
            preview[name] = {"waits": _with_unseen(left, counts), "furiten": any(k in gone for k in left)}
    return preview


def _waits_without(hand: tuple[Tile, ...], tile: Tile, melds: int, own: list[int]) -> tuple[TileKind, ...]:
    counts = counts_of_tiles(hand)
    counts[kind_of(tile)] -= 1
    mine = list(own)
    mine[kind_of(tile)] -= 1
    return waits(counts, melds, mine)


def _with_unseen(kinds: tuple[TileKind, ...], counts: list[int]) -> list[list[Any]]:
    return [[kind_name(k), max(0, 4 - counts[k])] for k in kinds]
