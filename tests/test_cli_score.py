"""``sanma score`` through a real subprocess: JSON lines in, JSON lines out."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from sanma.cli.score_cmd import FLAGS, MELD_TYPES, ROUNDS, WINDS, decode_line, run_argv, score_request, score_text
from sanma.engine.context import WinContext
from sanma.engine.errors import InvalidHand, NotWinning, NoYaku, SanmaError
from sanma.engine.hand import Meld
from sanma.engine.rules import PRESET_NAMES, Rules, preset
from sanma.engine.scoring import score_win
from sanma.engine.tiles import EAST, NORTH, assign_tiles, kind_name, parse, parse_one, tile_name, tiles_to_mpsz
from sanma.engine.yaku import ORDER

ROOT = Path(__file__).resolve().parents[1]


def _child(argv: list[str], lines: list[str]) -> subprocess.CompletedProcess[str]:
    """A Python child run with ``argv`` and ``lines`` piped to its standard input."""
    return subprocess.run(
        [sys.executable, *argv],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def _run(lines: list[str], *args: str) -> tuple[int, list[dict[str, object]]]:
    proc = _child(["-m", "sanma", "score", *args], lines)
    return proc.returncode, [json.loads(line) for line in proc.stdout.splitlines()]


def test_stream_keeps_order_and_survives_bad_lines() -> None:
    lines = [
        json.dumps(
            {
                "hand": "123p456p234s678s99s",
                "win": "3p",
                "tsumo": True,
                "riichi": True,
                "seat": "S",
                "dora": ["3s", "5s"],
                "deposits": 1,
            }
        ),
        "this is not json",
        json.dumps({"hand": "234p567p234s678s99s", "win": "3p", "seat": "S"}),
        json.dumps({"hand": "234p567p234s678s19s", "win": "2p"}),
        json.dumps({"hand": "234p567p234s678s99s", "win": "2p", "haitei": True}),
        json.dumps({"hand": "19m19p19s12345677z", "win": "7z", "seat": "S"}),
    ]
    rc, out = _run(lines)
    assert rc == 0
    assert out[0] == {
        "han": 4,
        "fu": 30,
        "yakuman": 0,
        "limit": "none",
        "yaku": [["riichi", 1], ["menzen_tsumo", 1], ["dora", 2]],
        "payments": {"dealer": 3900, "non_dealer": 2000},
        "total": 6900,
    }
    assert out[1]["error"] == "invalid" and "detail" in out[1]
    assert out[2] == {"error": "no_yaku"}
    assert out[3] == {"error": "not_winning"}
    assert out[4]["error"] == "invalid"
    assert out[5]["yaku"] == [["kokushi_13", 26]] and out[5]["yakuman"] == 2
    assert len(out) == len(lines)


def test_rules_preset_option() -> None:
    rc, out = _run([json.dumps({"hand": "19m19p19s12345677z", "win": "7z", "seat": "S"})], "--rules", "tenhou")
    assert rc == 0
    assert out[0]["yaku"] == [["kokushi", 13]] and out[0]["payments"] == {"ron": 32000}


def test_each_line_is_answered_before_the_next_is_sent() -> None:
    # A tool may send one line and wait for its answer: the answer must come out while
    # standard input stays open (answers are flushed per chunk read, not at the end).
    line = json.dumps({"hand": "123456789p11s234s", "win": "1s", "tsumo": True}) + "\n"
    with subprocess.Popen(
        [sys.executable, "-m", "sanma", "score"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        answers = []
        for _ in range(2):
            proc.stdin.write(line)
            proc.stdin.flush()
            answers.append(json.loads(proc.stdout.readline()))
        assert answers[0] == answers[1] and answers[0]["han"] == 3
        proc.stdin.write("{}")  # a last line without a newline is still answered
        proc.stdin.close()
        assert json.loads(proc.stdout.readline())["error"] == "invalid"
        assert proc.wait(timeout=60) == 0


def _request_lines(count: int, seed: int) -> list[str]:
    """Score requests of random winning hands (as bench/bench_cli.py writes them), each also
    once with one field broken, so that every check of the request runs."""
    from tests.fixtures.scoring import random_win

    rng = random.Random(seed)
    broken: list[object] = [None, True, 1, -1, 2.5, "x", "", [], {}, ["1z"], [1], "0z", "5m", "11z", "1p2", [[1]]]
    fields = ["hand", "win", "melds", "seat", "round", "dora", "ura", "kita", "honba", "deposits", "red_fives"]
    out = []
    for _ in range(count):
        w = random_win(rng)
        ctx = w.ctx
        req: dict[str, object] = {"hand": tiles_to_mpsz(w.concealed), "win": tile_name(w.win_tile)}
        if w.melds:
            req["melds"] = [{"type": m.type.value, "tiles": tiles_to_mpsz(m.tiles)} for m in w.melds]
        for f in FLAGS:
            if getattr(ctx, f):
                req[f] = True
        req["seat"] = "ESW"[ctx.seat_wind - EAST]
        req["round"] = "ESW"[ctx.round_wind - EAST]
        req["dora"] = [kind_name(k) for k in ctx.dora_indicators]
        if ctx.ura_indicators:
            req["ura"] = [kind_name(k) for k in ctx.ura_indicators]
        for f in ("kita", "honba", "deposits"):
            if getattr(ctx, f):
                req[f] = getattr(ctx, f)
        out.append(json.dumps(req))
        bad = dict(req)
        bad[rng.choice([*fields, *FLAGS])] = rng.choice(broken)
        out.append(json.dumps(bad))
    return out


def _answer_object(line: str, rules: Rules) -> dict[str, object]:
    """What spec/cli.md says a line's answer holds, built from the reader's score by hand."""
    try:
        request = json.loads(line)
    except json.JSONDecodeError as exc:
        return {"error": "invalid", "detail": f"not JSON: {exc.msg}"}
    try:
        score, tsumo, dealer = score_request(request, rules)
    except NoYaku:
        return {"error": "no_yaku"}
    except NotWinning:
        return {"error": "not_winning"}
    except SanmaError as exc:
        return {"error": "invalid", "detail": str(exc)}
    pay = score.payments
    payments = (
        {"ron": pay.ron}
        if not tsumo
        else {"non_dealer": pay.non_dealer}
        if dealer
        else {"dealer": pay.dealer, "non_dealer": pay.non_dealer}
    )
    return {
        "han": score.han,
        "fu": score.fu,
        "yakuman": score.yakuman,
        "limit": score.limit,
        "yaku": [[name, han] for name, han in sorted(score.yaku, key=lambda y: ORDER[y[0]])],
        "payments": payments,
        "total": score.total,
    }


def test_text_answers_equal_the_json_of_the_answer_objects() -> None:
    # The stream writes its JSON text by hand; it must be exactly json.dumps of the answer
    # object, for scored lines and every kind of error line, under every preset.
    lines = _request_lines(300, 14)
    lines += ["not json", "[1]", "{}", ' {"hand": "1z"} ', '{"hand": "123p"} x', '{"a": 1, "a": 2}', "NaN"]
    for name in PRESET_NAMES:
        rules = preset(name)
        for line in lines:
            assert score_text(line, rules) == json.dumps(_answer_object(line, rules)), line


def _mutations(rng: random.Random, line: str) -> list[str]:
    """Near misses of a good request: the faults ``fast_parts`` must hand to ``score_parts``
    (a fifth copy, a fourth plain five, a red five without red fives, a winning tile not in
    the hand, spaces in the notation, a meld of the wrong size) and changes it must score."""
    req = json.loads(line)
    hand = req["hand"]
    at = rng.choice([i for i, c in enumerate(hand) if c.isdigit()])
    meld = {"type": rng.choice(["pon", "ankan", "kakan", "daiminkan"]), "tiles": rng.choice(["555z", "5555z", "0555p"])}
    changes: list[dict[str, object]] = [
        {"hand": hand[:at] + hand[at] * rng.randint(1, 4) + hand[at:]},
        {"hand": hand[:at] + hand[at + 1 :]},
        {"hand": hand[:at] + "0" + hand[at + 1 :]},
        {"hand": hand.replace("0", "5")},
        {"hand": hand.replace("5", "0", 1)},
        {"hand": " ".join(hand)},
        {"win": rng.choice(["0p", "0s", "5p", "5s", "1z", "4z", "1m", " 1m"])},
        {"red_fives": rng.choice([True, False])},
        {"kita": rng.randint(0, 5)},
        {"dora": [rng.choice(["4z", "0p", "5p", "5s", "0s"])] * rng.randint(1, 4)},
        {"ura": ["3z"], "riichi": rng.choice([True, False])},
        {"seat": rng.choice("ESWN"), "round": rng.choice("ESWN")},
        {"melds": [*req.get("melds", []), meld]},
        {f: True for f in rng.sample(FLAGS, 2)},
    ]
    if req.get("melds"):
        changes.append({"melds": [{**m, "tiles": m["tiles"].replace("5", "0")} for m in req["melds"]]})
        changes.append({"melds": [{**m, "tiles": m["tiles"][1:]} for m in req["melds"]]})
    return [json.dumps({**req, **change}) for change in changes]


def _engine_parts(request: object, rules: Rules) -> tuple[object, bool, bool]:
    """The request read as the engine reads a win (physical tiles, ``Meld``, ``WinContext``,
    ``score_win``), with the checks in the order of spec/cli.md's fields: the reference the
    command's reader, which reads kind counts, must answer as."""
    if not isinstance(request, dict):
        raise InvalidHand("each line must be a JSON object")
    fields = {"hand", "win", "melds", "seat", "round", "dora", "ura", "kita", "honba", "deposits", "red_fives", *FLAGS}
    if not request.keys() <= fields:
        raise InvalidHand(f"unknown field(s): {', '.join(sorted(request.keys() - fields))}")
    if "hand" not in request or "win" not in request:
        raise InvalidHand("hand and win are required")
    red_fives = request.get("red_fives", rules.red_fives)
    if not isinstance(red_fives, bool):
        raise InvalidHand("red_fives must be true or false")
    rules = rules.with_options(red_fives=red_fives)

    def text(value: object, what: str) -> str:
        if not isinstance(value, str):
            raise InvalidHand(f"{what} must be an mpsz string")
        return value

    def number(key: str) -> int:
        value = request.get(key, 0)
        if type(value) is not int or value < 0:
            raise InvalidHand(f"{key} must be a non-negative integer")
        return value

    def indicators(key: str) -> list[tuple[int, bool]]:
        if key not in request:
            return []
        if not isinstance(request[key], list):
            raise InvalidHand(f"{key} must be a list of tiles")
        return [parse_one(text(v, f"each {key} indicator")) for v in request[key]]

    hand = parse(text(request["hand"], "hand"))
    win = parse_one(text(request["win"], "win"))
    specs = []
    if "melds" in request:
        if not isinstance(request["melds"], list):
            raise InvalidHand("melds must be a list")
        for m in request["melds"]:
            kind = m.get("type") if isinstance(m, dict) else None
            if type(kind) is not str or kind not in MELD_TYPES or not m.keys() <= {"type", "tiles"}:
                raise InvalidHand('each meld is {"type": "pon"|"daiminkan"|"kakan"|"ankan", "tiles": "..."}')
            specs.append((MELD_TYPES[kind], parse(text(m.get("tiles"), "meld tiles"))))
    dora, ura, kita = indicators("dora"), indicators("ura"), number("kita")
    seat, round_wind = request.get("seat", "E"), request.get("round", "E")
    if type(seat) is not str or seat not in WINDS:
        raise InvalidHand('seat is "E", "S" or "W"')
    if type(round_wind) is not str or round_wind not in ROUNDS:
        raise InvalidHand('round is "E" or "S"')
    if kita > 108:
        raise InvalidHand(f"kita must be 0..4, not {kita}")
    tiles = assign_tiles(
        hand + [t for _, items in specs for t in items] + dora + ura + [(NORTH, False)] * kita, red_fives
    )
    melds, pos = [], len(hand)
    for kind, items in specs:
        melds.append(Meld(kind, tuple(tiles[pos : pos + len(items)])))
        pos += len(items)
    if win not in hand:
        raise InvalidHand("the winning tile must be in the hand")
    flags = {}
    for f in FLAGS:
        value = request.get(f, False)
        if not isinstance(value, bool):
            raise InvalidHand(f"{f} must be true or false")
        flags[f] = value
    ctx = WinContext(
        **flags,
        seat_wind=WINDS[seat],
        round_wind=ROUNDS[round_wind],
        dora_indicators=tuple(k for k, _ in dora),
        ura_indicators=tuple(k for k, _ in ura),
        kita=kita,
        honba=number("honba"),
        deposits=number("deposits"),
    )
    score = score_win(tiles[: len(hand)], tiles[hand.index(win)], melds, ctx, rules)
    return score, ctx.tsumo, ctx.seat_wind == EAST


def _outcome(read: object, request: object, rules: Rules) -> object:
    try:
        score, tsumo, dealer = read(request, rules)  # type: ignore[operator]
    except SanmaError as exc:
        return type(exc).__name__, str(exc)
    return score, score.reading, tsumo, dealer


@pytest.mark.slow
def test_the_reader_answers_as_the_engine_reads_a_win() -> None:
    # The command reads a request into kind counts; the engine reads a win as physical tiles.
    # On good requests, each broken once, and near misses (a fifth copy, a red five without
    # red fives, spaces in the notation, a meld of the wrong size...) both give the same score
    # (reading included) or the same error, under every preset.
    rng = random.Random(16)
    lines = _request_lines(600, 16)
    lines += [m for line in lines[::2] for m in _mutations(rng, line)]
    for name in PRESET_NAMES:
        rules = preset(name)
        kinds: set[str] = set()
        for line in lines:
            request = json.loads(line)
            ours = _outcome(score_request, request, rules)
            assert ours == _outcome(_engine_parts, request, rules), line
            kinds.add("score" if not isinstance(ours[0], str) else ours[0])
        assert {"score", "InvalidHand", "InvalidNotation", "NoYaku", "NotWinning"} <= kinds


def test_decode_line_is_json_loads() -> None:
    samples = ['{"a": [1, 2.5, "x\\u00e9"], "b": {"c": null}}', "{}", '{"a": 1} ', ' {"a": 1}', '{"a": 1}\r', "[1]"]
    for text in samples:
        assert decode_line(text) == json.loads(text)
    for text in ['{"a": 1} {', '{"a": 1', '{"a": "\\x"}', "{'a': 1}", "{"]:
        with pytest.raises(json.JSONDecodeError) as got:
            decode_line(text)
        with pytest.raises(json.JSONDecodeError) as want:
            json.loads(text)
        assert (got.value.msg, got.value.pos) == (want.value.msg, want.value.pos)


def test_unhashable_seat_or_meld_type_is_an_error_line_not_a_crash() -> None:
    lines = [
        json.dumps({"hand": "123p456p234s678s99s", "win": "3p", "seat": ["E"]}),
        json.dumps({"hand": "123p456p234s678s99s", "win": "3p", "round": {"E": 1}}),
        json.dumps({"hand": "123p456p234s99s", "win": "3p", "melds": [{"type": ["pon"], "tiles": "555z"}]}),
    ]
    rc, out = _run(lines)
    assert rc == 0
    assert [o["error"] for o in out] == ["invalid"] * 3


def test_a_huge_kita_is_an_error_line_not_a_crash() -> None:
    hand = {"hand": "123p456p234s678s99s", "win": "3p"}
    rc, out = _run([json.dumps({**hand, "kita": 2**64}), json.dumps({**hand, "kita": 5}), json.dumps(hand)])
    assert rc == 0
    assert out[0] == {"error": "invalid", "detail": f"kita must be 0..4, not {2**64}"}
    assert out[1] == {"error": "invalid", "detail": "5 copies of 4z; there are only 4"}
    assert out[2] == {"error": "no_yaku"}  # the stream goes on


def test_arguments_argparse_reads() -> None:
    # The usual arguments skip argparse; anything else still gets argparse's own answers.
    assert run_argv(["--rules", "nosuch"]) is None and run_argv(["--help"]) is None and run_argv(["--rul"]) is None
    proc = subprocess.run(
        [sys.executable, "-m", "sanma", "score", "--rules", "nosuch"], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 2 and "invalid choice: 'nosuch'" in proc.stderr
    for args in (["--rules=tenhou"], ["--rul", "tenhou"]):
        rc, out = _run([json.dumps({"hand": "19m19p19s12345677z", "win": "7z", "seat": "S"})], *args)
        assert rc == 0 and out[0]["yaku"] == [["kokushi", 13]]


def test_notation_with_spaces_scores_in_the_cli() -> None:
    line = json.dumps({"hand": "123p 456p 234s 678s 99s", "win": "3p", "riichi": True, "melds": []})
    rc, out = _run([line])
    assert rc == 0 and out[0]["yaku"] == [["riichi", 1]]
