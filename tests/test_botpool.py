"""The bots of a server think in worker processes (``server/botpool.py``, issue 29): a pooled
bot answers exactly as the same bot in this process from the same events, every step of
seeded matches (the learner's random numbers included); a worker that is killed between
questions is started again and its bots are built again from their seats' history, still
answering the same; a question past its budget gets the default; and the workers end with
their server, however it ended."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from sanma.bots.base import Player, ask
from sanma.bots.registry import make_bot
from sanma.engine.match import Match
from sanma.engine.visibility import redact
from sanma.server.botpool import BotPool, PooledBot


def _play(levels: tuple[str, str, str], seed: int, *, kill_at: int | None = None, max_steps: int = 4000) -> int:
    """A seeded match with a pooled bot and the same bot in this process in each seat: every
    answer must be the same; ``kill_at``: the worker is killed after so many answers.
    The number of answers compared."""

    async def run() -> int:
        pool = BotPool(2)
        match = Match(seed)
        pooled: list[PooledBot] = [pool.make_bot(level, s, seed * 3 + s) for s, level in enumerate(levels)]
        local: list[Player] = [make_bot(level, s, seed * 3 + s) for s, level in enumerate(levels)]
        shown = 0
        answers = 0
        try:
            while not match.finished and answers < max_steps:
                for event in match.events[shown:]:
                    for s in range(3):
                        pooled[s].observe(redact(event, s))
                        local[s].observe(redact(event, s))
                shown = len(match.events)
                seat = match.awaiting()[0]
                legal = match.legal_actions(seat)
                got = await pool.answer(pooled[seat], legal, 30.0)
                want = ask(local[seat], legal, 30.0)
                assert got.status == "ok", got
                assert got.action == want.action, (answers, seat, got, want)
                match.apply(seat, got.action)
                answers += 1
                if answers == kill_at:
                    for link in pool._links:
                        assert link is not None
                        link.process.kill()
                        await asyncio.wait_for(asyncio.shield(link.task), 10)  # type: ignore[arg-type]
        finally:
            await pool.close()
        return answers

    return asyncio.run(run())


@pytest.mark.slow
@pytest.mark.parametrize(
    ("levels", "seed"), [(("beginner", "normal", "expert"), 11), (("master", "expert", "beginner"), 12)]
)
def test_a_pooled_bot_answers_as_the_bot_itself(levels: tuple[str, str, str], seed: int) -> None:
    assert _play(levels, seed, max_steps=600 if "master" in levels else 4000) > 100


@pytest.mark.slow
def test_a_killed_worker_is_replaced_and_its_bots_rebuilt_from_their_history() -> None:
    assert _play(("beginner", "beginner", "expert"), 13, kill_at=60) > 100


@pytest.mark.slow
def test_a_question_past_its_budget_and_a_lost_question_get_the_default() -> None:
    async def run() -> None:
        pool = BotPool(1)
        match = Match(14)
        bot = pool.make_bot("master", 0, 1)
        for event in match.events:
            bot.observe(redact(event, 0))
        legal = match.legal_actions(match.awaiting()[0])
        try:
            late = await pool.answer(bot, legal, 0.0)  # any decision takes longer than no time
            assert late.status == "overrun" and late.action == legal.default
            link = pool._links[0]
            assert link is not None
            asking = asyncio.ensure_future(pool.answer(bot, legal, 30.0))
            await asyncio.sleep(0)
            link.process.kill()
            lost = await asyncio.wait_for(asyncio.shield(asking), 30)
            assert lost.action == legal.default and lost.status in ("error", "ok")
            again = await pool.answer(bot, legal, 30.0)
            assert again.status == "ok" and again.action in legal
            assert pool._links[0] is not link  # a new worker
        finally:
            await pool.close()

    asyncio.run(run())


def test_an_unknown_level_fails_where_the_table_opens() -> None:
    from sanma.engine.errors import SanmaError

    with pytest.raises(SanmaError, match="unknown bot level"):
        BotPool(1).make_bot("grandmaster", 0, 0)


@pytest.mark.slow
def test_the_workers_end_with_their_server_however_it_ends() -> None:
    """A process with a pool is killed with SIGKILL: its worker reads end of file and exits."""
    script = textwrap.dedent(
        """
        import asyncio, os, sys
        from sanma.engine.match import Match
        from sanma.engine.visibility import redact
        from sanma.server.botpool import BotPool

        async def main():
            pool = BotPool(1)
            match = Match(5)
            bot = pool.make_bot("expert", 0, 5)
            for event in match.events:
                bot.observe(redact(event, 0))
            answer = await pool.answer(bot, match.legal_actions(match.awaiting()[0]), 30.0)
            print(pool._links[0].process.pid, answer.status, flush=True)
            await asyncio.sleep(600)

        asyncio.run(main())
        """
    )
    server = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=os.getcwd())
    try:
        assert server.stdout is not None
        line = server.stdout.readline().split()
        assert line[1] == "ok", line
        worker = int(line[0])
        os.kill(server.pid, signal.SIGKILL)
        server.wait(10)
        deadline = time.monotonic() + 10
        while _running(worker):
            assert time.monotonic() < deadline, "the bot worker outlived its server"
            time.sleep(0.05)
    finally:
        server.kill()
        server.wait(10)
        if server.stdout is not None:
            server.stdout.close()


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie is not: it has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
