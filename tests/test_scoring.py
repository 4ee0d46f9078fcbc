"""Scoring: the named vectors of tests/data and the payment helpers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sanma.cli.score_cmd import score_line
from sanma.engine.context import WinContext
from sanma.engine.errors import InvalidHand, NotWinning, NoYaku, SanmaError
from sanma.engine.hand import Meld, MeldType
from sanma.engine.rules import DEFAULT, preset
from sanma.engine.scoring import base_points, ron_payment, score_win, tsumo_payments
from sanma.engine.tiles import SOUTH, WEST, parse_tiles

DATA = Path(__file__).resolve().parent / "data"
VECTORS = json.loads((DATA / "scoring_vectors.json").read_text())["cases"]
PAYMENTS = json.loads((DATA / "payment_vectors.json").read_text())["cases"]


def _compare(got: dict[str, Any], expected: dict[str, Any]) -> None:
    if "error" in expected:
        assert got.get("error") == expected["error"], got
        return
    assert "error" not in got, got
    for key, want in expected.items():
        if key == "yaku":
            assert sorted(map(tuple, got["yaku"])) == sorted(map(tuple, want)), got
        else:
            assert got[key] == want, (key, got)


@pytest.mark.parametrize("case", VECTORS, ids=[c["name"] for c in VECTORS])
def test_scoring_vectors(case: dict[str, Any]) -> None:
    rules = preset(case.get("rules", "default"))
    _compare(score_line(json.dumps(case["input"]), rules), case["expected"])


@pytest.mark.parametrize("case", PAYMENTS, ids=[c["name"] for c in PAYMENTS])
def test_payment_vectors(case: dict[str, Any]) -> None:
    base = base_points(case["han"], case["fu"], case.get("yakuman", 0))
    dealer, honba = case["dealer"], case.get("honba", 0)
    if case["tsumo"]:
        p = tsumo_payments(base, dealer, honba)
        assert p.as_dict(True, dealer) == case["expected"]
    else:
        assert {"ron": ron_payment(base, dealer, honba)} == case["expected"]


def test_score_win_api_with_physical_tiles() -> None:
    concealed = parse_tiles("234p567p234s678s99s")
    score = score_win(concealed, concealed[0], [], WinContext(tsumo=True, riichi=True, seat_wind=SOUTH), DEFAULT)
    assert (score.han, score.fu, score.base) == (3, 20, 640)
    assert score.total == score.payments.dealer + score.payments.non_dealer == 2000
    assert score.fu_breakdown == (("base", 20),)


def test_score_win_with_meld_and_errors() -> None:
    tiles = parse_tiles("234p678p234s66s055p")
    concealed, pon = tiles[:11], Meld(MeldType.PON, tuple(tiles[11:]))
    score = score_win(concealed, concealed[0], [pon], WinContext(seat_wind=WEST), DEFAULT)
    assert score.yaku == (("tanyao", 1), ("red_dora", 1))
    with pytest.raises(InvalidHand):
        score_win(concealed[:-1], concealed[0], [pon], WinContext(), DEFAULT)
    plain = parse_tiles("234p567p234s678s99s")
    with pytest.raises(NoYaku):
        score_win(plain, plain[1], [], WinContext(seat_wind=SOUTH), DEFAULT)
    bad = parse_tiles("234p567p234s678s19s")
    with pytest.raises(NotWinning):
        score_win(bad, bad[0], [], WinContext(), DEFAULT)


def test_a_score_keeps_the_reading_it_was_taken_from() -> None:
    # The reading travels with the score (a stored win shows its fu without scoring again):
    # it is the winning tile's, the context's and the melds', and its fu items sum to the fu.
    import random

    from tests.fixtures.scoring import random_win

    rng = random.Random(77)
    scored = 0
    for _ in range(300):
        w = random_win(rng)
        try:
            score = score_win(w.concealed, w.win_tile, w.melds, w.ctx, DEFAULT)
        except SanmaError:
            continue
        reading = score.reading
        assert reading is not None
        assert reading.win_kind == w.win_tile >> 2 and reading.tsumo == w.ctx.tsumo
        assert (reading.seat, reading.round) == (w.ctx.seat_wind, w.ctx.round_wind)
        assert reading.melds == tuple(m.kinds for m in w.melds)
        if reading.form != "kokushi" and not (score.yakuman and not score.fu):
            assert sum(f for _, f in score.fu_breakdown) == score.fu
        scored += 1
    assert scored > 200
