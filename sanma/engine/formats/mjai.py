"""The three-player mjai dialect (``shared/spec/mjai-3p.md``): an adapter at the edge.

Four conversions, all pure:

* ``MjaiWriter.write(event)``: one of our events, as one seat sees it (already redacted),
  -> the mjai events that stand for it, in the spec's order (section 3): a kan dora is
  held back so that it follows a kita or a kan, ``reach`` precedes the riichi discard, and
  ``end_kyoku`` is written when the next hand (or the match's end) shows the hand is over;
* ``MjaiReader.read(obj)``: one mjai event -> our events.  mjai names tiles, not physical
  copies, so the reader gives every tile it meets its own physical id (the seat's own tiles
  are followed copy by copy, so a discard or a call takes out exactly the copy that went in);
* ``parse_answer(answer, ...)``: an mjai answer -> our ``Action`` (or ``REACH``, the first
  half of a riichi, which mjai splits into ``reach`` then ``dahai``);
* ``answer_for(action, ...)``: our ``Action`` -> the mjai answer that names it, with the
  exact copies the engine would use.

Tile names: ``1m 9m 1p..9p 5pr 1s..9s 5sr E S W N P F C`` and ``?`` for a hidden tile.
mjai carries no han, fu or winning hand for other seats, so a ``HandWon`` read from mjai
holds what the event says and zeros elsewhere (see ``docs/protocol-mjai.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pass, Pon, Ron, Tsumo
from sanma.engine.errors import InvalidHand, InvalidLog
from sanma.engine.events import (
    DoraRevealed,
    Event,
    HandAborted,
    HandDrawn,
    HandStarted,
    HandWon,
    KitaDeclared,
    MatchEnded,
    MatchStarted,
    MeldCalled,
    RiichiAccepted,
    TileDiscarded,
    TileDrawn,
)
from sanma.engine.hand import Meld, MeldType
from sanma.engine.legality import kita_tile
from sanma.engine.match import rank, standings
from sanma.engine.rules import DEFAULT, Rules
from sanma.engine.scoring import Payments, Score
from sanma.engine.tiles import (
    EAST,
    KIND_COUNT,
    NORTH,
    P5,
    S5,
    SEATS,
    SOUTH,
    WEST,
    CopyAllocator,
    Tile,
    TileKind,
    is_red,
    kind_name,
    kind_of,
)
from sanma.engine.view import SeatView
from sanma.engine.visibility import HIDDEN, HIDDEN_SEED, is_hidden

MjaiEvent = dict[str, Any]
"""One mjai JSON object."""

HIDDEN_NAME: Final = "?"
WALL_ALGORITHM: Final = "mjai"  # MatchStarted.wall_algorithm of a match read from mjai
_HONORS: Final = ("E", "S", "W", "N", "P", "F", "C")
_BAKAZE: Final = {EAST: "E", SOUTH: "S", WEST: "W"}
_KAN_TYPES: Final = (MeldType.DAIMINKAN, MeldType.ANKAN, MeldType.KAKAN)

# ryukyoku reasons, RiichiEnv's and jansou's words (and tenhou-style ones) -> ours
_DRAWN_REASONS: Final = frozenset({"exhaustive_draw", "exhaustive", "fanpai", "howanpai"})
_NAGASHI_REASONS: Final = frozenset({"nagashimangan", "nm", "nagashi"})
_NINE_REASONS: Final = frozenset({"kyushu_kyuhai", "yao9", "kyushukyuhai", "nine_terminals"})
_FOUR_KAN_REASONS: Final = frozenset({"suukansansen", "kan4", "suukaikan", "four_kans"})


class MjaiError(InvalidLog):
    """An mjai event or answer that cannot be read (or names a tile that is not there)."""


@dataclass(frozen=True, slots=True)
class Reach:
    """The answer ``reach``: the first half of a riichi (the discard follows separately)."""


REACH: Final = Reach()
"""What ``parse_answer`` returns for ``{"type": "reach"}``."""


# -- tiles ---------------------------------------------------------------------------------


def kind_to_mjai(kind: TileKind) -> str:
    """The mjai name of a kind (never the red five): ``1m``, ``5p``, ``E`` ... ``C``."""
    if kind >= EAST:
        return _HONORS[kind - EAST]
    return kind_name(kind)


def tile_to_mjai(tile: Tile, red_fives: bool = True) -> str:
    """The mjai name of a physical tile: ``5pr``/``5sr`` for a red five, ``?`` for ``HIDDEN``.

    >>> tile_to_mjai(P5 * 4), tile_to_mjai(P5 * 4 + 1), tile_to_mjai(NORTH * 4), tile_to_mjai(HIDDEN)
    ('5pr', '5p', 'N', '?')
    """
    if is_hidden(tile):
        return HIDDEN_NAME
    name = kind_to_mjai(kind_of(tile))
    return name + "r" if is_red(tile, red_fives) else name


_NAMES: Final[dict[str, tuple[TileKind, bool]]] = {kind_to_mjai(k): (k, False) for k in range(KIND_COUNT)}
_NAMES.update({"5pr": (P5, True), "5sr": (S5, True)})


def mjai_to_kind(name: object) -> tuple[TileKind, bool]:
    """``(kind, red)`` of an mjai tile name; ``MjaiError`` for anything else (``?`` included).

    >>> mjai_to_kind("5sr"), mjai_to_kind("W")
    ((15, True), (22, False))
    """
    if not isinstance(name, str) or name not in _NAMES:
        raise MjaiError(f"not a three-player mjai tile: {name!r}")
    return _NAMES[name]


def _tiles_named(tiles: Sequence[Tile], name: str, red_fives: bool) -> list[Tile]:
    return [t for t in tiles if tile_to_mjai(t, red_fives) == name]


# -- our events -> mjai ----------------------------------------------------------------------


@dataclass(slots=True)
class MjaiWriter:
    """Writes one seat's events (already redacted for it) as mjai events, in the spec's order."""

    red_fives: bool = True
    _held_dora: list[DoraRevealed] = field(default_factory=list)
    _hand_open: bool = False

    def write(self, event: Event) -> list[MjaiEvent]:
        """The mjai events for ``event`` (possibly none: a kan dora may wait for the next one)."""
        if isinstance(event, DoraRevealed):
            self._held_dora.append(event)
            return []
        held = [self._dora(d) for d in self._held_dora]
        self._held_dora.clear()
        body = self._convert(event)
        after_kan_or_kita = isinstance(event, KitaDeclared) or (
            isinstance(event, MeldCalled) and event.meld.type in _KAN_TYPES
        )
        if after_kan_or_kita:
            return body + held
        if isinstance(event, TileDiscarded) and event.riichi:
            return body[:1] + held + body[1:]  # reach, dora, dahai: the dora just before the dahai
        return held + body

    def _dora(self, event: DoraRevealed) -> MjaiEvent:
        return {"type": "dora", "dora_marker": self._name(event.indicator)}

    def _name(self, tile: Tile) -> str:
        return tile_to_mjai(tile, self.red_fives)

    def _names(self, tiles: Sequence[Tile]) -> list[str]:
        return [self._name(t) for t in tiles]

    def _end_hand(self) -> list[MjaiEvent]:
        was_open, self._hand_open = self._hand_open, False
        return [{"type": "end_kyoku"}] if was_open else []

    def _convert(self, event: Event) -> list[MjaiEvent]:
        if isinstance(event, MatchStarted):
            self.red_fives = event.rules.red_fives
            self._hand_open = False
            return [{"type": "start_game"}]
        if isinstance(event, HandStarted):
            out = self._end_hand()
            self._hand_open = True
            return [*out, self._start_kyoku(event)]
        if isinstance(event, TileDrawn):
            return [{"type": "tsumo", "actor": event.seat, "pai": self._name(event.tile)}]
        if isinstance(event, TileDiscarded):
            dahai = {"type": "dahai", "actor": event.seat, "pai": self._name(event.tile), "tsumogiri": event.tsumogiri}
            return [{"type": "reach", "actor": event.seat}, dahai] if event.riichi else [dahai]
        if isinstance(event, MeldCalled):
            return [self._meld(event.seat, event.meld)]
        if isinstance(event, KitaDeclared):
            return [{"type": "kita", "actor": event.seat, "pai": "N"}]
        if isinstance(event, RiichiAccepted):
            return [{"type": "reach_accepted", "actor": event.seat}]
        if isinstance(event, HandWon):
            return [self._hora(event)]
        if isinstance(event, HandDrawn):
            return [self._ryukyoku(event)]
        if isinstance(event, HandAborted):
            reason = "kyushu_kyuhai" if event.reason == "nine_terminals" else "suukansansen"
            out_event: MjaiEvent = {"type": "ryukyoku", "reason": reason, "deltas": [0, 0, 0]}
            if event.seat is not None:
                out_event["actor"] = event.seat
            return [out_event]
        # MatchEnded (DoraRevealed never gets here)
        assert isinstance(event, MatchEnded)
        return [*self._end_hand(), {"type": "end_game", "scores": list(event.points)}]

    def _start_kyoku(self, e: HandStarted) -> MjaiEvent:
        return {
            "type": "start_kyoku",
            "bakaze": _BAKAZE.get(e.round_wind, "E"),
            "kyoku": e.dealer + 1,
            "honba": e.honba,
            "kyotaku": e.deposits,
            "oya": e.dealer,
            "dora_marker": self._name(e.dora_indicator),
            "scores": list(e.scores),
            "tehais": [self._names(h) for h in e.hands],
        }

    def _meld(self, seat: int, meld: Meld) -> MjaiEvent:
        if meld.type is MeldType.ANKAN:
            return {"type": "ankan", "actor": seat, "consumed": self._names(meld.tiles)}
        if meld.type is MeldType.KAKAN:
            assert meld.added is not None
            pon = [t for t in meld.tiles if t != meld.added]
            return {"type": "kakan", "actor": seat, "pai": self._name(meld.added), "consumed": self._names(pon)}
        assert meld.called is not None
        return {
            "type": meld.type.value,
            "actor": seat,
            "target": meld.from_seat,
            "pai": self._name(meld.called),
            "consumed": self._names([t for t in meld.tiles if t != meld.called]),
        }

    def _hora(self, e: HandWon) -> MjaiEvent:
        out: MjaiEvent = {
            "type": "hora",
            "actor": e.seat,
            "target": e.from_seat,
            "pai": self._name(e.tile),
            "deltas": list(e.deltas),
            "ura_markers": self._names(e.ura_indicators),
        }
        if e.seat == e.from_seat:
            out["tsumo"] = True
        return out

    def _ryukyoku(self, e: HandDrawn) -> MjaiEvent:
        # ``tehais``: the tenpai hands shown, ``null`` for a noten seat (a list means tenpai).
        tehais = [self._names(e.tenpai_hands[s]) if s in e.tenpai else None for s in SEATS]
        reason = "nagashimangan" if e.nagashi else "exhaustive_draw"
        return {"type": "ryukyoku", "reason": reason, "deltas": list(e.deltas), "tehais": tehais}


def write_all(events: Sequence[Event], red_fives: bool = True) -> list[MjaiEvent]:
    """Every event of a (redacted) log as mjai, in order."""
    writer = MjaiWriter(red_fives)
    return [m for e in events for m in writer.write(e)]


# -- mjai -> our events ------------------------------------------------------------------------


def _field(obj: Mapping[str, Any], key: str) -> Any:
    if key not in obj:
        raise MjaiError(f"{obj.get('type')!r} event without {key!r}")
    return obj[key]


def _seat_field(obj: Mapping[str, Any], key: str) -> int:
    value = _field(obj, key)
    if not isinstance(value, int) or isinstance(value, bool) or value not in SEATS:
        raise MjaiError(f"{key} must be a seat 0..2, not {value!r}")
    return value


def _int_field(obj: Mapping[str, Any], key: str, default: int | None = None) -> int:
    value = obj.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise MjaiError(f"{key} must be an integer, not {value!r}")
    return value


def _triple(obj: Mapping[str, Any], key: str) -> tuple[int, int, int]:
    value = _field(obj, key)
    # Four-entry arrays (a phantom fourth seat of four-player tools) lose their last entry.
    if not isinstance(value, list) or len(value) not in (3, 4) or not all(isinstance(v, int) for v in value):
        raise MjaiError(f"{key} must list three integers, not {value!r}")
    return (value[0], value[1], value[2])


def _names_field(obj: Mapping[str, Any], key: str, count: int | None = None) -> list[str]:
    value = obj.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise MjaiError(f"{key} must be a list of tile names, not {value!r}")
    if count is not None and len(value) != count:
        raise MjaiError(f"{key} must name {count} tiles, not {len(value)}")
    return value


UNKNOWN_SCORE: Final = Score(0, 0, 0, "none", (), 0, Payments(), 0)
"""The score of a ``HandWon`` read from mjai when the event carries none."""


@dataclass(slots=True)
class MjaiReader:
    """Reads one seat's mjai stream into our events.  The seat is learned from the first
    ``start_kyoku`` (the one ``tehais`` entry without ``?``) unless given."""

    rules: Rules = DEFAULT
    seat: int | None = None
    _alloc: CopyAllocator | None = None  # the physical copies met in this hand
    _hand: list[Tile] = field(default_factory=list)
    _drawn: Tile | None = None
    _melds: list[list[Meld]] = field(default_factory=lambda: [[], [], []])
    _offer: tuple[int, Tile] | None = None  # the last discard, added-kan tile or North (seat, tile)
    _reach: set[int] = field(default_factory=set)
    _replacement: set[int] = field(default_factory=set)
    _scores: list[int] = field(default_factory=lambda: [0, 0, 0])
    _ura: list[Tile] = field(default_factory=list)

    @property
    def red_fives(self) -> bool:
        """Whether the rules being read have red fives."""
        return self.rules.red_fives

    def read(self, obj: Mapping[str, Any]) -> list[Event]:
        """Our events for one mjai event (``reach`` and ``end_kyoku`` give none)."""
        if not isinstance(obj, Mapping):
            raise MjaiError(f"an mjai event is a JSON object, not {type(obj).__name__}")
        kind = obj.get("type")
        if kind == "start_game":
            return [MatchStarted(seed=HIDDEN_SEED, rules=self.rules, wall_algorithm=WALL_ALGORITHM)]
        if kind == "start_kyoku":
            return [self._start_kyoku(obj)]
        if kind == "tsumo":
            return [self._tsumo(obj)]
        if kind == "dahai":
            return [self._dahai(obj)]
        if kind in ("pon", "daiminkan"):
            return [self._call(obj, MeldType(kind))]
        if kind == "ankan":
            return [self._ankan(obj)]
        if kind == "kakan":
            return [self._kakan(obj)]
        if kind in ("kita", "nukidora"):
            return [self._kita(obj)]
        if kind == "reach":
            self._reach.add(_seat_field(obj, "actor"))
            return []
        if kind == "reach_accepted":
            seat = _seat_field(obj, "actor")
            self._scores[seat] -= 1000
            return [RiichiAccepted(seat)]
        if kind == "dora":
            return [DoraRevealed(self._fresh(_field(obj, "dora_marker")))]
        if kind == "hora":
            return [self._hora(obj)]
        if kind == "ryukyoku":
            return [self._ryukyoku(obj)]
        if kind == "end_kyoku":
            return []
        if kind == "end_game":
            return [self._end_game(obj)]
        raise MjaiError(f"unknown mjai event type {kind!r}")

    # -- physical copies ---------------------------------------------------------------------

    def _fresh(self, name: object) -> Tile:
        """A copy of ``name`` not met before in this hand (a tile coming into view)."""
        if name == HIDDEN_NAME:
            return HIDDEN
        if not isinstance(name, str):
            raise MjaiError(f"not a tile name: {name!r}")
        if name in ("5pr", "5sr") and not self.red_fives:
            raise MjaiError(f"{name}: a red five under rules without red fives")
        kind, red = mjai_to_kind(name)
        if self._alloc is None:
            self._alloc = CopyAllocator(self.red_fives)
        try:
            return self._alloc.take(kind, red)
        except InvalidHand:
            raise MjaiError(f"a fifth copy of {name}") from None

    def _own(self, name: object, prefer: Tile | None = None, avoid: Tile | None = None) -> Tile:
        """A copy of ``name`` from the seat's own hand (``prefer``/``avoid`` the drawn copy)."""
        if not isinstance(name, str):
            raise MjaiError(f"not a tile name: {name!r}")
        mjai_to_kind(name)
        candidates = _tiles_named(self._hand, name, self.red_fives)
        if not candidates:
            raise MjaiError(f"seat {self.seat} has no {name} in hand")
        if prefer is not None and prefer in candidates:
            return prefer
        others = [t for t in candidates if t != avoid]
        return others[0] if others else candidates[0]

    def _take(self, seat: int, name: object, *, prefer: Tile | None = None, avoid: Tile | None = None) -> Tile:
        """The copy ``seat`` gives up: from the own hand, or a fresh one from a hidden hand."""
        if seat != self.seat:
            return self._fresh(name)
        tile = self._own(name, prefer, avoid)
        self._hand.remove(tile)
        if tile == self._drawn or self._drawn not in self._hand:
            self._drawn = None
        return tile

    # -- one method per event type -----------------------------------------------------------

    def _start_kyoku(self, obj: Mapping[str, Any]) -> HandStarted:
        tehais = _field(obj, "tehais")
        if not isinstance(tehais, list) or len(tehais) not in (3, 4):
            raise MjaiError("start_kyoku needs three tehais")
        hands = [_names_field({"t": h}, "t", 13) for h in tehais[:3]]
        visible = [s for s in SEATS if HIDDEN_NAME not in hands[s]]
        if self.seat is None and len(visible) == 1:
            self.seat = visible[0]
        if self.seat is not None and self.seat not in visible:
            raise MjaiError(f"seat {self.seat}'s own hand arrived hidden")
        self._alloc = CopyAllocator(self.red_fives)
        self._melds = [[], [], []]
        self._offer, self._drawn = None, None
        self._reach, self._replacement = set(), set()
        self._ura = []
        tiles = [tuple(self._fresh(n) for n in h) if s == self.seat else (HIDDEN,) * 13 for s, h in enumerate(hands)]
        self._hand = list(tiles[self.seat]) if self.seat is not None else []
        bakaze = obj.get("bakaze", "E")
        if bakaze not in ("E", "S", "W"):
            raise MjaiError(f"bakaze must be E, S or W, not {bakaze!r}")
        dealer = _seat_field(obj, "oya") if "oya" in obj else _int_field(obj, "kyoku") - 1
        if dealer not in SEATS:
            raise MjaiError(f"kyoku must be 1..3, not {dealer + 1}")
        scores = _triple(obj, "scores")
        self._scores = list(scores)
        return HandStarted(
            round_wind=EAST + ("E", "S", "W").index(bakaze),
            dealer=dealer,
            honba=_int_field(obj, "honba", 0),
            deposits=_int_field(obj, "kyotaku", 0),
            scores=scores,
            hands=(tiles[0], tiles[1], tiles[2]),
            dora_indicator=self._fresh(_field(obj, "dora_marker")),
            wall_digest="",
        )

    def _tsumo(self, obj: Mapping[str, Any]) -> TileDrawn:
        seat = _seat_field(obj, "actor")
        name = _field(obj, "pai")
        if seat == self.seat and name == HIDDEN_NAME:
            raise MjaiError("the seat's own draw arrived hidden")
        tile = self._fresh(name)
        if seat == self.seat:
            self._hand.append(tile)
            self._drawn = tile
        replacement = seat in self._replacement
        self._replacement.discard(seat)
        return TileDrawn(seat, tile, replacement)

    def _dahai(self, obj: Mapping[str, Any]) -> TileDiscarded:
        seat = _seat_field(obj, "actor")
        said = obj.get("tsumogiri")
        drawn = self._drawn if seat == self.seat else None
        if said is True:
            tile = self._take(seat, _field(obj, "pai"), prefer=drawn)
        else:
            tile = self._take(seat, _field(obj, "pai"), avoid=drawn)
        tsumogiri = bool(said) if isinstance(said, bool) else (drawn is not None and tile == drawn)
        riichi = seat in self._reach
        self._reach.discard(seat)
        self._offer = (seat, tile)
        if seat == self.seat:
            self._drawn = None
        return TileDiscarded(seat, tile, tsumogiri, riichi)

    def _consumed(self, seat: int, obj: Mapping[str, Any], count: int) -> list[Tile]:
        names = _names_field(obj, "consumed", count)
        return [self._take(seat, n) for n in names]

    def _call(self, obj: Mapping[str, Any], meld_type: MeldType) -> MeldCalled:
        seat = _seat_field(obj, "actor")
        target = _seat_field(obj, "target")
        name = _field(obj, "pai")
        offer = self._offer
        if offer is not None and offer[0] == target and tile_to_mjai(offer[1], self.red_fives) == name:
            called = offer[1]
        else:
            called = self._fresh(name)
        used = self._consumed(seat, obj, 2 if meld_type is MeldType.PON else 3)
        meld = _meld(meld_type, (*sorted(used), called), called=called, from_seat=target)
        self._melds[seat].append(meld)
        self._offer = None
        if meld_type is MeldType.DAIMINKAN:
            self._replacement.add(seat)
        return MeldCalled(seat, meld)

    def _ankan(self, obj: Mapping[str, Any]) -> MeldCalled:
        seat = _seat_field(obj, "actor")
        used = self._consumed(seat, obj, 4)
        meld = _meld(MeldType.ANKAN, tuple(sorted(used)))
        self._melds[seat].append(meld)
        self._offer = (seat, used[-1])
        self._replacement.add(seat)
        return MeldCalled(seat, meld)

    def _kakan(self, obj: Mapping[str, Any]) -> MeldCalled:
        seat = _seat_field(obj, "actor")
        kind, _ = mjai_to_kind(_field(obj, "pai"))
        melds = self._melds[seat]
        index = next((i for i, m in enumerate(melds) if m.type is MeldType.PON and m.kind == kind), None)
        if index is None:
            raise MjaiError(f"kakan of {kind_to_mjai(kind)} by seat {seat}, who has no such pon")
        pon = melds[index]
        added = self._take(seat, obj["pai"])
        meld = _meld(MeldType.KAKAN, (*pon.tiles, added), called=pon.called, from_seat=pon.from_seat, added=added)
        melds[index] = meld
        self._offer = (seat, added)
        self._replacement.add(seat)
        return MeldCalled(seat, meld)

    def _kita(self, obj: Mapping[str, Any]) -> KitaDeclared:
        seat = _seat_field(obj, "actor")
        name = obj.get("pai", "N")
        if name != "N":
            raise MjaiError("kita sets aside a North")
        if seat == self.seat:
            # The same physical North the engine sets aside (the drawn one, else the lowest).
            if not any(kind_of(t) == NORTH for t in self._hand):
                raise MjaiError(f"seat {seat} has no N in hand")
            tile = kita_tile(self._hand, self._drawn)
            self._hand.remove(tile)
            if tile == self._drawn or self._drawn not in self._hand:
                self._drawn = None
        else:
            tile = self._fresh(name)
        self._offer = (seat, tile)
        self._replacement.add(seat)
        return KitaDeclared(seat, tile)

    def _hora(self, obj: Mapping[str, Any]) -> HandWon:
        seat = _seat_field(obj, "actor")
        target = _seat_field(obj, "target") if "target" in obj else seat
        tsumo = target == seat or obj.get("tsumo") is True
        name = obj.get("pai")
        if tsumo:
            tile = self._drawn if seat == self.seat and self._drawn is not None else HIDDEN
            if tile == HIDDEN and isinstance(name, str) and name != HIDDEN_NAME:
                tile = self._fresh(name)
        else:
            offer = self._offer
            if offer is not None and offer[0] == target and name in (None, tile_to_mjai(offer[1], self.red_fives)):
                tile = offer[1]
            else:
                tile = self._fresh(name) if name is not None else HIDDEN
        hand = [t for t in self._hand if t != tile] if seat == self.seat else []
        ura_names = obj.get("ura_markers", obj.get("uradora_markers", []))
        ura = self._ura_tiles(_names_field({"u": ura_names}, "u"))
        deltas = _triple(obj, "deltas")
        for s in SEATS:
            self._scores[s] += deltas[s]
        return HandWon(
            seat=seat,
            from_seat=target,
            tile=tile,
            hand=tuple(sorted(hand)),
            melds=tuple(self._melds[seat]),
            ura_indicators=ura,
            score=_score_of(obj, deltas[seat]),
            pao_seat=None,
            deltas=deltas,
        )

    def _ura_tiles(self, names: list[str]) -> tuple[Tile, ...]:
        """The ura indicators: in a double ron both winners name the same physical tiles."""
        out: list[Tile] = []
        for i, name in enumerate(names):
            known = self._ura[i] if i < len(self._ura) else None
            if known is not None and tile_to_mjai(known, self.red_fives) == name:
                out.append(known)
            else:
                out.append(self._fresh(name))
                self._ura[i:] = [out[-1]]
        return tuple(out)

    def _ryukyoku(self, obj: Mapping[str, Any]) -> HandDrawn | HandAborted:
        reason = obj.get("reason", "exhaustive_draw")
        deltas = _triple(obj, "deltas") if "deltas" in obj else (0, 0, 0)
        if reason in _NINE_REASONS or reason in _FOUR_KAN_REASONS:
            seat = obj.get("actor")
            seat = seat if seat in SEATS and not isinstance(seat, bool) else None
            return HandAborted("nine_terminals" if reason in _NINE_REASONS else "four_kans", seat)
        if reason not in _DRAWN_REASONS and reason not in _NAGASHI_REASONS and not any(deltas):
            raise MjaiError(f"unknown ryukyoku reason {reason!r}")
        for s in SEATS:
            self._scores[s] += deltas[s]
        nagashi = tuple(s for s in SEATS if deltas[s] > 0) if reason in _NAGASHI_REASONS else ()
        tenpai, shown = self._tenpai(obj, deltas, nagashi)
        return HandDrawn("exhaustive", tenpai, shown, nagashi, deltas)

    def _tenpai(
        self, obj: Mapping[str, Any], deltas: tuple[int, int, int], nagashi: tuple[int, ...]
    ) -> tuple[tuple[int, ...], tuple[tuple[Tile, ...], tuple[Tile, ...], tuple[Tile, ...]]]:
        tehais = obj.get("tehais")
        shown: list[tuple[Tile, ...]] = [(), (), ()]
        if isinstance(tehais, list) and len(tehais) >= 3:
            tenpai = tuple(s for s in SEATS if isinstance(tehais[s], list))
            for s in tenpai:
                names = _names_field({"t": tehais[s]}, "t")
                shown[s] = tuple(sorted(self._hand)) if s == self.seat else tuple(self._fresh(n) for n in names)
        elif isinstance(obj.get("tenpais"), list) and len(obj["tenpais"]) >= 3:
            tenpai = tuple(s for s in SEATS if obj["tenpais"][s] is True)
        else:
            # Noten payments go to the tenpai seats; with no payment the deltas cannot tell.
            tenpai = () if nagashi else tuple(s for s in SEATS if deltas[s] > 0)
        return tenpai, (shown[0], shown[1], shown[2])

    def _end_game(self, obj: Mapping[str, Any]) -> MatchEnded:
        points = _triple(obj, "scores") if "scores" in obj else (self._scores[0], self._scores[1], self._scores[2])
        order = rank(points)
        table = standings(points, self.rules)
        return MatchEnded(
            points=points,
            placements=tuple(order.index(s) + 1 for s in SEATS),
            final_scores=tuple(s.final_score for s in table),
        )


def _meld(
    meld_type: MeldType,
    tiles: tuple[Tile, ...],
    *,
    called: Tile | None = None,
    from_seat: int | None = None,
    added: Tile | None = None,
) -> Meld:
    try:
        return Meld(meld_type, tiles, called=called, from_seat=from_seat, added=added)
    except ValueError as exc:
        raise MjaiError(f"bad {meld_type.value}: {exc}") from exc


def _score_of(obj: Mapping[str, Any], gained: int) -> Score:
    """What a ``hora`` tells of the score: han/fu/yaku when a writer adds them (jansou)."""
    han, fu = obj.get("fan", obj.get("han", 0)), obj.get("fu", 0)
    yakus = obj.get("yakus", [])
    yaku: tuple[tuple[str, int], ...] = ()
    if isinstance(yakus, list):
        yaku = tuple((str(y[0]), int(y[1])) for y in yakus if isinstance(y, list) and len(y) == 2)
    han = han if isinstance(han, int) else 0
    fu = fu if isinstance(fu, int) else 0
    return Score(han, fu, 0, "none", yaku, 0, Payments(), max(gained, 0))


def read_all(objs: Sequence[Mapping[str, Any]], rules: Rules = DEFAULT, seat: int | None = None) -> list[Event]:
    """Every mjai event of a stream as our events, in order."""
    reader = MjaiReader(rules, seat)
    return [e for obj in objs for e in reader.read(obj)]


# -- answers -------------------------------------------------------------------------------------


def answer_for(action: Action | Reach, seat: int, view: SeatView, offer: tuple[int, Tile] | None) -> MjaiEvent:
    """The mjai answer for ``action`` of ``seat`` whose view is ``view``; ``offer`` is the
    (seat, tile) a window is about (a discard, an added kan tile, a North, a closed kan).
    A riichi ``Discard`` is answered with its discard (after ``reach`` was echoed)."""
    red = view.rules.red_fives if view.rules is not None else True

    def names(tile: Tile) -> str:
        return tile_to_mjai(tile, red)

    if isinstance(action, Reach):
        return {"type": "reach", "actor": seat}
    if isinstance(action, Discard):
        return {"type": "dahai", "actor": seat, "pai": names(action.tile), "tsumogiri": action.tile == view.drawn}
    if isinstance(action, Tsumo):
        out: MjaiEvent = {"type": "hora", "actor": seat, "target": seat}
        if view.drawn is not None:
            out["pai"] = names(view.drawn)
        return out
    if isinstance(action, Ron):
        if offer is None:
            return {"type": "hora", "actor": seat}
        return {"type": "hora", "actor": seat, "target": offer[0], "pai": names(offer[1])}
    if isinstance(action, Pass):
        return {"type": "none"}
    if isinstance(action, Kita):
        return {"type": "kita", "actor": seat, "pai": "N"}
    if isinstance(action, NineTerminals):
        return {"type": "ryukyoku", "actor": seat}
    mine = sorted(t for t in view.hand if kind_of(t) == action.kind)
    if isinstance(action, Pon):
        if offer is None:
            raise MjaiError("pon needs the discard it calls")
        reds = [t for t in mine if is_red(t, red)]
        plain = [t for t in mine if t not in reds]
        used = [reds[0], plain[0]] if action.red and reds and plain else plain[:2]
        return {"type": "pon", "actor": seat, "target": offer[0], "pai": names(offer[1]), "consumed": _n(used, red)}
    # Kan: open on a discard, closed with four in hand, else added to a pon.
    if offer is not None and offer[0] != seat:
        return {
            "type": "daiminkan",
            "actor": seat,
            "target": offer[0],
            "pai": names(offer[1]),
            "consumed": _n(mine, red),
        }
    if len(mine) == 4:
        return {"type": "ankan", "actor": seat, "consumed": _n(mine, red)}
    pon = next((m for m in view.melds[seat] if m.type is MeldType.PON and m.kind == action.kind), None)
    if pon is None or not mine:
        raise MjaiError(f"no kan of {kind_to_mjai(action.kind)} for seat {seat}")
    return {"type": "kakan", "actor": seat, "pai": names(mine[0]), "consumed": _n(pon.tiles, red)}


def _n(tiles: Sequence[Tile], red_fives: bool) -> list[str]:
    return [tile_to_mjai(t, red_fives) for t in tiles]


def parse_answer(answer: object, seat: int, view: SeatView, *, riichi: bool = False) -> Action | Reach:
    """Our action for an mjai answer of ``seat`` (``REACH`` for ``reach``); ``riichi`` marks
    the discard that follows an echoed ``reach``.  Tiles must be in the seat's hand.  Raises
    ``MjaiError`` for an answer that names no possible action (whether it is *legal* now is
    for ``action in legal``)."""
    if not isinstance(answer, Mapping):
        raise MjaiError(f"an answer is a JSON object, not {type(answer).__name__}")
    kind = answer.get("type")
    if kind not in ("none", None) and "actor" in answer and answer.get("actor") != seat:
        raise MjaiError(f"answer for seat {answer.get('actor')!r}, but this is seat {seat}")
    red = view.rules.red_fives if view.rules is not None else True
    if kind == "none":
        return Pass()
    if kind == "reach":
        if "pai" in answer:
            raise MjaiError("reach carries no pai (the discard is a separate answer)")
        return REACH
    if kind == "dahai":
        return _parse_dahai(answer, view, red, riichi)
    if kind == "hora":
        return Tsumo() if view.drawn is not None and view.turn == seat else Ron()
    if kind in ("kita", "nukidora"):
        if answer.get("pai", "N") != "N":
            raise MjaiError("kita sets aside a North")
        return Kita()
    if kind == "ryukyoku":
        return NineTerminals()
    if kind == "pon":
        return _parse_pon(answer, view, red)
    if kind in ("daiminkan", "ankan", "kakan"):
        return _parse_kan(answer, view, red, kind)
    raise MjaiError(f"unknown answer type {kind!r}")


def _parse_dahai(answer: Mapping[str, Any], view: SeatView, red: bool, riichi: bool) -> Discard:
    name = _field(answer, "pai")
    mjai_to_kind(name)
    candidates = _tiles_named(view.hand, name, red)
    if not candidates:
        raise MjaiError(f"dahai of {name}, which is not in hand")
    drawn = view.drawn
    if answer.get("tsumogiri") is True and drawn in candidates:
        tile = drawn
    else:
        others = [t for t in candidates if t != drawn]
        tile = others[0] if others else candidates[0]
    assert tile is not None
    return Discard(tile, riichi)


def _parse_pon(answer: Mapping[str, Any], view: SeatView, red: bool) -> Pon:
    kind, _ = mjai_to_kind(_field(answer, "pai"))
    consumed = [mjai_to_kind(n) for n in _names_field(answer, "consumed", 2)]
    if any(k != kind for k, _ in consumed):
        raise MjaiError("pon consumes two tiles of the called kind")
    for name in set(_names_field(answer, "consumed")):
        if len(_tiles_named(view.hand, name, red)) < _names_field(answer, "consumed").count(name):
            raise MjaiError(f"pon consumes {name}, which is not in hand")
    return Pon(kind, red=any(r for _, r in consumed))


def _parse_kan(answer: Mapping[str, Any], view: SeatView, red: bool, kind_word: str) -> Kan:
    count = 3 if kind_word == "kakan" or kind_word == "daiminkan" else 4
    names = _names_field(answer, "consumed", count)
    kinds = {mjai_to_kind(n)[0] for n in names}
    if "pai" in answer:
        kinds.add(mjai_to_kind(answer["pai"])[0])
    if len(kinds) != 1:
        raise MjaiError(f"{kind_word} of mixed kinds: {names}")
    (kind,) = kinds
    in_hand = sum(kind_of(t) == kind for t in view.hand)
    want = {"daiminkan": 3, "ankan": 4, "kakan": 1}[kind_word]
    if in_hand < want:
        raise MjaiError(f"{kind_word} of {kind_to_mjai(kind)} needs {want} in hand, not {in_hand}")
    return Kan(kind)
