"""The mjai adapter (sanma/engine/formats/mjai.py) and the seat legality behind mjai bots.

Whole seeded matches are played through the engine; every seat's redacted events go out
as mjai JSON and come back in through ``MjaiReader``.  The tests check that nothing the
dialect carries is lost (event by event and as folded seat views), that the spec's order
holds, and that a seat's ``SeatView`` finds exactly the engine's legal actions at every decision.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from sanma.engine.actions import Action, Discard, Pass, Pon
from sanma.engine.events import (
    DoraRevealed,
    Event,
    HandAborted,
    HandDrawn,
    HandStarted,
    HandWon,
    KitaDeclared,
    MatchEnded,
    MatchStarted,
    MeldCalled,
    RiichiAccepted,
    TileDiscarded,
    TileDrawn,
)
from sanma.engine.formats.mjai import (
    REACH,
    MjaiError,
    MjaiReader,
    MjaiWriter,
    answer_for,
    kind_to_mjai,
    mjai_to_kind,
    parse_answer,
    read_all,
    tile_to_mjai,
    write_all,
)
from sanma.engine.hand import Meld
from sanma.engine.kyoku import LegalActions
from sanma.engine.tiles import KIND_COUNT, P5, S5, TILE_COUNT, Tile, is_red, kind_of
from sanma.engine.view import SeatView
from sanma.engine.visibility import HIDDEN, is_hidden, redact
from tests.fixtures.mjai import match_rules, play, played

MATCHES = 24


# -- seeded play ---------------------------------------------------------------------------------


def wire(objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Through JSON text and back, as on a pipe."""
    return [json.loads(json.dumps(o)) for o in objs]


# -- projections: what the dialect carries, with tiles as names -----------------------------------


def names(tiles: tuple[Tile, ...] | list[Tile], red: bool) -> tuple[str, ...]:
    return tuple(tile_to_mjai(t, red) for t in tiles)


def meld_key(m: Meld, red: bool) -> tuple[object, ...]:
    added = tile_to_mjai(m.added, red) if m.added is not None else None
    called = tile_to_mjai(m.called, red) if m.called is not None else None
    return (m.type, tuple(sorted(names(m.tiles, red))), called, m.from_seat, added)


def event_key(e: Event, viewer: int, red: bool) -> tuple[object, ...]:
    if isinstance(e, MatchStarted):
        return ("start", e.rules)
    if isinstance(e, HandStarted):
        hands = tuple(names(h, red) for h in e.hands)
        return (
            "hand",
            e.round_wind,
            e.dealer,
            e.honba,
            e.deposits,
            e.scores,
            hands,
            tile_to_mjai(e.dora_indicator, red),
        )
    if isinstance(e, TileDrawn):
        return ("draw", e.seat, tile_to_mjai(e.tile, red), e.replacement)
    if isinstance(e, TileDiscarded):
        return ("discard", e.seat, tile_to_mjai(e.tile, red), e.tsumogiri, e.riichi)
    if isinstance(e, MeldCalled):
        return ("meld", e.seat, meld_key(e.meld, red))
    if isinstance(e, KitaDeclared):
        return ("kita", e.seat, tile_to_mjai(e.tile, red))
    if isinstance(e, DoraRevealed):
        return ("dora", tile_to_mjai(e.indicator, red))
    if isinstance(e, RiichiAccepted):
        return ("riichi", e.seat)
    if isinstance(e, HandWon):
        hand = tuple(sorted(names(e.hand, red))) if e.seat == viewer else None
        melds = tuple(meld_key(m, red) for m in e.melds)
        ura = names(e.ura_indicators, red)
        return ("won", e.seat, e.from_seat, tile_to_mjai(e.tile, red), hand, melds, ura, e.deltas)
    if isinstance(e, HandDrawn):
        shown = tuple(tuple(sorted(names(h, red))) for h in e.tenpai_hands)
        return ("drawn", e.reason, e.tenpai, shown, e.nagashi, e.deltas)
    if isinstance(e, HandAborted):
        return ("aborted", e.reason, e.seat)
    assert isinstance(e, MatchEnded)
    return ("end", e.points, e.placements, e.final_scores)


def view_key(v: SeatView, red: bool) -> tuple[object, ...]:
    rivers = tuple(
        tuple((tile_to_mjai(r.tile, red), r.tsumogiri, r.riichi, r.called) for r in river) for river in v.rivers
    )
    return (
        v.hand_number,
        v.round_wind,
        v.dealer,
        v.honba,
        v.deposits,
        tuple(v.scores),
        tuple(sorted(names(v.hand, red))),
        tile_to_mjai(v.drawn, red) if v.drawn is not None else None,
        tuple(v.hand_sizes),
        tuple(tuple(meld_key(m, red) for m in ms) for ms in v.melds),
        rivers,
        tuple(names(k, red) for k in v.kita),
        tuple(v.riichi),
        names(v.dora_indicators, red),
        v.live_left,
        v.turn,
        len(v.results),
        v.final,
    )


def without_dora(keys: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    return [k for k in keys if k[0] != "dora"]


# -- tiles -----------------------------------------------------------------------------------------


def test_tile_names_cover_sanma_and_round_trip() -> None:
    seen = {tile_to_mjai(t) for t in range(TILE_COUNT)}
    want = {"1m", "9m", "5pr", "5sr", "E", "S", "W", "N", "P", "F", "C"}
    want |= {f"{n}{s}" for n in range(1, 10) for s in "ps"}
    assert seen == want
    for t in range(TILE_COUNT):
        kind, red = mjai_to_kind(tile_to_mjai(t))
        assert kind == kind_of(t) and red == is_red(t)
    assert [kind_to_mjai(k) for k in range(20, KIND_COUNT)] == ["E", "S", "W", "N", "P", "F", "C"]
    assert tile_to_mjai(P5 * 4, red_fives=False) == "5p" and tile_to_mjai(HIDDEN) == "?"


@pytest.mark.parametrize("bad", ["5m", "5mr", "0p", "1z", "?", "", 5, None, "5pR"])
def test_names_outside_the_dialect_are_refused(bad: object) -> None:
    with pytest.raises(MjaiError):
        mjai_to_kind(bad)


# -- whole matches: round trip, order, views ---------------------------------------------------------


@pytest.mark.parametrize("seed", range(MATCHES))
def test_round_trip_every_seat(seed: int) -> None:
    match = played(seed)
    rules = match.rules
    red = rules.red_fives
    for seat in (0, 1, 2):
        ours = [redact(e, seat) for e in match.events]
        objs = wire(write_all(ours, red))
        back = read_all(objs, rules)
        want = [event_key(e, seat, red) for e in ours]
        got = [event_key(e, seat, red) for e in back]
        assert without_dora(got) == without_dora(want)
        assert [k for k in got if k[0] == "dora"] == [k for k in want if k[0] == "dora"]
        for obj in objs:
            for key in ("scores", "tehais", "deltas"):
                if key in obj:
                    assert len(obj[key]) == 3, obj
            own = obj["tehais"][seat] if obj["type"] == "start_kyoku" else []
            for value in (obj.get("pai"), *obj.get("consumed", []), *own):
                assert value is None or value == "?" or mjai_to_kind(value)
            if obj["type"] in ("tsumo",) and obj["actor"] != seat:
                assert obj["pai"] == "?"


@pytest.mark.parametrize("seed", range(0, MATCHES, 3))
def test_folded_views_agree(seed: int) -> None:
    """A seat view folded from the mjai stream equals the one folded from our events."""
    match = played(seed)
    red = match.rules.red_fives
    for seat in (0, 1, 2):
        writer, reader = MjaiWriter(red), MjaiReader(match.rules)
        mine, theirs = SeatView(seat), SeatView(seat)
        for event in match.events:
            seen = redact(event, seat)
            mine.apply(seen)
            for obj in wire(writer.write(seen)):
                for back in reader.read(obj):
                    theirs.apply(back)
            if not isinstance(event, DoraRevealed):  # a held kan dora goes out with the next event
                assert view_key(theirs, red) == view_key(mine, red)
        assert reader.seat == seat


def _stream(seeds: range) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    for seed in seeds:
        match = played(seed)
        for seat in (0, 1, 2):
            yield seat, write_all([redact(e, seat) for e in match.events], match.rules.red_fives)


@pytest.mark.slow
def test_spec_order_and_every_event_kind() -> None:
    seen: Counter[str] = Counter()
    for seat, objs in _stream(range(40)):
        types = [o["type"] for o in objs]
        seen.update(types)
        for i, obj in enumerate(objs):
            t = obj["type"]
            if t == "reach":  # reach, (dora), dahai by the same seat, then reach_accepted or hora
                j = i + 1 + (types[i + 1] == "dora")
                assert types[j] == "dahai" and objs[j]["actor"] == obj["actor"]
                assert types[j + 1] in ("reach_accepted", "hora", "dora", "ryukyoku"), types[j : j + 3]
            if t == "ankan":  # ankan, dora, replacement tsumo (unless kokushi robs it)
                k = i + 1 + (types[i + 1] == "dora" and types[i + 2] == "dora")
                assert types[k : k + 2] == ["dora", "tsumo"] or types[i + 1] == "hora"
            if t in ("daiminkan", "kakan", "kita"):  # replacement tsumo next (a held dora may come first)
                rest = [x for x in types[i + 1 : i + 3] if x != "dora"]
                assert rest[0] in ("tsumo", "hora"), types[i : i + 3]
            if t == "dora" and i and types[i - 1] not in ("ankan", "kakan", "daiminkan", "kita", "reach", "dora"):
                assert types[i + 1] == "dahai", types[i - 2 : i + 2]
            if t == "start_kyoku":
                assert obj["tehais"][seat].count("?") == 0
                assert all(h == ["?"] * 13 for s, h in enumerate(obj["tehais"]) if s != seat)
            if t == "hora" and obj["target"] == obj["actor"]:
                assert obj["tsumo"] is True
            if t in ("hora", "ryukyoku"):
                rest = types[i + 1 :]
                assert rest[0] in ("end_kyoku", "hora"), rest[:2]
        assert types[0] == "start_game" and types[-2:] == ["end_kyoku", "end_game"]
        assert types.count("start_kyoku") == types.count("end_kyoku")
    every = ["start_game", "start_kyoku", "tsumo", "dahai", "pon", "daiminkan", "ankan", "kakan", "kita", "reach"]
    every += ["reach_accepted", "dora", "hora", "ryukyoku", "end_kyoku", "end_game"]
    assert all(seen[t] for t in every), seen


def test_writer_moves_a_held_kan_dora_behind_kita_and_kans() -> None:
    w = MjaiWriter()
    north = 23 * 4
    assert w.write(DoraRevealed(8)) == []
    assert [o["type"] for o in w.write(KitaDeclared(1, north))] == ["kita", "dora"]
    assert w.write(DoraRevealed(12)) == []
    assert [o["type"] for o in w.write(TileDiscarded(1, 40, False, riichi=True))] == ["reach", "dora", "dahai"]
    assert w.write(DoraRevealed(16)) == []
    assert [o["type"] for o in w.write(TileDiscarded(2, 44, True))] == ["dora", "dahai"]


# -- reading other writers -------------------------------------------------------------------------

DEAL = ["1m", "9m", "7p", "9p", "2s", "2s", "3s", "4s", "5sr", "8s", "N", "P", "P"]
HIDDEN13 = ["?"] * 13


def _start(seat: int = 0, **extra: Any) -> list[dict[str, Any]]:
    tehais = [HIDDEN13, HIDDEN13, HIDDEN13]
    tehais[seat] = DEAL
    kyoku = {"type": "start_kyoku", "bakaze": "S", "kyoku": 1, "honba": 1, "kyotaku": 0, "oya": 0}
    kyoku |= {"dora_marker": "8s", "scores": [23400, 47100, 34500], "tehais": tehais} | extra
    return [{"type": "start_game", "id": str(seat)}, kyoku]


def test_reader_learns_the_seat_and_follows_own_copies() -> None:
    reader = MjaiReader()
    events = [e for o in _start(seat=1) for e in reader.read(o)]
    assert reader.seat == 1
    start = events[-1]
    assert isinstance(start, HandStarted) and start.hands[0] == (HIDDEN,) * 13
    assert start.scores == (23400, 47100, 34500) and start.dealer == 0 and start.honba == 1
    drawn = reader.read({"type": "tsumo", "actor": 1, "pai": "N"})[0]
    assert isinstance(drawn, TileDrawn) and kind_of(drawn.tile) == 23
    # tsumogiri picks the drawn North, not the dealt one; kita then takes the other
    out = reader.read({"type": "dahai", "actor": 1, "pai": "N", "tsumogiri": True})[0]
    assert isinstance(out, TileDiscarded) and out.tile == drawn.tile and out.tsumogiri
    kita = reader.read({"type": "nukidora", "actor": 1, "pai": "N"})[0]
    assert isinstance(kita, KitaDeclared) and kita.tile != drawn.tile
    red = reader.read({"type": "dahai", "actor": 1, "pai": "5sr", "tsumogiri": False})[0]
    assert isinstance(red, TileDiscarded) and red.tile == S5 * 4
    with pytest.raises(MjaiError):
        reader.read({"type": "dahai", "actor": 1, "pai": "5sr", "tsumogiri": False})


def test_reader_accepts_other_writers_fields() -> None:
    reader = MjaiReader()
    kyoku = _start(scores=[35000, 35000, 35000, 0])  # a phantom fourth seat
    for o in kyoku:
        reader.read(o)
    reader.read({"type": "tsumo", "actor": 0, "pai": "1p"})
    kan = reader.read({"type": "ankan", "actor": 1, "consumed": ["W", "W", "W", "W"], "pai": "W"})
    assert isinstance(kan[0], MeldCalled) and kan[0].meld.type == "ankan" and kan[0].meld.kind == 22
    won = reader.read({"type": "hora", "actor": 2, "target": 0, "deltas": [-1000, 0, 1000], "uradora_markers": ["3p"]})
    assert (
        isinstance(won[0], HandWon)
        and won[0].from_seat == 0
        and [tile_to_mjai(t) for t in won[0].ura_indicators] == ["3p"]
    )
    assert reader.read({"type": "end_kyoku"}) == []
    end = reader.read({"type": "end_game"})[0]
    assert isinstance(end, MatchEnded) and end.points == (35000 - 1000, 35000, 35000 + 1000)


def test_reader_fails_cleanly_on_bad_events() -> None:
    reader = MjaiReader()
    for o in _start():
        reader.read(o)
    bad: list[Any] = [
        {"type": "chi", "actor": 1},
        {"type": "tsumo", "actor": 3, "pai": "1p"},
        {"type": "tsumo", "actor": 0, "pai": "?"},
        {"type": "dahai", "actor": 0, "pai": "5p"},
        {"type": "kakan", "actor": 1, "pai": "E", "consumed": ["E", "E", "E"]},
        {"type": "pon", "actor": 0, "target": 1, "pai": "C", "consumed": ["C"]},
        ["not", "an", "object"],
    ]
    for obj in bad:
        with pytest.raises(MjaiError):
            reader.read(obj)
    fifth = MjaiReader()
    for o in _start():
        fifth.read(o)
    for _ in range(2):
        fifth.read({"type": "dahai", "actor": 1, "pai": "P", "tsumogiri": False})
    with pytest.raises(MjaiError):
        fifth.read({"type": "dahai", "actor": 1, "pai": "P", "tsumogiri": False})


def test_reader_ryukyoku_reasons() -> None:
    reader = MjaiReader()
    for o in _start():
        reader.read(o)
    drawn = reader.read({"type": "ryukyoku", "reason": "exhaustive", "deltas": [1000, 1000, -2000]})[0]
    assert isinstance(drawn, HandDrawn) and drawn.tenpai == (0, 1)
    nine = reader.read({"type": "ryukyoku", "reason": "yao9", "actor": 2})[0]
    assert isinstance(nine, HandAborted) and nine.reason == "nine_terminals" and nine.seat == 2
    kans = reader.read({"type": "ryukyoku", "reason": "suukansansen", "deltas": [0, 0, 0]})[0]
    assert isinstance(kans, HandAborted) and kans.reason == "four_kans"


# -- legality from the seat's view ----------------------------------------------------------------------


def legal_key(legal: LegalActions, red: bool) -> tuple[object, ...]:
    def one(a: Action | None) -> object:
        return ("discard", kind_of(a.tile), is_red(a.tile, red), a.riichi) if isinstance(a, Discard) else a

    tiles = frozenset((kind_of(t), is_red(t, red), r) for t, r in legal.discard_tiles)
    return (frozenset(one(a) for a in legal), one(legal.default), tiles)


@pytest.mark.parametrize("seed", range(MATCHES))
def test_seat_legality_matches_the_engine(seed: int) -> None:
    """At every decision of a whole match, each seat's legality worked out from its mjai
    stream alone is exactly the engine's."""
    legs = [SeatView(s) for s in (0, 1, 2)]
    writers = [MjaiWriter() for _ in legs]
    readers = [MjaiReader(match_rules(seed)) for _ in legs]
    pos, decisions = 0, 0
    for match in play(seed):
        fresh = pos != len(match.events)
        for event in match.events[pos:]:
            for s, leg in enumerate(legs):
                for obj in wire(writers[s].write(redact(event, s))):
                    for back in readers[s].read(obj):
                        leg.apply(back)
        pos = len(match.events)
        if match.finished:
            break
        red = match.rules.red_fives
        # After a partial window answer the engine offers an answered seat nothing more.
        for s in (0, 1, 2) if fresh else match.awaiting():
            assert legal_key(legs[s].legal(), red) == legal_key(match.legal_actions(s), red), (seed, s, legs[s].cue)
            decisions += s in match.awaiting()
    assert decisions > 100


# -- answers -------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_every_legal_action_survives_its_mjai_answer() -> None:
    """``answer_for`` then ``parse_answer`` gives back each legal action (same kind, same
    copy class), with the exact consumed copies the engine would take."""
    counted: Counter[str] = Counter()
    for seed in range(8):
        legs = [SeatView(s) for s in (0, 1, 2)]
        pos = 0
        for match in play(seed):
            for event in match.events[pos:]:
                for s, leg in enumerate(legs):
                    leg.apply(redact(event, s))
            pos = len(match.events)
            if match.finished:
                break
            for seat in match.awaiting():
                view = legs[seat]
                cue = view.cue
                offer = (cue.seat, cue.tile) if cue is not None and cue.tile is not None else None
                red = match.rules.red_fives
                for action in match.legal_actions(seat):
                    answer = json.loads(json.dumps(answer_for(action, seat, view, offer)))
                    counted[answer["type"]] += 1
                    back = parse_answer(answer, seat, view, riichi=isinstance(action, Discard) and action.riichi)
                    assert back in match.legal_actions(seat), (action, answer, back)
                    if isinstance(action, Discard):
                        assert isinstance(back, Discard) and legal_key(LegalActions((back,)), red) == legal_key(
                            LegalActions((action,)), red
                        )
                    else:
                        assert back == action
                    if isinstance(action, Pon):
                        reds = sum(n.endswith("r") for n in answer["consumed"])
                        assert reds == int(action.red)
    for t in ("dahai", "pon", "daiminkan", "ankan", "kakan", "kita", "hora", "none"):
        assert counted[t], counted


def test_parse_answer_refusals() -> None:
    view = SeatView(0)
    for e in read_all(_start()):
        view.apply(e)
    assert parse_answer({"type": "reach", "actor": 0}, 0, view) is REACH
    assert parse_answer({"type": "none"}, 0, view) == Pass()
    for bad in [
        {"type": "reach", "actor": 0, "pai": "1m"},
        {"type": "dahai", "actor": 0, "pai": "5s"},  # the hand holds the red copy only
        {"type": "dahai", "actor": 1, "pai": "1m"},
        {"type": "pon", "actor": 0, "target": 1, "pai": "E", "consumed": ["E", "E"]},
        {"type": "ankan", "actor": 0, "consumed": ["P", "P", "P", "P"]},
        {"type": "chi", "actor": 0},
        {"type": "dahai", "actor": 0},
        "dahai",
    ]:
        with pytest.raises(MjaiError):
            parse_answer(bad, 0, view)
    assert not any(is_hidden(t) for t in view.hand)


def test_double_ron_shares_the_ura_indicators() -> None:
    """Both winners of a double ron name the same ura tiles (riichienv writes them twice)."""
    reader = MjaiReader()
    for o in _start():
        reader.read(o)
    for seat in (1, 2, 1):
        reader.read({"type": "dahai", "actor": seat, "pai": "S", "tsumogiri": False})
    first = reader.read({"type": "hora", "actor": 0, "target": 1, "deltas": [4600, -4600, 0], "ura_markers": ["S"]})
    second = reader.read({"type": "hora", "actor": 2, "target": 1, "deltas": [0, -1000, 1000], "ura_markers": ["S"]})
    assert isinstance(first[0], HandWon) and isinstance(second[0], HandWon)
    assert first[0].ura_indicators == second[0].ura_indicators and kind_of(first[0].ura_indicators[0]) == 21
