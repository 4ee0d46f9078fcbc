"""One seat's legal actions, worked out from what that seat sees (for mjai bots).

An mjai table sends no list of legal actions (``mjai-3p.md`` section 4), so a bot behind
``sanma mjai-bot`` must find them itself.  ``SeatLegality`` folds the seat's (redacted)
events into a ``SeatView`` plus the few facts the view does not keep and legality needs:
who has discarded, whether the hand is still uninterrupted (first-draw wins, nine
terminals, double riichi), ippatsu, rinshan, the seat's own furiten (temporary and
riichi), the kans made so far.  ``legal()`` then asks the same engine pieces ``Kyoku``
asks (``shanten``, ``waits``, ``score_win``, ``kan_keeps_readings``) and follows the same
rules, in the same order, so that it gives what ``Kyoku.legal_actions(seat)`` gives; the
tests check that on whole seeded matches, decision by decision.

Only the values of wins differ from the engine's (the ura indicators are unknown), and
legality never depends on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pass, Pon, Ron, Tsumo
from sanma.engine.errors import NotWinning, NoYaku
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
from sanma.engine.furiten import kan_keeps_readings
from sanma.engine.hand import MeldType
from sanma.engine.kyoku import MAX_KANS, NINE_TERMINALS_MIN, RIICHI_COST, RIICHI_MIN_LIVE, LegalActions
from sanma.engine.rules import DEFAULT, Rules
from sanma.engine.scoring import Score, WinContext, score_win
from sanma.engine.shanten import is_complete, shanten, waits
from sanma.engine.tiles import (
    EAST,
    KIND_COUNT,
    NORTH,
    TERMINAL_HONOR_KINDS,
    Tile,
    TileKind,
    counts_of_tiles,
    is_red,
    kind_of,
)
from sanma.engine.view import SeatView
from sanma.engine.visibility import is_hidden

CueKind = Literal["draw", "pon", "discard", "kakan", "ankan", "kita"]
WINDOW_KINDS: Final = ("discard", "kakan", "ankan", "kita")


@dataclass(frozen=True, slots=True)
class Cue:
    """What the seat is being asked about: its own turn (``draw`` or after a ``pon``), or a
    window on another seat's ``tile`` (a discard, an added kan, a closed kan, a North)."""

    kind: CueKind
    seat: int
    tile: Tile | None = None


@dataclass(slots=True)
class SeatLegality:
    """Folds one seat's events; ``legal()`` is what the seat may do now."""

    seat: int
    view: SeatView = field(init=False)
    cue: Cue | None = None
    _discarded: list[bool] = field(default_factory=lambda: [False, False, False])
    _clean: bool = True
    _rinshan: bool = False
    _ippatsu: bool = False
    _double_riichi: bool = False
    _temp_furiten: bool = False
    _riichi_furiten: bool = False
    _kan_owners: list[int] = field(default_factory=list)
    _after_pon: TileKind | None = None

    def __post_init__(self) -> None:
        self.view = SeatView(self.seat)

    @property
    def rules(self) -> Rules:
        """The rules of the match (the default ones until ``MatchStarted``)."""
        return self.view.rules or DEFAULT

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
                self._ippatsu = True
            self.cue = None
        elif isinstance(event, HandWon | HandDrawn | HandAborted | MatchEnded):
            self.cue = None
        self.view.apply(event)

    def _reset(self) -> None:
        self._discarded = [False, False, False]
        self._clean, self._rinshan, self._ippatsu, self._double_riichi = True, False, False, False
        self._temp_furiten = self._riichi_furiten = False
        self._kan_owners = []
        self._after_pon = None
        self.cue = None

    def _draw(self, e: TileDrawn) -> None:
        if e.replacement:
            self._ippatsu = False  # a kan or a kita stood
        if e.seat == self.seat:
            self._rinshan = e.replacement
            self._after_pon = None
            self.cue = Cue("draw", self.seat)
        else:
            self.cue = None

    def _discard(self, e: TileDiscarded) -> None:
        if e.seat == self.seat:
            self._note_declined_draw(e.tile)
            if self.view.riichi[self.seat]:
                self._ippatsu = False
            if e.riichi:
                self._double_riichi = self._clean and not self._discarded[self.seat]
            self._temp_furiten = False
            self._after_pon = None
            self.cue = None
        else:
            self.cue = Cue("discard", e.seat, e.tile)
        self._discarded[e.seat] = True

    def _meld(self, e: MeldCalled) -> None:
        meld = e.meld
        self._clean = False
        if meld.is_kan:
            self._kan_owners.append(e.seat)
        if meld.type in (MeldType.PON, MeldType.DAIMINKAN):
            self._ippatsu = False
        if e.seat == self.seat:
            self._after_pon = meld.kind if meld.type is MeldType.PON else None
            self.cue = Cue("pon", self.seat) if meld.type is MeldType.PON else None
        elif meld.type is MeldType.KAKAN:
            self.cue = Cue("kakan", e.seat, meld.added)
        elif meld.type is MeldType.ANKAN:
            self.cue = Cue("ankan", e.seat, meld.tiles[-1])
        else:
            self.cue = None

    def _kita(self, e: KitaDeclared) -> None:
        self._clean = False
        if e.seat == self.seat:
            self._note_declined_draw(e.tile)
            self.cue = None
        else:
            self.cue = Cue("kita", e.seat, e.tile)

    def _note_declined_draw(self, tile: Tile) -> None:
        v = self.view
        if v.riichi[self.seat] and tile == v.drawn and kind_of(tile) in self._waits(without=tile):
            self._riichi_furiten = True

    def _close_window(self, cue: Cue) -> None:
        """The window passed without a win: a seat that waited on the tile is now furiten."""
        assert cue.tile is not None
        if is_hidden(cue.tile) or kind_of(cue.tile) not in self._waits():
            return
        if cue.kind == "ankan" and Ron() not in self._window_actions(cue):
            return
        self._temp_furiten = True
        if self.view.riichi[self.seat]:
            self._riichi_furiten = True

    # -- counting ------------------------------------------------------------------------------

    def _counts(self, without: Tile | None = None) -> list[int]:
        counts = counts_of_tiles(self.view.hand)
        if without is not None:
            counts[kind_of(without)] -= 1
        return counts

    def _own(self, without: Tile | None = None) -> list[int]:
        own = self._counts(without)
        for meld in self.view.melds[self.seat]:
            own[meld.kind] += len(meld.tiles)
        own[NORTH] += len(self.view.kita[self.seat])
        return own

    def _nmelds(self) -> int:
        return len(self.view.melds[self.seat])

    def _waits(self, without: Tile | None = None) -> tuple[TileKind, ...]:
        counts = self._counts(without)
        if sum(counts) != 13 - 3 * self._nmelds():
            return ()
        return waits(counts, self._nmelds(), self._own(without))

    def _is_closed(self) -> bool:
        return all(not m.is_open for m in self.view.melds[self.seat])

    def _furiten(self, hand_waits: Sequence[TileKind]) -> bool:
        if self._riichi_furiten or self._temp_furiten:
            return True
        river = {kind_of(r.tile) for r in self.view.rivers[self.seat]}
        return any(k in river for k in hand_waits)

    # -- legality -------------------------------------------------------------------------------

    def legal(self) -> LegalActions:
        """What the seat may do at the current cue (nothing when there is none)."""
        cue = self.cue
        if cue is None or self.view.results:
            return LegalActions.none()
        if cue.kind == "draw":
            return self._legal_after_draw()
        if cue.kind == "pon":
            return self._legal_after_pon()
        actions = self._window_actions(cue)
        return LegalActions((*actions, Pass()), Pass()) if actions else LegalActions.none()

    def _discard_choices(self, tiles: Sequence[Tile]) -> dict[tuple[TileKind, bool], Tile]:
        red_fives = self.rules.red_fives
        out: dict[tuple[TileKind, bool], Tile] = {}
        for t in sorted(tiles):
            out.setdefault((kind_of(t), is_red(t, red_fives)), t)
        drawn = self.view.drawn
        if drawn is not None and drawn in tiles:
            out[(kind_of(drawn), is_red(drawn, red_fives))] = drawn
        return out

    def _legal_after_pon(self) -> LegalActions:
        called = self._after_pon
        allowed = [t for t in self.view.hand if kind_of(t) != called]
        choices = self._discard_choices(allowed)
        actions = tuple(Discard(t) for t in sorted(choices.values()))
        last = max(allowed)
        default = Discard(choices[(kind_of(last), is_red(last, self.rules.red_fives))])
        return LegalActions(actions, default, frozenset((t, False) for t in allowed))

    def _legal_after_draw(self) -> LegalActions:
        v = self.view
        drawn = v.drawn
        assert drawn is not None
        hand = v.hand
        actions: list[Action] = []
        if self._tsumo_score() is not None:
            actions.append(Tsumo())
        if self._can_nine_terminals():
            actions.append(NineTerminals())
        if v.riichi[self.seat]:
            actions.append(Discard(drawn))
            discard_tiles = {(drawn, False)}
        else:
            red_fives = self.rules.red_fives
            choices = self._discard_choices(hand)
            actions += [Discard(t) for t in sorted(choices.values())]
            discard_tiles = {(t, False) for t in hand}
            if self._may_declare_riichi() and shanten(self._counts(), self._nmelds()) <= 0:
                for (k, red), t in sorted(choices.items(), key=lambda kv: kv[1]):
                    if self._waits(without=t):
                        actions.append(Discard(t, riichi=True))
                        discard_tiles |= {(x, True) for x in hand if kind_of(x) == k and is_red(x, red_fives) == red}
        actions += [Kan(k) for k in self._kan_kinds()]
        if self._can_kita():
            actions.append(Kita())
        return LegalActions(tuple(actions), Discard(drawn), frozenset(discard_tiles))

    def _context(self, *, tsumo: bool, kind: CueKind | None) -> WinContext:
        v = self.view
        first_draw = tsumo and self._clean and not self._discarded[self.seat] and not self._rinshan
        riichi = v.riichi[self.seat]
        return WinContext(
            tsumo=tsumo,
            riichi=riichi,
            double_riichi=self._double_riichi,
            ippatsu=self._ippatsu and (kind != "kita" or self.rules.kita_ron_keeps_ippatsu),
            rinshan=tsumo and self._rinshan,
            chankan=kind in ("kakan", "ankan"),
            haitei=tsumo and not self._rinshan and v.live_left == 0,
            houtei=kind == "discard" and v.live_left == 0,
            tenhou=first_draw and self.seat == v.dealer,
            chiihou=first_draw and self.seat != v.dealer,
            seat_wind=EAST + (self.seat - v.dealer) % 3,
            round_wind=v.round_wind,
            dora_indicators=tuple(kind_of(t) for t in v.dora_indicators if not is_hidden(t)),
            kita=len(v.kita[self.seat]),
            honba=v.honba,
            deposits=v.deposits,
        )

    def _score(self, concealed: list[Tile], tile: Tile, *, tsumo: bool, kind: CueKind | None) -> Score | None:
        try:
            ctx = self._context(tsumo=tsumo, kind=kind)
            return score_win(concealed, tile, self.view.melds[self.seat], ctx, self.rules)
        except (NotWinning, NoYaku):
            return None

    def _tsumo_score(self) -> Score | None:
        drawn = self.view.drawn
        if drawn is None or not is_complete(self._counts(), self._nmelds()):
            return None
        return self._score(list(self.view.hand), drawn, tsumo=True, kind=None)

    def _can_nine_terminals(self) -> bool:
        if not self._clean or self._discarded[self.seat] or self._rinshan:
            return False
        kinds = {kind_of(t) for t in self.view.hand}
        return sum(k in kinds for k in TERMINAL_HONOR_KINDS) >= NINE_TERMINALS_MIN

    def _may_declare_riichi(self) -> bool:
        v = self.view
        return (
            not v.riichi[self.seat]
            and self._is_closed()
            and v.scores[self.seat] >= RIICHI_COST
            and v.live_left >= RIICHI_MIN_LIVE
        )

    def _kan_kinds(self) -> list[TileKind]:
        if self.view.live_left < 1 or len(self._kan_owners) >= MAX_KANS:
            return []
        counts = self._counts()
        kinds = [k for k in range(KIND_COUNT) if counts[k] == 4]
        if self.view.riichi[self.seat]:
            return [k for k in kinds if self._riichi_kan_ok(k)]
        kinds += [m.kind for m in self.view.melds[self.seat] if m.type is MeldType.PON and counts[m.kind] == 1]
        return sorted(kinds)

    def _riichi_kan_ok(self, kind: TileKind) -> bool:
        drawn = self.view.drawn
        if drawn is None or kind_of(drawn) != kind:
            return False
        before = self._waits(without=drawn)
        counts = self._counts()
        counts[kind] -= 4
        after = waits(counts, self._nmelds() + 1, self._own())
        if not before or before != after:
            return False
        return kan_keeps_readings(self._counts(without=drawn), kind, before)

    def _can_kita(self) -> bool:
        v = self.view
        if v.live_left < 1:
            return False
        if v.riichi[self.seat]:
            return v.drawn is not None and kind_of(v.drawn) == NORTH
        return any(kind_of(t) == NORTH for t in v.hand)

    def _window_actions(self, cue: Cue) -> list[Action]:
        tile = cue.tile
        assert tile is not None
        acts: list[Action] = []
        if not is_hidden(tile) and self._can_ron(cue, tile):
            acts.append(Ron())
        if cue.kind == "discard":
            acts += self._call_options(tile)
        return acts

    def _can_ron(self, cue: Cue, tile: Tile) -> bool:
        hand_waits = self._waits()
        if kind_of(tile) not in hand_waits or self._furiten(hand_waits):
            return False
        if cue.kind == "ankan" and not self.rules.kokushi_robs_ankan:
            return False
        score = self._score([*self.view.hand, tile], tile, tsumo=False, kind=cue.kind)
        if score is None:
            return False
        return cue.kind != "ankan" or any(y in ("kokushi", "kokushi_13") for y, _ in score.yaku)

    def _call_options(self, tile: Tile) -> list[Action]:
        v = self.view
        four_kan_abort = len(self._kan_owners) == MAX_KANS and len(set(self._kan_owners)) > 1
        if v.riichi[self.seat] or v.live_left < 1 or four_kan_abort:
            return []
        kind = kind_of(tile)
        mine = [t for t in v.hand if kind_of(t) == kind]
        acts: list[Action] = []
        if len(mine) >= 2 and len(v.hand) > len(mine):
            reds = sum(is_red(t, self.rules.red_fives) for t in mine)
            plain = len(mine) - reds
            if reds and plain >= 1:
                acts.append(Pon(kind, red=True))
            if plain >= 2:
                acts.append(Pon(kind, red=False))
        if len(mine) == 3 and len(self._kan_owners) < MAX_KANS:
            acts.append(Kan(kind))
        return acts


def _keeps_window(event: Event) -> bool:
    """A kan dora may follow a kita or a kan in mjai's order before the window is decided."""
    return isinstance(event, DoraRevealed)
