"""tenhou.net/6 adapter: parsing the shared real logs, typed errors on bad input."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import pytest

from sanma.engine.actions import Discard, Kan, Kita, NineTerminals, Pon, Ron, Tsumo
from sanma.engine.errors import InvalidLog
from sanma.engine.formats.tenhou6 import (
    RecordedGame,
    TenhouLogError,
    call_from_seat,
    call_offset,
    code_to_kind,
    hand_tiles,
    kind_to_code,
    loads,
    parse_call,
    parse_game,
    preset_for_rule_name,
    tile_code,
)
from sanma.engine.tiles import NORTH, kind_of
from sanma.engine.wall import LIVE_WALL_SIZE


def _log_files(root: Path) -> list[Path]:
    return sorted((root / "tenhou3p_json").glob("*.json")) + sorted((root / "mjsoul3p_json").glob("*.json"))


@pytest.fixture(scope="module")
def games(shared_testdata: Path) -> list[RecordedGame]:
    files = _log_files(shared_testdata)
    assert len(files) == 13
    return [loads(f.read_text(encoding="utf-8"), source=f.name) for f in files]


def test_codes_round_trip() -> None:
    codes = [11, 19, *range(21, 30), *range(31, 40), *range(41, 48), 52, 53]
    for code in codes:
        kind, red = code_to_kind(code)
        assert kind_to_code(kind, red) == code
    assert tile_code(24) == 52 and tile_code(25) == 25 and tile_code(24, red_fives=False) == 25
    for bad in (12, 15, 18, 51, 48, 60, 0):
        with pytest.raises(ValueError):
            code_to_kind(bad)


@pytest.mark.parametrize(
    ("text", "seat", "from_seat"),
    [
        ("p252552", 1, 0),
        ("45p4545", 0, 2),
        ("4545p45", 1, 2),
        ("m21212121", 2, 1),
        ("39m393939", 0, 2),
        ("414141m41", 0, 1),
        ("k52252525", 1, 0),
    ],
)
def test_call_geometry(text: str, seat: int, from_seat: int) -> None:
    call = parse_call(text)
    assert call_from_seat(call, seat) == from_seat
    assert call_offset(call.letter, seat, from_seat) == call.offset


def test_call_pointing_at_seat_three_is_refused() -> None:
    with pytest.raises(ValueError, match="seat 3"):
        call_from_seat(parse_call("p414141"), 0)  # seat 0's kamicha would be seat 3


def test_preset_from_rule_name() -> None:
    assert preset_for_rule_name("三鳳南喰赤") == "tenhou"
    assert preset_for_rule_name("三玉の間赤") == "mahjongsoul"
    with pytest.raises(InvalidLog):
        preset_for_rule_name("鳳南喰赤")


def test_all_shared_logs_parse(games: list[RecordedGame]) -> None:
    hands = [h for g in games for h in g.hands]
    assert len(hands) == 97
    outcomes = Counter(h.result.outcome for h in hands)
    assert outcomes == {"won": 89, "drawn": 7, "aborted": 1}
    assert sum(len(h.result.wins) for h in hands) == 89
    assert [g.preset_name for g in games].count("tenhou") == 10


def test_every_tile_distinct_and_every_array_used(games: list[RecordedGame]) -> None:
    for game in games:
        raw_log = game.raw["log"]
        assert isinstance(raw_log, list)
        for hand in game.hands:
            tiles = hand_tiles(hand)
            assert len(tiles) == len(set(tiles)), (game.source, hand.index)
            assert all(0 <= t < 108 for t in tiles)
            raw = raw_log[hand.index]
            draws = sum(len(raw[5 + 3 * s]) for s in range(3))
            calls = sum(isinstance(x, str) for s in range(3) for x in raw[5 + 3 * s])
            # every non-call draws entry is a live or replacement draw
            assert len(hand.deal.live) + len(hand.deal.replacements) == draws - calls


def test_replacement_draws_follow_kita_and_kans(games: list[RecordedGame]) -> None:
    for game in games:
        for hand in game.hands:
            kitas = sum(isinstance(a, Kita) for _, a in hand.actions)
            kans = sum(isinstance(a, Kan) for _, a in hand.actions)
            robbed = 0
            last = hand.actions[-1][1]
            if isinstance(last, Ron):
                before = [a for _, a in hand.actions if not isinstance(a, Ron)][-1]
                robbed = int(isinstance(before, Kita | Kan))
            assert len(hand.deal.replacements) == kitas + kans - robbed, (game.source, hand.index)
            if hand.result.reason == "exhaustive":
                assert len(hand.deal.live) + len(hand.deal.replacements) == LIVE_WALL_SIZE


def test_action_stream_shape(games: list[RecordedGame]) -> None:
    for game in games:
        for hand in game.hands:
            seats = [s for s, _ in hand.actions]
            assert seats[0] == hand.dealer
            final = hand.actions[-1][1]
            if hand.result.outcome == "won":
                if hand.result.wins[0].tsumo:
                    assert isinstance(final, Tsumo)
                else:
                    assert isinstance(final, Ron)
            elif hand.result.reason == "nine_terminals":
                assert isinstance(final, NineTerminals)
            else:
                assert isinstance(final, Discard)
            riichi = [s for s, a in hand.actions if isinstance(a, Discard) and a.riichi]
            assert riichi == list(hand.riichi)


def test_kita_and_calls_counted(games: list[RecordedGame]) -> None:
    actions = [a for g in games for h in g.hands for _, a in h.actions]
    assert sum(isinstance(a, Pon) for a in actions) == 95
    assert sum(isinstance(a, Kan) for a in actions) == 11  # 4 open, 6 closed, 1 added
    kita = sum(isinstance(a, Kita) for a in actions)
    raw = sum(
        x == "f44"
        for g in games
        for h in g.raw["log"]  # type: ignore[attr-defined]
        for s in range(3)
        for x in h[6 + 3 * s]
    )
    assert kita == raw > 50


def test_first_hand_known_stream(games: list[RecordedGame]) -> None:
    game = next(g for g in games if g.source.startswith("2025020203"))
    hand = game.hands[0]
    assert hand.round_wind == 20 and hand.dealer == 0 and hand.scores == (35000, 35000, 35000)
    kinds = [(s, type(a).__name__) for s, a in hand.actions[:9]]
    assert kinds == [
        (0, "Discard"),
        (1, "Discard"),
        (2, "Kita"),
        (2, "Discard"),
        (0, "Discard"),
        (1, "Discard"),
        (2, "Discard"),
        (0, "Pon"),
        (0, "Discard"),
    ]
    win = hand.result.wins[0]
    assert (win.seat, win.fu, win.han, win.payment.non_dealer) == (0, 40, 2, 1300)
    assert win.yaku == (("役牌 白", 1), ("赤ドラ", 1))


def test_red_five_gets_the_red_copy(games: list[RecordedGame]) -> None:
    game = next(g for g in games if g.source.startswith("2025020203"))
    hand0 = game.raw["log"][0]  # type: ignore[index]
    assert 52 in hand0[4] and 24 in game.hands[0].deal.hands[0]
    plain = [t for t in game.hands[0].deal.hands[0] if kind_of(t) == 6]
    assert sorted(plain) == [24, 25]  # the red copy and a plain one


def test_yakuman_and_double_ron_parsing(games: list[RecordedGame]) -> None:
    game = next(g for g in games if "kokushi_ankan" in g.source)
    win = game.hands[0].result.wins[0]
    assert (win.yakuman, win.han, win.fu, win.limit, win.payment.ron) == (1, 13, 0, "yakuman", 48000)


def test_kita_ron_stream(games: list[RecordedGame]) -> None:
    game = next(g for g in games if g.source.startswith("2025020508"))
    hand = game.hands[6]
    assert isinstance(hand.actions[-2][1], Kita) and hand.actions[-1] == (0, Ron())


def _corrupt(raw: dict[str, object], path: tuple[int, ...], value: object) -> dict[str, object]:
    data = copy.deepcopy(raw)
    target = data["log"]
    for i in path[:-1]:
        target = target[i]  # type: ignore[index]
    target[path[-1]] = value  # type: ignore[index]
    return data


@pytest.mark.parametrize(
    ("path", "value", "match"),
    [
        ((0, 4, 0), 12, "no sanma tile"),
        ((0, 5, 0), 44, "tile|entries|draw|arrays"),
        ((0, 5), [], "draw|entries|arrays|hold"),
        ((0, 6, 1), "r99", "tile|99"),
        ((0, 16), ["謎"], "unknown result"),
        ((0, 0), [3, 0, 0], "header"),
        ((0, 13), [11], "seat 3"),
        ((0, 16, 2, 3), "百点", "score text"),
    ],
)
def test_corrupted_logs_raise_typed_errors(
    games: list[RecordedGame], path: tuple[int, ...], value: object, match: str
) -> None:
    game = next(g for g in games if g.source.startswith("2025020203"))
    data = _corrupt(game.raw, path, value)
    with pytest.raises(TenhouLogError, match=match) as info:
        parse_game(data, source="bad.json")
    assert info.value.source == "bad.json"
    assert info.value.hand == path[0]


def test_not_json_and_not_a_game() -> None:
    with pytest.raises(InvalidLog, match="not JSON"):
        loads("{", source="x.json")
    with pytest.raises(InvalidLog, match="JSON object"):
        parse_game([1, 2])
    with pytest.raises(InvalidLog, match="log"):
        parse_game({"log": 5})
    assert json.dumps({"ok": NORTH})  # keep NORTH used: it is the kita tile kind
