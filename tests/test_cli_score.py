"""``sanma score`` through a real subprocess: JSON lines in, JSON lines out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(lines: list[str], *args: str) -> tuple[int, list[dict[str, object]]]:
    proc = subprocess.run(
        [sys.executable, "-m", "sanma", "score", *args],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
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
