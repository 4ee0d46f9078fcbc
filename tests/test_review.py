"""The master's review (``sanma.bots.review``, ``sanma review``): consistent with the master's
own play, and planted blunders come first."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from sanma.bots.base import ask
from sanma.bots.master import LearnedMaster
from sanma.bots.registry import make_bot
from sanma.bots.review import review
from sanma.engine.actions import Action, Discard
from sanma.engine.errors import InvalidLog
from sanma.engine.events import Event, MatchStarted
from sanma.engine.kyoku import Kyoku, LegalActions
from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.engine.tiles import EAST, parse_kind
from sanma.engine.visibility import redact
from sanma.engine.wall import Deal
from sanma.server.codec import event_to_store

RULES = Rules(length="east", red_fives=False)
Script = Callable[[int, LegalActions, Kyoku], Action | None]


def _deal(hands: tuple[str, str, str], draws: str) -> Deal:
    """A deal from three 13-tile hands and the first live draws (mpsz, one kind per two
    characters: ``"1p"``); the rest of the wall is every other tile in order."""
    used = [0] * 27
    out: list[list[int]] = []
    for text in (*hands, draws):
        tiles = []
        for i in range(0, len(text), 2):
            kind = parse_kind(text[i : i + 2])
            tiles.append(kind * 4 + used[kind])
            used[kind] += 1
        out.append(tiles)
    rest = [kind * 4 + c for kind in range(27) for c in range(used[kind], 4)]
    wall = out[0] + out[1] + out[2] + out[3] + rest
    assert len(wall) == 108 and len(set(wall)) == 108
    live = tuple(wall[39:94])
    return Deal(
        hands=(tuple(wall[0:13]), tuple(wall[13:26]), tuple(wall[26:39])),
        live=live,
        replacements=tuple(wall[94:98]) + tuple(reversed(live[-4:])),
        dora_indicators=tuple(wall[98:103]),
        ura_indicators=tuple(wall[103:108]),
    )


def _play_hand(deal: Deal, dealer: int, scores: tuple[int, int, int], script: Script, steps: int) -> list[Event]:
    """The events of a hand's first ``steps`` decisions: ``script`` answers where it
    wants to, everyone else lets its tile go (or passes)."""
    kyoku = Kyoku.start(deal, rules=RULES, round_wind=EAST, dealer=dealer, honba=0, deposits=0, scores=scores)
    events: list[Event] = list(kyoku.events)
    for _ in range(steps):
        seat = kyoku.awaiting()[0]
        legal = kyoku.legal_actions(seat)
        action = script(seat, legal, kyoku)
        assert legal.default is not None
        events += kyoku.apply(seat, action if action is not None else legal.default)
    return events


def _tile(kyoku: Kyoku, seat: int, kind: str, riichi: bool = False) -> Discard:
    k = parse_kind(kind)
    return Discard(next(t for t in kyoku.hand(seat) if t >> 2 == k), riichi)


def pushed_into_riichi() -> list[Event]:
    """East 1: seat 1 declares riichi at once; seat 0, far from tenpai, then lets a live 5p
    go while it holds the East seat 1 has just discarded (genbutsu)."""
    deal = _deal(("1m3p5p8p2s4s7s9s1z2z3z5z7z", "1p2p3p4p5p6p7p8p9p2s3s5s5s", "9m9m1s1s3s3s6s6s8s8s2z3z4z"), "6s1z2p9m")
    moves = iter([(0, "7z", False), (1, "1z", True), (2, None, False), (0, "5p", False)])

    def script(seat: int, legal: LegalActions, kyoku: Kyoku) -> Action | None:
        want, kind, riichi = next(moves)
        assert want == seat
        return _tile(kyoku, seat, kind, riichi) if kind else None

    return _play_hand(deal, 0, (35000, 35000, 35000), script, 4)


def dama_at_all_last() -> list[Event]:
    """East 3 (all-last), seat 0 second by 3,000: its tenpai (tanyao pinfu, 1,000-2,000 by
    ron) stays dama, where riichi's 3,900 would take first place."""
    deal = _deal(("2p3p4p5p6p7p3s4s5s6s6s7s8s", "1m1m9m9m1p1p9p9p1s1s9s2s5p", "2z2z3z3z5z5z6z6z7z7z1p9p4z"), "2z1z")
    moves = iter([(2, None, False), (0, "1z", False)])

    def script(seat: int, legal: LegalActions, kyoku: Kyoku) -> Action | None:
        want, kind, riichi = next(moves)
        assert want == seat
        return _tile(kyoku, seat, kind, riichi) if kind else None

    return _play_hand(deal, 2, (36000, 39000, 30000), script, 2)


def test_planted_blunders_are_listed_first() -> None:
    start: list[Event] = [MatchStarted(seed=0, rules=RULES, wall_algorithm="test")]
    push = review(start + pushed_into_riichi(), 0)
    top = push.decisions[0]
    assert top.choice == "discard 5p" and top.master == "discard 1z", top
    assert top.loss is not None and top.loss > 0.3
    assert all(d.loss is None or d.loss < top.loss for d in push.decisions[1:])
    dama = review(start + dama_at_all_last(), 0)
    top = dama.decisions[0]
    assert top.choice == "discard 1z" and top.master == "riichi 1z", top
    assert top.loss is not None and top.loss > 0.3
    both = review(start + pushed_into_riichi() + dama_at_all_last(), 0)
    assert {d.choice for d in both.decisions[:2]} == {"discard 5p", "discard 1z"}
    assert [d.hand for d in both.decisions[:2]] != ["", ""]


def _master_match(seed: int) -> list[Event]:
    match = Match(seed, Rules(length="one-hand"))
    bots = [LearnedMaster(0) if s == 0 else make_bot("expert", s, seed) for s in range(3)]
    for e in match.events:
        for s, bot in enumerate(bots):
            bot.observe(redact(e, s))
    while not match.finished:
        seat = match.awaiting()[0]
        for e in match.apply(seat, ask(bots[seat], match.legal_actions(seat)).action):
            for s, bot in enumerate(bots):
                bot.observe(redact(e, s))
    return match.events


def test_the_masters_own_decisions_cost_nothing() -> None:
    priced = 0
    for seed in (3, 4):
        rev = review(_master_match(seed), 0)
        assert rev.decisions and all(d.choice == d.master for d in rev.decisions), rev.decisions[:3]
        assert all(d.loss in (None, 0.0) for d in rev.decisions)
        priced += sum(d.loss is not None for d in rev.decisions)
    assert priced >= 5


@pytest.mark.slow
def test_cli_prints_the_review_as_json(tmp_path: Path) -> None:
    log = tmp_path / "match.json"
    log.write_text(json.dumps([event_to_store(e) for e in _master_match(5)]))
    run = subprocess.run(
        [sys.executable, "-m", "sanma", "review", str(log), "--seat", "1", "--top", "3"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["seat"] == 1 and report["decisions"] > 0 and len(report["mistakes"]) <= 3
    losses = [m["loss"] for m in report["mistakes"] if m["loss"] is not None]
    assert losses == sorted(losses, reverse=True)
    bad = tmp_path / "bad.json"
    bad.write_text('{"events": [{"t": "Nope"}]}')
    run = subprocess.run(
        [sys.executable, "-m", "sanma", "review", str(bad), "--seat", "0"], capture_output=True, text=True, check=False
    )
    assert run.returncode == 2 and "InvalidLog" in run.stderr


def test_a_log_must_start_the_match_and_name_a_seat() -> None:
    with pytest.raises(InvalidLog):
        review(dama_at_all_last(), 0)
    with pytest.raises(InvalidLog):
        review([MatchStarted(seed=0, rules=RULES, wall_algorithm="test")], 3)
