"""The expected-value master's models (``sanma.bots.ev_models``) and its program (``sanma.bots.ev``)."""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sanma.bots.ev import EVBot
from sanma.bots.ev_models import (
    DATA,
    MODEL_NAMES,
    ModelError,
    PlacementModel,
    danger_class,
    load,
    models,
)
from sanma.bots.expert import ExpertBot
from sanma.bots.heuristics import know
from sanma.engine.actions import Action, Discard
from sanma.engine.events import HandStarted, MatchStarted, TileDiscarded, TileDrawn
from sanma.engine.hand import Meld, MeldType
from sanma.engine.kyoku import LegalActions
from sanma.engine.rules import Rules
from sanma.engine.shanten import shanten
from sanma.engine.tiles import parse_tiles
from sanma.engine.view import SeatView


def test_every_parameter_file_loads_with_its_provenance() -> None:
    for name in MODEL_NAMES:
        obj = load(name)
        prov = obj["provenance"]
        assert prov["command"].startswith("bench/ev_fit.py") and isinstance(prov["seed"], int)
        assert prov["samples"] >= 1000 and prov["date"]
    m = models()
    assert 2000 <= m.placement.sigma <= 16000
    assert m.placement.hands_left[0] == 0 and m.placement.hands_left == sorted(m.placement.hands_left)


def test_a_file_without_provenance_or_a_field_is_refused(tmp_path: Path) -> None:
    for name in MODEL_NAMES:
        (tmp_path / f"ev_{name}.json").write_text((DATA / f"ev_{name}.json").read_text())
    bare = json.loads((tmp_path / "ev_tenpai.json").read_text())
    del bare["provenance"]["seed"]
    (tmp_path / "ev_tenpai.json").write_text(json.dumps(bare))
    with pytest.raises(ModelError, match="provenance"):
        load("tenpai", tmp_path)
    (tmp_path / "ev_tenpai.json").write_text((DATA / "ev_tenpai.json").read_text())
    (tmp_path / "ev_hazard.json").unlink()
    with pytest.raises(ModelError, match="cannot read"):
        models(tmp_path)


def test_the_tenpai_model_reads_riichi_calls_and_turns() -> None:
    t = models().tenpai
    assert t.chance(True, 0, 2, 0) == 1.0
    assert t.chance(False, 0, 10, 0) < 0.05  # a closed hand without riichi is rarely tenpai in self-play
    late = [t.chance(False, calls, 12, 1) for calls in (0, 1, 2)]
    assert late == sorted(late) and late[2] > 0.25
    assert t.chance(False, 1, 3, 0) < t.chance(False, 1, 12, 0)
    assert t.at_exhaustive_draw(True, 0) == 1.0 and t.at_exhaustive_draw(False, 0) < t.at_exhaustive_draw(False, 2)


def test_the_deal_in_model_ranks_tile_classes() -> None:
    d = models().dealin
    assert d.chance("safe", True, False) == 0.0
    assert d.chance("n4full", True, False) < d.chance("n4none", True, False)
    assert d.chance("honor1", True, False) < d.chance("n3none", True, False)
    assert d.value(True, False, True, 0) > d.value(True, False, False, 0)  # a dealer's riichi costs more


def test_the_hazard_model_reads_riichi_on_the_table_and_our_own() -> None:
    h = models().hazard
    assert h.other_end(12, 1) > h.other_end(12, 0)  # a riichi opponent ends more hands
    assert h.other_end(12, 0, mine=True) < h.other_end(12, 0)  # our riichi makes the others fold
    assert h.other_end(2, 0) < h.other_end(14, 0)
    assert h.ron_chance(8, False) > h.ron_chance(2, False)
    assert 0 < h.cost_of_other_tsumo(False) < h.cost_of_other_tsumo(True)


def test_danger_classes_from_what_the_seat_sees() -> None:
    view = SeatView(0)
    view.apply(MatchStarted(seed=1, rules=Rules(), wall_algorithm="x"))
    hand = tuple(parse_tiles("19m147p258s12345z"))
    view.apply(HandStarted(1, 0, 0, 0, (35000, 35000, 35000), (hand, (), ()), 0, "", 55))
    view.apply(TileDrawn(0, hand[0]))
    k = know(view)
    p4, s5, east, man1 = 5, 15, 20, 0
    assert danger_class(k, p4, frozenset()) == "n4none"
    assert danger_class(k, p4, frozenset({2, 8})) == "n4full"  # 1p and 7p are genbutsu: both suji
    assert danger_class(k, p4, frozenset({2})) == "n4half"
    assert danger_class(k, s5, frozenset()) == "n5none"
    assert danger_class(k, east, frozenset()) == "honor3"
    assert danger_class(k, man1, frozenset()) == "man1"  # two in hand, one the dora indicator
    assert danger_class(k, east, frozenset({east})) == "safe"
    view.apply(TileDiscarded(1, east * 4 + 1, False))  # a copy of East shows: fewer could be held
    assert danger_class(know(view), east, frozenset()) == "honor2"


def test_placement_value_follows_the_scores_and_the_hands_left() -> None:
    p = models().placement
    uma, back = Rules().uma, Rules().return_points
    lead = p.value((45000, 30000, 30000), 0, 4.0, uma, back)
    even = p.value((35000, 35000, 35000), 0, 4.0, uma, back)
    behind = p.value((25000, 40000, 40000), 0, 4.0, uma, back)
    assert lead > even > behind
    assert sum(p.rank_chances((45000, 30000, 30000), 0, 4.0)) == pytest.approx(1.0)
    # With no hand left the placement is settled: the uma is certain.
    assert p.rank_chances((30000, 30100, 44900), 1, 0.0) == (0.0, 1.0, 0.0)
    assert p.value((30000, 30100, 44900), 1, 0.0, uma, back) == pytest.approx(-4.9 + uma[1])
    # A small lead matters more at the last hand than with many hands to play.
    late = p.rank_chances((36000, 34000, 35000), 0, 1.0)[0]
    early = p.rank_chances((36000, 34000, 35000), 0, 8.0)[0]
    assert late > early > 1 / 3
    model = PlacementModel(8000.0, [0.0, 1.0, 2.0])
    assert model.hands_after(0) == 0.0 and model.hands_after(9) == 2.0


@pytest.mark.slow
def test_the_ev_master_answers_legally_in_whole_matches() -> None:
    from sanma.bots.base import ask
    from sanma.bots.ev import EVBot
    from sanma.engine.match import Match
    from sanma.engine.visibility import redact

    statuses: dict[str, int] = {}
    priced = 0
    for seed in (11, 12):
        match = Match(seed, Rules(length="one-hand"))
        bots = [EVBot(s, seed) for s in range(3)]
        for e in match.events:
            for s, bot in enumerate(bots):
                bot.observe(redact(e, s))
        while not match.finished:
            seat = match.awaiting()[0]
            answer = ask(bots[seat], match.legal_actions(seat))
            statuses[answer.status] = statuses.get(answer.status, 0) + 1
            priced += bool(bots[seat].last_values)
            for e in match.apply(seat, answer.action):
                for s, bot in enumerate(bots):
                    bot.observe(redact(e, s))
    assert set(statuses) == {"ok"} and statuses["ok"] > 40, statuses
    assert priced > 10


def _play_one_hand(
    seed: int, make: Callable[[int], EVBot], watch: Callable[[EVBot, LegalActions], None]
) -> dict[str, int]:
    """A one-hand match of three EV masters; ``watch`` sees every seat after each decision."""
    from sanma.bots.base import ask
    from sanma.engine.match import Match
    from sanma.engine.visibility import redact

    statuses: dict[str, int] = {}
    match = Match(seed, Rules(length="one-hand"))
    bots = [make(s) for s in range(3)]
    for e in match.events:
        for s, bot in enumerate(bots):
            bot.observe(redact(e, s))
    while not match.finished:
        seat = match.awaiting()[0]
        legal = match.legal_actions(seat)
        answer = ask(bots[seat], legal)
        statuses[answer.status] = statuses.get(answer.status, 0) + 1
        watch(bots[seat], legal)
        for e in match.apply(seat, answer.action):
            for s, bot in enumerate(bots):
                bot.observe(redact(e, s))
    return statuses


def _master(seat: int, seed: int) -> EVBot:
    return EVBot(seat, seed)


@pytest.mark.slow
def test_calls_kita_and_kans_are_priced_with_the_discards() -> None:
    from sanma.engine.actions import Kan, Kita, Pass, Pon

    seen: dict[str, int] = {"pon": 0, "kita": 0, "kan": 0}

    def watch(bot: EVBot, legal: LegalActions) -> None:
        v = bot.last_values
        assert all(a in legal for a in v)  # only legal actions are priced
        if Pass() in v:
            seen["pon"] += 1
            assert any(isinstance(a, Pon | Kan) for a in v) and not any(isinstance(a, Discard) for a in v)
        if Kita() in v:
            seen["kita"] += 1
            assert any(isinstance(a, Discard) for a in v)  # kita now against each discard (kita later)
        seen["kan"] += any(isinstance(a, Kan) for a in v)

    for seed in (14, 15, 18):
        statuses = _play_one_hand(seed, functools.partial(_master, seed=seed), watch)
        assert set(statuses) == {"ok"}, statuses
    assert seen["pon"] >= 3 and seen["kita"] >= 3 and seen["kan"] >= 1, seen


def _seat_view(hand: str, melds: tuple[Meld, ...] = ()) -> SeatView:
    view = SeatView(0)
    view.apply(MatchStarted(seed=1, rules=Rules(), wall_algorithm="x"))
    tiles = tuple(parse_tiles(hand))
    others: tuple[int, ...] = ()
    view.apply(HandStarted(1, 0, 0, 0, (35000, 35000, 35000), (tiles, others, others), 0, "", 55))
    view.melds[0] = list(melds)
    return view


def test_hypothetical_hands_after_a_pon_a_kan_and_a_kita() -> None:
    from sanma.bots.ev import after_kan, after_kita, after_pon, closest
    from sanma.engine.actions import Pon

    view = _seat_view("1m9m1p2p3p055p4s4s4s7z7z")  # 13 tiles, a pair of 7z (chun)
    k = know(view)
    chun, p5, s4, north = 26, 6, 14, 23
    called = chun * 4 + 3
    pon = after_pon(k, Pon(chun), called)
    assert sum(pon.counts) == 11 and pon.counts[chun] == 0 and not pon.closed
    assert pon.melds[-1].type is MeldType.PON and called in pon.melds[-1].tiles
    assert pon.visible[chun] == k.visible[chun] + 2  # the two from the hand now show
    red = after_pon(k, Pon(p5, red=True), p5 * 4 + 3)
    assert any(t == p5 * 4 for t in red.melds[-1].tiles)  # the red five goes into the meld
    big = after_kan(k, s4, s4 * 4 + 3)  # an open kan on a discard: three from the hand
    assert big is not None and big.melds[-1].type is MeldType.DAIMINKAN and sum(big.counts) == 10
    assert after_kan(k, p5, None) is None  # three in hand and no discard: no kan to build
    four = _seat_view("1m9m1p2p3p055p4s4s4s4s7z7z")
    closed = after_kan(know(four), s4, None)
    assert closed is not None and closed.closed and closed.melds[-1].type is MeldType.ANKAN
    pon4s = Meld(MeldType.PON, (s4 * 4 + 1, s4 * 4 + 2, s4 * 4 + 3), called=s4 * 4 + 3, from_seat=1)
    grown = after_kan(know(_seat_view("1m9m1p2p3p055p4s7z7z", (pon4s,))), s4, None)
    assert grown is not None and grown.melds[0].type is MeldType.KAKAN and len(grown.melds[0].tiles) == 4
    assert sum(grown.counts) == 10 and not grown.closed
    kita = after_kita(know(_seat_view("1m9m1p2p3p4s5s6s7z7z4z4z4z")))
    assert kita.counts[north] == 2 and sum(kita.counts) == 12
    assert closest(k) == shanten(k.counts, k.meld_count)


def _physical_win(hand: bytes, win: int, held: list[int], melds: list[Meld]) -> tuple[list[int], int]:
    """The oracle's physical hand: the seat's own copies first, then copies nobody holds in
    the hand or a meld (1, 2, 3, the red five's copy 0 last), the winning tile likewise."""
    taken = {t for m in melds for t in m.tiles}
    tiles: list[int] = []
    for kind, n in enumerate(hand):
        own = [t for t in held if t >> 2 == kind][:n]
        tiles += own
        taken.update(own)
        for c in (1, 2, 3, 0):
            if len(own) >= n:
                break
            if kind * 4 + c not in taken:
                own.append(kind * 4 + c)
                tiles.append(kind * 4 + c)
                taken.add(kind * 4 + c)
    win_tile = next(win * 4 + c for c in (1, 2, 3, 0) if win * 4 + c not in taken)
    return [*tiles, win_tile], win_tile


@pytest.mark.slow
def test_the_programs_scores_are_the_engines_on_physical_tiles() -> None:
    """Every win the program scored (from kind counts, red fives counted as the seat's own
    copies first) pays what ``score_win`` says of the same hand built from physical tiles."""
    import dataclasses

    from sanma.bots.heuristics import win_context
    from sanma.engine.errors import SanmaError
    from sanma.engine.scoring import score_win

    checked = {"wins": 0, "red": 0, "none": 0}

    def watch(bot: EVBot, legal: LegalActions) -> None:
        k = know(bot.view)
        rules = bot.view.rules
        assert rules is not None
        real = tuple(m.kinds for m in k.melds)
        for (hand, win, tsumo, riichi, kita, melds), got in bot._scores.items():
            if melds != real or sum(hand) + 3 * len(melds) != 13:
                continue  # a hypothetical pon or kan: another hand and other melds
            tiles, win_tile = _physical_win(hand, win, k.hand, k.melds)
            ctx = dataclasses.replace(win_context(k, tsumo=tsumo, riichi=riichi), kita=kita)
            try:
                s = score_win(tiles, win_tile, k.melds, ctx, rules)
            except SanmaError:
                assert got is None
                checked["none"] += 1
                continue
            want = (s.total, s.payments.dealer, s.payments.non_dealer) if tsumo else (s.total, 0, 0)
            assert got == want, (hand, win, tsumo, riichi)
            checked["wins"] += 1
            checked["red"] += any(y == "red_dora" for y, _ in s.yaku)

    for seed in (14, 21):
        _play_one_hand(seed, functools.partial(_master, seed=seed), watch)
    assert checked["wins"] > 5000 and checked["red"] > 1000 and checked["none"] > 500, checked


def _own_discards(seed: int) -> Iterator[tuple[EVBot, EVBot, LegalActions, Action, bool, bool]]:
    """Every own-turn decision (not in riichi) of three masters in one East match: the bot
    before and after it, the legal actions, its answer, whether an opponent threatened and
    whether it was the match's last dealer turn."""
    from sanma.bots.base import ask
    from sanma.bots.ev import Program
    from sanma.engine.match import Match
    from sanma.engine.visibility import redact

    match = Match(seed, Rules(length="east"))
    bots = [EVBot(s, seed) for s in range(3)]
    for e in match.events:
        for s, bot in enumerate(bots):
            bot.observe(redact(e, s))
    while not match.finished:
        seat = match.awaiting()[0]
        bot, legal = bots[seat], match.legal_actions(seat)
        before = copy.deepcopy(bot)
        answer = ask(bot, legal)
        assert answer.status == "ok" and answer.action in legal
        if any(isinstance(a, Discard) for a in legal) and not before.view.riichi[seat]:
            program = Program(before, know(before.view), False, before.budget)
            threatened = any(o.tenpai[0] >= before.threat for o in program.opps)
            yield before, bot, legal, answer.action, threatened, program.table.turns_left <= 1
        for e in match.apply(seat, answer.action):
            for s, b in enumerate(bots):
                b.observe(redact(e, s))


@pytest.mark.slow
def test_a_calm_master_leaves_calm_decisions_to_the_expert_until_the_last_dealer_turn() -> None:
    """The program prices a decision only when an opponent threatens (its tenpai chance at
    least ``threat``) or in the match's last dealer turn; elsewhere the answer is the Expert's
    own."""
    seen = {"calm": 0, "priced_threat": 0, "priced_last": 0}
    for before, bot, legal, action, threatened, last in _own_discards(21):
        if bot.last_values:
            assert threatened or last
            seen["priced_threat" if threatened else "priced_last"] += 1
        elif not threatened and not last:
            seen["calm"] += 1
            assert action == ExpertBot.decide(before, legal)  # the Expert's answer
    assert seen["calm"] > 20 and seen["priced_threat"] > 0 and seen["priced_last"] > 0, seen
