"""The fitted models of the expected-value master (``sanma.bots.ev``).

Each model is a small table fitted on our own self-play (``bench/ev_fit.py``: the logs
hold every hidden tile, so "was that opponent tenpai" is a fact, not a guess), stored as
JSON in ``sanma/bots/data/`` with its provenance (command, seed, samples, date):

* ``ev_tenpai.json``: the chance an opponent is tenpai, by its open calls, its discards so
  far and how many of its last three discards were the tile just drawn (riichi: 1);
  also the chance it is tenpai when the wall runs out, by riichi and calls;
* ``ev_dealin.json``: the chance a tile deals in against a tenpai opponent, by the tile's
  class (genbutsu, honors and 1m/9m by copies out, numbers by rank and suji), apart for a
  riichi and for a silent or open tenpai, a factor for dora; and what the ron pays, by
  riichi or open, dealer and the dora the winner shows;
* ``ev_hazard.json``: the chance someone else ends the hand (a ron between the other two,
  a tsumo) between two of our turns, by our discards so far, the others' riichi and ours;
  our own ron chance per go-around by live winning tiles; what another seat's win costs us;
* ``ev_placement.json``: expected final placement points from the scores and the hands
  still to play: every seat's final score is its score now plus a normal noise of
  ``sigma`` points per sqrt(hand), ``sigma`` fitted by likelihood of the final placements
  of self-play matches; the hands still to play by the dealer turns left.

Everything here reads only what a seat sees (its ``Knowledge`` and the public rivers).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from sanma.bots.heuristics import Knowledge
from sanma.engine.errors import SanmaError
from sanma.engine.tiles import EAST, P1, S1, TileKind

DATA = Path(__file__).resolve().parent / "data"
MODEL_NAMES = ("tenpai", "dealin", "hazard", "placement")
TURN_CAP = 18  # discards: later turns share the last bucket
PROVENANCE_KEYS = ("command", "seed", "samples", "date")


class ModelError(SanmaError):
    """A parameter file is missing, unreadable or lacks a field."""


def load(name: str, data_dir: Path = DATA) -> dict[str, Any]:
    """The parameter file ``ev_<name>.json``, its provenance checked."""
    path = data_dir / f"ev_{name}.json"
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ModelError(f"cannot read {path}: {exc}") from exc
    prov = obj.get("provenance") if isinstance(obj, dict) else None
    if not isinstance(prov, dict) or any(k not in prov for k in PROVENANCE_KEYS):
        raise ModelError(f"{path} lacks provenance ({', '.join(PROVENANCE_KEYS)})")
    return obj  # type: ignore[no-any-return]


# -- features ------------------------------------------------------------------------------


def turn_bucket(discards: int) -> int:
    """Discards so far, capped."""
    return min(discards, TURN_CAP)


def tenpai_key(calls: int, discards: int, tsumogiri: int) -> str:
    """The tenpai table's cell of an opponent without riichi."""
    return f"{min(calls, 3)}|{turn_bucket(discards)}|{min(tsumogiri, 3)}"


def _suji_sides(n: int, base: int, safe: frozenset[TileKind]) -> tuple[int, int]:
    """(sides a two-sided wait on rank ``n`` could come from, sides killed by genbutsu)."""
    sides = [s for s in (n - 3, n + 3) if 1 <= s <= 9]
    killed = sum(1 for s in sides if base + s - 1 in safe)
    return len(sides), killed


def danger_class(k: Knowledge, kind: TileKind, safe: frozenset[TileKind]) -> str:
    """The deal-in table's class of ``kind`` against an opponent who cannot ron ``safe``.

    Honors and 1m/9m (never in a sequence in sanma) by the copies the seat cannot see;
    pin and sou by rank folded (1/9, 2/8, 3/7, 4/6, 5) and suji (none, half, full)."""
    if kind in safe:
        return "safe"
    out = max(0, 4 - k.seen_by_me(kind))
    if kind >= EAST:
        return f"honor{out}"
    if kind < P1:
        return f"man{out}"
    base = P1 if kind < S1 else S1
    n = kind - base + 1
    sides, killed = _suji_sides(n, base, safe)
    suji = "full" if killed == sides else "half" if killed else "none"
    return f"n{min(n, 10 - n)}{suji}"


def value_key(riichi: bool, open_hand: bool, dealer: bool, shown_dora: int) -> str:
    """The ron value table's cell: how the winner stood, and the dora it shows."""
    how = "riichi" if riichi else "open" if open_hand else "dama"
    return f"{how}|{int(dealer)}|{min(shown_dora, 3)}"


# -- the models ------------------------------------------------------------------------------


def _lookup(table: dict[str, list[float]], key: str, fallbacks: list[str], default: float) -> float:
    """A rate from ``table`` (``key -> [rate, samples]``), backing off to coarser cells
    while a cell holds fewer than 30 samples."""
    for k in (key, *fallbacks):
        cell = table.get(k)
        if cell is not None and cell[1] >= 30:
            return float(cell[0])
    return default


@dataclass(frozen=True, slots=True)
class TenpaiModel:
    """``ev_tenpai.json``."""

    cells: dict[str, list[float]]
    at_draw: dict[str, list[float]]

    def chance(self, riichi: bool, calls: int, discards: int, tsumogiri: int) -> float:
        """Chance an opponent is tenpai now."""
        if riichi:
            return 1.0
        c, t = min(calls, 3), turn_bucket(discards)
        return _lookup(self.cells, tenpai_key(calls, discards, tsumogiri), [f"{c}|{t}", f"{c}"], 0.1)

    def at_exhaustive_draw(self, riichi: bool, calls: int) -> float:
        """Chance an opponent is tenpai when the wall runs out (from how it stands now)."""
        key = "riichi" if riichi else f"calls{min(calls, 2)}"
        return _lookup(self.at_draw, key, [], 0.4)


@dataclass(frozen=True, slots=True)
class DealInModel:
    """``ev_dealin.json``."""

    riichi: dict[str, list[float]]
    other: dict[str, list[float]]
    dora_factor: float
    values: dict[str, list[float]]

    def chance(self, cls: str, riichi: bool, dora: bool) -> float:
        """Chance a tile of class ``cls`` deals in against a tenpai opponent."""
        table = self.riichi if riichi else self.other
        rate = _lookup(table, cls, [], 0.0 if cls == "safe" else 0.1)
        return min(1.0, rate * (self.dora_factor if dora else 1.0))

    def value(self, riichi: bool, open_hand: bool, dealer: bool, shown_dora: int) -> float:
        """What a ron by such an opponent pays, on average."""
        key = value_key(riichi, open_hand, dealer, shown_dora)
        how = key.split("|")[0]
        return _lookup(self.values, key, [f"{how}|{int(dealer)}", how], 6000.0)


@dataclass(frozen=True, slots=True)
class HazardModel:
    """``ev_hazard.json``."""

    cells: dict[str, list[float]]
    ron: dict[str, list[float]]
    other_tsumo_share: float
    tsumo_cost: dict[str, float]

    def other_end(self, discards: int, riichi_opponents: int, mine: bool = False) -> float:
        """Chance the hand ends by another seat's win before our next turn (``mine``: we
        are in riichi, and the others fold against it)."""
        t, o = turn_bucket(discards), min(riichi_opponents, 2)
        return _lookup(self.cells, f"{t}|{o}|{int(mine)}", [f"{t}|{o}", f"{t}"], 0.05)

    def ron_chance(self, live: int, riichi: bool) -> float:
        """Chance per go-around that an opponent lets go one of our ``live`` winning tiles
        (we are tenpai and not furiten)."""
        key = f"{min(live, 12)}|{int(riichi)}"
        return _lookup(self.ron, key, [f"{min(live, 12)}"], min(0.5, 0.02 * live))

    def cost_of_other_tsumo(self, dealer: bool) -> float:
        """What we pay when another seat wins by tsumo, on average."""
        return self.tsumo_cost["dealer" if dealer else "other"]


@dataclass(frozen=True, slots=True)
class PlacementModel:
    """``ev_placement.json``: a normal-noise model of the final scores."""

    sigma: float  # points of noise per sqrt(hand) on each seat's final score
    hands_left: list[float]  # expected hands still to play, by dealer turns left (index)

    def hands_after(self, dealer_turns_left: int) -> float:
        """Expected hands still to play when ``dealer_turns_left`` dealer turns remain."""
        if dealer_turns_left <= 0:
            return 0.0
        i = min(dealer_turns_left, len(self.hands_left) - 1)
        return self.hands_left[i]

    def rank_chances(self, scores: tuple[int, int, int], seat: int, hands: float) -> tuple[float, float, float]:
        """Chances ``seat`` finishes 1st, 2nd, 3rd."""
        return _rank_chances(scores, seat, round(hands, 1), self.sigma)

    def value(self, scores: tuple[int, int, int], seat: int, hands: float, uma: tuple[int, ...], back: int) -> float:
        """Expected final placement points (thousands above ``back``, uma included)."""
        p = self.rank_chances(scores, seat, hands)
        return (scores[seat] - back) / 1000 + sum(u * q for u, q in zip(uma, p, strict=False))


def _normal_nodes(count: int = 25, reach: float = 3.6) -> list[tuple[float, float]]:
    """Points and weights for E[f(Z)], Z ~ N(0, 1): an even grid weighted by the density."""
    xs = [-reach + 2 * reach * i / (count - 1) for i in range(count)]
    ws = [math.exp(-x * x / 2) for x in xs]
    total = sum(ws)
    return [(x, w / total) for x, w in zip(xs, ws, strict=True)]


_NODES = _normal_nodes()


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@lru_cache(maxsize=65536)
def _rank_chances(scores: tuple[int, int, int], seat: int, hands: float, sigma: float) -> tuple[float, float, float]:
    others = [scores[s] for s in range(3) if s != seat]
    me = scores[seat]
    spread = sigma * math.sqrt(hands)
    if spread < 1.0:  # the match is decided: ties go to the seat nearer the first dealer
        above = sum(1 for s in range(3) if s != seat and (scores[s] > me or (scores[s] == me and s < seat)))
        return tuple(1.0 if above == i else 0.0 for i in range(3))  # type: ignore[return-value]
    first = last = 0.0
    for z, w in _NODES:
        x = me + spread * z
        beat = [_phi((x - o) / spread) for o in others]
        first += w * beat[0] * beat[1]
        last += w * (1 - beat[0]) * (1 - beat[1])
    return first, max(0.0, 1.0 - first - last), last


@dataclass(frozen=True, slots=True)
class Models:
    """All four models."""

    tenpai: TenpaiModel
    dealin: DealInModel
    hazard: HazardModel
    placement: PlacementModel


@cache
def models(data_dir: Path = DATA) -> Models:
    """The four models from their parameter files (loaded once)."""
    t, d, h, p = (load(n, data_dir) for n in MODEL_NAMES)
    try:
        return Models(
            TenpaiModel(t["cells"], t["at_draw"]),
            DealInModel(d["riichi"], d["other"], float(d["dora_factor"]), d["values"]),
            HazardModel(h["cells"], h["ron"], float(h["other_tsumo_share"]), h["tsumo_cost"]),
            PlacementModel(float(p["sigma"]), [float(x) for x in p["hands_left"]]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"a parameter file in {data_dir} lacks a field: {exc}") from exc
