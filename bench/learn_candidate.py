"""A learned policy from a weights file other than the served one, for the arena.

``py:bench.learn_candidate:policy`` plays ``LearnedBot`` with the weights at
``$LEARN_WEIGHTS`` (an export of ``bench/learn_train.py``), so that candidates are measured
without touching ``sanma/bots/data/master_policy.npz``:

    LEARN_WEIGHTS=/tmp/c192b8e6.npz .venv/bin/python -m sanma arena \\
        --players py:bench.learn_candidate:policy,expert,expert --matches 1200 --rotations 6 \\
        --length east-south --seed 12201 --workers 2

``py:bench.learn_candidate:ensemble_master`` plays the level master with the exports at
``$LEARN_ENSEMBLE`` (comma-separated) averaged in place of the served policy (session 22: the
served 128 x 6 with the GPU run's 192 x 8, docs/benchmarks.md).
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import numpy as np

from sanma.bots.learned import LearnedBot
from sanma.bots.master import LearnedMaster
from sanma.learn.policy import Policy


@cache
def _weights() -> Policy:
    return Policy.load(Path(os.environ["LEARN_WEIGHTS"]))


def policy(seat: int, seed: int = 0) -> LearnedBot:
    """``LearnedBot`` with the candidate's weights (loaded once per process)."""
    return LearnedBot(seat, seed, _weights())


class Ensemble:
    """Several policies as one: the mean of their logits (the same answer and probabilities as
    the mean of their log-probabilities, which differ from the logits by one constant a row)."""

    def __init__(self, members: list[Policy]) -> None:
        self.members = members

    def logits(self, planes: np.ndarray, scalars: np.ndarray) -> np.ndarray:
        mean: np.ndarray = np.mean([m.logits(planes, scalars) for m in self.members], axis=0)
        return mean


@cache
def _ensemble() -> Ensemble:
    return Ensemble([Policy.load(Path(p)) for p in os.environ["LEARN_ENSEMBLE"].split(",")])


def ensemble_master(seat: int, seed: int = 0) -> LearnedMaster:
    """The level master with the policies at ``$LEARN_ENSEMBLE`` (comma-separated exports)
    averaged in place of the served policy."""
    return LearnedMaster(seat, seed, _ensemble())  # type: ignore[arg-type]
