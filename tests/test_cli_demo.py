"""``sanma demo`` through a real subprocess (the terminal demo; ``./run.sh`` starts the server),
and its players: the registry's bots in the arena's loop."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from sanma.arena.duplicate import bot_seed, play_seated
from sanma.bots.registry import make_bot
from sanma.cli.demo_cmd import LEVEL, play_match
from sanma.engine.events import HandWon, MatchEnded
from sanma.engine.rules import Rules

ROOT = Path(__file__).resolve().parents[1]


def demo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sanma", "demo", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


@pytest.mark.slow
def test_demo_prints_a_whole_match_repeatably() -> None:
    first = demo("--seed", "7")
    assert first.returncode == 0, first.stderr
    out = first.stdout
    assert out.startswith("Sanma demo - seed 7, East-South, red fives")
    assert "== East 1 - dealer Ayu" in out
    assert re.search(r"wins by (tsumo|ron from \w+): ", out)
    assert re.search(r"\d+ han \d+ fu|yakuman", out)
    standings = re.findall(r"^  ([123])\. (\w+) +(-?[\d,]+) points  ([+-]\d+\.\d)$", out, re.MULTILINE)
    assert [place for place, *_ in standings] == ["1", "2", "3"]
    assert sum(int(points.replace(",", "")) for _, _, points, _ in standings) == 105_000
    assert sum(float(score) for *_, score in standings) == pytest.approx(0)
    assert demo("--seed", "7").stdout == out


@pytest.mark.parametrize("length", ["one-hand", "east"])
def test_demo_lengths_and_no_red(length: str) -> None:
    proc = demo("--seed", "3", "--length", length, "--no-red")
    assert proc.returncode == 0, proc.stderr
    assert "no red fives" in proc.stdout
    assert not re.search(r"\b\d*0\d*[ps]\b", proc.stdout), "a red five was printed without red fives"
    assert "South 1" not in proc.stdout
    assert "Final standings" in proc.stdout


def test_demo_without_seed_prints_the_one_it_chose() -> None:
    proc = demo("--length", "one-hand")
    assert proc.returncode == 0, proc.stderr
    assert re.match(r"Sanma demo - seed \d+, one hand", proc.stdout)


def test_demo_rejects_a_negative_seed() -> None:
    proc = demo("--seed", "-4")
    assert proc.returncode == 2
    assert "seed" in proc.stderr


def test_the_demo_players_are_registry_bots_in_the_arena_loop() -> None:
    rules = Rules(length="one-hand")
    bots = [make_bot(LEVEL, seat, bot_seed(5, seat)) for seat in range(3)]
    assert play_match(5, rules).events == play_seated(bots, 5, rules).match.events


def test_the_demo_players_end_matches_with_wins() -> None:
    wins = 0
    for seed in range(4):
        match = play_match(seed, Rules(length="east"))
        assert isinstance(match.events[-1], MatchEnded)
        wins += sum(isinstance(e, HandWon) for e in match.events)
    assert wins > 0
