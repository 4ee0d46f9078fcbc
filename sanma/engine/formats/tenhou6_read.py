"""Reading tenhou.net/6 logs: the recorded values, the result and score texts, and the
turn-order simulation that turns per-seat arrays into a scripted ``Deal`` and time-ordered
actions (see ``tenhou6.py`` and ``docs/formats.md``)."""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from typing import Final

from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pon, Ron, Tsumo
from sanma.engine.errors import InvalidHand
from sanma.engine.formats.tenhou6_codes import (
    DAIMINKAN_PLACEHOLDER,
    HAND_LENGTH,
    KITA_CODE,
    TSUMOGIRI,
    CallString,
    Outcome,
    RecordedPayment,
    TenhouLogError,
    _Allocator,
    _Err,
    _int,
    _list,
    call_from_seat,
    code_to_kind,
    parse_call,
    tile_code,
)
from sanma.engine.legality import kita_tile
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


def _parse_result(value: object, dealer: int, err: _Err) -> RecordedResult:
    items = _list(value, "result", err)
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
        return all(self.ptr[s] == len(self.draws[s]) == len(self.discards[s]) for s in SEATS)

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
        return is_red(tile, self.alloc.red_fives)

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
        if not all(sim.ptr[s] == len(sim.draws[s]) for s in SEATS) or any(
            len(sim.discards[s]) != sim.ptr[s] - (1 if s == seat else 0) for s in SEATS
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
        for win in sorted(result.wins, key=lambda w: (w.seat - seat) % SEAT_COUNT):
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
            seat, replacement = (who + 1) % SEAT_COUNT, False
            continue
        return _branch(sim, who, callers)


def _branch(sim: _Sim, discarder: int, callers: list[tuple[int, CallString]]) -> _Sim:
    best: _Stuck | None = None
    options: list[tuple[int, CallString] | None] = [*callers]
    if all(c != (discarder + 1) % SEAT_COUNT for c, _ in callers):
        options.append(None)  # nobody calls now; a listed call may take a later discard
    for option in options:
        trial = copy.deepcopy(sim) if len(options) > 1 else sim
        try:
            if option is None:
                return _run(trial, (discarder + 1) % SEAT_COUNT, False)
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
    return _run(sim, (who + 1) % SEAT_COUNT, False)


# ---------------------------------------------------------------------------
# hands and games


def _seat_arrays(raw: list[object], err: _Err) -> tuple[list[list[object]], list[list[object]], list[list[object]]]:
    haipai, draws, discards = [], [], []
    for seat in SEATS:
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
        hands = [[alloc.take(_int(c, f"seat {s} haipai", err)) for c in haipai[s]] for s in SEATS]
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
