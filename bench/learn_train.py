"""Train the learned master's policy on the phoenix decision dataset (PyTorch, the CPU build).

Supervised: each sample's target is the human's answer among the legal actions (masked
cross-entropy), every batch relabelled by one of ``encode.AUGMENTATIONS`` chosen at random.
The network is ``sanma.learn.policy``'s, which runs the exported weights with numpy.

Training is split into resumable stages: ``--stage-minutes`` of work, then a checkpoint in
``--ckpt`` (outside the repository) and exit; the next call resumes from it, with the same
batches it would have drawn without the stop.  The curve goes to ``curve.jsonl`` beside it.

    bench/requirements-train.txt  (torch, CPU build; training only)
    nice -n 5 .venv/bin/python bench/learn_train.py --data /work/data/sanma-learn \\
        --ckpt /work/data/sanma-ckpt/c128b6 --channels 128 --blocks 6 --epochs 3 --stage-minutes 40
    .venv/bin/python bench/learn_train.py --ckpt /work/data/sanma-ckpt/c128b6 \\
        --export sanma/bots/data/master_policy.npz

``--export`` writes the weights with their provenance (data, seed, command, steps, validation
figures) and checks that numpy's forward pass gives torch's logits.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanma.learn import dataset
from sanma.learn import encode as enc
from sanma.learn import policy as pol

REPO = Path(__file__).resolve().parents[1]


class Block(nn.Module):
    def __init__(self, c: int) -> None:
        super().__init__()
        self.a = nn.Conv1d(c, c, 3, padding=1)
        self.b = nn.Conv1d(c, c, 3, padding=1)
        nn.init.zeros_(self.b.weight)  # each block starts as the identity
        nn.init.zeros_(self.b.bias)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return torch.relu(h + self.b(torch.relu(self.a(h))))


class Net(nn.Module):
    """The network of ``sanma.learn.policy`` (same parameter names, same action layout)."""

    def __init__(self, channels: int, blocks: int) -> None:
        super().__init__()
        self.stem = nn.Conv1d(enc.PLANE_COUNT, channels, 3, padding=1)
        self.scalar = nn.Linear(enc.SCALAR_COUNT, channels)
        self.position = nn.Parameter(torch.zeros(channels, pol.KINDS))
        self.blocks = nn.ModuleList(Block(channels) for _ in range(blocks))
        self.tile = nn.Conv1d(channels, pol.TILE_HEADS, 1)
        self.table = nn.Linear(2 * channels, pol.TABLE_HEADS)

    def forward(self, planes: torch.Tensor, scalars: torch.Tensor) -> torch.Tensor:
        h = self.stem(planes) + self.scalar(scalars)[:, :, None] + self.position
        h = torch.relu(h)
        for block in self.blocks:
            h = block(h)
        tile = self.tile(h)
        table = self.table(torch.cat([h.mean(dim=2), h.amax(dim=2)], dim=1))
        n = tile.shape[0]
        discard = tile[:, 0:2, :].transpose(1, 2).reshape(n, 2 * pol.KINDS)
        riichi = tile[:, 2:4, :].transpose(1, 2).reshape(n, 2 * pol.KINDS)
        return torch.cat([discard, riichi, tile[:, 4, :], tile[:, 5, :], table], dim=1)


def masked_loss(logits: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    return nn.functional.cross_entropy(logits.masked_fill(~masks, -1e9), actions)


def load_split(data: Path, split: str) -> dict[str, np.ndarray]:
    paths = sorted(data.glob(f"{split}-*.npz"))
    if not paths:
        raise SystemExit(f"no {split} shards in {data} (build them with bench/learn_dataset.py)")
    return dataset.load(paths)


def batch_tensors(
    d: dict[str, np.ndarray], idx: np.ndarray, kinds: np.ndarray | None, device: str = "cpu"
) -> tuple[torch.Tensor, ...]:
    planes, masks, actions = d["planes"][idx], d["masks"][idx], d["actions"][idx].astype(np.int64)
    if kinds is not None:
        planes, masks, actions = enc.augment(planes, masks, actions, kinds)
    arrays = (planes.astype(np.float32), d["scalars"][idx], masks, np.asarray(actions, dtype=np.int64))
    return tuple(torch.from_numpy(a).to(device) for a in arrays)


@torch.no_grad()
def evaluate(net: Net, d: dict[str, np.ndarray], limit: int, batch: int = 2048) -> dict[str, float]:
    """Validation loss and top-1 agreement (all decisions, and the human's plain discards)."""
    net.eval()
    device = next(net.parameters()).device.type
    n = min(limit, len(d["actions"])) if limit else len(d["actions"])
    idx_all = np.arange(n)
    loss_sum, hits, discard_hits, discards = 0.0, 0, 0, 0
    for start in range(0, n, batch):
        idx = idx_all[start : start + batch]
        planes, scalars, masks, actions = batch_tensors(d, idx, None, device)
        logits = net(planes, scalars)
        loss_sum += float(masked_loss(logits, masks, actions)) * len(idx)
        pick = logits.masked_fill(~masks, -1e9).argmax(dim=1)
        hits += int((pick == actions).sum())
        plain = actions < enc.RIICHI
        same_kind = (pick < enc.RIICHI) & (pick // 2 == actions // 2)
        discards += int(plain.sum())
        discard_hits += int((plain & same_kind).sum())
    net.train()
    return {"loss": loss_sum / n, "top1": hits / n, "discard_top1": discard_hits / max(discards, 1), "samples": n}


def save(path: Path, state: dict[str, Any]) -> None:
    temporary = path.with_suffix(".partial")
    torch.save(state, temporary)
    os.replace(temporary, path)


def train(args: argparse.Namespace) -> None:
    torch.set_num_threads(args.threads)
    args.ckpt.mkdir(parents=True, exist_ok=True)
    last = args.ckpt / "last.pt"
    train_d = load_split(args.data, "train")
    valid_d = load_split(args.data, "validation")
    n = len(train_d["actions"])
    steps_per_epoch = n // args.batch
    total = steps_per_epoch * args.epochs
    torch.manual_seed(args.seed)
    net = Net(args.channels, args.blocks).to(args.device)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    step = 0
    config = {k: getattr(args, k) for k in ("channels", "blocks", "batch", "epochs", "lr", "weight_decay", "seed")}
    if last.exists():
        state = torch.load(last, weights_only=False, map_location=args.device)
        if state["config"] != config:
            raise SystemExit(f"{last} was trained with {state['config']}, not {config}")
        net.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        step = state["step"]
        print(f"resumed at step {step} of {total}", flush=True)
    else:
        commands = [shlex.join(sys.argv)]
        save(
            last,
            {
                "model": net.state_dict(),
                "optimizer": opt.state_dict(),
                "step": 0,
                "config": config,
                "commands": commands,
                "train_samples": n,
            },
        )
    params = sum(p.numel() for p in net.parameters())
    print(f"{n} train samples, {steps_per_epoch} steps an epoch, {total} steps, {params} parameters", flush=True)
    stage_end = time.monotonic() + args.stage_minutes * 60
    curve = (args.ckpt / "curve.jsonl").open("a")
    started, running, seen = time.monotonic(), 0.0, 0
    while step < total and time.monotonic() < stage_end:
        epoch, offset = divmod(step, steps_per_epoch)
        order = np.random.default_rng([args.seed, epoch]).permutation(n)  # the same batches after a resume
        idx = np.sort(order[offset * args.batch : (offset + 1) * args.batch])
        rng = np.random.default_rng([args.seed, epoch, offset])
        kinds = enc.AUGMENTATIONS[int(rng.integers(len(enc.AUGMENTATIONS)))]
        lr = args.lr * 0.5 * (1 + math.cos(math.pi * step / total))
        for group in opt.param_groups:
            group["lr"] = lr
        planes, scalars, masks, actions = batch_tensors(train_d, idx, kinds, args.device)
        loss = masked_loss(net(planes, scalars), masks, actions)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        running += loss.item()
        seen += 1
        if step % args.log_every == 0 or step == total:
            row: dict[str, Any] = {
                "step": step,
                "epoch": round(step / steps_per_epoch, 3),
                "lr": lr,
                "train_loss": running / seen,
                "seconds": round(time.monotonic() - started),
            }
            running, seen = 0.0, 0
            if step % args.eval_every == 0 or step == total:
                row["validation"] = evaluate(net, valid_d, args.eval_limit)
            print(json.dumps(row), flush=True)
            curve.write(json.dumps(row) + "\n")
            curve.flush()
        if step % args.save_every == 0:
            _checkpoint(last, net, opt, step)
    _checkpoint(last, net, opt, step)
    print(f"stage done at step {step} of {total} ({time.monotonic() - started:.0f} s)", flush=True)
    if step >= total:
        final = evaluate(net, valid_d, 0)
        print(json.dumps({"final_validation": final}), flush=True)
        state = torch.load(last, weights_only=False)
        state["final_validation"] = final
        save(last, state)


def _checkpoint(last: Path, net: Net, opt: torch.optim.Optimizer, step: int) -> None:
    state = torch.load(last, weights_only=False)
    state.update(model=net.state_dict(), optimizer=opt.state_dict(), step=step)
    if state["commands"][-1] != shlex.join(sys.argv):
        state["commands"].append(shlex.join(sys.argv))
    save(last, state)


def export(args: argparse.Namespace) -> None:
    state = torch.load(args.ckpt / "last.pt", weights_only=False, map_location="cpu")
    config = state["config"]
    net = Net(config["channels"], config["blocks"])
    net.load_state_dict(state["model"])
    net.eval()
    weights = {name: t.detach().numpy().astype(np.float32) for name, t in net.state_dict().items()}
    shards = sorted(p.name for p in args.data.glob("*.npz")) if args.data.exists() else []
    meta = {
        "name": "sanma-master-policy",
        "version": args.version,
        "channels": config["channels"],
        "blocks": config["blocks"],
        "parameters": int(sum(w.size for w in weights.values())),
        "training": {
            **config,
            "steps": state["step"],
            "train_samples": state["train_samples"],
            "commands": state["commands"],
            "augmentations": len(enc.AUGMENTATIONS),
        },
        "data": {
            "games": "../shared/testdata/phoenix3p_mjlog (Tenhou phoenix room, 2026-01-16..01-22)",
            "train_days": "2026-01-16..01-21",
            "validation_day": "2026-01-22",
            "shards": len(shards),
            "built_by": "bench/learn_dataset.py",
        },
        "validation": state.get("final_validation"),
        "torch": torch.__version__,
    }
    # numpy must give torch's logits
    valid_d = load_split(args.data, "validation")
    idx = np.arange(min(512, len(valid_d["actions"])))
    planes, scalars, _, _ = batch_tensors(valid_d, idx, None)
    with torch.no_grad():
        expected = net(planes, scalars).numpy()
    got = pol.Policy(weights, meta).logits(valid_d["planes"][idx], valid_d["scalars"][idx])
    diff = float(np.abs(expected - got).max())
    if diff > 1e-3:
        raise SystemExit(f"numpy's logits differ from torch's by {diff}")
    meta["numpy_check"] = {"samples": len(idx), "max_abs_diff": diff}
    args.export.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.export, meta=np.array(json.dumps(meta)), **weights)
    print(f"{args.export}: {args.export.stat().st_size / 2**20:.1f} MiB, numpy vs torch max diff {diff:.2e}")
    print(json.dumps(meta, indent=1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("/work/data/sanma-learn"))
    parser.add_argument("--ckpt", type=Path, required=True, help="checkpoint folder (outside the repository)")
    parser.add_argument("--channels", type=int, default=128)
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--weight-decay", type=float, default=1e-4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="cpu", help="torch device: cpu, or cuda where a GPU is lent")
    parser.add_argument("--stage-minutes", type=float, default=40)
    parser.add_argument("--log-every", type=int, default=100)
    parser.add_argument("--eval-every", type=int, default=1000)
    parser.add_argument("--eval-limit", type=int, default=20000, help="validation samples in the curve (0: all)")
    parser.add_argument("--save-every", type=int, default=500)
    parser.add_argument("--export", type=Path, help="write the weights .npz from the checkpoint and stop")
    parser.add_argument("--version", default="policy-1", help="the weights' name in reviews (review.REVIEWER)")
    args = parser.parse_args(argv)
    if args.ckpt.resolve().is_relative_to(REPO):
        parser.error("checkpoints are derived from the shared games: keep them outside the repository")
    if args.export:
        export(args)
    else:
        train(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
