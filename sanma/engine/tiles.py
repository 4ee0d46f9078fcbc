"""Tiles and the mpsz notation.

A ``TileKind`` is one of the 27 kinds sanma plays with, numbered 0..26::

    0 1m   1 9m            (no 2m..8m in sanma)
    2..10  1p..9p
    11..19 1s..9s
    20..26 1z..7z = East South West North White Green Red

A ``Tile`` is one physical tile, 0..107: ``kind * 4 + copy``.  Copy 0 of 5p and of
5s is the red five when the rules have red fives; without them it is a plain five.

Notation (mpsz): digits followed by their suit letter, e.g. ``"19m123406789p11z"``;
``0p``/``0s`` is a red five.  ``parse`` reads it, ``to_mpsz`` writes it in canonical
order, and the two round-trip.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from sanma.engine.errors import InvalidHand, InvalidNotation

TileKind = int
Tile = int

KIND_COUNT: Final = 27
TILE_COUNT: Final = 108

# The seats, 0 = East of the first hand.  Defined here, at the bottom of the engine, so every
# layer imports the one tuple (and its count) instead of writing its own.
SEATS: Final = (0, 1, 2)
SEAT_COUNT: Final = len(SEATS)

M1: Final = 0
M9: Final = 1
P1: Final = 2
S1: Final = 11
EAST: Final = 20
SOUTH: Final = 21
WEST: Final = 22
NORTH: Final = 23
WHITE: Final = 24
GREEN: Final = 25
RED: Final = 26

P5: Final = P1 + 4
S5: Final = S1 + 4
RED_5P: Final[Tile] = P5 * 4
RED_5S: Final[Tile] = S5 * 4
RED_TILES: Final = frozenset({RED_5P, RED_5S})

PIN_KINDS: Final = tuple(range(P1, P1 + 9))
SOU_KINDS: Final = tuple(range(S1, S1 + 9))
HONOR_KINDS: Final = tuple(range(EAST, RED + 1))
WIND_KINDS: Final = (EAST, SOUTH, WEST, NORTH)
DRAGON_KINDS: Final = (WHITE, GREEN, RED)
TERMINAL_KINDS: Final = (M1, M9, P1, P1 + 8, S1, S1 + 8)
TERMINAL_HONOR_KINDS: Final = TERMINAL_KINDS + HONOR_KINDS
GREEN_KINDS: Final = (S1 + 1, S1 + 2, S1 + 3, S1 + 5, S1 + 7, GREEN)

_IS_TERMINAL_HONOR: Final = tuple(k in TERMINAL_HONOR_KINDS for k in range(KIND_COUNT))


def kind_of(tile: Tile) -> TileKind:
    """The kind of a physical tile."""
    return tile >> 2


def is_red(tile: Tile, red_fives: bool = True) -> bool:
    """Whether ``tile`` is a red five under rules with or without red fives."""
    return red_fives and tile in RED_TILES


def suit_of(kind: TileKind) -> str:
    """``"m"``, ``"p"``, ``"s"`` or ``"z"``."""
    if kind < P1:
        return "m"
    if kind < S1:
        return "p"
    if kind < EAST:
        return "s"
    return "z"


def number_of(kind: TileKind) -> int:
    """The digit of a kind in mpsz (1..9 for suits, 1..7 for honors)."""
    if kind < P1:
        return 1 if kind == M1 else 9
    if kind < S1:
        return kind - P1 + 1
    if kind < EAST:
        return kind - S1 + 1
    return kind - EAST + 1


def is_terminal_or_honor(kind: TileKind) -> bool:
    """1m 9m 1p 9p 1s 9s and the seven honors."""
    return _IS_TERMINAL_HONOR[kind]


def seat_wind(seat: int, dealer: int) -> TileKind:
    """A seat's wind: the dealer is East, the next seat South, the one after West (no
    seat is North in sanma).

    >>> [kind_name(seat_wind(s, 1)) for s in (0, 1, 2)]
    ['3z', '1z', '2z']
    """
    return EAST + (seat - dealer) % 3


def dora_of(indicator: TileKind) -> TileKind:
    """The dora a revealed indicator points at, with sanma's 1m <-> 9m wrap.

    >>> [kind_name(dora_of(parse_kind(s))) for s in ("1m", "9m", "9p", "4z", "7z")]
    ['9m', '1m', '1p', '1z', '5z']
    """
    if indicator < P1:
        return M9 if indicator == M1 else M1
    if indicator < EAST:
        base = P1 if indicator < S1 else S1
        return base + (indicator - base + 1) % 9
    if indicator <= NORTH:
        return EAST + (indicator - EAST + 1) % 4
    return WHITE + (indicator - WHITE + 1) % 3


def kind_name(kind: TileKind) -> str:
    """mpsz name of a kind, e.g. ``"5p"``."""
    return f"{number_of(kind)}{suit_of(kind)}"


def tile_name(tile: Tile, red_fives: bool = True) -> str:
    """mpsz name of a physical tile; a red five is ``"0p"``/``"0s"``."""
    if is_red(tile, red_fives):
        return "0" + suit_of(kind_of(tile))
    return kind_name(kind_of(tile))


def _kind_from(digit: int, suit: str, text: str) -> TileKind:
    if suit == "m":
        if digit == 1:
            return M1
        if digit == 9:
            return M9
        raise InvalidNotation(f"{digit}m does not exist in sanma (only 1m and 9m): {text!r}")
    if suit in "ps":
        if not 1 <= digit <= 9:
            raise InvalidNotation(f"no tile {digit}{suit}: {text!r}")
        return (P1 if suit == "p" else S1) + digit - 1
    if not 1 <= digit <= 7:
        raise InvalidNotation(f"honors are 1z..7z, not {digit}z: {text!r}")
    return EAST + digit - 1


def _item_table() -> dict[str, tuple[TileKind, bool]]:
    """Digit + suit letter -> ``(kind, red)`` for every valid pair (``"0p"`` is the red 5p)."""
    out: dict[str, tuple[TileKind, bool]] = {}
    for suit in "mpsz":
        for digit in range(10):
            if digit == 0 and suit not in "ps":
                continue
            try:
                out[f"{digit}{suit}"] = (_kind_from(digit or 5, suit, ""), digit == 0)
            except InvalidNotation:
                continue
    return out


_ITEMS: Final = _item_table()
# Suit letter -> digit -> (kind, red): one lookup per digit, with no string built.
_BY_SUIT: Final = {suit: {key[0]: item for key, item in _ITEMS.items() if key[1] == suit} for suit in "mpsz"}
_SHORT: dict[str, tuple[tuple[TileKind, bool], ...]] = {}
_PLAIN_MPSZ: Final = re.compile(r"(?:[0-9]+[mpsz])+")
_MPSZ_GROUP: Final = re.compile(r"([0-9]+)([mpsz])")


def parse(text: str) -> list[tuple[TileKind, bool]]:
    """Read mpsz into ``(kind, red)`` pairs in written order.

    >>> parse("19m05p")
    [(0, False), (1, False), (6, True), (6, False)]
    """
    # The common case, plain mpsz, by a regular expression and table lookups; anything
    # else (spaces, errors and their messages) below.
    if isinstance(text, str):
        short = _SHORT.get(text)  # indicators and melds recur: "1z", "555z"
        if short is not None:
            return list(short)
        if _PLAIN_MPSZ.fullmatch(text):
            out: list[tuple[TileKind, bool]] = []
            try:
                for digits, suit in _MPSZ_GROUP.findall(text):
                    out += map(_BY_SUIT[suit].__getitem__, digits)
            except KeyError:
                return _parse_slow(text)
            if len(text) <= 5 and len(_SHORT) < 4096:
                _SHORT[text] = tuple(out)
            return out
    return _parse_slow(text)


_MPSZ_RUN: Final = re.compile(r"[0-9]+[mpsz]")
# One digit run with its suit letter ("123406p") -> (packed kinds, tiles, packed reds); see mpsz_counts.
_RUN_COUNTS: dict[str, tuple[int, int, int]] = {}


def mpsz_counts(text: str) -> tuple[int, int, int] | None:
    """Plain mpsz as kind counts: (the counts packed one byte per kind, the number of tiles,
    the red fives packed the same way), with no list of tiles built; ``None`` for anything
    ``parse`` would not read as plain mpsz of existing tiles (spaces, errors, an empty string),
    which a caller then reads with ``parse`` for its message.  Counts are not checked against
    a set of 108.

    >>> mpsz_counts("0p5p") == (2 << 48, 2, 1 << 48), mpsz_counts("2m"), mpsz_counts("1 p")
    (True, None, None)
    """
    runs = _MPSZ_RUN.findall(text)
    if not runs or len("".join(runs)) != len(text):  # something besides runs: spaces, a stray letter
        return None
    packed = n = reds = 0
    for run in runs:
        counts = _RUN_COUNTS.get(run)
        if counts is None:
            counts = _run_counts(run)
            if counts is None:
                return None
        packed += counts[0]
        n += counts[1]
        reds += counts[2]
    return packed, n, reds


def _run_counts(run: str) -> tuple[int, int, int] | None:
    units = _UNITS_BY_SUIT[run[-1]]
    digits = run[:-1]
    try:
        packed = sum(map(units.__getitem__, digits))
    except KeyError:  # a digit that is no tile of the suit (2m, 8z, 0z)
        return None
    counts = (packed, len(digits), digits.count("0") * units["0"] if "0" in units else 0)
    if len(_RUN_COUNTS) < 1 << 14:  # runs recur (a suit's share of a hand); bounded all the same
        _RUN_COUNTS[run] = counts
    return counts


# Suit letter -> digit -> the tile's unit in packed counts (1 << 8 * kind); "0" is the red five.
_UNITS_BY_SUIT: Final = {suit: {d: 1 << (8 * item[0]) for d, item in table.items()} for suit, table in _BY_SUIT.items()}


def _parse_slow(text: str) -> list[tuple[TileKind, bool]]:
    if not isinstance(text, str):
        raise InvalidNotation(f"notation must be a string, not {type(text).__name__}")
    out: list[tuple[TileKind, bool]] = []
    pending: list[int] = []
    for ch in text:
        if ch.isdigit() and ch.isascii():
            pending.append(int(ch))
        elif ch in "mpsz":
            if not pending:
                raise InvalidNotation(f"suit letter {ch!r} with no digits before it: {text!r}")
            for d in pending:
                if d == 0:
                    if ch not in "ps":
                        raise InvalidNotation(f"0{ch} is not a red five (only 0p and 0s): {text!r}")
                    out.append((_kind_from(5, ch, text), True))
                else:
                    out.append((_kind_from(d, ch, text), False))
            pending = []
        elif ch.isspace():
            continue
        else:
            raise InvalidNotation(f"unexpected character {ch!r} in {text!r}")
    if pending:
        raise InvalidNotation(f"digits without a suit letter at the end of {text!r}")
    return out


def parse_kind(text: str) -> TileKind:
    """Read exactly one tile kind (a red five reads as its kind)."""
    items = parse(text)
    if len(items) != 1:
        raise InvalidNotation(f"expected one tile, got {len(items)}: {text!r}")
    return items[0][0]


def parse_one(text: str) -> tuple[TileKind, bool]:
    """Read exactly one tile as ``(kind, red)``."""
    items = parse(text)
    if len(items) != 1:
        raise InvalidNotation(f"expected one tile, got {len(items)}: {text!r}")
    return items[0]


def to_mpsz(items: Iterable[tuple[TileKind, bool]]) -> str:
    """Write ``(kind, red)`` pairs as canonical mpsz: suits m p s z, digits sorted, a red
    five before the plain fives.

    >>> to_mpsz(parse("11z0p5p19m"))
    '19m05p11z'
    """
    groups: dict[str, list[str]] = {"m": [], "p": [], "s": [], "z": []}
    for kind, red in sorted(items, key=lambda kr: (kr[0], not kr[1])):
        groups[suit_of(kind)].append("0" if red else str(number_of(kind)))
    return "".join("".join(ds) + s for s, ds in groups.items() if ds)


def tiles_to_mpsz(tiles: Iterable[Tile], red_fives: bool = True) -> str:
    """Canonical mpsz of physical tiles."""
    return to_mpsz((kind_of(t), is_red(t, red_fives)) for t in tiles)


def kinds_to_mpsz(kinds: Iterable[TileKind]) -> str:
    """Canonical mpsz of kinds (no red)."""
    return to_mpsz((k, False) for k in kinds)


def counts_of_kinds(kinds: Iterable[TileKind]) -> list[int]:
    """A 27-long count array."""
    counts = [0] * KIND_COUNT
    for k in kinds:
        counts[k] += 1
    return counts


def counts_of_tiles(tiles: Iterable[Tile]) -> list[int]:
    """A 27-long count array of physical tiles."""
    counts = [0] * KIND_COUNT
    for t in tiles:
        counts[t >> 2] += 1
    return counts


def check_copies(items: Sequence[tuple[TileKind, bool]], red_fives: bool = True) -> None:
    """Raise ``InvalidHand`` when tiles could not all exist in one set of 108."""
    counts = [0] * KIND_COUNT
    reds = [0] * KIND_COUNT
    for kind, red in items:
        counts[kind] += 1
        if red:
            if not red_fives:
                raise InvalidHand(f"red {kind_name(kind)} without red fives")
            reds[kind] += 1
    for kind in range(KIND_COUNT):
        if counts[kind] > 4:
            raise InvalidHand(f"{counts[kind]} copies of {kind_name(kind)}; there are only 4")
        if reds[kind] > 1:
            raise InvalidHand(f"{reds[kind]} red {kind_name(kind)}; there is only one")
        if red_fives and kind in (P5, S5) and counts[kind] - reds[kind] > 3:
            raise InvalidHand(f"4 plain {kind_name(kind)} with red fives on; there are only 3")


class CopyAllocator:
    """Distinct physical tiles for ``(kind, red)`` in the order asked: a red five is copy 0
    of 5p/5s (with red fives), plain copies take the others in turn (copies 1-3 of a five
    with red fives).  The one rule every reader uses (``assign_tiles``, the tenhou.net/6 and
    mjai readers); ``take`` raises ``InvalidHand`` for a tile that cannot exist.

    >>> alloc = CopyAllocator()
    >>> alloc.take(P5, False), alloc.take(P5, True), alloc.take(P5, False)
    (25, 24, 26)
    """

    __slots__ = ("_next", "_red", "red_fives")

    def __init__(self, red_fives: bool = True) -> None:
        self.red_fives = red_fives
        self._next = [0] * KIND_COUNT
        if red_fives:
            self._next[P5] = self._next[S5] = 1
        self._red = [False] * KIND_COUNT

    def take(self, kind: TileKind, red: bool) -> Tile:
        """The next free copy of ``kind`` (the red one when ``red``)."""
        if red:
            if not self.red_fives or kind not in (P5, S5):
                raise InvalidHand(f"red {kind_name(kind)} without red fives")
            if self._red[kind]:
                raise InvalidHand(f"2 red {kind_name(kind)}; there is only one")
            self._red[kind] = True
            return kind * 4
        copy = self._next[kind]
        if copy > 3:
            raise InvalidHand(f"a fifth copy of {kind_name(kind)}")
        self._next[kind] = copy + 1
        return kind * 4 + copy

    def take_all(self, items: Iterable[tuple[TileKind, bool]]) -> list[Tile]:
        """``take`` for each item in turn (the same rule, as one loop: hands are long)."""
        nxt, reds = self._next, self._red
        out: list[Tile] = []
        for kind, red in items:
            if red:
                if reds[kind] or not self.red_fives or kind not in (P5, S5):
                    out.append(self.take(kind, red))  # raises
                reds[kind] = True
                out.append(kind * 4)
            else:
                copy = nxt[kind]
                if copy > 3:
                    out.append(self.take(kind, red))  # raises
                nxt[kind] = copy + 1
                out.append(kind * 4 + copy)
        return out


def assign_tiles(items: Sequence[tuple[TileKind, bool]], red_fives: bool = True) -> list[Tile]:
    """Give each ``(kind, red)`` a distinct physical tile, in order.

    >>> assign_tiles(parse("0p55p"))
    [24, 25, 26]
    """
    try:
        return CopyAllocator(red_fives).take_all(items)
    except InvalidHand:
        check_copies(items, red_fives)  # raises the message that names every count
        raise


def parse_tiles(text: str, red_fives: bool = True) -> list[Tile]:
    """mpsz to distinct physical tiles (raises on a fifth copy)."""
    return assign_tiles(parse(text), red_fives)
