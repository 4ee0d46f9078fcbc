"""Tenhou's mjlog XML (``formats/mjlog.py``): synthetic logs written here, the reader's errors,
``sanma replay-check`` and the log route on them, and every shared phoenix game replayed.

The synthetic game has two hands of a three-player phoenix room (``GO type=185``):
- hand 0: the dealer draws a North into nine kinds of terminals and honours: ``yao9``;
- hand 1 (one honba): the dealer sets aside a North and keeps the other (the engine would set
  aside the lowest one), seat 2 pons White with two of its three Whites (the engine would use
  the lowest two) and later discards the one it kept, and seat 1 rons a 5s with tanyao.
The log names its own copies; the replay must follow them through the engine's choices.
"""

from __future__ import annotations

import gzip
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from sanma.engine.actions import Discard, Kan, Kita, NineTerminals, Pass, Pon, Ron
from sanma.engine.events import KitaDeclared
from sanma.engine.formats import mjlog, tenhou6
from sanma.engine.kyoku import Kyoku, KyokuResult
from sanma.engine.rules import preset
from sanma.engine.tiles import EAST, NORTH, P1, WHITE, kind_of
from sanma.engine.wall import Deal
from tests.fixtures.mjlog import (
    GAME,
    KITA_121,
    NINE_TERMINALS_HAND,
    PON_WHITE_FROM_0,
    RON_HAND,
    game_xml,
)
from tests.fixtures.server import LiveServer, new_guest, serving

# -- pieces ---------------------------------------------------------------------------------------


def test_tiles_keep_their_copy_and_sanma_has_no_2m_to_8m() -> None:
    assert [mjlog.tile_of(i) for i in (0, 3, 32, 36, 52, 88, 120, 135)] == [0, 3, 4, 8, 24, 60, 92, 107]
    with pytest.raises(ValueError, match="2m-8m"):
        mjlog.tile_of(4)


def test_calls_decode_pon_kakan_kita_and_kans_and_refuse_chi() -> None:
    assert mjlog.decode_call(PON_WHITE_FROM_0) == mjlog.Call("pon", (125, 126, 127), 127, 2)
    kakan = PON_WHITE_FROM_0 ^ 0x08 | 0x10  # the same pon with copy 0 added
    assert mjlog.decode_call(kakan) == mjlog.Call("kakan", (125, 126, 127, 124), 124, 2)
    assert mjlog.decode_call(KITA_121) == mjlog.Call("kita", (121,), 121, 0)
    assert mjlog.decode_call(122 << 8).what == "ankan"
    assert mjlog.decode_call(122 << 8 | 1) == mjlog.Call("daiminkan", (120, 121, 122, 123), 122, 1)
    with pytest.raises(ValueError, match="chi"):
        mjlog.decode_call(0x04 | 1)


def test_room_names_follow_the_go_type_bits() -> None:
    assert mjlog.rule_name(185) == "三鳳南喰赤"
    assert mjlog.rule_name(0x10 | 0x08 | 0x02 | 0x01) == "三般南喰"


# -- the synthetic game ---------------------------------------------------------------------------


def test_the_game_reads_into_the_recorded_hands_the_tenhou6_check_replays() -> None:
    game = mjlog.loads(GAME, source="synthetic.xml")
    assert (game.rule_name, game.red_fives, game.names) == ("三鳳南喰赤", True, ("Alice", "Bob", "天"))
    assert game.final_scores == (33500, 36500, 35000)
    aborted, won = game.hands
    assert aborted.actions == ((0, NineTerminals()),) and aborted.result.reason == "nine_terminals"
    assert (won.honba, won.dealer, won.scores) == (1, 0, (35000, 35000, 35000))
    # Replacement draw after the kita; the other draws are live, in order.
    assert won.deal.replacements == (mjlog.tile_of(3),)
    assert won.deal.live[:3] == (mjlog.tile_of(2), mjlog.tile_of(34), mjlog.tile_of(35))
    # The log sets aside North 121 and discards 120; the engine sets aside the lowest North
    # (120), so the discard names the copy the engine kept (121).
    assert won.actions[0] == (0, Kita())
    assert won.actions[1] == (0, Discard(mjlog.tile_of(121)))
    # The pon used Whites 125 and 126, the engine uses the lowest two (124, 125): the White the
    # log kept (124) is the engine's 126.
    assert (2, Pon(WHITE)) in won.actions
    assert (2, Discard(mjlog.tile_of(126))) in won.actions
    assert won.actions[-1] == (1, Ron())
    (win,) = won.result.wins
    assert (win.seat, win.from_seat, win.han, win.fu, win.points_text) == (1, 0, 1, 40, "40符1飜1300点")
    assert win.yaku == (("断幺九", 1),) and win.deltas == (-1500, 1500, 0)

    checks = tenhou6.check_game(game, tenhou6.rules_for(game))
    assert [(c.match, c.differences) for c in checks] == [(True, ()), (True, ())]
    kita = [e.tile for e in checks[1].events if isinstance(e, KitaDeclared)]
    assert kita == [mjlog.tile_of(120)] and kind_of(kita[0]) == NORTH


def test_a_log_that_disagrees_with_the_engine_is_a_difference_not_a_crash() -> None:
    wrong_points = GAME.replace('ten="40,1300,0"', 'ten="40,2600,0"')
    checks = tenhou6.check_game(game := mjlog.loads(wrong_points), tenhou6.rules_for(game))
    assert not checks[1].match and "payment: engine" in checks[1].detail


def test_tsumo_payments_split_the_way_the_score_text_does() -> None:
    # 30 fu 4 han non-dealer tsumo: 2000-3900 (5900), 30 fu 2 han: 500-1000, dealer 40 fu 2 han: 1300 each.
    hand = RON_HAND.replace('fromWho="0"', 'fromWho="1"')
    for points, text in ((5900, "30符4飜2000-3900点"), (1500, "30符2飜500-1000点")):
        fu, han = (30, 4) if points == 5900 else (30, 2)
        xml = game_xml(
            hand.replace('ten="40,1300,0"', f'ten="{fu},{points},0"').replace('yaku="8,1"', f'yaku="8,{han}"')
        )
        (win,) = mjlog.loads(xml).hands[0].result.wins
        assert (win.tsumo, win.points_text) == (True, text)


# -- refusals -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "error", "words"),
    [
        (
            '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><mjloggm>&a;</mjloggm>',
            mjlog.MjlogError,
            "document type",
        ),
        ("<mjloggm><GO type='185'/>", mjlog.MjlogError, "not well-formed"),
        ("<log/>", mjlog.MjlogError, "not <mjloggm>"),
        (game_xml(RON_HAND, game_type=169), mjlog.FourPlayerLog, "four-player"),
        (game_xml(RON_HAND.replace("<D120/>", "<D99/>")), mjlog.MjlogError, r"seat 0 does not hold 7s \(tile 99\)"),
        (game_xml(RON_HAND.replace("<T2/>", "<T20/>")), mjlog.MjlogError, "2m-8m"),
        (game_xml(RON_HAND.replace("<T2/>", "<W2/>")), mjlog.MjlogError, "fourth seat"),
        (game_xml(RON_HAND.split("<AGARI")[0]), mjlog.MjlogError, "no <AGARI> or <RYUUKYOKU>"),
        (game_xml(RON_HAND.replace("<F128/>", "<F128/><CHAT/>")), mjlog.MjlogError, "unknown element <CHAT>"),
        (game_xml(RON_HAND + "<T37/>"), mjlog.MjlogError, "after the hand ended"),
        (game_xml(RON_HAND.replace("<T2/>", "<T0/>")), mjlog.MjlogError, r"1m \(tile 0\) appears twice"),
    ],
)
def test_bad_logs_get_a_typed_error_with_where(text: str, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words) as caught:
        mjlog.loads(text, source="bad.xml")
    assert str(caught.value).startswith("bad.xml")


def test_the_error_names_the_hand_and_the_element() -> None:
    with pytest.raises(mjlog.MjlogError) as caught:
        mjlog.loads(game_xml(NINE_TERMINALS_HAND, RON_HAND.replace("<D120/>", "<D99/>")))
    assert (caught.value.hand, caught.value.position) == (1, "<D99> (element 11)")


def test_gzip_is_unpacked_within_a_limit() -> None:
    packed = gzip.compress(GAME.encode())
    assert mjlog.is_gzip(packed) and not mjlog.is_gzip(GAME.encode())
    assert mjlog.gunzip(packed, max_bytes=len(GAME)).decode() == GAME
    with pytest.raises(mjlog.OversizeLog):
        mjlog.gunzip(gzip.compress(b" " * 10_000_000), max_bytes=1 << 20)
    with pytest.raises(mjlog.MjlogError, match="ends too early"):
        mjlog.gunzip(packed[:-30], max_bytes=1 << 20)


# -- the command and the route --------------------------------------------------------------------


def _replay_check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sanma", "replay-check", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_replay_check_reads_mjlog_plain_and_packed_whatever_the_name(tmp_path: Path) -> None:
    plain = tmp_path / "game.xml"
    plain.write_text(GAME, encoding="utf-8")
    packed = tmp_path / "game.mjlog"
    packed.write_bytes(gzip.compress(GAME.encode()))
    named_json = tmp_path / "game.json"  # content decides, not the name
    named_json.write_bytes(gzip.compress(GAME.encode()))
    proc = _replay_check(str(plain), str(packed), str(named_json))
    assert (proc.stdout.splitlines(), proc.stderr, proc.returncode) == (["checked 6 hands: 6 match, 0 differ"], "", 0)

    wrong = tmp_path / "wrong.xml.gz"
    wrong.write_bytes(gzip.compress(GAME.replace('ten="40,1300,0"', 'ten="40,2600,0"').encode()))
    proc = _replay_check(str(wrong))
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0].startswith(f"{wrong} hand 1: seat 1 payment: engine")
    assert proc.stdout.splitlines()[-1] == "checked 2 hands: 1 match, 1 differ"


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    yield from serving(tmp_path / "data", None)


def _post(live: LiveServer, path: str, token: str, body: bytes) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/octet-stream"}
    return httpx.post(f"{live.http}{path}", content=body, headers=headers, timeout=60)


@pytest.mark.slow
def test_the_log_routes_open_and_keep_a_packed_mjlog(live: LiveServer) -> None:
    token = new_guest(live)
    r = _post(live, "/api/replays/open", token, gzip.compress(GAME.encode()))
    assert r.status_code == 200, r.text[:300]
    opened = r.json()
    assert opened["title"] == "三鳳南喰赤 Alice · Bob · 天" and opened["preset"] == "tenhou"
    assert [(h["match"], h["log_result"]["name"]) for h in opened["hands"]] == [(True, "九種九牌"), (True, "和了")]
    assert _post(live, "/api/replays/open", token, GAME.encode()).json()["hands"] == opened["hands"]

    kept = _post(live, "/api/replays", token, gzip.compress(GAME.encode()))
    assert kept.status_code == 201, kept.text[:300]
    again = httpx.get(f"{live.http}/api/replays/{kept.json()['id']}", headers={"Authorization": f"Bearer {token}"})
    assert again.json()["hands"] == opened["hands"]


@pytest.mark.parametrize(
    ("body", "status", "code", "words"),
    [
        (game_xml(RON_HAND, game_type=169).encode(), 422, "four_player", "GO type 169"),
        (game_xml(RON_HAND.replace("<D120/>", "<D99/>")).encode(), 422, "bad_log", "hand 1: <D99> (element 8)"),
        (b'<!DOCTYPE x [<!ENTITY a "a">]><mjloggm/>', 422, "bad_log", "document type"),
        (gzip.compress(GAME.encode())[:-30], 422, "not_text", "ends too early"),
        (gzip.compress(b" " * 3_000_000), 413, "too_large", "unpacked too"),
    ],
)
def test_bad_mjlog_uploads_get_their_typed_answer(
    live: LiveServer, body: bytes, status: int, code: str, words: str
) -> None:
    r = _post(live, "/api/replays/open", new_guest(live), body)
    assert (r.status_code, r.json()["error"]) == (status, code), r.text[:300]
    assert words in r.json()["detail"]


# -- what the phoenix games showed -------------------------------------------------------------


def _kyoku_to_the_riichi_kan(rules_name: str) -> Kyoku:
    """The dealer (1-2-3p 4-4-4p 6p 7-7-7p 5-6-7s, waiting on 5p 6p 8p) declares riichi on the
    first turn, the others discard, and the dealer draws the fourth 4p.  A kan keeps the waits
    but loses the reading 44p + 456p (2026011721gm-00b9-0000-3c410cc2 hand 4, seat 2)."""
    dealer = (8, 12, 16, 20, 21, 22, 28, 32, 33, 34, 61, 64, 68)
    singles = (0, 1, 9, 10, 11, 12, 13, 14, 18, 19, 20, 21, 22)  # kinds, one copy each
    deal = Deal(
        hands=(dealer, tuple(4 * k + 1 for k in singles), tuple(4 * k + 2 for k in singles)),
        live=(4, 100, 104, 23),
        replacements=(9,),
        dora_indicators=(105,),
    )
    kyoku = Kyoku.start(
        deal, rules=preset(rules_name), round_wind=EAST, dealer=0, honba=0, deposits=0, scores=(35000,) * 3
    )
    for seat, action in ((0, Discard(4, riichi=True)), (1, Discard(100)), (2, Discard(104))):
        while action not in kyoku.legal_actions(seat):
            for other in kyoku.awaiting():
                kyoku.apply(other, Pass())
        kyoku.apply(seat, action)
    while kyoku.phase == "window":
        for other in kyoku.awaiting():
            kyoku.apply(other, Pass())
    return kyoku


def test_tenhou_lets_a_riichi_kan_change_the_reading_but_not_the_waits() -> None:
    assert Kan(P1 + 3) in _kyoku_to_the_riichi_kan("tenhou").legal_actions(0)
    assert Kan(P1 + 3) not in _kyoku_to_the_riichi_kan("default").legal_actions(0)


def _drawn_out_with_a_wait_in_own_kan(rules_name: str) -> KyokuResult:
    """The dealer kans four 6p on the first turn and keeps 1-2-3-5-7-7-8-9-9-9p, whose one
    wait is 6p, to the exhaustive draw; every seat discards what it draws
    (2026012221gm-00b9-0000-3a18083e hand 8, seat 0)."""
    dealer = (28, 29, 30, 31, 8, 12, 16, 25, 32, 33, 36, 40, 41)
    first, replacement, indicators = 42, 100, (104, 105)  # the kan turns the second indicator
    rest = [t for t in range(108) if t not in {*dealer, first, replacement, *indicators}]
    random.Random(7).shuffle(rest)
    deal = Deal(
        hands=(dealer, tuple(rest[:13]), tuple(rest[13:26])),
        live=(first, *rest[26:]),
        replacements=(replacement,),
        dora_indicators=indicators,
    )
    kyoku = Kyoku.start(
        deal, rules=preset(rules_name), round_wind=EAST, dealer=0, honba=0, deposits=0, scores=(35000,) * 3
    )
    kyoku.apply(0, Kan(P1 + 5))
    while kyoku.result is None:
        if kyoku.phase == "window":
            for seat in kyoku.awaiting():
                if kyoku.result is None:
                    kyoku.apply(seat, Pass())
        else:
            (seat,) = kyoku.awaiting()
            default = kyoku.legal_actions(seat).default
            assert default is not None
            kyoku.apply(seat, default)
    return kyoku.result


def test_tenhou_counts_a_wait_whose_copies_are_in_the_players_own_kan() -> None:
    tenhou = _drawn_out_with_a_wait_in_own_kan("tenhou")
    default = _drawn_out_with_a_wait_in_own_kan("default")
    assert tenhou.reason == default.reason == "exhaustive"
    assert 0 in tenhou.tenpai and 0 not in default.tenpai


def test_no_pao_is_recorded_when_the_liable_seat_deals_the_winning_tile() -> None:
    game = mjlog.loads(GAME)
    hand = game.hands[1]
    result = tenhou6.replay_hand(hand, tenhou6.rules_for(game)).result
    assert result is not None
    (win,) = result.wins
    fed_by_discarder = replace(result, wins=(replace(win, pao_seat=win.from_seat),))
    assert tenhou6.compare_result(hand, fed_by_discarder) == []
    fed_by_the_third = replace(result, wins=(replace(win, pao_seat=2),))
    assert tenhou6.compare_result(hand, fed_by_the_third) == ["seat 1 pao: engine 2, log 1"]


# -- every shared phoenix game --------------------------------------------------------------------


def _check_files(paths: list[Path]) -> tuple[int, list[str]]:
    """Hands replayed and the differing ones (``file hand N: detail``) of some games."""
    hands, differ = 0, []
    for path in paths:
        game = mjlog.loads(gzip.decompress(path.read_bytes()).decode("utf-8"), source=path.name)
        for check in tenhou6.check_game(game, tenhou6.rules_for(game)):
            hands += 1
            if not check.match:
                differ.append(f"{path.name} hand {check.index}: {check.detail}")
    return hands, differ


@pytest.mark.slow
def test_every_shared_phoenix_game_replays_hand_for_hand(shared_testdata: Path) -> None:
    """All 2,537 games, in a process per core (up to four): about 62 s of one core's time, most
    of it the engine's legality."""
    files = sorted((shared_testdata / "phoenix3p_mjlog").glob("*.xml.gz"))
    if not files:
        pytest.skip(f"no mjlog games in {shared_testdata / 'phoenix3p_mjlog'}")
    started = time.perf_counter()
    workers = max(1, min(4, os.cpu_count() or 1))
    with ProcessPoolExecutor(workers) as pool:
        parts = list(pool.map(_check_files, [files[i::workers] for i in range(workers)]))
    hands = sum(h for h, _ in parts)
    differ = sorted(d for _, ds in parts for d in ds)
    print(f"{len(files)} games, {hands} hands, {hands - len(differ)} match, {time.perf_counter() - started:.0f} s")
    assert len(files) == 2537 and hands == 22_989
    assert differ == []
