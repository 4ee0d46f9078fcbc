"""A learned policy from a weights file other than the served one, for the arena.

``py:bench.learn_candidate:policy`` plays ``LearnedBot`` with the weights at
``$LEARN_WEIGHTS`` (an export of ``bench/learn_train.py``), so that candidates are measured
without touching ``sanma/bots/data/master_policy.npz``:

    LEARN_WEIGHTS=/tmp/c192b8e6.npz .venv/bin/python -m sanma arena \\
        --players py:bench.learn_candidate:policy,expert,expert --matches 1200 --rotations 6 \\
        --length east-south --seed 12201 --workers 2
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from sanma.bots.learned import LearnedBot
from sanma.learn.policy import Policy


@cache
def _weights() -> Policy:
    return Policy.load(Path(os.environ["LEARN_WEIGHTS"]))


def policy(seat: int, seed: int = 0) -> LearnedBot:
    """``LearnedBot`` with the candidate's weights (loaded once per process)."""
    return LearnedBot(seat, seed, _weights())
