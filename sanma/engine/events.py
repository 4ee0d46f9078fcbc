"""Events: what happened (past tense), in order.  Actions (imperative) live in actions.py.

Every event is a small frozen value.  Together the events of a hand are enough to
replay it and to show it to each seat.  Hidden information sits in clearly separate
fields so that one function (``redact(event, viewer)``) can hide it:

* ``HandStarted.hands``: seat ``s`` may see only ``hands[s]``.
* ``TileDrawn.tile``: only ``TileDrawn.seat`` may see it.
* ``MatchStarted.seed`` and ``MatchStarted.salt``: nobody until the match has ended.
* ``HandStarted.wall_digest`` is public (a hash of the deal, checkable after the hand).

Everything else is public: discards, melds, kita, dora indicators, and the hands that
a hand's end shows (``HandWon.hand``, ``HandDrawn.tenpai_hands``, ``HandAborted.hand``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sanma.engine.hand import Meld
from sanma.engine.rules import Rules
from sanma.engine.scoring import Score
from sanma.engine.tiles import Tile, TileKind
from sanma.engine.wall import LIVE_WALL_SIZE


@dataclass(frozen=True, slots=True)
class MatchStarted:
    """A match began from ``seed`` under ``rules``; walls come from ``wall_algorithm``.
    ``salt`` is the secret of its fair-wall commitment (``fairness.py``), random and as
    hidden as the seed; ``""``: none was drawn (a log from before sanma-fair-v2, whose salt
    is derived from the seed, or a match that commits to nothing)."""

    seed: int
    rules: Rules
    wall_algorithm: str
    salt: str = ""


@dataclass(frozen=True, slots=True)
class HandStarted:
    """A hand was dealt.  ``hands`` is hidden per seat; the dealer's first draw follows
    as a ``TileDrawn``.  ``scores`` are before this hand's riichi deposits."""

    round_wind: TileKind
    dealer: int
    honba: int
    deposits: int
    scores: tuple[int, int, int]
    hands: tuple[tuple[Tile, ...], tuple[Tile, ...], tuple[Tile, ...]]
    dora_indicator: Tile
    wall_digest: str
    live_size: int = LIVE_WALL_SIZE  # live wall before the deal's first draw


@dataclass(frozen=True, slots=True)
class TileDrawn:
    """``seat`` drew ``tile`` (hidden from the others); ``replacement`` for a draw from the
    dead wall after a kan or a kita."""

    seat: int
    tile: Tile
    replacement: bool = False


@dataclass(frozen=True, slots=True)
class TileDiscarded:
    """``seat`` discarded ``tile``; ``tsumogiri`` when it was the tile just drawn;
    ``riichi`` when it is the riichi declaration tile."""

    seat: int
    tile: Tile
    tsumogiri: bool
    riichi: bool = False


@dataclass(frozen=True, slots=True)
class MeldCalled:
    """``seat`` called or declared ``meld`` (pon, daiminkan, kakan or ankan)."""

    seat: int
    meld: Meld


@dataclass(frozen=True, slots=True)
class KitaDeclared:
    """``seat`` set the North ``tile`` aside as nukidora."""

    seat: int
    tile: Tile


@dataclass(frozen=True, slots=True)
class DoraRevealed:
    """A kan dora indicator was turned over."""

    indicator: Tile


@dataclass(frozen=True, slots=True)
class RiichiAccepted:
    """``seat``'s riichi discard was not ronned: its 1,000 deposit is on the table."""

    seat: int


@dataclass(frozen=True, slots=True)
class HandWon:
    """``seat`` won on ``tile`` from ``from_seat`` (itself for a tsumo).

    ``hand`` is the winner's concealed tiles without the winning tile, shown to all;
    ``ura_indicators`` are shown only for a riichi winner (else empty).  ``deltas`` are
    this win's point changes incl. honba and the deposits it collects.  A double ron is
    two ``HandWon`` events, nearest winner from the discarder first."""

    seat: int
    from_seat: int
    tile: Tile
    hand: tuple[Tile, ...]
    melds: tuple[Meld, ...]
    ura_indicators: tuple[Tile, ...]
    score: Score
    pao_seat: int | None
    deltas: tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class HandDrawn:
    """The live wall ran out (``reason`` ``"exhaustive"``).  ``tenpai_hands`` shows the
    concealed tiles of the tenpai seats only (``()`` for a noten seat)."""

    reason: str
    tenpai: tuple[int, ...]
    tenpai_hands: tuple[tuple[Tile, ...], tuple[Tile, ...], tuple[Tile, ...]]
    nagashi: tuple[int, ...]
    deltas: tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class HandAborted:
    """An abortive draw: ``"nine_terminals"`` (declared by ``seat``, whose ``hand`` is
    shown) or ``"four_kans"``.  No points move."""

    reason: str
    seat: int | None = None
    hand: tuple[Tile, ...] = ()


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """The match is over: final points (deposits left went to first place), placements
    1..3 and final scores, all in seat order.  ``reason``: ``"rules"`` (the rules ended it)
    or ``"operator"`` (``Match.end_now``: the hand in progress, if any, was abandoned); logs
    stored before the field read as ``"rules"``."""

    points: tuple[int, ...]
    placements: tuple[int, ...]
    final_scores: tuple[float, ...]
    reason: str = "rules"


KyokuEvent = (
    HandStarted
    | TileDrawn
    | TileDiscarded
    | MeldCalled
    | KitaDeclared
    | DoraRevealed
    | RiichiAccepted
    | HandWon
    | HandDrawn
    | HandAborted
)
Event = MatchStarted | KyokuEvent | MatchEnded
