"""``sanma shanten``: shanten and waits of hands, JSON lines in and out (spec/cli.md).

Input per line: ``{"hand": "<concealed mpsz>", "melds": [{"type": "pon", "tiles": "555z"}, ...]}``
with 13 or 14 tiles in all (a meld counts 3, kans too); an optional ``"kita": N`` names
extracted Norths, which like melded tiles are the player's own.  Output:
``{"shanten": n}``, and for 13 tiles in tenpai also ``"waits": ["3p", "6p"]``.  A kind
whose four copies are all the player's own is never a wait, and a hand that could only
finish on a fifth copy is not tenpai (its shanten counts that).  A bad line gets
``{"error": "invalid", "detail": ...}`` and the stream goes on; exit 0 at end of input.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from sanma.cli import answer_lines
from sanma.engine.errors import InvalidHand, SanmaError
from sanma.engine.shanten import shanten_and_waits
from sanma.engine.tiles import KIND_COUNT, NORTH, TileKind, check_copies, kind_name, parse, to_mpsz

FIELDS = frozenset({"hand", "melds", "kita"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``sanma shanten`` has no options."""


def run(args: argparse.Namespace) -> int:
    """Answer every line of standard input."""
    shanten_stream(sys.stdin, sys.stdout)
    return 0


def run_argv(rest: list[str]) -> int | None:
    """``run`` without argparse when there are no arguments; ``None`` otherwise (argparse reads them)."""
    if rest:
        return None
    shanten_stream(sys.stdin, sys.stdout)
    return 0


def shanten_stream(inp: TextIO, out: TextIO) -> None:
    """One output line per non-blank input line, in order."""
    answer_lines(inp, out, shanten_text)


def shanten_text(line: str) -> str:
    """The output line of one input line, as JSON text (no newline)."""
    return json.dumps(shanten_line(line))


def shanten_line(line: str) -> dict[str, Any]:
    """The output object of one input line (an error object on failure)."""
    try:
        request = json.loads(line)
    except json.JSONDecodeError as exc:
        return {"error": "invalid", "detail": f"not JSON: {exc.msg}"}
    try:
        return shanten_request(request)
    except SanmaError as exc:
        return {"error": "invalid", "detail": str(exc)}


_MELD_SIZES = {"pon": 3, "daiminkan": 4, "kakan": 4, "ankan": 4}
_MELD_ERROR = 'each meld is {"type": "pon"|"daiminkan"|"kakan"|"ankan", "tiles": "..."}'


def _melds(raw: object) -> list[tuple[str, list[tuple[TileKind, bool]]]]:
    if not isinstance(raw, list):
        raise InvalidHand("melds must be a list")
    out = []
    for m in raw:
        mtype = m.get("type") if isinstance(m, dict) else None
        if type(mtype) is not str or mtype not in _MELD_SIZES or m.keys() - {"type", "tiles"}:
            raise InvalidHand(_MELD_ERROR)
        tiles = m.get("tiles")
        if not isinstance(tiles, str):
            raise InvalidHand("meld tiles must be an mpsz string")
        out.append((m["type"], parse(tiles)))
    return out


def shanten_request(request: object) -> dict[str, Any]:
    """Answer one decoded request (raises ``SanmaError`` subclasses on bad input)."""
    if not isinstance(request, dict):
        raise InvalidHand("each line must be a JSON object")
    if request.keys() - FIELDS:
        raise InvalidHand(f"unknown field(s): {', '.join(sorted(request.keys() - FIELDS))}")
    hand = request.get("hand")
    if not isinstance(hand, str):
        raise InvalidHand("hand (an mpsz string) is required")
    kita = request.get("kita", 0)
    if not isinstance(kita, int) or isinstance(kita, bool) or not 0 <= kita <= 4:
        raise InvalidHand("kita must be an integer 0..4")
    hand_items = parse(hand)
    meld_specs = _melds(request.get("melds", []))
    everything = list(hand_items)
    for _, items in meld_specs:
        everything += items
    everything += [(NORTH, False)] * kita
    # Red fives matter only for the fifth-copy check: with one written, the rules have them.
    check_copies(everything, any(red for _, red in everything))
    for mtype, items in meld_specs:  # the checks of ``Meld``: its size, one kind
        if len(items) != _MELD_SIZES[mtype]:
            raise InvalidHand(f"a {mtype} has {_MELD_SIZES[mtype]} tiles, not {len(items)}")
        if any(k != items[0][0] for k, _ in items):
            raise InvalidHand(f"a {mtype} must be one kind: {to_mpsz(items)}")
    melds = len(meld_specs)
    total = len(hand_items) + 3 * melds
    if total not in (13, 14):
        raise InvalidHand(f"a hand has 13 or 14 tiles with each meld counting 3, not {total}")
    counts = [0] * KIND_COUNT
    for kind, _ in hand_items:
        counts[kind] += 1
    own = list(counts)
    for kind, _ in everything[len(hand_items) :]:
        own[kind] += 1
    n, hand_waits = shanten_and_waits(counts, melds, own)
    if total == 13 and n == 0:
        return {"shanten": 0, "waits": [kind_name(k) for k in hand_waits]}
    return {"shanten": n}
