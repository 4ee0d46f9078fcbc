"""Point movements at the end of a hand: wins (with pao), noten payments, nagashi mangan.

Every function returns three deltas in seat order.  Riichi deposits put down during the
hand are not in these deltas (they are paid when the riichi is accepted); the deposits a
winner collects are.  See sanma-rules.md sections 6 (pao) and 7.
"""

from __future__ import annotations

from collections.abc import Collection

from sanma.engine.scoring import ron_payment, tsumo_payments
from sanma.engine.tiles import SEATS

NOTEN_POOL = 2000
NAGASHI_BASE = 2000  # a mangan


def _half_up(points: int) -> int:
    """Half of a payment, rounded up to 100 (pao halves are even for every yakuman)."""
    return -(-points // 200) * 100


def tsumo_owed(base: int, winner: int, dealer: int, honba: int) -> dict[int, int]:
    """What each of the two payers owes on a tsumo (tsumo loss: the fourth share is not paid)."""
    pay = tsumo_payments(base, winner == dealer, honba)
    return {s: (pay.dealer if s == dealer else pay.non_dealer) for s in SEATS if s != winner}


def win_deltas(
    base: int, winner: int, from_seat: int, dealer: int, honba: int, deposits: int, pao_seat: int | None
) -> tuple[int, int, int]:
    """Deltas of one win.  ``honba`` and ``deposits`` are what this winner collects (0 for
    the farther winner of a double ron).  A liable (pao) seat pays the whole tsumo, or half
    of a ron by someone else's discard (honba from the discarder)."""
    deltas = [0, 0, 0]
    if from_seat == winner:
        owed = tsumo_owed(base, winner, dealer, honba)
        total = sum(owed.values())
        if pao_seat is not None and pao_seat != winner:
            deltas[pao_seat] -= total
        else:
            for payer, amount in owed.items():
                deltas[payer] -= amount
    else:
        total = ron_payment(base, winner == dealer, honba)
        if pao_seat is not None and pao_seat not in (winner, from_seat):
            half = _half_up(ron_payment(base, winner == dealer, 0))
            deltas[pao_seat] -= half
            deltas[from_seat] -= total - half
        else:
            deltas[from_seat] -= total
    deltas[winner] += total + 1000 * deposits
    return (deltas[0], deltas[1], deltas[2])


def noten_deltas(tenpai: Collection[int]) -> tuple[int, int, int]:
    """The 2,000 noten pool: one tenpai takes 1,000 from each noten seat; two tenpai take
    1,000 each from the noten seat; all or none tenpai: nothing moves."""
    if len(tenpai) in (0, 3):
        return (0, 0, 0)
    noten = [s for s in SEATS if s not in tenpai]
    gain = NOTEN_POOL // len(tenpai)
    loss = NOTEN_POOL // len(noten)
    d = [gain if s in tenpai else -loss for s in SEATS]
    return (d[0], d[1], d[2])


def nagashi_deltas(seats: Collection[int], dealer: int) -> tuple[int, int, int]:
    """Each nagashi seat receives a mangan tsumo (tsumo loss, no honba)."""
    d = [0, 0, 0]
    for seat in seats:
        for payer, amount in tsumo_owed(NAGASHI_BASE, seat, dealer, 0).items():
            d[payer] -= amount
            d[seat] += amount
    return (d[0], d[1], d[2])
