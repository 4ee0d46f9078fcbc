"""``sanma score``: score winning hands, JSON lines in and out (spec/cli.md).

Each input line is scored on its own; a bad line gets an ``{"error": ...}`` line and the
stream goes on.  The exit status is 0 once the input has been read to its end.
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import lru_cache
from typing import Any, TextIO

from sanma.cli import answer_lines
from sanma.engine.context import WinContext
from sanma.engine.errors import InvalidHand, InvalidNotation, NotWinning, NoYaku, SanmaError
from sanma.engine.hand import Meld, MeldType
from sanma.engine.rules import PRESET_NAMES, Rules, preset
from sanma.engine.scoring import score_win
from sanma.engine.tiles import EAST, NORTH, SOUTH, WEST, Tile, TileKind, assign_tiles, parse, parse_one
from sanma.engine.yaku import ORDER

FLAGS = ("tsumo", "riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei", "houtei", "tenhou", "chiihou")
FIELDS = frozenset(
    {"hand", "win", "melds", "seat", "round", "dora", "ura", "kita", "honba", "deposits", "red_fives", *FLAGS}
)
WINDS = {"E": EAST, "S": SOUTH, "W": WEST}
MELD_TYPES = {t.value: t for t in MeldType}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sanma score``."""
    parser.add_argument("--rules", choices=PRESET_NAMES, default="default", help="rule preset (default: default)")


def run(args: argparse.Namespace) -> int:
    """Score every line of standard input."""
    rules = preset(args.rules)
    score_stream(sys.stdin, sys.stdout, rules)
    return 0


def score_stream(inp: TextIO, out: TextIO, rules: Rules) -> None:
    """Answer each non-blank input line with one output line, in order."""
    answer_lines(inp, out, lambda line: score_line(line, rules))


def score_line(line: str, rules: Rules) -> dict[str, Any]:
    """The output object of one input line (an error object on failure)."""
    try:
        request = json.loads(line)
    except json.JSONDecodeError as exc:
        return {"error": "invalid", "detail": f"not JSON: {exc.msg}"}
    try:
        return score_request(request, rules)
    except NoYaku:
        return {"error": "no_yaku"}
    except NotWinning:
        return {"error": "not_winning"}
    except SanmaError as exc:
        return {"error": "invalid", "detail": str(exc)}


@lru_cache(maxsize=16)
def _with_red_fives(rules: Rules, red_fives: bool) -> Rules:
    return rules.with_options(red_fives=red_fives)


def _bool(request: dict[str, Any], key: str, default: bool = False) -> bool:
    value = request.get(key, default)
    if not isinstance(value, bool):
        raise InvalidHand(f"{key} must be true or false")
    return value


def _int(request: dict[str, Any], key: str) -> int:
    value = request.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidHand(f"{key} must be a non-negative integer")
    return value


def _str(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise InvalidHand(f"{what} must be an mpsz string")
    return value


def _indicators(request: dict[str, Any], key: str) -> list[tuple[TileKind, bool]]:
    value = request.get(key, [])
    if not isinstance(value, list):
        raise InvalidHand(f"{key} must be a list of tiles")
    out = []
    for v in value:
        items = parse(_str(v, f"each {key} indicator"))
        if len(items) != 1:
            raise InvalidNotation(f"expected one tile, got {len(items)}: {v!r}")
        out += items
    return out


def score_request(request: object, rules: Rules) -> dict[str, Any]:
    """Score one decoded request object (raises ``SanmaError`` subclasses on failure)."""
    if not isinstance(request, dict):
        raise InvalidHand("each line must be a JSON object")
    unknown = request.keys() - FIELDS
    if unknown:
        raise InvalidHand(f"unknown field(s): {', '.join(sorted(unknown))}")
    if "hand" not in request or "win" not in request:
        raise InvalidHand("hand and win are required")
    red_fives = _bool(request, "red_fives", rules.red_fives)
    if red_fives != rules.red_fives:
        rules = _with_red_fives(rules, red_fives)
    hand_items = parse(_str(request["hand"], "hand"))
    win_item = parse_one(_str(request["win"], "win"))
    raw_melds = request.get("melds", [])
    if not isinstance(raw_melds, list):
        raise InvalidHand("melds must be a list")
    meld_specs: list[tuple[MeldType, list[tuple[TileKind, bool]]]] = []
    for m in raw_melds:
        if not isinstance(m, dict) or m.keys() - {"type", "tiles"} or m.get("type") not in MELD_TYPES:
            raise InvalidHand('each meld is {"type": "pon"|"daiminkan"|"kakan"|"ankan", "tiles": "..."}')
        meld_specs.append((MELD_TYPES[m["type"]], parse(_str(m.get("tiles"), "meld tiles"))))
    dora = _indicators(request, "dora")
    ura = _indicators(request, "ura")
    kita = _int(request, "kita")
    seat = request.get("seat", "E")
    round_wind = request.get("round", "E")
    if seat not in WINDS:
        raise InvalidHand('seat is "E", "S" or "W"')
    if round_wind not in ("E", "S"):
        raise InvalidHand('round is "E" or "S"')
    # One physical set of 108: hand, melds, indicators and extracted Norths together.
    everything = hand_items + [t for _, items in meld_specs for t in items] + dora + ura + [(NORTH, False)] * kita
    tiles = assign_tiles(everything, rules.red_fives)
    concealed = tiles[: len(hand_items)]
    pos = len(hand_items)
    melds: list[Meld] = []
    for mtype, items in meld_specs:
        melds.append(Meld(mtype, tuple(tiles[pos : pos + len(items)])))
        pos += len(items)
    win_tile = _find_win(concealed, hand_items, win_item)
    flags: dict[str, bool] = {}
    for f in FLAGS:
        value = request.get(f, False)
        if value is not True and value is not False:
            raise InvalidHand(f"{f} must be true or false")
        flags[f] = value
    ctx = WinContext(
        **flags,
        seat_wind=WINDS[seat],
        round_wind=WINDS[round_wind],
        dora_indicators=tuple(k for k, _ in dora),
        ura_indicators=tuple(k for k, _ in ura),
        kita=kita,
        honba=_int(request, "honba"),
        deposits=_int(request, "deposits"),
    )
    score = score_win(concealed, win_tile, melds, ctx, rules)
    return {
        "han": score.han,
        "fu": score.fu,
        "yakuman": score.yakuman,
        "limit": score.limit,
        "yaku": [[name, han] for name, han in sorted(score.yaku, key=_yaku_order)],
        "payments": score.payments.as_dict(ctx.tsumo, ctx.seat_wind == EAST),
        "total": score.total,
    }


def _yaku_order(yaku: tuple[str, int]) -> int:
    return ORDER[yaku[0]]


def _find_win(concealed: list[Tile], items: list[tuple[TileKind, bool]], win: tuple[TileKind, bool]) -> Tile:
    for tile, item in zip(concealed, items, strict=True):
        if item == win:
            return tile
    raise InvalidHand("the winning tile must be in the hand")
