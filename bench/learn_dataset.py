"""Build the learned master's decision dataset from Tenhou phoenix mjlogs (``sanma.learn.dataset``).

Every decision of every seat, as the seat saw it, with the human's answer; one ``.npz`` shard
per ``--games-per-shard`` games of one day (finished shards are skipped, so an interrupted run
resumes).  The data and the dataset stay outside the repository:

    nice -n 10 .venv/bin/python bench/learn_dataset.py \\
        --games ../shared/testdata/phoenix3p_mjlog --out /work/data/sanma-learn --workers 2

It prints each shard as it lands, then the samples per decision kind for train and validation,
the human actions the engine refused (violations, with where), the disk size and the time.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanma.learn import dataset

REPO = Path(__file__).resolve().parents[1]
# (label, counter key) rows of the report
ROWS = (
    ("decisions", "samples"),
    ("  own turn", "turn"),
    ("    discards (not riichi)", "discard"),
    ("      of them tsumogiri", "tsumogiri"),
    ("  windows (ron/pon/kan or pass)", "window"),
    ("    passes", "pass"),
    *(
        (f"  {name} offered / taken", name)
        for name in ("riichi", "kita", "kan", "tsumo", "nine_terminals", "ron", "pon", "open_kan")
    ),
    ("forced (one legal answer, not stored)", "forced"),
    ("passes left out (a win came first)", "pass_preempted"),
    ("human action outside the mask (a bug)", "mask_miss"),
    ("hands", "hands"),
    ("games", "games"),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=Path, default=REPO.parent / "shared/testdata/phoenix3p_mjlog")
    parser.add_argument("--out", type=Path, default=Path("/work/data/sanma-learn"))
    parser.add_argument("--games-per-shard", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="only the first N games (by name); 0: all")
    args = parser.parse_args(argv)
    files = sorted(args.games.glob("*.xml.gz"), key=lambda p: p.name)
    if args.limit:
        files = files[: args.limit]
    if not files:
        parser.error(f"no *.xml.gz games in {args.games}")
    if args.out.resolve().is_relative_to(REPO):
        parser.error("the dataset is derived from the shared games: write it outside the repository")
    started = time.perf_counter()
    totals: dict[str, Counter[str]] = {}
    violations: list[str] = []
    for report in dataset.build(files, args.out, games_per_shard=args.games_per_shard, workers=args.workers):
        counts = Counter(report.counts)
        counts["samples"] = counts["turn"] + counts["window"]
        totals.setdefault(report.shard.split("-")[0], Counter()).update(counts)
        violations += report.violations
        print(f"{report.shard}: {counts['samples']} samples, {counts['games']} games", flush=True)
    _report(totals)
    print(f"violations: {len(violations)}")
    for line in violations:
        print(f"  {line}")
    size = sum(p.stat().st_size for p in args.out.glob("*.npz"))
    print(f"{len(files)} games -> {args.out}: {size / 2**20:.0f} MiB in {time.perf_counter() - started:.0f} s")
    return 0


def _report(totals: dict[str, Counter[str]]) -> None:
    splits = sorted(totals, key=lambda s: ("train", "validation", "test").index(s))
    print(f"{'':40}" + "".join(f"{s:>20}" for s in splits))
    for label, key in ROWS:
        if key in dataset.OPTIONS:
            cells = [f"{totals[s][key + '_offered']} / {totals[s][key + '_taken']}" for s in splits]
        else:
            cells = [str(totals[s][key]) for s in splits]
        print(f"{label:40}" + "".join(f"{c:>20}" for c in cells))


if __name__ == "__main__":
    raise SystemExit(main())
