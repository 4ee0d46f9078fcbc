"""``SeatView``: what one seat knows, folded only from the events it was sent.

Feed it redacted events (``visibility.redact(event, seat)``); it never needs anything
else, which is what makes reconnects and clients simple: the same fold runs on a fresh
log, on a resync and event by event (design principle 8).  Other seats appear only
through public facts: how many tiles they hold, their melds, rivers, kita and riichi.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

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
from sanma.engine.rules import Rules
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
    """

    seat: int | None
    rules: Rules | None = None
    hand_number: int = 0  # 1-based count of hands dealt in this match
    round_wind: TileKind = EAST
    dealer: int = 0
    honba: int = 0
    deposits: int = 0
    scores: list[int] = field(default_factory=lambda: [0, 0, 0])
    hand: list[Tile] = field(default_factory=list)
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

    @classmethod
    def fold(cls, events: Iterable[Event], seat: int | None) -> SeatView:
        """The view of ``seat`` after ``events`` (already redacted for that seat)."""
        view = cls(seat)
        for event in events:
            view.apply(event)
        return view

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

    def apply(self, event: Event) -> None:
        """Fold one event into the view."""
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
        self.hand = list(e.hands[self.seat]) if self.seat is not None else []
        if any(is_hidden(t) for t in self.hand):
            raise InvalidLog("a seat's own hand arrived hidden")
        self.drawn = None
        self.hand_sizes = [len(h) for h in e.hands]
        self.melds, self.rivers, self.kita = [[], [], []], [[], [], []], [[], [], []]
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
        if e.riichi:
            self.riichi[e.seat] = True
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
