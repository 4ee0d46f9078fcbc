"""Benchmark: our mjai bot (``sanma mjai-bot``) plays inside riichienv's three-player env.

Not a test: riichienv and jansou are benchmark-only dependencies (``pip install -r
bench/requirements.txt``).  Each of our seats runs one ``MjaiBotSession`` (the code behind
``sanma mjai-bot``; with ``--subprocess`` the real command, one process per seat).  riichienv
hands each seat the events since its last decision (the batch framing of ``mjai-3p.md``
section 5); the session's answer is matched with ``Observation3P.select_action_from_mjai``.
An answer the env does not accept is counted as rejected (by the event that cued it) and the
env's pass (or first legal action) is played instead, so the match goes on.

Two modes:

* ``--opponents self`` (the default): the hero in all three seats; a check that every answer
  is accepted.
* ``--opponents jansou-smart`` (or ``jansou-efficiency``): for every env seed (the wall) and
  every ``--hero``, the hero plays the wall once from each seat against two of jansou's
  reference agents (``bench/jansou_seat.py`` seats them), seeded from the wall and seat, so
  each hero meets the same walls and the same opponents.  Per hero: games, average placement
  with a 95% interval, final score, win and deal-in rates per hand, rejected answers (ours and
  the agents'), seconds per game; for every hero after the first, its difference to the first
  **paired by wall** (per wall the mean placement over its three seats; the interval of the
  per-wall differences; below zero is better).

    .venv/bin/python bench/mjai_riichienv.py --level normal --matches 20
    .venv/bin/python bench/mjai_riichienv.py --hero expert --hero py:sanma.bots.ev:EVBot \\
        --opponents jansou-smart --matches 200 --workers 2 --json /tmp/jansou.json

A hero is a bot level or any spec ``sanma arena --players`` takes (``py:MODULE:FACTORY``).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import math
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanma.arena.players import parse_player
from sanma.bots.registry import LEVELS
from sanma.cli.mjai_cmd import MjaiBotSession
from sanma.engine.errors import SanmaError
from sanma.engine.rules import preset

Answerer = Callable[[str], dict[str, Any]]
LENGTHS = {"east-south": "3p-red-half", "east": "3p-red-east"}  # riichienv game modes (SAN_HANCHAN, SAN_TONPUSEN)
OPPONENTS = {"self": "", "jansou-smart": "SmartEfficiencyAgent", "jansou-efficiency": "EfficiencyAgent"}
Z95 = 1.96


def in_process(spec: str, seed: int, rules_name: str) -> tuple[Answerer, Callable[[], int]]:
    """A session in this process: batch line in, answer out; closing tells its unreadable lines."""
    factory = parse_player(spec).factory
    session = MjaiBotSession(lambda seat: factory(seat, seed), preset(rules_name), log=sys.stderr)
    return session.answer_line, lambda: session.errors


def as_subprocess(spec: str, seed: int, rules_name: str) -> tuple[Answerer, Callable[[], int]]:
    """``python -m sanma mjai-bot`` as a subprocess: batch line in, one line out."""
    if spec not in LEVELS:
        raise SystemExit(f"--subprocess runs `sanma mjai-bot --level`: {spec!r} is not a level")
    command = [sys.executable, "-m", "sanma", "mjai-bot", "--level", spec, "--seed", str(seed), "--rules", rules_name]
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def answer(line: str) -> dict[str, Any]:
        stdin.write(line + "\n")
        stdin.flush()
        return dict(json.loads(stdout.readline()))

    def close() -> int:
        stdin.close()
        proc.wait(timeout=10)
        return 0

    return answer, close


class OurSeat:
    """One of our bots: the events since its last decision go over as one batch."""

    side = "ours"

    def __init__(self, spec: str, seed: int, rules_name: str, subprocess_bot: bool) -> None:
        self.answer, self.close = (as_subprocess if subprocess_bot else in_process)(spec, seed, rules_name)
        self.pending: list[dict[str, Any]] = []

    def observe(self, events: list[dict[str, Any]]) -> None:
        self.pending.extend(events)

    def decide(self, ob: Any) -> tuple[Any, str]:
        answer = self.answer(json.dumps(self.pending))
        self.pending = []
        return ob.select_action_from_mjai(answer), str(answer.get("type"))


class AgentSeat:
    """A jansou agent through ``bench/jansou_seat.py``."""

    side = "jansou"

    def __init__(self, agent_class: str, seed: int, seat: int) -> None:
        from jansou.game import agents

        from bench.jansou_seat import JansouSeat

        self.seat = JansouSeat(getattr(agents, agent_class)(seed), seat)
        self.observe = self.seat.observe
        self.decide = self.seat.decide

    def close(self) -> int:
        return 0


@dataclass
class Game:
    """One match from one hero seat (``seat`` is None when the hero holds every seat)."""

    wall: int
    hero: str
    seat: int | None
    placement: int = 0
    score: int = 0
    hands: int = 0
    wins: int = 0
    deal_ins: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # this process's CPU time: the neighbours' load does not count
    tally: Counter[str] = field(default_factory=Counter)


def play_match(env_seed: int, seats: list[Any], game_mode: str, tally: Counter[str]) -> Any:
    """One riichienv 3p match; returns the finished env."""
    from riichienv import RiichiEnv

    env = RiichiEnv(game_mode=game_mode, seed=env_seed)
    obs = env.reset()
    try:
        while not env.done():
            actions = {}
            for pid, ob in obs.items():
                events = [json.loads(e) for e in ob.new_events()]
                seat = seats[pid]
                seat.observe(events)
                legal = ob.legal_actions()
                if not legal:
                    continue
                action, answer = seat.decide(ob)
                tally[f"{seat.side} decisions"] += 1
                if action is None:
                    cue = next((e.get("type") for e in reversed(events) if e.get("type") != "dora"), "?")
                    tally[f"{seat.side} rejected after {cue}: {answer}"] += 1
                    tally[f"{seat.side} rejected"] += 1
                    action = next((a for a in legal if '"none"' in a.to_mjai()), legal[0])
                actions[pid] = action
            obs = env.step(actions)
        tally["matches"] += 1
    finally:
        tally["ours unreadable lines"] += sum(seat.close() for seat in seats)
    return env


def score_game(game: Game, env: Any) -> None:
    """Placement, score, hands, wins and deal-ins of the hero seat, from the env's log."""
    log = [e if isinstance(e, dict) else json.loads(e) for e in env.mjai_log]
    game.hands = sum(e["type"] == "end_kyoku" for e in log)
    if game.seat is None:
        return
    game.placement = env.ranks()[game.seat]
    game.score = env.scores()[game.seat]
    wins = [e for e in log if e["type"] == "hora"]
    game.wins = sum(e["actor"] == game.seat for e in wins)
    game.deal_ins = sum(e.get("target") == game.seat and e["actor"] != game.seat for e in wins)


@dataclass(frozen=True)
class Setup:
    heroes: tuple[str, ...]
    opponents: str
    game_mode: str
    rules: str
    subprocess_bots: bool


def play_wall(setup: Setup, wall: int) -> list[Game]:
    """Every hero on one wall: from each seat against the opponents, or in all three seats."""
    games = []
    for hero in setup.heroes:
        hero_seats: Iterable[int | None] = range(3) if setup.opponents != "self" else [None]
        for hero_seat in hero_seats:
            game = Game(wall, hero, hero_seat)
            seats = [
                OurSeat(hero, wall * 3 + s, setup.rules, setup.subprocess_bots)
                if hero_seat is None or s == hero_seat
                else AgentSeat(OPPONENTS[setup.opponents], wall * 3 + s, s)
                for s in range(3)
            ]
            start, cpu = time.perf_counter(), time.process_time()
            env = play_match(wall, seats, setup.game_mode, game.tally)
            game.seconds, game.cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
            score_game(game, env)
            games.append(game)
    return games


def mean_ci(values: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its normal 95% interval."""
    if len(values) < 2:
        return (values[0] if values else math.nan), math.nan
    return statistics.fmean(values), Z95 * statistics.stdev(values) / math.sqrt(len(values))


def summarize(games: list[Game], heroes: tuple[str, ...]) -> list[dict[str, Any]]:
    """One summary row per hero; the heroes after the first carry the paired difference."""
    by_wall: dict[str, dict[int, list[int]]] = {h: defaultdict(list) for h in heroes}
    for g in games:
        by_wall[g.hero][g.wall].append(g.placement)
    rows = []
    for hero in heroes:
        mine = [g for g in games if g.hero == hero]
        tally: Counter[str] = sum((g.tally for g in mine), Counter())
        hands = sum(g.hands for g in mine)
        placement, half = mean_ci([g.placement for g in mine])
        row: dict[str, Any] = {
            "hero": hero,
            "games": len(mine),
            "placement": placement,
            "placement_ci95": half,
            "score": statistics.fmean(g.score for g in mine) if mine else math.nan,
            "hands": hands,
            "win_rate": sum(g.wins for g in mine) / max(hands, 1),
            "deal_in_rate": sum(g.deal_ins for g in mine) / max(hands, 1),
            "seconds_per_game": sum(g.seconds for g in mine) / max(len(mine), 1),
            "cpu_seconds_per_game": sum(g.cpu_seconds for g in mine) / max(len(mine), 1),
            "tally": dict(sorted(tally.items())),
        }
        if hero != heroes[0]:
            walls = sorted(set(by_wall[hero]) & set(by_wall[heroes[0]]))
            diffs = [statistics.fmean(by_wall[hero][w]) - statistics.fmean(by_wall[heroes[0]][w]) for w in walls]
            row["paired_walls"] = len(walls)
            row["paired_diff"], row["paired_diff_ci95"] = mean_ci(diffs)
        rows.append(row)
    return rows


def print_tally(tally: dict[str, int]) -> None:
    for side in ("ours", "jansou"):
        decisions = tally.get(f"{side} decisions", 0)
        if not decisions:
            continue
        rejected = tally.get(f"{side} rejected", 0)
        print(f"  {side}: rejected answers {rejected} of {decisions} decisions ({rejected / decisions:.2%})")
        for key, count in tally.items():
            if key.startswith(f"{side} rejected after"):
                print(f"    {key.removeprefix(side + ' ')}: {count}")
    print(f"  lines our bots could not read (logged above): {tally.get('ours unreadable lines', 0)}")


def report(rows: list[dict[str, Any]], opponents: str) -> None:
    for row in rows:
        print(
            f"{row['hero']}: {row['games']} games ({row['tally'].get('matches', 0)} completed), "
            f"{row['hands']} hands, {row['seconds_per_game']:.2f}s per game "
            f"({row['cpu_seconds_per_game']:.2f}s CPU)"
        )
        if opponents != "self":
            print(
                f"  average placement {row['placement']:.3f} ± {row['placement_ci95']:.3f}, "
                f"final score {row['score']:.0f}, win {row['win_rate']:.1%} and deal-in {row['deal_in_rate']:.1%}"
                " of hands"
            )
        if "paired_diff" in row and opponents != "self":
            print(
                f"  vs {rows[0]['hero']}, paired by wall ({row['paired_walls']} walls): "
                f"{row['paired_diff']:+.3f} ± {row['paired_diff_ci95']:.3f} placement (below 0 is better)"
            )
        print_tally(row["tally"])


def run(setup: Setup, walls: range, workers: int) -> list[Game]:
    if workers <= 1:
        return [g for wall in walls for g in play_wall(setup, wall)]
    with ProcessPoolExecutor(workers) as pool:  # one wall per task: results in wall order
        return [g for games in pool.map(play_wall, [setup] * len(walls), walls) for g in games]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hero", action="append", help="a level or py:MODULE:FACTORY; repeat to compare")
    parser.add_argument("--level", default="normal", help="the hero when no --hero is given")
    parser.add_argument("--opponents", choices=sorted(OPPONENTS), default="self")
    parser.add_argument("--length", choices=sorted(LENGTHS), default="east-south")
    parser.add_argument("--matches", type=int, default=10, help="walls (env seeds)")
    parser.add_argument("--seed", type=int, default=0, help="first env seed")
    parser.add_argument("--rules", default="tenhou", help="our preset closest to the env (kokushi cannot rob a kan)")
    parser.add_argument("--subprocess", action="store_true", help="run `sanma mjai-bot` processes, not sessions")
    parser.add_argument("--workers", type=int, default=1, help="processes, one wall per task")
    parser.add_argument("--json", help="write the per-game rows and the summary here")
    args = parser.parse_args()
    try:
        import riichienv  # noqa: F401

        if args.opponents != "self":
            import jansou  # noqa: F401
    except ImportError as exc:
        print(f"{exc.name} is not installed ({exc}); pip install -r bench/requirements.txt")
        return 1
    heroes = tuple(args.hero or [args.level])
    try:
        for hero in heroes:
            parse_player(hero)  # a bad spec fails here, not in a worker
    except SanmaError as exc:
        print(exc)
        return 2
    setup = Setup(heroes, args.opponents, LENGTHS[args.length], args.rules, args.subprocess)
    start = time.perf_counter()
    games = run(setup, range(args.seed, args.seed + args.matches), args.workers)
    seconds = time.perf_counter() - start
    packages = ("riichienv",) if args.opponents == "self" else ("riichienv", "jansou")
    versions = ", ".join(f"{p} {importlib.metadata.version(p)}" for p in packages)
    print(
        f"{versions}; {setup.game_mode} ({args.length}), opponents {args.opponents}, walls {args.seed}.."
        f"{args.seed + args.matches - 1}, {'subprocess' if args.subprocess else 'in process'}"
    )
    rows = summarize(games, heroes)
    report(rows, args.opponents)
    print(f"{seconds:.1f}s with {max(args.workers, 1)} worker(s)")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"summary": rows, "games": [{**vars(g), "tally": dict(g.tally)} for g in games]}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
