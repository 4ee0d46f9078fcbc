"""A seat's view as numbers: tile-kind planes, a scalar vector and a fixed action space.

``encode(view)`` gives ``PLANE_COUNT`` planes over the 27 sanma kinds (small counts and
flags, ``uint8``), ``scalars(view)`` the features that belong to no kind (scores, winds,
sticks...), ``legal_mask(view, legal)`` the engine's legal actions as a boolean vector over
``ACTION_COUNT`` indices and ``action_index``/``action_of`` map one action both ways.
Seats are relative to the viewer (0 itself, 1 the next seat, 2 the one before), so one
policy plays every seat.  Only ``SeatView`` is read: nothing a bot cannot see.

``augment`` relabels kinds without changing the game: pinzu <-> souzu, and the cyclic shifts
of the dragons (the only dragon permutations that keep the dora order 5z -> 6z -> 7z -> 5z).
Ryuuiisou (souzu and 6z only) is the one rule either breaks; it is rare enough to accept.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pass, Pon, Ron, Tsumo
from sanma.engine.events import Event, KitaDeclared, MeldCalled, TileDiscarded
from sanma.engine.hand import MeldType
from sanma.engine.kyoku import LegalActions
from sanma.engine.tiles import (
    EAST,
    GREEN,
    KIND_COUNT,
    P1,
    RED,
    S1,
    SEAT_COUNT,
    SEATS,
    WHITE,
    Tile,
    dora_of,
    is_red,
    kind_of,
    seat_wind,
)
from sanma.engine.view import SeatView

RIVER_BUCKET: Final = 6  # discards 0-5, 6-11, 12-17, 18+ fall in four order buckets
RIVER_BUCKETS: Final = 4


def _seat_planes(rel: int) -> dict[str, int]:
    base = 7 + 9 * rel
    names = ("river0", "river1", "river2", "river3", "tsumogiri", "riichi_tile", "called", "last", "meld")
    return {f"{name}@{rel}": base + i for i, name in enumerate(names)}


# plane name -> index; "@r" is the relative seat
PLANES: Final[dict[str, int]] = {
    "hand1": 0, "hand2": 1, "hand3": 2, "hand4": 3,  # own concealed count >= 1..4
    "red": 4,  # own red five of that kind
    "drawn": 5,  # the tile just drawn
    "offered": 6,  # the tile a window asks about (a discard, an added kan's tile, a North)
    **_seat_planes(0), **_seat_planes(1), **_seat_planes(2),  # 7..33: rivers and melds (tiles in melds)
    "kan@0": 34, "kan@1": 35, "kan@2": 36,  # kinds each seat holds a kan of
    "indicator": 37,  # dora indicators (count)
    "dora": 38,  # dora value of one copy of the kind (indicators pointing at it)
    "seen1": 39, "seen2": 40, "seen3": 41, "seen4": 42,  # own hand + face up >= 1..4
    "seat_wind": 43,
    "round_wind": 44,
    "safe@1": 45, "safe@2": 46,  # passed by each opponent (its river; after its riichi, all rivers)
}  # fmt: skip
PLANE_COUNT: Final = 47

SCALAR_NAMES: Final = (
    *(f"{name}@{r}" for r in SEATS for name in (
        "score", "first", "second", "third", "riichi", "hand_size", "kita", "melds", "dealer")),
    "round_east", "round_south", "round_west", "honba", "deposits", "live_left", "dora_count",
    "hand_number", "window", "own_reds", "own_river",
)  # fmt: skip
SCALAR_COUNT: Final = len(SCALAR_NAMES)

# -- the action space ---------------------------------------------------------------------
# A discard is its kind and whether it is the drawn tile (tsumogiri); red fives share their
# kind's index (``action_of`` keeps the red one when a plain copy can go instead).
DISCARD: Final = 0  # + 2 * kind + tsumogiri
RIICHI: Final = DISCARD + 2 * KIND_COUNT  # + 2 * kind + tsumogiri
PON: Final = RIICHI + 2 * KIND_COUNT  # + kind
KAN: Final = PON + KIND_COUNT  # + kind (closed, added or open: the engine's ``Kan``)
KITA: Final = KAN + KIND_COUNT
WIN: Final = KITA + 1  # tsumo or ron
NINE_TERMINALS: Final = WIN + 1
PASS: Final = NINE_TERMINALS + 1
ACTION_COUNT: Final = PASS + 1


def action_index(action: Action, drawn: Tile | None) -> int:
    """The index of ``action``; ``drawn`` (the seat's drawn tile) tells tsumogiri apart."""
    if isinstance(action, Discard):
        base = RIICHI if action.riichi else DISCARD
        return base + 2 * kind_of(action.tile) + (action.tile == drawn)
    if isinstance(action, Pon):
        return PON + action.kind
    if isinstance(action, Kan):
        return KAN + action.kind
    if isinstance(action, Kita):
        return KITA
    if isinstance(action, Tsumo | Ron):
        return WIN
    if isinstance(action, NineTerminals):
        return NINE_TERMINALS
    if isinstance(action, Pass):
        return PASS
    raise TypeError(f"not an action: {action!r}")


def legal_mask(view: SeatView, legal: LegalActions) -> np.ndarray:
    """Which indices the engine allows now (``bool``, ``ACTION_COUNT``)."""
    mask = np.zeros(ACTION_COUNT, dtype=bool)
    for tile, riichi in legal.discard_tiles:
        mask[action_index(Discard(tile, riichi), view.drawn)] = True
    for action in legal.actions:
        if not isinstance(action, Discard):
            mask[action_index(action, view.drawn)] = True
    return mask


def action_of(index: int, view: SeatView, legal: LegalActions) -> Action:
    """The engine action an index stands for now (``ValueError`` when it is not legal)."""
    if DISCARD <= index < PON:
        riichi = index >= RIICHI
        kind, tsumogiri = divmod(index - (RIICHI if riichi else DISCARD), 2)
        same = [t for t, r in legal.discard_tiles if r == riichi and kind_of(t) == kind]
        # a plain five before the red one
        tiles = sorted((t for t in same if (t == view.drawn) == tsumogiri), key=lambda t: (is_red(t), t))
        if tiles:
            return Discard(tiles[0], riichi=riichi)
    else:
        for action in legal.actions:
            if action_index(action, view.drawn) == index:
                return action
    raise ValueError(f"action index {index} is not legal now")


# -- the planes and scalars -------------------------------------------------------------------


def _relative(view: SeatView) -> list[int]:
    me = view.seat if view.seat is not None else 0
    return [(me + r) % SEAT_COUNT for r in SEATS]


def encode(view: SeatView, offered: Tile | None = None) -> np.ndarray:
    """The view as ``(PLANE_COUNT, 27)`` ``uint8`` planes; ``offered`` is the tile a window
    asks about (``offered_tile`` of the last event), ``None`` on the seat's own turn."""
    planes = np.zeros((PLANE_COUNT, KIND_COUNT), dtype=np.uint8)
    red_fives = view.rules.red_fives if view.rules is not None else True
    own = [0] * KIND_COUNT
    for t in view.hand:
        own[kind_of(t)] += 1
        if is_red(t, red_fives):
            planes[PLANES["red"], kind_of(t)] = 1
    counts = np.array(own)
    for n in range(4):
        planes[n] = counts > n
    if view.drawn is not None:
        planes[PLANES["drawn"], kind_of(view.drawn)] = 1
    if offered is not None:
        planes[PLANES["offered"], kind_of(offered)] = 1
    seats = _relative(view)
    for rel, seat in enumerate(seats):
        _seat(planes, view, rel, seat)
    for rel in (1, 2):
        _safe(planes, view, rel, seats)
    for t in view.dora_indicators:
        if t >= 0:
            planes[PLANES["indicator"], kind_of(t)] += 1
            planes[PLANES["dora"], dora_of(kind_of(t))] += 1
    seen = np.array(view.seen_counts())
    for n in range(4):
        planes[PLANES["seen1"] + n] = seen > n
    planes[PLANES["seat_wind"], seat_wind(seats[0], view.dealer)] = 1
    planes[PLANES["round_wind"], view.round_wind] = 1
    return planes


def _seat(planes: np.ndarray, view: SeatView, rel: int, seat: int) -> None:
    river = view.rivers[seat]
    for i, r in enumerate(river):
        k = kind_of(r.tile)
        planes[PLANES[f"river{min(i // RIVER_BUCKET, RIVER_BUCKETS - 1)}@{rel}"], k] += 1
        planes[PLANES[f"tsumogiri@{rel}"], k] += r.tsumogiri
        planes[PLANES[f"riichi_tile@{rel}"], k] |= r.riichi
        planes[PLANES[f"called@{rel}"], k] += r.called
    if river:
        planes[PLANES[f"last@{rel}"], kind_of(river[-1].tile)] = 1
    for m in view.melds[seat]:
        planes[PLANES[f"meld@{rel}"], m.kind] += len(m.tiles)
        if m.type is not MeldType.PON:
            planes[PLANES[f"kan@{rel}"], m.kind] = 1


def _safe(planes: np.ndarray, view: SeatView, rel: int, seats: list[int]) -> None:
    """Kinds opponent ``rel`` cannot ron on from its own river (furiten), and after its riichi
    every discard of the others.  The view keeps no order across rivers, so "after" is read
    from turn order: a seat later in the turn from the declarer passed a tile after it when
    its discard's index is at least the declaration's (exact unless calls skipped turns)."""
    seat = seats[rel]
    river = view.rivers[seat]
    row = planes[PLANES[f"safe@{rel}"]]
    for r in river:
        row[kind_of(r.tile)] = 1
    declared = next((i for i, r in enumerate(river) if r.riichi), None)
    if declared is None:
        return
    for other in SEATS:
        if other != seat:
            for r in view.rivers[other][declared:]:
                row[kind_of(r.tile)] = 1


def scalars(view: SeatView, offered: Tile | None = None) -> np.ndarray:
    """The features that belong to no tile kind (``float32``, ``SCALAR_COUNT``)."""
    seats = _relative(view)
    out: list[float] = []
    for seat in seats:
        place = _placement(view.scores, seat)
        out += [view.scores[seat] / 100_000, place == 0, place == 1, place == 2]
        out += [view.riichi[seat], view.hand_sizes[seat] / 14, len(view.kita[seat]) / 4]
        out += [len(view.melds[seat]) / 4, seat == view.dealer]
    out += [view.round_wind == EAST + w for w in range(3)]
    out += [view.honba / 10, view.deposits / 10, view.live_left / 60, len(view.dora_indicators) / 5]
    red_fives = view.rules.red_fives if view.rules is not None else True
    own_reds = sum(is_red(t, red_fives) for t in view.hand)
    out += [view.hand_number / 10, offered is not None, own_reds / 2, len(view.rivers[seats[0]]) / 24]
    return np.array(out, dtype=np.float32)


def _placement(scores: list[int], seat: int) -> int:
    """0 first .. 2 last; a tie goes to the lower seat index."""
    return sum(s > scores[seat] or (s == scores[seat] and i < seat) for i, s in enumerate(scores))


# -- augmentation -----------------------------------------------------------------------------


def kind_permutation(swap_suits: bool, dragon_shift: int) -> np.ndarray:
    """``perm[k]``: the kind ``k`` becomes (pinzu <-> souzu when ``swap_suits``, dragons moved
    ``dragon_shift`` steps along 5z -> 6z -> 7z -> 5z)."""
    perm = np.arange(KIND_COUNT)
    if swap_suits:
        perm[P1 : P1 + 9] = np.arange(S1, S1 + 9)
        perm[S1 : S1 + 9] = np.arange(P1, P1 + 9)
    dragons = np.array([WHITE, GREEN, RED])
    perm[dragons] = dragons[(np.arange(3) + dragon_shift) % 3]
    return perm


AUGMENTATIONS: Final = tuple(kind_permutation(s, d) for s in (False, True) for d in range(3))


def action_permutation(kinds: np.ndarray) -> np.ndarray:
    """The action-index permutation a kind permutation implies (``new = perm[old]``)."""
    perm = np.arange(ACTION_COUNT)
    for k in range(KIND_COUNT):
        for tsumogiri in (0, 1):
            perm[DISCARD + 2 * k + tsumogiri] = DISCARD + 2 * kinds[k] + tsumogiri
            perm[RIICHI + 2 * k + tsumogiri] = RIICHI + 2 * kinds[k] + tsumogiri
        perm[PON + k] = PON + kinds[k]
        perm[KAN + k] = KAN + kinds[k]
    return perm


def augment(
    planes: np.ndarray, mask: np.ndarray, action: np.ndarray | int, kinds: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Planes (``(..., PLANE_COUNT, 27)``), masks and action indices relabelled by the kind
    permutation ``kinds``; the scalars need nothing.  Works on one sample or a batch."""
    actions = action_permutation(kinds)
    new_planes = np.empty_like(planes)
    new_planes[..., kinds] = planes
    new_mask = np.empty_like(mask)
    new_mask[..., actions] = mask
    return new_planes, new_mask, actions[np.asarray(action)]


def offered_tile(event: Event) -> Tile | None:
    """The tile a window after ``event`` asks about: a discard, a North set aside, an added
    kan's tile or a closed kan's (``None`` after anything else)."""
    if isinstance(event, TileDiscarded | KitaDeclared):
        return event.tile
    if isinstance(event, MeldCalled):
        meld = event.meld
        if meld.type is MeldType.KAKAN:
            return meld.added
        if meld.type is MeldType.ANKAN:
            return meld.tiles[0]
    return None
