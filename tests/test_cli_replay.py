"""``sanma replay-check`` as a subprocess: the shared real logs and corrupted copies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sanma", "replay-check", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        check=False,
    )


def _tenhou_files(root: Path) -> list[str]:
    return [str(p) for p in sorted((root / "tenhou3p_json").glob("*.json"))]


@pytest.mark.slow
def test_tenhou_logs_all_match(shared_testdata: Path) -> None:
    proc = _run(*_tenhou_files(shared_testdata))
    assert proc.stderr == ""
    assert proc.stdout.splitlines() == ["checked 89 hands: 89 match, 0 differ"]
    assert proc.returncode == 0


@pytest.mark.slow
def test_json_report_on_all_logs(shared_testdata: Path) -> None:
    files = _tenhou_files(shared_testdata) + [str(p) for p in sorted((shared_testdata / "mjsoul3p_json").glob("*"))]
    proc = _run("--json", *files)
    report = json.loads(proc.stdout)
    assert set(report) == {"checked", "match", "differ", "hands"}
    assert report["checked"] == 97 == len(report["hands"])
    assert (report["match"], report["differ"]) == (97, 0)
    assert proc.returncode == 0
    first = report["hands"][0]
    assert set(first) == {"file", "hand", "match", "detail"} and first["hand"] == 0


@pytest.mark.slow
def test_rules_option_changes_the_preset(shared_testdata: Path) -> None:
    kokushi = str(shared_testdata / "mjsoul3p_json" / "mjai-reviewer3p_kokushi_ankan.json")
    proc = _run("--rules", "tenhou", kokushi)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1] == "checked 1 hands: 0 match, 1 differ"
    assert _run("--rules", "nonsense", kokushi).returncode == 2


def _corrupt(src: Path, dst: Path, edit: object) -> str:
    data = json.loads(src.read_text(encoding="utf-8"))
    edit(data)  # type: ignore[operator]
    dst.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return str(dst)


def _set_deltas(data: dict) -> None:  # type: ignore[type-arg]
    data["log"][0][16][1] = [2700, -1300, -1400, 0]


def _swap_discard(data: dict) -> None:  # type: ignore[type-arg]
    data["log"][0][6][0] = 11  # a tile seat 0 does not hold


def _bad_tile(data: dict) -> None:  # type: ignore[type-arg]
    data["log"][1][4][0] = 15  # 5m does not exist in sanma


@pytest.mark.parametrize(
    ("edit", "expect"),
    [(_set_deltas, "deltas: engine"), (_swap_discard, "invalid log"), (_bad_tile, "invalid log")],
)
def test_corrupted_copy_is_reported_not_crashed(
    shared_testdata: Path, tmp_path: Path, edit: object, expect: str
) -> None:
    src = shared_testdata / "tenhou3p_json" / "2025020203gm-00b9-0000-bea67528.json"
    bad = _corrupt(src, tmp_path / "bad.json", edit)
    proc = _run(bad)
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert expect in lines[0] and lines[0].startswith(bad)
    assert lines[-1].endswith("differ") and " 0 differ" not in lines[-1]


@pytest.mark.slow
def test_unreadable_files(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json", encoding="utf-8")
    proc = _run(str(garbage), str(tmp_path / "missing.json"))
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1] == "checked 2 hands: 0 match, 2 differ"
    report = json.loads(_run("--json", str(garbage)).stdout)
    assert report["hands"] == [
        {"file": str(garbage), "hand": None, "match": False, "detail": report["hands"][0]["detail"]}
    ]
    assert "not JSON" in report["hands"][0]["detail"]
