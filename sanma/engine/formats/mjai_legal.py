"""One seat's legal actions, worked out from what that seat sees (for mjai bots).

An mjai table sends no list of legal actions (``mjai-3p.md`` section 4), so a bot behind
``sanma mjai-bot`` must find them itself.  ``SeatLegality`` folds the seat's (redacted)
events into a ``SeatView`` plus the few facts the view does not keep and legality needs:
who has discarded, whether the first go-around is unbroken, ippatsu, rinshan, double
riichi, the seat's own furiten (temporary and riichi), the kans made so far, the kind
just ponned.  It is a ``legality.SeatFacts``, and ``legal()`` asks the very functions
``Kyoku.legal_actions`` asks (``sanma/engine/legality.py``): the rules exist once, and
only the folds that feed them differ.  The tests check on whole seeded matches, decision
by decision, that both folds give the same answers.

Only the values of wins differ from the engine's (the ura indicators are unknown), and
legality never depends on them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from sanma.engine import legality
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
from sanma.engine.legality import WINDOW_KINDS as WINDOW_KINDS
from sanma.engine.legality import Cue as Cue
from sanma.engine.legality import CueKind as CueKind
from sanma.engine.legality import LegalActions
from sanma.engine.rules import DEFAULT, Rules
from sanma.engine.seat import SeatState
from sanma.engine.tiles import Tile, TileKind
from sanma.engine.view import SeatView


@dataclass(slots=True)
class SeatLegality:
    """Folds one seat's events; ``legal()`` is what the seat may do now.  Its public fields
    and properties are the ``legality.SeatFacts`` of the seat."""

    seat: int
    view: SeatView = field(init=False)
    cue: Cue | None = None
    first_go_around: bool = field(default=True, init=False)
    rinshan: bool = field(default=False, init=False)
    kan_owners: list[int] = field(default_factory=list, init=False)
    after_pon: TileKind | None = field(default=None, init=False)
    # The seat's flags, in the record ``Kyoku`` keeps per seat and changed by the same
    # transitions (its tiles stay in ``view``).
    me: SeatState = field(default_factory=SeatState, init=False)

    def __post_init__(self) -> None:
        self.view = SeatView(self.seat)

    # -- the facts legality reads (besides the fields above) ---------------------------------

    @property
    def rules(self) -> Rules:
        """The rules of the match (the default ones until ``MatchStarted``)."""
        return self.view.rules or DEFAULT

    @property
    def hand(self) -> Sequence[Tile]:
        """The seat's concealed tiles, the drawn one included."""
        return self.view.hand

    @property
    def drawn(self) -> Tile | None:
        """The tile the seat just drew (``None`` once it discarded, called or set it aside)."""
        return self.view.drawn

    @property
    def melds(self) -> Sequence[Meld]:
        """The seat's melds."""
        return self.view.melds[self.seat]

    @property
    def kita_count(self) -> int:
        """Norths the seat has set aside."""
        return len(self.view.kita[self.seat])

    @property
    def river(self) -> Iterator[Tile]:
        """Every tile the seat discarded, called ones included."""
        return (r.tile for r in self.view.rivers[self.seat])

    @property
    def points(self) -> int:
        """The seat's points now."""
        return self.view.scores[self.seat]

    @property
    def riichi(self) -> bool:
        """Whether the seat has declared riichi."""
        return self.view.riichi[self.seat]

    @property
    def has_discarded(self) -> bool:
        """Whether the seat has discarded in this hand."""
        return self.me.discarded

    @property
    def ippatsu(self) -> bool:
        """Whether the seat's ippatsu chance is open."""
        return self.me.ippatsu

    @property
    def double_riichi(self) -> bool:
        """Whether the seat's riichi was a double riichi."""
        return self.me.double_riichi

    @property
    def temp_furiten(self) -> bool:
        """Temporary furiten (until the seat's next discard)."""
        return self.me.temp_furiten

    @property
    def riichi_furiten(self) -> bool:
        """Furiten for the rest of the hand (a winning tile passed in riichi)."""
        return self.me.riichi_furiten

    @property
    def dealer(self) -> int:
        """The dealer of this hand."""
        return self.view.dealer

    @property
    def round_wind(self) -> TileKind:
        """The round wind of this hand."""
        return self.view.round_wind

    @property
    def live_left(self) -> int:
        """Tiles still to be drawn from the live wall."""
        return self.view.live_left

    @property
    def dora_indicators(self) -> Sequence[Tile]:
        """The indicators revealed so far."""
        return self.view.dora_indicators

    @property
    def ura_indicators(self) -> Sequence[Tile]:
        """Unknown to a seat: none (they change a win's value, never legality)."""
        return ()

    @property
    def honba(self) -> int:
        """The hand's honba."""
        return self.view.honba

    @property
    def deposits(self) -> int:
        """Riichi deposits on the table."""
        return self.view.deposits

    # -- folding -----------------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Fold one event (redacted for this seat)."""
        if self.cue is not None and self.cue.kind in WINDOW_KINDS and not _keeps_window(event):
            self._close_window(self.cue)
        if isinstance(event, HandStarted | MatchStarted):
            self._reset()
        elif isinstance(event, TileDrawn):
            self._draw(event)
        elif isinstance(event, TileDiscarded):
            self._discard(event)
        elif isinstance(event, MeldCalled):
            self._meld(event)
        elif isinstance(event, KitaDeclared):
            self._kita(event)
        elif isinstance(event, RiichiAccepted):
            if event.seat == self.seat:
                self.me.riichi_accepted()
            self.cue = None
        elif isinstance(event, HandWon | HandDrawn | HandAborted | MatchEnded):
            self.cue = None
        self.view.apply(event)

    def _reset(self) -> None:
        self.me = SeatState()
        self.first_go_around, self.rinshan = True, False
        self.kan_owners = []
        self.after_pon = None
        self.cue = None

    def _draw(self, e: TileDrawn) -> None:
        if e.replacement:
            self.me.interrupted()  # a kan or a kita stood
        if e.seat == self.seat:
            self.rinshan = e.replacement
            self.after_pon = None
            self.cue = Cue("draw", self.seat)
        else:
            self.cue = None

    def _discard(self, e: TileDiscarded) -> None:
        if e.seat == self.seat:
            if legality.declines_winning_draw(self, e.tile):
                self.me.declined_winning_draw()
            self.me.discard(declares_riichi=e.riichi, double=e.riichi and legality.first_turn(self))
            self.after_pon = None
            self.cue = None
        else:
            self.cue = Cue("discard", e.seat, e.tile)

    def _meld(self, e: MeldCalled) -> None:
        meld = e.meld
        self.first_go_around = False
        if meld.is_kan:
            self.kan_owners.append(e.seat)
        if meld.type in (MeldType.PON, MeldType.DAIMINKAN):
            self.me.interrupted()
        if e.seat == self.seat:
            self.after_pon = meld.kind if meld.type is MeldType.PON else None
            self.cue = Cue("pon", self.seat) if meld.type is MeldType.PON else None
        elif meld.type is MeldType.KAKAN:
            self.cue = Cue("kakan", e.seat, meld.added)
        elif meld.type is MeldType.ANKAN:
            self.cue = Cue("ankan", e.seat, meld.tiles[-1])
        else:
            self.cue = None

    def _kita(self, e: KitaDeclared) -> None:
        self.first_go_around = False
        if e.seat == self.seat:
            if legality.declines_winning_draw(self, e.tile):
                self.me.declined_winning_draw()
            self.cue = None
        else:
            self.cue = Cue("kita", e.seat, e.tile)

    def _close_window(self, cue: Cue) -> None:
        """The window passed without a win: a seat that waited on the tile is now furiten."""
        assert cue.tile is not None and cue.kind != "draw" and cue.kind != "pon"
        waits_now = legality.hand_waits(self)
        options = legality.window_actions(self, cue.kind, cue.tile, waits_now)
        if legality.passes_up_win(cue.kind, cue.tile, waits_now, options):
            self.me.passed_a_win()

    # -- legality -------------------------------------------------------------------------------

    def legal(self) -> LegalActions:
        """What the seat may do at the current cue (nothing when there is none)."""
        cue = self.cue
        if cue is None or self.view.results:
            return LegalActions.none()
        return legality.legal(self, cue)


def _keeps_window(event: Event) -> bool:
    """A kan dora may follow a kita or a kan in mjai's order before the window is decided."""
    return isinstance(event, DoraRevealed)
