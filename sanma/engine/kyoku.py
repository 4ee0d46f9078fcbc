"""One hand (kyoku) as a state machine: deal, turns, decision windows, result.

The hand is always in one of three phases:

* **turn**: one seat (``awaiting() == (seat,)``) acts after a draw or after a pon;
* **window**: after a discard, an added kan, a closed kan (kokushi only) or a kita, the
  seats that may ron or call answer; once all have answered it resolves by priority
  (ron > pon/kan);
* **over**: ``result`` is set.

Legality lives in one query, ``legal_actions(seat)``; ``apply`` accepts only what it
lists and returns the events it caused.  Rule choices and their spec sections are in
``docs/engine.md``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pass, Pon, Ron, Tsumo
from sanma.engine.errors import IllegalAction, InvalidLog, NotWinning, NoYaku
from sanma.engine.events import (
    DoraRevealed,
    Event,
    HandAborted,
    HandDrawn,
    HandStarted,
    HandWon,
    KitaDeclared,
    MeldCalled,
    RiichiAccepted,
    TileDiscarded,
    TileDrawn,
)
from sanma.engine.furiten import kan_keeps_readings
from sanma.engine.hand import Meld, MeldType
from sanma.engine.rules import Rules
from sanma.engine.scoring import Score, WinContext, score_win
from sanma.engine.settlement import nagashi_deltas, noten_deltas, win_deltas
from sanma.engine.shanten import is_complete, shanten, waits
from sanma.engine.tiles import (
    DRAGON_KINDS,
    EAST,
    KIND_COUNT,
    NORTH,
    TERMINAL_HONOR_KINDS,
    WIND_KINDS,
    Tile,
    TileKind,
    counts_of_tiles,
    is_red,
    is_terminal_or_honor,
    kind_of,
)
from sanma.engine.wall import Deal

SEATS = (0, 1, 2)
MAX_KANS = 4
RIICHI_COST = 1000
RIICHI_MIN_LIVE = 3
NINE_TERMINALS_MIN = 9

Outcome = Literal["won", "drawn", "aborted"]
WindowKind = Literal["discard", "kakan", "ankan", "kita"]
FuritenState = Literal["none", "discard", "temporary", "riichi"]


# -- values handed out -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LegalActions:
    """What one seat may do at one moment: ``action in legal``, iteration over the distinct
    choices, ``len``, and ``default`` (what a timeout does; never a win).

    A discard is one choice per (kind, red, riichi); ``in`` also accepts any other physical
    tile of the same choice, so a replayer may name the exact tile (tsumogiri or not).
    """

    actions: tuple[Action, ...] = ()
    default: Action | None = None
    discard_tiles: frozenset[tuple[Tile, bool]] = frozenset()

    @classmethod
    def none(cls) -> LegalActions:
        """Nothing to decide."""
        return _NO_ACTIONS

    def __contains__(self, action: object) -> bool:
        if isinstance(action, Discard):
            return (action.tile, action.riichi) in self.discard_tiles
        return action in self.actions

    def __iter__(self) -> Iterator[Action]:
        return iter(self.actions)

    def __len__(self) -> int:
        return len(self.actions)


_NO_ACTIONS = LegalActions()


@dataclass(frozen=True, slots=True)
class WinRecord:
    """One winner of a hand and what the win moved."""

    seat: int
    from_seat: int
    pao_seat: int | None
    score: Score
    deltas: tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class KyokuResult:
    """How a hand ended.  ``start + deltas - 1000 * riichi_paid == end`` for every seat."""

    outcome: Outcome
    deltas: tuple[int, int, int]
    riichi_paid: tuple[int, int, int]
    dealer_repeats: bool
    next_honba: int
    deposits_left: int
    wins: tuple[WinRecord, ...] = ()
    reason: str | None = None  # exhaustive | nine_terminals | four_kans
    tenpai: tuple[int, ...] = ()
    nagashi: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class WinStatus:
    """Why a seat can or cannot win now (the client shows it above the hand).

    ``waits``/``furiten`` describe a tenpai hand; ``complete`` is set when the seat's
    tiles form a winning shape right now (own draw, or the tile on offer completes it);
    then ``score`` is what it would get, or ``reason`` is ``"no_yaku"`` or ``"furiten"``.
    """

    waits: tuple[TileKind, ...]
    furiten: FuritenState
    complete: bool = False
    reason: str | None = None
    score: Score | None = None


@dataclass(slots=True)
class _Window:
    """An open decision window (internal, mutable)."""

    kind: WindowKind
    seat: int
    tile: Tile
    riichi: bool
    options: dict[int, LegalActions]
    winning: tuple[int, ...]  # seats for which the tile is a wait by shape
    answers: dict[int, Action] = field(default_factory=dict)


# -- the hand ------------------------------------------------------------------------------


class Kyoku:
    """One hand from the deal to its result.  Create it with ``Kyoku.start``."""

    rules: Rules
    round_wind: TileKind
    dealer: int
    honba: int
    deal: Deal
    events: list[Event]
    result: KyokuResult | None

    @classmethod
    def start(
        cls,
        deal: Deal,
        *,
        rules: Rules,
        round_wind: TileKind,
        dealer: int,
        honba: int,
        deposits: int,
        scores: tuple[int, int, int],
    ) -> Kyoku:
        """Deal the hand; the dealer has drawn and is awaited."""
        k = cls.__new__(cls)
        k.rules = rules
        k.round_wind = round_wind
        k.dealer = dealer
        k.honba = honba
        k.deal = deal
        k.result = None
        k._start_scores = tuple(scores)
        k._start_deposits = deposits
        k._scores = list(scores)
        k._deposits = deposits
        k._live_next = 0
        k._replacements = 0
        k._dora_count = 1
        k._pending_dora = 0
        k._hands = [list(h) for h in deal.hands]
        k._melds = [[], [], []]
        k._kita = [[], [], []]
        k._river = [[], [], []]
        k._called_away = [[], [], []]
        k._riichi = [False] * 3
        k._double_riichi = [False] * 3
        k._ippatsu = [False] * 3
        k._riichi_paid = [0] * 3
        k._riichi_furiten = [False] * 3
        k._temp_furiten = [False] * 3
        k._pao = [None, None, None]
        k._kan_owners = []
        k._clean = True
        k._discarded = [False] * 3
        k._turn = dealer
        k._drawn = None
        k._after_pon = None
        k._rinshan = False
        k._window = None
        k._legal = {}
        k.events = [
            HandStarted(
                round_wind=round_wind,
                dealer=dealer,
                honba=honba,
                deposits=deposits,
                scores=(scores[0], scores[1], scores[2]),
                hands=deal.hands,
                dora_indicator=deal.dora_indicators[0],
                wall_digest=deal.digest(),
                live_size=deal.live_size,
            )
        ]
        k._draw(dealer, replacement=False)
        return k

    # -- private state (declared for mypy) ----------------------------------------------
    _start_scores: tuple[int, ...]
    _start_deposits: int
    _scores: list[int]
    _deposits: int
    _live_next: int
    _replacements: int
    _dora_count: int
    _pending_dora: int
    _hands: list[list[Tile]]
    _melds: list[list[Meld]]
    _kita: list[list[Tile]]
    _river: list[list[Tile]]
    _called_away: list[list[Tile]]
    _riichi: list[bool]
    _double_riichi: list[bool]
    _ippatsu: list[bool]
    _riichi_paid: list[int]
    _riichi_furiten: list[bool]
    _temp_furiten: list[bool]
    _pao: list[tuple[int, str] | None]
    _kan_owners: list[int]
    _clean: bool
    _discarded: list[bool]
    _turn: int
    _drawn: Tile | None
    _after_pon: TileKind | None
    _rinshan: bool
    _window: _Window | None
    _legal: dict[int, LegalActions]

    _LIST_OF_LISTS = ("_hands", "_melds", "_kita", "_river", "_called_away")
    _FLAT_LISTS = (
        "_scores",
        "_riichi",
        "_double_riichi",
        "_ippatsu",
        "_riichi_paid",
        "_riichi_furiten",
        "_temp_furiten",
        "_pao",
        "_kan_owners",
        "_discarded",
        "events",
    )

    # -- public queries ------------------------------------------------------------------

    def copy(self) -> Kyoku:
        """An independent copy (for search): mutating one never changes the other."""
        k = Kyoku.__new__(Kyoku)
        for name, value in self.__dict__.items():
            if name in self._LIST_OF_LISTS:
                value = [list(x) for x in value]
            elif name in self._FLAT_LISTS:
                value = list(value)
            elif name == "_legal":
                value = dict(value)
            elif name == "_window" and value is not None:
                w: _Window = value
                value = _Window(w.kind, w.seat, w.tile, w.riichi, dict(w.options), w.winning, dict(w.answers))
            setattr(k, name, value)
        return k

    def state_key(self) -> tuple[object, ...]:
        """Everything that defines the state, as a comparable value (copies compare equal)."""
        w = self._window
        window = None if w is None else (w.kind, w.seat, w.tile, w.riichi, w.winning, tuple(sorted(w.answers.items())))
        return (
            tuple(self.events),
            self.result,
            tuple(self._scores),
            self._deposits,
            self._live_next,
            self._replacements,
            self._dora_count,
            self._pending_dora,
            tuple(tuple(h) for h in self._hands),
            tuple(tuple(m) for m in self._melds),
            tuple(tuple(x) for x in self._kita),
            tuple(tuple(r) for r in self._river),
            tuple(tuple(r) for r in self._called_away),
            tuple(self._riichi),
            tuple(self._double_riichi),
            tuple(self._ippatsu),
            tuple(self._riichi_paid),
            tuple(self._riichi_furiten),
            tuple(self._temp_furiten),
            tuple(self._pao),
            tuple(self._kan_owners),
            self._clean,
            tuple(self._discarded),
            self._turn,
            self._drawn,
            self._after_pon,
            self._rinshan,
            window,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Kyoku):
            return NotImplemented
        return self.state_key() == other.state_key()

    __hash__ = None  # type: ignore[assignment]  # mutable

    @property
    def live_left(self) -> int:
        """Tiles still to be drawn from the live wall."""
        return self.deal.live_size - self._replacements - self._live_next

    @property
    def scores(self) -> tuple[int, int, int]:
        """Current points (after accepted riichi deposits; after the deltas once over)."""
        return (self._scores[0], self._scores[1], self._scores[2])

    @property
    def deposits(self) -> int:
        """Riichi deposits on the table now."""
        return self._deposits

    def hand(self, seat: int) -> tuple[Tile, ...]:
        """A seat's concealed tiles (sorted)."""
        return tuple(sorted(self._hands[seat]))

    def melds(self, seat: int) -> tuple[Meld, ...]:
        """A seat's melds in call order."""
        return tuple(self._melds[seat])

    def kita_tiles(self, seat: int) -> tuple[Tile, ...]:
        """The Norths a seat has set aside."""
        return tuple(self._kita[seat])

    def river(self, seat: int) -> tuple[Tile, ...]:
        """Every tile a seat discarded, called ones included (they count for furiten)."""
        return tuple(self._river[seat])

    def dora_indicators(self) -> tuple[Tile, ...]:
        """The indicators revealed so far."""
        return self.deal.dora_indicators[: self._dora_count]

    def in_riichi(self, seat: int) -> bool:
        """Whether a seat has declared riichi."""
        return self._riichi[seat]

    def awaiting(self) -> tuple[int, ...]:
        """Seats whose decision is pending."""
        if self.result is not None:
            return ()
        w = self._window
        if w is not None:
            return tuple(s for s in SEATS if s in w.options and s not in w.answers)
        return (self._turn,)

    def legal_actions(self, seat: int) -> LegalActions:
        """What ``seat`` may do now (empty when it has nothing to decide)."""
        cached = self._legal.get(seat)
        if cached is None:
            cached = self._compute_legal(seat)
            self._legal[seat] = cached
        return cached

    # -- the one mutation ----------------------------------------------------------------

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply ``seat``'s action and return the events it caused.  Raises
        ``IllegalAction`` (and changes nothing) unless ``action in legal_actions(seat)``."""
        if action not in self.legal_actions(seat):
            raise IllegalAction(f"seat {seat} may not {action} now")
        mark = len(self.events)
        self._legal = {}
        if self._window is not None:
            self._window.answers[seat] = action
            if len(self._window.answers) == len(self._window.options):
                self._resolve_window()
        else:
            self._turn_action(seat, action)
        return self.events[mark:]

    # -- counting helpers -----------------------------------------------------------------

    def _counts(self, seat: int, without: Tile | None = None) -> list[int]:
        counts = counts_of_tiles(self._hands[seat])
        if without is not None:
            counts[kind_of(without)] -= 1
        return counts

    def _own(self, seat: int, without: Tile | None = None) -> list[int]:
        own = self._counts(seat, without)
        for meld in self._melds[seat]:
            own[meld.kind] += len(meld.tiles)
        own[NORTH] += len(self._kita[seat])
        return own

    def _waits(self, seat: int, without: Tile | None = None) -> tuple[TileKind, ...]:
        """Waits of a seat's 13-3m concealed tiles (optionally without one tile)."""
        counts = self._counts(seat, without)
        nmelds = len(self._melds[seat])
        if sum(counts) != 13 - 3 * nmelds:
            return ()
        shape_waits = _cached_waits(tuple(counts), nmelds)
        if not shape_waits:
            return ()
        # Completion is a matter of shape, so filtering the kinds whose four copies the
        # seat owns (melds, kita) gives what ``waits(..., own)`` gives, without its
        # slower capped search.
        own = self._own(seat, without)
        return tuple(k for k in shape_waits if own[k] < 4)

    def _is_closed(self, seat: int) -> bool:
        return all(not m.is_open for m in self._melds[seat])

    def _furiten(self, seat: int, hand_waits: Sequence[TileKind]) -> FuritenState:
        if self._riichi_furiten[seat]:
            return "riichi"
        river_kinds = {kind_of(t) for t in self._river[seat]}
        if any(k in river_kinds for k in hand_waits):
            return "discard"
        if self._temp_furiten[seat]:
            return "temporary"
        return "none"

    # -- wall -------------------------------------------------------------------------------

    def _draw(self, seat: int, *, replacement: bool) -> None:
        if replacement:
            if self._replacements >= len(self.deal.replacements):
                raise InvalidLog("the deal has no more replacement tiles")
            tile = self.deal.replacements[self._replacements]
            self._replacements += 1
        else:
            if self._live_next >= len(self.deal.live):
                raise InvalidLog("the deal has no more live tiles")
            tile = self.deal.live[self._live_next]
            self._live_next += 1
        self._hands[seat].append(tile)
        self._turn = seat
        self._drawn = tile
        self._after_pon = None
        self._rinshan = replacement
        self.events.append(TileDrawn(seat, tile, replacement))

    def _reveal_dora(self) -> None:
        if self._dora_count >= len(self.deal.dora_indicators):
            raise InvalidLog("the deal has no more dora indicators")
        indicator = self.deal.dora_indicators[self._dora_count]
        self._dora_count += 1
        self.events.append(DoraRevealed(indicator))

    def _reveal_pending_dora(self) -> None:
        while self._pending_dora:
            self._pending_dora -= 1
            self._reveal_dora()

    # -- scoring glue -----------------------------------------------------------------------

    def _context(self, seat: int, *, tsumo: bool, kind: WindowKind | None, nearest: bool) -> WinContext:
        first_draw = tsumo and self._clean and not self._discarded[seat] and not self._rinshan
        riichi = self._riichi[seat]
        ippatsu = self._ippatsu[seat] and (kind != "kita" or self.rules.kita_ron_keeps_ippatsu)
        count = self._dora_count
        return WinContext(
            tsumo=tsumo,
            riichi=riichi,
            double_riichi=self._double_riichi[seat],
            ippatsu=ippatsu,
            rinshan=tsumo and self._rinshan,
            chankan=kind in ("kakan", "ankan"),
            haitei=tsumo and not self._rinshan and self.live_left == 0,
            houtei=kind == "discard" and self.live_left == 0,
            tenhou=first_draw and seat == self.dealer,
            chiihou=first_draw and seat != self.dealer,
            seat_wind=self._seat_wind(seat),
            round_wind=self.round_wind,
            dora_indicators=tuple(kind_of(t) for t in self.deal.dora_indicators[:count]),
            ura_indicators=tuple(kind_of(t) for t in self.deal.ura_indicators[:count]) if riichi else (),
            kita=len(self._kita[seat]),
            honba=self.honba if nearest else 0,
            deposits=self._deposits if nearest else 0,
        )

    def _seat_wind(self, seat: int) -> TileKind:
        return EAST + (seat - self.dealer) % 3

    def _try_score(
        self, seat: int, tile: Tile, *, tsumo: bool, kind: WindowKind | None, nearest: bool = True
    ) -> Score | None:
        """The score of a win on ``tile``, or ``None`` when the hand has no yaku or is not
        complete.  For a tsumo ``tile`` is already in hand."""
        concealed = list(self._hands[seat])
        if not tsumo:
            concealed.append(tile)
        ctx = self._context(seat, tsumo=tsumo, kind=kind, nearest=nearest)
        try:
            return score_win(concealed, tile, self._melds[seat], ctx, self.rules)
        except (NotWinning, NoYaku):
            return None

    # -- legal actions ------------------------------------------------------------------------

    def _compute_legal(self, seat: int) -> LegalActions:
        if self.result is not None:
            return _NO_ACTIONS
        w = self._window
        if w is not None:
            if seat in w.answers:
                return _NO_ACTIONS
            return w.options.get(seat, _NO_ACTIONS)
        if seat != self._turn:
            return _NO_ACTIONS
        if self._after_pon is not None:
            return self._legal_after_pon(seat)
        return self._legal_after_draw(seat)

    def _discard_choices(self, seat: int, tiles: Sequence[Tile]) -> dict[tuple[TileKind, bool], Tile]:
        """One canonical tile per (kind, red): the drawn tile if it is of that choice, else
        the lowest id."""
        red_fives = self.rules.red_fives
        out: dict[tuple[TileKind, bool], Tile] = {}
        for t in sorted(tiles):
            out.setdefault((kind_of(t), is_red(t, red_fives)), t)
        drawn = self._drawn
        if drawn is not None and drawn in tiles:
            out[(kind_of(drawn), is_red(drawn, red_fives))] = drawn
        return out

    def _legal_after_pon(self, seat: int) -> LegalActions:
        called = self._after_pon
        allowed = [t for t in self._hands[seat] if kind_of(t) != called]
        choices = self._discard_choices(seat, allowed)
        actions = tuple(Discard(t) for t in sorted(choices.values()))
        last = max(allowed)
        default = Discard(choices[(kind_of(last), is_red(last, self.rules.red_fives))])
        return LegalActions(actions, default, frozenset((t, False) for t in allowed))

    def _legal_after_draw(self, seat: int) -> LegalActions:
        drawn = self._drawn
        assert drawn is not None
        actions: list[Action] = []
        if self._tsumo_score(seat) is not None:
            actions.append(Tsumo())
        if self._can_nine_terminals(seat):
            actions.append(NineTerminals())
        if self._riichi[seat]:
            actions.append(Discard(drawn))
            discard_tiles = {(drawn, False)}
        else:
            hand = self._hands[seat]
            choices = self._discard_choices(seat, hand)
            actions += [Discard(t) for t in sorted(choices.values())]
            discard_tiles = {(t, False) for t in hand}
            if self._may_declare_riichi(seat) and shanten(self._counts(seat), len(self._melds[seat])) <= 0:
                for (k, red), t in sorted(choices.items(), key=lambda kv: kv[1]):
                    if self._waits(seat, without=t):
                        actions.append(Discard(t, riichi=True))
                        discard_tiles |= {
                            (x, True) for x in hand if kind_of(x) == k and is_red(x, self.rules.red_fives) == red
                        }
        actions += [Kan(k) for k in self._kan_kinds(seat)]
        if self._can_kita(seat):
            actions.append(Kita())
        return LegalActions(tuple(actions), Discard(drawn), frozenset(discard_tiles))

    def _tsumo_score(self, seat: int) -> Score | None:
        drawn = self._drawn
        if drawn is None or self._after_pon is not None:
            return None
        if not is_complete(self._counts(seat), len(self._melds[seat])):
            return None
        return self._try_score(seat, drawn, tsumo=True, kind=None)

    def _can_nine_terminals(self, seat: int) -> bool:
        if not self._clean or self._discarded[seat] or self._rinshan:
            return False
        kinds = {kind_of(t) for t in self._hands[seat]}
        return sum(k in kinds for k in TERMINAL_HONOR_KINDS) >= NINE_TERMINALS_MIN

    def _may_declare_riichi(self, seat: int) -> bool:
        return (
            not self._riichi[seat]
            and self._is_closed(seat)
            and self._scores[seat] >= RIICHI_COST
            and self.live_left >= RIICHI_MIN_LIVE
        )

    def _kan_kinds(self, seat: int) -> list[TileKind]:
        if self.live_left < 1 or len(self._kan_owners) >= MAX_KANS:
            return []
        counts = self._counts(seat)
        kinds = [k for k in range(KIND_COUNT) if counts[k] == 4]
        if self._riichi[seat]:
            return [k for k in kinds if self._riichi_kan_ok(seat, k)]
        kinds += [m.kind for m in self._melds[seat] if m.type is MeldType.PON and counts[m.kind] == 1]
        return sorted(kinds)

    def _riichi_kan_ok(self, seat: int, kind: TileKind) -> bool:
        """After riichi a closed kan must use the drawn tile and change neither the waits
        nor how the hand reads (spec 4)."""
        drawn = self._drawn
        if drawn is None or kind_of(drawn) != kind:
            return False
        before = self._waits(seat, without=drawn)
        counts = self._counts(seat)
        counts[kind] -= 4
        nmelds = len(self._melds[seat]) + 1
        own = self._own(seat)
        after = tuple(k for k in _cached_waits(tuple(counts), nmelds) if own[k] < 4)
        if not before or before != after:
            return False
        base = self._counts(seat, without=drawn)
        return kan_keeps_readings(base, kind, before)

    def _can_kita(self, seat: int) -> bool:
        if self.live_left < 1:
            return False
        if self._riichi[seat]:
            return self._drawn is not None and kind_of(self._drawn) == NORTH
        return any(kind_of(t) == NORTH for t in self._hands[seat])

    # -- turn actions --------------------------------------------------------------------------

    def _turn_action(self, seat: int, action: Action) -> None:
        if isinstance(action, Discard):
            self._discard(seat, action.tile, action.riichi)
        elif isinstance(action, Tsumo):
            drawn = self._drawn
            assert drawn is not None
            self._settle_wins([seat], seat, drawn, None)
        elif isinstance(action, NineTerminals):
            self._abort("nine_terminals", seat)
        elif isinstance(action, Kan):
            self._declare_kan(seat, action.kind)
        elif isinstance(action, Kita):
            self._declare_kita(seat)
        else:  # pragma: no cover - legal_actions never offers anything else on a turn
            raise IllegalAction(f"{action} is not a turn action")

    def _note_declined_draw(self, seat: int, tile: Tile) -> None:
        """A riichi player who lets a winning draw go (discard or kita) is in riichi furiten."""
        if self._riichi[seat] and tile == self._drawn and kind_of(tile) in self._waits(seat, without=tile):
            self._riichi_furiten[seat] = True

    def _discard(self, seat: int, tile: Tile, riichi: bool) -> None:
        self._reveal_pending_dora()
        self._note_declined_draw(seat, tile)
        if self._riichi[seat]:
            self._ippatsu[seat] = False
        if riichi:
            self._riichi[seat] = True
            self._double_riichi[seat] = self._clean and not self._discarded[seat]
        tsumogiri = tile == self._drawn
        self._hands[seat].remove(tile)
        self._river[seat].append(tile)
        self._discarded[seat] = True
        self._temp_furiten[seat] = False
        self._drawn = None
        self._after_pon = None
        self.events.append(TileDiscarded(seat, tile, tsumogiri, riichi))
        self._open_window("discard", seat, tile, riichi)

    def _declare_kan(self, seat: int, kind: TileKind) -> None:
        self._reveal_pending_dora()
        self._clean = False
        tiles = [t for t in self._hands[seat] if kind_of(t) == kind]
        if len(tiles) == 4:
            for t in tiles:
                self._hands[seat].remove(t)
            meld = Meld(MeldType.ANKAN, tuple(sorted(tiles)))
            self._melds[seat].append(meld)
            self._kan_owners.append(seat)
            self.events.append(MeldCalled(seat, meld))
            # Its indicator is turned at once, unless kokushi robs the kan first (then the
            # kan never stood; Mahjong Soul logs show no indicator).
            self._open_window("ankan", seat, tiles[-1], False)
            return
        (added,) = tiles
        index = next(i for i, m in enumerate(self._melds[seat]) if m.type is MeldType.PON and m.kind == kind)
        pon = self._melds[seat][index]
        meld = Meld(MeldType.KAKAN, (*pon.tiles, added), called=pon.called, from_seat=pon.from_seat, added=added)
        self._hands[seat].remove(added)
        self._melds[seat][index] = meld
        self._kan_owners.append(seat)
        self.events.append(MeldCalled(seat, meld))
        self._pending_dora += 1
        self._open_window("kakan", seat, added, False)

    def _declare_kita(self, seat: int) -> None:
        self._reveal_pending_dora()
        drawn = self._drawn
        norths = sorted(t for t in self._hands[seat] if kind_of(t) == NORTH)
        tile = drawn if drawn is not None and kind_of(drawn) == NORTH else norths[0]
        self._note_declined_draw(seat, tile)
        self._hands[seat].remove(tile)
        self._kita[seat].append(tile)
        self._clean = False
        self.events.append(KitaDeclared(seat, tile))
        self._open_window("kita", seat, tile, False)

    # -- decision windows ----------------------------------------------------------------------

    def _open_window(self, kind: WindowKind, seat: int, tile: Tile, riichi: bool) -> None:
        options: dict[int, LegalActions] = {}
        winning: list[int] = []
        for other in SEATS:
            if other == seat:
                continue
            hand_waits = self._waits(other)
            acts = self._window_options(other, kind, seat, tile, hand_waits)
            # Only kokushi may take a closed kan's tile, so only it can pass one up.
            if kind_of(tile) in hand_waits and (kind != "ankan" or Ron() in acts):
                winning.append(other)
            if acts:
                options[other] = LegalActions((*acts, Pass()), Pass())
        self._window = _Window(kind, seat, tile, riichi, options, tuple(winning))
        if not options:
            self._resolve_window()

    def _window_options(
        self, seat: int, kind: WindowKind, source: int, tile: Tile, hand_waits: Sequence[TileKind]
    ) -> list[Action]:
        acts: list[Action] = []
        if self._ron_score(seat, kind, tile, hand_waits) is not None:
            acts.append(Ron())
        if kind == "discard":
            acts += self._call_options(seat, tile)
        return acts

    def _ron_score(self, seat: int, kind: WindowKind, tile: Tile, hand_waits: Sequence[TileKind]) -> Score | None:
        if kind_of(tile) not in hand_waits or self._furiten(seat, hand_waits) != "none":
            return None
        if kind == "ankan" and not self.rules.kokushi_robs_ankan:
            return None
        score = self._try_score(seat, tile, tsumo=False, kind=kind)
        if score is not None and kind == "ankan" and not any(y in ("kokushi", "kokushi_13") for y, _ in score.yaku):
            return None
        return score

    def _four_kan_abort_pending(self) -> bool:
        return len(self._kan_owners) == MAX_KANS and len(set(self._kan_owners)) > 1

    def _call_options(self, seat: int, tile: Tile) -> list[Action]:
        if self._riichi[seat] or self.live_left < 1 or self._four_kan_abort_pending():
            return []
        kind = kind_of(tile)
        mine = [t for t in self._hands[seat] if kind_of(t) == kind]
        acts: list[Action] = []
        # A pon must leave a tile that may be discarded (no kuikae).
        if len(mine) >= 2 and len(self._hands[seat]) > len(mine):
            reds = sum(is_red(t, self.rules.red_fives) for t in mine)
            plain = len(mine) - reds
            if reds and plain >= 1:
                acts.append(Pon(kind, red=True))
            if plain >= 2:
                acts.append(Pon(kind, red=False))
        if len(mine) == 3 and len(self._kan_owners) < MAX_KANS:
            acts.append(Kan(kind))
        return acts

    def _resolve_window(self) -> None:
        w = self._window
        assert w is not None
        rons = sorted((s for s, a in w.answers.items() if isinstance(a, Ron)), key=lambda s: (s - w.seat) % 3)
        if rons:
            self._settle_wins(rons, w.seat, w.tile, w.kind)
            return
        self._window = None
        for seat in w.winning:
            self._temp_furiten[seat] = True
            if self._riichi[seat]:
                self._riichi_furiten[seat] = True
        if w.kind == "discard":
            self._after_discard(w)
            return
        # A kan or a kita that stood ends every ippatsu; then its replacement draw.
        self._ippatsu = [False] * 3
        if w.kind == "ankan":
            self._reveal_dora()
        self._draw(w.seat, replacement=True)

    def _after_discard(self, w: _Window) -> None:
        if w.riichi:
            self._accept_riichi(w.seat)
        if self._four_kan_abort_pending():
            self._abort("four_kans", None)
            return
        for seat, action in sorted(w.answers.items(), key=lambda sa: (sa[0] - w.seat) % 3):
            if isinstance(action, Pon | Kan):
                self._call(seat, action, w)
                return
        if self.live_left == 0:
            self._exhaustive_draw()
            return
        self._draw((w.seat + 1) % 3, replacement=False)

    def _accept_riichi(self, seat: int) -> None:
        self._scores[seat] -= RIICHI_COST
        self._deposits += 1
        self._riichi_paid[seat] = 1
        self._ippatsu[seat] = True
        self.events.append(RiichiAccepted(seat))

    def _call(self, seat: int, action: Pon | Kan, w: _Window) -> None:
        kind = kind_of(w.tile)
        mine = sorted(t for t in self._hands[seat] if kind_of(t) == kind)
        if isinstance(action, Pon):
            reds = [t for t in mine if is_red(t, self.rules.red_fives)]
            plain = [t for t in mine if t not in reds]
            used = [reds[0], plain[0]] if action.red else plain[:2]
            meld = Meld(MeldType.PON, (*used, w.tile), called=w.tile, from_seat=w.seat)
        else:
            used = mine
            meld = Meld(MeldType.DAIMINKAN, (*used, w.tile), called=w.tile, from_seat=w.seat)
        for t in used:
            self._hands[seat].remove(t)
        self._melds[seat].append(meld)
        self._called_away[w.seat].append(w.tile)
        self._clean = False
        self._ippatsu = [False] * 3
        self._note_pao(seat, kind, w.seat)
        self.events.append(MeldCalled(seat, meld))
        if isinstance(action, Pon):
            self._turn = seat
            self._drawn = None
            self._after_pon = kind
            self._rinshan = False
        else:
            self._kan_owners.append(seat)
            self._pending_dora += 1
            self._draw(seat, replacement=True)

    def _note_pao(self, seat: int, kind: TileKind, feeder: int) -> None:
        """Feeding the third dragon set or the fourth wind set makes the feeder liable."""
        kinds = [m.kind for m in self._melds[seat]]
        if kind in DRAGON_KINDS and sum(k in DRAGON_KINDS for k in kinds) == len(DRAGON_KINDS):
            self._pao[seat] = (feeder, "daisangen")
        elif kind in WIND_KINDS and sum(k in WIND_KINDS for k in kinds) == len(WIND_KINDS):
            self._pao[seat] = (feeder, "daisuushii")

    # -- endings ----------------------------------------------------------------------------------

    def _settle_wins(self, winners: list[int], from_seat: int, tile: Tile, kind: WindowKind | None) -> None:
        tsumo = kind is None
        records: list[WinRecord] = []
        total = [0, 0, 0]
        for i, seat in enumerate(winners):
            score = self._try_score(seat, tile, tsumo=tsumo, kind=kind, nearest=i == 0)
            assert score is not None, "a legal win always scores"
            pao = self._pao_seat(seat, score)
            deltas = win_deltas(
                score.base,
                seat,
                from_seat,
                self.dealer,
                self.honba if i == 0 else 0,
                self._deposits if i == 0 else 0,
                pao,
            )
            for s in SEATS:
                total[s] += deltas[s]
            hand = list(self._hands[seat])
            if tsumo:
                hand.remove(tile)
            ura = self.deal.ura_indicators[: self._dora_count] if self._riichi[seat] else ()
            self.events.append(
                HandWon(seat, from_seat, tile, tuple(sorted(hand)), tuple(self._melds[seat]), ura, score, pao, deltas)
            )
            records.append(WinRecord(seat, from_seat, pao, score, deltas))
        dealer_won = self.dealer in winners
        self._finish(
            "won",
            total,
            dealer_repeats=dealer_won,
            next_honba=self.honba + 1 if dealer_won else 0,
            deposits_left=0,
            wins=tuple(records),
        )

    def _pao_seat(self, seat: int, score: Score) -> int | None:
        liability = self._pao[seat]
        if liability is None:
            return None
        liable, yakuman = liability
        return liable if any(y == yakuman for y, _ in score.yaku) else None

    def _exhaustive_draw(self) -> None:
        tenpai = tuple(s for s in SEATS if self._waits(s))
        nagashi = tuple(
            s
            for s in SEATS
            if self._river[s]
            and not self._called_away[s]
            and all(is_terminal_or_honor(kind_of(t)) for t in self._river[s])
        )
        deltas = nagashi_deltas(nagashi, self.dealer) if nagashi else noten_deltas(tenpai)
        shown = tuple(tuple(sorted(self._hands[s])) if s in tenpai else () for s in SEATS)
        self.events.append(HandDrawn("exhaustive", tenpai, (shown[0], shown[1], shown[2]), nagashi, deltas))
        self._finish(
            "drawn",
            list(deltas),
            dealer_repeats=self.dealer in tenpai,
            next_honba=self.honba + 1,
            deposits_left=self._deposits,
            reason="exhaustive",
            tenpai=tenpai,
            nagashi=nagashi,
        )

    def _abort(self, reason: str, seat: int | None) -> None:
        hand = tuple(sorted(self._hands[seat])) if seat is not None else ()
        self.events.append(HandAborted(reason, seat, hand))
        self._finish(
            "aborted",
            [0, 0, 0],
            dealer_repeats=True,
            next_honba=self.honba + 1,
            deposits_left=self._deposits,
            reason=reason,
        )

    def _finish(
        self,
        outcome: Outcome,
        deltas: list[int],
        *,
        dealer_repeats: bool,
        next_honba: int,
        deposits_left: int,
        wins: tuple[WinRecord, ...] = (),
        reason: str | None = None,
        tenpai: tuple[int, ...] = (),
        nagashi: tuple[int, ...] = (),
    ) -> None:
        for s in SEATS:
            self._scores[s] += deltas[s]
        self._deposits = deposits_left
        self._window = None
        self._drawn = None
        self.result = KyokuResult(
            outcome=outcome,
            deltas=(deltas[0], deltas[1], deltas[2]),
            riichi_paid=(self._riichi_paid[0], self._riichi_paid[1], self._riichi_paid[2]),
            dealer_repeats=dealer_repeats,
            next_honba=next_honba,
            deposits_left=deposits_left,
            wins=wins,
            reason=reason,
            tenpai=tenpai,
            nagashi=nagashi,
        )

    # -- the "why can't I win" aid ----------------------------------------------------------------

    def win_status(self, seat: int) -> WinStatus:
        """Waits and furiten of a tenpai seat; when its tiles are complete right now, the
        score it would get or why it may not win (``no_yaku`` / ``furiten``)."""
        w = self._window
        own_turn = w is None and self.result is None and seat == self._turn and self._drawn is not None
        hand_waits = self._waits(seat, without=self._drawn if own_turn else None)
        furiten = self._furiten(seat, hand_waits)
        if own_turn:
            if not is_complete(self._counts(seat), len(self._melds[seat])):
                return WinStatus(hand_waits, furiten)
            score = self._tsumo_score(seat)
            return WinStatus(hand_waits, furiten, True, None if score else "no_yaku", score)
        if w is None or seat == w.seat or kind_of(w.tile) not in hand_waits:
            return WinStatus(hand_waits, furiten)
        if w.kind == "ankan" and not self._ron_score(seat, w.kind, w.tile, hand_waits):
            return WinStatus(hand_waits, furiten)
        if furiten != "none":
            return WinStatus(hand_waits, furiten, True, "furiten")
        score = self._try_score(seat, w.tile, tsumo=False, kind=w.kind)
        return WinStatus(hand_waits, furiten, True, None if score else "no_yaku", score)

    # -- invariants ---------------------------------------------------------------------------------

    def check_invariants(self) -> None:
        """Recompute the state from scratch and compare; raise ``AssertionError`` on any
        difference: tiles conserved, points + deposits conserved, the event log folds to
        the same hands, and only awaited seats have legal actions."""
        self._check_tiles()
        self._check_points()
        self._check_fold()
        self._check_legal()
        self._check_waits()

    def _in_play(self) -> list[Tile]:
        tiles: list[Tile] = []
        for s in SEATS:
            tiles += self._hands[s]
            tiles += self._kita[s]
            for m in self._melds[s]:
                tiles += m.tiles
            called = Counter(self._called_away[s])
            for t in self._river[s]:
                if called[t]:
                    called[t] -= 1
                else:
                    tiles.append(t)
        return tiles

    def _check_tiles(self) -> None:
        in_play = self._in_play()
        dup = [t for t, c in Counter(in_play).items() if c > 1]
        assert not dup, f"tiles held twice: {dup}"
        drawn = set(self.deal.live[: self._live_next]) | set(self.deal.replacements[: self._replacements])
        assert drawn <= set(in_play), "a drawn tile went missing"
        # Tiles past the end of the live wall stay in the wall (a short scripted wall, or
        # the seeded tail that replacement draws take last first).
        rest = set(self.deal.live[self._live_next :]) | set(self.deal.replacements[self._replacements :])
        rest |= set(self.deal.dora_indicators) | set(self.deal.ura_indicators)
        assert not (rest & set(in_play)) - drawn, "a tile is both in play and in the wall"
        everything = set(in_play) | rest
        full = set(self.deal.live) | set(self.deal.replacements) | set(self.deal.dora_indicators)
        full |= set(self.deal.ura_indicators) | {t for h in self.deal.hands for t in h}
        if len(full) == 108:
            assert len(everything) == 108, f"{108 - len(everything)} tiles lost"
        for s in SEATS:
            size = len(self._hands[s]) + 3 * len(self._melds[s])
            holding = self.result is None and self._window is None and s == self._turn
            assert size == (14 if holding else 13) or (self.result is not None and size in (13, 14)), (
                f"seat {s} holds {size} tiles"
            )

    def _check_points(self) -> None:
        before = sum(self._start_scores) + 1000 * self._start_deposits
        assert sum(self._scores) + 1000 * self._deposits == before, "points + deposits not conserved"
        if self.result is not None:
            for s in SEATS:
                end = self._start_scores[s] + self.result.deltas[s] - 1000 * self.result.riichi_paid[s]
                assert self._scores[s] == end, f"seat {s}: start + deltas - riichi != end"

    def _check_fold(self) -> None:
        """Fold the event log into hands, melds, rivers and kita; compare with the state."""
        hands: list[Counter[Tile]] = [Counter(), Counter(), Counter()]
        melds: list[list[Meld]] = [[], [], []]
        rivers: list[list[Tile]] = [[], [], []]
        kita: list[list[Tile]] = [[], [], []]
        riichi = [0, 0, 0]
        for ev in self.events:
            if isinstance(ev, HandStarted):
                hands = [Counter(h) for h in ev.hands]
            elif isinstance(ev, TileDrawn):
                hands[ev.seat][ev.tile] += 1
            elif isinstance(ev, TileDiscarded):
                hands[ev.seat][ev.tile] -= 1
                rivers[ev.seat].append(ev.tile)
            elif isinstance(ev, KitaDeclared):
                hands[ev.seat][ev.tile] -= 1
                kita[ev.seat].append(ev.tile)
            elif isinstance(ev, MeldCalled):
                _fold_meld(hands[ev.seat], melds[ev.seat], ev.meld)
            elif isinstance(ev, RiichiAccepted):
                riichi[ev.seat] = 1
        for s in SEATS:
            assert +hands[s] == Counter(self._hands[s]), f"seat {s}: event fold gives another hand"
            assert melds[s] == self._melds[s], f"seat {s}: event fold gives other melds"
            assert rivers[s] == self._river[s], f"seat {s}: event fold gives another river"
            assert kita[s] == self._kita[s], f"seat {s}: event fold gives other kita"
        assert riichi == self._riichi_paid, "riichi deposits differ from the events"

    def _check_waits(self) -> None:
        """The filtered, memoised waits equal ``shanten.waits`` with the owned counts."""
        for s in SEATS:
            counts = self._counts(s)
            nmelds = len(self._melds[s])
            if sum(counts) == 13 - 3 * nmelds:
                fresh = tuple(waits(counts, nmelds, self._own(s)))
                assert self._waits(s) == fresh, f"seat {s}: waits {self._waits(s)} != {fresh}"

    def _check_legal(self) -> None:
        awaited = self.awaiting()
        for s in SEATS:
            fresh = self._compute_legal(s)
            assert fresh == self.legal_actions(s), f"seat {s}: cached legal actions are stale"
            assert bool(fresh) == (s in awaited), f"seat {s}: awaited={s in awaited} but {len(fresh)} actions"
            if fresh:
                assert fresh.default is not None and fresh.default in fresh, "the default must be legal"
                assert not isinstance(fresh.default, Tsumo | Ron), "a win is never the default"
                assert all(a in fresh for a in fresh), "every listed action must be accepted"


@lru_cache(maxsize=1 << 16)
def _cached_waits(counts: tuple[int, ...], melds: int) -> tuple[TileKind, ...]:
    """``shanten.waits`` memoised: the same hands recur across the seats, copies and checks."""
    return tuple(waits(counts, melds))


def _fold_meld(hand: Counter[Tile], melds: list[Meld], meld: Meld) -> None:
    if meld.type is MeldType.KAKAN:
        assert meld.added is not None
        hand[meld.added] -= 1
        index = next(i for i, m in enumerate(melds) if m.type is MeldType.PON and m.kind == meld.kind)
        melds[index] = meld
        return
    for t in meld.tiles:
        if t != meld.called:
            hand[t] -= 1
    melds.append(meld)
