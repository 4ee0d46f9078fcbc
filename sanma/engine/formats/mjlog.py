"""Tenhou's mjlog XML (its native log, what its download gives) of three-player games.

An mjlog is already in time order (``<INIT>``, then draws ``T/U/V``, discards ``D/E/F``,
calls ``N``, ``REACH``, ``DORA``, and ``AGARI``/``RYUUKYOKU``), so reading it needs no turn
simulation: each hand becomes the same plain record the tenhou.net/6 reader gives
(``tenhou6.RecordedHand``: a scripted ``Deal``, the ``(seat, Action)`` list and the recorded
result), and ``tenhou6.check_game`` feeds it through ``Kyoku`` and compares.  Fields are in
``shared/testdata/FORMAT.md`` section 2 and ``docs/formats.md``.

Tiles are 136-indices (``4 * tile34 + copy``); sanma's 108 tiles are the same copies, so a
log tile keeps its copy (red fives are copy 0 of 5p/5s in both).  The XML is untrusted
(uploads): a document type (and so any entity) is refused before parsing.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import unquote
from xml.etree import ElementTree

from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pon, Ron, Tsumo
from sanma.engine.errors import InvalidHand, InvalidLog
from sanma.engine.formats.tenhou6 import (
    Outcome,
    RecordedGame,
    RecordedHand,
    RecordedPayment,
    RecordedResult,
    RecordedWin,
)
from sanma.engine.legality import kita_tile
from sanma.engine.tiles import EAST, NORTH, SEAT_COUNT, SEATS, Tile, TileKind, is_red, kind_of, tile_name
from sanma.engine.wall import Deal

GZIP_MAGIC: Final = b"\x1f\x8b"

# Tenhou's yaku ids (tenhou.js order), written the way tenhou.net/6 writes them.
YAKU_NAMES: Final = (
    "門前清自摸和", "立直", "一発", "槍槓", "嶺上開花", "海底摸月", "河底撈魚", "平和", "断幺九", "一盃口",
    "自風 東", "自風 南", "自風 西", "自風 北", "場風 東", "場風 南", "場風 西", "場風 北",
    "役牌 白", "役牌 發", "役牌 中", "両立直", "七対子", "混全帯幺九", "一気通貫", "三色同順", "三色同刻",
    "三槓子", "対々和", "三暗刻", "小三元", "混老頭", "二盃口", "純全帯幺九", "混一色", "清一色", "人和",
    "天和", "地和", "大三元", "四暗刻", "四暗刻単騎", "字一色", "緑一色", "清老頭", "九蓮宝燈", "純正九蓮宝燈",
    "国士無双", "国士無双１３面", "大四喜", "小四喜", "四槓子", "ドラ", "裏ドラ", "赤ドラ",
)  # fmt: skip
_LIMITS: Final = ("none", "mangan", "haneman", "baiman", "sanbaiman", "yakuman")
_LIMIT_TEXT: Final = {"mangan": "満貫", "haneman": "跳満", "baiman": "倍満", "sanbaiman": "三倍満", "yakuman": "役満"}
# RYUUKYOKU type -> (outcome, reason, the tenhou.net/6 word); sanma has no four riichi or four winds.
_DRAWS: Final[dict[str | None, tuple[Outcome, str, str]]] = {
    None: ("drawn", "exhaustive", "流局"),
    "nm": ("drawn", "nagashi", "流し満貫"),
    "yao9": ("aborted", "nine_terminals", "九種九牌"),
    "kan4": ("aborted", "four_kans", "四槓散了"),
}
_DRAW_TAGS: Final = "TUV"
_DISCARD_TAGS: Final = "DEF"
_IGNORED: Final = frozenset({"SHUFFLE", "GO", "UN", "TAIKYOKU", "BYE"})
_MOVE_RE: Final = re.compile(r"^([TUVWDEFG])(\d+)$")
_REF_RE: Final = re.compile(r"\d{10}gm-[0-9a-f]{4}-\d{4}-[0-9a-f]{8}")
_DOCTYPE_RE: Final = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)


class MjlogError(InvalidLog):
    """An mjlog that cannot be read, with where: ``source`` (file or label), ``hand``
    (0-based, ``None`` outside a hand) and ``position`` (e.g. ``"<D53> (element 40)"``)."""


class FourPlayerLog(MjlogError):
    """The log's ``GO type`` says four players: Sanma reads three-player games only."""


class OversizeLog(MjlogError):
    """A gzip file that unpacks to more than the caller allows."""


# ---------------------------------------------------------------------------
# the container and the document


def is_gzip(data: bytes) -> bool:
    """Whether ``data`` starts like a gzip file (Tenhou's downloads are ``.xml.gz``/``.mjlog``)."""
    return data[:2] == GZIP_MAGIC


def gunzip(data: bytes, *, max_bytes: int, source: str = "") -> bytes:
    """``data`` unpacked, at most ``max_bytes`` of it (``OversizeLog`` beyond: a small file
    may unpack to gigabytes); a damaged file raises ``MjlogError``."""
    unpacker = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = unpacker.decompress(data, max_bytes + 1)
    except zlib.error as exc:
        raise MjlogError(f"a damaged gzip file ({exc})", source=source) from None
    if len(out) > max_bytes:
        raise OversizeLog(f"the gzip file unpacks to more than {max_bytes} bytes", source=source)
    if not unpacker.eof:
        raise MjlogError("the gzip file ends too early", source=source)
    return out


def looks_like_mjlog(text: str) -> bool:
    """Whether ``text`` is XML rather than tenhou.net/6 JSON (which starts with ``{``)."""
    return text.lstrip("\ufeff \t\r\n").startswith("<")


def _document(text: str, source: str) -> ElementTree.Element:
    if _DOCTYPE_RE.search(text):
        raise MjlogError("a document type or entity declaration (refused: an mjlog has none)", source=source)
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as exc:
        raise MjlogError(f"not well-formed XML ({exc})", source=source) from None
    if root.tag != "mjloggm":
        raise MjlogError(f"the root element is <{root.tag}>, not <mjloggm>", source=source)
    return root


def rule_name(game_type: int) -> str:
    """Tenhou's room name for a ``GO type`` bit field.

    >>> rule_name(185), rule_name(0x10 | 0x01 | 0x40)
    ('三鳳南喰赤', '三般東喰赤速')
    """
    level = {0x00: "般", 0x80: "上", 0x20: "特", 0xA0: "鳳"}[game_type & 0xA0]
    words = ["三", level, "南" if game_type & 0x08 else "東"]
    words += ["" if game_type & 0x04 else "喰", "" if game_type & 0x02 else "赤", "速" if game_type & 0x40 else ""]
    return "".join(words)


# ---------------------------------------------------------------------------
# tiles and calls


def tile_of(index: int) -> Tile:
    """A 136-index as our physical tile (same copy); raises ``InvalidHand`` for 2m-8m.

    >>> tile_of(0), tile_of(35), tile_of(52), tile_of(122)
    (0, 7, 24, 94)
    """
    if not 0 <= index < 136:
        raise InvalidHand(f"no tile has the index {index}")
    t34, copy = divmod(index, 4)
    if 1 <= t34 <= 7:
        raise InvalidHand(f"tile {index} is a 2m-8m, which sanma does not have")
    kind = 0 if t34 == 0 else 1 if t34 == 8 else t34 - 7
    return kind * 4 + copy


def _index(tile: Tile) -> str:
    """Our tile as the log's 136-index, for messages (``tile_of`` backwards)."""
    kind, copy = divmod(tile, 4)
    t34 = 0 if kind == 0 else 8 if kind == 1 else kind + 7
    return f"tile {4 * t34 + copy}"


@dataclass(frozen=True, slots=True)
class Call:
    """A decoded ``N m``: ``what`` is pon, kakan, kita, ankan or daiminkan; ``tiles`` are
    the meld's tiles (136-indices; for kita the North), ``called`` the tile taken from another
    seat or (kakan) added, ``offset`` the giver relative to the caller (1 next, 2, 3 before)."""

    what: str
    tiles: tuple[int, ...]
    called: int
    offset: int


def decode_call(m: int) -> Call:
    """Tenhou's meld bit field; raises ``InvalidHand`` for a chi (sanma has none).

    >>> decode_call(31008)
    Call(what='kita', tiles=(121,), called=121, offset=0)
    """
    if m < 0 or m >= 1 << 16:
        raise InvalidHand(f"no call has the code {m}")
    offset = m & 3
    if m & 0x04:
        raise InvalidHand(f"call {m} is a chi, which sanma does not have")
    if m & 0x18:
        t = m >> 9
        base, index = divmod(t, 3)
        unused = (m >> 5) & 3
        copies = [c for c in range(4) if c != unused]
        if base >= 34:
            raise InvalidHand(f"no call has the code {m}")
        tiles = tuple(4 * base + c for c in copies)
        if m & 0x08:
            return Call("pon", tiles, tiles[index], offset)
        added = 4 * base + unused
        return Call("kakan", (*tiles, added), added, offset)
    if m & 0x20:
        return Call("kita", (m >> 8,), m >> 8, 0)
    t = m >> 8
    tiles = tuple(4 * (t // 4) + c for c in range(4))
    return Call("ankan" if offset == 0 else "daiminkan", tiles, t, offset)


# ---------------------------------------------------------------------------
# one hand


@dataclass(slots=True)
class _Hand:
    """What is read of one hand so far: arrivals by log tile, actions by engine tile.

    ``alias`` maps a log tile to the engine's tile.  Copies of one kind are alike to the
    rules, but the engine picks which copies a pon uses (the lowest plain ones) and which
    North a kita sets aside (the drawn one, else the lowest) while the log names its own; when
    they differ, the two copies (both in that seat's hand) trade names from then on, so a
    later discard of the copy the log kept names the copy the engine kept."""

    index: int
    seed: tuple[int, ...]
    dealer: int
    scores: tuple[int, int, int]
    hands: list[list[int]]  # per seat, log tiles in the concealed hand
    dealt: tuple[tuple[Tile, ...], tuple[Tile, ...], tuple[Tile, ...]]
    dora: list[Tile]
    alias: dict[int, int] = field(default_factory=dict)
    live: list[Tile] = field(default_factory=list)
    replacements: list[Tile] = field(default_factory=list)
    actions: list[tuple[int, Action]] = field(default_factory=list)
    riichi: list[int] = field(default_factory=list)
    declaring: set[int] = field(default_factory=set)
    rinshan: int | None = None  # the seat whose next draw is a replacement draw
    drawn: tuple[int, int] | None = None  # (seat, log tile) of the last draw
    last_discard: tuple[int, int] | None = None  # (seat, log tile)
    wins: list[RecordedWin] = field(default_factory=list)
    ura: list[Tile] = field(default_factory=list)
    result: RecordedResult | None = None

    def engine(self, tile: int) -> int:
        return self.alias.get(tile, tile)

    def trade(self, a: int, b: int) -> None:
        """Log tiles ``a`` and ``b`` swap the engine tiles they stand for."""
        ea, eb = self.engine(a), self.engine(b)
        self.alias[a], self.alias[b] = eb, ea

    def match_choice(self, seat: int, log_used: list[int], engine_used: list[int]) -> None:
        """Make the copies the log used stand for the ones the engine uses."""
        wrong = [t for t in log_used if self.engine(t) not in engine_used]
        by_engine = {self.engine(t): t for t in self.hands[seat]}
        missing = [by_engine[e] for e in engine_used if e not in {self.engine(t) for t in log_used}]
        for a, b in zip(wrong, missing, strict=True):
            self.trade(a, b)


class _Reader:
    """Reads the elements of one document into ``RecordedHand`` values."""

    def __init__(self, source: str, red_fives: bool) -> None:
        self.source = source
        self.red_fives = red_fives
        self.hands: list[RecordedHand] = []
        self.current: _Hand | None = None
        self.position = ""
        self.final: tuple[int, int, int] | None = None

    def error(self, message: str) -> MjlogError:
        hand = None if self.current is None else self.current.index
        return MjlogError(message, source=self.source, hand=hand, position=self.position)

    def hand(self) -> _Hand:
        if self.current is None:
            raise self.error("a move before the first <INIT>")
        return self.current

    def playing(self) -> _Hand:
        """The hand being read, which must not have ended yet (a move after its end is an error)."""
        h = self.hand()
        if h.result is not None:
            raise self.error("a move after the hand ended")
        return h

    def tile(self, index: int) -> Tile:
        try:
            return tile_of(index)
        except InvalidHand as exc:
            raise self.error(str(exc)) from None

    def read(self, element: ElementTree.Element) -> None:
        tag = element.tag
        move = _MOVE_RE.match(tag)
        if move:
            letter, index = move.group(1), int(move.group(2))
            if letter in _DRAW_TAGS:
                self.draw(_DRAW_TAGS.index(letter), self.tile(index))
            elif letter in _DISCARD_TAGS:
                self.discard(_DISCARD_TAGS.index(letter), self.tile(index))
            else:
                raise self.error("a fourth seat moves in a three-player log")
            return
        handler = {
            "INIT": self.init,
            "N": self.call,
            "REACH": self.reach,
            "DORA": self.dora,
            "AGARI": self.agari,
            "RYUUKYOKU": self.ryuukyoku,
        }.get(tag)
        if handler is not None:
            handler(element.attrib)
        elif tag not in _IGNORED:
            raise self.error(f"unknown element <{tag}>")

    # -- attributes

    def ints(self, attrs: dict[str, str], name: str, count: int | None = None) -> list[int]:
        raw = attrs.get(name)
        if raw is None:
            raise self.error(f"attribute {name} is missing")
        try:
            values = [int(v) for v in raw.split(",")] if raw else []
        except ValueError:
            raise self.error(f"attribute {name}={raw!r} is not a list of integers") from None
        if count is not None and len(values) != count:
            raise self.error(f"attribute {name} holds {len(values)} numbers, not {count}")
        return values

    def seat(self, attrs: dict[str, str], name: str = "who") -> int:
        (seat,) = self.ints(attrs, name, 1)
        if not 0 <= seat < SEAT_COUNT:
            raise self.error(f"{name}={seat} is not a seat of a three-player game")
        return seat

    def hundreds(self, attrs: dict[str, str], name: str) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """``sc``/``owari``-like pairs: (scores, changes), in points."""
        values = self.ints(attrs, name)
        if len(values) != 8 or values[6] or values[7]:
            raise self.error(f"attribute {name} must hold 4 pairs, the fourth seat's 0,0")
        return (
            (values[0] * 100, values[2] * 100, values[4] * 100),
            (values[1] * 100, values[3] * 100, values[5] * 100),
        )

    # -- the hand's start and moves

    def init(self, attrs: dict[str, str]) -> None:
        self.close()
        seed = self.ints(attrs, "seed", 6)
        scores = self.ints(attrs, "ten", 4)
        dealer = self.seat(attrs, "oya")
        index = len(self.hands)
        self.current = None
        if seed[0] % 4 != dealer or not 0 <= seed[0] < 12 or seed[1] < 0 or seed[2] < 0 or scores[3]:
            raise self.error(f"impossible three-player hand start seed={seed} oya={dealer} ten={scores}")
        hands = [self.ints(attrs, f"hai{s}", 13) for s in SEATS]
        tiles = [[self.tile(i) for i in h] for h in hands]
        self.current = _Hand(
            index=index,
            seed=tuple(seed),
            dealer=dealer,
            scores=(scores[0] * 100, scores[1] * 100, scores[2] * 100),
            hands=[list(t) for t in tiles],
            dealt=(tuple(tiles[0]), tuple(tiles[1]), tuple(tiles[2])),
            dora=[self.tile(seed[5])],
        )

    def draw(self, seat: int, tile: Tile) -> None:
        h = self.playing()
        (h.replacements if h.rinshan == seat else h.live).append(tile)
        h.rinshan = None
        h.hands[seat].append(tile)
        h.drawn = (seat, tile)

    def take(self, seat: int, tile: int) -> None:
        h = self.hand()
        if tile not in h.hands[seat]:
            raise self.error(f"seat {seat} does not hold {tile_name(tile)} ({_index(tile)})")
        h.hands[seat].remove(tile)

    def discard(self, seat: int, tile: Tile) -> None:
        h = self.playing()
        self.take(seat, tile)
        riichi = seat in h.declaring
        h.declaring.discard(seat)
        h.actions.append((seat, Discard(h.engine(tile), riichi=riichi)))
        h.last_discard = (seat, tile)
        h.drawn = None

    def reach(self, attrs: dict[str, str]) -> None:
        h = self.playing()
        seat = self.seat(attrs)
        (step,) = self.ints(attrs, "step", 1)
        if step == 1:
            h.declaring.add(seat)
            h.riichi.append(seat)
        elif step != 2:
            raise self.error(f"REACH step={step} (1 declares, 2 is accepted)")

    def dora(self, attrs: dict[str, str]) -> None:
        (index,) = self.ints(attrs, "hai", 1)
        self.playing().dora.append(self.tile(index))

    def call(self, attrs: dict[str, str]) -> None:
        h = self.playing()
        seat = self.seat(attrs)
        (m,) = self.ints(attrs, "m", 1)
        try:
            call = decode_call(m)
            tiles = [tile_of(t) for t in call.tiles]
            called = tile_of(call.called)
        except InvalidHand as exc:
            raise self.error(str(exc)) from None
        kind = kind_of(called)
        drawn = h.drawn[1] if h.drawn is not None and h.drawn[0] == seat else None
        if call.what in ("pon", "daiminkan"):
            if h.last_discard is None or h.last_discard[1] != called or h.last_discard[0] == seat:
                raise self.error(f"seat {seat} calls tile {called}, which is not the last discard of another seat")
            used = [t for t in tiles if t != called]
            if call.what == "pon":
                self.hold(seat, used)
                red = any(is_red(t, self.red_fives) for t in used)
                h.match_choice(seat, used, self.engine_pon(seat, kind, red))
                h.actions.append((seat, Pon(kind, red=red)))
            else:
                h.actions.append((seat, Kan(kind)))
        elif call.what == "kita":
            if kind != NORTH:
                raise self.error(f"a kita sets aside a North, not tile {called}")
            self.hold(seat, [called])
            engine_hand = [h.engine(t) for t in h.hands[seat]]
            chosen = kita_tile(engine_hand, None if drawn is None else h.engine(drawn))
            h.match_choice(seat, [called], [chosen])
            used = [called]
            h.actions.append((seat, Kita()))
        else:
            used = [called] if call.what == "kakan" else tiles
            h.actions.append((seat, Kan(kind)))
        for t in used:
            self.take(seat, t)
        h.rinshan = None if call.what == "pon" else seat
        h.drawn = None
        h.last_discard = (seat, called) if call.what in ("kita", "kakan") else None

    def hold(self, seat: int, tiles: list[int]) -> None:
        missing = [t for t in tiles if t not in self.hand().hands[seat]]
        if missing:
            raise self.error(f"seat {seat} does not hold {tile_name(missing[0])} ({_index(missing[0])})")

    def engine_pon(self, seat: int, kind: TileKind, red: bool) -> list[int]:
        """The copies the engine's pon takes: the lowest plain ones (and the red one when asked)."""
        h = self.hand()
        mine = sorted(h.engine(t) for t in h.hands[seat] if kind_of(t) == kind)
        reds = [t for t in mine if is_red(t, self.red_fives)]
        plain = [t for t in mine if t not in reds]
        return [reds[0], plain[0]] if red else plain[:2]

    # -- the hand's end

    def agari(self, attrs: dict[str, str]) -> None:
        h = self.hand()
        if h.result is not None and not h.wins:
            raise self.error("<AGARI> after the hand was drawn")
        seat, from_seat = self.seat(attrs), self.seat(attrs, "fromWho")
        pao = self.seat(attrs, "paoWho") if "paoWho" in attrs else seat
        fu, points, limit_id = self.ints(attrs, "ten", 3)
        yaku_values = self.ints(attrs, "yaku") if "yaku" in attrs else []
        yakuman_ids = self.ints(attrs, "yakuman") if "yakuman" in attrs else []
        if len(yaku_values) % 2 or not 0 <= limit_id < len(_LIMITS):
            raise self.error(f"unreadable win: yaku={yaku_values} ten={fu},{points},{limit_id}")
        if any(not 0 <= i < len(YAKU_NAMES) for i in [*yaku_values[::2], *yakuman_ids]):
            raise self.error(f"an unknown yaku id in yaku={yaku_values} yakuman={yakuman_ids}")
        yaku = [(YAKU_NAMES[i], n) for i, n in zip(yaku_values[::2], yaku_values[1::2], strict=True)]
        yaku += [(YAKU_NAMES[i], 13) for i in yakuman_ids]
        limit = _LIMITS[limit_id]
        # A counted yakuman lists ordinary yaku under the yakuman limit: one yakuman, real han.
        yakuman = len(yakuman_ids) or (1 if limit == "yakuman" else 0)
        han = 13 * len(yakuman_ids) if yakuman_ids else sum(yaku_values[1::2])
        tsumo = seat == from_seat
        payment = _payment(points, tsumo, seat == h.dealer)
        text = _points_text(fu, han, limit, payment, tsumo, seat == h.dealer)
        _, deltas = self.hundreds(attrs, "sc")
        # A yakuman has no fu in the engine's terms (its ``Score.fu`` is 0); Tenhou writes one.
        fu = 0 if yakuman_ids else fu
        h.wins.append(RecordedWin(seat, from_seat, pao, han, fu, yakuman, limit, payment, text, tuple(yaku), deltas))
        if "doraHaiUra" in attrs and not h.ura:
            h.ura = [self.tile(i) for i in self.ints(attrs, "doraHaiUra")]
        total = tuple(sum(w.deltas[s] for w in h.wins) for s in SEATS)
        h.result = RecordedResult("won", "和了", "", (total[0], total[1], total[2]), tuple(h.wins))
        self.owari(attrs)

    def ryuukyoku(self, attrs: dict[str, str]) -> None:
        h = self.hand()
        if h.result is not None:
            raise self.error("<RYUUKYOKU> after the hand ended")
        kind = attrs.get("type")
        if kind not in _DRAWS:
            raise self.error(f"RYUUKYOKU type={kind!r} is not a three-player ending")
        outcome, reason, word = _DRAWS[kind]
        _, deltas = self.hundreds(attrs, "sc")
        h.result = RecordedResult(outcome, word, reason, deltas)
        if reason == "nine_terminals":
            if h.drawn is None:
                raise self.error("nine terminals declared without a draw")
            h.actions.append((h.drawn[0], NineTerminals()))
        self.owari(attrs)

    def owari(self, attrs: dict[str, str]) -> None:
        """The game's final scores (``owari`` pairs a score with a decimal point result)."""
        raw = attrs.get("owari")
        if raw is None:
            return
        parts = raw.split(",")
        try:
            scores = [int(parts[i]) * 100 for i in (0, 2, 4)]
        except (ValueError, IndexError):
            raise self.error(f"attribute owari={raw!r} does not start with three scores") from None
        self.final = (scores[0], scores[1], scores[2])

    def close(self) -> None:
        """Finish the hand being read (at the next ``<INIT>`` or the document's end)."""
        h = self.current
        if h is None:
            return
        self.position = f"the end of hand {h.index}"
        if h.result is None:
            raise self.error("the hand has no <AGARI> or <RYUUKYOKU>")
        arrived = [*(t for tiles in h.dealt for t in tiles), *h.live, *h.replacements, *h.dora, *h.ura]
        twice = sorted(t for t, n in Counter(arrived).items() if n > 1)
        if twice:
            raise self.error(f"{tile_name(twice[0])} ({_index(twice[0])}) appears twice in the hand")
        # Winners claim in turn order from the discarder, as the engine resolves them.
        for win in sorted(h.wins, key=lambda w: (w.seat - w.from_seat) % SEAT_COUNT):
            h.actions.append((win.seat, Tsumo() if win.tsumo else Ron()))
        try:
            deal = Deal(
                hands=h.dealt,
                live=tuple(h.live),
                replacements=tuple(h.replacements),
                dora_indicators=tuple(h.dora),
                ura_indicators=tuple(h.ura),
            )
        except InvalidHand as exc:
            raise self.error(str(exc)) from None
        self.hands.append(
            RecordedHand(
                index=h.index,
                round_wind=EAST + h.seed[0] // 4,
                dealer=h.dealer,
                honba=h.seed[1],
                deposits=h.seed[2],
                scores=h.scores,
                deal=deal,
                actions=tuple(h.actions),
                result=h.result,
                riichi=tuple(h.riichi),
            )
        )
        self.current = None


def _payment(points: int, tsumo: bool, winner_is_dealer: bool) -> RecordedPayment:
    """The log's total (honba excluded) split the way the score text would: a non-dealer
    tsumo pays ``n`` and ``d`` with ``d`` = 2n or 2n-100 (both rounded up from the base)."""
    if not tsumo:
        return RecordedPayment(ron=points)
    if winner_is_dealer:
        return RecordedPayment(non_dealer=points // 2)
    non_dealer = points // 3 if points % 300 == 0 else (points + 100) // 3
    return RecordedPayment(dealer=points - non_dealer, non_dealer=non_dealer)


def _points_text(fu: int, han: int, limit: str, paid: RecordedPayment, tsumo: bool, dealer: bool) -> str:
    """The tenhou.net/6 score text of a win (the viewer shows it), e.g. ``30符2飜500-1000点``."""
    amount = (
        f"{paid.ron}点" if not tsumo else f"{paid.non_dealer}点∀" if dealer else f"{paid.non_dealer}-{paid.dealer}点"
    )
    return (f"{fu}符{han}飜" if limit == "none" else _LIMIT_TEXT[limit]) + amount


# ---------------------------------------------------------------------------
# games


def loads(text: str, *, source: str = "") -> RecordedGame:
    """Read a three-player mjlog document into the record ``tenhou6.check_game`` replays;
    raises ``MjlogError`` (``FourPlayerLog`` for a four-player game)."""
    root = _document(text, source)
    go = root.find("GO")
    try:
        game_type = int(go.attrib["type"]) if go is not None else -1
    except (KeyError, ValueError):
        raise MjlogError("<GO> needs a numeric type", source=source) from None
    if game_type < 0:
        raise MjlogError("no <GO> element: the room and player count are unknown", source=source)
    if not game_type & 0x10:
        raise FourPlayerLog(f"GO type {game_type} is a four-player game", source=source)
    red_fives = not game_type & 0x02
    reader = _Reader(source, red_fives)
    for i, element in enumerate(root):
        reader.position = f"<{element.tag}> (element {i})"
        reader.read(element)
    reader.position = ""
    reader.close()
    if not reader.hands:
        raise MjlogError("the log has no hand", source=source)
    un = root.find("UN")
    names = tuple(unquote(un.attrib.get(f"n{s}", "")) if un is not None else "" for s in SEATS)
    ref = _REF_RE.search(source)
    return RecordedGame(
        source=source,
        ref=ref.group(0) if ref else "",
        rule_name=rule_name(game_type),
        red_fives=red_fives,
        names=(names[0], names[1], names[2]),
        final_scores=reader.final,
        hands=tuple(reader.hands),
        raw={"format": "mjlog", "GO": dict(go.attrib) if go is not None else {}},
    )
