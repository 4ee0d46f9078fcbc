"""``sanma score``: score winning hands, JSON lines in and out (spec/cli.md).

Each input line is scored on its own; a bad line gets an ``{"error": ...}`` line and the
stream goes on.  The exit status is 0 once the input has been read to its end.

A file of lines is scored in one fresh process, so the per-line path is kept short: JSON is
read with the decoder's C scanner (``json.loads`` minus its Python wrapper, which falls back to
``json.loads`` itself for anything but one plain object, so errors read the same), the checks
run in the order the messages depend on, and a scored line is written by ``score_text``
without building the output dictionary (``json.dumps`` of it gives the same bytes; a test
holds that).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Callable
from json.scanner import make_scanner
from typing import Any, TextIO

from sanma.cli import answer_lines
from sanma.engine.context import WinContext
from sanma.engine.errors import InvalidHand, NotWinning, NoYaku, SanmaError
from sanma.engine.hand import Meld, MeldKinds, MeldType
from sanma.engine.rules import PRESET_NAMES, Rules, preset
from sanma.engine.scoring import Score, score_counts
from sanma.engine.tiles import (
    EAST,
    KIND_COUNT,
    NORTH,
    P5,
    S5,
    SOUTH,
    TILE_COUNT,
    WEST,
    TileKind,
    assign_tiles,
    mpsz_counts,
    parse,
    parse_one,
)
from sanma.engine.yaku import ORDER

FLAGS = ("tsumo", "riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei", "houtei", "tenhou", "chiihou")
FIELDS = frozenset(
    {"hand", "win", "melds", "seat", "round", "dora", "ura", "kita", "honba", "deposits", "red_fives", *FLAGS}
)
_FLAG_SET = frozenset(FLAGS)
_NOT_FLAGS = FIELDS - _FLAG_SET
_MELD_FIELDS = frozenset({"type", "tiles"})
WINDS = {"E": EAST, "S": SOUTH, "W": WEST}
ROUNDS = {"E": EAST, "S": SOUTH}
MELD_TYPES = {t.value: t for t in MeldType}
_MELD_ERROR = 'each meld is {"type": "pon"|"daiminkan"|"kakan"|"ankan", "tiles": "..."}'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sanma score``."""
    parser.add_argument("--rules", choices=PRESET_NAMES, default="default", help="rule preset (default: default)")


def run(args: argparse.Namespace) -> int:
    """Score every line of standard input."""
    score_stream(sys.stdin, sys.stdout, preset(args.rules))
    return 0


def run_argv(rest: list[str]) -> int | None:
    """``run`` for the usual arguments (none, ``--rules NAME``, ``--rules=NAME`` with a preset
    name) without argparse; ``None`` for anything else, which argparse reads."""
    if not rest:
        name = "default"
    elif len(rest) == 2 and rest[0] == "--rules":
        name = rest[1]
    elif len(rest) == 1 and rest[0].startswith("--rules="):
        name = rest[0][len("--rules=") :]
    else:
        return None
    if name not in PRESET_NAMES:
        return None  # argparse words the error
    score_stream(sys.stdin, sys.stdout, preset(name))
    return 0


def score_stream(inp: TextIO, out: TextIO, rules: Rules) -> None:
    """Answer each non-blank input line with one output line, in order."""
    # A line makes ~100 short-lived containers and no cycles (reference counting frees them),
    # yet the cyclic collector ran every 700 of them, and each of its full passes walked every
    # object the imports made: ~10% of a 5,000-line file's CPU time.  The imports' objects are
    # frozen out of its passes and it runs less often while the stream lasts (it still runs).
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(_GC_THRESHOLD, *threshold[1:])
    try:
        answer_lines(inp, out, lambda line: score_text(line, rules))
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


_GC_THRESHOLD = 20_000  # young containers between two passes of the cyclic collector (default 700)


def score_text(line: str, rules: Rules) -> str:
    """The output line of one input line, as JSON text (no newline)."""
    try:
        request = decode_line(line)
    except json.JSONDecodeError as exc:
        return json.dumps({"error": "invalid", "detail": f"not JSON: {exc.msg}"})
    try:
        score, tsumo, dealer = score_request(request, rules)
    except NoYaku:
        return _NO_YAKU_TEXT  # a few in a hundred random wins; json.dumps costs ~5 us
    except NotWinning:
        return _NOT_WINNING_TEXT
    except SanmaError as exc:
        return json.dumps({"error": "invalid", "detail": str(exc)})
    return score_json(score, tsumo, dealer)


def score_line(line: str, rules: Rules) -> dict[str, Any]:
    """The output object of one input line (an error object on failure)."""
    answer: dict[str, Any] = json.loads(score_text(line, rules))
    return answer


_NO_YAKU_TEXT = json.dumps({"error": "no_yaku"})
_NOT_WINNING_TEXT = json.dumps({"error": "not_winning"})


# The C scanner that json.loads runs, without its wrapper (typeshed types the argument as a
# scanner; it is the decoder whose settings it copies).
_SCAN = make_scanner(json.JSONDecoder())  # type: ignore[arg-type]


def decode_line(line: str) -> object:
    """``json.loads(line)``: a line that is one object with nothing around it goes straight
    to the C scanner; anything else (spaces, errors, other values) through ``json.loads``."""
    if line[:1] == "{":
        try:
            value, end = _SCAN(line, 0)
        except (StopIteration, ValueError):
            end = -1
        if end == len(line):
            return value
    return json.loads(line)


# --- the reader --------------------------------------------------------------------------------
#
# A request is read straight into kind counts (one byte per kind, ``tiles.mpsz_counts``), which
# ``scoring.score_counts`` scores: no physical tile, no ``Meld`` is built for a line.  The checks
# run in a fixed order, so a line with several faults always reports the same one.  Where the
# counts show a fault whose words name physical tiles (a fifth copy, a meld of two kinds), the
# line's tiles are given physical ids as the engine's readers do (``tiles.assign_tiles``, a
# ``Meld``) so that the message is the engine's own.

Tiles = tuple[int, int, int]
"""Tiles as counts: (kinds packed one byte per kind, how many tiles, red fives packed the same)."""

_P5_SHIFT = 8 * P5
_S5_SHIFT = 8 * S5
_ONES = sum(1 << (8 * k) for k in range(KIND_COUNT))
# Added to packed counts of at most 100 tiles, a byte reaches 128 exactly when its count is 5 or more.
_FIFTH = 123 * _ONES
_HIGH = 0x80 * _ONES
_MAX_TILES = 100
# One tile's mpsz ("5p", "0p", "7z") -> (kind, its unit in packed counts, the same if red else 0).
_ONE_TILE: dict[str, tuple[TileKind, int, int]] = {}
for _suit in "mpsz":
    for _digit in "0123456789":
        _counts = mpsz_counts(_digit + _suit)
        if _counts is not None:
            _ONE_TILE[_digit + _suit] = (_counts[0].bit_length() - 1) >> 3, _counts[0], _counts[2]


def score_request(request: object, rules: Rules) -> tuple[Score, bool, bool]:
    """Score one decoded request: (the score, tsumo, the winner is the dealer).  Raises
    ``SanmaError`` subclasses on failure."""
    if type(request) is not dict:
        raise InvalidHand("each line must be a JSON object")
    if not request.keys() <= FIELDS:
        raise InvalidHand(f"unknown field(s): {', '.join(sorted(request.keys() - FIELDS))}")
    if "hand" not in request or "win" not in request:
        raise InvalidHand("hand and win are required")
    red_fives = _bool(request, "red_fives", rules.red_fives)
    if red_fives != rules.red_fives:
        rules = _with_red_fives(rules, red_fives)
    hand_text = _str(request["hand"], "hand")
    packed, n, hand_reds = _tiles(hand_text)
    win_kind, win_red = _one_tile(_str(request["win"], "win"))
    melds = _melds(request)
    dora, dora_tiles = _indicators(request, "dora")
    ura, ura_tiles = _indicators(request, "ura")
    kita = _int(request, "kita")
    seat = request.get("seat", "E")
    round_wind = request.get("round", "E")
    if type(seat) is not str or seat not in WINDS:
        raise InvalidHand('seat is "E", "S" or "W"')
    if type(round_wind) is not str or round_wind not in ROUNDS:
        raise InvalidHand('round is "E" or "S"')
    if kita > TILE_COUNT:  # no list of that many Norths (above 2**63 it stopped the stream)
        raise InvalidHand(f"kita must be 0..4, not {kita}")
    sets: list[Tiles] = [(packed, n, hand_reds), *[t for _, _, t in melds], dora_tiles, ura_tiles]
    sets.append((kita << (8 * NORTH), kita, 0))
    _check_copies(sets, rules.red_fives, lambda: _items(request, kita))
    kinds = tuple([_meld_kinds(i, meld, request, kita, rules) for i, meld in enumerate(melds)])
    unit = 1 << (8 * win_kind)
    if not ((hand_reds & unit) if win_red else ((packed - hand_reds) >> (8 * win_kind)) & 0xFF):
        raise InvalidHand("the winning tile must be in the hand")
    ctx = WinContext(
        **_flags(request),
        seat_wind=WINDS[seat],
        round_wind=ROUNDS[round_wind],
        dora_indicators=dora,
        ura_indicators=ura,
        kita=kita,
        honba=_int(request, "honba"),
        deposits=_int(request, "deposits"),
    )
    if n + 3 * len(melds) != 14:
        raise InvalidHand(f"a winning hand has 14 tiles counting each meld as 3; got {n} + {len(melds)} melds")
    red = 0
    if rules.red_fives:
        reds = hand_reds + sum([t[2] for _, _, t in melds])
        red = ((reds >> _P5_SHIFT) & 0xFF) + ((reds >> _S5_SHIFT) & 0xFF)
    return score_counts(packed, win_kind, kinds, ctx, rules, red), ctx.tsumo, ctx.seat_wind == EAST


def _tiles(text: str) -> Tiles:
    """mpsz as counts; notation that is not plain mpsz is read by ``tiles.parse`` (its words)."""
    counts = mpsz_counts(text)
    if counts is not None:
        return counts
    packed = reds = 0
    items = parse(text)
    for kind, red in items:
        packed += 1 << (8 * kind)
        reds += (1 << (8 * kind)) if red else 0
    return packed, len(items), reds


def _one_tile(text: str) -> tuple[TileKind, bool]:
    tile = _ONE_TILE.get(text)
    return (tile[0], bool(tile[2])) if tile is not None else parse_one(text)


def _bool(request: dict[str, Any], key: str, default: bool = False) -> bool:
    value = request.get(key, default)
    if not isinstance(value, bool):
        raise InvalidHand(f"{key} must be true or false")
    return value


def _int(request: dict[str, Any], key: str) -> int:
    value = request.get(key, 0)
    if type(value) is not int or value < 0:  # bool is an int subclass: refused too
        raise InvalidHand(f"{key} must be a non-negative integer")
    return value


def _str(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise InvalidHand(f"{what} must be an mpsz string")
    return value


def _indicators(request: dict[str, Any], key: str) -> tuple[tuple[TileKind, ...], Tiles]:
    """A list of one-tile strings: their kinds, and their tiles as counts."""
    value = request.get(key)
    if value is None and key not in request:
        return (), (0, 0, 0)
    if not isinstance(value, list):
        raise InvalidHand(f"{key} must be a list of tiles")
    kinds: list[TileKind] = []
    packed = reds = 0
    for v in value:
        kind, red = _one_tile(_str(v, f"each {key} indicator"))
        kinds.append(kind)
        packed += 1 << (8 * kind)
        reds += (1 << (8 * kind)) if red else 0
    return tuple(kinds), (packed, len(kinds), reds)


def _melds(request: dict[str, Any]) -> list[tuple[MeldType, str, Tiles]]:
    raw = request.get("melds")
    if raw is None and "melds" not in request:
        return []
    if not isinstance(raw, list):
        raise InvalidHand("melds must be a list")
    melds = []
    for m in raw:
        mtype = m.get("type") if isinstance(m, dict) else None
        if type(mtype) is not str or mtype not in MELD_TYPES or not m.keys() <= _MELD_FIELDS:
            raise InvalidHand(_MELD_ERROR)
        text = _str(m.get("tiles"), "meld tiles")
        melds.append((MELD_TYPES[mtype], text, _tiles(text)))
    return melds


def _flags(request: dict[str, Any]) -> dict[str, bool]:
    """The flags given (absent ones are false), each checked to be a boolean."""
    given = {f: request[f] for f in request.keys() & _FLAG_SET}
    if any(value is not True and value is not False for value in given.values()):
        for f in FLAGS:  # in this order, so the first bad flag is the one named
            value = given.get(f, False)
            if value is not True and value is not False:
                raise InvalidHand(f"{f} must be true or false")
    return given


def _check_copies(sets: list[Tiles], red_fives: bool, items: Callable[[], list[tuple[TileKind, bool]]]) -> None:
    """The request's tiles, every field together, must exist in one set of 108: at most four of
    a kind, one red five of each, three plain fives beside it (none red without red fives)."""
    everything = reds = tiles = 0
    for packed, n, red in sets:
        everything += packed
        tiles += n
        reds += red
    red_p, red_s = (reds >> _P5_SHIFT) & 0xFF, (reds >> _S5_SHIFT) & 0xFF
    fives_p, fives_s = (everything >> _P5_SHIFT) & 0xFF, (everything >> _S5_SHIFT) & 0xFF
    fifth = tiles > _MAX_TILES or (everything + _FIFTH) & _HIGH
    bad_red = reds and (not red_fives or red_p > 1 or red_s > 1)
    plain_fives = red_fives and (fives_p - red_p > 3 or fives_s - red_s > 3)
    if fifth or bad_red or plain_fives:
        assign_tiles(items(), red_fives)  # words the fault (past 100 tiles it may find none)


def _items(request: dict[str, Any], kita: int) -> list[tuple[TileKind, bool]]:
    """Every tile of a request read so far, in the order the engine's readers take them."""
    items = parse(request["hand"])
    for m in request.get("melds") or ():
        items += parse(m["tiles"])
    for key in ("dora", "ura"):
        for v in request.get(key) or ():
            items += parse(v)
    return items + [(NORTH, False)] * kita


def _meld_kinds(
    i: int, meld: tuple[MeldType, str, Tiles], request: dict[str, Any], kita: int, rules: Rules
) -> MeldKinds:
    """A meld as scoring reads it, once its tiles are seen to make one (else the ``Meld``'s words)."""
    mtype, _, (packed, n, _) = meld
    kind = (packed.bit_length() - 1) >> 3
    if n != (3 if mtype is MeldType.PON else 4) or packed != n << (8 * kind):
        tiles = assign_tiles(_items(request, kita), rules.red_fives)
        pos = len(parse(request["hand"]))
        for m in request["melds"][: i + 1]:
            size = len(parse(m["tiles"]))
            Meld(MELD_TYPES[m["type"]], tuple(tiles[pos : pos + size]))  # raises for this meld at the latest
            pos += size
    return (kind, n, mtype is MeldType.ANKAN)


_RULES_WITH_RED: dict[tuple[Rules, bool], Rules] = {}


def _with_red_fives(rules: Rules, red_fives: bool) -> Rules:
    key = (rules, red_fives)
    if key not in _RULES_WITH_RED:
        _RULES_WITH_RED[key] = rules.with_options(red_fives=red_fives)
    return _RULES_WITH_RED[key]


# --- the writer ---------------------------------------------------------------------------------
#
# Each yaku entry's text (``["riichi", 1]``) is made once by ``json.dumps`` and kept: a file's
# yaku lists are mostly distinct (dora counts), and ``json.dumps`` of a list is ~10 us, a line's
# third.
_ENTRY_TEXT: dict[tuple[str, int], tuple[int, str]] = {}


def _yaku_text(yaku: tuple[tuple[str, int], ...]) -> str:
    try:
        # (cli.md's order of the name, the entry's text): sorted as plain tuples, no key function.
        entries = sorted(map(_ENTRY_TEXT.__getitem__, yaku))
    except KeyError:
        for entry in yaku:  # a few hundred (name, han) pairs at most
            _ENTRY_TEXT.setdefault(entry, (ORDER[entry[0]], json.dumps(list(entry))))
        entries = sorted(map(_ENTRY_TEXT.__getitem__, yaku))
    return f"[{', '.join([text for _, text in entries])}]"


def score_json(score: Score, tsumo: bool, dealer: bool) -> str:
    """A scored line's JSON text (spec/cli.md: the keys in this order, ``json.dumps``' spacing)."""
    pay = score.payments
    if not tsumo:
        payments = f'{{"ron": {pay.ron}}}'
    elif dealer:
        payments = f'{{"non_dealer": {pay.non_dealer}}}'
    else:
        payments = f'{{"dealer": {pay.dealer}, "non_dealer": {pay.non_dealer}}}'
    return (
        f'{{"han": {score.han}, "fu": {score.fu}, "yakuman": {score.yakuman}, "limit": "{score.limit}", '
        f'"yaku": {_yaku_text(score.yaku)}, "payments": {payments}, "total": {score.total}}}'
    )
