"""``sanma score`` through a real subprocess: JSON lines in, JSON lines out."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from sanma.cli.score_cmd import (
    FLAGS,
    RequestContext,
    decode_line,
    fast_parts,
    run_argv,
    score_line,
    score_parts,
    score_text,
)
from sanma.engine.context import WinContext
from sanma.engine.errors import SanmaError
from sanma.engine.rules import PRESET_NAMES, Rules, preset
from sanma.engine.tiles import EAST, kind_name, tile_name, tiles_to_mpsz

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


def test_text_answers_equal_the_json_of_the_answer_objects() -> None:
    # The stream writes score_text's JSON directly; it must be exactly json.dumps of the object
    # score_line gives, for scored lines and every kind of error line, under every preset.
    lines = _request_lines(300, 14)
    lines += ["not json", "[1]", "{}", ' {"hand": "1z"} ', '{"hand": "123p"} x', '{"a": 1, "a": 2}', "NaN"]
    for name in PRESET_NAMES:
        rules = preset(name)
        for line in lines:
            assert score_text(line, rules) == json.dumps(score_line(line, rules)), line


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


def _outcome(read: object, request: object, rules: Rules) -> object:
    try:
        found = read(request, rules)  # type: ignore[operator]
    except SanmaError as exc:
        return type(exc).__name__, str(exc)
    if found is None:
        return None
    values, tsumo, dealer = found
    return values[:-1], tsumo, dealer  # the last value is the reading's detail, not compared


@pytest.mark.slow
def test_fast_path_answers_as_score_parts() -> None:
    # fast_parts answers a plainly valid request from kind counts; whatever it answers (a score,
    # not_winning, no_yaku, an impossible flag combination) must be what score_parts answers,
    # and it must answer every good request (else the fast path would silently never run).
    rng = random.Random(16)
    lines = _request_lines(600, 16)
    lines += [m for line in lines[::2] for m in _mutations(rng, line)]
    for name in PRESET_NAMES:
        rules = preset(name)
        # The random wins' indicators sometimes make a fifth copy: those are not good requests.
        good = [line for line in lines[:1200:2] if _outcome(score_parts, json.loads(line), rules)[0] != "InvalidHand"]
        assert len(good) > 500
        answered = 0
        for line in lines:
            request = json.loads(line)
            fast = _outcome(fast_parts, request, rules)
            if fast is not None:
                answered += 1
                assert fast == _outcome(score_parts, request, rules), line
        assert all(_outcome(fast_parts, json.loads(line), rules) is not None for line in good)
        assert len(good) < answered < len(lines)


def test_request_context_is_the_win_context() -> None:
    # fast_parts scores with a RequestContext where score_parts builds a WinContext: every
    # field must read the same, for every good request (the context is in the values' detail).
    assert set(RequestContext.__slots__) == set(WinContext.__dataclass_fields__)
    rules = preset("default")
    checked = 0
    for line in _request_lines(300, 17):
        request = json.loads(line)
        try:
            fast = fast_parts(request, rules)
        except SanmaError:
            continue
        if fast is None:
            continue
        slow = score_parts(request, rules)
        fast_ctx, slow_ctx = fast[0][-1][2], slow[0][-1][2]
        for name in WinContext.__dataclass_fields__:
            assert getattr(fast_ctx, name) == getattr(slow_ctx, name), (name, line)
        checked += 1
    assert checked > 250


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


# Modules the score path must not import: ``dataclasses`` (~47 M instructions with inspect, ast,
# dis and tokenize; each frozen dataclass ~4.4 M more) and the modules whose dataclasses it never
# builds, ``typing`` (~3 ms) and ``argparse`` (the usual arguments skip it): a fifth of the
# start-up of a process run once per file, which would come back silently with one import.
_NOT_ON_THE_SCORE_PATH = (
    "dataclasses",
    "typing",
    "argparse",
    "sanma.engine.rules",
    "sanma.engine.win_context",
    "sanma.engine.meld",
    "sanma.engine.decompose_search",
    "sanma.engine.reading",
    "sanma.engine.score",
)
# ``sanma score`` as the console script runs it, then the modules above that were imported.
_SCORE_AND_LIST_MODULES = f"""
import sys
from sanma.cli import main
status = main()
sys.stdout.flush()
print(sorted(m for m in {_NOT_ON_THE_SCORE_PATH!r} if m in sys.modules), status, file=sys.stderr)
"""


@pytest.mark.parametrize("args", [(), ("--rules", "tenhou"), ("--rules=mahjongsoul",)])
def test_score_path_creates_no_dataclass(args: tuple[str, ...]) -> None:
    rules = preset(args[-1].rpartition("=")[2] if args else "default")
    # Lines fast_parts reads (a random win's indicators sometimes make a fifth copy: score_parts').
    good = [line for line in _request_lines(40, 18)[::2] if _outcome(fast_parts, json.loads(line), rules) is not None]
    assert len(good) > 30
    lines = [
        *good,
        json.dumps({"hand": "123p456p234s678s99s", "win": "3p"}),  # no yaku
        json.dumps({"hand": "123p456p234s678s19s", "win": "3p"}),  # not winning
        json.dumps({"hand": "123p456p234s678s99s", "win": "3p", "tsumo": True, "houtei": True}),  # impossible
        json.dumps({"hand": "123p456p234s678s99s", "win": "3p", "riichi": True, "red_fives": False}),
        json.dumps({"hand": "123p406p234s678s99s", "win": "3p", "riichi": True, "red_fives": True}),
        "not json",
    ]
    proc = _child(["-c", _SCORE_AND_LIST_MODULES, "score", *args], lines)
    assert proc.stderr.strip() == "[] 0", proc.stderr
    assert proc.stdout.splitlines() == [score_text(line, rules) for line in lines]


def test_the_reference_path_still_scores_in_the_cli() -> None:
    # A line only score_parts reads (spaces in the notation) imports Meld and WinContext on demand.
    line = json.dumps({"hand": "123p 456p 234s 678s 99s", "win": "3p", "riichi": True, "melds": []})
    assert fast_parts(json.loads(line), preset("default")) is None
    rc, out = _run([line])
    assert rc == 0 and out[0]["yaku"] == [["riichi", 1]]
