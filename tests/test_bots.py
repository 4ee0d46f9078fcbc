"""Bots Beginner, Normal, Expert: legality over seeded matches, determinism, and behaviour
on scripted positions (a seat view folded from hand-written events, or a scripted deal)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from sanma.bots.base import Player, ask
from sanma.bots.heuristics import know
from sanma.bots.registry import make_bot
from sanma.engine.actions import Discard, Kita, Pass, Pon, Ron, Tsumo
from sanma.engine.kyoku import LegalActions
from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.engine.shanten import shanten
from sanma.engine.tiles import kind_of, parse_kind
from sanma.engine.visibility import redact
from tests.fixtures.bots import bot_with, turn_legal, view_events
from tests.fixtures.kyoku import make_deal

LEVELS = ("beginner", "normal", "expert")


# -- whole matches ----------------------------------------------------------------------------


def play(seed: int, levels: Sequence[str], rules: Rules, deals: object = None) -> tuple[Match, list[str]]:
    """One match between bots fed their redacted events; returns the match and every
    answer status."""
    match = Match(seed, rules, deals=deals) if deals is not None else Match(seed, rules)  # type: ignore[arg-type]
    bots = [make_bot(level, seat, seed + seat) for seat, level in enumerate(levels)]
    for event in match.events:
        for s, bot in enumerate(bots):
            bot.observe(redact(event, s))
    statuses = []
    while not match.finished:
        seat = match.awaiting()[0]
        answer = ask(bots[seat], match.legal_actions(seat))
        statuses.append(answer.status)
        if answer.status != "ok":
            raise AssertionError(f"{levels[seat]} answered {answer.status}: {answer.detail}")
        for event in match.apply(seat, answer.action):
            for s, bot in enumerate(bots):
                bot.observe(redact(event, s))
    return match, statuses


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("seed", [11, 12])
def test_every_answer_is_legal_over_seeded_matches(level: str, seed: int) -> None:
    others = "normal" if level != "normal" else "beginner"
    rules = Rules(length="east", red_fives=seed % 2 == 0)
    match, statuses = play(seed, (level, others, others), rules)
    assert match.finished
    assert statuses and all(s == "ok" for s in statuses)
    match.check_invariants()


def test_same_seed_same_decisions() -> None:
    rules = Rules(length="east")
    first, _ = play(5, LEVELS, rules)
    second, _ = play(5, LEVELS, rules)
    assert first.events == second.events


def test_registry_builds_each_level() -> None:
    for seat, level in enumerate(LEVELS):
        bot = make_bot(level, seat, 3)
        assert isinstance(bot, Player) and bot.seat == seat
        assert bot.name == level.capitalize()


# -- scripted positions -------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_takes_a_tsumo_on_a_scripted_deal(level: str) -> None:
    # Dealer (seat 0) draws its winning tile at once: tenhou.
    deal = make_deal(["123456789p1134s", "19m19p19s1234567z", "2233445566778s"], "2s")
    match = Match(1, Rules(length="one-hand"), deals=lambda i: deal)
    bot = make_bot(level, 0, 0)
    for e in match.events:
        bot.observe(redact(e, 0))
    legal = match.legal_actions(0)
    assert Tsumo() in legal
    assert ask(bot, legal).action == Tsumo()


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_takes_a_ron(level: str) -> None:
    # Seat 0 waits on 6s/9s with a white triplet (yakuhai) and seat 1 throws 9s.
    events, _, _ = view_events("345p456s78s555z11m", None, [(1, "9s", False)], seat=0, dealer=1)
    bot = bot_with(level, events)
    legal = LegalActions((Ron(), Pass()), Pass())
    assert ask(bot, legal).action == Ron()


@pytest.mark.parametrize("level", ["normal", "expert"])
def test_normal_and_expert_extract_kita(level: str) -> None:
    events, mine, drawn = view_events("2468p2468s11m579p", "4z")
    assert drawn is not None
    bot = bot_with(level, events)
    legal = turn_legal([*mine, drawn], [Kita()])
    assert ask(bot, legal).action == Kita()


def test_normal_does_not_pon_into_a_yakuless_hand() -> None:
    # A pon of 5p would leave an open hand with terminals and no value tile: no yaku.
    events, _, _ = view_events("55p19m1289s13p123z", None, [(1, "5p", False)])
    bot = bot_with("normal", events)
    legal = LegalActions((Pon(parse_kind("5p")), Pass()), Pass())
    assert ask(bot, legal).action == Pass()
    # ... while a pon of its dragon is a yaku by itself.
    events, _, _ = view_events("55p19m1289s13p556z", None, [(1, "5z", False)])
    bot = bot_with("normal", events)
    legal = LegalActions((Pon(parse_kind("5z")), Pass()), Pass())
    assert ask(bot, legal).action == Pon(parse_kind("5z"))


def test_expert_folds_with_genbutsu_against_riichi_when_its_hand_is_bad() -> None:
    # Seat 1 declared riichi on 5p; seat 0 is far from tenpai and holds a 5p.
    river = [(1, "1z", False), (2, "9s", False), (1, "2z", False), (2, "1s", False), (1, "5p", True)]
    events, mine, drawn = view_events("19m37p5p258s13467z", "6s", river)
    assert drawn is not None
    bot = bot_with("expert", events)
    k = know(bot.view)
    assert shanten(k.counts, 0) >= 3
    action = ask(bot, turn_legal([*mine, drawn])).action
    assert isinstance(action, Discard)
    safe = {parse_kind(t) for t in ("1z", "2z", "5p")}  # the riichi player's own river
    assert kind_of(action.tile) in safe


def test_expert_pushes_a_big_tenpai_against_riichi() -> None:
    # Seat 0: honitsu in pin with dora, tenpai after dropping the unsafe 4s (sure discard);
    # the alternative is breaking the hand with genbutsu 5p.
    river = [(1, "1z", False), (2, "9s", False), (1, "5p", True)]
    events, mine, drawn = view_events("1112345678p555z", "4s", river, dora="4p")
    assert drawn is not None
    bot = bot_with("expert", events)
    action = ask(bot, turn_legal([*mine, drawn])).action
    assert isinstance(action, Discard)
    rest = [t for t in [*mine, drawn] if t != action.tile]
    counts = [0] * 27
    for t in rest:
        counts[kind_of(t)] += 1
    assert shanten(counts, 0) == 0, "keeps the big tenpai"


def test_beginner_never_discards_from_a_complete_hand() -> None:
    events, mine, drawn = view_events("123456789p1134s", "2s")
    assert drawn is not None
    for seed in range(20):
        bot = make_bot("beginner", 0, seed)
        for e in events:
            bot.observe(e)
        assert ask(bot, turn_legal([*mine, drawn], [Tsumo()])).action == Tsumo()
