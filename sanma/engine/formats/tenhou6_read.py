"""Reading tenhou.net/6 logs: the recorded values, the result and score texts, and the
reading that replays the per-seat arrays on ``Kyoku`` to put them in time order: a scripted
``Deal`` and time-ordered actions (see ``tenhou6.py`` and ``docs/formats.md``)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Final

from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pass, Pon, Ron, Tsumo
from sanma.engine.errors import IllegalAction, InvalidHand, SanmaError
from sanma.engine.events import TileDrawn
from sanma.engine.formats.tenhou6_codes import (
    DAIMINKAN_PLACEHOLDER,
    HAND_LENGTH,
    KITA_CODE,
    TSUMOGIRI,
    CallString,
    CodeAllocator,
    HandErrors,
    Outcome,
    RecordedPayment,
    TenhouLogError,
    call_from_seat,
    code_to_kind,
    log_int,
    log_list,
    parse_call,
    tile_code,
)
from sanma.engine.hand import MeldType
from sanma.engine.kyoku import Kyoku
from sanma.engine.rules import DEFAULT, Rules
from sanma.engine.tiles import EAST, NORTH, SEAT_COUNT, SEATS, Tile, TileKind, is_red, kind_of
from sanma.engine.wall import Deal

# ---------------------------------------------------------------------------
# recorded values


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


def _deltas(value: object, err: HandErrors, what: str) -> tuple[int, int, int]:
    items = log_list(value, what, err)
    if len(items) != 4:
        raise err(f"{what} must hold 4 numbers")
    nums = [log_int(v, what, err) for v in items]
    if nums[3] != 0:
        raise err(f"{what}: seat 3 must be 0 in sanma")
    return nums[0], nums[1], nums[2]


def _parse_points(text: str, tsumo: bool, err: HandErrors) -> tuple[int, str, RecordedPayment]:
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


def _parse_win(deltas: object, info: object, dealer: int, err: HandErrors) -> RecordedWin:
    d = _deltas(deltas, err, "win deltas")
    items = log_list(info, "win info", err)
    if len(items) < 5:
        raise err("win info needs winner, from, pao, score text and yaku", "result")
    seat, from_seat, pao = (log_int(v, "win seat", err) for v in items[:3])
    if not all(0 <= s < SEAT_COUNT for s in (seat, from_seat, pao)):
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


def _parse_result(value: object, dealer: int, err: HandErrors) -> RecordedResult:
    items = log_list(value, "result", err)
    if not items or not isinstance(items[0], str):
        raise err("the result must start with its name", "result")
    name = items[0]
    if name == "和了":
        if len(items) < 3 or len(items) % 2 != 1:
            raise err("a win result holds (deltas, info) pairs", "result")
        wins = tuple(_parse_win(items[i], items[i + 1], dealer, err) for i in range(1, len(items), 2))
        total = tuple(sum(w.deltas[s] for w in wins) for s in SEATS)
        return RecordedResult("won", name, "", (total[0], total[1], total[2]), wins)
    if name not in _DRAW_REASONS:
        raise err(f"unknown result {name!r} (not a sanma outcome)", "result")
    outcome, reason = _DRAW_REASONS[name]
    deltas = _deltas(items[1], err, "draw deltas") if len(items) > 1 else (0, 0, 0)
    return RecordedResult("drawn" if outcome == "drawn" else "aborted", name, reason, deltas)


# ---------------------------------------------------------------------------
# reading the arrays in time order, on Kyoku
#
# The log keeps each seat's draws and discards apart, not the order they happened in.  The
# engine knows that order once it knows who calls: after a discard it opens a window for the
# seats that may call, and a seat's next draws entry says whether it called.  So the reader
# plays the hand on ``Kyoku`` itself, handing it each wall tile just before it is drawn (the
# log gives the wall seat by seat, so it cannot be dealt up front).


# The reader asks the engine only who may call and when the wall is drawn; the replay check
# judges every action under the preset asked for.  So it reads under the widest legality the
# presets have, so that an action one preset allows is never cut short here.
def _reading_rules(red_fives: bool) -> Rules:
    return DEFAULT.with_options(
        red_fives=red_fives, kokushi_robs_ankan=True, riichi_kan_keeps_readings=False, melds_block_waits=False
    )


@dataclass(frozen=True, slots=True)
class _Start:
    """A hand's header as the reading needs it."""

    result: RecordedResult
    alloc: CodeAllocator
    round_wind: TileKind
    dealer: int
    honba: int
    deposits: int
    scores: tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class _Read:
    """What a reading found: the time-ordered actions and the wall as it was drawn."""

    actions: tuple[tuple[int, Action], ...]
    live: tuple[Tile, ...]
    replacements: tuple[Tile, ...]
    riichi: tuple[int, ...]


class _Stuck(Exception):
    """This reading of the arrays does not work; ``progress`` ranks how far it got."""

    def __init__(self, message: str, position: str, progress: int) -> None:
        super().__init__(message)
        self.message = message
        self.position = position
        self.progress = progress


class _Refused(Exception):
    """The engine will not take the log's last action (or ends the hand before the log does).
    The reading stops there with what it read, action included: the replay check, which
    replays it, reports the refusal (the log and the engine disagree; the log is readable)."""

    def __init__(self, read: _Read) -> None:
        super().__init__("the engine refuses the log's action")
        self.read = read
        self.progress = len(read.actions)


@dataclass(slots=True)
class _Reading:
    """One reading of a hand's arrays, played on ``Kyoku``.  ``ptr`` is each seat's index
    into both its draws and its discards: a turn takes one entry of each."""

    draws: tuple[tuple[object, ...], ...]
    discards: tuple[tuple[object, ...], ...]
    result: RecordedResult
    alloc: CodeAllocator
    kyoku: Kyoku
    ptr: list[int]
    actions: list[tuple[int, Action]]
    live: list[Tile]
    replacements: list[Tile]
    riichi: list[int]
    drawn: Tile | None = None  # what the seat on turn drew (None after a pon)

    @classmethod
    def begin(cls, deal: Deal, start: _Start, draws: list[list[object]], discards: list[list[object]]) -> _Reading:
        """Deal the hand on ``Kyoku`` (``deal`` without its wall); the dealer draws its first
        draws entry."""
        r = cls.__new__(cls)
        r.draws = tuple(tuple(d) for d in draws)
        r.discards = tuple(tuple(d) for d in discards)
        r.result, r.alloc = start.result, start.alloc
        r.ptr, r.actions, r.live, r.replacements, r.riichi = [0, 0, 0], [], [], [], []
        first = r.offer(start.dealer, replacement=False)
        if isinstance(first, _Stuck):
            raise first
        r.live.append(first)
        r.drawn = first
        r.kyoku = Kyoku.start(
            replace(deal, live=(first,)),
            rules=_reading_rules(start.alloc.red_fives),
            round_wind=start.round_wind,
            dealer=start.dealer,
            honba=start.honba,
            deposits=start.deposits,
            scores=start.scores,
        )
        return r

    def copy(self) -> _Reading:
        """An independent reading from here (a trial, see ``_branch``)."""
        return _Reading(
            self.draws,
            self.discards,
            self.result,
            self.alloc.copy(),
            self.kyoku.copy(),
            list(self.ptr),
            list(self.actions),
            list(self.live),
            list(self.replacements),
            list(self.riichi),
            self.drawn,
        )

    def read(self) -> _Read:
        return _Read(tuple(self.actions), tuple(self.live), tuple(self.replacements), tuple(self.riichi))

    def stuck(self, message: str, position: str) -> _Stuck:
        return _Stuck(message, position, len(self.actions))

    def consumed(self) -> bool:
        return all(self.ptr[s] == len(self.draws[s]) == len(self.discards[s]) for s in SEATS)

    # -- the wall, handed to the engine a tile at a time

    def offer(self, seat: int, *, replacement: bool) -> Tile | _Stuck:
        """The tile ``seat``'s next draws entry gives (taken from the allocator), or why it
        gives none: that matters only if the engine does draw for the seat now."""
        i = self.ptr[seat]
        pos = f"seat {seat} draws[{i}]"
        if i >= len(self.draws[seat]):
            return self.stuck(f"seat {seat} has no draw left but the hand goes on", f"seat {seat}")
        entry = self.draws[seat][i]
        if isinstance(entry, str):
            return self.stuck(f"a call {entry!r} where seat {seat} should draw", pos)
        if isinstance(entry, bool) or not isinstance(entry, int):
            return self.stuck(f"expected a tile code, got {entry!r}", pos)
        try:
            return self.alloc.take(entry)
        except InvalidHand as exc:
            return self.stuck(str(exc), pos)

    def apply(self, seat: int, action: Action, drawer: int | None = None, *, replacement: bool = False) -> None:
        """``kyoku.apply``, with ``drawer``'s next tile on the wall in case the engine draws
        for it now (``replacement``: a replacement draw); a tile not drawn goes back."""
        offered = self.offer(drawer, replacement=replacement) if drawer is not None else None
        tile = offered if isinstance(offered, int) else None
        self.wall(tile, replacement)
        try:
            events = self.kyoku.apply(seat, action)
        except SanmaError as exc:
            if isinstance(offered, _Stuck) and not isinstance(exc, IllegalAction):
                raise offered from None  # the engine drew for a seat whose entry is no tile
            raise _Refused(self.read()) from None
        drew = [e for e in events if isinstance(e, TileDrawn)]
        if drew:
            assert tile is not None and drew[0].seat == drawer and drew[0].tile == tile
            (self.replacements if replacement else self.live).append(tile)
            self.drawn = tile
        elif tile is not None:
            self.alloc.untake()
        if self.kyoku.result is not None:
            raise _Refused(self.read())  # the engine ended the hand; the log goes on

    def wall(self, tile: Tile | None, replacement: bool) -> None:
        """The engine's deal: the tiles drawn so far, and ``tile`` next (when given).  It is
        rebuilt only when it changes (it holds an offered tile, or is to hold one)."""
        deal = self.kyoku.deal
        live, replacements = len(self.live), len(self.replacements)
        if tile is None and len(deal.live) == live and len(deal.replacements) == replacements:
            return
        extra = () if tile is None else (tile,)
        self.kyoku.deal = Deal(
            deal.hands,
            (*self.live, *extra) if not replacement else tuple(self.live),
            (*self.replacements, *extra) if replacement else tuple(self.replacements),
            deal.dora_indicators,
            deal.ura_indicators,
            deal.live_size,
        )

    def pass_window(self, drawer: int, *, replacement: bool = False) -> None:
        """Every seat the open window awaits passes; the last answer resolves it, and the
        engine draws for ``drawer``."""
        while self.kyoku.phase == "window":
            waiting = self.kyoku.awaiting()
            self.apply(waiting[0], Pass(), drawer if len(waiting) == 1 else None, replacement=replacement)

    # -- tiles named by code

    def pick(self, hand: list[Tile], seat: int, code: int, pos: str, avoid: Tile | None = None) -> Tile:
        """Take a tile of ``code`` out of ``hand`` (a copy of the seat's): the lowest copy,
        keeping the drawn tile when another copy was meant, so tedashi stays tedashi."""
        try:
            kind, red = code_to_kind(code)
        except InvalidHand as exc:
            raise self.stuck(str(exc), pos) from None
        candidates = [t for t in hand if kind_of(t) == kind and is_red(t, self.alloc.red_fives) == red]
        if not candidates:
            raise self.stuck(f"seat {seat} does not hold tile {code}", pos)
        preferred = [t for t in candidates if t != avoid] or candidates
        tile = min(preferred)
        hand.remove(tile)
        return tile

    def code(self, entry: object, pos: str) -> int:
        if isinstance(entry, bool) or not isinstance(entry, int):
            raise self.stuck(f"expected a tile code, got {entry!r}", pos)
        return entry

    # -- one seat's turn

    def turn(self, seat: int) -> tuple[str, Action | None]:
        """``seat`` (on turn after its draw or its pon) plays its next discards entry:
        ("discard"|"kita"|"kan", action), or ("end", None) when it has none left."""
        i = self.ptr[seat]
        if i >= len(self.discards[seat]):
            self.ptr[seat] += 1
            return "end", None
        pos = f"seat {seat} discards[{i}]"
        entry = self.discards[seat][i]
        self.ptr[seat] += 1
        hand = list(self.kyoku.hand(seat))
        action: Action
        if entry == KITA_CODE:
            # The engine sets aside the drawn North, else the lowest (``legality.kita_tile``).
            if not any(kind_of(t) == NORTH for t in hand):
                raise self.stuck(f"seat {seat} has no North to set aside", pos)
            how, action = "kita", Kita()
        elif isinstance(entry, str) and entry.startswith("r"):
            tile = self.discard_tile(hand, seat, entry[1:], pos)
            self.riichi.append(seat)
            how, action = "discard", Discard(tile, riichi=True)
        elif isinstance(entry, str):
            how, action = "kan", self.self_kan(hand, seat, entry, pos)
        else:
            how, action = "discard", Discard(self.discard_tile(hand, seat, entry, pos))
        self.actions.append((seat, action))
        return how, action

    def discard_tile(self, hand: list[Tile], seat: int, entry: object, pos: str) -> Tile:
        if isinstance(entry, str):
            if not entry.isdigit():
                raise self.stuck(f"unreadable discard {entry!r}", pos)
            entry = int(entry)
        code = self.code(entry, pos)
        if code == TSUMOGIRI:
            if self.drawn is None:
                raise self.stuck("tsumogiri (60) with no drawn tile", pos)
            return self.drawn
        return self.pick(hand, seat, code, pos, avoid=self.drawn)

    def self_kan(self, hand: list[Tile], seat: int, text: str, pos: str) -> Kan:
        try:
            call = parse_call(text)
        except InvalidHand as exc:
            raise self.stuck(str(exc), pos) from None
        kind = code_to_kind(call.codes[0])[0]
        if call.letter == "a":
            for code in call.codes:
                self.pick(hand, seat, code, pos)
        elif call.letter == "k":
            if not any(m.type is MeldType.PON and m.kind == kind for m in self.kyoku.melds(seat)):
                raise self.stuck(f"added kan {text!r} without a pon of that kind", pos)
            self.pick(hand, seat, call.marked, pos)
        else:
            raise self.stuck(f"{text!r} cannot stand among discards", pos)
        return Kan(kind)

    # -- calls

    def callers(self, seat: int, tile: Tile) -> list[tuple[int, CallString]]:
        """Seats whose next draws entry calls ``tile`` discarded by ``seat``."""
        out = []
        code = tile_code(tile, self.alloc.red_fives)
        for other in SEATS:
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

    def call_action(self, seat: int, call: CallString) -> Pon | Kan:
        """The action a call string names, once the seat is seen to hold its tiles."""
        pos = f"seat {seat} draws[{self.ptr[seat]}]"
        rest = list(call.codes)
        rest.remove(call.marked)
        hand = list(self.kyoku.hand(seat))
        for code in rest:
            self.pick(hand, seat, code, pos)
        kind = code_to_kind(call.marked)[0]
        if call.letter == "p":
            return Pon(kind, red=any(code_to_kind(c)[1] for c in rest))
        return Kan(kind)

    def call(self, seat: int, action: Pon | Kan) -> None:
        """``seat`` pons or open-kans the discard the open window offers; the others pass."""
        i = self.ptr[seat]
        self.actions.append((seat, action))
        if isinstance(action, Pon):
            if i >= len(self.discards[seat]):
                raise self.stuck("a pon with no discard after it", f"seat {seat} draws[{i}]")
            self.answer(seat, action, None)
            self.drawn = None
            return
        if i == len(self.discards[seat]) and i + 2 == len(self.draws[seat]):
            # The replacement draw is the seat's last entry and wins: some writers leave the
            # open kan's 0 out, since no discard follows at all.  Read it as if it were there.
            self.discards = tuple((*d, DAIMINKAN_PLACEHOLDER) if s == seat else d for s, d in enumerate(self.discards))
        if i >= len(self.discards[seat]) or self.discards[seat][i] != DAIMINKAN_PLACEHOLDER:
            raise self.stuck("an open kan must be followed by a 0 in discards", f"seat {seat} discards[{i}]")
        self.ptr[seat] += 1
        self.answer(seat, action, seat)

    def answer(self, seat: int, action: Action, drawer: int | None) -> None:
        """``seat`` answers the window with ``action``, then every other awaited seat passes."""
        last = len(self.kyoku.awaiting()) == 1
        self.apply(seat, action, drawer if last else None, replacement=True)
        if drawer is not None:
            self.pass_window(drawer, replacement=True)
        else:
            while self.kyoku.phase == "window":
                self.apply(self.kyoku.awaiting()[0], Pass())

    # -- the end

    def finish(self, how: str, seat: int) -> None:
        """Check the end of the arrays against the result and append the winning actions."""
        result = self.result
        if how == "end-draw":
            if not all(self.ptr[s] == len(self.draws[s]) for s in SEATS) or any(
                len(self.discards[s]) != self.ptr[s] - (1 if s == seat else 0) for s in SEATS
            ):
                raise self.stuck("a seat stops after a draw while others still have entries", f"seat {seat}")
            if result.outcome == "won" and all(w.seat == seat and w.tsumo for w in result.wins):
                self.actions.append((seat, Tsumo()))
                return
            if result.reason == "nine_terminals":
                self.actions.append((seat, NineTerminals()))
                return
            raise self.stuck(f"seat {seat} stops after a draw but the result is {result.name}", f"seat {seat}")
        if not self.consumed():
            raise self.stuck("the arrays end unevenly", f"seat {seat}")
        if result.outcome == "won":
            if not all(w.from_seat == seat and not w.tsumo for w in result.wins):
                raise self.stuck(f"the log ends on seat {seat}'s {how}, which the result does not ron", f"seat {seat}")
            # Winners claim in turn order from the discarder, as the engine resolves them.
            for win in sorted(result.wins, key=lambda w: (w.seat - seat) % SEAT_COUNT):
                self.actions.append((win.seat, Ron()))
            return
        if how != "discard":
            raise self.stuck(f"the log ends on a {how} without a win", f"seat {seat}")


def _play(r: _Reading, seat: int) -> _Reading:
    """From ``seat``'s turn to the end of the hand; returns the reading that used the log."""
    while True:
        how, action = r.turn(seat)
        if how == "end":
            r.finish("end-draw", seat)
            return r
        assert action is not None
        if how != "discard":
            if r.consumed():
                r.finish(how, seat)
                return r
            r.apply(seat, action, seat, replacement=True)
            r.pass_window(seat, replacement=True)
            continue
        assert isinstance(action, Discard)
        callers = r.callers(seat, action.tile)
        if callers:
            return _branch(r, seat, action, callers)
        if r.consumed():
            r.finish("discard", seat)
            return r
        nxt = (seat + 1) % SEAT_COUNT
        r.apply(seat, action, nxt)
        r.pass_window(nxt)
        seat = nxt


def _branch(r: _Reading, discarder: int, discard: Discard, callers: list[tuple[int, CallString]]) -> _Reading:
    """A discard that some seat's next draws entry calls.  The engine says who may call it
    now (the window it opens).  A seat may also let it go and call a later discard of the
    same tile, and the log keeps no time order: when both readings are legal, each is tried
    on a copy of the reading (its ``Kyoku`` copied) until one uses the whole log.  That
    happens only for a caller two seats on from the discarder, and the wrong reading
    almost always fails at the next turn (it can hold only if the discarder calls between)."""
    nxt = (discarder + 1) % SEAT_COUNT
    skip: _Stuck | None = None
    try:
        r.apply(discarder, discard, nxt)  # with no window open the next seat draws at once
    except _Stuck as exc:
        skip = exc  # no window, and the next seat's entry is no tile
    base = r.read()
    options: list[tuple[int, Pon | Kan] | None] = []
    refused: list[tuple[int, Pon | Kan]] = []
    failures: list[_Stuck | _Refused] = []
    for seat, call in callers:
        try:
            action = r.call_action(seat, call)
        except _Stuck as exc:
            failures.append(exc)
            continue
        if skip is None and action in r.kyoku.legal_actions(seat):
            options.append((seat, action))
        else:
            refused.append((seat, action))
    if all(seat != nxt for seat, _ in callers):  # nobody calls now; a listed call may come later
        if skip is None:
            options.append(None)
        else:
            failures.append(skip)
    for i, option in enumerate(options):
        trial = r if i == len(options) - 1 else r.copy()
        try:
            if option is None:
                trial.pass_window(nxt)
                return _play(trial, nxt)
            seat, action = option
            trial.call(seat, action)
            return _play(trial, seat)
        except (_Stuck, _Refused) as exc:
            failures.append(exc)
    # No reading uses the whole log.  A call the engine will not allow is still the log's
    # word (the replay check reports the refusal), so it beats a reading the arrays contradict.
    failures += [_Refused(replace(base, actions=(*base.actions, c))) for c in refused]
    raise max(failures, key=lambda e: (isinstance(e, _Refused), e.progress))


# ---------------------------------------------------------------------------
# hands and games


def _seat_arrays(
    raw: list[object], err: HandErrors
) -> tuple[list[list[object]], list[list[object]], list[list[object]]]:
    haipai, draws, discards = [], [], []
    for seat in SEATS:
        base = 4 + 3 * seat
        haipai.append(log_list(raw[base], f"seat {seat} haipai", err))
        draws.append(log_list(raw[base + 1], f"seat {seat} draws", err))
        discards.append(log_list(raw[base + 2], f"seat {seat} discards", err))
    for i in (13, 14, 15):
        if log_list(raw[i], "seat 3 arrays", err):
            raise err("seat 3 must be empty in a sanma log", f"element {i}")
    return haipai, draws, discards


def parse_hand(raw: object, *, index: int, red_fives: bool = True, source: str = "") -> RecordedHand:
    """One 17-element tenhou.net/6 hand -> a ``RecordedHand``; raises ``TenhouLogError``."""
    err = HandErrors(source, index)
    items = log_list(raw, "a hand", err)
    if len(items) != HAND_LENGTH:
        raise err(f"a hand has {HAND_LENGTH} elements, not {len(items)}")
    head = log_list(items[0], "[kyoku, honba, kyotaku]", err)
    if len(head) != 3:
        raise err("element 0 must be [kyoku, honba, kyotaku]")
    kyoku, honba, deposits = (log_int(v, "element 0", err) for v in head)
    if not 0 <= kyoku < 12 or kyoku % 4 == 3 or honba < 0 or deposits < 0:
        raise err(f"impossible sanma hand header {head}", "element 0")
    scores = _deltas(items[1], err, "start scores")
    result = _parse_result(items[16], kyoku % 4, err)
    haipai, draws, discards = _seat_arrays(items, err)
    alloc = CodeAllocator(red_fives)
    try:
        hands = [[alloc.take(log_int(c, f"seat {s} haipai", err)) for c in haipai[s]] for s in SEATS]
        dora = [alloc.take(log_int(c, "dora indicator", err)) for c in log_list(items[2], "dora", err)]
        ura = [alloc.take(log_int(c, "ura indicator", err)) for c in log_list(items[3], "ura", err)]
    except InvalidHand as exc:
        raise err(str(exc), "haipai/indicators") from None
    if any(len(h) != 13 for h in hands) or not dora:
        raise err("each seat needs 13 tiles and the hand a dora indicator", "haipai")
    dealer = kyoku % 4
    start = _Start(result, alloc, EAST + kyoku // 4, dealer, honba, deposits, scores)
    deal = Deal(hands=(tuple(hands[0]), tuple(hands[1]), tuple(hands[2])), live=(), replacements=(),
                dora_indicators=tuple(dora), ura_indicators=tuple(ura))  # fmt: skip
    try:
        read = _play(_Reading.begin(deal, start, draws, discards), dealer).read()
    except _Stuck as exc:
        raise err(exc.message, exc.position) from None
    except _Refused as exc:
        read = exc.read
    return RecordedHand(
        index=index,
        round_wind=EAST + kyoku // 4,
        dealer=dealer,
        honba=honba,
        deposits=deposits,
        scores=scores,
        deal=replace(deal, live=read.live, replacements=read.replacements),
        actions=read.actions,
        result=result,
        riichi=read.riichi,
    )


def four_player_reason(data: object) -> str | None:
    """Why a decoded game looks like a four-player one, or ``None``: the room name, a fourth
    player's name or a fourth seat's points (``parse_game`` would only name the first symptom).

    >>> four_player_reason({"rule": {"disp": "鳳南喰赤"}}), four_player_reason({"name": ["a", "b", "c", ""]})
    ("the room '鳳南喰赤' is a four-player room", None)
    """
    if not isinstance(data, dict):
        return None
    rule = data.get("rule")
    disp = rule.get("disp") if isinstance(rule, dict) else None
    if isinstance(disp, str) and disp and not disp.startswith("三"):
        return f"the room {disp!r} is a four-player room"
    names = data.get("name")
    if isinstance(names, list) and len(names) >= 4 and isinstance(names[3], str) and names[3]:
        return f"it names a fourth player ({names[3]!r})"
    for i, hand in enumerate(data.get("log") or []):
        if isinstance(hand, list) and len(hand) > 1 and isinstance(hand[1], list) and len(hand[1]) > 3 and hand[1][3]:
            return f"hand {i + 1} gives a fourth seat {hand[1][3]} points"
    return None


def _red_fives(rule: object) -> bool:
    if not isinstance(rule, dict):
        return True
    if "aka52" in rule or "aka53" in rule:
        return bool(rule.get("aka52", 0) or rule.get("aka53", 0))
    return bool(rule.get("aka", 1))


def parse_game(data: object, *, source: str = "") -> RecordedGame:
    """A decoded tenhou.net/6 game (the JSON object) -> ``RecordedGame``."""
    err = HandErrors(source, None)
    if not isinstance(data, dict):
        raise err("a tenhou.net/6 game is a JSON object")
    log = log_list(data.get("log"), "log", err)
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
