"""The duplicate-seed arena: determinism, rotation, statistics, broken players, the CLI."""

from __future__ import annotations

import json
import random
import shlex
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from sanma.arena import (
    ArenaConfig,
    ArenaResult,
    Entrant,
    GroupResult,
    MatchOutcome,
    PlayerMatch,
    parse_player,
    parse_players,
    play_match,
    run_arena,
    seat_of,
    tally,
)
from sanma.arena.duplicate import play_seated, player_at
from sanma.arena.players import level_available
from sanma.arena.stats import AnswerCounts, mean_estimate, ratio_estimate
from sanma.bots.base import Player
from sanma.bots.normal import NormalBot
from sanma.engine.actions import Action, Discard, Pass
from sanma.engine.errors import SanmaError
from sanma.engine.events import Event, HandStarted, HandWon, MatchEnded
from sanma.engine.kyoku import LegalActions
from sanma.engine.rules import Rules

ROOT = Path(__file__).resolve().parents[1]
EAST = Rules(length="east")
ONE_HAND = Rules(length="one-hand")


# -- trivial players (module level, so worker processes and `py:` specs can load them) ----------


class Tsumogiri(Player):
    """Always the default: discard the drawn tile, pass every call and win."""

    def decide(self, legal: LegalActions) -> Action:
        assert legal.default is not None
        return legal.default


class RandomLegal(Player):
    """A uniformly random legal choice, from its own seeded generator."""

    def __init__(self, seat: int, seed: int = 0) -> None:
        super().__init__(seat, seed)
        self.rng = random.Random(seed)

    def decide(self, legal: LegalActions) -> Action:
        return self.rng.choice(list(legal))


class Simple(NormalBot):
    """A plain player that wins: the registry's Normal (wins, kita, value pons, riichi,
    shanten/ukeire discards), under a name of this module for ``py:`` specs."""


class Raises(Simple):
    def decide(self, legal: LegalActions) -> Action:
        raise RuntimeError("broken bot")


class Illegal(Simple):
    def decide(self, legal: LegalActions) -> Action:
        # Tile 0 is in nobody's hand most of the time, and Pass is illegal on one's own turn.
        return Pass() if any(isinstance(a, Discard) for a in legal) else Discard(0)


class Slow(Simple):
    def decide(self, legal: LegalActions) -> Action:
        time.sleep(0.003)
        return super().decide(legal)


class BadObserver(Simple):
    def observe(self, event: Event) -> None:
        if isinstance(event, HandStarted):
            raise ValueError("cannot read this")
        super().observe(event)


def entrants(*classes: type[Player]) -> tuple[Entrant, Entrant, Entrant]:
    a, b, c = (Entrant(cls.__name__, cls) for cls in classes)
    return a, b, c


def stable(report: dict[str, Any]) -> dict[str, Any]:
    """The report without what depends on the clock."""
    out = dict(report)
    out.pop("timing")
    out["players"] = [{k: v for k, v in p.items() if k != "latency_ms"} for p in report["players"]]
    return out


# -- determinism and rotation --------------------------------------------------------------------


@pytest.mark.slow
def test_same_seed_same_report_with_one_and_two_workers() -> None:
    config = ArenaConfig(entrants(Simple, RandomLegal, Tsumogiri), groups=4, rules=EAST, seed=11)
    one = run_arena(config, workers=1).to_json()
    two = run_arena(config, workers=2).to_json()
    again = run_arena(config, workers=1).to_json()
    assert stable(one) == stable(two) == stable(again)
    assert two["timing"]["workers"] == 2
    # The run did something worth comparing: wins happened, and the simple player won most.
    simple = one["players"][0]
    assert simple["win_rate"]["mean"] > 0
    assert simple["placement"]["mean"] < 2.0
    assert sum(p["matches"] for p in one["players"]) == 3 * config.matches
    for p in one["players"]:  # the per-group placements behind the interval, for pairing runs
        assert len(p["placement_by_group"]) == config.groups
        assert sum(p["placement_by_group"]) / config.groups == pytest.approx(p["placement"]["mean"], abs=1e-3)


def test_a_run_continued_equals_the_longer_run() -> None:
    whole = ArenaConfig(entrants(Simple, RandomLegal, Tsumogiri), groups=3, rules=ONE_HAND, seed=6)
    first = run_arena(replace(whole, groups=1))
    rest = run_arena(replace(whole, groups=2, first_group=1), workers=2)
    assert stable(first.extended(rest).to_json()) == stable(run_arena(whole).to_json())
    with pytest.raises(ValueError):
        first.extended(first)


@pytest.mark.slow
def test_another_seed_gives_other_walls() -> None:
    config = ArenaConfig(entrants(Simple, Simple, Simple), groups=2, rules=EAST, seed=1)
    other = ArenaConfig(config.entrants, groups=2, rules=EAST, seed=2)
    assert stable(run_arena(config).to_json()) != stable(run_arena(other).to_json())


class SeatRecorder(Simple):
    """Writes down, for its entrant, the seat it got and the digest of the first wall."""

    log: list[tuple[int, int, str]] = []  # noqa: RUF012 - a test-only shared record

    def __init__(self, seat: int, seed: int = 0, *, who: int = -1) -> None:
        super().__init__(seat, seed)
        self.who = who
        self.first_digest: str | None = None

    def observe(self, event: Event) -> None:
        super().observe(event)
        if isinstance(event, HandStarted) and self.first_digest is None:
            self.first_digest = event.wall_digest
            SeatRecorder.log.append((self.who, self.seat, event.wall_digest))


def test_rotation_puts_every_player_in_every_seat_on_the_same_walls() -> None:
    SeatRecorder.log = []

    def recorder(who: int) -> Entrant:
        return Entrant(f"p{who}", lambda seat, seed: SeatRecorder(seat, seed, who=who))

    config = ArenaConfig((recorder(0), recorder(1), recorder(2)), groups=3, rules=ONE_HAND, seed=5)
    result = run_arena(config, workers=1)
    assert result.seat_counts() == [[3, 3, 3]] * 3
    assert {(who, seat) for who, seat, _ in SeatRecorder.log} == {(w, s) for w in range(3) for s in range(3)}
    # 3 groups x 3 rotations x 3 players; every rotation of a group starts on the same wall.
    assert len(SeatRecorder.log) == 27
    for g in range(3):
        chunk = SeatRecorder.log[9 * g : 9 * g + 9]
        assert len({digest for _, _, digest in chunk}) == 1
    assert len({digest for _, _, digest in SeatRecorder.log}) == 3
    for g in result.groups:
        assert [m.rotation for m in g.matches] == [0, 1, 2]
    for r in range(3):
        assert sorted(seat_of(p, r) for p in range(3)) == [0, 1, 2]
        assert all(player_at(seat_of(p, r), r) == p for p in range(3))


@pytest.mark.slow
def test_six_rotations_also_mirror_the_order_so_two_clones_come_out_equal() -> None:
    orders = {tuple(player_at(seat, r) for seat in range(3)) for r in range(6)}
    assert len(orders) == 6  # every seat order once
    for r in range(6):
        assert all(player_at(seat_of(p, r), r) == p for p in range(3))
    after = [[0] * 3 for _ in range(3)]  # after[p][q]: matches in which q sits right after p
    for r in range(6):
        for p in range(3):
            after[p][player_at((seat_of(p, r) + 1) % 3, r)] += 1
    assert after == [[0, 3, 3], [3, 0, 3], [3, 3, 0]]  # with three rotations: [[0, 3, 0], ...]
    # A winner and two clones that never win: where a clone sits relative to the winner (and,
    # for ties in points, the seat order) decides its place.  The mirrored order seats the
    # clones the other way round around the same winner on the same walls, so over six
    # rotations the clones' figures are the same; over three they can be far apart.
    players = entrants(Simple, Tsumogiri, Tsumogiri)
    six = run_arena(ArenaConfig(players, groups=2, rules=EAST, seed=2, rotations=6), workers=1)
    three = run_arena(ArenaConfig(players, groups=2, rules=EAST, seed=2), workers=1)
    assert six.config.matches == 12 and six.seat_counts() == [[4, 4, 4]] * 3
    one, other = six.summaries()[1], six.summaries()[2]
    assert one.placements == other.placements and one.estimates == other.estimates
    assert (three.summaries()[1].placements, three.summaries()[2].placements) == ((0, 1, 5), (0, 5, 1))
    assert six.to_json()["config"]["rotations"] == 6
    with pytest.raises(ValueError):
        ArenaConfig(players, groups=1, rules=EAST, rotations=4)


def test_outcome_is_indexed_by_player_not_seat() -> None:
    """The strong player's tallies follow it round the table."""
    for rotation in range(3):
        outcome = play_match(entrants(Simple, Tsumogiri, Tsumogiri), 77, EAST, rotation)
        assert outcome.tallies[1].wins == outcome.tallies[2].wins == 0
        assert outcome.answers[0].decisions > 0


# -- statistics ----------------------------------------------------------------------------------


def outcome(rotation: int, *tallies: PlayerMatch) -> MatchOutcome:
    return MatchOutcome(rotation, list(tallies), [AnswerCounts(ok=1) for _ in range(3)], [[0.001], [0.002], [0.1]])


def pm(placement: int, score: float, hands: int, wins: int, deal_ins: int, riichi: int, calls: int, value: int):  # type: ignore[no-untyped-def]
    return PlayerMatch(placement, score, 35000, hands, wins, deal_ins, riichi, calls, value)


def test_stats_on_a_hand_made_result() -> None:
    # Player 0 over two groups: placements 1,1,2 then 1,3,1; hands 4+4+2 = 10 and 3+3+4 = 10.
    g0 = GroupResult(
        0,
        100,
        [
            outcome(
                0, pm(1, 30.0, 4, 2, 0, 1, 0, 8000), pm(2, 0.0, 4, 1, 1, 0, 1, 2000), pm(3, -30.0, 4, 0, 1, 0, 0, 0)
            ),
            outcome(
                1, pm(1, 20.0, 4, 1, 1, 1, 1, 12000), pm(3, -25.0, 4, 0, 0, 0, 0, 0), pm(2, 5.0, 4, 1, 0, 0, 0, 1000)
            ),
            outcome(2, pm(2, 2.0, 2, 0, 0, 0, 0, 0), pm(1, 10.0, 2, 1, 0, 0, 0, 3900), pm(3, -12.0, 2, 0, 1, 0, 0, 0)),
        ],
    )
    g1 = GroupResult(
        1,
        200,
        [
            outcome(
                0, pm(1, 25.0, 3, 1, 0, 0, 0, 3000), pm(2, 0.0, 3, 1, 0, 0, 0, 1000), pm(3, -25.0, 3, 0, 2, 0, 0, 0)
            ),
            outcome(1, pm(3, -28.0, 3, 0, 2, 1, 0, 0), pm(1, 26.0, 3, 2, 0, 0, 0, 6000), pm(2, 2.0, 3, 0, 0, 0, 0, 0)),
            outcome(
                2, pm(1, 33.0, 4, 2, 0, 2, 1, 9000), pm(2, -3.0, 4, 0, 1, 0, 0, 0), pm(3, -30.0, 4, 1, 1, 0, 0, 500)
            ),
        ],
    )
    names = entrants(Tsumogiri, Tsumogiri, Tsumogiri)
    result = ArenaResult(ArenaConfig(names, 2, EAST), [g0, g1])
    s = result.summaries()[0]
    assert (s.matches, s.hands, s.placements) == (6, 20, (4, 1, 1))
    est = s.estimates
    # Group means of placement: 4/3 and 5/3 -> mean 1.5, sd of the two = 0.2357.
    assert est["placement"].mean == pytest.approx(1.5)
    assert est["placement"].high - est["placement"].mean == pytest.approx(1.959964 * (0.2357023 / 2**0.5), rel=1e-5)
    assert est["final_score"].mean == pytest.approx((52 / 3 + 30 / 3) / 2)
    # Rates are ratios of sums over all groups: 6 wins / 20 hands; 3 deal-ins; 5 riichi; 2 calls.
    assert est["win_rate"].mean == pytest.approx(6 / 20)
    assert est["deal_in_rate"].mean == pytest.approx(3 / 20)
    assert est["riichi_rate"].mean == pytest.approx(5 / 20)
    assert est["call_rate"].mean == pytest.approx(2 / 20)
    assert est["win_value"].mean == pytest.approx((8000 + 12000 + 3000 + 9000) / 6)
    # Win rate per group: 3/10 and 3/10 -> no spread, a zero-width interval.
    assert est["win_rate"].low == pytest.approx(0.3) and est["win_rate"].high == pytest.approx(0.3)
    assert s.latency_ms == {"decisions": 6, "p50": 1.0, "p99": 1.0, "max": 1.0}
    assert s.answers.ok == 6
    assert result.summaries()[2].latency_ms["p99"] == 100.0
    report = result.to_json()
    assert report["players"][0]["placement"]["mean"] == 1.5
    assert report["players"][1]["placements"] == [2, 3, 1]
    json.dumps(report)  # JSON-ready


def test_interval_formulas() -> None:
    e = mean_estimate([2.0, 1.0, 3.0, 2.0])
    sd = (2 / 3) ** 0.5
    assert e.mean == 2.0 and e.high == pytest.approx(2.0 + 1.959964 * sd / 2, rel=1e-6)
    assert mean_estimate([1.5]).low is None and mean_estimate([]).mean is None
    r = ratio_estimate([2, 4, 0], [10, 20, 10])
    # R = 6/40; residuals 0.5, 1, -1.5 -> sum of squares 3.5; xbar 40/3.
    assert r.mean == pytest.approx(0.15)
    assert r.high - r.mean == pytest.approx(1.959964 * (3.5 / 6) ** 0.5 / (40 / 3), rel=1e-6)
    assert ratio_estimate([0, 0], [0, 0]).mean is None
    assert r.excludes(0.5) and not r.excludes(0.15)


def test_tally_agrees_with_the_log() -> None:
    match = play_seated([Simple(seat) for seat in range(3)], 2024, EAST).match
    tallies = tally(match.events)
    wins = [e for e in match.events if isinstance(e, HandWon)]
    hands = sum(isinstance(e, HandStarted) for e in match.events)
    end = match.events[-1]
    assert isinstance(end, MatchEnded)
    assert [t.hands for t in tallies] == [hands] * 3
    assert sum(t.wins for t in tallies) == len(wins)
    assert sorted(t.placement for t in tallies) == [1, 2, 3]
    assert [t.points for t in tallies] == list(end.points)
    dealer, paid = 0, [0, 0, 0]
    for e in match.events:
        if isinstance(e, HandStarted):
            dealer = e.dealer
        elif isinstance(e, HandWon):
            paid[e.seat] += e.score.payments.total(e.seat == e.from_seat, e.seat == dealer)
    assert [t.win_points for t in tallies] == paid
    assert wins and any(paid)


# -- broken players ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("broken", "status", "budget_s"),
    [(Raises, "error", None), (Illegal, "illegal", None), (Slow, "overrun", 0.001)],
)
def test_a_broken_player_gets_the_default_and_the_match_completes(
    broken: type[Player], status: str, budget_s: float | None
) -> None:
    out = play_match(entrants(broken, Simple, Simple), 9, ONE_HAND, rotation=1, budget_s=budget_s)
    counts = out.answers[0]
    assert counts.decisions > 0
    assert getattr(counts, status) == counts.decisions
    assert sorted(t.placement for t in out.tallies) == [1, 2, 3]
    others = out.answers[1]
    if budget_s is None:
        assert others.ok == others.decisions  # the others are unaffected
    else:  # a 1 ms budget: on a loaded machine even a quick bot may be late once, never wrong
        assert others.error == others.illegal == 0 and others.ok > 0
    assert out.tallies[0].wins == 0


def test_a_player_that_cannot_observe_is_counted_and_plays_on() -> None:
    out = play_match(entrants(BadObserver, Simple, Simple), 3, ONE_HAND)
    assert out.answers[0].observe_error >= 1
    assert sorted(t.placement for t in out.tallies) == [1, 2, 3]


# -- player specs and the CLI -------------------------------------------------------------------


def test_player_specs() -> None:
    assert parse_player("normal").name == "normal"
    factory = parse_player("py:tests.test_arena:Tsumogiri").factory
    assert isinstance(factory(1, 0), Tsumogiri)
    assert parse_player("mjai:python -m sanma mjai-bot --level normal").name.startswith("mjai:")
    assert [e.name for e in parse_players("normal, beginner,beginner")] == ["normal", "beginner", "beginner"]
    for bad in ("grandmaster", "py:nowhere:X", "py:tests.test_arena:nothing", "mjai:", "normal,normal"):
        with pytest.raises(SanmaError):
            parse_players(bad) if "," in bad else parse_player(bad)


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sanma", "arena", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


@pytest.mark.slow
def test_cli_plays_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "arena.json"
    players = "py:tests.test_arena:Simple,py:tests.test_arena:RandomLegal,py:tests.test_arena:Tsumogiri"
    args = ["--players", players, "--matches", "5", "--length", "one-hand", "--no-red", "--seed", "3"]
    proc = arena(*args, "--workers", "2", "--json", str(out), "--budget-ms", "500")
    assert proc.returncode == 0, proc.stderr
    assert "place" in proc.stdout and "py:tests.test_arena:Simple" in proc.stdout
    assert "seed groups" in proc.stderr  # the progress bar
    report = json.loads(out.read_text())
    assert report["config"]["matches"] == 6 and report["config"]["seed_groups"] == 2
    assert report["config"]["red_fives"] is False and report["config"]["length"] == "one-hand"
    assert report["config"]["budget_ms"] == 500
    assert [p["matches_per_seat"] for p in report["players"]] == [[2, 2, 2]] * 3
    for p in report["players"]:
        assert set(p) >= {"placement", "final_score", "win_rate", "deal_in_rate", "riichi_rate", "call_rate"}
        assert p["answers"]["illegal"] == p["answers"]["error"] == 0
        assert p["latency_ms"]["p99"] is not None
    # The same run in one process gives the same figures.
    out1 = tmp_path / "one.json"
    proc = arena(*args, "--workers", "1", "--json", str(out1), "--budget-ms", "500", "--no-progress")
    assert proc.returncode == 0 and proc.stderr.count("seed groups") == 0
    assert stable(json.loads(out1.read_text())) == stable(report)


@pytest.mark.slow
def test_cli_plays_six_seat_orders_per_seed(tmp_path: Path) -> None:
    out = tmp_path / "six.json"
    players = "py:tests.test_arena:Simple,py:tests.test_arena:Tsumogiri,py:tests.test_arena:Tsumogiri"
    proc = arena(
        *("--players", players, "--matches", "7", "--rotations", "6", "--length", "one-hand"),
        *("--seed", "4", "--workers", "1", "--no-progress", "--json", str(out)),
    )
    assert proc.returncode == 0, proc.stderr
    config = json.loads(out.read_text())["config"]
    assert (config["rotations"], config["seed_groups"], config["matches"]) == (6, 2, 12)
    assert [p["matches_per_seat"] for p in json.loads(out.read_text())["players"]] == [[4, 4, 4]] * 3
    refused = arena("--players", players, "--rotations", "4")
    assert refused.returncode == 2 and "--rotations" in refused.stderr


def test_cli_refuses_bad_players() -> None:
    proc = arena("--players", "normal,beginner", "--matches", "3")
    assert proc.returncode == 2 and "exactly three" in proc.stderr


@pytest.mark.skipif(
    not all(level_available(lv) for lv in ("normal", "beginner")), reason="the bot levels are not written yet"
)
def test_cli_seats_bot_levels_by_name(tmp_path: Path) -> None:
    out = tmp_path / "levels.json"
    proc = arena(
        *("--players", "normal,beginner,beginner", "--matches", "3", "--length", "one-hand"),
        *("--seed", "8", "--workers", "1", "--no-progress", "--json", str(out)),
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    assert [p["player"] for p in report["players"]] == ["normal", "beginner", "beginner"]
    for p in report["players"]:
        assert p["answers"]["ok"] == p["answers"]["decisions"] > 0


@pytest.mark.slow
@pytest.mark.skipif(not level_available("beginner"), reason="the bot levels are not written yet")
def test_an_mjai_subprocess_takes_a_seat() -> None:
    spec = f"mjai:{shlex.quote(sys.executable)} -m sanma mjai-bot --level beginner"
    names = parse_players(f"{spec},beginner,py:tests.test_arena:Simple")
    result = run_arena(ArenaConfig(names, groups=1, rules=ONE_HAND, seed=4), workers=1)
    remote = result.summaries()[0]
    assert remote.name == spec and remote.matches == 3
    assert remote.answers.decisions > 0
    assert remote.answers.ok == remote.answers.decisions, remote.answers
