"""Policies on the validation day's decisions, offline: loss and top-1 agreement of exports
alone, of their mean (an ensemble), and of each averaged over the six relabellings that keep
the game (test-time augmentation, ``encode.AUGMENTATIONS``).

Reads the shards of ``bench/learn_dataset.py`` (numpy only, no torch):

    .venv/bin/python bench/learn_offline.py --shards 2 \\
        sanma/bots/data/master_policy.npz /work/data/gpu/c192b8e6.npz

Rows: each export, each with ``+tta``, and the mean of all (and of all with ``+tta``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from sanma.learn import dataset
from sanma.learn import encode as enc
from sanma.learn.policy import Policy

BATCH = 1024


def log_probabilities(policy: Policy, planes: np.ndarray, scalars: np.ndarray, masks: np.ndarray) -> list[np.ndarray]:
    """Each legal action's log-probability (``-inf`` elsewhere) under each relabelling of
    ``encode.AUGMENTATIONS``, the first being the identity."""
    out = []
    for kinds in enc.AUGMENTATIONS:
        relabelled, _, _ = enc.augment(planes, masks, 0, kinds)
        logits = policy.logits(relabelled, scalars)[:, enc.action_permutation(kinds)]  # read the answers back
        logits = np.where(masks, logits, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        out.append(logits - np.log(np.exp(logits).sum(axis=1, keepdims=True)))
    return out


def report(name: str, logp: np.ndarray, actions: np.ndarray, masks: np.ndarray) -> None:
    pick = logp.argmax(axis=1)
    n = len(actions)
    plain = actions < enc.RIICHI
    same_tile = (pick < enc.RIICHI) & (pick // 2 == actions // 2)
    riichi_legal = masks[:, enc.RIICHI : enc.PON].any(axis=1)
    human_riichi = (actions >= enc.RIICHI) & (actions < enc.PON)
    picked_riichi = (pick >= enc.RIICHI) & (pick < enc.PON)
    riichi_agreement = (human_riichi == picked_riichi)[riichi_legal].mean()
    print(
        f"{name:28s} loss {-logp[np.arange(n), actions].mean():.4f}  top-1 {(pick == actions).mean():.2%}"
        f"  discards {same_tile[plain].mean():.2%}  riichi or not {riichi_agreement:.2%}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("weights", nargs="+", type=Path, help="exports of bench/learn_train.py")
    parser.add_argument("--data", type=Path, default=Path("/work/data/sanma-learn"))
    parser.add_argument("--shards", type=int, default=2, help="validation shards read (0: all)")
    args = parser.parse_args(argv)
    paths = sorted(args.data.glob("validation-*.npz"))
    paths = paths[: args.shards] if args.shards else paths
    if not paths:
        raise SystemExit(f"no validation shards in {args.data} (build them with bench/learn_dataset.py)")
    d = dataset.load(paths)
    policies = [Policy.load(p) for p in args.weights]
    rows: dict[str, list[np.ndarray]] = {}
    for start in range(0, len(d["actions"]), BATCH):
        part = slice(start, start + BATCH)
        planes, scalars, masks = d["planes"][part], d["scalars"][part], d["masks"][part]
        relabellings = [log_probabilities(p, planes, scalars, masks) for p in policies]
        plain = [r[0] for r in relabellings]
        averaged = [np.mean(r, axis=0, dtype=np.float64) for r in relabellings]
        for suffix, each in (("", plain), ("+tta", averaged)):
            for path, logp in zip(args.weights, each, strict=True):
                rows.setdefault(path.stem + suffix, []).append(logp)
            if len(each) > 1:
                rows.setdefault("mean of all" + suffix, []).append(sum(each) / len(each))
    print(f"{len(d['actions'])} validation decisions from {len(paths)} shards")
    actions = d["actions"].astype(np.int64)
    for name, parts in rows.items():
        report(name, np.concatenate(parts), actions, d["masks"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
