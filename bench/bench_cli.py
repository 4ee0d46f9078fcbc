"""Benchmark: ``sanma score`` and ``sanma shanten`` as a user pipes a file through them, next to
a small driver doing the same work with the ``mahjong`` 2.1.0 package (bench only).

One run writes the two input files (seeded: ``--score`` score lines of random winning hands
from tests/fixtures/scoring.py's generator, ``--shanten`` shanten lines: 13-tile tenpai
hands (one tile out of a winning hand, so their waits are listed), 13- and 14-tile hands of
seeded draw/discard play-outs, some with pons), then runs each command in a fresh process per
file, ours and the driver's in turn, ``--repeat`` times, and keeps each side's least CPU time
(user + system of the child).  The driver parses each JSON line, converts mpsz, computes
(``HandCalculator.estimate_hand_value``; ``Shanten.calculate_shanten``, and for a 13-tile tenpai
hand its waits by trying each kind that is not four own copies) and prints one JSON line.

Start-up (the same command on empty input) is measured apart and reported beside the totals;
the ratios are of whole processes, start-up included, as a user sees them.

Both sides run from cached bytecode, as an installed package does (pip compiles it at install):
the children get ``PYTHONPYCACHEPREFIX`` (a folder of this run) without
``PYTHONDONTWRITEBYTECODE``, and one untimed run of each side writes the caches.  Without it, a
container that sets ``PYTHONDONTWRITEBYTECODE`` recompiles sanma's modules on every start (about
15 ms) while the ``mahjong`` package keeps the bytecode pip wrote; ``--no-bytecode-cache`` runs
the children with the environment as it is.

    .venv/bin/python bench/bench_cli.py [--score 5000] [--shanten 20000] [--repeat 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# -- the mahjong driver (a child process: imports only json and mahjong) -----------------

_SUIT_BASE = {"m": 0, "p": 9, "s": 18, "z": 27}


def _parse34(text: str) -> list[tuple[int, bool]]:
    out: list[tuple[int, bool]] = []
    digits: list[int] = []
    for ch in text:
        if ch.isdigit():
            digits.append(int(ch))
        else:
            base = _SUIT_BASE[ch]
            out += [(base + (4 if d == 0 else d - 1), d == 0) for d in digits]
            digits = []
    return out


class _Copies:
    """Distinct 136-ids: a red five is copy 0, plain fives copies 1-3 (as ``has_aka_dora``)."""

    def __init__(self) -> None:
        self.next = [0] * 34
        for k in (4, 13, 22):
            self.next[k] = 1

    def take(self, kind: int, red: bool) -> int:
        if red:
            return kind * 4
        copy = self.next[kind]
        self.next[kind] += 1
        return kind * 4 + copy


def _driver_score() -> None:
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig, OptionalRules
    from mahjong.meld import Meld

    winds = {"E": 27, "S": 28, "W": 29}
    options = OptionalRules(has_open_tanyao=True, has_aka_dora=True, is_three_player=True)
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        r = json.loads(line)
        copies = _Copies()
        hand = [copies.take(k, red) for k, red in _parse34(r["hand"])]
        win_kind, win_red = _parse34(r["win"])[0]
        win = next(t for t in hand if t // 4 == win_kind and (t % 4 == 0) == win_red) if win_red else None
        if win is None:
            win = next(t for t in hand if t // 4 == win_kind)
        tiles = list(hand)
        melds = []
        for m in r.get("melds", []):
            mt = [copies.take(k, red) for k, red in _parse34(m["tiles"])]
            tiles += mt
            kind = Meld.PON if m["type"] == "pon" else Meld.KAN
            melds.append(Meld(meld_type=kind, tiles=mt, opened=m["type"] != "ankan"))
        dora = [copies.take(k, red) for d in r.get("dora", []) for k, red in _parse34(d)]
        ura = [copies.take(k, red) for d in r.get("ura", []) for k, red in _parse34(d)]
        riichi = r.get("riichi", False) or r.get("double_riichi", False)
        config = HandConfig(
            is_tsumo=r.get("tsumo", False),
            is_riichi=riichi,
            is_ippatsu=r.get("ippatsu", False),
            is_rinshan=r.get("rinshan", False),
            is_chankan=r.get("chankan", False),
            is_haitei=r.get("haitei", False),
            is_houtei=r.get("houtei", False),
            is_daburu_riichi=r.get("double_riichi", False),
            is_tenhou=r.get("tenhou", False),
            is_chiihou=r.get("chiihou", False),
            player_wind=winds[r.get("seat", "E")],
            round_wind=winds[r.get("round", "E")],
            kyoutaku_number=r.get("deposits", 0),
            tsumi_number=r.get("honba", 0),
            num_nuki_dora=r.get("kita", 0),
            options=options,
        )
        res = HandCalculator.estimate_hand_value(
            tiles, win, melds=melds, dora_indicators=dora, ura_dora_indicators=ura, config=config
        )
        if res.error:
            answer: dict[str, Any] = {"error": res.error}
        else:
            cost = res.cost or {}
            answer = {
                "han": res.han,
                "fu": res.fu,
                "yaku": [[y.name, y.han_closed if y.is_yakuman else 0] for y in res.yaku or []],
                "payments": {"main": cost.get("main"), "additional": cost.get("additional")},
                "total": cost.get("total"),
            }
        out.write(json.dumps(answer, separators=(", ", ": ")) + "\n")
        out.flush()


def _driver_shanten() -> None:
    from mahjong.shanten import Shanten

    sanma_kinds = [0, 8, *range(9, 34)]
    calc = Shanten.calculate_shanten
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        r = json.loads(line)
        counts = [0] * 34
        for k, _ in _parse34(r["hand"]):
            counts[k] += 1
        own = list(counts)
        melds = r.get("melds", [])
        for m in melds:
            for k, _ in _parse34(m["tiles"]):
                own[k] += 1
        own[30] += r.get("kita", 0)
        closed = not melds
        n = calc(counts, use_chiitoitsu=closed, use_kokushi=closed, is_three_player=True)
        answer: dict[str, Any] = {"shanten": n}
        if n == 0 and sum(counts) + 3 * len(melds) == 13:
            waits = []
            for k in sanma_kinds:
                if own[k] >= 4:
                    continue
                counts[k] += 1
                if calc(counts, use_chiitoitsu=closed, use_kokushi=closed, is_three_player=True) == -1:
                    waits.append(k)
                counts[k] -= 1
            answer["waits"] = [f"{(k % 9) + 1}{'mpsz'[k // 9]}" for k in waits]
        out.write(json.dumps(answer, separators=(", ", ": ")) + "\n")
        out.flush()


# -- the inputs ------------------------------------------------------------------------------


def score_lines(n: int, seed: int) -> list[str]:
    """``n`` score requests of random winning hands, each a possible set of tiles."""
    sys.path.insert(0, str(ROOT))
    from sanma.engine.errors import InvalidHand
    from sanma.engine.tiles import EAST, check_copies, kind_name, parse, tile_name, tiles_to_mpsz
    from tests.fixtures.scoring import random_win

    rng = random.Random(seed)
    winds = "ESW"
    flags = ("tsumo", "riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei", "houtei", "tenhou")
    out: list[str] = []
    while len(out) < n:
        w = random_win(rng)
        ctx = w.ctx
        req: dict[str, Any] = {"hand": tiles_to_mpsz(w.concealed), "win": tile_name(w.win_tile)}
        if w.melds:
            req["melds"] = [{"type": m.type.value, "tiles": tiles_to_mpsz(m.tiles)} for m in w.melds]
        for f in (*flags, "chiihou"):
            if getattr(ctx, f):
                req[f] = True
        req["seat"] = winds[ctx.seat_wind - EAST]
        req["round"] = winds[ctx.round_wind - EAST]
        req["dora"] = [kind_name(k) for k in ctx.dora_indicators]
        if ctx.ura_indicators:
            req["ura"] = [kind_name(k) for k in ctx.ura_indicators]
        for f in ("kita", "honba", "deposits"):
            if getattr(ctx, f):
                req[f] = getattr(ctx, f)
        items = parse(req["hand"]) + [p for m in req.get("melds", []) for p in parse(m["tiles"])]
        items += [p for d in req["dora"] + req.get("ura", []) for p in parse(d)]
        items += parse("4z") * req.get("kita", 0)
        try:
            check_copies(items)
        except InvalidHand:
            continue  # random indicators made a fifth copy: draw another hand
        out.append(json.dumps(req))
    return out


def shanten_lines(n: int, seed: int) -> list[str]:
    """``n`` shanten requests: a third 13-tile tenpai hands, the rest from play-outs."""
    sys.path.insert(0, str(ROOT))
    from sanma.engine.shanten import shanten
    from sanma.engine.tiles import KIND_COUNT, kinds_to_mpsz, tiles_to_mpsz
    from tests.fixtures.scoring import random_win

    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        if rng.random() < 1 / 3:
            w = random_win(rng)
            concealed = list(w.concealed)
            concealed.remove(rng.choice(concealed))
            req: dict[str, Any] = {"hand": tiles_to_mpsz(concealed)}
            if w.melds:
                req["melds"] = [{"type": m.type.value, "tiles": tiles_to_mpsz(m.tiles)} for m in w.melds]
            out.append(json.dumps(req))
            continue
        wall = [k for k in range(KIND_COUNT) for _ in range(4)]
        rng.shuffle(wall)
        pons = rng.choice((0, 0, 0, 1, 2))
        melds = []
        for _ in range(pons):
            k = wall.pop()
            if wall.count(k) >= 2:
                wall.remove(k)
                wall.remove(k)
                melds.append(k)
        size = 13 - 3 * len(melds)
        hand = [0] * KIND_COUNT
        for k in wall[:size]:
            hand[k] += 1
        pos = size
        for _ in range(rng.randrange(18)):  # draw, then discard the tile that keeps shanten lowest
            hand[wall[pos]] += 1
            pos += 1
            options = [k for k in range(KIND_COUNT) if hand[k]]
            best = min(options, key=lambda k: (shanten([c - (i == k) for i, c in enumerate(hand)], len(melds)), k))
            hand[best] -= 1
        if rng.random() < 0.5:
            hand[wall[pos]] += 1  # a 14-tile hand
        req = {"hand": kinds_to_mpsz(k for k in range(KIND_COUNT) for _ in range(hand[k]))}
        if melds:
            req["melds"] = [{"type": "pon", "tiles": kinds_to_mpsz([k] * 3)} for k in melds]
        out.append(json.dumps(req))
    return out


# -- timing --------------------------------------------------------------------------------------


def child_env(folder: Path, cache: bool) -> dict[str, str]:
    """The children's environment: with ``cache``, bytecode cached under ``folder``."""
    env = dict(os.environ)
    if cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    return env


def cpu_time(cmd: list[str], stdin: Path, env: dict[str, str] | None = None) -> tuple[float, bytes]:
    """CPU time of one child (``os.wait4``), and what it wrote."""
    with stdin.open("rb") as inp, tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, stdin=inp, stdout=out, cwd=ROOT, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            raise RuntimeError(f"{' '.join(cmd)} exited with {proc.returncode}")
        out.seek(0)
        return usage.ru_utime + usage.ru_stime, out.read()


def ours_command(sub: str) -> list[str]:
    script = Path(sys.executable).with_name("sanma")
    return [str(script), sub] if script.exists() else [sys.executable, "-m", "sanma", sub]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--score", type=int, default=5000, help="score lines")
    parser.add_argument("--shanten", type=int, default=20000, help="shanten lines")
    parser.add_argument("--repeat", type=int, default=3, help="runs per side; the least CPU time is kept")
    parser.add_argument("--seed", type=int, default=20260601)
    parser.add_argument("--keep", type=Path, default=None, help="write the input files here and keep them")
    parser.add_argument(
        "--no-bytecode-cache", action="store_true", help="run the children with the environment as it is"
    )
    parser.add_argument("--driver", choices=("score", "shanten"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.driver == "score":
        _driver_score()
        return
    if args.driver == "shanten":
        _driver_shanten()
        return
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench_cli_"))
    folder.mkdir(parents=True, exist_ok=True)
    empty = folder / "empty.jsonl"
    empty.write_text("")
    files = {
        "score": (folder / "score.jsonl", score_lines(args.score, args.seed)),
        "shanten": (folder / "shanten.jsonl", shanten_lines(args.shanten, args.seed + 1)),
    }
    env = child_env(folder, not args.no_bytecode_cache)
    cached = "no bytecode cache" if args.no_bytecode_cache else "bytecode cached"
    print(f"python {sys.version.split()[0]}, {cached}, inputs in {folder}, load average {os.getloadavg()[0]:.1f}")
    print(f"{'command':8} {'lines':>6} {'ours s':>7} {'theirs s':>8} {'ratio':>6}   start-up: ours / theirs s")
    for sub, (path, lines) in files.items():
        path.write_text("\n".join(lines) + "\n")
        ours_cmd = ours_command(sub)
        theirs_cmd = [sys.executable, str(Path(__file__).resolve()), "--driver", sub]
        best = {"ours": float("inf"), "theirs": float("inf"), "ours0": float("inf"), "theirs0": float("inf")}
        for cmd in (ours_cmd, theirs_cmd):
            cpu_time(cmd, empty, env)  # untimed: writes the bytecode caches
        for _ in range(args.repeat):
            for side, cmd in (("ours", ours_cmd), ("theirs", theirs_cmd)):
                t, output = cpu_time(cmd, path, env)
                answered = output.count(b"\n")
                if answered != len(lines):
                    raise RuntimeError(f"{side} {sub}: {answered} lines out for {len(lines)} in")
                best[side] = min(best[side], t)
                best[side + "0"] = min(best[side + "0"], cpu_time(cmd, empty, env)[0])
        ratio = best["theirs"] / best["ours"]
        print(
            f"{sub:8} {len(lines):6} {best['ours']:7.3f} {best['theirs']:8.3f} {ratio:5.1f}x"
            f"   {best['ours0']:.3f} / {best['theirs0']:.3f}"
        )
    if args.keep is None:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
