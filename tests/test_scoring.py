"""Scoring: the named vectors of tests/data and the payment helpers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sanma.cli.score_cmd import score_line
from sanma.engine.errors import InvalidHand, NotWinning, NoYaku, SanmaError
from sanma.engine.hand import Meld, MeldType
from sanma.engine.rules import DEFAULT, preset
from sanma.engine.scoring import WinContext, base_points, ron_payment, score_win, tsumo_payments
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


def test_score_values_are_the_fields_of_score_win() -> None:
    # sanma score reads score_values; every other caller gets the same numbers as a Score.
    import random

    from sanma.engine.scoring import score_values
    from tests.fixtures.scoring import random_win

    rng = random.Random(77)
    for _ in range(300):
        w = random_win(rng)
        args = (w.concealed, w.win_tile, w.melds, w.ctx, DEFAULT)
        try:
            score = score_win(*args)
        except SanmaError as exc:
            with pytest.raises(type(exc)):
                score_values(*args)
            continue
        han, fu, yakuman, limit, yaku, base, payments, total, detail = score_values(*args)
        assert (han, fu, yakuman, limit, yaku, base, total, detail) == (
            score.han,
            score.fu,
            score.yakuman,
            score.limit,
            score.yaku,
            score.base,
            score.total,
            score.detail,
        )
        assert payments == (score.payments.ron, score.payments.dealer, score.payments.non_dealer)
