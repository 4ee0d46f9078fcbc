"""Benchmark: whole-match self-play throughput, our engine next to riichienv's 3p env.

Both sides play East-South matches with the cheapest players there are: discard the
drawn tile, never call, never win (our side takes ``legal.default``, which is exactly
that).  Hands then mostly run to an exhaustive draw, so this measures the engine's turn
loop (draw, legality, discard, decision window) and the match flow, not any bot.

Our side goes through the public API a room uses: ``legal_actions`` then ``apply``
(which checks legality again), every event appended to the log.  riichienv
(``pip install -r bench/requirements.txt``; a Rust core) gets a dict of actions per
step.  The two rule sets end matches differently (riichienv may add a West round), so
hands per match and steps are printed too, and the fair comparison is per hand.

    .venv/bin/python bench/bench_selfplay.py [--matches N] [--repeat R]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanma.engine.events import HandStarted
from sanma.engine.match import Match
from sanma.engine.rules import DEFAULT


@dataclass
class Tally:
    matches: int = 0
    hands: int = 0
    steps: int = 0


def play_ours(seed: int, tally: Tally) -> None:
    """One East-South match, tsumogiri and pass only."""
    match = Match(seed, DEFAULT)
    while not match.finished:
        seat = match.awaiting()[0]
        default = match.legal_actions(seat).default
        assert default is not None
        match.apply(seat, default)
        tally.steps += 1
    tally.matches += 1
    tally.hands += sum(isinstance(e, HandStarted) for e in match.events)


def riichienv_player() -> tuple[Callable[[int, Tally], None] | None, str]:
    """riichienv's 3p East-South match with the same players, or why it is unavailable."""
    try:
        from riichienv import ActionType, GameType, RiichiEnv
    except ImportError as exc:
        return None, f"riichienv is not installed ({exc}); pip install -r bench/requirements.txt"
    if not hasattr(GameType, "SAN_HANCHAN"):
        return None, "this riichienv has no three-player East-South game type"

    def play(seed: int, tally: Tally) -> None:
        env = RiichiEnv(game_mode=int(GameType.SAN_HANCHAN), seed=seed, skip_mjai_logging=True)
        obs = env.reset()
        hand_key = None
        while not env.done():
            key = (env.round_wind, env.oya, env.honba, env.kyoku_idx)
            if key != hand_key:
                tally.hands += 1
                hand_key = key
            actions = {}
            for pid, ob in obs.items():
                legal = ob.legal_actions()
                drawn = env.drawn_tile
                pick = next((a for a in legal if a.action_type == ActionType.DISCARD and a.tile == drawn), None)
                pick = pick or next((a for a in legal if a.action_type == ActionType.PASS), None)
                pick = pick or next(a for a in legal if a.action_type == ActionType.DISCARD)
                actions[pid] = pick
            obs = env.step(actions)
            tally.steps += 1
        tally.matches += 1

    return play, "riichienv " + _version("riichienv")


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "?"


def measure(play: Callable[[int, Tally], None], matches: int, repeat: int) -> tuple[float, Tally]:
    """Best-of-``repeat`` seconds for ``matches`` matches (seeds 0..matches-1), and the tally."""
    best = float("inf")
    tally = Tally()
    for _ in range(repeat):
        tally = Tally()
        start = time.perf_counter()
        for seed in range(matches):
            play(seed, tally)
        best = min(best, time.perf_counter() - start)
    return best, tally


def report(name: str, seconds: float, tally: Tally) -> float:
    rate = tally.matches / seconds
    print(
        f"{name:<22} {rate:9.2f} matches/s  {tally.hands / seconds:9.1f} hands/s  {tally.steps / seconds:10.0f} steps/s"
        f"  ({tally.hands / tally.matches:.1f} hands, {tally.steps / tally.matches:.0f} steps per match)"
    )
    return tally.hands / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=20, help="matches per timed run (default 20)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per engine, best kept (default 3)")
    args = parser.parse_args()
    print(f"East-South self-play, tsumogiri/pass players, {args.matches} matches, best of {args.repeat}")
    ours_s, ours = measure(play_ours, args.matches, args.repeat)
    ours_rate = report("sanma (this repo)", ours_s, ours)
    theirs_play, label = riichienv_player()
    if theirs_play is None:
        print(f"riichienv: not measured: {label}")
        return
    theirs_s, theirs = measure(theirs_play, args.matches, args.repeat)
    theirs_rate = report(label, theirs_s, theirs)
    per_match = (theirs.matches / theirs_s) / (ours.matches / ours_s)
    print(f"riichienv / sanma: {theirs_rate / ours_rate:.2f}x per hand, {per_match:.2f}x per match")


if __name__ == "__main__":
    main()
