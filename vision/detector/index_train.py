"""Training the corner-index reader (``vision/detector/index_reader.py``), then ONNX export.

Its patches are generated, not read from a rendered set (``vision/synth/indices.py``): the
training decks' own corners and indices printed in hundreds of typefaces, each through a
jittered card window and a random camera. The network is the classifiers' small CNN with two
heads in one output row: the rank (13 and *none*) and the suit (4 and *none*).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee import files
from vision.detector.model_files import load_checkpoint
from vision.detector.recipe import NetworkRecipe, export_batched, one_epoch, save_progress, start_loop
from vision.synth.indices import PATCH_H, PATCH_W, RANK_CLASSES, SUIT_CLASSES, make_patches

N_RANK, N_SUIT = len(RANK_CLASSES), len(SUIT_CLASSES)


@dataclass
class IndexConfig(NetworkRecipe):
    """``configs/detector/index.yaml``: the index reader's recipe."""

    width: int = 32
    patches: int = 60000  # generated training patches (drawn once, from the seed)
    val_patches: int = 4000
    label_smoothing: float = 0.05
    styled: float = 0.0  # share of the training decks' faces printed as unusual decks
    defocus: float = 0.0  # share of patches seen through a lens out of focus

    WHAT = "index reader config"


def split_logits(logits):
    """The one output row as (rank logits, suit logits)."""
    return logits[:, :N_RANK], logits[:, N_RANK:]


def _blob(patches: np.ndarray):
    """Generated patches (RGB already, unlike the classifiers' BGR crops) as a float tensor."""
    import torch

    return torch.from_numpy(np.ascontiguousarray(patches.transpose(0, 3, 1, 2))).float() / 255.0


def accuracies(net, x: np.ndarray, ranks: np.ndarray, suits: np.ndarray, batch: int = 1024,
               device: str = "cpu") -> dict[str, float]:
    """Rank, suit and both right, over the patches."""
    import torch

    net.eval()
    pr, ps = [], []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            r, s = split_logits(net(_blob(x[i:i + batch]).to(device)))
            pr.append(r.argmax(1).cpu().numpy())
            ps.append(s.argmax(1).cpu().numpy())
    pr, ps = np.concatenate(pr), np.concatenate(ps)
    return {"rank": float((pr == ranks).mean()), "suit": float((ps == suits).mean()),
            "card": float(((pr == ranks) & (ps == suits)).mean())}


def train_index(cfg: IndexConfig, datasets: list[Path] | None, out: Path, start_from: Path | None = None,
                epochs: int | None = None, log=print, resume: bool = False) -> Path:
    """Train on generated patches, keep the best on a generated val set (another seed); return
    the .pt. ``datasets`` is unused (the patches are generated); each whole epoch is saved for
    ``resume``, which draws the same patches again from the seed."""
    import torch
    import torch.nn as nn

    from vision.detector.classifier_train import build_net

    torch.manual_seed(cfg.seed)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    x_train, r_train, s_train = make_patches(cfg.patches, cfg.seed, styled=cfg.styled, defocus=cfg.defocus)
    x_val, r_val, s_val = make_patches(cfg.val_patches, cfg.seed + 1, styled=cfg.styled, defocus=cfg.defocus)
    log(f"index: {len(x_train)} train patches, {len(x_val)} val patches ({time.time() - t0:.0f} s)")
    net = build_net(cfg.width, classes=N_RANK + N_SUIT, standardize=True)
    if start_from is not None:
        net.load_state_dict(load_checkpoint(start_from, "index reader weights")["state_dict"])
    loss_fn = nn.CrossEntropyLoss(label_smoothing=cfg.label_smoothing)
    loop = start_loop(net, cfg, out, len(x_train), epochs, resume, log, "index")
    best, history, best_path = loop.best, loop.history, out / "index.pt"

    def loss_of(idx):
        r, s = split_logits(net(_blob(x_train[idx]).to(loop.device)))
        return (loss_fn(r, torch.from_numpy(r_train[idx]).to(loop.device))
                + loss_fn(s, torch.from_numpy(s_train[idx]).to(loop.device)))

    for epoch in range(loop.done + 1, loop.epochs + 1):
        mean_loss = one_epoch(net, loop.opt, loop.sched, loop.gen, len(x_train), cfg.batch, loss_of)
        acc = accuracies(net, x_val, r_val, s_val, device=loop.device)
        history.append({"epoch": epoch, "loss": round(mean_loss, 4),
                        **{f"val_{k}": round(v, 4) for k, v in acc.items()},
                        "seconds": round(time.time() - t0, 1)})
        if acc["card"] >= best:
            best = acc["card"]
            weights = {k: v.cpu() for k, v in net.state_dict().items()}
            with files.replacing(best_path) as tmp:
                torch.save({"state_dict": weights, "width": cfg.width, "ranks": list(RANK_CLASSES),
                            "suits": list(SUIT_CLASSES), "patch_size": [PATCH_W, PATCH_H]}, tmp)
        save_progress(out, net, loop.opt, loop.sched, loop.gen, epoch, best, history)
        log(f"index: epoch {epoch}/{loop.epochs} loss {mean_loss:.4f} val rank {acc['rank']:.4f} "
            f"suit {acc['suit']:.4f} card {acc['card']:.4f}")
    files.write_json(out / "index_history.json", history)
    return best_path


def export_index(weights: Path, dest: Path) -> Path:
    """Export the .pt to ONNX with a dynamic batch."""
    from vision.detector.classifier_train import build_net

    ckpt = load_checkpoint(weights, "index reader weights")
    net = build_net(ckpt["width"], classes=N_RANK + N_SUIT, standardize=True)
    net.load_state_dict(ckpt["state_dict"])
    net.eval()
    return export_batched(net, dest, tuple(ckpt.get("patch_size", (PATCH_W, PATCH_H))), "patches", "logits")
