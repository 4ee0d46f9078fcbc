"""The scored win as frozen values: ``Score`` and ``Payments``, and ``score_win``, which builds
them with ``scoring``'s scorer.  Re-exported by ``scoring``, which is where to import them from
(a module of its own so that ``sanma score``, which writes the scorer's plain values, does not
create these dataclasses at start-up; see ``lazy``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sanma.engine.reading import Reading
from sanma.engine.scoring import _tsumo_shares, score_values
from sanma.engine.tiles import Tile, TileKind
from sanma.engine.yaku import YAKUMAN_NAMES, fu_breakdown

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from sanma.engine.hand import Meld
    from sanma.engine.rules import Rules
    from sanma.engine.win_context import WinContext
    from sanma.engine.yaku import Parts


@dataclass(frozen=True, slots=True)
class Payments:
    """What each payer pays, honba included.  Exactly one shape is used per win:
    ``ron`` from the discarder; on a non-dealer's tsumo ``dealer`` and ``non_dealer``;
    on the dealer's tsumo ``non_dealer`` from each of the two others."""

    ron: int = 0
    dealer: int = 0
    non_dealer: int = 0

    def as_dict(self, tsumo: bool, winner_is_dealer: bool) -> dict[str, int]:
        """The ``payments`` object of ``sanma score`` (spec/cli.md)."""
        if not tsumo:
            return {"ron": self.ron}
        if winner_is_dealer:
            return {"non_dealer": self.non_dealer}
        return {"dealer": self.dealer, "non_dealer": self.non_dealer}

    def total(self, tsumo: bool, winner_is_dealer: bool) -> int:
        """Everything the payers hand over together."""
        if not tsumo:
            return self.ron
        if winner_is_dealer:
            return 2 * self.non_dealer
        return self.dealer + self.non_dealer


@dataclass(frozen=True, slots=True)
class Score:
    """The scored win.  ``yakuman`` is the multiplier (0 for a normal hand); a true yakuman
    reports ``han = 13 * yakuman`` and ``fu = 0``; a counted yakuman its real han and fu."""

    han: int
    fu: int
    yakuman: int
    limit: str
    yaku: tuple[tuple[str, int], ...]
    base: int
    payments: Payments
    total: int
    # How the chosen reading was built: (reading parts, winning kind, context, melds);
    # ``reading`` turns it into a ``Reading`` on demand (kept raw because most callers never
    # look at it and building it costs time).
    detail: tuple[object, ...] = field(default=(), repr=False, compare=False)

    @property
    def counted_yakuman(self) -> bool:
        """A yakuman by count (13 han or more of normal yaku and dora), not by a yakuman yaku."""
        return self.yakuman > 0 and not any(name in YAKUMAN_NAMES for name, _ in self.yaku)

    @property
    def reading(self) -> Reading | None:
        """The decomposition and wait the score was taken from."""
        if not self.detail:
            return None
        from typing import cast  # here: only a reader of the reading needs it

        parts, win_kind, ctx, melds = cast("tuple[Parts, TileKind, WinContext, Sequence[Meld]]", self.detail)
        return Reading(*parts, win_kind, ctx.tsumo, ctx.seat_wind, ctx.round_wind, tuple(melds))  # type: ignore[arg-type]

    @property
    def fu_breakdown(self) -> tuple[tuple[str, int], ...]:
        """The fu as ``(reason, fu)`` items summing to ``fu`` (empty for a true yakuman)."""
        reading = self.reading
        if reading is None or (self.yakuman and not self.fu):
            return ()
        return fu_breakdown(reading, self.fu)


def tsumo_payments(base: int, winner_is_dealer: bool, honba: int) -> Payments:
    """Tsumo loss: each of the two payers pays its four-player share (dealer 2x, others 1x
    base, rounded up to 100) plus 100 per honba.

    >>> tsumo_payments(1920, False, 1)
    Payments(ron=0, dealer=4000, non_dealer=2100)
    """
    dealer, non_dealer = _tsumo_shares(base, winner_is_dealer, honba)
    return Payments(dealer=dealer, non_dealer=non_dealer)


def score_win(concealed: Sequence[Tile], win_tile: Tile, melds: Sequence[Meld], ctx: WinContext, rules: Rules) -> Score:
    """Score a win.  ``concealed`` includes ``win_tile``; tiles are physical, so red fives count.

    Every reading of the hand is scored and the one that pays the most is kept (at equal
    payment a true yakuman before a counted one, then more han, then more fu).

    Raises ``InvalidHand`` for impossible input, ``NotWinning`` when the tiles are not
    complete, ``NoYaku`` when no reading has a yaku.
    """
    han, fu, yakuman, limit, yaku, base, (ron, dealer, non_dealer), total, detail = score_values(
        concealed, win_tile, melds, ctx, rules
    )
    return Score(han, fu, yakuman, limit, yaku, base, Payments(ron, dealer, non_dealer), total, detail)
