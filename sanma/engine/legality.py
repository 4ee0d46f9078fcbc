"""The legality rules, written once: what one seat may do, from what that seat knows.

Every rule that decides a legal action lives here (spec sections 2-5, 8): which discards,
riichi discards, kans and kita a turn offers, when tsumo, ron and nine terminals are
allowed, which pons and open kans a discard offers, furiten, waits, and the ``WinContext``
a win is scored with.  The rules read ``SeatFacts``: one seat's own tiles and flags plus
public table facts.  Nothing here needs another seat's hidden tiles, so the same functions
serve the engine (``Kyoku`` reads the facts from its full state) and a bot that sees only
its own seat (``view.SeatView`` folds them from the seat's events); ``seat.Facts`` is the
one ``SeatFacts``, reading either.

Two outcomes of a window are also rules the two folds share: ``passes_up_win`` (letting
the window go makes the seat furiten) and ``declines_winning_draw`` (a riichi seat that
lets its winning draw go is furiten for the rest of the hand).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Literal, Protocol

from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pass, Pon, Ron, Tsumo
from sanma.engine.context import WinContext
from sanma.engine.errors import NotWinning, NoYaku
from sanma.engine.furiten import kan_keeps_readings
from sanma.engine.hand import Meld, MeldType
from sanma.engine.rules import Rules
from sanma.engine.scoring import Score, score_win
from sanma.engine.shanten import is_complete, shanten, waits
from sanma.engine.tiles import (
    KIND_COUNT,
    NORTH,
    TERMINAL_HONOR_KINDS,
    Tile,
    TileKind,
    counts_of_tiles,
    is_red,
    kind_of,
    seat_wind,
)
from sanma.engine.visibility import is_hidden

MAX_KANS: Final = 4
RIICHI_COST: Final = 1000
RIICHI_MIN_LIVE: Final = 3
NINE_TERMINALS_MIN: Final = 9
KOKUSHI_YAKU: Final = ("kokushi", "kokushi_13")

WindowKind = Literal["discard", "kakan", "ankan", "kita"]
CueKind = Literal["draw", "pon", "discard", "kakan", "ankan", "kita"]
FuritenState = Literal["none", "discard", "temporary", "riichi"]
WINDOW_KINDS: Final = ("discard", "kakan", "ankan", "kita")


# -- values ----------------------------------------------------------------------------------


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
        return NO_ACTIONS

    def __contains__(self, action: object) -> bool:
        if isinstance(action, Discard):
            return (action.tile, action.riichi) in self.discard_tiles
        return action in self.actions

    def __iter__(self) -> Iterator[Action]:
        return iter(self.actions)

    def __len__(self) -> int:
        return len(self.actions)


NO_ACTIONS: Final = LegalActions()


@dataclass(frozen=True, slots=True)
class Cue:
    """What a seat is asked about: its own turn (``draw``, or after a ``pon``), or a window
    on another seat's ``tile`` (a discard, an added kan, a closed kan, a North)."""

    kind: CueKind
    seat: int
    tile: Tile | None = None


class SeatFacts(Protocol):
    """Everything legality reads: one seat's own state plus public table facts.

    ``hand`` is the seat's concealed tiles, ``drawn`` included; ``drawn`` is the tile it just
    drew (``None`` after a pon or outside its turn); ``after_pon`` the kind it just ponned
    (until its discard).  ``river`` is every tile it discarded, called ones included.
    ``first_go_around`` stays true until any call, kan or kita.  ``ura_indicators`` only
    change a win's value, never legality (a seat that cannot see them gives none).
    """

    @property
    def seat(self) -> int: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def hand(self) -> Sequence[Tile]: ...
    @property
    def drawn(self) -> Tile | None: ...
    @property
    def after_pon(self) -> TileKind | None: ...
    @property
    def melds(self) -> Sequence[Meld]: ...
    @property
    def kita_count(self) -> int: ...
    @property
    def river(self) -> Iterable[Tile]: ...
    @property
    def points(self) -> int: ...
    @property
    def riichi(self) -> bool: ...
    @property
    def double_riichi(self) -> bool: ...
    @property
    def ippatsu(self) -> bool: ...
    @property
    def rinshan(self) -> bool: ...
    @property
    def has_discarded(self) -> bool: ...
    @property
    def riichi_furiten(self) -> bool: ...
    @property
    def temp_furiten(self) -> bool: ...
    @property
    def dealer(self) -> int: ...
    @property
    def round_wind(self) -> TileKind: ...
    @property
    def first_go_around(self) -> bool: ...
    @property
    def live_left(self) -> int: ...
    @property
    def kan_owners(self) -> Sequence[int]: ...
    @property
    def dora_indicators(self) -> Sequence[Tile]: ...
    @property
    def ura_indicators(self) -> Sequence[Tile]: ...
    @property
    def honba(self) -> int: ...
    @property
    def deposits(self) -> int: ...


# -- the queries --------------------------------------------------------------------------------


def legal(f: SeatFacts, cue: Cue) -> LegalActions:
    """What the seat may do at ``cue``: its own turn, or a window on ``cue.tile``."""
    if cue.kind == "draw" or cue.kind == "pon":
        return turn_legal(f)
    assert cue.tile is not None
    return window_legal(window_actions(f, cue.kind, cue.tile))


def turn_legal(f: SeatFacts) -> LegalActions:
    """The seat's own turn: after its draw, or after its pon (then only discards)."""
    if f.after_pon is not None:
        return legal_after_pon(f, f.after_pon)
    return legal_after_draw(f)


def window_legal(actions: Sequence[Action]) -> LegalActions:
    """A window's choices: the options plus ``Pass`` (the default); nothing without options."""
    return LegalActions((*actions, Pass()), Pass()) if actions else NO_ACTIONS


def discard_choices(f: SeatFacts, tiles: Sequence[Tile]) -> dict[tuple[TileKind, bool], Tile]:
    """One canonical tile per (kind, red): the drawn tile if it is of that choice, else the
    lowest id."""
    red_fives = f.rules.red_fives
    out: dict[tuple[TileKind, bool], Tile] = {}
    for t in sorted(tiles):
        out.setdefault((kind_of(t), is_red(t, red_fives)), t)
    drawn = f.drawn
    if drawn is not None and drawn in tiles:
        out[(kind_of(drawn), is_red(drawn, red_fives))] = drawn
    return out


def legal_after_pon(f: SeatFacts, called: TileKind) -> LegalActions:
    """Only discards, none of the called kind (no kuikae); the default is the last tile of
    the sorted hand that may go."""
    allowed = [t for t in f.hand if kind_of(t) != called]
    choices = discard_choices(f, allowed)
    actions = tuple(Discard(t) for t in sorted(choices.values()))
    last = max(allowed)
    default = Discard(choices[(kind_of(last), is_red(last, f.rules.red_fives))])
    return LegalActions(actions, default, frozenset((t, False) for t in allowed))


def legal_after_draw(f: SeatFacts) -> LegalActions:
    """Tsumo, nine terminals, discards (riichi ones too), kans and kita; the default is
    the drawn tile's discard."""
    drawn = f.drawn
    assert drawn is not None
    hand = f.hand
    actions: list[Action] = []
    if tsumo_score(f) is not None:
        actions.append(Tsumo())
    if can_nine_terminals(f):
        actions.append(NineTerminals())
    if f.riichi:
        actions.append(Discard(drawn))
        discard_tiles = {(drawn, False)}
    else:
        red_fives = f.rules.red_fives
        choices = discard_choices(f, hand)
        actions += [Discard(t) for t in sorted(choices.values())]
        discard_tiles = {(t, False) for t in hand}
        if may_declare_riichi(f) and shanten(counts_of_tiles(hand), len(f.melds)) <= 0:
            for (k, red), t in sorted(choices.items(), key=lambda kv: kv[1]):
                if hand_waits(f, without=t):
                    actions.append(Discard(t, riichi=True))
                    discard_tiles |= {(x, True) for x in hand if kind_of(x) == k and is_red(x, red_fives) == red}
    actions += [Kan(k) for k in kan_kinds(f)]
    if can_kita(f):
        actions.append(Kita())
    return LegalActions(tuple(actions), Discard(drawn), frozenset(discard_tiles))


def window_actions(
    f: SeatFacts, kind: WindowKind, tile: Tile, waits_now: Sequence[TileKind] | None = None
) -> list[Action]:
    """The seat's options (without ``Pass``) in a window on ``tile``: ron, and on a discard
    the pons and the open kan.  ``waits_now`` saves recomputing the seat's waits."""
    if waits_now is None:
        waits_now = hand_waits(f)
    acts: list[Action] = []
    if ron_score(f, kind, tile, waits_now) is not None:
        acts.append(Ron())
    if kind == "discard":
        acts += call_options(f, tile)
    return acts


# -- the rules ------------------------------------------------------------------------------------


def hand_waits(f: SeatFacts, without: Tile | None = None) -> tuple[TileKind, ...]:
    """Waits by shape of the seat's 13-3m concealed tiles (optionally without one tile); a
    kind whose four copies the seat owns (hand, melds, kita; ``_blocking``) is never a wait."""
    hand, melds = f.hand, f.melds
    nmelds = len(melds)
    if len(hand) - (without is not None) != 13 - 3 * nmelds:
        return ()
    counts = counts_of_tiles(hand)
    if without is not None:
        counts[kind_of(without)] -= 1
    shape_waits = _cached_waits(tuple(counts), nmelds)
    if not shape_waits:
        return ()
    # Completion is a matter of shape, so filtering the kinds whose four copies the seat
    # owns gives what ``waits(..., own)`` gives, without its slower capped search.
    own = _blocking(f, counts)
    return tuple(k for k in shape_waits if own[k] < 4)


def owned_counts(f: SeatFacts, without: Tile | None = None) -> list[int]:
    """Copies of each kind the seat owns that rule a wait out: concealed (optionally without
    one tile), melds, kita (``_blocking``)."""
    counts = counts_of_tiles(f.hand)
    if without is not None:
        counts[kind_of(without)] -= 1
    return _blocking(f, counts)


def furiten(f: SeatFacts, waits_now: Sequence[TileKind]) -> FuritenState:
    """Why the seat may not ron now, if it may not: riichi, discard or temporary furiten."""
    if f.riichi_furiten:
        return "riichi"
    if waits_now:
        river_kinds = {kind_of(t) for t in f.river}
        if any(k in river_kinds for k in waits_now):
            return "discard"
    if f.temp_furiten:
        return "temporary"
    return "none"


def win_context(f: SeatFacts, *, tsumo: bool, kind: WindowKind | None, nearest: bool = True) -> WinContext:
    """Every ``WinContext`` flag of a win now (``kind`` is the window of a ron); ``nearest``
    is false for the farther winner of a double ron (no honba, no deposits)."""
    rinshan = f.rinshan
    first_draw = tsumo and first_turn(f) and not rinshan
    riichi = f.riichi
    seat, dealer, live_left = f.seat, f.dealer, f.live_left
    return WinContext(
        tsumo=tsumo,
        riichi=riichi,
        double_riichi=f.double_riichi,
        ippatsu=f.ippatsu and (kind != "kita" or f.rules.kita_ron_keeps_ippatsu),
        rinshan=tsumo and rinshan,
        chankan=kind in ("kakan", "ankan"),
        haitei=tsumo and not rinshan and live_left == 0,
        houtei=kind == "discard" and live_left == 0,
        tenhou=first_draw and seat == dealer,
        chiihou=first_draw and seat != dealer,
        seat_wind=seat_wind(seat, dealer),
        round_wind=f.round_wind,
        dora_indicators=tuple(kind_of(t) for t in f.dora_indicators if not is_hidden(t)),
        ura_indicators=tuple(kind_of(t) for t in f.ura_indicators) if riichi else (),
        kita=f.kita_count,
        honba=f.honba if nearest else 0,
        deposits=f.deposits if nearest else 0,
    )


def win_score(f: SeatFacts, tile: Tile, *, tsumo: bool, kind: WindowKind | None, nearest: bool = True) -> Score | None:
    """The score of a win on ``tile`` (for a tsumo already in hand), or ``None`` when the
    tiles are not complete or have no yaku."""
    concealed = list(f.hand)
    if not tsumo:
        concealed.append(tile)
    ctx = win_context(f, tsumo=tsumo, kind=kind, nearest=nearest)
    try:
        return score_win(concealed, tile, f.melds, ctx, f.rules)
    except (NotWinning, NoYaku):
        return None


def yaku_waits(f: SeatFacts, waits_now: Sequence[TileKind]) -> tuple[TileKind, ...]:
    """The waits on which a win would have a yaku.  A closed hand always has one there (riichi
    or a self-draw), so all of them; an open hand only where a ron on that kind scores now
    (the shape completes on the others, but the hand may not win on them)."""
    if not any(m.type is not MeldType.ANKAN for m in f.melds):
        return tuple(waits_now)
    concealed = list(f.hand)
    if f.drawn is not None and len(concealed) % 3 == 2:
        concealed.remove(f.drawn)  # the waits are those of the hand without the tile just drawn
    owned = set(concealed) | {t for m in f.melds for t in m.tiles}
    ctx = win_context(f, tsumo=False, kind="discard")
    out = []
    for kind in waits_now:
        # Any copy the seat does not hold: which one only changes red-five dora, never a yaku.
        tile = next(t for t in range(kind * 4, kind * 4 + 4) if t not in owned)
        try:
            score_win([*concealed, tile], tile, f.melds, ctx, f.rules)
        except (NotWinning, NoYaku):
            continue
        out.append(kind)
    return tuple(out)


def tsumo_score(f: SeatFacts) -> Score | None:
    """The score of a tsumo on the drawn tile, or ``None`` when it may not win."""
    drawn = f.drawn
    if drawn is None or not is_complete(counts_of_tiles(f.hand), len(f.melds)):
        return None
    return win_score(f, drawn, tsumo=True, kind=None)


def ron_score(f: SeatFacts, kind: WindowKind, tile: Tile, waits_now: Sequence[TileKind]) -> Score | None:
    """The score of a ron on ``tile`` in a ``kind`` window, or ``None`` when it may not win:
    not a wait, furiten, no yaku, or a closed kan that only kokushi may rob."""
    if is_hidden(tile) or kind_of(tile) not in waits_now or furiten(f, waits_now) != "none":
        return None
    if kind == "ankan" and not f.rules.kokushi_robs_ankan:
        return None
    score = win_score(f, tile, tsumo=False, kind=kind)
    if score is not None and kind == "ankan" and not any(y in KOKUSHI_YAKU for y, _ in score.yaku):
        return None
    return score


def first_turn(f: SeatFacts) -> bool:
    """The seat's first turn of an unbroken go-around (no call, kan or kita yet): what
    double riichi, nine terminals and tenhou/chiihou need."""
    return f.first_go_around and not f.has_discarded


def can_nine_terminals(f: SeatFacts) -> bool:
    """First draw of an unbroken go-around with nine distinct terminal or honor kinds."""
    if not first_turn(f) or f.rinshan:
        return False
    kinds = {kind_of(t) for t in f.hand}
    return sum(k in kinds for k in TERMINAL_HONOR_KINDS) >= NINE_TERMINALS_MIN


def may_declare_riichi(f: SeatFacts) -> bool:
    """Closed, not yet in riichi, 1,000 points and three live tiles (tenpai is checked per
    discard)."""
    return (
        not f.riichi
        and all(not m.is_open for m in f.melds)
        and f.points >= RIICHI_COST
        and f.live_left >= RIICHI_MIN_LIVE
    )


def kan_kinds(f: SeatFacts) -> list[TileKind]:
    """Closed and added kans the turn offers (a live tile left, fewer than four kans)."""
    if f.live_left < 1 or len(f.kan_owners) >= MAX_KANS:
        return []
    counts = counts_of_tiles(f.hand)
    kinds = [k for k in range(KIND_COUNT) if counts[k] == 4]
    if f.riichi:
        return [k for k in kinds if riichi_kan_ok(f, k)]
    kinds += [m.kind for m in f.melds if m.type is MeldType.PON and counts[m.kind] == 1]
    return sorted(kinds)


def riichi_kan_ok(f: SeatFacts, kind: TileKind) -> bool:
    """After riichi a closed kan must use the drawn tile and change neither the waits nor how
    the hand reads (spec 4); Tenhou asks only that the waits stay (``riichi_kan_keeps_readings``)."""
    drawn = f.drawn
    if drawn is None or kind_of(drawn) != kind:
        return False
    before = hand_waits(f, without=drawn)
    if not before:
        return False
    counts = counts_of_tiles(f.hand)
    counts[kind] -= 4
    # The waits the hand will have: the kan's four copies join the melds.
    own = _owned(counts_of_tiles(f.hand), f.melds, f.kita_count) if f.rules.melds_block_waits else counts
    after = tuple(k for k in _cached_waits(tuple(counts), len(f.melds) + 1) if own[k] < 4)
    if before != after:
        return False
    if not f.rules.riichi_kan_keeps_readings:
        return True
    base = counts_of_tiles(f.hand)
    base[kind] -= 1
    return kan_keeps_readings(base, kind, before)


def can_kita(f: SeatFacts) -> bool:
    """A North may be set aside with a live tile left; in riichi only a just-drawn one."""
    if f.live_left < 1:
        return False
    if f.riichi:
        return f.drawn is not None and kind_of(f.drawn) == NORTH
    return any(kind_of(t) == NORTH for t in f.hand)


def kita_tile(hand: Iterable[Tile], drawn: Tile | None) -> Tile:
    """Which physical North a kita sets aside: the one just drawn, else the lowest-numbered
    North in hand.  The engine and every log reader use this one rule, so a replayed log
    names the same tiles as the game (a North kept and a fresh one set aside, or the
    other way round, makes no difference to the rules but must to a tile-exact replay).

    >>> kita_tile([92, 95, 3], 95), kita_tile([93, 92, 3], 3)
    (95, 92)
    """
    if drawn is not None and kind_of(drawn) == NORTH:
        return drawn
    norths = [t for t in hand if kind_of(t) == NORTH]
    if not norths:
        raise ValueError("no North to set aside")
    return min(norths)


def four_kan_abort_pending(kan_owners: Sequence[int]) -> bool:
    """Four kans by more than one seat: the next discard aborts the hand unless ronned."""
    return len(kan_owners) == MAX_KANS and len(set(kan_owners)) > 1


def call_options(f: SeatFacts, tile: Tile) -> list[Action]:
    """Pons (with and without a red five) and the open kan a discard of ``tile`` offers."""
    if f.riichi or f.live_left < 1 or four_kan_abort_pending(f.kan_owners):
        return []
    hand = f.hand
    kind = kind_of(tile)
    mine = [t for t in hand if kind_of(t) == kind]
    acts: list[Action] = []
    # A pon must leave a tile that may be discarded (no kuikae).
    if len(mine) >= 2 and len(hand) > len(mine):
        reds = sum(is_red(t, f.rules.red_fives) for t in mine)
        plain = len(mine) - reds
        if reds and plain >= 1:
            acts.append(Pon(kind, red=True))
        if plain >= 2:
            acts.append(Pon(kind, red=False))
    if len(mine) == 3 and len(f.kan_owners) < MAX_KANS:
        acts.append(Kan(kind))
    return acts


# -- what a window or a declined draw leaves behind ----------------------------------------------


def passes_up_win(kind: WindowKind, tile: Tile, waits_now: Sequence[TileKind], options: Sequence[Action]) -> bool:
    """Whether letting this window go by makes the seat furiten: the tile is a wait by shape
    (even with no yaku or in furiten).  Only kokushi may take a closed kan's tile, so only a
    seat that could ron it passes one up.  ``options`` are the seat's ``window_actions``."""
    if is_hidden(tile) or kind_of(tile) not in waits_now:
        return False
    return kind != "ankan" or Ron() in options


def declines_winning_draw(f: SeatFacts, tile: Tile) -> bool:
    """A riichi seat that lets its winning draw go (discard or kita) is riichi furiten."""
    return f.riichi and tile == f.drawn and kind_of(tile) in hand_waits(f, without=tile)


# -- helpers ------------------------------------------------------------------------------------


def _blocking(f: SeatFacts, counts: list[int]) -> list[int]:
    """The copies that rule a wait out: every copy the seat owns (spec 5), or with
    ``melds_block_waits`` off (Tenhou) only those in ``counts``, the concealed hand."""
    return _owned(counts, f.melds, f.kita_count) if f.rules.melds_block_waits else list(counts)


def _owned(counts: list[int], melds: Sequence[Meld], kita: int) -> list[int]:
    own = list(counts)
    for meld in melds:
        own[meld.kind] += len(meld.tiles)
    own[NORTH] += kita
    return own


@lru_cache(maxsize=1 << 16)
def _cached_waits(counts: tuple[int, ...], melds: int) -> tuple[TileKind, ...]:
    """``shanten.waits`` memoised: the same hands recur across the seats, copies and checks."""
    return tuple(waits(counts, melds))
