"""Expert specifics: plain speed while nobody threatens, two-step efficiency at 1-shanten,
and the two-step outlook itself checked against a brute-force count."""

from __future__ import annotations

from sanma.bots.base import ask
from sanma.bots.defence import threats
from sanma.bots.expert import under_pressure
from sanma.bots.heuristics import discard_options, efficient_discard, know, tenpai_outlook
from sanma.engine.actions import Discard
from sanma.engine.shanten import shanten, waits
from sanma.engine.tiles import KIND_COUNT, kind_of
from tests.fixtures.bots import bot_with, turn_legal, view_events


def _shanten_without(tiles: list[int], tile: int) -> int:
    counts = [0] * KIND_COUNT
    for t in tiles:
        if t != tile:
            counts[kind_of(t)] += 1
    return shanten(counts, 0)


def test_expert_never_steps_back_while_nobody_threatens() -> None:
    # An early 2-shanten with few improving tiles (honor pairs): a wider 3-shanten after
    # dropping 9s can look better to a value model; plain speed keeps the 2-shanten.
    events, mine, drawn = view_events("35667p5689s2233z", "7z", [(1, "1s", False), (2, "9p", False)])
    assert drawn is not None
    bot = bot_with("expert", events)
    k = know(bot.view)
    assert not under_pressure(threats(bot, k))
    hand = [*mine, drawn]
    action = ask(bot, turn_legal(hand)).action
    assert isinstance(action, Discard)
    best = min(_shanten_without(hand, t) for t in hand)
    assert _shanten_without(hand, action.tile) == best == 2


def test_a_riichi_puts_the_expert_under_pressure() -> None:
    events, _, _ = view_events("35667p5689s2233z", "7z", [(1, "1s", True)])
    bot = bot_with("expert", events)
    assert under_pressure(threats(bot, know(bot.view)))


def test_expert_prefers_the_better_tenpai_at_one_shanten() -> None:
    # 11335p 22566778s + 6p: dropping 6p is widest (most improving tiles) but its tenpai
    # are often closed or pair waits; dropping 1p keeps 3356p whose tenpai wait wider.
    events, mine, drawn = view_events("11335p22566778s", "6p")
    assert drawn is not None
    bot = bot_with("expert", events)
    k = know(bot.view)
    options = discard_options(k)
    legal = turn_legal([*mine, drawn])
    plain = efficient_discard(k, legal, options, riichi=False)
    action = ask(bot, legal).action
    assert isinstance(action, Discard)
    assert options[kind_of(action.tile)].shanten == options[kind_of(plain.tile)].shanten == 1
    chosen, widest = kind_of(action.tile), kind_of(plain.tile)
    assert chosen != widest

    def outlook(kind: int) -> float:
        counts = k.counts[:]
        counts[kind] -= 1
        return tenpai_outlook(k, counts, options[kind].improving)

    assert outlook(chosen) > outlook(widest)


def test_tenpai_outlook_matches_a_brute_force_count() -> None:
    # Every unseen draw, every discard after it: the best tenpai's live waits (the discard
    # counts as seen), weighted by the draw's unseen copies; draws that give no tenpai add 0.
    events, _, _ = view_events("11335p22566778s", None, [(1, "4p", False), (2, "7s", False)])
    bot = bot_with("normal", events)
    k = know(bot.view)
    assert shanten(k.counts, 0) == 1
    draws = {kind: 4 - k.counts[kind] - k.visible[kind] for kind in range(KIND_COUNT)}
    draws = {kind: n for kind, n in draws.items() if n > 0}
    expected = 0
    for draw, n in draws.items():
        hand = k.counts[:]
        hand[draw] += 1
        best = 0
        for x in range(KIND_COUNT):
            if hand[x]:
                rest = hand[:]
                rest[x] -= 1
                best = max(best, sum(4 - rest[w] - k.visible[w] - (w == x) for w in waits(rest, 0)))
        expected += n * best
    assert expected > 0
    assert tenpai_outlook(k, k.counts[:], draws) == expected
