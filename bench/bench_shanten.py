"""Benchmark: our table-driven shanten against `mahjong` 2.1.0 on the same corpus.

Run: ``.venv/bin/python bench/bench_shanten.py`` (``--games N`` for a bigger corpus).

The corpus is every hand of seeded play-outs: a shuffled sanma wall (108 tiles), a 13-tile
deal, then draw / discard (the discard that keeps shanten lowest, ties at random) for 18
turns, keeping each 14-tile hand and each 13-tile hand after the discard; plus called
hands made by taking 1 or 2 triplets out as pons (10/11 and 7/8 concealed tiles).
Count arrays are built before timing (27-long for us, 34-long for the library); no cache
is carried between calls (our tables are loaded once at import).  Prints microseconds
per call, the ratio, import time and table memory.  Not a test: no timing is asserted.
"""

from __future__ import annotations

import argparse
import gc
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

from mahjong.shanten import Shanten  # the oracle: a test/bench dependency only

from sanma.engine import shanten as sh
from sanma.engine.tiles import KIND_COUNT

Hand = tuple[list[int], int]  # counts, melds


def to34(counts: Sequence[int]) -> list[int]:
    """27 sanma kinds -> the library's 34 (1m at 0, 9m at 8, 2m..8m empty)."""
    out = [0] * 34
    out[0], out[8] = counts[0], counts[1]
    out[9:27] = counts[2:20]
    out[27:34] = counts[20:27]
    return out


def playout(rng: random.Random, turns: int = 18) -> list[Hand]:
    wall = [k for k in range(KIND_COUNT) for _ in range(4)]
    rng.shuffle(wall)
    hand = [0] * KIND_COUNT
    for k in wall[:13]:
        hand[k] += 1
    out: list[Hand] = [(list(hand), 0)]
    for k in wall[13 : 13 + turns]:
        hand[k] += 1
        out.append((list(hand), 0))
        scored = []
        for d in range(KIND_COUNT):
            if hand[d]:
                hand[d] -= 1
                scored.append((sh.shanten(hand), rng.random(), d))
                hand[d] += 1
        _, _, d = min(scored)
        hand[d] -= 1
        out.append((list(hand), 0))
    return out


def called(hands: list[Hand], rng: random.Random) -> list[Hand]:
    out: list[Hand] = []
    for counts, _ in hands:
        c = list(counts)
        for melds in (1, 2):
            trips = [k for k in range(KIND_COUNT) if c[k] >= 3]
            if not trips:
                break
            c[rng.choice(trips)] -= 3
            out.append((list(c), melds))
    return out


def corpus(games: int, seed: int) -> list[Hand]:
    rng = random.Random(seed)
    hands: list[Hand] = []
    for _ in range(games):
        hands.extend(playout(rng))
    # Called hands: pons are rare in closed play-outs, so also pull triplets from
    # hands dealt with more duplicates (sorted walls cut at random places).
    extra: list[Hand] = []
    for _ in range(games * 4):
        start = rng.randrange(0, 108 - 14)
        wall = sorted(k for k in range(KIND_COUNT) for _ in range(4))
        c = [0] * KIND_COUNT
        for k in wall[start : start + 13 + rng.randrange(2)]:
            c[k] += 1
        extra.append((c, 0))
    hands.extend(called(hands + extra, rng))
    return hands


def race(mine: Callable[[], None], other: Callable[[], None], calls: int, repeat: int) -> tuple[float, float]:
    """Best-of-``repeat`` microseconds per call for each, alternating runs so that load
    from other processes hits both alike; the garbage collector is paused, as in timeit."""
    best = [float("inf"), float("inf")]
    mine()
    other()
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeat):
            for i, fn in enumerate((mine, other)):
                t = time.perf_counter()
                fn()
                best[i] = min(best[i], time.perf_counter() - t)
    finally:
        gc.enable()
    return best[0] / calls * 1e6, best[1] / calls * 1e6


def import_figures() -> tuple[float, float]:
    """Best of 3 fresh-interpreter import times (s), and the memory the import allocates (MiB)."""

    def run(code: str) -> str:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout

    timed = "import time; t = time.perf_counter(); import sanma.engine.shanten; print(time.perf_counter() - t)"
    seconds = min(float(run(timed)) for _ in range(3))
    traced = (
        "import tracemalloc; tracemalloc.start(); import sanma.engine.shanten;print(tracemalloc.get_traced_memory()[0])"
    )
    return seconds, float(run(traced)) / 2**20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    hands = corpus(args.games, args.seed)
    ours = [(c, m) for c, m in hands]
    theirs = [to34(c) for c, _ in hands]
    closed = [c for c, m in ours if m == 0]
    closed34 = [to34(c) for c in closed]
    sizes: dict[int, int] = {}
    for c, _ in ours:
        sizes[sum(c)] = sizes.get(sum(c), 0) + 1
    print(f"corpus: {len(ours)} hands (tiles: {dict(sorted(sizes.items()))}), seed {args.seed}")

    # Same answers first, so the race is between equals.
    regular = Shanten.calculate_shanten_for_regular_hand
    full = Shanten.calculate_shanten
    assert all(sh.standard_shanten(c, m) == regular(t, True) for (c, m), t in zip(ours, theirs, strict=True))
    assert all(sh.shanten(c) == full(t, is_three_player=True) for c, t in zip(closed, closed34, strict=True))

    def ours_standard() -> None:
        f = sh.standard_shanten
        for c, m in ours:
            f(c, m)

    def theirs_standard() -> None:
        f = regular
        for t in theirs:
            f(t, True)

    def ours_full() -> None:
        f = sh.shanten
        for c in closed:
            f(c)

    def theirs_full() -> None:
        f = full
        for t in closed34:
            f(t, is_three_player=True)

    rows = [
        ("standard (all hands)", ours_standard, theirs_standard, len(ours)),
        ("shanten, all forms (closed hands)", ours_full, theirs_full, len(closed)),
    ]
    for name, mine, other, calls in rows:
        a, b = race(mine, other, calls, args.repeat)
        print(f"{name:36s} ours {a:6.2f} us/call   mahjong {b:7.2f} us/call   ratio {b / a:5.1f}x")
    thirteen = [c for c in closed if sum(c) == 13]
    fourteen = [c for c in closed if sum(c) == 14]
    for name, fn, hands_of in (
        ("waits (13 tiles)", sh.waits, thirteen),
        ("ukeire (13 tiles)", sh.ukeire, thirteen),
        ("discard_ukeire (14 tiles)", sh.discard_ukeire, fourteen),
    ):
        sample = hands_of[:1000]

        def loop(fn: Callable[..., object] = fn, sample: list[list[int]] = sample) -> None:
            for c in sample:
                fn(c)

        t = time.perf_counter()
        loop()
        print(f"{name:36s} ours {(time.perf_counter() - t) / len(sample) * 1e6:6.1f} us/call")
    seconds, mib = import_figures()
    print(f"import sanma.engine.shanten: {seconds * 1000:.0f} ms; tables in memory: {mib:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
