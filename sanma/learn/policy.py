"""The learned policy at run time: a small residual network over the 27 tile kinds, in numpy.

The network (trained by ``bench/learn_train.py`` with PyTorch, which the game never imports):

- a stem: a width-3 convolution over the kinds of the ``encode`` planes, plus the scalars
  through a linear layer (the same for every kind) and a learned per-kind bias (so the
  convolution can tell 9p from the 1s beside it), then ReLU;
- ``blocks`` residual blocks, each two width-3 convolutions: ``h = relu(h + b(relu(a(h))))``;
- two heads: per kind six logits (discard, tsumogiri, riichi discard, riichi tsumogiri, pon,
  kan) from a width-1 convolution, and four table-wide ones (kita, win, nine terminals, pass)
  from the mean and the maximum over kinds.

The heads are laid out in ``encode``'s action space (``ACTION_COUNT`` logits), so a decision
is the best logit among the legal actions.  Weights are one ``.npz`` file: ``float32`` arrays
named as in the PyTorch module and a ``meta`` JSON string (shape and provenance).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, Final

import numpy as np
from threadpoolctl import threadpool_limits

from sanma.learn import encode as enc

KINDS: Final = 27
TILE_HEADS: Final = 6  # discard, tsumogiri, riichi, riichi tsumogiri, pon, kan
TABLE_HEADS: Final = 4  # kita, win, nine terminals, pass
DEFAULT_WEIGHTS: Final = Path(__file__).resolve().parents[1] / "bots" / "data" / "master_policy.npz"


class PolicyError(ValueError):
    """A weights file that does not hold the network this module runs."""


def _conv(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """A 'same' convolution over the kinds: ``x`` (N, C, 27), ``weight`` (O, C, width)."""
    width = weight.shape[2]
    if width == 1:
        single: np.ndarray = np.matmul(weight[:, :, 0], x) + bias[:, None]
        return single
    pad = width // 2
    padded = np.pad(x, ((0, 0), (0, 0), (pad, pad)))
    columns = np.concatenate([padded[:, :, i : i + KINDS] for i in range(width)], axis=1)
    flat = weight.transpose(0, 2, 1).reshape(weight.shape[0], -1)  # (O, width * C), shift-major
    out: np.ndarray = np.matmul(flat, columns) + bias[:, None]
    return out


@cache
def _one_blas_thread() -> None:
    """Run BLAS on one thread in a process that runs the policy.  Its products are small (at
    most 128 x 384 by 384 x 27): OpenBLAS's threads buy nothing there and, on a loaded machine,
    spin against every other thread (measured on two busy cores: 2.8 ms a decision on one
    thread, 118 ms with the default threads)."""
    threadpool_limits(limits=1, user_api="blas")


class Policy:
    """The network's weights and its forward pass (``logits``)."""

    def __init__(self, weights: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        _one_blas_thread()
        self.meta = meta
        try:
            self.blocks = int(meta["blocks"])
            self.channels = int(meta["channels"])
            self.w = {name: np.ascontiguousarray(a, dtype=np.float32) for name, a in weights.items()}
            self._check()
        except (KeyError, TypeError, ValueError) as exc:
            raise PolicyError(f"not a policy file this version can run: {exc}") from None

    def _check(self) -> None:
        c = self.channels
        shapes = {
            "stem.weight": (c, enc.PLANE_COUNT, 3),
            "scalar.weight": (c, enc.SCALAR_COUNT),
            "position": (c, KINDS),
            "tile.weight": (TILE_HEADS, c, 1),
            "table.weight": (TABLE_HEADS, 2 * c),
        }
        for i in range(self.blocks):
            shapes[f"blocks.{i}.a.weight"] = shapes[f"blocks.{i}.b.weight"] = (c, c, 3)
        for name, shape in shapes.items():
            if self.w[name].shape != shape:
                raise ValueError(f"{name} has shape {self.w[name].shape}, expected {shape}")

    @classmethod
    def load(cls, path: Path) -> Policy:
        with np.load(path) as data:
            meta = json.loads(str(data["meta"]))
            weights = {name: data[name] for name in data.files if name != "meta"}
        return cls(weights, meta)

    def logits(self, planes: np.ndarray, scalars: np.ndarray) -> np.ndarray:
        """``ACTION_COUNT`` logits per sample: ``planes`` (N, PLANE_COUNT, 27), ``scalars``
        (N, SCALAR_COUNT)."""
        w = self.w
        x = planes.astype(np.float32)
        s = scalars.astype(np.float32)
        h = _conv(x, w["stem.weight"], w["stem.bias"])
        h += (s @ w["scalar.weight"].T + w["scalar.bias"])[:, :, None] + w["position"]
        np.maximum(h, 0, out=h)
        for i in range(self.blocks):
            y = np.maximum(_conv(h, w[f"blocks.{i}.a.weight"], w[f"blocks.{i}.a.bias"]), 0)
            h = np.maximum(h + _conv(y, w[f"blocks.{i}.b.weight"], w[f"blocks.{i}.b.bias"]), 0)
        tile = _conv(h, w["tile.weight"], w["tile.bias"])  # (N, 6, 27)
        pooled = np.concatenate([h.mean(axis=2), h.max(axis=2)], axis=1)
        table = pooled @ w["table.weight"].T + w["table.bias"]  # (N, 4)
        return to_actions(tile, table)


def to_actions(tile: np.ndarray, table: np.ndarray) -> np.ndarray:
    """The heads in ``encode``'s action order (the same layout the trainer uses)."""
    n = tile.shape[0]
    discard = tile[:, 0:2, :].transpose(0, 2, 1).reshape(n, 2 * KINDS)  # 2 * kind + tsumogiri
    riichi = tile[:, 2:4, :].transpose(0, 2, 1).reshape(n, 2 * KINDS)
    out = np.concatenate([discard, riichi, tile[:, 4, :], tile[:, 5, :], table], axis=1)
    assert out.shape[1] == enc.ACTION_COUNT
    return out


def best(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The best legal index of each row (``mask`` is the legal actions)."""
    result: np.ndarray = np.where(mask, logits, -np.inf).argmax(axis=-1)
    return result


@cache
def served() -> Policy:
    """The committed master policy, loaded once per process."""
    return Policy.load(DEFAULT_WEIGHTS)
