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

import json
import sys
from json.scanner import make_scanner

from sanma.cli import answer_lines
from sanma.engine.context import WinContext
from sanma.engine.errors import InvalidHand, InvalidNotation, NotWinning, NoYaku, SanmaError
from sanma.engine.hand import Meld, MeldType
from sanma.engine.rules import PRESET_NAMES, Rules, preset
from sanma.engine.scoring import Payments, ScoreValues, score_values
from sanma.engine.tiles import EAST, NORTH, SOUTH, WEST, Tile, TileKind, assign_tiles, parse, parse_one
from sanma.engine.yaku import ORDER

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing argparse and typing at start-up
if TYPE_CHECKING:
    import argparse
    from typing import Any, TextIO

FLAGS = ("tsumo", "riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei", "houtei", "tenhou", "chiihou")
FIELDS = frozenset(
    {"hand", "win", "melds", "seat", "round", "dora", "ura", "kita", "honba", "deposits", "red_fives", *FLAGS}
)
_FLAG_SET = frozenset(FLAGS)
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
    answer_lines(inp, out, lambda line: score_text(line, rules))


def score_text(line: str, rules: Rules) -> str:
    """The output line of one input line, as JSON text (no newline)."""
    try:
        request = decode_line(line)
    except json.JSONDecodeError as exc:
        return json.dumps({"error": "invalid", "detail": f"not JSON: {exc.msg}"})
    try:
        return _score_json(*score_parts(request, rules))
    except SanmaError as exc:
        return json.dumps(_error(exc))


def score_line(line: str, rules: Rules) -> dict[str, Any]:
    """The output object of one input line (an error object on failure)."""
    try:
        request = decode_line(line)
    except json.JSONDecodeError as exc:
        return {"error": "invalid", "detail": f"not JSON: {exc.msg}"}
    try:
        return score_request(request, rules)
    except SanmaError as exc:
        return _error(exc)


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


def score_request(request: object, rules: Rules) -> dict[str, Any]:
    """Score one decoded request object (raises ``SanmaError`` subclasses on failure)."""
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


def score_parts(request: object, rules: Rules) -> tuple[ScoreValues, bool, bool]:
    """Score one decoded request: (``score_values``' result, tsumo, the winner is the dealer).  Raises
    ``SanmaError`` subclasses on failure; the checks run in a fixed order, so a line with
    several faults always reports the same one."""
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


_RULES_WITH_RED: dict[tuple[Rules, bool], Rules] = {}


def _with_red_fives(rules: Rules, red_fives: bool) -> Rules:
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


# The JSON text of a scored line, equal to ``json.dumps`` of ``score_request``'s object.  The
# yaku list's text is kept per yaku tuple (a few hundred distinct ones in a file).
_YAKU_TEXT: dict[tuple[tuple[str, int], ...], str] = {}
_YAKU_TEXT_MAX = 1 << 14


def _yaku_text(yaku: tuple[tuple[str, int], ...]) -> str:
    text = _YAKU_TEXT.get(yaku)
    if text is None:
        text = json.dumps([[name, han] for name, han in sorted(yaku, key=_yaku_order)])
        if len(_YAKU_TEXT) < _YAKU_TEXT_MAX:
            _YAKU_TEXT[yaku] = text
    return text


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
