"""Benchmark: CPU seconds per decision of one player (the level master by default).

On a shared machine the wall time of a decision (``bench/bot_latency.py``) counts the time
other processes held the core; the process's own CPU time does not, so this is close to the
"one idle core" figure however loaded the machine is (a loaded machine still slows it a
little: caches are shared).  The player holds one seat of seeded East matches against two
Experts, the seat moving with the seed; only its decisions are timed.

    nice -n 10 .venv/bin/python bench/ev_cpu_latency.py --matches 6 --seed 1
    nice -n 10 .venv/bin/python bench/ev_cpu_latency.py --player py:sanma.bots.ev:EVBot --matches 6
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanma.arena import parse_player
from sanma.bots.base import ask
from sanma.bots.registry import make_bot
from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.engine.visibility import redact


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--player", default="master", help="a level or py:module:factory (sanma arena's specs)")
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    entrant = parse_player(args.player)
    cpu: list[float] = []
    wall: list[float] = []
    for seed in range(args.seed, args.seed + args.matches):
        match = Match(seed, Rules(length="east"))
        hero = seed % 3
        bots = [entrant.factory(s, seed) if s == hero else make_bot("expert", s, seed) for s in range(3)]
        for e in match.events:
            for s, bot in enumerate(bots):
                bot.observe(redact(e, s))
        while not match.finished:
            seat = match.awaiting()[0]
            c0, w0 = time.process_time(), time.perf_counter()
            answer = ask(bots[seat], match.legal_actions(seat))
            if seat == hero:
                cpu.append(time.process_time() - c0)
                wall.append(time.perf_counter() - w0)
            for e in match.apply(seat, answer.action):
                for s, bot in enumerate(bots):
                    bot.observe(redact(e, s))
    print(f"{args.player}, {args.matches} East matches from seed {args.seed}")
    for name, xs in (("cpu", sorted(cpu)), ("wall", sorted(wall))):
        q = {p: 1000 * xs[min(len(xs) - 1, int(p / 100 * len(xs)))] for p in (50, 90, 99)}
        spread = f"p50 {q[50]:.1f} ms, p90 {q[90]:.1f} ms, p99 {q[99]:.1f} ms, max {1000 * xs[-1]:.1f} ms"
        print(f"{name}: {len(xs)} decisions, {spread}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
