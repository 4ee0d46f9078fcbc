"""One hand (kyoku) as a state machine: deal, turns, decision windows, result.

The hand is always in one of three phases:

* **turn**: one seat (``awaiting() == (seat,)``) acts after a draw or after a pon;
* **window**: after a discard, an added kan, a closed kan (kokushi only) or a kita, the
  seats that may ron or call answer; once all have answered it resolves by priority
  (ron > pon/kan);
* **over**: ``result`` is set.

Legality lives in one query, ``legal_actions(seat)``; ``apply`` accepts only what it
lists and returns the events it caused.  The rules behind it are ``legality``'s, asked
with one seat's facts (``seat.Facts``, reading the hand as a ``seat.Table``), the same
functions and the same facts a seat that sees only its own tiles asks (``view.SeatView``).
Each seat's tiles and flags are one ``SeatState`` (``seat.py``), changed by the transitions
both folds share.  ``phase`` names the phase.
Rule choices and their spec sections are in ``docs/engine.md``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from sanma.engine import legality
from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pon, Ron, Tsumo
from sanma.engine.errors import IllegalAction, InvalidLog
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
from sanma.engine.hand import Meld, MeldType
from sanma.engine.legality import MAX_KANS as MAX_KANS
from sanma.engine.legality import NINE_TERMINALS_MIN as NINE_TERMINALS_MIN
from sanma.engine.legality import NO_ACTIONS
from sanma.engine.legality import RIICHI_COST as RIICHI_COST
from sanma.engine.legality import RIICHI_MIN_LIVE as RIICHI_MIN_LIVE
from sanma.engine.legality import FuritenState as FuritenState
from sanma.engine.legality import LegalActions as LegalActions
from sanma.engine.legality import WindowKind as WindowKind
from sanma.engine.rules import Rules
from sanma.engine.scoring import Score
from sanma.engine.seat import Facts, SeatState
from sanma.engine.settlement import nagashi_deltas, noten_deltas, win_deltas
from sanma.engine.shanten import is_complete, waits
from sanma.engine.tiles import (
    DRAGON_KINDS,
    SEATS,
    WIND_KINDS,
    Tile,
    TileKind,
    counts_of_tiles,
    is_red,
    is_terminal_or_honor,
    kind_of,
)
from sanma.engine.wall import Deal

Outcome = Literal["won", "drawn", "aborted"]
Phase = Literal["turn", "window", "over"]


# -- values handed out -------------------------------------------------------------------


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
    reason: str | None = None  # exhaustive | nagashi | nine_terminals | four_kans
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
        k._seats = [SeatState(list(h)) for h in deal.hands]
        k._kan_owners = []
        k._clean = True
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
    _seats: list[SeatState]
    _kan_owners: list[int]
    _clean: bool
    _turn: int
    _drawn: Tile | None
    _after_pon: TileKind | None
    _rinshan: bool
    _window: _Window | None
    _legal: dict[int, LegalActions]

    _LISTS = ("_scores", "_kan_owners", "events")

    # -- public queries ------------------------------------------------------------------

    def copy(self) -> Kyoku:
        """An independent copy (for search): mutating one never changes the other."""
        k = Kyoku.__new__(Kyoku)
        for name, value in self.__dict__.items():
            if name == "_seats":
                value = [seat.copy() for seat in value]
            elif name in self._LISTS:
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
            tuple(seat.key() for seat in self._seats),
            tuple(self._kan_owners),
            self._clean,
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
        return tuple(sorted(self._seats[seat].hand))

    def melds(self, seat: int) -> tuple[Meld, ...]:
        """A seat's melds in call order."""
        return tuple(self._seats[seat].melds)

    def kita_tiles(self, seat: int) -> tuple[Tile, ...]:
        """The Norths a seat has set aside."""
        return tuple(self._seats[seat].kita)

    def river(self, seat: int) -> tuple[Tile, ...]:
        """Every tile a seat discarded, called ones included (they count for furiten)."""
        return tuple(self._seats[seat].river)

    def dora_indicators(self) -> tuple[Tile, ...]:
        """The indicators revealed so far."""
        return self.deal.dora_indicators[: self._dora_count]

    def in_riichi(self, seat: int) -> bool:
        """Whether a seat has declared riichi."""
        return self._seats[seat].riichi

    @property
    def phase(self) -> Phase:
        """``turn`` (one seat acts after its draw or pon), ``window`` (seats answer a
        discard, an added or closed kan or a kita: ron, call or ``Pass``) or ``over``."""
        if self.result is not None:
            return "over"
        return "turn" if self._window is None else "window"

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

    # -- the table legality reads (``seat.Table``) --------------------------------------------

    @property
    def kan_owners(self) -> Sequence[int]:
        """The seat of every kan made so far, in order."""
        return self._kan_owners

    @property
    def first_go_around(self) -> bool:
        """True until any call, kan or kita."""
        return self._clean

    @property
    def turn(self) -> int:
        """The seat that drew or called last (the one acting, or whose discard is on offer)."""
        return self._turn

    @property
    def drawn(self) -> Tile | None:
        """The tile the seat whose turn it is just drew (``None`` after a pon or a discard)."""
        return self._drawn

    @property
    def after_pon(self) -> TileKind | None:
        """The kind the seat whose turn it is just ponned (until its discard)."""
        return self._after_pon

    @property
    def rinshan(self) -> bool:
        """Whether the last draw was a replacement draw."""
        return self._rinshan

    @property
    def indicators(self) -> Sequence[Tile]:
        """The dora indicators revealed so far (``dora_indicators()``, as the table reads them)."""
        return self.dora_indicators()

    @property
    def ura_indicators(self) -> Sequence[Tile]:
        """The ura indicators under the revealed ones."""
        return self.deal.ura_indicators[: self._dora_count]

    def seat_state(self, seat: int) -> SeatState:
        """A seat's tiles and flags (the engine's own record: not to be changed)."""
        return self._seats[seat]

    def _waits(self, seat: int, without: Tile | None = None) -> tuple[TileKind, ...]:
        """Waits of a seat's 13-3m concealed tiles (optionally without one tile)."""
        return legality.hand_waits(Facts(self, seat), without)

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
        self._seats[seat].hand.append(tile)
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

    def _try_score(
        self, seat: int, tile: Tile, *, tsumo: bool, kind: WindowKind | None, nearest: bool = True
    ) -> Score | None:
        """The score of a win on ``tile``, or ``None`` when the hand has no yaku or is not
        complete.  For a tsumo ``tile`` is already in hand."""
        return legality.win_score(Facts(self, seat), tile, tsumo=tsumo, kind=kind, nearest=nearest)

    # -- legal actions ------------------------------------------------------------------------

    def _compute_legal(self, seat: int) -> LegalActions:
        """The phase decides who is asked; ``legality`` decides what they may do."""
        if self.result is not None:
            return NO_ACTIONS
        w = self._window
        if w is not None:
            if seat in w.answers:
                return NO_ACTIONS
            return w.options.get(seat, NO_ACTIONS)
        if seat != self._turn:
            return NO_ACTIONS
        return legality.turn_legal(Facts(self, seat))

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
        if legality.declines_winning_draw(Facts(self, seat), tile):
            self._seats[seat].declined_winning_draw()

    def _discard(self, seat: int, tile: Tile, riichi: bool) -> None:
        self._reveal_pending_dora()
        self._note_declined_draw(seat, tile)
        me = self._seats[seat]
        me.discard(declares_riichi=riichi, double=riichi and legality.first_turn(Facts(self, seat)))
        tsumogiri = tile == self._drawn
        me.hand.remove(tile)
        me.river.append(tile)
        self._drawn = None
        self._after_pon = None
        self.events.append(TileDiscarded(seat, tile, tsumogiri, riichi))
        self._open_window("discard", seat, tile, riichi)

    def _declare_kan(self, seat: int, kind: TileKind) -> None:
        self._reveal_pending_dora()
        self._clean = False
        tiles = [t for t in self._seats[seat].hand if kind_of(t) == kind]
        if len(tiles) == 4:
            for t in tiles:
                self._seats[seat].hand.remove(t)
            meld = Meld(MeldType.ANKAN, tuple(sorted(tiles)))
            self._seats[seat].melds.append(meld)
            self._kan_owners.append(seat)
            self.events.append(MeldCalled(seat, meld))
            # Its indicator is turned at once, unless kokushi robs the kan first (then the
            # kan never stood; Mahjong Soul logs show no indicator).
            self._open_window("ankan", seat, tiles[-1], False)
            return
        (added,) = tiles
        index = next(i for i, m in enumerate(self._seats[seat].melds) if m.type is MeldType.PON and m.kind == kind)
        pon = self._seats[seat].melds[index]
        meld = Meld(MeldType.KAKAN, (*pon.tiles, added), called=pon.called, from_seat=pon.from_seat, added=added)
        self._seats[seat].hand.remove(added)
        self._seats[seat].melds[index] = meld
        self._kan_owners.append(seat)
        self.events.append(MeldCalled(seat, meld))
        self._pending_dora += 1
        self._open_window("kakan", seat, added, False)

    def _declare_kita(self, seat: int) -> None:
        self._reveal_pending_dora()
        tile = legality.kita_tile(self._seats[seat].hand, self._drawn)
        self._note_declined_draw(seat, tile)
        self._seats[seat].hand.remove(tile)
        self._seats[seat].kita.append(tile)
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
            facts = Facts(self, other)
            hand_waits = legality.hand_waits(facts)
            acts = legality.window_actions(facts, kind, tile, hand_waits)
            if legality.passes_up_win(kind, tile, hand_waits, acts):
                winning.append(other)
            if acts:
                options[other] = legality.window_legal(acts)
        self._window = _Window(kind, seat, tile, riichi, options, tuple(winning))
        if not options:
            self._resolve_window()

    def _resolve_window(self) -> None:
        w = self._window
        assert w is not None
        rons = sorted((s for s, a in w.answers.items() if isinstance(a, Ron)), key=lambda s: (s - w.seat) % 3)
        if rons:
            self._settle_wins(rons, w.seat, w.tile, w.kind)
            return
        self._window = None
        for seat in w.winning:
            self._seats[seat].passed_a_win()
        if w.kind == "discard":
            self._after_discard(w)
            return
        # A kan or a kita that stood ends every ippatsu; then its replacement draw.
        for s in self._seats:
            s.interrupted()
        if w.kind == "ankan":
            self._reveal_dora()
        self._draw(w.seat, replacement=True)

    def _after_discard(self, w: _Window) -> None:
        if w.riichi:
            self._accept_riichi(w.seat)
        if legality.four_kan_abort_pending(self._kan_owners):
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
        self._seats[seat].riichi_accepted()
        self.events.append(RiichiAccepted(seat))

    def _call(self, seat: int, action: Pon | Kan, w: _Window) -> None:
        kind = kind_of(w.tile)
        mine = sorted(t for t in self._seats[seat].hand if kind_of(t) == kind)
        if isinstance(action, Pon):
            reds = [t for t in mine if is_red(t, self.rules.red_fives)]
            plain = [t for t in mine if t not in reds]
            used = [reds[0], plain[0]] if action.red else plain[:2]
            meld = Meld(MeldType.PON, (*used, w.tile), called=w.tile, from_seat=w.seat)
        else:
            used = mine
            meld = Meld(MeldType.DAIMINKAN, (*used, w.tile), called=w.tile, from_seat=w.seat)
        for t in used:
            self._seats[seat].hand.remove(t)
        self._seats[seat].melds.append(meld)
        self._seats[w.seat].called_away.append(w.tile)
        self._clean = False
        for s in self._seats:
            s.interrupted()
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
        kinds = [m.kind for m in self._seats[seat].melds]
        if kind in DRAGON_KINDS and sum(k in DRAGON_KINDS for k in kinds) == len(DRAGON_KINDS):
            self._seats[seat].pao = (feeder, "daisangen")
        elif kind in WIND_KINDS and sum(k in WIND_KINDS for k in kinds) == len(WIND_KINDS):
            self._seats[seat].pao = (feeder, "daisuushii")

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
            me = self._seats[seat]
            hand = list(me.hand)
            if tsumo:
                hand.remove(tile)
            ura = self.deal.ura_indicators[: self._dora_count] if me.riichi else ()
            self.events.append(
                HandWon(seat, from_seat, tile, tuple(sorted(hand)), tuple(me.melds), ura, score, pao, deltas)
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
        liability = self._seats[seat].pao
        if liability is None:
            return None
        liable, yakuman = liability
        return liable if any(y == yakuman for y, _ in score.yaku) else None

    def _exhaustive_draw(self) -> None:
        tenpai = tuple(s for s in SEATS if self._waits(s))
        nagashi = tuple(
            s
            for s in SEATS
            if self._seats[s].river
            and not self._seats[s].called_away
            and all(is_terminal_or_honor(kind_of(t)) for t in self._seats[s].river)
        )
        deltas = nagashi_deltas(nagashi, self.dealer) if nagashi else noten_deltas(tenpai)
        shown = tuple(tuple(sorted(self._seats[s].hand)) if s in tenpai else () for s in SEATS)
        self.events.append(HandDrawn("exhaustive", tenpai, (shown[0], shown[1], shown[2]), nagashi, deltas))
        self._finish(
            "drawn",
            list(deltas),
            dealer_repeats=self.dealer in tenpai,
            next_honba=self.honba + 1,
            deposits_left=self._deposits,
            reason="nagashi" if nagashi else "exhaustive",
            tenpai=tenpai,
            nagashi=nagashi,
        )

    def _abort(self, reason: str, seat: int | None) -> None:
        hand = tuple(sorted(self._seats[seat].hand)) if seat is not None else ()
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
            riichi_paid=(self._seats[0].riichi_paid, self._seats[1].riichi_paid, self._seats[2].riichi_paid),
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
        facts = Facts(self, seat)
        own_turn = w is None and self.result is None and seat == self._turn and self._drawn is not None
        hand_waits = legality.hand_waits(facts, without=self._drawn if own_turn else None)
        furiten = legality.furiten(facts, hand_waits)
        if own_turn:
            if not is_complete(counts_of_tiles(self._seats[seat].hand), len(self._seats[seat].melds)):
                return WinStatus(hand_waits, furiten)
            score = legality.tsumo_score(facts)
            return WinStatus(hand_waits, furiten, True, None if score else "no_yaku", score)
        if w is None or seat == w.seat or kind_of(w.tile) not in hand_waits:
            return WinStatus(hand_waits, furiten)
        if w.kind == "ankan" and not legality.ron_score(facts, w.kind, w.tile, hand_waits):
            return WinStatus(hand_waits, furiten)
        if furiten != "none":
            return WinStatus(hand_waits, furiten, True, "furiten")
        score = self._try_score(seat, w.tile, tsumo=False, kind=w.kind)
        return WinStatus(hand_waits, furiten, True, None if score else "no_yaku", score)

    def yaku_waits(self, seat: int, waits: Sequence[TileKind] | None = None) -> tuple[TileKind, ...]:
        """The waits of ``seat`` (``win_status``, or ``waits`` when the caller has them) on which
        a win would have a yaku: all of a closed hand's, an open hand's only where a ron would score."""
        if waits is None:
            waits = self.win_status(seat).waits
        return legality.yaku_waits(Facts(self, seat), waits)

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
            tiles += self._seats[s].hand
            tiles += self._seats[s].kita
            for m in self._seats[s].melds:
                tiles += m.tiles
            called = Counter(self._seats[s].called_away)
            for t in self._seats[s].river:
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
            size = len(self._seats[s].hand) + 3 * len(self._seats[s].melds)
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
            assert +hands[s] == Counter(self._seats[s].hand), f"seat {s}: event fold gives another hand"
            assert melds[s] == self._seats[s].melds, f"seat {s}: event fold gives other melds"
            assert rivers[s] == self._seats[s].river, f"seat {s}: event fold gives another river"
            assert kita[s] == self._seats[s].kita, f"seat {s}: event fold gives other kita"
        assert riichi == [s.riichi_paid for s in self._seats], "riichi deposits differ from the events"

    def _check_waits(self) -> None:
        """The filtered, memoised waits equal ``shanten.waits`` with the owned counts."""
        for s in SEATS:
            counts = counts_of_tiles(self._seats[s].hand)
            nmelds = len(self._seats[s].melds)
            if sum(counts) == 13 - 3 * nmelds:
                fresh = tuple(waits(counts, nmelds, legality.owned_counts(Facts(self, s))))
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
