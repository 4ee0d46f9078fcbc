"""The classic master (``legacy.master``, frozen; run by hand, see legacy/README.md):
legality and determinism over seeded matches (with a reduced search budget so the suite stays
fast), the search's own futures, and scripted positions."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

import pytest

from legacy.master import FLOOR, MasterBot, placement, placement_weights, unseen_tiles
from legacy.master_defence import (
    OTHER_LOSS,
    OTHER_SHAPES,
    RIICHI_LOSS,
    RIICHI_SHAPES,
    master_threats,
    tenpai_estimate,
)
from legacy.search import Setup, estimate, paired_gap, play_future, sample_futures
from sanma.bots.base import ask
from sanma.bots.defence import (
    SHAPE_WEIGHTS,
    TYPICAL_DANGER,
    Threat,
    shape_weights,
    tenpai_chance,
    threats,
    typical_danger,
    wait_danger,
)
from sanma.bots.expert import Weights
from sanma.bots.heuristics import Option, discard_options, know, own_counts, tenpai_after, win_context
from sanma.bots.registry import display_name, make_bot
from sanma.engine.actions import Discard, Pass, Pon
from sanma.engine.events import Event, HandStarted, MeldCalled, RiichiAccepted, TileDiscarded, TileDrawn
from sanma.engine.hand import Meld, MeldType
from sanma.engine.kyoku import LegalActions
from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.engine.shanten import shanten
from sanma.engine.tiles import KIND_COUNT, kind_of, parse_kind
from sanma.engine.visibility import HIDDEN, redact
from tests.fixtures.bots import turn_legal, view_events


def play_master(seed: int, rules: Rules, samples: int = 12, **switches: bool) -> tuple[Match, list[str], MasterBot]:
    """One match: a master (small budget, ``switches`` on) in seat 0 against two Experts."""
    match = Match(seed, rules)
    master = MasterBot(0, seed, samples=samples, **switches)  # type: ignore[arg-type]
    bots = [master, make_bot("expert", 1, seed + 1), make_bot("expert", 2, seed + 2)]
    for event in match.events:
        for s, bot in enumerate(bots):
            bot.observe(redact(event, s))
    statuses = []
    while not match.finished:
        seat = match.awaiting()[0]
        answer = ask(bots[seat], match.legal_actions(seat))
        statuses.append(answer.status)
        assert answer.status == "ok", f"seat {seat} answered {answer.status}: {answer.detail}"
        for event in match.apply(seat, answer.action):
            for s, bot in enumerate(bots):
                bot.observe(redact(event, s))
    return match, statuses, master


def _classic(events: Sequence[Event]) -> MasterBot:
    """The classic master (the Expert with its close discards searched) after ``events``."""
    bot = MasterBot(0, 1)
    for e in events:
        bot.observe(e)
    return bot


def test_the_classic_master_keeps_its_own_name() -> None:
    assert MasterBot(0, 7).name == "Classic master" != display_name("master")


def test_every_answer_is_legal_and_the_search_runs() -> None:
    searches = 0
    for seed, red in ((21, True), (22, False)):
        match, statuses, master = play_master(seed, Rules(length="one-hand", red_fives=red))
        assert match.finished and statuses and all(s == "ok" for s in statuses)
        match.check_invariants()
        searches += master.searches
    assert searches > 0, "some decisions are close enough to be searched"


def test_pressure_search_and_placement_weights_play_legally() -> None:
    match, statuses, master = play_master(31, Rules(length="east"), samples=8, pressed=True, placement=True)
    assert match.finished and all(s == "ok" for s in statuses)
    assert master.searches > 0


def test_same_seed_same_decisions() -> None:
    rules = Rules(length="one-hand")
    first, _, _ = play_master(5, rules)
    second, _, _ = play_master(5, rules)
    assert first.events == second.events


def _setup_for(
    hand: str, drawn: str, others: list[tuple[int, str, bool]] | None = None
) -> tuple[Setup, list[int], list[int]]:
    """The search setup of a scripted turn, its 14 tiles and the tiles the seat cannot see."""
    events, mine, draw = view_events(hand, drawn, others or [])
    assert draw is not None
    bot = _classic(events)
    assert isinstance(bot, MasterBot)
    k = know(bot.view)
    setup = bot._setup(k)
    pool = unseen_tiles(k)
    setup.pool_size = len(pool)
    return setup, [*mine, draw], pool


def test_unseen_tiles_are_the_complement_of_what_the_seat_sees() -> None:
    events, mine, draw = view_events("123456789p1134s", "2s", [(1, "9s", False)])
    bot = _classic(events)
    pool = unseen_tiles(know(bot.view))
    assert len(pool) == 108 - 14 - 1 - 1  # own hand, one discard, the dora indicator
    assert not set(pool) & {*mine, draw}


def test_a_future_that_draws_the_winning_tile_wins_by_tsumo() -> None:
    setup, hand14, _ = _setup_for("123456789p1134s", "7z")
    hand = [t for t in hand14 if kind_of(t) != parse_kind("7z")]
    win = parse_kind("2s") * 4 + 1  # a plain copy of 2s
    value, won, discards = play_future(setup, hand, parse_kind("7z"), [win])
    # Won for sure in this future: by a ron before the draw (expected) or by the tsumo,
    # discounted only by the chance another seat wins first.
    assert 0.9 < won <= 1.0 and discards == 0.0
    assert value > 3900  # at least riichi and ittsu (3 han), more by tsumo


def _without(hand: list[int], kind: str) -> list[int]:
    rest = list(hand)
    rest.remove(next(t for t in rest if kind_of(t) == parse_kind(kind)))
    return rest


def test_keeping_tenpai_beats_breaking_the_hand_over_the_same_futures() -> None:
    # Dropping 5s waits on 2s-5s with ittsu; dropping 1p breaks the straight (back to 1-shanten).
    setup, hand14, pool = _setup_for("123456789p1134s", "5s", [(1, "9s", False)])
    futures = sample_futures(pool, 200, setup.horizon + 6, random.Random(3))
    tenpai = estimate(setup, _without(hand14, "5s"), parse_kind("5s"), futures)
    broken = estimate(setup, _without(hand14, "1p"), parse_kind("1p"), futures)
    gap, se = paired_gap(tenpai.utility(1.0, 100.0), broken.utility(1.0, 100.0))
    # Speed is about even (the broken hand has wide ways back), the straight's value is not.
    assert tenpai.value > broken.value and gap > 3 * se > 0


def test_a_furiten_wait_wins_only_by_tsumo() -> None:
    # The same tenpai on 2s-5s, once with 5s in the seat's own river: furiten, no ron.
    setup, hand14, pool = _setup_for("123456789p1134s", "5s")
    futures = sample_futures(pool, 200, setup.horizon + 6, random.Random(4))
    hand = _without(hand14, "5s")
    live = estimate(setup, hand, parse_kind("7z"), futures)  # as if a 7z had gone
    furiten = estimate(setup, hand, parse_kind("5s"), futures)
    assert furiten.win < live.win and furiten.value < live.value


def test_master_keeps_the_live_tenpai() -> None:
    # Drop 1s: tenpai on 2s-5s with ittsu; drop 4s or 3s: worse or no tenpai.
    events, mine, drawn = view_events("123456789p1134s", "2s", [(1, "9s", False)])
    assert drawn is not None
    bot = _classic(events)
    action = ask(bot, turn_legal([*mine, drawn])).action
    assert isinstance(action, Discard)
    rest = [t for t in [*mine, drawn] if t != action.tile]
    counts = [0] * KIND_COUNT
    for t in rest:
        counts[kind_of(t)] += 1
    assert shanten(counts, 0) == 0


def test_win_context_for_search_assumes_riichi_only_when_closed() -> None:
    events, _, _ = view_events("123456789p1134s", "2s")
    bot = _classic(events)
    k = know(bot.view)
    assert win_context(k, tsumo=True, riichi=k.closed).riichi


def test_priced_discards_cost_their_own_danger() -> None:
    # A 1-shanten hand that lets draws go: with every kind priced 1 the cost is the count of
    # discards made; with only the safe kinds free it is less; with nothing priced it is 0.
    setup, hand14, pool = _setup_for("123456789p1139s", "5z", [(1, "9s", False)])
    hand = _without(hand14, "5z")
    futures = sample_futures(pool, 40, setup.horizon + 6, random.Random(5))
    plain = estimate(setup, hand, parse_kind("5z"), futures)
    ones = estimate(setup, hand, parse_kind("5z"), futures, [1.0] * KIND_COUNT)
    assert ones.values == plain.values and ones.discards == plain.discards
    free = estimate(setup, hand, parse_kind("5z"), futures, [0.0] * KIND_COUNT)
    assert all(d == 0.0 for d in free.discards)
    honors_free = [0.0 if kind >= parse_kind("1z") else 1.0 for kind in range(KIND_COUNT)]
    some = estimate(setup, hand, parse_kind("5z"), futures, honors_free)
    assert some.discard_count < plain.discard_count


def test_placement_ranks_ties_by_seat_order() -> None:
    assert placement([35000, 35000, 35000], 0) == 1
    assert placement([35000, 35000, 35000], 2) == 3
    assert placement([20000, 45000, 40000], 0) == 3


def _threat(seat: int, tenpai: float, loss: float) -> Threat:
    return Threat(seat=seat, tenpai=tenpai, loss=loss, safe=frozenset(), flush_suit=0)


def test_all_last_weights_follow_the_placement_at_stake() -> None:
    opps = [_threat(1, 1.0, 8000.0), _threat(2, 0.1, 5000.0)]
    # Last but a typical win from anyone passes someone, and a deal-in cannot cost a place.
    gain, loss = placement_weights([30000, 40000, 35000], 0, opps)
    assert gain > 1.0 and loss == FLOOR
    # Leading by 20,000: neither a win nor a deal-in moves the placement.
    assert placement_weights([50000, 30000, 25000], 0, opps) == (FLOOR, FLOOR)
    # Second, 3,000 above the riichi seat: a deal-in to it costs the place.
    _, loss = placement_weights([36000, 39000, 33000], 0, [_threat(2, 1.0, 8000.0), _threat(1, 0.1, 5000.0)])
    assert loss >= 0.5 > FLOOR


# -- the master's reading of its opponents (master_defence) and the calm guard ---------------


def _opponent_view(
    discards: int, tsumogiri: bool, pons: int = 0, riichi: bool = False
) -> tuple[MasterBot, list[int], int]:
    """The master (seat 0, 13 tiles + a draw) after seat 1 made ``pons`` open pons (fed by
    seat 2) and ``discards`` discards, all drawn tiles let go when ``tsumogiri``."""
    tiles = iter(range(108))
    mine = [t for t in range(0, 108, 4)][:14]  # one copy of each of 14 kinds
    used = set(mine)
    events, _, _ = view_events("123456789p1134s", None)
    events = events[:2]  # match and hand start only; rebuilt below with our own tiles
    start = events[1]
    assert isinstance(start, HandStarted)
    hands = (tuple(mine[:13]), start.hands[1], start.hands[2])
    events[1] = replace(start, hands=hands)

    def fresh() -> int:
        return next(t for t in tiles if t not in used and (t >> 2) < parse_kind("5z"))

    for i in range(pons):
        base = parse_kind("5z") + i
        called = base * 4
        events += [TileDrawn(2, HIDDEN), TileDiscarded(2, called, tsumogiri=False)]
        meld = Meld(MeldType.PON, (called, called + 1, called + 2), called=called, from_seat=2)
        events += [MeldCalled(1, meld)]
        events += [TileDiscarded(1, fresh(), tsumogiri=False)]
    for i in range(discards):
        events += [TileDrawn(1, HIDDEN), TileDiscarded(1, fresh(), tsumogiri=tsumogiri, riichi=riichi and i == 0)]
        if riichi and i == 0:
            events.append(RiichiAccepted(1))
    events.append(TileDrawn(0, mine[13]))
    bot = MasterBot(0, 1, samples=8)
    for e in events:
        bot.observe(e)
    return bot, mine, 1


def test_riichi_is_tenpai_and_a_closed_hand_rarely_is() -> None:
    bot, _, seat = _opponent_view(3, False, riichi=True)
    assert tenpai_estimate(bot, seat) == 1.0
    bot, _, seat = _opponent_view(3, False)
    assert tenpai_estimate(bot, seat) < 0.03
    bot, _, seat = _opponent_view(12, True)
    assert 0.03 < tenpai_estimate(bot, seat) < 0.15


def test_open_hands_get_closer_with_calls_turns_and_tsumogiri() -> None:
    early = tenpai_estimate(*_opponent_view(3, False, pons=1)[::2])
    late = tenpai_estimate(*_opponent_view(10, False, pons=1)[::2])
    late_tsumogiri = tenpai_estimate(*_opponent_view(10, True, pons=1)[::2])
    two_calls = tenpai_estimate(*_opponent_view(10, False, pons=2)[::2])
    assert early < late < late_tsumogiri and late < two_calls
    # The fitted rates (one call at turns 9-11: 41% tenpai; two calls: 62%) are above the
    # Expert's guesses, the more so when the hand has stopped changing (tsumogiri).
    bot, _, seat = _opponent_view(9, True, pons=2)
    assert tenpai_estimate(bot, seat) > tenpai_chance(bot, seat)
    assert 0.45 < tenpai_estimate(bot, seat) < 0.75


def test_master_threats_match_the_experts_but_for_the_tenpai_chance() -> None:
    bot, _, _ = _opponent_view(9, True, pons=2)
    k = know(bot.view)
    mine, theirs = master_threats(bot, k), threats(bot, k)
    assert [replace(t, tenpai=0.0) for t in mine] == [replace(t, tenpai=0.0) for t in theirs]
    assert mine[0].tenpai > theirs[0].tenpai


def test_calm_guard_trades_no_width_for_a_genbutsu() -> None:
    # 1-shanten either way: letting 8p or 4p go leaves the same 12 improving tiles. Plain
    # speed lets 8p go; against an open hand that may be tenpai and has let 4p go, the
    # guard lets the genbutsu go instead. With nobody near tenpai it plays plain speed.
    events, mine, drawn = view_events("2244568p236668s", "9s")
    assert drawn is not None
    bot = _classic(events)
    assert isinstance(bot, MasterBot)
    k = know(bot.view)
    options = discard_options(k)
    legal = turn_legal([*mine, drawn])
    safe_4p = Threat(seat=1, tenpai=0.3, loss=8000.0, safe=frozenset({parse_kind("4p")}), flush_suit=0)
    calm = _threat(2, 0.0, 5000.0)
    bot._opps = [safe_4p, calm]
    bot.guard = False
    assert kind_of(bot._calm_discard(k, legal, options).action.tile) == parse_kind("8p")
    bot.guard = True
    assert kind_of(bot._calm_discard(k, legal, options).action.tile) == parse_kind("4p")
    bot._opps = [replace(safe_4p, tenpai=0.02), calm]
    assert kind_of(bot._calm_discard(k, legal, options).action.tile) == parse_kind("8p")


def test_follow_up_pon_speeds_up_a_hand_opened_by_yakuhai() -> None:
    # The master ponned white (5z) and let 1m go: 23p 456p 66s 88s 9s is 1-shanten; a pon
    # of 6s makes it tenpai (on 1p-4p after 9s goes), and white is already its yaku.
    events, mine, _ = view_events("55z23p456p66s88s1m9s", None, [(2, "5z", False)])
    called = next(e.tile for e in events if isinstance(e, TileDiscarded))
    whites = [t for t in mine if kind_of(t) == parse_kind("5z")]
    one_m = next(t for t in mine if kind_of(t) == parse_kind("1m"))
    six_s = next(t for t in range(108) if kind_of(t) == parse_kind("6s") and t not in mine)
    meld = Meld(MeldType.PON, tuple(sorted((*whites, called))), called=called, from_seat=2)
    events += [MeldCalled(0, meld), TileDiscarded(0, one_m, tsumogiri=False)]
    events += [TileDrawn(1, HIDDEN), TileDiscarded(1, six_s, tsumogiri=False)]
    legal = LegalActions((Pon(parse_kind("6s")), Pass()), Pass())
    plain = MasterBot(0, 1)
    follow = MasterBot(0, 1, follow_up=True)
    for e in events:
        plain.observe(e)
        follow.observe(e)
    assert ask(plain, legal).action == Pass()  # the Expert's calm calls: value tiles only
    assert ask(follow, legal).action == Pon(parse_kind("6s"))


def test_calm_dama_keeps_a_yaku_tenpai_quiet() -> None:
    # Dropping 1z leaves 234p 567p 34s 678s 55s: tanyao (pinfu) on 2s-5s, a yaku on every
    # wait. Nobody threatens: the plain master declares riichi, the dama master does not.
    events, mine, drawn = view_events("234567p34678s55s", "1z")
    assert drawn is not None
    legal = LegalActions(
        (*turn_legal([*mine, drawn]).actions, Discard(drawn, riichi=True)),
        Discard(drawn),
        frozenset((t, False) for t in [*mine, drawn]) | {(drawn, True)},
    )
    for dama, riichi in ((0.0, True), (1.0, False)):
        bot = MasterBot(0, 1, dama=dama)
        for e in events:
            bot.observe(e)
        action = ask(bot, legal).action
        assert action == Discard(drawn, riichi=riichi)
    # 123p 567p 35s 678s 55s waits on 4s alone with no yaku (1p: no tanyao; closed wait:
    # no pinfu): only riichi makes it a hand, so the dama master declares riichi too.
    events, mine, drawn = view_events("123567p35678s55s", "1z")
    assert drawn is not None
    legal = LegalActions(
        (*turn_legal([*mine, drawn]).actions, Discard(drawn, riichi=True)),
        Discard(drawn),
        frozenset((t, False) for t in [*mine, drawn]) | {(drawn, True)},
    )
    bot = MasterBot(0, 1, dama=1.0)
    for e in events:
        bot.observe(e)
    assert ask(bot, legal).action == Discard(drawn, riichi=True)


def _chase_legal(hand: str) -> tuple[list[Event], LegalActions]:
    """Seat 1 has declared riichi letting 1z go; the master draws another 1z (genbutsu)
    and may let it go with or without riichi."""
    events, mine, drawn = view_events(hand, "1z", [(1, "1z", True)])
    assert drawn is not None
    legal = LegalActions(
        (*turn_legal([*mine, drawn]).actions, Discard(drawn, riichi=True)),
        Discard(drawn),
        frozenset((t, False) for t in [*mine, drawn]) | {(drawn, True)},
    )
    return events, legal


def test_chase_riichi_only_with_a_wide_wait() -> None:
    # 123p 567p 13s 678s 55s: a closed wait on 2s (4 tiles), riichi its only yaku. Against
    # a riichi the Expert chases with riichi; with chase_live=5 the master stays dama
    # (it can still fold). 234p 567p 34s 678s 55s waits on 2s-5s-8s (9 tiles): riichi.
    for hand, wide in (("123567p13678s55s", False), ("234567p34678s55s", True)):
        events, legal = _chase_legal(hand)
        for chase in (0, 5):
            bot = MasterBot(0, 1, chase_live=chase)
            for e in events:
                bot.observe(e)
            action = ask(bot, legal).action
            assert isinstance(action, Discard) and kind_of(action.tile) == parse_kind("1z")
            assert action.riichi == (chase == 0 or wide)


def test_slow_push_counts_less_only_for_hands_not_yet_tenpai_under_pressure() -> None:
    events, _, _ = view_events("123567p13678s55s", "1z", [(1, "1z", True)])
    plain, slow = MasterBot(0, 1, slow_push=1.0), MasterBot(0, 1, slow_push=0.5)
    for bot in (plain, slow):
        for e in events:
            bot.observe(e)
    k = know(plain.view)
    w = Weights(2.0, 1.0)
    slow_one = Option(-1, 1, 12, {})
    tenpai = Option(-1, 0, 4, {})
    plain.pressed = slow.pressed = True
    assert slow._push(k, slow_one, 8000.0, 100.0, w) < plain._push(k, slow_one, 8000.0, 100.0, w)
    assert slow._push(k, tenpai, 8000.0, 100.0, w) == plain._push(k, tenpai, 8000.0, 100.0, w)
    slow.pressed = plain.pressed = False
    assert slow._push(k, slow_one, 8000.0, 100.0, w) == plain._push(k, slow_one, 8000.0, 100.0, w)


def test_chase_and_slow_push_play_legally_and_deterministically() -> None:
    rules = Rules(length="east")
    runs = []
    for _ in range(2):
        match = Match(33, rules)
        bots = [MasterBot(0, 33, samples=8, chase_live=5, slow_push=0.6), make_bot("expert", 1, 34)]
        bots.append(make_bot("expert", 2, 35))
        for event in match.events:
            for s, bot in enumerate(bots):
                bot.observe(redact(event, s))
        while not match.finished:
            seat = match.awaiting()[0]
            answer = ask(bots[seat], match.legal_actions(seat))
            assert answer.status == "ok", answer.detail
            for event in match.apply(seat, answer.action):
                for s, bot in enumerate(bots):
                    bot.observe(redact(event, s))
        match.check_invariants()
        runs.append(match.events)
    assert runs[0] == runs[1]


# -- the wait model by shape (defence.shape_weights) and the master's refits ---------------------


def test_wait_model_counts_each_shape_by_the_copies_an_opponent_could_hold() -> None:
    # Three 6s and an 8s in hand, 9s drawn: against 7s an opponent could hold pair waits
    # (all four 7s out: C(4,2)/3 shanpon, 4/3 tanki), 5s-6s two-sided (one 6s left: halved), 8s-9s edge, 6s-8s closed.
    events, _, _ = view_events("2244568p236668s", "9s")
    k = know(_classic(events).view)
    seven = parse_kind("7s")
    assert shape_weights(k, seven, frozenset()) == pytest.approx((2.0, 4 / 3, 0.5, 0.5, 1.0))
    # 4s genbutsu (suji) kills the two-sided wait; a genbutsu 7s is safe outright.
    assert shape_weights(k, seven, frozenset({parse_kind("4s")}))[2] == 0.0
    assert wait_danger(k, seven, frozenset({seven})) == 0.0
    # The Expert's danger is the hand-set weight per shape; a refit weighs them anew.
    expected = sum(w * x for w, x in zip(SHAPE_WEIGHTS, (2.0, 4 / 3, 0.5, 0.5, 1.0), strict=True))
    assert wait_danger(k, seven, frozenset()) == pytest.approx(expected)
    assert wait_danger(k, seven, frozenset(), RIICHI_SHAPES) != pytest.approx(expected)
    # Honors and 1m/9m form no sequences: pair waits only, fewer as copies show.
    assert shape_weights(k, parse_kind("1z"), frozenset())[2:] == (0.0, 0.0, 0.0)


def test_master_refits_apply_per_opponent_and_only_when_switched_on() -> None:
    bot, _, seat = _opponent_view(5, False, riichi=True)
    k = know(bot.view)
    plain = master_threats(bot, k)
    fitted = master_threats(bot, k, fitted_waits=True, fitted_loss=True, typical=0.06)
    riichi = next(t for t in fitted if t.seat == seat)
    assert riichi.shapes == RIICHI_SHAPES and riichi.loss == pytest.approx(plain[0].loss * RIICHI_LOSS)
    quiet = next(t for t in fitted if t.seat != seat)
    assert quiet.shapes == OTHER_SHAPES and quiet.loss == pytest.approx(plain[1].loss * OTHER_LOSS)
    assert typical_danger(k, fitted) > typical_danger(k, [replace(t, typical=TYPICAL_DANGER) for t in fitted])
    assert all(t.shapes == SHAPE_WEIGHTS and t.typical == TYPICAL_DANGER for t in plain)


def test_pressure_threshold_and_tenpai_push_are_the_masters_own() -> None:
    open_hand = [_threat(1, 0.4, 8000.0), _threat(2, 0.0, 5000.0)]
    assert not MasterBot(0, 1)._under_pressure(open_hand)
    assert MasterBot(0, 1, pressure=0.35)._under_pressure(open_hand)
    events, _, _ = view_events("123567p13678s55s", "1z", [(1, "1z", True)])
    plain, bold = MasterBot(0, 1), MasterBot(0, 1, tenpai_push=1.5)
    for bot in (plain, bold):
        for e in events:
            bot.observe(e)
    k = know(plain.view)
    hand = list(k.hand)
    tenpai = tenpai_after(k, hand[:-1], own_counts(k))
    assert tenpai is not None
    plain.pressed = bold.pressed = True
    w = Weights(2.0, 1.0)
    assert bold._tenpai_push(k, tenpai, False, 100.0, w) > plain._tenpai_push(k, tenpai, False, 100.0, w)


def test_a_hand_that_discards_nothing_keeps_its_river_as_it_is() -> None:
    # Passing on a call leaves the 13 tiles as they are: no discard joins the river, so a
    # live wait stays live (a pon's discard, by contrast, may make the hand furiten).
    setup, hand14, pool = _setup_for("123456789p1134s", "5s")
    futures = sample_futures(pool, 100, setup.horizon + 6, random.Random(5))
    hand = _without(hand14, "5s")
    waiting = estimate(setup, hand, None, futures)
    furiten = estimate(setup, hand, parse_kind("5s"), futures)
    assert waiting.values == estimate(setup, hand, parse_kind("7z"), futures).values
    assert waiting.win > furiten.win


def test_call_search_plays_legally_deterministically_and_searches_calls() -> None:
    runs = []
    for _ in range(2):
        match, statuses, master = play_master(101, Rules(length="east"), samples=16, call_search=True)
        assert match.finished and all(s == "ok" for s in statuses)
        runs.append((match.events, master.call_searches))
    assert runs[0] == runs[1]
    assert runs[0][1] > 0, "some pon chances came up while nobody threatened"


def test_open_search_searches_open_hands_only_when_switched_on() -> None:
    _, _, off = play_master(101, Rules(length="east"), samples=16)
    assert off.searches > 0 and off.open_searches == 0  # by default only closed hands are searched
    runs = []
    for _ in range(2):
        match, statuses, on = play_master(101, Rules(length="east"), samples=16, open_search=True)
        assert match.finished and all(s == "ok" for s in statuses)
        runs.append((match.events, on.open_searches))
    assert runs[0] == runs[1] and runs[0][1] > 0, "open hands' close discards were searched"
