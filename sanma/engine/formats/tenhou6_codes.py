"""tenhou.net/6 codes: tile codes, call strings, the shared constants and errors, and the
payment arithmetic in the log's terms (from ``scoring``).  Part of the ``tenhou6`` adapter
(``tenhou6.py`` re-exports the public names)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from sanma.engine.errors import InvalidHand, InvalidLog
from sanma.engine.scoring import ron_payment, tsumo_payments
from sanma.engine.tiles import EAST, P5, S5, CopyAllocator, Tile, TileKind, is_red, kind_of

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
    return kind_to_code(kind, is_red(tile, red_fives))


class CodeAllocator:
    """Physical tiles for tenhou codes by ``tiles.CopyAllocator`` (red codes get copy 0,
    plain fives the other copies, so no tile is used twice), with errors naming the code.
    It remembers what it gave, so that the reader can take back a tile it offered the
    engine for a draw that did not happen (``untake``) and copy itself for a trial."""

    __slots__ = ("_copies", "_taken", "red_fives")

    def __init__(self, red_fives: bool) -> None:
        self.red_fives = red_fives
        self._copies = CopyAllocator(red_fives)
        self._taken: list[tuple[TileKind, bool]] = []

    def take(self, code: int) -> Tile:
        """The next free copy of the tile ``code`` names; raises ``InvalidHand``."""
        kind, red = code_to_kind(code)
        try:
            tile = self._copies.take(kind, red)
        except InvalidHand:
            if red and not self.red_fives:
                raise InvalidHand(f"red five {code} in a game without red fives") from None
            if red:
                raise InvalidHand(f"a second red five {code}") from None
            raise InvalidHand(f"a fifth copy of tile {code}") from None
        self._taken.append((kind, red))
        return tile

    def untake(self) -> None:
        """Give back the last tile taken (the allocator is rebuilt from what it gave before)."""
        self._taken.pop()
        self._copies = CopyAllocator(self.red_fives)
        self._copies.take_all(self._taken)

    def copy(self) -> CodeAllocator:
        """An independent allocator that has given the same tiles."""
        other = CodeAllocator(self.red_fives)
        other._copies.take_all(self._taken)
        other._taken = list(self._taken)
        return other


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


# ---------------------------------------------------------------------------
# JSON helpers


def log_int(value: object, what: str, err: HandErrors) -> int:
    """``value`` as an integer (not a bool), or the hand's error naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise err(f"{what} must be an integer, not {value!r}")
    return value


def log_list(value: object, what: str, err: HandErrors) -> list[object]:
    """``value`` as a JSON array, or the hand's error naming ``what``."""
    if not isinstance(value, list):
        raise err(f"{what} must be an array, not {type(value).__name__}")
    return value


@dataclass(frozen=True, slots=True)
class HandErrors:
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


def recorded_payment(base: int, tsumo: bool, winner_is_dealer: bool) -> RecordedPayment:
    """What each payer pays for base points ``base``, honba excluded: ``scoring``'s own
    arithmetic, in the log's terms."""
    if not tsumo:
        return RecordedPayment(ron=ron_payment(base, winner_is_dealer, 0))
    paid = tsumo_payments(base, winner_is_dealer, 0)
    return RecordedPayment(dealer=paid.dealer, non_dealer=paid.non_dealer)
