"""How long does a player's statistics query take with 5,000 finished matches?

Plays a few distinct bot matches once, then stores ``--matches`` matches for one player (and
``--others`` for other players, so the query must pick the player's rows out of more) through
the server's own path (``create_match``, then ``append_events`` ending the match, which writes
the summary rows), and times ``store.stats.player_stats`` (the whole of GET /api/account/stats
but the HTTP) ``--repeats`` times: median and worst.  The target is under 200 ms (issue 27).

    .venv/bin/python bench/stats_speed.py                      # SQLite in a temp folder
    .venv/bin/python bench/stats_speed.py --db /tmp/stats.db   # kept: a second run skips the fill
    .venv/bin/python bench/stats_speed.py --url postgresql+psycopg://...
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func, select

from sanma.arena.duplicate import play_seated
from sanma.bots.registry import make_bot
from sanma.engine.rules import DEFAULT
from sanma.server.codec import event_to_store, rules_to_json
from sanma.store import db
from sanma.store.guests import create_guest
from sanma.store.matches import SeatPlayer, append_events, create_match
from sanma.store.stats import player_stats
from sanma.store.tables import match_players, match_stats

# (length, bot level, kind) of the stored matches, in turn: the groups a real player would have.
MIX = [
    ("east", "normal", "practice"),
    ("east", "expert", "practice"),
    ("east-south", "normal", "practice"),
    ("east", "beginner", "practice"),
    ("east-south", "normal", "room"),
]


def logs(count: int) -> list[tuple[str, str, str, list[dict[str, Any]]]]:
    """``count`` distinct bot matches (the bots play them: normal bots, quick), in the mix's turn."""
    out = []
    for n in range(count):
        length, level, kind = MIX[n % len(MIX)]
        bots = [make_bot("normal", seat, 100 * n + seat) for seat in range(3)]
        match = play_seated(bots, 7000 + n, DEFAULT.with_options(length=length)).match
        out.append((length, level, kind, [event_to_store(e) for e in match.events]))
    return out


def fill(engine: Engine, guest: str, matches: int, played: list[tuple[str, str, str, list[dict[str, Any]]]]) -> None:
    for n in range(matches):
        length, level, kind, log = played[n % len(played)]
        seat = n % 3
        players = [SeatPlayer(s, guest, None) if s == seat else SeatPlayer(s, None, level) for s in range(3)]
        rules = rules_to_json(DEFAULT.with_options(length=length))
        record = create_match(
            engine, guest_id=guest, rules=rules, seed=n, bot_level=level, human_seat=seat, kind=kind, players=players
        )
        append_events(engine, record.id, 1, log, ended=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=5000, help="the player's finished matches")
    parser.add_argument("--others", type=int, default=1000, help="other players' finished matches")
    parser.add_argument("--logs", type=int, default=20, help="distinct bot matches the stored ones repeat")
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--db", type=Path, help="a SQLite file to keep (filled once)")
    parser.add_argument("--url", help="a database URL instead (e.g. PostgreSQL)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url or f"sqlite:///{args.db or Path(tmp) / 'stats.db'}"
        engine = db.open_engine(url)
        db.upgrade(engine)
        guest = _player(engine, args)
        wall: list[float] = []
        cpu: list[float] = []
        for _ in range(args.repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            found = player_stats(engine, guest)
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        engine.dispose()
    print(f"{url.split(':')[0]}: {found.total.matches} matches of the player in {len(found.groups)} groups")
    # The CPU time of this process too: on a shared machine the wall time is mostly waiting for a core
    # (SQLite runs in the process, so its work is counted; a PostgreSQL server's is not).
    for name, times in (("wall", wall), ("cpu", cpu)):
        ms = sorted(t * 1000 for t in times)
        median = statistics.median(ms)
        print(f"player_stats {name}: median {median:.1f} ms, worst {ms[-1]:.1f} ms over {args.repeats} runs")


def _player(engine: Engine, args: argparse.Namespace) -> str:
    """The player with the most summary rows (a kept file's), else a new one with its matches."""
    with engine.connect() as conn:
        rows = conn.execute(select(func.count()).select_from(match_stats)).scalar_one()
    if rows:
        with engine.connect() as conn:
            return str(
                conn.execute(
                    select(match_players.c.guest_id)
                    .where(match_players.c.guest_id.is_not(None))
                    .group_by(match_players.c.guest_id)
                    .order_by(func.count().desc())
                    .limit(1)
                ).scalar_one()
            )
    t0 = time.perf_counter()
    played = logs(args.logs)
    guest = create_guest(engine).id
    fill(engine, guest, args.matches, played)
    for n in range(args.others):
        fill(engine, create_guest(engine).id, 1, played[n % len(played) :])
    print(f"filled in {time.perf_counter() - t0:.0f} s ({args.logs} distinct logs)")
    return guest


if __name__ == "__main__":
    main()
