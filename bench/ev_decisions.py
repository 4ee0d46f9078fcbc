"""Diagnose the EV master: where it overrules the Expert, and how those hands end.

The EV master (``sanma.bots.ev.EVBot``) holds one seat of seeded East matches against two
Experts.  At each of its priced decisions the Expert's own answer is known (``decide``
starts from it), so every override falls in a class: riichi where the Expert stays dama,
dama where the Expert riichis, a discard that leaves the hand further from tenpai than the
Expert's ("breaks"), one as close but a different tile ("shape"), and the calls, kita and
kans ("pon-over-pass", "discard-over-kita" ...).  For each class: how
often, the program's edge over the Expert's tile, and how the hands with such an override
ended (won, dealt in, other).  Also the hand results of the seat overall.

    nice -n 10 .venv/bin/python bench/ev_decisions.py --matches 20 --seed 101
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanma.bots.base import ask
from sanma.bots.ev import EVBot, priced_as
from sanma.bots.heuristics import know
from sanma.bots.registry import make_bot
from sanma.engine.actions import Action, Discard
from sanma.engine.events import HandAborted, HandDrawn, HandWon
from sanma.engine.kyoku import LegalActions
from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.engine.shanten import shanten
from sanma.engine.tiles import kind_of
from sanma.engine.visibility import redact


class Probe(EVBot):
    """The EV master that notes each override of the Expert."""

    def __init__(self, seat: int, seed: int = 0, **kw: object) -> None:
        super().__init__(seat, seed, **kw)  # type: ignore[arg-type]
        self.notes: list[tuple[str, float]] = []

    def decide(self, legal: LegalActions) -> Action:
        chosen = super().decide(legal)
        expert = self.last_expert
        if isinstance(expert, Discard) and expert.riichi:
            self.notes.append(("(the Expert riichis)", 0.0))  # a count, not an override
        if chosen != expert and isinstance(chosen, Discard) and isinstance(expert, Discard):
            self.notes.append((_kind(self, expert, chosen), self._edge(expert, chosen)))
        elif chosen != expert and expert is not None:
            self.notes.append((f"{_word(chosen)}-over-{_word(expert)}", self._edge(expert, chosen)))
        elif self.last_values:
            self.notes.append(("same", 0.0))
        return chosen

    def _edge(self, expert: Action, chosen: Action) -> float:
        v = self.last_values
        a, b = priced_as(expert, v), priced_as(chosen, v)
        return v[b] - v[a] if a is not None and b is not None else float("nan")


def _word(action: Action) -> str:
    return "discard" if isinstance(action, Discard) else type(action).__name__.lower()


def _kind(bot: EVBot, expert: Discard, chosen: Discard) -> str:
    k = know(bot.view)

    def after(d: Discard) -> int:
        c = k.counts[:]
        c[kind_of(d.tile)] -= 1
        return shanten(c, k.meld_count)

    if chosen.riichi and not expert.riichi:
        return "riichi-over-dama"
    if expert.riichi and not chosen.riichi:
        return "dama-over-riichi" if after(chosen) == 0 else "break-riichi"
    se, sc = after(expert), after(chosen)
    if sc > se:
        return f"break-{se}"
    return f"shape-{se}"


def play(seed: int, factory: Callable[[int, int], Probe]) -> tuple[Counter[str], Counter[str], list[float]]:
    match = Match(seed, Rules(length="east"))
    hero = seed % 3
    bots = [factory(s, seed) if s == hero else make_bot("expert", s, seed) for s in range(3)]
    probe = bots[hero]
    assert isinstance(probe, Probe)
    classes: Counter[str] = Counter()
    ends: Counter[str] = Counter()
    edges: list[float] = []
    seen: set[str] = set()  # override classes of the current hand

    def close(e: HandWon | None) -> None:
        how = "other"
        if e is not None and e.seat == hero:
            how = "won"
        elif e is not None and e.from_seat == hero:
            how = "dealt-in"
        ends[f"all:{how}"] += 1
        for c in seen:
            ends[f"{c}:{how}"] += 1
        seen.clear()

    for e in match.events:
        for s, bot in enumerate(bots):
            bot.observe(redact(e, s))
    while not match.finished:
        seat = match.awaiting()[0]
        n = len(probe.notes)
        action = ask(bots[seat], match.legal_actions(seat)).action
        for cls, edge in probe.notes[n:]:
            classes[cls] += 1
            if cls not in ("same", "(the Expert riichis)"):
                seen.add(cls)
                edges.append(edge)
        for e in match.apply(seat, action):
            if isinstance(e, HandWon):
                close(e)
            for s, bot in enumerate(bots):
                bot.observe(redact(e, s))
            if isinstance(e, HandDrawn | HandAborted):
                close(None)
    return classes, ends, edges


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--margin", type=float, default=None)
    args = parser.parse_args()
    kw = {} if args.margin is None else {"margin": args.margin}
    classes: Counter[str] = Counter()
    ends: Counter[str] = Counter()
    edges: list[float] = []
    for seed in range(args.seed, args.seed + args.matches):
        got_classes, got_ends, got_edges = play(seed, lambda s, sd: Probe(s, sd, **kw))
        classes.update(got_classes)
        ends.update(got_ends)
        edges += got_edges
    priced = sum(n for c, n in classes.items() if not c.startswith("("))
    print(f"{args.matches} East matches, {priced} priced decisions of the EV seat")
    for cls, n in classes.most_common():
        print(f"  {cls:18s} {n:5d}  {100 * n / max(1, priced):5.1f}%")
    print("hands (all, and those with an override of each class): won / dealt-in / other")
    for cls in sorted({k.split(":")[0] for k in ends}):
        w, d, o = (ends[f"{cls}:{h}"] for h in ("won", "dealt-in", "other"))
        t = max(1, w + d + o)
        print(f"  {cls:18s} {t:5d} hands  won {100 * w / t:5.1f}%  dealt-in {100 * d / t:5.1f}%")
    if edges:
        xs = sorted(x for x in edges if x == x)
        print(f"override edges: n {len(xs)}, median {xs[len(xs) // 2]:.3f}, max {xs[-1]:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
