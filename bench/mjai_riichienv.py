"""Benchmark: our mjai bot (``sanma mjai-bot``) plays inside riichienv's three-player env.

Not a test: riichienv is a benchmark-only dependency (``pip install -r bench/requirements.txt``).
Each seat runs one ``MjaiBotSession`` (the code behind ``sanma mjai-bot``; with
``--subprocess`` the real command, one process per seat).  riichienv hands each seat the
events since its last decision (the batch framing of ``mjai-3p.md`` section 5); the
session's answer is matched with ``Observation3P.select_action_from_mjai``.  An answer the
env does not accept is counted as rejected (by the event that cued it) and the env's first
legal action (a pass where there is one) is played instead, so the match goes on.

    .venv/bin/python bench/mjai_riichienv.py --level normal --matches 20

Prints completed matches and hands, decisions, rejected answers by cue, and seconds.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from sanma.bots.registry import make_bot
from sanma.cli.mjai_cmd import MjaiBotSession
from sanma.engine.rules import preset

Answerer = Callable[[str], dict[str, Any]]
SESSIONS: list[MjaiBotSession] = []  # in-process sessions, for their count of unreadable lines


def in_process(level: str, seed: int, rules_name: str) -> tuple[Answerer, Callable[[], None]]:
    """A session in this process: batch line in, answer out."""
    session = MjaiBotSession(lambda seat: make_bot(level, seat, seed), preset(rules_name), log=sys.stderr)
    SESSIONS.append(session)
    return session.answer_line, lambda: None


def as_subprocess(level: str, seed: int, rules_name: str) -> tuple[Answerer, Callable[[], None]]:
    """``python -m sanma mjai-bot`` as a subprocess: batch line in, one line out."""
    command = [sys.executable, "-m", "sanma", "mjai-bot", "--level", level, "--seed", str(seed), "--rules", rules_name]
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def answer(line: str) -> dict[str, Any]:
        stdin.write(line + "\n")
        stdin.flush()
        return dict(json.loads(stdout.readline()))

    def close() -> None:
        stdin.close()
        proc.wait(timeout=10)

    return answer, close


def play_match(env_seed: int, level: str, rules_name: str, subprocess_bots: bool, tally: Counter[str]) -> None:
    """One riichienv 3p match with our bot in every seat."""
    from riichienv import RiichiEnv

    make = as_subprocess if subprocess_bots else in_process
    seats = [make(level, env_seed * 3 + s, rules_name) for s in range(3)]
    env = RiichiEnv(game_mode="3p-red-half", seed=env_seed)
    obs = env.reset()
    try:
        while not env.done():
            actions = {}
            for pid, ob in obs.items():
                events = [json.loads(e) for e in ob.new_events()]
                tally["hands"] += sum(e.get("type") == "end_kyoku" for e in events) if pid == 0 else 0
                legal = ob.legal_actions()
                if not legal:
                    continue
                answer = seats[pid][0](json.dumps(events))
                tally["decisions"] += 1
                action = ob.select_action_from_mjai(answer)
                if action is None:
                    cue = next((e.get("type") for e in reversed(events) if e.get("type") != "dora"), "?")
                    tally[f"rejected after {cue}: {answer.get('type')}"] += 1
                    tally["rejected"] += 1
                    action = next((a for a in legal if '"none"' in a.to_mjai()), legal[0])
                actions[pid] = action
            obs = env.step(actions)
        tally["matches"] += 1
    finally:
        for _, close in seats:
            close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--level", default="normal")
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0, help="first env seed")
    parser.add_argument("--rules", default="tenhou", help="our preset closest to the env (kokushi cannot rob a kan)")
    parser.add_argument("--subprocess", action="store_true", help="run `sanma mjai-bot` processes, not sessions")
    args = parser.parse_args()
    try:
        import riichienv
    except ImportError as exc:
        print(f"riichienv is not installed ({exc}); pip install -r bench/requirements.txt")
        return 1
    tally: Counter[str] = Counter()
    start = time.perf_counter()
    for seed in range(args.seed, args.seed + args.matches):
        play_match(seed, args.level, args.rules, args.subprocess, tally)
    seconds = time.perf_counter() - start
    version = importlib.metadata.version("riichienv") if riichienv else "?"
    print(f"riichienv {version} 3p-red-half, level {args.level}, {'subprocess' if args.subprocess else 'in process'}")
    print(
        f"completed matches {tally['matches']}/{args.matches}, hands {tally['hands']}, decisions {tally['decisions']}"
    )
    print(f"rejected answers {tally['rejected']} ({tally['rejected'] / max(tally['decisions'], 1):.2%})")
    for key, count in sorted(tally.items()):
        if key.startswith("rejected after"):
            print(f"  {key}: {count}")
    if not args.subprocess:
        print(f"lines the bot could not read (logged above): {sum(s.errors for s in SESSIONS)}")
    print(f"{seconds:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
