"""``SeatView``: what one seat knows, folded only from the events it was sent: the one
observer record of a seat (Mortal's ``PlayerState``).

Feed it redacted events (``visibility.redact(event, seat)``); it never needs anything
else, which is what makes reconnects and clients simple: the same fold runs on a fresh
log, on a resync and event by event (design principle 8).  Other seats appear only
through public facts: how many tiles they hold, their melds, rivers, kita and riichi.

The same fold keeps what the seat's legality needs (an mjai table sends no legal actions,
and a review or a drill rebuilds a decision from a log): the seat's own ``SeatState``
(tiles and riichi/furiten flags, changed by the transitions ``Kyoku`` runs), the kans, the
first go-around, rinshan, the kind just ponned and the ``cue`` (what the seat is asked
about now).  The view is a ``seat.Table``, so ``legal()`` asks ``legality`` with the very
``seat.Facts`` the engine builds: the rules and the facts exist once, only the folds that
feed them differ (the tests compare both, decision by decision, on seeded matches).  It
also keeps the table order of discards and kita, which defence reads (a tile let go after
a seat's riichi, or since its last discard, cannot be ronned by it now).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from sanma.engine import legality
from sanma.engine.errors import InvalidLog
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
from sanma.engine.legality import WINDOW_KINDS, Cue, LegalActions
from sanma.engine.rules import Rules
from sanma.engine.seat import Facts, SeatState
from sanma.engine.tiles import EAST, KIND_COUNT, Tile, TileKind, kind_of
from sanma.engine.visibility import is_hidden

HandEnd = HandWon | HandDrawn | HandAborted


@dataclass(frozen=True, slots=True)
class RiverTile:
    """One discard as the table shows it: turned sideways for ``riichi``, greyed for
    ``tsumogiri``, and ``called`` once another seat took it into a meld."""

    tile: Tile
    tsumogiri: bool
    riichi: bool = False
    called: bool = False


@dataclass(slots=True)
class SeatView:
    """The table as seat ``seat`` sees it (``None``: a spectator).

    Per-seat fields are lists indexed by seat.  ``hand`` is the seat's own concealed tiles
    (``drawn`` included), ``drawn`` the tile it just drew, ``turn`` the seat that drew or
    called last; ``results`` are the ends of the current hand (empty while it runs);
    ``final`` is the ``MatchEnded`` event once the match is over.

    ``me`` is the seat's own record: its ``hand``, and the same lists as its row of
    ``melds`` and ``kita``, its river's tiles and its flags.  ``cue`` is what the seat is
    asked about now (``None``: nothing); ``first_go_around``, ``rinshan``, ``kan_owners``
    and ``after_pon`` are the table facts legality reads besides.  ``order`` is every
    discard and kita of the hand as (seat, tile) in table order; ``riichi_at`` and
    ``last_discard_at`` index into it per seat.
    """

    seat: int | None
    rules: Rules | None = None
    hand_number: int = 0  # 1-based count of hands dealt in this match
    round_wind: TileKind = EAST
    dealer: int = 0
    honba: int = 0
    deposits: int = 0
    scores: list[int] = field(default_factory=lambda: [0, 0, 0])
    me: SeatState = field(default_factory=SeatState)
    drawn: Tile | None = None
    hand_sizes: list[int] = field(default_factory=lambda: [0, 0, 0])
    melds: list[list[Meld]] = field(default_factory=lambda: [[], [], []])
    rivers: list[list[RiverTile]] = field(default_factory=lambda: [[], [], []])
    kita: list[list[Tile]] = field(default_factory=lambda: [[], [], []])
    riichi: list[bool] = field(default_factory=lambda: [False, False, False])
    dora_indicators: list[Tile] = field(default_factory=list)
    live_left: int = 0
    turn: int | None = None
    results: list[HandEnd] = field(default_factory=list)
    final: MatchEnded | None = None
    cue: Cue | None = None
    first_go_around: bool = True
    rinshan: bool = False
    kan_owners: list[int] = field(default_factory=list)
    after_pon: TileKind | None = None
    order: list[tuple[int, Tile]] = field(default_factory=list)
    riichi_at: list[int | None] = field(default_factory=lambda: [None, None, None])
    last_discard_at: list[int | None] = field(default_factory=lambda: [None, None, None])

    @classmethod
    def fold(cls, events: Iterable[Event], seat: int | None) -> SeatView:
        """The view of ``seat`` after ``events`` (already redacted for that seat)."""
        view = cls(seat)
        for event in events:
            view.apply(event)
        return view

    @property
    def hand(self) -> list[Tile]:
        """The seat's own concealed tiles, the drawn one included (empty for a spectator)."""
        return self.me.hand

    def concealed(self) -> tuple[Tile, ...]:
        """The seat's own concealed tiles, sorted (as ``Kyoku.hand`` gives them)."""
        return tuple(sorted(self.hand))

    def visible_counts(self) -> list[int]:
        """Copies of each kind face up outside the seat's hand: every river tile not called
        (a called one lies in a meld), every meld, every kita and the dora indicators."""
        seen = [0] * KIND_COUNT
        for s in range(3):
            for r in self.rivers[s]:
                if not r.called:
                    seen[kind_of(r.tile)] += 1
            for m in self.melds[s]:
                for t in m.tiles:
                    seen[kind_of(t)] += 1
            for t in self.kita[s]:
                seen[kind_of(t)] += 1
        for t in self.dora_indicators:
            if not is_hidden(t):
                seen[kind_of(t)] += 1
        return seen

    def seen_counts(self) -> list[int]:
        """Copies of each kind the seat knows the place of: its own hand and everything
        face up (``visible_counts``)."""
        seen = self.visible_counts()
        for t in self.hand:
            if not is_hidden(t):
                seen[kind_of(t)] += 1
        return seen

    def owned_counts(self) -> list[int]:
        """Copies of each kind the seat owns: its hand, its melds and its kita (what
        ``shanten.waits(own=...)`` takes)."""
        seat = self.seat if self.seat is not None else 0
        own = [0] * KIND_COUNT
        for t in self.hand:
            if not is_hidden(t):
                own[kind_of(t)] += 1
        for m in self.melds[seat]:
            own[m.kind] += len(m.tiles)
        for t in self.kita[seat]:
            own[kind_of(t)] += 1
        return own

    # -- legality ----------------------------------------------------------------------------

    def legal(self) -> LegalActions:
        """What the seat may do at the current cue (nothing when there is none)."""
        cue = self.cue
        if cue is None or self.results:
            return LegalActions.none()
        return legality.legal(self.facts(), cue)

    def facts(self) -> Facts:
        """The seat's ``legality.SeatFacts`` now."""
        assert self.seat is not None, "a spectator has no seat to decide for"
        return Facts(self, self.seat)

    # ``seat.Table``: the names ``Kyoku`` keeps too.

    def seat_state(self, seat: int) -> SeatState:
        """The seat's own record (an observer has no other seat's)."""
        if seat != self.seat:
            raise ValueError(f"seat {self.seat}'s view holds no record of seat {seat}")
        return self.me

    @property
    def indicators(self) -> Sequence[Tile]:
        """The dora indicators revealed so far."""
        return self.dora_indicators

    @property
    def ura_indicators(self) -> Sequence[Tile]:
        """Unknown to a seat: none (they change a win's value, never legality)."""
        return ()

    # -- folding -----------------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Fold one event into the view."""
        if self.seat is not None:
            self._track(event)
        if isinstance(event, MatchStarted):
            self._reset_match(event.rules)
        elif isinstance(event, HandStarted):
            self._start_hand(event)
        elif isinstance(event, TileDrawn):
            self._draw(event)
        elif isinstance(event, TileDiscarded):
            self._discard(event)
        elif isinstance(event, MeldCalled):
            self._meld(event.seat, event.meld)
        elif isinstance(event, KitaDeclared):
            self.kita[event.seat].append(event.tile)
            self.order.append((event.seat, event.tile))
            self._take_from_hand(event.seat, (event.tile,))
        elif isinstance(event, DoraRevealed):
            self.dora_indicators.append(event.indicator)
        elif isinstance(event, RiichiAccepted):
            self.scores[event.seat] -= 1000
            self.deposits += 1
        elif isinstance(event, HandWon | HandDrawn):
            self._settle(event.deltas)
            if isinstance(event, HandWon):
                self.deposits = 0  # the (first) winner collects them; its deltas include them
            self.results.append(event)
        elif isinstance(event, HandAborted):
            self.results.append(event)
        elif isinstance(event, MatchEnded):
            self.final = event
            self.scores = list(event.points)
            self.deposits = 0

    # -- folding helpers -----------------------------------------------------------------

    def _reset_match(self, rules: Rules) -> None:
        fresh = SeatView(self.seat, rules)
        for name in SeatView.__slots__:
            setattr(self, name, getattr(fresh, name))

    def _start_hand(self, e: HandStarted) -> None:
        self.hand_number += 1
        self.round_wind, self.dealer, self.honba, self.deposits = e.round_wind, e.dealer, e.honba, e.deposits
        self.scores = list(e.scores)
        self.me = SeatState(list(e.hands[self.seat]) if self.seat is not None else [])
        if any(is_hidden(t) for t in self.hand):
            raise InvalidLog("a seat's own hand arrived hidden")
        self.drawn = None
        self.hand_sizes = [len(h) for h in e.hands]
        self.melds, self.rivers, self.kita = [[], [], []], [[], [], []], [[], [], []]
        if self.seat is not None:  # the seat's row is its own record's lists
            self.melds[self.seat], self.kita[self.seat] = self.me.melds, self.me.kita
        self.order = []
        self.riichi_at, self.last_discard_at = [None, None, None], [None, None, None]
        self.riichi = [False, False, False]
        self.dora_indicators = [e.dora_indicator]
        self.live_left = e.live_size
        self.turn = e.dealer
        self.results = []

    def _draw(self, e: TileDrawn) -> None:
        # Every draw shortens the live wall: a replacement draw moves its end by one.
        self.live_left -= 1
        self.hand_sizes[e.seat] += 1
        self.turn = e.seat
        if e.seat == self.seat:
            if is_hidden(e.tile):
                raise InvalidLog("a seat's own draw arrived hidden")
            self.hand.append(e.tile)
            self.drawn = e.tile

    def _discard(self, e: TileDiscarded) -> None:
        self.rivers[e.seat].append(RiverTile(e.tile, e.tsumogiri, e.riichi))
        if e.seat == self.seat:
            self.me.river.append(e.tile)
        self.order.append((e.seat, e.tile))
        self.last_discard_at[e.seat] = len(self.order) - 1
        if e.riichi:
            self.riichi[e.seat] = True
            self.riichi_at[e.seat] = len(self.order) - 1
        self._take_from_hand(e.seat, (e.tile,))

    def _meld(self, seat: int, meld: Meld) -> None:
        self.turn = seat
        if meld.type is MeldType.KAKAN:
            index = next(i for i, m in enumerate(self.melds[seat]) if m.type is MeldType.PON and m.kind == meld.kind)
            self.melds[seat][index] = meld
            assert meld.added is not None
            self._take_from_hand(seat, (meld.added,))
            return
        if meld.from_seat is not None:
            river = self.rivers[meld.from_seat]
            river[-1] = replace(river[-1], called=True)
        self.melds[seat].append(meld)
        self._take_from_hand(seat, tuple(t for t in meld.tiles if t != meld.called))

    def _take_from_hand(self, seat: int, tiles: tuple[Tile, ...]) -> None:
        self.hand_sizes[seat] -= len(tiles)
        if seat == self.seat:
            for t in tiles:
                self.hand.remove(t)
            self.drawn = None

    def _settle(self, deltas: tuple[int, int, int]) -> None:
        for s in range(3):
            self.scores[s] += deltas[s]

    # -- what legality needs besides (run before the event changes the view) ------------------

    def _track(self, event: Event) -> None:
        if self.cue is not None and self.cue.kind in WINDOW_KINDS and not isinstance(event, DoraRevealed):
            # A kan dora may follow a kita or a kan in mjai's order before the window is decided.
            self._close_window(self.cue)
        if isinstance(event, HandStarted | MatchStarted):
            self.first_go_around, self.rinshan = True, False
            self.kan_owners = []
            self.after_pon = None
            self.cue = None
        elif isinstance(event, TileDrawn):
            self._track_draw(event)
        elif isinstance(event, TileDiscarded):
            self._track_discard(event)
        elif isinstance(event, MeldCalled):
            self._track_meld(event)
        elif isinstance(event, KitaDeclared):
            self._track_kita(event)
        elif isinstance(event, RiichiAccepted):
            if event.seat == self.seat:
                self.me.riichi_accepted()
            self.cue = None
        elif isinstance(event, HandWon | HandDrawn | HandAborted | MatchEnded):
            self.cue = None

    def _track_draw(self, e: TileDrawn) -> None:
        if e.replacement:
            self.me.interrupted()  # a kan or a kita stood
        if e.seat == self.seat:
            self.rinshan = e.replacement
            self.after_pon = None
            self.cue = Cue("draw", e.seat)
        else:
            self.cue = None

    def _track_discard(self, e: TileDiscarded) -> None:
        if e.seat == self.seat:
            facts = self.facts()
            if legality.declines_winning_draw(facts, e.tile):
                self.me.declined_winning_draw()
            self.me.discard(declares_riichi=e.riichi, double=e.riichi and legality.first_turn(facts))
            self.after_pon = None
            self.cue = None
        else:
            self.cue = Cue("discard", e.seat, e.tile)

    def _track_meld(self, e: MeldCalled) -> None:
        meld = e.meld
        self.first_go_around = False
        if meld.is_kan:
            self.kan_owners.append(e.seat)
        if meld.type in (MeldType.PON, MeldType.DAIMINKAN):
            self.me.interrupted()
        if e.seat == self.seat:
            self.after_pon = meld.kind if meld.type is MeldType.PON else None
            self.cue = Cue("pon", e.seat) if meld.type is MeldType.PON else None
        elif meld.type is MeldType.KAKAN:
            self.cue = Cue("kakan", e.seat, meld.added)
        elif meld.type is MeldType.ANKAN:
            self.cue = Cue("ankan", e.seat, meld.tiles[-1])
        else:
            self.cue = None

    def _track_kita(self, e: KitaDeclared) -> None:
        self.first_go_around = False
        if e.seat == self.seat:
            if legality.declines_winning_draw(self.facts(), e.tile):
                self.me.declined_winning_draw()
            self.cue = None
        else:
            self.cue = Cue("kita", e.seat, e.tile)

    def _close_window(self, cue: Cue) -> None:
        """The window passed without a win: a seat that waited on the tile is now furiten."""
        assert cue.tile is not None and cue.kind != "draw" and cue.kind != "pon"
        facts = self.facts()
        waits_now = legality.hand_waits(facts)
        options = legality.window_actions(facts, cue.kind, cue.tile, waits_now)
        if legality.passes_up_win(cue.kind, cue.tile, waits_now, options):
            self.me.passed_a_win()
