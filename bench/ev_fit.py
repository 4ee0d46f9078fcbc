"""Fit the expected-value master's four models (``sanma.bots.ev_models``) on self-play.

Plays seeded East-South matches of three Experts and, at every discard, reads what the
seats see together with what the log hides (every hand is known here):

* tenpai: for both other seats, calls, discards, tsumogiri among the last three, and
  whether the real hand is tenpai (the engine's shanten); at an exhaustive draw, who was;
* deal-in: for every kind in the discarder's hand and every other seat really tenpai,
  the tile's class (``danger_class``) and whether it is one of that seat's waits; every
  ron's payment by how the winner stood (riichi, open, dealer, shown dora);
* hazard: after each discard that was not ronned, whether another seat ended the hand
  before the discarder's next turn (by its discards, the others' riichi and its own); for
  a discarder tenpai and not furiten, whether one of its waits came out of another hand in
  that go-around; what another seat's tsumo cost;
* placement: at each hand's start the scores and dealer turns left, and the match's final
  placements; ``sigma`` is the normal-noise scale that gives the observed placements the
  highest likelihood.

Writes ``sanma/bots/data/ev_{tenpai,dealin,hazard,placement}.json`` with provenance and
prints the calibration tables (predicted against observed, by bucket) that
``docs/bots.md`` shows.

    nice -n 10 .venv/bin/python bench/ev_fit.py --matches 300 --seed 9000 --workers 1
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanma.bots.base import Player, ask
from sanma.bots.defence import safe_kinds
from sanma.bots.ev_models import (
    DATA,
    PlacementModel,
    danger_class,
    tenpai_key,
    turn_bucket,
    value_key,
)
from sanma.bots.heuristics import dora_counts, know
from sanma.bots.registry import make_bot
from sanma.engine.events import (
    HandDrawn,
    HandStarted,
    HandWon,
    KitaDeclared,
    MatchEnded,
    MeldCalled,
    RiichiAccepted,
    TileDiscarded,
    TileDrawn,
)
from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.engine.shanten import shanten, waits
from sanma.engine.tiles import EAST, KIND_COUNT, NORTH, is_red
from sanma.engine.visibility import redact

Tally = dict[str, Counter[str]]  # table -> key -> count; rates are "<key>#hit" / "<key>#n"


def _hit(tally: Tally, table: str, key: str, hit: bool | float) -> None:
    tally[table][key + "#n"] += 1
    tally[table][key + "#hit"] += float(hit)  # type: ignore[assignment]


class Probe:
    """One match's running state: the real hands (from the match), the public facts."""

    def __init__(self, match: Match, bots: list[Player]) -> None:
        self.match, self.bots = match, bots
        self.kyoku = match.kyoku  # the hand the events at hand belong to (apply may start the next)
        self.tally: Tally = defaultdict(Counter)
        self.placement_rows: list[tuple[tuple[int, int, int], int, int]] = []  # scores, dealer turns left, hand no
        self.final: tuple[int, ...] = ()
        self.hand_no = 0
        self._reset()

    def _reset(self) -> None:
        self.riichi = [False] * 3
        self.calls = [0] * 3
        self.rivers: list[list[bool]] = [[], [], []]
        self.pending_end: dict[int, str] = {}  # seat -> hazard key awaiting its next turn
        self.pending_ron: dict[int, tuple[str, frozenset[int]]] = {}  # seat -> (key, waits)

    def tenpai_waits(self, seat: int) -> tuple[int, ...] | None:
        """The seat's waits when its (13-tile) hand is tenpai, else None."""
        kyoku = self.kyoku
        hand, melds = kyoku.hand(seat), kyoku.melds(seat)
        if len(hand) + 3 * len(melds) != 13:
            return None
        counts = [0] * KIND_COUNT
        for t in hand:
            counts[t >> 2] += 1
        if shanten(counts, len(melds)) != 0:
            return None
        return waits(counts, len(melds))

    def shown_dora(self, seat: int) -> int:
        view = self.bots[(seat + 1) % 3].view
        dora = dora_counts(view)
        red = view.rules.red_fives if view.rules is not None else True
        total = 0
        for m in view.melds[seat]:
            if m.is_open:
                total += dora[m.kind] * len(m.tiles) + sum(is_red(t, red) for t in m.tiles)
        return total + len(view.kita[seat]) * (1 + dora[NORTH])

    def visit(self, e: Any) -> None:
        """Before the bots see ``e``."""
        if isinstance(e, HandStarted):
            self.kyoku = self.match.kyoku
            self._reset()
            self.hand_no += 1
            rules = self.match.rules
            index = (0 if e.round_wind == EAST else 3) + e.dealer
            rounds = 6 if rules.length == "east-south" else 3
            self.placement_rows.append((e.scores, max(1, rounds - index), self.hand_no))
        elif isinstance(e, RiichiAccepted):
            self.riichi[e.seat] = True
        elif isinstance(e, MeldCalled):
            self.calls[e.seat] += int(e.meld.is_open)
            self._turn_came(e.seat)
        elif isinstance(e, TileDrawn):
            self._turn_came(e.seat)
        elif isinstance(e, TileDiscarded):
            self._discard(e)
        elif isinstance(e, KitaDeclared):
            self._ron_seen(e.seat, e.tile >> 2)
        elif isinstance(e, HandWon):
            self._won(e)
        elif isinstance(e, HandDrawn):
            self.pending_end.clear()
            self.pending_ron.clear()
            if e.reason == "exhaustive":
                for s in range(3):
                    key = "riichi" if self.riichi[s] else f"calls{min(self.calls[s], 2)}"
                    _hit(self.tally, "at_draw", key, s in e.tenpai)
        elif isinstance(e, MatchEnded):
            self.final = e.placements

    def _turn_came(self, seat: int) -> None:
        key = self.pending_end.pop(seat, None)
        if key is not None:
            _hit(self.tally, "hazard", key, False)
        ron = self.pending_ron.pop(seat, None)
        if ron is not None:
            _hit(self.tally, "ron", ron[0], False)

    def _ron_seen(self, seat: int, kind: int) -> None:
        for s, (key, w) in list(self.pending_ron.items()):
            if s != seat and kind in w:
                _hit(self.tally, "ron", key, True)
                del self.pending_ron[s]

    def _discard(self, e: TileDiscarded) -> None:
        s, kind = e.seat, e.tile >> 2
        self._ron_seen(s, kind)
        bot = self.bots[s]
        k = know(bot.view)  # the discarder's view before its discard: 14 tiles
        for o in range(3):
            if o == s:
                continue
            r = self.rivers[o]
            if not self.riichi[o]:
                w = self.tenpai_waits(o)
                _hit(self.tally, "tenpai", tenpai_key(self.calls[o], len(r), sum(r[-3:])), w is not None)
            w = self.tenpai_waits(o)
            if w is None:
                continue
            safe = safe_kinds(bot, o)
            table = "dealin_riichi" if self.riichi[o] else "dealin_other"
            for held in {t >> 2 for t in k.hand}:
                cls = danger_class(k, held, safe)
                hit = held in w and cls != "safe"
                _hit(self.tally, table, cls, hit)
                _hit(self.tally, "dealin_dora", "dora" if k.dora[held] else "plain", hit)
        self.rivers[s].append(e.tsumogiri)
        others_riichi = sum(self.riichi[o] for o in range(3) if o != s)
        mine = int(self.riichi[s] or e.riichi)  # the others fold against it: fewer of their wins
        self.pending_end[s] = f"{turn_bucket(len(self.rivers[s]))}|{min(others_riichi, 2)}|{mine}"
        w = self.tenpai_waits(s)  # the kyoku has applied the discard already
        if w:
            river = {r.tile >> 2 for r in bot.view.rivers[s]} | {kind}
            if not river & set(w):
                live = sum(k.unseen[x] - (1 if x == kind else 0) for x in w)
                self.pending_ron[s] = (f"{min(max(live, 0), 12)}|{int(self.riichi[s] or e.riichi)}", frozenset(w))

    def _won(self, e: HandWon) -> None:
        tsumo = e.from_seat == e.seat
        for s in range(3):
            if s == e.seat:
                continue
            key = self.pending_end.pop(s, None)
            if key is not None and e.from_seat != s:
                _hit(self.tally, "hazard", key, True)
                _hit(self.tally, "other_kind", "tsumo", tsumo)
            if tsumo:
                dealer = s == self.bots[s].view.dealer
                _hit(self.tally, "tsumo_cost", "dealer" if dealer else "other", -e.deltas[s])
        self.pending_ron.clear()
        if not tsumo:
            w = e.seat
            view = self.bots[w].view
            open_hand = any(m.is_open for m in view.melds[w])
            key = value_key(self.riichi[w], open_hand, w == view.dealer, self.shown_dora(w))
            _hit(self.tally, "values", key, -e.deltas[e.from_seat])


def play(seed: int) -> tuple[Tally, list[tuple[tuple[int, int, int], int, int, int]], int]:
    """One East-South match of three Experts: its tallies and placement rows."""
    match = Match(seed, Rules(length="east-south"))
    bots: list[Player] = []
    for s in range(3):
        bot = make_bot("expert", s, seed * 7 + s)
        assert isinstance(bot, Player)
        bots.append(bot)
    probe = Probe(match, bots)
    for e in match.events:
        probe.visit(e)
        for s, bot in enumerate(bots):
            bot.observe(redact(e, s))
    while not match.finished:
        seat = match.awaiting()[0]
        probe.kyoku = match.kyoku
        for e in match.apply(seat, ask(bots[seat], match.legal_actions(seat)).action):
            probe.visit(e)
            for s, bot in enumerate(bots):
                bot.observe(redact(e, s))
    hands = probe.hand_no
    rows = []
    for scores, turns_left, no in probe.placement_rows:
        for seat in range(3):
            rows.append((scores, turns_left, hands - no + 1, seat * 10 + probe.final[seat]))
    return probe.tally, rows, hands


def _rates(counter: Counter[str]) -> dict[str, list[float]]:
    keys = {k.rsplit("#", 1)[0] for k in counter}
    out = {}
    for key in sorted(keys):
        n = counter[key + "#n"]
        if n:
            out[key] = [round(counter[key + "#hit"] / n, 5), n]
    return out


def _marginals(cells: dict[str, list[float]], depth: int) -> dict[str, list[float]]:
    """Coarser cells (the first ``depth`` parts of each key) for the models' back-off."""
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for key, (rate, n) in cells.items():
        short = "|".join(key.split("|")[:depth])
        sums[short][0] += rate * n
        sums[short][1] += n
    return {k: [round(h / n, 5), int(n)] for k, (h, n) in sums.items()}


def fit_sigma(rows: list[Any], hands_left: list[float]) -> tuple[float, list[tuple[float, float]]]:
    """The sigma that makes the observed final placements likeliest; the likelihood curve."""
    curve = []
    for sigma in range(2000, 16001, 500):
        model = PlacementModel(float(sigma), hands_left)
        ll = 0.0
        for scores, turns_left, _, packed in rows:
            seat, place = divmod(packed, 10)
            p = model.rank_chances(tuple(scores), seat, model.hands_after(turns_left))
            ll += math.log(max(p[place - 1], 1e-6))
        curve.append((float(sigma), ll))
    return max(curve, key=lambda c: c[1])[0], curve


def calibration(rows: list[Any], model: PlacementModel) -> list[tuple[str, int, float, float]]:
    """Predicted against observed chance of first place, by predicted decile."""
    buckets: dict[int, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for scores, turns_left, _, packed in rows:
        seat, place = divmod(packed, 10)
        p = model.rank_chances(tuple(scores), seat, model.hands_after(turns_left))[0]
        b = buckets[min(int(p * 10), 9)]
        b[0] += 1
        b[1] += p
        b[2] += place == 1
    return [(f"{i / 10:.1f}-{(i + 1) / 10:.1f}", int(n), s / n, o / n) for i, (n, s, o) in sorted(buckets.items())]


def write(name: str, body: dict[str, Any], provenance: dict[str, Any], out_dir: Path) -> None:
    path = out_dir / f"ev_{name}.json"
    path.write_text(json.dumps({"provenance": provenance, **body}, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {path}")


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=300)
    parser.add_argument("--seed", type=int, default=9000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args(list(argv) if argv is not None else None)
    tally: Tally = defaultdict(Counter)
    rows: list[Any] = []
    hands = 0
    seeds = range(args.seed, args.seed + args.matches)
    with ProcessPoolExecutor(args.workers) as pool:
        for part, part_rows, n in pool.map(play, seeds, chunksize=4):
            for table, counter in part.items():
                tally[table].update(counter)
            rows += part_rows
            hands += n
    command = f"bench/ev_fit.py --matches {args.matches} --seed {args.seed} --workers {args.workers}"
    base = {
        "command": command,
        "seed": args.seed,
        "date": datetime.date.today().isoformat(),
        "players": "3x expert, east-south",
        "matches": args.matches,
        "hands": hands,
    }
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    cells = _rates(tally["tenpai"])
    tenpai = {**cells, **_marginals(cells, 2), **_marginals(cells, 1)}
    n_tenpai = sum(int(v[1]) for v in cells.values())
    write("tenpai", {"cells": tenpai, "at_draw": _rates(tally["at_draw"])}, {**base, "samples": n_tenpai}, out)
    dora = _rates(tally["dealin_dora"])
    factor = dora["dora"][0] / max(dora["plain"][0], 1e-6) if "dora" in dora and "plain" in dora else 1.0
    riichi, other = _rates(tally["dealin_riichi"]), _rates(tally["dealin_other"])
    values = _rates(tally["values"])
    values = {**values, **_marginals(values, 2), **_marginals(values, 1)}
    n_deal = sum(int(v[1]) for v in (*riichi.values(), *other.values()))
    body = {"riichi": riichi, "other": other, "dora_factor": round(factor, 4), "values": values}
    write("dealin", body, {**base, "samples": n_deal}, out)
    hz = _rates(tally["hazard"])
    hz = {**hz, **_marginals(hz, 2), **_marginals(hz, 1)}
    ron = _rates(tally["ron"])
    ron = {**ron, **_marginals(ron, 1)}
    kinds = _rates(tally["other_kind"])
    cost = {k: round(v[0], 1) for k, v in _rates(tally["tsumo_cost"]).items()}
    body = {"cells": hz, "ron": ron, "other_tsumo_share": kinds.get("tsumo", [0.4])[0], "tsumo_cost": cost}
    write("hazard", body, {**base, "samples": sum(int(v[1]) for v in _rates(tally["hazard"]).values())}, out)
    left: dict[int, list[int]] = defaultdict(list)
    for _, turns_left, remaining, _ in rows:
        left[turns_left].append(remaining)
    hands_left = [0.0] + [round(sum(left[r]) / len(left[r]), 3) if left[r] else float(r) for r in range(1, 7)]
    sigma, curve = fit_sigma(rows, hands_left)
    body = {"sigma": sigma, "hands_left": hands_left, "likelihood": [[s, round(ll, 1)] for s, ll in curve]}
    write("placement", body, {**base, "samples": len(rows)}, out)
    print(f"{args.matches} matches, {hands} hands; sigma {sigma:.0f}; hands left by dealer turns {hands_left}")
    print("placement calibration (P(first) predicted decile: positions, predicted, observed):")
    for label, n, pred, obs in calibration(rows, PlacementModel(sigma, hands_left)):
        print(f"  {label}: {n:5d}  {pred:.3f}  {obs:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
