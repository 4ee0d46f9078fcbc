"""The human decisions of real games, as each seat saw them: the learned master's dataset.

Every hand of an mjlog is replayed through ``Kyoku`` driven by the log's actions (the way
``tenhou6.check_game`` replays it).  Each seat keeps a ``SeatView`` folded from the events
redacted for it, exactly what a bot at that seat is told, and whenever the engine awaits a
seat its view, legal actions and the human's answer become one sample:

- on its own turn: discard (tsumogiri or from the hand), riichi, kita, kan, tsumo, nine
  terminals; the sample's answer is what the log shows next for that seat;
- in a window (a discard, an added or closed kan, a North): ron, pon, kan or pass; a seat the
  log shows no call for passed.  When another seat wins in that window, a seat that could only
  call (not ron) was never really asked (the win comes first), so that pass is left out.

A human action the engine does not allow is a violation: it is counted with its reason and
the rest of that hand is skipped (the views would no longer be the seat's).

Shards: one compressed ``.npz`` per ``games_per_shard`` games of one day, named by split and
day, written whole (a temporary name, then renamed), so a rerun skips the finished ones.
Augmentation (``encode.augment``) is applied when training reads a batch, not stored.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path
from typing import Any, Final, Protocol

import numpy as np

from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pass, Pon, Ron, Tsumo
from sanma.engine.errors import SanmaError
from sanma.engine.events import DoraRevealed, Event, MatchStarted, RiichiAccepted
from sanma.engine.formats import mjlog, tenhou6
from sanma.engine.kyoku import Kyoku, LegalActions
from sanma.engine.tiles import SEAT_COUNT, SEATS
from sanma.engine.view import SeatView
from sanma.engine.visibility import redact
from sanma.learn import encode as enc

VALIDATION_DAY: Final = 20260122  # never tuned on; the days before it train
GZIP_LIMIT: Final = 16 << 20

# What a decision offered besides a plain discard or pass (a bit each): the report counts
# how often each was offered and taken.
OPTIONS: Final = ("riichi", "kita", "kan", "tsumo", "nine_terminals", "ron", "pon", "open_kan")
_BIT: Final = {name: 1 << i for i, name in enumerate(OPTIONS)}


class DatasetError(ValueError):
    """A game file the dataset cannot use (not a readable mjlog, no day in its name)."""


@dataclass(slots=True)
class Samples:
    """Samples in columns (one list per field) and the counts the report gives."""

    planes: list[np.ndarray] = field(default_factory=list)
    scalars: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    tiles: list[int] = field(default_factory=list)  # the discarded tile (red fives apart), -1 else
    options: list[int] = field(default_factory=list)
    windows: list[bool] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)
    games: list[int] = field(default_factory=list)
    hands: list[int] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.actions)

    def arrays(self, names: Sequence[str], days: Sequence[int]) -> dict[str, np.ndarray]:
        """The columns as arrays for ``np.savez_compressed``."""
        n = len(self)
        return {
            "planes": np.stack(self.planes) if n else np.zeros((0, enc.PLANE_COUNT, 27), np.uint8),
            "scalars": np.stack(self.scalars) if n else np.zeros((0, enc.SCALAR_COUNT), np.float32),
            "masks": np.stack(self.masks) if n else np.zeros((0, enc.ACTION_COUNT), bool),
            "actions": np.array(self.actions, np.int16),
            "tiles": np.array(self.tiles, np.int8),
            "options": np.array(self.options, np.uint8),
            "windows": np.array(self.windows, bool),
            "seats": np.array(self.seats, np.int8),
            "games": np.array(self.games, np.int32),
            "hands": np.array(self.hands, np.int16),
            "game_names": np.array(list(names)),
            "game_days": np.array(list(days), np.int32),
            "counts": np.array(json.dumps(dict(sorted(self.counts.items())))),
            "violations": np.array(self.violations, dtype=str),
        }


def options_of(legal: LegalActions) -> int:
    """The ``OPTIONS`` bits a set of legal actions holds."""
    bits = 0
    if any(riichi for _, riichi in legal.discard_tiles):
        bits |= _BIT["riichi"]
    window = Pass() in legal
    for action in legal.actions:
        if isinstance(action, Kita):
            bits |= _BIT["kita"]
        elif isinstance(action, Kan):
            bits |= _BIT["open_kan" if window else "kan"]
        elif isinstance(action, Tsumo):
            bits |= _BIT["tsumo"]
        elif isinstance(action, NineTerminals):
            bits |= _BIT["nine_terminals"]
        elif isinstance(action, Ron):
            bits |= _BIT["ron"]
        elif isinstance(action, Pon):
            bits |= _BIT["pon"]
    return bits


def taken_option(action: Action, window: bool) -> str | None:
    """The ``OPTIONS`` name an answer takes (``None``: a plain discard or a pass)."""
    if isinstance(action, Discard):
        return "riichi" if action.riichi else None
    if isinstance(action, Kan):
        return "open_kan" if window else "kan"
    names: dict[type, str] = {Kita: "kita", Tsumo: "tsumo", NineTerminals: "nine_terminals", Ron: "ron", Pon: "pon"}
    return names.get(type(action))


def offered(events: Sequence[Event]) -> int | None:
    """The tile the current window asks about: the last play before it (a dora revealed or
    a riichi accepted in between changes nothing)."""
    for event in reversed(events):
        if not isinstance(event, DoraRevealed | RiichiAccepted):
            return enc.offered_tile(event)
    return None


class Watcher(Protocol):
    """Told the walk as it goes (``bench/learn_agreement.py`` asks bots the same decisions):
    every event as each seat sees it, and every stored decision with the human's answer."""

    def observe(self, seat: int, event: Event) -> None: ...

    def decision(self, seat: int, legal: LegalActions, human: Action, bits: int) -> None: ...


class _HandWalk:
    """One hand replayed through ``Kyoku``, the three views kept in step with its events."""

    def __init__(
        self, kyoku: Kyoku, views: list[SeatView], out: Samples, game: int, hand: int, watcher: Watcher | None
    ) -> None:
        self.kyoku, self.views, self.out, self.game, self.hand = kyoku, views, out, game, hand
        self.watcher = watcher
        self.folded = 0
        self.won_in_window = False

    def sync(self) -> None:
        events = self.kyoku.events
        for event in events[self.folded :]:
            for seat in SEATS:
                seen = redact(event, seat)
                self.views[seat].apply(seen)
                if self.watcher is not None:
                    self.watcher.observe(seat, seen)
        self.folded = len(events)

    def record(self, seat: int, legal: LegalActions, action: Action) -> None:
        self.sync()
        view = self.views[seat]
        window = self.kyoku.phase == "window"
        tile = offered(self.kyoku.events) if window else None
        mask = enc.legal_mask(view, legal)
        index = enc.action_index(action, view.drawn)
        counts = self.out.counts
        if not mask[index]:
            counts["mask_miss"] += 1  # the encoder lost a legal action: a bug, the report shows it
            return
        if mask.sum() == 1:
            counts["forced"] += 1  # one legal answer (a riichi hand's tsumogiri): nothing to learn
            return
        bits = options_of(legal)
        self.out.planes.append(enc.encode(view, tile))
        self.out.scalars.append(enc.scalars(view, tile))
        self.out.masks.append(mask)
        self.out.actions.append(index)
        self.out.tiles.append(action.tile if isinstance(action, Discard) else -1)
        self.out.options.append(bits)
        self.out.windows.append(window)
        self.out.seats.append(seat)
        self.out.games.append(self.game)
        self.out.hands.append(self.hand)
        counts["window" if window else "turn"] += 1
        if isinstance(action, Discard) and not action.riichi:
            counts["discard"] += 1
            counts["tsumogiri"] += action.tile == view.drawn
        if isinstance(action, Pass):
            counts["pass"] += 1
        for name in OPTIONS:
            if bits & _BIT[name]:
                counts[f"{name}_offered"] += 1
        taken = taken_option(action, window)
        if taken is not None:
            counts[f"{taken}_taken"] += 1
        if self.watcher is not None:
            self.watcher.decision(seat, legal, action, bits)

    def answer(self, seat: int, action: Action) -> None:
        self.record(seat, self.kyoku.legal_actions(seat), action)
        if isinstance(action, Ron):
            self.won_in_window = True
        was_window = self.kyoku.phase == "window"
        self.kyoku.apply(seat, action)
        if was_window and self.kyoku.phase != "window":
            self.won_in_window = False

    def pass_all(self) -> None:
        """Every seat still awaited in the window passes (the log shows no call for it)."""
        for seat in self.kyoku.awaiting():
            legal = self.kyoku.legal_actions(seat)
            if self.won_in_window and Ron() not in legal:
                self.out.counts["pass_preempted"] += 1  # asked nothing: a win came first
                self.kyoku.apply(seat, Pass())
            else:
                self.answer(seat, Pass())
            if self.kyoku.result is not None:
                return
        self.won_in_window = False

    def step(self, seat: int, action: Action) -> str | None:
        """Play the log's next action; a problem when the engine refuses it."""
        for _ in range(SEAT_COUNT + 1):
            k = self.kyoku
            if k.result is not None:
                return f"the hand ended before seat {seat}'s {action}"
            if k.phase == "turn":
                if k.awaiting() != (seat,) or action not in k.legal_actions(seat):
                    break
                self.answer(seat, action)
                return None
            if seat in k.awaiting() and action in k.legal_actions(seat):
                self.answer(seat, action)
                return None
            self.pass_all()
        legal = ", ".join(str(a) for a in self.kyoku.legal_actions(seat)) or "nothing"
        return f"seat {seat}'s {action} is not legal (awaiting {list(self.kyoku.awaiting())}; legal: {legal})"

    def finish(self) -> None:
        while self.kyoku.result is None and self.kyoku.phase == "window":
            self.pass_all()
        self.sync()


def game_samples(text: str, source: str, game: int, out: Samples) -> None:
    """Append every decision of one mjlog game to ``out``."""
    try:
        record = mjlog.loads(text, source=source)
    except mjlog.MjlogError as exc:
        raise DatasetError(str(exc)) from None
    record_samples(record, game, out)


def record_samples(record: tenhou6.RecordedGame, game: int, out: Samples, watcher: Watcher | None = None) -> None:
    """Append every decision of one recorded game (``game`` numbers it in the shard);
    ``watcher`` is told the events and the decisions as the walk goes."""
    source = record.source
    rules = tenhou6.rules_for(record)
    views = [SeatView(s) for s in SEATS]
    start = MatchStarted(seed=0, rules=rules, wall_algorithm="mjlog")
    for seat, view in enumerate(views):
        seen = redact(start, seat)
        view.apply(seen)
        if watcher is not None:
            watcher.observe(seat, seen)
    for hand in record.hands:
        kyoku = tenhou6.start_kyoku(hand, rules)
        walk = _HandWalk(kyoku, views, out, game, hand.index, watcher)
        out.counts["hands"] += 1
        problem = None
        for step, (seat, action) in enumerate(hand.actions):
            try:
                problem = walk.step(seat, action)
            except SanmaError as exc:
                problem = f"the engine raised {type(exc).__name__}: {exc}"
            if problem:
                out.violations.append(f"{source} hand {hand.index} action {step}: {problem}")
                break
        if problem is None:
            walk.finish()
        else:
            walk.sync()


# -- files, shards and the run ---------------------------------------------------------------


def day_of(path: Path) -> int:
    """The day in a Tenhou log's name (``2026011603gm-...`` -> 20260116)."""
    digits = path.name[:8]
    if not digits.isdigit():
        raise DatasetError(f"{path.name}: the name does not start with the day (YYYYMMDD)")
    return int(digits)


def split_of(day: int) -> str:
    """``train`` before the validation day, ``validation`` on it, ``test`` after it."""
    return "train" if day < VALIDATION_DAY else "validation" if day == VALIDATION_DAY else "test"


@dataclass(frozen=True, slots=True)
class Shard:
    """Some games of one day and the file they go to."""

    path: Path
    files: tuple[Path, ...]


def plan(files: Sequence[Path], out_dir: Path, games_per_shard: int) -> list[Shard]:
    """Shards of at most ``games_per_shard`` games, one day each, in name order."""
    if games_per_shard < 1:
        raise ValueError("games_per_shard must be at least 1")
    by_day: dict[int, list[Path]] = {}
    for path in sorted(files, key=lambda p: p.name):
        by_day.setdefault(day_of(path), []).append(path)
    shards = []
    for day, paths in sorted(by_day.items()):
        for i in range(0, len(paths), games_per_shard):
            name = f"{split_of(day)}-{day}-{i // games_per_shard:03d}.npz"
            shards.append(Shard(out_dir / name, tuple(paths[i : i + games_per_shard])))
    return shards


@dataclass(frozen=True, slots=True)
class ShardReport:
    """What one shard holds: its file name, counts (``Samples.counts``) and violations."""

    shard: str
    counts: dict[str, int]
    violations: tuple[str, ...]


def build_shard(shard: Shard) -> ShardReport:
    """Write one shard (unless it exists) and return its counts and violations."""
    if not shard.path.exists():
        started = time.perf_counter()
        out = Samples()
        for game, path in enumerate(shard.files):
            text = mjlog.gunzip(path.read_bytes(), max_bytes=GZIP_LIMIT, source=path.name).decode("utf-8")
            game_samples(text, path.name, game, out)
        out.counts["games"] = len(shard.files)
        out.counts["seconds"] = round(time.perf_counter() - started)
        temporary = shard.path.with_name(shard.path.stem + ".partial.npz")
        arrays: dict[str, Any] = out.arrays([p.name for p in shard.files], [day_of(p) for p in shard.files])
        np.savez_compressed(temporary, **arrays)
        os.replace(temporary, shard.path)
    return read_report(shard.path)


def read_report(path: Path) -> ShardReport:
    """A shard's counts and violations (without loading its samples)."""
    with np.load(path) as data:
        counts = json.loads(str(data["counts"]))
        violations = tuple(str(v) for v in data["violations"])
    return ShardReport(path.name, counts, violations)


def build(
    files: Sequence[Path], out_dir: Path, *, games_per_shard: int = 50, workers: int = 2
) -> Iterator[ShardReport]:
    """Build every missing shard (``workers`` processes), yielding each shard's report in order."""
    out_dir.mkdir(parents=True, exist_ok=True)
    shards = plan(files, out_dir, games_per_shard)
    if workers <= 1:
        yield from map(build_shard, shards)
        return
    with Pool(workers) as pool:
        yield from pool.imap(build_shard, shards)


def load(paths: Sequence[Path]) -> dict[str, np.ndarray]:
    """The sample columns of some shards, concatenated (what training reads)."""
    columns = ("planes", "scalars", "masks", "actions", "tiles", "options", "windows", "seats")
    parts: dict[str, list[np.ndarray]] = {c: [] for c in columns}
    for path in paths:
        with np.load(path) as data:
            for c in columns:
                parts[c].append(data[c])
    return {c: np.concatenate(v) for c, v in parts.items()}
