"""`sanma shanten` end to end: JSON lines through a real subprocess (spec/cli.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
VECTORS: list[dict[str, Any]] = json.loads((ROOT / "tests" / "data" / "shanten_vectors.json").read_text())["cases"]


def run_cli(lines: list[str]) -> tuple[int, list[dict[str, Any]]]:
    proc = subprocess.run(
        [sys.executable, "-m", "sanma", "shanten"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    return proc.returncode, [json.loads(line) for line in proc.stdout.splitlines()]


def request_of(case: dict[str, Any]) -> dict[str, Any]:
    melds = [
        {"type": "pon" if sum(ch.isdigit() for ch in m) == 3 else "daiminkan", "tiles": m}
        for m in case.get("melds", [])
    ]
    out: dict[str, Any] = {"hand": case["hand"], "melds": melds}
    if case.get("kita"):
        out["kita"] = case["kita"]
    return out


def test_vectors_through_the_cli() -> None:
    code, answers = run_cli([json.dumps(request_of(c)) for c in VECTORS])
    assert code == 0
    assert len(answers) == len(VECTORS)
    for case, got in zip(VECTORS, answers, strict=True):
        want: dict[str, Any] = {"shanten": case["shanten"]}
        if case["shanten"] == 0 and "waits" in case:
            want["waits"] = case["waits"]
        assert got == want, case["name"]


def test_bad_lines_do_not_stop_the_stream() -> None:
    lines = [
        "not json",
        json.dumps({"hand": "2m123p456p789s1122z"}),  # no 2m in sanma
        json.dumps({"hand": "11111z23p456p789s"}),  # fifth copy
        json.dumps(
            {"hand": "123p456p789s1z", "melds": [{"type": "pon", "tiles": "111z"}, {"type": "pon", "tiles": "1z"}]}
        ),
        json.dumps({"hand": "1z", "melds": [{"type": "pon", "tiles": "123p"}]}),  # not one kind
        json.dumps({"hand": "123p456p"}),  # too few tiles
        json.dumps({"hand": "123p456p789s11z23s", "extra": 1}),
        json.dumps([1, 2]),
        "",
        json.dumps({"hand": "123p456p789s11z23s"}),
    ]
    code, answers = run_cli(lines)
    assert code == 0
    assert [a.get("error") for a in answers[:-1]] == ["invalid"] * 8
    assert all(isinstance(a["detail"], str) and a["detail"] for a in answers[:-1])
    assert answers[-1] == {"shanten": 0, "waits": ["1s", "4s"]}


def test_fifth_copy_across_hand_and_melds_is_invalid() -> None:
    code, answers = run_cli([json.dumps({"hand": "11z123p456p789s", "melds": [{"type": "pon", "tiles": "111z"}]})])
    assert code == 0
    assert answers[0]["error"] == "invalid"


def test_kan_counts_three_and_red_fives_read_as_fives() -> None:
    lines = [
        json.dumps({"hand": "123p456p789s2z", "melds": [{"type": "ankan", "tiles": "1111z"}]}),
        json.dumps({"hand": "0555p123s456s789s1z"}),
        json.dumps({"hand": "5555p123s456s789s1z"}),
    ]
    code, answers = run_cli(lines)
    assert code == 0
    assert answers == [{"shanten": 0, "waits": ["2z"]}, {"shanten": 0}, {"shanten": 0}]
