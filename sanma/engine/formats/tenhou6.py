"""tenhou.net/6 JSON game logs of three-player games: read them into recorded hands.

A tenhou.net/6 hand keeps per-seat arrays (haipai, draws, discards); this adapter
turns them into what our engine understands: a scripted ``Deal`` and the time-ordered
list of ``(seat, Action)`` the log implies, plus the recorded result.  The format is
described in ``shared/testdata/FORMAT.md`` section 1 and in ``docs/formats.md``.

Turn order is rebuilt by simulation: after a discard the next actor is the seat whose
next draws entry is a call string taking that tile from the discarder, else the next
seat.  When two readings are possible (two seats hold a matching call string), every
reading is tried and the one that consumes the whole log is kept.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Final, Literal

from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pass, Pon, Ron, Tsumo
from sanma.engine.errors import InvalidHand, InvalidLog, SanmaError
from sanma.engine.events import (
    DoraRevealed,
    HandAborted,
    HandDrawn,
    HandStarted,
    HandWon,
    KitaDeclared,
    KyokuEvent,
    MatchEnded,
    MatchStarted,
    MeldCalled,
    TileDiscarded,
    TileDrawn,
)
from sanma.engine.hand import Meld, MeldType
from sanma.engine.kyoku import Kyoku, KyokuResult, WinRecord
from sanma.engine.legality import kita_tile
from sanma.engine.rules import Rules, preset
from sanma.engine.scoring import Score, ron_payment, tsumo_payments
from sanma.engine.tiles import EAST, KIND_COUNT, NORTH, P5, S5, Tile, TileKind, kind_of, seat_wind
from sanma.engine.wall import Deal

SEATS: Final = 3
HAND_LENGTH: Final = 17
TSUMOGIRI: Final = 60
DAIMINKAN_PLACEHOLDER: Final = 0
KITA_CODE: Final = "f44"

Outcome = Literal["won", "drawn", "aborted"]


class TenhouLogError(InvalidLog):
    """A tenhou.net/6 log that cannot be read, with where it went wrong.

    ``source`` is the file (or any label the caller gave), ``hand`` the 0-based hand
    index (``None`` for the game header) and ``position`` a short description such as
    ``"seat 1 draws[4]"``.
    """

    def __init__(self, message: str, *, source: str = "", hand: int | None = None, position: str = "") -> None:
        self.source = source
        self.hand = hand
        self.position = position
        self.reason = message
        where = [p for p in (source, f"hand {hand}" if hand is not None else "", position) if p]
        super().__init__(f"{': '.join(where)}: {message}" if where else message)


# ---------------------------------------------------------------------------
# tile codes


def code_to_kind(code: int) -> tuple[TileKind, bool]:
    """A tenhou tile code (11..47, red 52/53) as ``(kind, red)``; raises ``InvalidHand``.

    >>> code_to_kind(11), code_to_kind(19), code_to_kind(25), code_to_kind(52), code_to_kind(44)
    ((0, False), (1, False), (6, False), (6, True), (23, False))
    """
    if isinstance(code, bool) or not isinstance(code, int):
        raise InvalidHand(f"a tile code must be an integer, not {code!r}")
    if code == 11:
        return 0, False
    if code == 19:
        return 1, False
    if 21 <= code <= 29:
        return 2 + code - 21, False
    if 31 <= code <= 39:
        return 11 + code - 31, False
    if 41 <= code <= 47:
        return EAST + code - 41, False
    if code == 52:
        return P5, True
    if code == 53:
        return S5, True
    raise InvalidHand(f"no sanma tile has the tenhou code {code}")


def kind_to_code(kind: TileKind, red: bool = False) -> int:
    """The tenhou code of a kind (red 5p/5s -> 52/53).

    >>> [kind_to_code(k) for k in (0, 1, 2, 11, 20, 26)], kind_to_code(P5, True)
    ([11, 19, 21, 31, 41, 47], 52)
    """
    if red:
        return 52 if kind == P5 else 53
    if kind == 0:
        return 11
    if kind == 1:
        return 19
    if kind < 11:
        return 21 + kind - 2
    if kind < EAST:
        return 31 + kind - 11
    return 41 + kind - EAST


def tile_code(tile: Tile, red_fives: bool = True) -> int:
    """The tenhou code of a physical tile (copy 0 of 5p/5s is red with red fives)."""
    kind = kind_of(tile)
    return kind_to_code(kind, red_fives and tile % 4 == 0 and kind in (P5, S5))


@dataclass(slots=True)
class _Allocator:
    """Hands out distinct physical tiles for tenhou codes: red codes get copy 0, plain
    fives the other copies, so no tile is used twice."""

    red_fives: bool
    used: list[int] = field(default_factory=lambda: [0] * KIND_COUNT)
    red_used: list[bool] = field(default_factory=lambda: [False] * KIND_COUNT)

    def take(self, code: int) -> Tile:
        kind, red = code_to_kind(code)
        if red:
            if not self.red_fives:
                raise InvalidHand(f"red five {code} in a game without red fives")
            if self.red_used[kind]:
                raise InvalidHand(f"a second red five {code}")
            self.red_used[kind] = True
            return kind * 4
        first = 1 if self.red_fives and kind in (P5, S5) else 0
        copy_ = first + self.used[kind]
        if copy_ > 3:
            raise InvalidHand(f"a fifth copy of tile {code}")
        self.used[kind] += 1
        return kind * 4 + copy_


# ---------------------------------------------------------------------------
# recorded values


@dataclass(frozen=True, slots=True)
class RecordedPayment:
    """What the score text says each payer pays, honba and sticks excluded.

    Ron: ``ron``.  Non-dealer tsumo: ``dealer`` and ``non_dealer``.  Dealer tsumo:
    ``non_dealer`` (each of the two pays it).
    """

    ron: int = 0
    dealer: int = 0
    non_dealer: int = 0


@dataclass(frozen=True, slots=True)
class RecordedWin:
    """One winner as the log records it."""

    seat: int
    from_seat: int
    pao_seat: int
    han: int  # sum of the yaku han; 13 x multiplier for a true yakuman
    fu: int  # 0 when the text shows no fu (mangan and above)
    yakuman: int  # multiplier of a true yakuman, 1 for a counted one (13+ han), else 0
    limit: str  # none mangan haneman baiman sanbaiman yakuman
    payment: RecordedPayment
    points_text: str
    yaku: tuple[tuple[str, int], ...]  # (name as written, han); a yakuman counts 13
    deltas: tuple[int, int, int]

    @property
    def tsumo(self) -> bool:
        """The winner drew the tile."""
        return self.seat == self.from_seat


@dataclass(frozen=True, slots=True)
class RecordedResult:
    """Element 16 of a hand: how it ended and who paid what."""

    outcome: Outcome
    name: str  # the log's word: 和了, 流局, 九種九牌, ...
    reason: str  # "" for a win; exhaustive, nine_terminals, four_kans, nagashi, ...
    deltas: tuple[int, int, int]  # sum over all wins, riichi deposits of this hand excluded
    wins: tuple[RecordedWin, ...] = ()


@dataclass(frozen=True, slots=True)
class RecordedHand:
    """One hand of a log, ready to replay: the deal, the actions in time order, the result."""

    index: int
    round_wind: TileKind
    dealer: int
    honba: int
    deposits: int
    scores: tuple[int, int, int]
    deal: Deal
    actions: tuple[tuple[int, Action], ...]
    result: RecordedResult
    riichi: tuple[int, ...]  # seats that declared riichi (accepted or not)


@dataclass(frozen=True, slots=True)
class RecordedGame:
    """A whole tenhou.net/6 game."""

    source: str
    ref: str
    rule_name: str
    red_fives: bool
    names: tuple[str, str, str]
    final_scores: tuple[int, int, int] | None
    hands: tuple[RecordedHand, ...]
    raw: dict[str, object]

    @property
    def preset_name(self) -> str:
        """The rule preset the log's own rule name implies (see ``preset_for_rule_name``)."""
        return preset_for_rule_name(self.rule_name, source=self.source)


def preset_for_rule_name(name: str, *, source: str = "") -> str:
    """``mahjongsoul`` for Mahjong Soul's ``三...の間`` rooms, ``tenhou`` for Tenhou's ``三...``.

    >>> preset_for_rule_name("三鳳南喰赤"), preset_for_rule_name("三金の間赤")
    ('tenhou', 'mahjongsoul')
    """
    if not name.startswith("三"):
        raise TenhouLogError(f"rule {name!r} is not a three-player room", source=source)
    return "mahjongsoul" if "の間" in name else "tenhou"


# ---------------------------------------------------------------------------
# JSON helpers


def _int(value: object, what: str, err: _Err) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise err(f"{what} must be an integer, not {value!r}")
    return value


def _list(value: object, what: str, err: _Err) -> list[object]:
    if not isinstance(value, list):
        raise err(f"{what} must be an array, not {type(value).__name__}")
    return value


@dataclass(frozen=True, slots=True)
class _Err:
    """Builds ``TenhouLogError`` values for one hand."""

    source: str
    hand: int | None

    def __call__(self, message: str, position: str = "") -> TenhouLogError:
        return TenhouLogError(message, source=self.source, hand=self.hand, position=position)


# ---------------------------------------------------------------------------
# call strings


@dataclass(frozen=True, slots=True)
class CallString:
    """A parsed call string: ``letter`` p m k a, its character ``offset``, ``codes`` of the
    tiles in written order (for ``k`` the added tile first) and ``marked`` the code written
    right after the letter (the called tile; for ``k`` the added tile)."""

    letter: str
    offset: int
    codes: tuple[int, ...]
    marked: int


_CALL_RE: Final = re.compile(r"^(\d\d)*([pmka])(\d\d)+$")


def parse_call(text: str) -> CallString:
    """Read a call string such as ``"45p4545"`` or ``"272727a27"``; raises ``InvalidHand``.

    >>> parse_call("45p4545")
    CallString(letter='p', offset=2, codes=(45, 45, 45), marked=45)
    """
    if not _CALL_RE.match(text):
        raise InvalidHand(f"not a call string: {text!r}")
    offset = next(i for i, ch in enumerate(text) if ch.isalpha())
    digits = text[:offset] + text[offset + 1 :]
    codes = tuple(int(digits[i : i + 2]) for i in range(0, len(digits), 2))
    marked = int(text[offset + 1 : offset + 3])
    letter = text[offset]
    want = {"p": 3, "m": 4, "a": 4, "k": 4}[letter]
    if len(codes) != want:
        raise InvalidHand(f"a {letter!r} call string holds {want} tiles: {text!r}")
    for code in codes:
        code_to_kind(code)
    if len({code_to_kind(c)[0] for c in codes}) != 1:
        raise InvalidHand(f"a call string must hold one kind: {text!r}")
    return CallString(letter, offset, codes, marked)


# Tenhou keeps the four-seat geometry: the letter's offset says where the tile came
# from (kamicha, toimen, shimocha); seat 3 does not exist in sanma.
_OFFSET_TO_DELTA: Final = {"p": {0: 3, 2: 2, 4: 1}, "m": {0: 3, 2: 2, 6: 1}, "k": {0: 3, 2: 2, 4: 1}}


def call_from_seat(call: CallString, seat: int) -> int:
    """The seat a pon/daiminkan/kakan string says the tile came from; raises ``InvalidHand``."""
    delta = _OFFSET_TO_DELTA.get(call.letter, {}).get(call.offset)
    if delta is None:
        raise InvalidHand(f"no seat sits at offset {call.offset} of a {call.letter!r} call")
    source = (seat + delta) % 4
    if source == 3:
        raise InvalidHand(f"seat {seat}'s call points at seat 3, which sanma does not have")
    return source


def call_offset(letter: str, seat: int, from_seat: int) -> int:
    """The offset of the letter in a call string by ``seat`` of a tile from ``from_seat``."""
    delta = (from_seat - seat) % 4
    if from_seat == seat or (seat + delta) % 4 == 3:
        raise InvalidHand("a call must take a tile from another sanma seat")
    return {v: k for k, v in _OFFSET_TO_DELTA[letter].items()}[delta]


# ---------------------------------------------------------------------------
# results

_LIMIT_WORDS: Final = {
    "満貫": "mangan",
    "跳満": "haneman",
    "倍満": "baiman",
    "三倍満": "sanbaiman",
    "役満": "yakuman",
    "数え役満": "yakuman",
}
_POINTS_RE: Final = re.compile(r"^(?:(\d+)符(\d+)飜|(満貫|跳満|倍満|三倍満|数え役満|役満))(\d+)(?:-(\d+))?点(∀)?$")
_YAKU_RE: Final = re.compile(r"^(.+)\((\d+)飜\)$|^(.+)\(役満\)$")
_DRAW_REASONS: Final = {
    "流局": ("drawn", "exhaustive"),
    "全員聴牌": ("drawn", "exhaustive"),
    "全員不聴": ("drawn", "exhaustive"),
    "流し満貫": ("drawn", "nagashi"),
    "九種九牌": ("aborted", "nine_terminals"),
    "四槓散了": ("aborted", "four_kans"),
}
_LIMIT_BY_BASE: Final = {2000: "mangan", 3000: "haneman", 4000: "baiman", 6000: "sanbaiman"}


def _deltas(value: object, err: _Err, what: str) -> tuple[int, int, int]:
    items = _list(value, what, err)
    if len(items) != 4:
        raise err(f"{what} must hold 4 numbers")
    nums = [_int(v, what, err) for v in items]
    if nums[3] != 0:
        raise err(f"{what}: seat 3 must be 0 in sanma")
    return nums[0], nums[1], nums[2]


def _parse_points(text: str, tsumo: bool, err: _Err) -> tuple[int, str, RecordedPayment]:
    m = _POINTS_RE.match(text)
    if not m:
        raise err(f"unreadable score text {text!r}", "result")
    fu = int(m.group(1)) if m.group(1) else 0
    limit = _LIMIT_WORDS[m.group(3)] if m.group(3) else "none"
    first, second, each = int(m.group(4)), m.group(5), m.group(6)
    if not tsumo:
        if second or each:
            raise err(f"a ron score text has one amount: {text!r}", "result")
        return fu, limit, RecordedPayment(ron=first)
    if each:
        return fu, limit, RecordedPayment(non_dealer=first)
    if second is None:
        raise err(f"a tsumo score text needs two amounts or ∀: {text!r}", "result")
    return fu, limit, RecordedPayment(non_dealer=first, dealer=int(second))


def _parse_win(deltas: object, info: object, dealer: int, err: _Err) -> RecordedWin:
    d = _deltas(deltas, err, "win deltas")
    items = _list(info, "win info", err)
    if len(items) < 5:
        raise err("win info needs winner, from, pao, score text and yaku", "result")
    seat, from_seat, pao = (_int(v, "win seat", err) for v in items[:3])
    if not all(0 <= s < SEATS for s in (seat, from_seat, pao)):
        raise err(f"win info names a seat outside 0..2: {items[:3]}", "result")
    text = items[3]
    if not isinstance(text, str):
        raise err("the score text must be a string", "result")
    fu, limit, payment = _parse_points(text, seat == from_seat, err)
    yaku: list[tuple[str, int]] = []
    yakuman_names = 0
    for raw in items[4:]:
        m = _YAKU_RE.match(raw) if isinstance(raw, str) else None
        if not m:
            raise err(f"unreadable yaku {raw!r}", "result")
        if m.group(3):
            yaku.append((m.group(3), 13))
            yakuman_names += 1
        else:
            yaku.append((m.group(1), int(m.group(2))))
    if yakuman_names:
        yakuman = _yakuman_multiple(payment, seat == dealer)
        han = 13 * yakuman
    else:
        # A counted yakuman (13 han or more) lists its normal yaku with their han under a
        # yakuman limit word: one yakuman, its real han.
        yakuman = 1 if limit == "yakuman" else 0
        han = sum(h for _, h in yaku)
    return RecordedWin(seat, from_seat, pao, han, fu, yakuman, limit, payment, text, tuple(yaku), d)


def _yakuman_multiple(payment: RecordedPayment, winner_is_dealer: bool) -> int:
    # Mahjong Soul writes a double yakuman under one name, so read the multiple off the points.
    if payment.ron:
        return max(1, payment.ron // (48000 if winner_is_dealer else 32000))
    if payment.dealer:
        return max(1, payment.dealer // 16000)
    return max(1, payment.non_dealer // 16000)


def _parse_result(value: object, dealer: int, err: _Err) -> RecordedResult:
    items = _list(value, "result", err)
    if not items or not isinstance(items[0], str):
        raise err("the result must start with its name", "result")
    name = items[0]
    if name == "和了":
        if len(items) < 3 or len(items) % 2 != 1:
            raise err("a win result holds (deltas, info) pairs", "result")
        wins = tuple(_parse_win(items[i], items[i + 1], dealer, err) for i in range(1, len(items), 2))
        total = tuple(sum(w.deltas[s] for w in wins) for s in range(SEATS))
        return RecordedResult("won", name, "", (total[0], total[1], total[2]), wins)
    if name not in _DRAW_REASONS:
        raise err(f"unknown result {name!r} (not a sanma outcome)", "result")
    outcome, reason = _DRAW_REASONS[name]
    deltas = _deltas(items[1], err, "draw deltas") if len(items) > 1 else (0, 0, 0)
    return RecordedResult("drawn" if outcome == "drawn" else "aborted", name, reason, deltas)


# ---------------------------------------------------------------------------
# the turn-order simulation


class _Stuck(Exception):
    """This reading of the arrays does not work; ``progress`` ranks how far it got."""

    def __init__(self, message: str, position: str, progress: int) -> None:
        super().__init__(message)
        self.message = message
        self.position = position
        self.progress = progress


@dataclass(slots=True)
class _Sim:
    draws: tuple[tuple[object, ...], ...]
    discards: tuple[tuple[object, ...], ...]
    result: RecordedResult
    alloc: _Allocator
    hands: list[list[Tile]]
    melds: list[list[tuple[str, TileKind]]]  # ("pon"|"kan", kind) per seat, for kakan checks
    ptr: list[int] = field(default_factory=lambda: [0, 0, 0])
    actions: list[tuple[int, Action]] = field(default_factory=list)
    live: list[Tile] = field(default_factory=list)
    replacements: list[Tile] = field(default_factory=list)
    riichi: list[int] = field(default_factory=list)

    def progress(self) -> int:
        return len(self.actions)

    def stuck(self, message: str, position: str) -> _Stuck:
        return _Stuck(message, position, self.progress())

    def consumed(self) -> bool:
        return all(self.ptr[s] == len(self.draws[s]) == len(self.discards[s]) for s in range(SEATS))

    def take_from_hand(self, seat: int, code: int, position: str, avoid: Tile | None = None) -> Tile:
        try:
            kind, red = code_to_kind(code)
        except InvalidHand as exc:
            raise self.stuck(str(exc), position) from None
        candidates = [t for t in self.hands[seat] if kind_of(t) == kind and self._is_red(t) == red]
        if not candidates:
            raise self.stuck(f"seat {seat} does not hold tile {code}", position)
        # Keep the drawn tile when another copy was meant, so tedashi stays tedashi.
        preferred = [t for t in candidates if t != avoid] or candidates
        tile = min(preferred)
        self.hands[seat].remove(tile)
        return tile

    def _is_red(self, tile: Tile) -> bool:
        return self.alloc.red_fives and tile % 4 == 0 and kind_of(tile) in (P5, S5)

    # One seat's turn from its draw (or its call) to the end of its turn.
    def turn(self, seat: int, replacement: bool) -> tuple[str, int, Tile | None]:
        """Play ``seat``'s turn; returns what ended it: ("discard", seat, tile),
        ("kita"|"kan", seat, None) or ("end", seat, None)."""
        i = self.ptr[seat]
        pos = f"seat {seat} draws[{i}]"
        if i >= len(self.draws[seat]):
            return "end", seat, None
        entry = self.draws[seat][i]
        if isinstance(entry, str):
            raise self.stuck(f"a call {entry!r} where seat {seat} should draw", pos)
        try:
            drawn = self.alloc.take(_code(entry, pos, self))
        except InvalidHand as exc:
            raise self.stuck(str(exc), pos) from None
        (self.replacements if replacement else self.live).append(drawn)
        self.hands[seat].append(drawn)
        if i >= len(self.discards[seat]):
            self.ptr[seat] += 1
            return "end", seat, drawn
        return self.act(seat, drawn)

    def act(self, seat: int, drawn: Tile | None) -> tuple[str, int, Tile | None]:
        """The discards entry at the seat's pointer: a discard, kita or kan."""
        i = self.ptr[seat]
        pos = f"seat {seat} discards[{i}]"
        entry = self.discards[seat][i]
        self.ptr[seat] += 1
        if entry == KITA_CODE:
            # The same physical North the engine sets aside (the drawn one, else the lowest).
            if not any(kind_of(t) == NORTH for t in self.hands[seat]):
                raise self.stuck(f"seat {seat} has no North to set aside", pos)
            self.hands[seat].remove(kita_tile(self.hands[seat], drawn))
            self.actions.append((seat, Kita()))
            return "kita", seat, None
        if isinstance(entry, str) and entry.startswith("r"):
            tile = self.discard_tile(seat, entry[1:], drawn, pos)
            self.riichi.append(seat)
            self.actions.append((seat, Discard(tile, riichi=True)))
            return "discard", seat, tile
        if isinstance(entry, str):
            return self.self_kan(seat, entry, pos)
        tile = self.discard_tile(seat, entry, drawn, pos)
        self.actions.append((seat, Discard(tile)))
        return "discard", seat, tile

    def discard_tile(self, seat: int, entry: object, drawn: Tile | None, pos: str) -> Tile:
        if isinstance(entry, str):
            if not entry.isdigit():
                raise self.stuck(f"unreadable discard {entry!r}", pos)
            entry = int(entry)
        code = _code(entry, pos, self)
        if code == TSUMOGIRI:
            if drawn is None:
                raise self.stuck("tsumogiri (60) with no drawn tile", pos)
            self.hands[seat].remove(drawn)
            return drawn
        return self.take_from_hand(seat, code, pos, avoid=drawn)

    def self_kan(self, seat: int, text: str, pos: str) -> tuple[str, int, Tile | None]:
        try:
            call = parse_call(text)
        except InvalidHand as exc:
            raise self.stuck(str(exc), pos) from None
        kind = code_to_kind(call.codes[0])[0]
        if call.letter == "a":
            for code in call.codes:
                self.take_from_hand(seat, code, pos)
            self.melds[seat].append(("kan", kind))
        elif call.letter == "k":
            if ("pon", kind) not in self.melds[seat]:
                raise self.stuck(f"added kan {text!r} without a pon of that kind", pos)
            self.take_from_hand(seat, call.marked, pos)
            self.melds[seat].remove(("pon", kind))
            self.melds[seat].append(("kan", kind))
        else:
            raise self.stuck(f"{text!r} cannot stand among discards", pos)
        self.actions.append((seat, Kan(kind)))
        return "kan", seat, None

    def callers(self, seat: int, tile: Tile) -> list[tuple[int, CallString]]:
        """Seats whose next draws entry calls ``tile`` discarded by ``seat``."""
        out = []
        code = tile_code(tile, self.alloc.red_fives)
        for other in range(SEATS):
            i = self.ptr[other]
            if other == seat or i >= len(self.draws[other]):
                continue
            entry = self.draws[other][i]
            if not isinstance(entry, str):
                continue
            try:
                call = parse_call(entry)
                ok = call.letter in "pm" and call.marked == code and call_from_seat(call, other) == seat
            except InvalidHand as exc:
                raise self.stuck(str(exc), f"seat {other} draws[{i}]") from None
            if ok:
                out.append((other, call))
        return out

    def call(self, seat: int, call: CallString) -> tuple[str, int, Tile | None]:
        """``seat`` pons or open-kans the last discard; returns how its turn ended."""
        i = self.ptr[seat]
        pos = f"seat {seat} draws[{i}]"
        rest = list(call.codes)
        rest.remove(call.marked)
        for code in rest:
            self.take_from_hand(seat, code, pos)
        kind = code_to_kind(call.marked)[0]
        if call.letter == "p":
            reds = sum(code_to_kind(c)[1] for c in rest)
            self.actions.append((seat, Pon(kind, red=reds > 0)))
            self.melds[seat].append(("pon", kind))
            if i >= len(self.discards[seat]):
                raise self.stuck("a pon with no discard after it", pos)
            return self.act(seat, None)
        self.actions.append((seat, Kan(kind)))
        self.melds[seat].append(("kan", kind))
        if i == len(self.discards[seat]) and i + 2 == len(self.draws[seat]):
            # The replacement draw is the seat's last entry and wins: some writers leave the
            # open kan's 0 out, since no discard follows at all.  Read it as if it were there.
            self.discards = tuple((*d, DAIMINKAN_PLACEHOLDER) if s == seat else d for s, d in enumerate(self.discards))
        if i >= len(self.discards[seat]) or self.discards[seat][i] != DAIMINKAN_PLACEHOLDER:
            raise self.stuck("an open kan must be followed by a 0 in discards", f"seat {seat} discards[{i}]")
        self.ptr[seat] += 1
        return "kan", seat, None


def _code(entry: object, pos: str, sim: _Sim) -> int:
    if isinstance(entry, bool) or not isinstance(entry, int):
        raise sim.stuck(f"expected a tile code, got {entry!r}", pos)
    return entry


def _finish(sim: _Sim, how: str, seat: int) -> None:
    """Check the end of the arrays against the result and append the winning actions."""
    result = sim.result
    if how == "end-draw":
        if not all(sim.ptr[s] == len(sim.draws[s]) for s in range(SEATS)) or any(
            len(sim.discards[s]) != sim.ptr[s] - (1 if s == seat else 0) for s in range(SEATS)
        ):
            raise sim.stuck("a seat stops after a draw while others still have entries", f"seat {seat}")
        if result.outcome == "won" and all(w.seat == seat and w.tsumo for w in result.wins):
            sim.actions.append((seat, Tsumo()))
            return
        if result.reason == "nine_terminals":
            sim.actions.append((seat, NineTerminals()))
            return
        raise sim.stuck(f"seat {seat} stops after a draw but the result is {result.name}", f"seat {seat}")
    if not sim.consumed():
        raise sim.stuck("the arrays end unevenly", f"seat {seat}")
    if result.outcome == "won":
        if not all(w.from_seat == seat and not w.tsumo for w in result.wins):
            raise sim.stuck(f"the log ends on seat {seat}'s {how}, which the result does not ron", f"seat {seat}")
        # Winners claim in turn order from the discarder, as the engine resolves them.
        for win in sorted(result.wins, key=lambda w: (w.seat - seat) % SEATS):
            sim.actions.append((win.seat, Ron()))
        return
    if how != "discard":
        raise sim.stuck(f"the log ends on a {how} without a win", f"seat {seat}")


def _run(sim: _Sim, seat: int, replacement: bool) -> _Sim:
    """Play from ``seat``'s draw to the end; backtrack over ambiguous calls."""
    while True:
        how, who, tile = sim.turn(seat, replacement)
        if how == "end":
            if tile is None:
                raise sim.stuck(f"seat {who} has no draw left but the hand goes on", f"seat {who}")
            _finish(sim, "end-draw", who)
            return sim
        if how in ("kita", "kan"):
            if sim.consumed():
                _finish(sim, how, who)
                return sim
            seat, replacement = who, True
            continue
        assert tile is not None
        callers = sim.callers(who, tile)
        if not callers:
            if sim.consumed():
                _finish(sim, "discard", who)
                return sim
            seat, replacement = (who + 1) % SEATS, False
            continue
        return _branch(sim, who, callers)


def _branch(sim: _Sim, discarder: int, callers: list[tuple[int, CallString]]) -> _Sim:
    best: _Stuck | None = None
    options: list[tuple[int, CallString] | None] = [*callers]
    if all(c != (discarder + 1) % SEATS for c, _ in callers):
        options.append(None)  # nobody calls now; a listed call may take a later discard
    for option in options:
        trial = copy.deepcopy(sim) if len(options) > 1 else sim
        try:
            if option is None:
                return _run(trial, (discarder + 1) % SEATS, False)
            caller, call = option
            how, who, tile = trial.call(caller, call)
            if how == "kan":
                return _run(trial, caller, True)
            return _continue_after(trial, how, who, tile)
        except _Stuck as exc:
            if best is None or exc.progress > best.progress:
                best = exc
    assert best is not None
    raise best


def _continue_after(sim: _Sim, how: str, who: int, tile: Tile | None) -> _Sim:
    """Go on after a turn that ended in ``how`` (the pon caller's discard, kita or kan)."""
    if how in ("kita", "kan"):
        if sim.consumed():
            _finish(sim, how, who)
            return sim
        return _run(sim, who, True)
    assert tile is not None
    callers = sim.callers(who, tile)
    if callers:
        return _branch(sim, who, callers)
    if sim.consumed():
        _finish(sim, "discard", who)
        return sim
    return _run(sim, (who + 1) % SEATS, False)


# ---------------------------------------------------------------------------
# hands and games


def _seat_arrays(raw: list[object], err: _Err) -> tuple[list[list[object]], list[list[object]], list[list[object]]]:
    haipai, draws, discards = [], [], []
    for seat in range(SEATS):
        base = 4 + 3 * seat
        haipai.append(_list(raw[base], f"seat {seat} haipai", err))
        draws.append(_list(raw[base + 1], f"seat {seat} draws", err))
        discards.append(_list(raw[base + 2], f"seat {seat} discards", err))
    for i in (13, 14, 15):
        if _list(raw[i], "seat 3 arrays", err):
            raise err("seat 3 must be empty in a sanma log", f"element {i}")
    return haipai, draws, discards


def parse_hand(raw: object, *, index: int, red_fives: bool = True, source: str = "") -> RecordedHand:
    """One 17-element tenhou.net/6 hand -> a ``RecordedHand``; raises ``TenhouLogError``."""
    err = _Err(source, index)
    items = _list(raw, "a hand", err)
    if len(items) != HAND_LENGTH:
        raise err(f"a hand has {HAND_LENGTH} elements, not {len(items)}")
    head = _list(items[0], "[kyoku, honba, kyotaku]", err)
    if len(head) != 3:
        raise err("element 0 must be [kyoku, honba, kyotaku]")
    kyoku, honba, deposits = (_int(v, "element 0", err) for v in head)
    if not 0 <= kyoku < 12 or kyoku % 4 == 3 or honba < 0 or deposits < 0:
        raise err(f"impossible sanma hand header {head}", "element 0")
    scores = _deltas(items[1], err, "start scores")
    result = _parse_result(items[16], kyoku % 4, err)
    haipai, draws, discards = _seat_arrays(items, err)
    alloc = _Allocator(red_fives)
    try:
        hands = [[alloc.take(_int(c, f"seat {s} haipai", err)) for c in haipai[s]] for s in range(SEATS)]
        dora = [alloc.take(_int(c, "dora indicator", err)) for c in _list(items[2], "dora", err)]
        ura = [alloc.take(_int(c, "ura indicator", err)) for c in _list(items[3], "ura", err)]
    except InvalidHand as exc:
        raise err(str(exc), "haipai/indicators") from None
    if any(len(h) != 13 for h in hands) or not dora:
        raise err("each seat needs 13 tiles and the hand a dora indicator", "haipai")
    sim = _Sim(
        draws=tuple(tuple(d) for d in draws),
        discards=tuple(tuple(d) for d in discards),
        result=result,
        alloc=alloc,
        hands=[list(h) for h in hands],
        melds=[[], [], []],
    )
    dealer = kyoku % 4
    try:
        sim = _run(sim, dealer, False)
    except _Stuck as exc:
        raise err(exc.message, exc.position) from None
    deal = Deal(
        hands=(tuple(hands[0]), tuple(hands[1]), tuple(hands[2])),
        live=tuple(sim.live),
        replacements=tuple(sim.replacements),
        dora_indicators=tuple(dora),
        ura_indicators=tuple(ura),
    )
    return RecordedHand(
        index=index,
        round_wind=EAST + kyoku // 4,
        dealer=dealer,
        honba=honba,
        deposits=deposits,
        scores=scores,
        deal=deal,
        actions=tuple(sim.actions),
        result=result,
        riichi=tuple(sim.riichi),
    )


def _red_fives(rule: object) -> bool:
    if not isinstance(rule, dict):
        return True
    if "aka52" in rule or "aka53" in rule:
        return bool(rule.get("aka52", 0) or rule.get("aka53", 0))
    return bool(rule.get("aka", 1))


def parse_game(data: object, *, source: str = "") -> RecordedGame:
    """A decoded tenhou.net/6 game (the JSON object) -> ``RecordedGame``."""
    err = _Err(source, None)
    if not isinstance(data, dict):
        raise err("a tenhou.net/6 game is a JSON object")
    log = _list(data.get("log"), "log", err)
    rule = data.get("rule", {})
    rule_name = rule.get("disp", "") if isinstance(rule, dict) else ""
    if not isinstance(rule_name, str):
        raise err("rule.disp must be a string")
    red = _red_fives(rule)
    names_raw = data.get("name", ["", "", "", ""])
    names = tuple(str(n) for n in names_raw[:3]) if isinstance(names_raw, list) and len(names_raw) >= 3 else ("",) * 3
    sc = data.get("sc")
    final: tuple[int, int, int] | None = None
    if isinstance(sc, list) and len(sc) == 8 and all(isinstance(v, int | float) for v in sc):
        final = (int(sc[0]), int(sc[2]), int(sc[4]))
    hands = tuple(parse_hand(raw, index=i, red_fives=red, source=source) for i, raw in enumerate(log))
    ref = data.get("ref", "")
    return RecordedGame(
        source=source,
        ref=ref if isinstance(ref, str) else "",
        rule_name=rule_name,
        red_fives=red,
        names=(names[0], names[1], names[2]),
        final_scores=final,
        hands=hands,
        raw=data,
    )


def loads(text: str, *, source: str = "") -> RecordedGame:
    """Read a tenhou.net/6 game from JSON text."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise TenhouLogError(f"not JSON: {exc}", source=source) from None
    return parse_game(data, source=source)


def hand_tiles(hand: RecordedHand) -> list[Tile]:
    """Every physical tile the recorded hand shows (deal, draws, indicators)."""
    deal = hand.deal
    return [
        *(t for h in deal.hands for t in h),
        *deal.live,
        *deal.replacements,
        *deal.dora_indicators,
        *deal.ura_indicators,
    ]


# ---------------------------------------------------------------------------
# export: our hand events -> tenhou.net/6

# Tenhou's yaku names in the order its logs list them (learnt from the 81 Tenhou wins:
# riichi, ippatsu, rinshan, menzen tsumo, chiitoitsu, pinfu, tanyao, iipeikou, sanankou,
# toitoi, round wind, seat wind, yakuhai, honitsu, then ドラ, 赤ドラ, 裏ドラ; the places of
# yaku absent from those logs are a guess).
_TENHOU_YAKU: Final[tuple[tuple[str, str], ...]] = (
    ("riichi", "立直"),
    ("double_riichi", "両立直"),
    ("ippatsu", "一発"),
    ("chankan", "槍槓"),
    ("rinshan", "嶺上開花"),
    ("menzen_tsumo", "門前清自摸和"),
    ("haitei", "海底摸月"),
    ("houtei", "河底撈魚"),
    ("chiitoitsu", "七対子"),
    ("pinfu", "平和"),
    ("tanyao", "断幺九"),
    ("iipeikou", "一盃口"),
    ("ryanpeikou", "二盃口"),
    ("sanankou", "三暗刻"),
    ("toitoi", "対々和"),
    ("round_wind", "場風"),
    ("seat_wind", "自風"),
    ("yakuhai_white", "役牌 白"),
    ("yakuhai_green", "役牌 發"),
    ("yakuhai_red", "役牌 中"),
    ("sanshoku", "三色同順"),
    ("ittsu", "一気通貫"),
    ("chanta", "混全帯幺九"),
    ("junchan", "純全帯幺九"),
    ("sanshoku_doukou", "三色同刻"),
    ("sankantsu", "三槓子"),
    ("shousangen", "小三元"),
    ("honroutou", "混老頭"),
    ("honitsu", "混一色"),
    ("chinitsu", "清一色"),
    ("tenhou", "天和"),
    ("chiihou", "地和"),
    ("daisangen", "大三元"),
    ("suuankou", "四暗刻"),
    ("suuankou_tanki", "四暗刻単騎"),
    ("tsuuiisou", "字一色"),
    ("ryuuiisou", "緑一色"),
    ("chinroutou", "清老頭"),
    ("chuuren", "九蓮宝燈"),
    ("junsei_chuuren", "純正九蓮宝燈"),
    ("kokushi", "国士無双"),
    ("kokushi_13", "国士無双１３面"),
    ("daisuushii", "大四喜"),
    ("shousuushii", "小四喜"),
    ("suukantsu", "四槓子"),
    ("dora", "ドラ"),
    ("red_dora", "赤ドラ"),
    ("ura_dora", "裏ドラ"),
    ("kita", "抜きドラ"),
)
_YAKU_ORDER: Final = {name: i for i, (name, _) in enumerate(_TENHOU_YAKU)}
_YAKU_TEXT: Final = dict(_TENHOU_YAKU)
_WIND_TEXT: Final = "東南西北"
_LIMIT_TEXT: Final = {
    "mangan": "満貫",
    "haneman": "跳満",
    "baiman": "倍満",
    "sanbaiman": "三倍満",
    "yakuman": "役満",
}
_REASON_TEXT: Final = {
    "exhaustive": "流局",
    "nagashi": "流し満貫",
    "nine_terminals": "九種九牌",
    "four_kans": "四槓散了",
}


def _payment(base: int, tsumo: bool, winner_is_dealer: bool) -> RecordedPayment:
    """What each payer pays for base points ``base``, honba excluded: ``scoring``'s own
    arithmetic, in the log's terms."""
    if not tsumo:
        return RecordedPayment(ron=ron_payment(base, winner_is_dealer, 0))
    paid = tsumo_payments(base, winner_is_dealer, 0)
    return RecordedPayment(dealer=paid.dealer, non_dealer=paid.non_dealer)


def points_text(score: Score, tsumo: bool, winner_is_dealer: bool) -> str:
    """Tenhou's score text (payments without honba), e.g. ``"30符2飜500-1000点"``.

    >>> from sanma.engine.scoring import Payments
    >>> points_text(Score(2, 30, 0, "none", (), 480, Payments(), 0), True, False)
    '30符2飜500-1000点'
    """
    paid = _payment(score.base, tsumo, winner_is_dealer)
    if not tsumo:
        amount = f"{paid.ron}点"
    elif winner_is_dealer:
        amount = f"{paid.non_dealer}点∀"
    else:
        amount = f"{paid.non_dealer}-{paid.dealer}点"
    if score.limit == "none":
        return f"{score.fu}符{score.han}飜{amount}"
    return _LIMIT_TEXT[score.limit] + amount


def yaku_texts(score: Score, seat_wind: TileKind, round_wind: TileKind, *, kita_apart: bool = False) -> list[str]:
    """Tenhou's yaku strings in Tenhou's order.  Tenhou counts kita inside ``ドラ``;
    ``kita_apart`` writes it as ``抜きドラ`` and the winds as ``役牌:自風牌``/``役牌:場風牌``,
    the way Mahjong Soul conversions do."""
    han = dict(score.yaku)
    true_yakuman = score.yakuman > 0 and not score.counted_yakuman
    if not kita_apart and han.get("kita"):
        han["dora"] = han.get("dora", 0) + han.pop("kita")
    out = []
    for name in sorted(han, key=lambda n: _YAKU_ORDER.get(n, len(_YAKU_ORDER))):
        text = _YAKU_TEXT.get(name, name)
        if name in ("seat_wind", "round_wind") and kita_apart:
            text = "役牌:自風牌" if name == "seat_wind" else "役牌:場風牌"
        elif name == "seat_wind":
            text = f"{text} {_WIND_TEXT[seat_wind - EAST]}"
        elif name == "round_wind":
            text = f"{text} {_WIND_TEXT[round_wind - EAST]}"
        if true_yakuman:
            out.append(f"{text}(役満)")
        elif han[name]:
            out.append(f"{text}({han[name]}飜)")
    return out


def _hand_tile_order(tile: Tile, red_fives: bool) -> tuple[int, bool]:
    # Tenhou writes plain fives before the red one inside a call string.
    code = tile_code(tile, red_fives)
    return kind_of(tile), code in (52, 53)


def meld_string(meld: Meld, seat: int, red_fives: bool = True) -> str:
    """The tenhou.net/6 string of a meld called or declared by ``seat``.

    >>> from sanma.engine.hand import Meld, MeldType
    >>> meld_string(Meld(MeldType.PON, (96, 97, 98), called=96, from_seat=2), 0)
    '45p4545'
    """
    code = partial(tile_code, red_fives=red_fives)
    if meld.type is MeldType.ANKAN:
        tiles = sorted(meld.tiles, key=lambda t: _hand_tile_order(t, red_fives))
        return "".join(str(code(t)) for t in tiles[:3]) + "a" + str(code(tiles[3]))
    assert meld.called is not None and meld.from_seat is not None
    rest = [t for t in meld.tiles if t not in (meld.called, meld.added)]
    rest.sort(key=lambda t: _hand_tile_order(t, red_fives))
    letter = "m" if meld.type is MeldType.DAIMINKAN else "p"
    offset = call_offset(letter, seat, meld.from_seat) // 2
    parts = [str(code(t)) for t in rest]
    marked = f"{letter}{code(meld.called)}"
    if meld.type is MeldType.KAKAN:
        assert meld.added is not None
        marked = f"k{code(meld.added)}{code(meld.called)}"
    parts.insert(offset, marked)
    return "".join(parts)


def export_hand(events: Sequence[KyokuEvent], rules: Rules, *, sort_haipai: bool = False) -> list[object]:
    """One hand's events -> the 17-element tenhou.net/6 hand.

    ``sort_haipai`` sorts the starting hands the way Tenhou does (plain fives before the
    red one); without it they keep the deal's order.  Tenhou counts kita inside ``ドラ``;
    under the ``mahjongsoul`` preset kita is written as ``抜きドラ``.
    """
    red = rules.red_fives
    code = partial(tile_code, red_fives=red)
    start = events[0]
    if not isinstance(start, HandStarted):
        raise InvalidLog("a hand's events start with HandStarted")
    haipai = [list(h) for h in start.hands]
    if sort_haipai:
        haipai = [sorted(h, key=lambda t: _hand_tile_order(t, red)) for h in haipai]
    draws: list[list[object]] = [[], [], []]
    discards: list[list[object]] = [[], [], []]
    dora = [code(start.dora_indicator)]
    ura: list[int] = []
    result: list[object] = []
    for event in events[1:]:
        if isinstance(event, TileDrawn):
            draws[event.seat].append(code(event.tile))
        elif isinstance(event, TileDiscarded):
            value = TSUMOGIRI if event.tsumogiri else code(event.tile)
            discards[event.seat].append(f"r{value}" if event.riichi else value)
        elif isinstance(event, KitaDeclared):
            discards[event.seat].append(KITA_CODE)
        elif isinstance(event, MeldCalled):
            text = meld_string(event.meld, event.seat, red)
            if event.meld.type is MeldType.PON:
                draws[event.seat].append(text)
            elif event.meld.type is MeldType.DAIMINKAN:
                draws[event.seat].append(text)
                discards[event.seat].append(DAIMINKAN_PLACEHOLDER)
            else:
                discards[event.seat].append(text)
        elif isinstance(event, DoraRevealed):
            dora.append(code(event.indicator))
        elif isinstance(event, HandWon):
            if event.ura_indicators and not ura:
                ura = [code(t) for t in event.ura_indicators]
            result += _won_entry(event, start, rules)
        elif isinstance(event, HandDrawn):
            reason = "nagashi" if event.nagashi else event.reason
            result = [_REASON_TEXT.get(reason, "流局"), [*event.deltas, 0]]
        elif isinstance(event, HandAborted):
            result = [_REASON_TEXT.get(event.reason, event.reason)]
    if result and isinstance(result[0], list):
        result.insert(0, "和了")
    kyoku = 4 * (start.round_wind - EAST) + start.dealer
    hand: list[object] = [[kyoku, start.honba, start.deposits], [*start.scores, 0], dora, ura]
    for seat in range(SEATS):
        hand += [[code(t) for t in haipai[seat]], draws[seat], discards[seat]]
    return [*hand, [], [], [], result]


def _won_entry(event: HandWon, start: HandStarted, rules: Rules) -> list[object]:
    wind = seat_wind(event.seat, start.dealer)
    tsumo = event.seat == event.from_seat
    score = event.score
    info: list[object] = [
        event.seat,
        event.from_seat,
        event.seat if event.pao_seat is None else event.pao_seat,
        points_text(score, tsumo, event.seat == start.dealer),
        *yaku_texts(score, wind, start.round_wind, kita_apart=rules.preset == "mahjongsoul"),
    ]
    return [[*event.deltas, 0], info]


def export_game(
    hands: Sequence[Sequence[KyokuEvent]],
    rules: Rules,
    *,
    names: Sequence[str] = ("", "", ""),
    rule_name: str = "三般南喰赤",
    ref: str = "",
    final_points: Sequence[int] | None = None,
    final_scores: Sequence[float] | None = None,
    sort_haipai: bool = True,
) -> dict[str, object]:
    """A whole game -> a tenhou.net/6 object (``sc`` only when final points are given)."""
    data: dict[str, object] = {
        "ver": 2.3,
        "ref": ref,
        "log": [export_hand(h, rules, sort_haipai=sort_haipai) for h in hands],
        "ratingc": "PF3",
        "rule": {"disp": rule_name, "aka53": int(rules.red_fives), "aka52": int(rules.red_fives), "aka51": 0},
        "lobby": 0,
        "dan": ["", "", "", ""],
        "rate": [1500, 1500, 1500, 1500],
        "sx": ["C", "C", "C", "C"],
        "name": [*names[:3], ""],
    }
    if final_points is not None:
        scores = final_scores if final_scores is not None else [0.0, 0.0, 0.0]
        sc: list[float] = []
        for seat in range(SEATS):
            sc += [final_points[seat], scores[seat]]
        data["sc"] = [*sc, 0, 0]
    return data


# ---------------------------------------------------------------------------
# replay: feed a recorded hand through the engine and compare


@dataclass(frozen=True, slots=True)
class HandCheck:
    """What replaying one recorded hand gave: ``match`` when the engine agrees with the
    log on the outcome, every winner's han, fu and payment, and every seat's deltas;
    ``differences`` says where it does not.  ``events`` are the engine's events and
    ``result`` its result (``None`` when the replay stopped early)."""

    source: str
    index: int
    differences: tuple[str, ...]
    events: tuple[KyokuEvent, ...]
    result: KyokuResult | None
    notes: tuple[str, ...] = ()

    @property
    def match(self) -> bool:
        """No difference at all."""
        return not self.differences

    @property
    def detail(self) -> str:
        """The differences as one line (empty when they match)."""
        return "; ".join(self.differences)


def _feed(kyoku: Kyoku, seat: int, action: Action) -> str | None:
    """Apply the logged action, passing for every awaited seat the log shows did not call.
    Returns a problem when the engine will not take the action."""
    for _ in range(SEATS + 1):
        if kyoku.result is not None:
            return f"the engine ended the hand before seat {seat}'s {action}"
        if action in kyoku.legal_actions(seat):
            kyoku.apply(seat, action)
            return None
        if kyoku.phase != "window":
            break
        passers = kyoku.awaiting()
        for other in passers:
            kyoku.apply(other, Pass())
            if kyoku.result is not None:
                break
    legal = ", ".join(str(a) for a in kyoku.legal_actions(seat)) or "nothing"
    return f"the engine refuses seat {seat}'s {action} (legal: {legal})"


def _drain(kyoku: Kyoku) -> str | None:
    """After the log's last action: everyone left in a window passes."""
    while kyoku.result is None:
        if kyoku.phase != "window":
            return f"the log ends but the engine still awaits seats {list(kyoku.awaiting())}"
        passers = kyoku.awaiting()
        for other in passers:
            kyoku.apply(other, Pass())
            if kyoku.result is not None:
                break
    return None


def replay_hand(hand: RecordedHand, rules: Rules, *, source: str = "") -> HandCheck:
    """Replay one recorded hand through ``Kyoku`` under ``rules`` and compare the results."""
    try:
        kyoku = Kyoku.start(
            hand.deal,
            rules=rules,
            round_wind=hand.round_wind,
            dealer=hand.dealer,
            honba=hand.honba,
            deposits=hand.deposits,
            scores=hand.scores,
        )
    except SanmaError as exc:
        return HandCheck(source, hand.index, (f"the engine cannot deal this hand: {exc}",), (), None)
    problems: list[str] = []
    for step, (seat, action) in enumerate(hand.actions):
        try:
            problem = _feed(kyoku, seat, action)
        except SanmaError as exc:
            problem = f"the engine raised {type(exc).__name__}: {exc}"
        if problem:
            problems.append(f"action {step}: {problem}")
            break
    if not problems:
        problem = _drain(kyoku)
        if problem:
            problems.append(problem)
    events = tuple(e for e in kyoku.events if not isinstance(e, MatchStarted | MatchEnded))
    if kyoku.result is not None and not problems:
        problems += compare_result(hand, kyoku.result)
    elif kyoku.result is None and not problems:
        problems.append("the engine did not finish the hand")
    return HandCheck(source, hand.index, tuple(problems), events, kyoku.result)


def _recorded_base_payment(win: WinRecord, dealer: int) -> RecordedPayment:
    """The engine's payment in the log's terms (no honba)."""
    return _payment(win.score.base, win.seat == win.from_seat, win.seat == dealer)


def compare_result(hand: RecordedHand, result: KyokuResult) -> list[str]:
    """Differences between the engine's result and the log's (empty when they agree)."""
    log = hand.result
    out: list[str] = []
    if result.outcome != log.outcome:
        return [f"outcome: engine {result.outcome} ({result.reason or 'win'}), log {log.outcome} ({log.name})"]
    if log.outcome != "won" and (result.reason or "") != log.reason:
        out.append(f"reason: engine {result.reason}, log {log.reason}")
    engine_wins = {w.seat: w for w in result.wins}
    if set(engine_wins) != {w.seat for w in log.wins}:
        out.append(f"winners: engine {sorted(engine_wins)}, log {sorted(w.seat for w in log.wins)}")
    for lw in log.wins:
        ew = engine_wins.get(lw.seat)
        if ew is None:
            continue
        out += _compare_win(lw, ew, hand.dealer)
    if tuple(result.deltas) != log.deltas:
        out.append(f"deltas: engine {list(result.deltas)}, log {list(log.deltas)}")
    return out


def _compare_win(lw: RecordedWin, ew: WinRecord, dealer: int) -> list[str]:
    out: list[str] = []
    score = ew.score
    who = f"seat {lw.seat}"
    if ew.from_seat != lw.from_seat:
        out.append(f"{who} won from seat {ew.from_seat} in the engine, {lw.from_seat} in the log")
    engine_pao = lw.seat if ew.pao_seat is None else ew.pao_seat
    if engine_pao != lw.pao_seat:
        out.append(f"{who} pao: engine {engine_pao}, log {lw.pao_seat}")
    if score.yakuman != lw.yakuman:
        out.append(f"{who} yakuman: engine {score.yakuman}, log {lw.yakuman}")
    elif score.han != lw.han:
        out.append(f"{who} han: engine {score.han} {list(score.yaku)}, log {lw.han} {list(lw.yaku)}")
    if lw.fu and score.fu != lw.fu:
        out.append(f"{who} fu: engine {score.fu}, log {lw.fu}")
    payment = _recorded_base_payment(ew, dealer)
    if payment != lw.payment:
        out.append(f"{who} payment: engine {payment}, log {lw.payment} ({lw.points_text})")
    return out


def check_game(game: RecordedGame, rules: Rules) -> list[HandCheck]:
    """Replay every hand of a game.  Besides each hand's own result, the riichi deposits
    the engine took must lead to the next hand's recorded start scores.

    The last hand has no next hand, only the game's final ``sc``.  When the last hand's
    recorded deltas contradict the log's own final ``sc`` (a known converter slip: a riichi
    stick collected on a kita ron, see SOURCES.md) and the engine reproduces the final ``sc``
    exactly, the log's final ``sc`` wins and the hand counts as a match, with a note.
    """
    checks = [replay_hand(hand, rules, source=game.source) for hand in game.hands]
    for i, check in enumerate(checks):
        if check.result is None:
            continue
        hand = game.hands[i]
        paid = check.result.riichi_paid
        end = tuple(hand.scores[s] + check.result.deltas[s] - 1000 * paid[s] for s in range(SEATS))
        if i + 1 < len(checks):
            if check.match and end != game.hands[i + 1].scores:
                note = f"end scores: engine {list(end)}, next hand starts at {list(game.hands[i + 1].scores)}"
                checks[i] = replace(check, differences=(note,))
            continue
        final = game.final_scores
        only_deltas = bool(check.differences) and all(d.startswith("deltas:") for d in check.differences)
        if final is not None and only_deltas and end == final:
            logged = tuple(hand.scores[s] + hand.result.deltas[s] - 1000 * paid[s] for s in range(SEATS))
            note = (
                f"log deltas {list(hand.result.deltas)} disagree with the log's final sc {list(final)} "
                f"(they give {list(logged)}); the engine's deltas {list(check.result.deltas)} reproduce the final sc"
            )
            checks[i] = replace(check, differences=(), notes=(note,))
    return checks


def rules_for(game: RecordedGame, name: str | None = None) -> Rules:
    """The preset ``name`` (or the one the log's rule name implies), with the log's red fives."""
    rules = preset(name or game.preset_name)
    if rules.red_fives != game.red_fives:
        rules = rules.with_options(red_fives=game.red_fives)
    return rules
