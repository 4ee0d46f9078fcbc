"""How often bots choose what the phoenix-room humans chose, on the validation day's games.

The games are walked as the dataset walks them (``sanma.learn.dataset``, through ``Kyoku``),
every bot seeing each seat's events exactly as a bot at that seat would, and at every human
decision each bot is asked the same question.  Agreement per kind of decision:

- discard: the human discarded (no riichi); the bot discards the same kind (tsumogiri or not
  is not told apart);
- riichi: a riichi was legal; the bot declares it or not as the human did (and, of the riichi
  the humans turned down, how many the bot declared);
- call: a pon or open kan was offered in a window; the bot calls the same or passes as the human;
- kita, win (tsumo or ron), nine terminals: offered; taken or not as the human did;
- all: every decision, the same answer (a discard's kind, a call's kind, a pass...).

    nice -n 5 .venv/bin/python bench/learn_agreement.py --levels master expert --workers 2
    nice -n 5 .venv/bin/python bench/learn_agreement.py --levels py:sanma.bots.ev:EVBot --every 4

``--every K`` takes every K-th validation game (the slow bots); the games are the validation
day's (2026-01-22), on which nothing was tuned.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Sequence
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanma.arena import parse_player
from sanma.bots.registry import LEVELS
from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pass, Pon, Ron, Tsumo
from sanma.engine.events import Event
from sanma.engine.formats import mjlog
from sanma.engine.kyoku import LegalActions
from sanma.engine.tiles import kind_of
from sanma.learn import dataset

REPO = Path(__file__).resolve().parents[1]
KINDS = ("all", "discard", "riichi", "riichi_declined", "call", "kita", "win", "nine_terminals")
BIT = {name: 1 << i for i, name in enumerate(dataset.OPTIONS)}


def answer_key(action: Action) -> tuple[str, int]:
    """What counts as the same answer: a discard's kind and riichi, a call's kind, the rest by type."""
    if isinstance(action, Discard):
        return ("riichi" if action.riichi else "discard", kind_of(action.tile))
    if isinstance(action, Pon | Kan):
        return (type(action).__name__, action.kind)
    return (type(action).__name__, -1)


def kinds_of(legal: LegalActions, human: Action, bits: int) -> list[str]:
    """The agreement kinds a decision counts in."""
    kinds = ["all"]
    window = Pass() in legal
    if not window and isinstance(human, Discard) and not human.riichi:
        kinds.append("discard")
    if bits & BIT["riichi"]:
        kinds.append("riichi")
        if not (isinstance(human, Discard) and human.riichi):
            kinds.append("riichi_declined")
    if window and bits & (BIT["pon"] | BIT["open_kan"]):
        kinds.append("call")
    if bits & BIT["kita"]:
        kinds.append("kita")
    if bits & (BIT["tsumo"] | BIT["ron"]):
        kinds.append("win")
    if bits & BIT["nine_terminals"]:
        kinds.append("nine_terminals")
    return kinds


def agrees(kind: str, bot: Action, human: Action) -> bool:
    if kind in ("all", "discard", "call"):
        return answer_key(bot) == answer_key(human)
    if kind == "riichi":
        return (isinstance(bot, Discard) and bot.riichi) == (isinstance(human, Discard) and human.riichi)
    if kind == "riichi_declined":  # counts the bot declaring what the human declined
        return isinstance(bot, Discard) and bot.riichi
    taken = {"kita": Kita, "win": Tsumo | Ron, "nine_terminals": NineTerminals}[kind]
    return isinstance(bot, taken) == isinstance(human, taken)


class Asker:
    """A ``dataset.Watcher`` that keeps one bot per level and seat and scores their answers."""

    def __init__(self, levels: Sequence[str], seed: int) -> None:
        self.levels = list(levels)
        self.bots = {level: [parse_player(level).factory(seat, seed + seat) for seat in range(3)] for level in levels}
        self.counts: Counter[str] = Counter()

    def observe(self, seat: int, event: Event) -> None:
        for bots in self.bots.values():
            bots[seat].observe(event)

    def decision(self, seat: int, legal: LegalActions, human: Action, bits: int) -> None:
        kinds = kinds_of(legal, human, bits)
        for kind in kinds:
            self.counts[f"n:{kind}"] += 1
        for level, bots in self.bots.items():
            started = time.perf_counter()
            answer = bots[seat].decide(legal)
            self.counts[f"ms:{level}"] += round((time.perf_counter() - started) * 1000)
            for kind in kinds:
                self.counts[f"{level}:{kind}"] += agrees(kind, answer, human)


def one_game(job: tuple[Path, tuple[str, ...], int]) -> Counter[str]:
    path, levels, seed = job
    text = mjlog.gunzip(path.read_bytes(), max_bytes=dataset.GZIP_LIMIT, source=path.name).decode("utf-8")
    asker = Asker(levels, seed)
    dataset.record_samples(mjlog.loads(text, source=path.name), 0, dataset.Samples(), asker)
    asker.counts["games"] += 1
    return asker.counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=Path, default=REPO.parent / "shared/testdata/phoenix3p_mjlog")
    parser.add_argument("--levels", nargs="+", default=["master", "expert"],
                        help=f"levels ({', '.join(LEVELS)}) or py:module:Class")  # fmt: skip
    parser.add_argument("--every", type=int, default=1, help="every K-th validation game")
    parser.add_argument("--limit", type=int, default=0, help="at most N games (0: all)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    files = [p for p in sorted(args.games.glob("*.xml.gz")) if dataset.split_of(dataset.day_of(p)) == "validation"]
    files = files[:: args.every]
    if args.limit:
        files = files[: args.limit]
    if not files:
        parser.error(f"no validation-day games in {args.games}")
    started = time.perf_counter()
    total: Counter[str] = Counter()
    jobs = [(p, tuple(args.levels), args.seed) for p in files]
    with Pool(args.workers) as pool:
        for counts in pool.imap_unordered(one_game, jobs):
            total.update(counts)
    report(total, args.levels)
    print(f"{total['games']} validation games, {time.perf_counter() - started:.0f} s")
    return 0


def report(total: Counter[str], levels: Sequence[str]) -> None:
    print(f"{'decision':<18}{'n':>8}" + "".join(f"{level[-14:]:>16}" for level in levels))
    for kind in KINDS:
        n = total[f"n:{kind}"]
        if n:
            cells = "".join(f"{100 * total[f'{level}:{kind}'] / n:>15.1f}%" for level in levels)
            print(f"{kind:<18}{n:>8}{cells}")
    n = total["n:all"]
    print(f"{'ms per decision':<26}" + "".join(f"{total[f'ms:{level}'] / max(n, 1):>16.2f}" for level in levels))


if __name__ == "__main__":
    raise SystemExit(main())
