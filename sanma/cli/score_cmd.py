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

import gc
import json
import sys
from json.scanner import make_scanner

from sanma.cli import answer_lines
from sanma.engine.errors import InvalidHand, InvalidNotation, NotWinning, NoYaku, SanmaError
from sanma.engine.hand import MeldType
from sanma.engine.presets import PRESET_NAMES, preset_rules
from sanma.engine.scoring import ScoreValues, score_counts, score_values
from sanma.engine.tiles import (
    EAST,
    KIND_COUNT,
    NORTH,
    P5,
    S5,
    SOUTH,
    TILE_COUNT,
    WEST,
    Tile,
    TileKind,
    assign_tiles,
    mpsz_counts,
    parse,
    parse_one,
)
from sanma.engine.yaku import ORDER, MeldKinds

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing argparse and typing at start-up
if TYPE_CHECKING:
    import argparse
    from typing import Any, TextIO

    from sanma.engine.presets import PresetRules
    from sanma.engine.rules import Rules

    # The rules a line is scored under: the CLI's own ``PresetRules`` (no ``Rules`` dataclass is
    # created at start-up, see ``sanma.engine.lazy``) or any ``Rules`` (the tests, other callers).
    AnyRules = Rules | PresetRules

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
    score_stream(sys.stdin, sys.stdout, preset_rules(args.rules))
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
    score_stream(sys.stdin, sys.stdout, preset_rules(name))
    return 0


def score_stream(inp: TextIO, out: TextIO, rules: AnyRules) -> None:
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


def score_text(line: str, rules: AnyRules) -> str:
    """The output line of one input line, as JSON text (no newline)."""
    try:
        request = decode_line(line)
    except json.JSONDecodeError as exc:
        return json.dumps({"error": "invalid", "detail": f"not JSON: {exc.msg}"})
    try:
        return _score_json(*(fast_parts(request, rules) or score_parts(request, rules)))
    except NoYaku:
        return _NO_YAKU_TEXT  # a few in a hundred random wins; json.dumps costs ~5 us
    except NotWinning:
        return _NOT_WINNING_TEXT
    except SanmaError as exc:
        return json.dumps(_error(exc))


def score_line(line: str, rules: AnyRules) -> dict[str, Any]:
    """The output object of one input line (an error object on failure)."""
    try:
        request = decode_line(line)
    except json.JSONDecodeError as exc:
        return {"error": "invalid", "detail": f"not JSON: {exc.msg}"}
    try:
        return score_request(request, rules)
    except SanmaError as exc:
        return _error(exc)


_NO_YAKU_TEXT = json.dumps({"error": "no_yaku"})
_NOT_WINNING_TEXT = json.dumps({"error": "not_winning"})


def _error(exc: SanmaError) -> dict[str, Any]:
    if isinstance(exc, NoYaku):
        return {"error": "no_yaku"}
    if isinstance(exc, NotWinning):
        return {"error": "not_winning"}
    return {"error": "invalid", "detail": str(exc)}


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


def score_request(request: object, rules: AnyRules) -> dict[str, Any]:
    """Score one decoded request object (raises ``SanmaError`` subclasses on failure)."""
    from sanma.engine.scoring import Payments  # here: the stream writes its text without it

    (han, fu, yakuman, limit, yaku, _, payments, total, _), tsumo, dealer = score_parts(request, rules)
    return {
        "han": han,
        "fu": fu,
        "yakuman": yakuman,
        "limit": limit,
        "yaku": [[name, h] for name, h in sorted(yaku, key=_yaku_order)],
        "payments": Payments(*payments).as_dict(tsumo, dealer),
        "total": total,
    }


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


def _indicators(request: dict[str, Any], key: str) -> list[tuple[TileKind, bool]]:
    value = request.get(key)
    if value is None and key not in request:
        return []
    if not isinstance(value, list):
        raise InvalidHand(f"{key} must be a list of tiles")
    out = []
    for v in value:
        items = parse(_str(v, f"each {key} indicator"))
        if len(items) != 1:
            raise InvalidNotation(f"expected one tile, got {len(items)}: {v!r}")
        out += items
    return out


def _melds(request: dict[str, Any]) -> list[tuple[MeldType, list[tuple[TileKind, bool]]]]:
    raw = request.get("melds")
    if raw is None and "melds" not in request:
        return []
    if not isinstance(raw, list):
        raise InvalidHand("melds must be a list")
    specs = []
    for m in raw:
        mtype = m.get("type") if isinstance(m, dict) else None
        if type(mtype) is not str or mtype not in MELD_TYPES or not m.keys() <= _MELD_FIELDS:
            raise InvalidHand(_MELD_ERROR)
        specs.append((MELD_TYPES[mtype], parse(_str(m.get("tiles"), "meld tiles"))))
    return specs


def _flags(request: dict[str, Any]) -> dict[str, bool]:
    """The flags given (absent ones are false), each checked to be a boolean."""
    given = {f: request[f] for f in request.keys() & _FLAG_SET}
    if any(value is not True and value is not False for value in given.values()):
        for f in FLAGS:  # in this order, so the first bad flag is the one named
            value = given.get(f, False)
            if value is not True and value is not False:
                raise InvalidHand(f"{f} must be true or false")
    return given


def score_parts(request: object, rules: AnyRules) -> tuple[ScoreValues, bool, bool]:
    """Score one decoded request: (``score_values``' result, tsumo, the winner is the dealer).  Raises
    ``SanmaError`` subclasses on failure; the checks run in a fixed order, so a line with
    several faults always reports the same one."""
    # Here, not at the top: a file's lines are read by ``fast_parts`` (no ``Meld``, no
    # ``WinContext``), and importing these creates their dataclasses (start-up, see ``lazy``).
    from sanma.engine.context import WinContext
    from sanma.engine.hand import Meld

    if not isinstance(request, dict):
        raise InvalidHand("each line must be a JSON object")
    if not request.keys() <= FIELDS:
        raise InvalidHand(f"unknown field(s): {', '.join(sorted(request.keys() - FIELDS))}")
    if "hand" not in request or "win" not in request:
        raise InvalidHand("hand and win are required")
    red_fives = _bool(request, "red_fives", rules.red_fives)
    if red_fives != rules.red_fives:
        rules = _with_red_fives(rules, red_fives)
    hand_items = parse(_str(request["hand"], "hand"))
    win_item = parse_one(_str(request["win"], "win"))
    meld_specs = _melds(request)
    dora = _indicators(request, "dora")
    ura = _indicators(request, "ura")
    kita = _int(request, "kita")
    seat = request.get("seat", "E")
    round_wind = request.get("round", "E")
    if type(seat) is not str or seat not in WINDS:
        raise InvalidHand('seat is "E", "S" or "W"')
    if type(round_wind) is not str or round_wind not in ROUNDS:
        raise InvalidHand('round is "E" or "S"')
    # One physical set of 108: hand, melds, indicators and extracted Norths together.
    everything = hand_items.copy()
    for _, items in meld_specs:
        everything += items
    everything += dora
    everything += ura
    if kita:
        if kita > TILE_COUNT:  # no list of that many Norths (above 2**63 it stopped the stream)
            raise InvalidHand(f"kita must be 0..4, not {kita}")
        everything += [(NORTH, False)] * kita
    tiles = assign_tiles(everything, rules.red_fives)
    n = len(hand_items)
    melds: list[Meld] = []
    pos = n
    for mtype, items in meld_specs:
        melds.append(Meld(mtype, tuple(tiles[pos : pos + len(items)])))
        pos += len(items)
    concealed = tiles[:n]
    win_tile = _find_win(concealed, hand_items, win_item)
    flags = _flags(request)
    ctx = WinContext(
        **flags,
        seat_wind=WINDS[seat],
        round_wind=ROUNDS[round_wind],
        dora_indicators=tuple([k for k, _ in dora]),
        ura_indicators=tuple([k for k, _ in ura]),
        kita=kita,
        honba=_int(request, "honba"),
        deposits=_int(request, "deposits"),
    )
    return score_values(concealed, win_tile, melds, ctx, rules), ctx.tsumo, ctx.seat_wind == EAST


# --- the fast path: a plainly valid request scored from kind counts ---------------------------
#
# ``score_parts`` reads a request into physical tiles, ``Meld`` objects and a ``WinContext`` and
# hands them to ``score_values``, which checks the tiles and counts their kinds: most of a line's
# time.  ``fast_parts`` reads a request whose every field is plainly valid straight into kind
# counts and calls the same scorer (``score_counts``, which ``score_values`` calls too).  It
# answers only when each of ``score_parts``' checks would pass, so the answer is the same; for
# anything else (a missing or mistyped field, notation that is not plain mpsz, a fifth copy)
# it answers ``None`` and the line goes through ``score_parts``, whose messages are the
# reference.  Tests hold the two equal on every kind of line (tests/test_cli_score.py).

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
# Meld type -> (its number of tiles, a closed kan).
_MELD_SHAPE = {"pon": (3, False), "daiminkan": (4, False), "kakan": (4, False), "ankan": (4, True)}
# A meld's tiles ("0555p") -> (kind, tiles, packed kinds, packed reds); None: not plain mpsz of one kind.
_MELD_TILES: dict[str, tuple[TileKind, int, int, int] | None] = {}


def _meld_tiles(text: str) -> tuple[TileKind, int, int, int] | None:
    if text in _MELD_TILES:
        return _MELD_TILES[text]
    counts = mpsz_counts(text)
    found = None
    if counts is not None and counts[1]:
        packed, n, reds = counts
        kind = (packed.bit_length() - 1) >> 3
        if packed == n << (8 * kind):
            found = kind, n, packed, reds
    if len(_MELD_TILES) < 4096:
        _MELD_TILES[text] = found
    return found


def _indicator_tiles(value: object) -> tuple[tuple[TileKind, ...], int, int] | None:
    """A list of one-tile strings as (kinds, packed kinds, packed reds); ``None`` otherwise."""
    if type(value) is not list:
        return None
    try:
        key = tuple(value)
        found = _INDICATORS.get(key)  # a few hundred lists recur: "dora": ["3p"]
    except TypeError:  # an unhashable item (a list, an object): no tile
        return None
    if found is None:
        found = _read_indicators(value)
        if found is not None and len(_INDICATORS) < 4096:
            _INDICATORS[key] = found
    return found


_INDICATORS: dict[tuple[object, ...], tuple[tuple[TileKind, ...], int, int]] = {}


def _read_indicators(value: list[object]) -> tuple[tuple[TileKind, ...], int, int] | None:
    kinds = []
    packed = reds = 0
    for v in value:
        tile = _ONE_TILE.get(v) if type(v) is str else None
        if tile is None:
            return None
        kinds.append(tile[0])
        packed += tile[1]
        reds += tile[2]
    return tuple(kinds), packed, reds


def fast_parts(request: object, rules: AnyRules) -> tuple[ScoreValues, bool, bool] | None:
    """``score_parts``' answer for a plainly valid request, from kind counts; ``None`` for any
    request that ``score_parts`` must read (see above).  Raises ``NotWinning``, ``NoYaku`` and
    ``InvalidHand`` (an impossible combination of flags) as ``score_parts`` does."""
    if type(request) is not dict:
        return None
    flags = request.keys() - _NOT_FLAGS  # the flags given, and any unknown field
    if flags and not flags <= _FLAG_SET:
        return None
    get = request.get
    hand, win = get("hand"), get("win")
    if type(hand) is not str or type(win) is not str:
        return None
    if "red_fives" in request:
        red_fives = request["red_fives"]
        if red_fives is not rules.red_fives:
            if red_fives is not True and red_fives is not False:
                return None
            rules = _with_red_fives(rules, red_fives)
    counts = mpsz_counts(hand)
    win_tile = _ONE_TILE.get(win)
    if counts is None or win_tile is None:
        return None
    packed, n, hand_reds = counts
    everything, tiles, reds = packed, n, hand_reds  # every tile of the request, for the copy check
    melds: list[MeldKinds] = []
    if "melds" in request:
        raw = request["melds"]
        if type(raw) is not list:
            return None
        for m in raw:
            if type(m) is not dict or not m.keys() <= _MELD_FIELDS:
                return None
            mtype, mtext = m.get("type"), m.get("tiles")
            if type(mtype) is not str or type(mtext) is not str:
                return None
            shape = _MELD_SHAPE.get(mtype)
            meld = _meld_tiles(mtext)
            if shape is None or meld is None or meld[1] != shape[0]:
                return None
            melds.append((meld[0], meld[1], shape[1]))
            everything += meld[2]
            reds += meld[3]
            tiles += meld[1]
    if n + 3 * len(melds) != 14:
        return None
    red_hand = reds  # red fives of the hand and melds (the indicators' count for copies only)
    indicators: dict[str, tuple[TileKind, ...]] = {"dora": (), "ura": ()}
    for key in ("dora", "ura"):
        if key in request:
            found = _indicator_tiles(request[key])
            if found is None:
                return None
            indicators[key] = found[0]
            everything += found[1]
            reds += found[2]
            tiles += len(found[0])
    dora, ura = indicators["dora"], indicators["ura"]
    kita, honba, deposits = get("kita", 0), get("honba", 0), get("deposits", 0)
    if type(kita) is not int or type(honba) is not int or type(deposits) is not int:
        return None
    if not 0 <= kita <= 4 or honba < 0 or deposits < 0:
        return None
    everything += kita << (8 * NORTH)
    tiles += kita
    seat, round_wind = get("seat", "E"), get("round", "E")
    if type(seat) is not str or type(round_wind) is not str or seat not in WINDS or round_wind not in ROUNDS:
        return None
    # One physical set of 108: at most four of a kind, one red five of each, three plain fives.
    if tiles > _MAX_TILES or (everything + _FIFTH) & _HIGH:
        return None
    red = 0
    if reds:
        red_p, red_s = (reds >> _P5_SHIFT) & 0xFF, (reds >> _S5_SHIFT) & 0xFF
        if not rules.red_fives or red_p > 1 or red_s > 1:
            return None
        red = ((red_hand >> _P5_SHIFT) & 0xFF) + ((red_hand >> _S5_SHIFT) & 0xFF)
    else:
        red_p = red_s = 0
    if rules.red_fives and (
        ((everything >> _P5_SHIFT) & 0xFF) - red_p > 3 or ((everything >> _S5_SHIFT) & 0xFF) - red_s > 3
    ):
        return None
    # The winning tile must be in the hand, red if written red, plain if written plain.
    win_kind, unit, red_unit = win_tile
    if not ((hand_reds & unit) if red_unit else ((packed - hand_reds) >> (8 * win_kind)) & 0xFF):
        return None
    ctx = _new(RequestContext)
    ctx.tsumo = ctx.riichi = ctx.double_riichi = ctx.ippatsu = ctx.rinshan = False
    ctx.chankan = ctx.haitei = ctx.houtei = ctx.tenhou = ctx.chiihou = False
    for flag in flags:
        value = request[flag]
        if value is not True and value is not False:
            return None
        setattr(ctx, flag, value)
    ctx.seat_wind = seat_wind = WINDS[seat]
    ctx.round_wind = ROUNDS[round_wind]
    ctx.dora_indicators = dora
    ctx.ura_indicators = ura
    ctx.kita = kita
    ctx.honba = honba
    ctx.deposits = deposits
    return score_counts(packed, win_kind, melds, ctx, rules, red), ctx.tsumo, seat_wind == EAST


_new = object.__new__


class RequestContext:
    """A request's ``WinContext`` as a plain object (a ``context.WinFacts``), which ``fast_parts``
    fills in whole: a frozen dataclass of 17 fields costs ~4 us to build, this ~1 us, and its
    slots read as quickly (a test holds every value equal to the ``WinContext`` that
    ``score_parts`` builds for the same request)."""

    __slots__ = (
        "chankan",
        "chiihou",
        "deposits",
        "dora_indicators",
        "double_riichi",
        "haitei",
        "honba",
        "houtei",
        "ippatsu",
        "kita",
        "riichi",
        "rinshan",
        "round_wind",
        "seat_wind",
        "tenhou",
        "tsumo",
        "ura_indicators",
    )
    tsumo: bool
    riichi: bool
    double_riichi: bool
    ippatsu: bool
    rinshan: bool
    chankan: bool
    haitei: bool
    houtei: bool
    tenhou: bool
    chiihou: bool
    seat_wind: TileKind
    round_wind: TileKind
    dora_indicators: tuple[TileKind, ...]
    ura_indicators: tuple[TileKind, ...]
    kita: int
    honba: int
    deposits: int


_RULES_WITH_RED: dict[tuple[AnyRules, bool], AnyRules] = {}


def _with_red_fives(rules: AnyRules, red_fives: bool) -> AnyRules:
    key = (rules, red_fives)
    if key not in _RULES_WITH_RED:
        _RULES_WITH_RED[key] = rules.with_options(red_fives=red_fives)
    return _RULES_WITH_RED[key]


def _yaku_order(yaku: tuple[str, int]) -> int:
    return ORDER[yaku[0]]


def _find_win(concealed: list[Tile], items: list[tuple[TileKind, bool]], win: tuple[TileKind, bool]) -> Tile:
    if win in items:
        return concealed[items.index(win)]  # the first copy written, as a reader would take it
    raise InvalidHand("the winning tile must be in the hand")


# The JSON text of a scored line, equal to ``json.dumps`` of ``score_request``'s object.  Each
# yaku entry's text (``["riichi", 1]``) is made once by ``json.dumps`` and kept: a file's yaku
# lists are mostly distinct (dora counts), and ``json.dumps`` of a list is ~10 us, a line's third.
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


def _score_json(values: ScoreValues, tsumo: bool, dealer: bool) -> str:
    han, fu, yakuman, limit, yaku, _, (ron, dealer_pays, non_dealer_pays), total, _ = values
    if not tsumo:
        payments = f'{{"ron": {ron}}}'
    elif dealer:
        payments = f'{{"non_dealer": {non_dealer_pays}}}'
    else:
        payments = f'{{"dealer": {dealer_pays}, "non_dealer": {non_dealer_pays}}}'
    return (
        f'{{"han": {han}, "fu": {fu}, "yakuman": {yakuman}, "limit": "{limit}", '
        f'"yaku": {_yaku_text(yaku)}, "payments": {payments}, "total": {total}}}'
    )
