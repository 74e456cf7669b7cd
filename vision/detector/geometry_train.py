"""Training the corner refiner (``vision/detector/geometry.py``) on rendered sets, then ONNX export.

The renderer records every card's true corners (``quads/<split>/*.json``), so each labelled
card gives a square cut around its box, jittered as the finder's boxes are, and the card's
rotated rectangle in that square as the target. Turning a square by 90 degrees turns its
target with it, which balances the poses the sets happen to hold.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee import files
from referee.errors import ConfigError
from vision.detector.classifier_train import _blob
from vision.detector.crops import jitter_box
from vision.detector.evaluate import read_yolo_dataset
from vision.detector.geometry import GEO_MARGIN, GEO_SIZE, decode, encode, rects_from_quads, square_crops
from vision.detector.geometry import rect_errors as geometry_errors
from vision.detector.model_files import load_checkpoint
from vision.detector.recipe import NetworkRecipe, export_batched, one_epoch, save_progress, start_loop


@dataclass
class GeometryConfig(NetworkRecipe):
    """``configs/detector/geometry.yaml``: the corner refiner's recipe (the settings shared with
    the classifiers, :class:`vision.detector.recipe.NetworkRecipe`)."""

    width: int = 32
    margin: float = GEO_MARGIN  # of the square cut around each box (vision/detector/geometry.py)

    WHAT = "corner refiner config"


def card_rects(sample) -> list:
    """Each labelled card's true corners, or None where the set has no renderer's record."""
    if sample.cards is None:
        return [None] * len(sample.boxes)
    return [c.get("quad") for c in sample.cards]


def extract_squares(datasets: list[Path], split: str, copies: int, jitter: float,
                    seed: int, margin: float = GEO_MARGIN) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(n, GEO_SIZE, GEO_SIZE, 3) uint8 squares, their (n, 6) targets and (n, 4) jittered boxes."""
    rng = np.random.default_rng(seed)
    squares, targets, cut = [], [], []
    for root in datasets:
        if not (root / "images" / split).is_dir():
            continue
        for sample in read_yolo_dataset(root, split):
            quads = card_rects(sample)
            keep = [i for i, q in enumerate(quads) if q is not None]
            if not keep:
                continue
            image = cv2.imread(str(sample.image))
            if image is None:
                raise ConfigError(f"{sample.image}: cannot read image")
            rects = rects_from_quads(np.array([quads[i] for i in keep]))
            for _ in range(copies):
                boxes = np.stack([jitter_box(rng, sample.boxes[i], jitter) if jitter else sample.boxes[i]
                                  for i in keep])
                squares.append(square_crops(image, boxes, margin))
                targets.append(encode(rects, boxes, margin))
                cut.append(boxes)
    if not squares:
        return np.zeros((0, GEO_SIZE, GEO_SIZE, 3), np.uint8), np.zeros((0, 6), np.float32), np.zeros((0, 4))
    return np.concatenate(squares), np.concatenate(targets), np.concatenate(cut)


def turn(x, y, k: int):
    """Turn squares (n, 3, H, W) and their targets by ``k`` quarter turns counter-clockwise."""
    import torch

    x = torch.rot90(x, k, dims=(2, 3))
    y = y.clone()
    for _ in range(k % 4):
        cx, cy = y[:, 0].clone(), y[:, 1].clone()
        y[:, 0], y[:, 1] = cy, 1 - cx
        y[:, 4:] = -y[:, 4:]  # the long side turns by 90 degrees: twice the angle by 180
    return x, y


def light(x, generator):
    """Light, colour, blur and noise of a real table (the targets do not change)."""
    import torch

    n = x.shape[0]
    x = x * (0.5 + 0.9 * torch.rand(n, 1, 1, 1, generator=generator))
    x = x * (1 + 0.3 * (torch.rand(n, 3, 1, 1, generator=generator) - 0.5))
    x = x + 0.2 * (torch.rand(n, 1, 1, 1, generator=generator) - 0.5)
    grey = torch.rand(n, generator=generator) < 0.15
    x = torch.where(grey[:, None, None, None], x.mean(1, keepdim=True).expand_as(x), x)
    x = x + 0.04 * torch.rand(n, 1, 1, 1, generator=generator) * torch.randn(x.shape, generator=generator)
    return x.clamp(0, 1)


def rect_errors(pred: np.ndarray, true: np.ndarray, boxes: np.ndarray,
                margin: float = GEO_MARGIN) -> dict[str, float]:
    """:func:`vision.detector.geometry.rect_errors` of encoded targets."""
    return geometry_errors(decode(pred, boxes, margin), decode(true, boxes, margin))


def predict(net, squares: np.ndarray, batch: int = 512, device: str = "cpu") -> np.ndarray:
    import torch

    net.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(squares), batch):
            out.append(net(_blob(squares[i : i + batch]).to(device)).cpu().numpy())
    return np.concatenate(out) if out else np.zeros((0, 6), np.float32)


def train_geometry(cfg: GeometryConfig, datasets: list[Path], out: Path, start_from: Path | None = None,
                   epochs: int | None = None, log=print, resume: bool = False) -> Path:
    """Train on the datasets' train splits, keep the best on their val splits; return the .pt.
    Each whole epoch is saved (``out/last.pt``); ``resume`` goes on from the last one."""
    import torch

    from vision.detector.classifier_train import build_net

    torch.manual_seed(cfg.seed)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    x_train, y_train, _ = extract_squares(datasets, "train", cfg.copies, cfg.jitter, cfg.seed, cfg.margin)
    x_val, y_val, val_boxes = extract_squares(datasets, "val", 1, cfg.jitter, cfg.seed + 1, cfg.margin)
    if not len(x_train):
        raise ConfigError("no cards with recorded corners in the train split of "
                          + ", ".join(map(str, datasets)) + " (render them with cardref synth)")
    log(f"corner refiner: {len(x_train)} train squares, {len(x_val)} val squares ({time.time() - t0:.0f} s)")
    net = build_net(cfg.width, 6)
    if start_from is not None:
        net.load_state_dict(load_checkpoint(start_from)["state_dict"])
    loop = start_loop(net, cfg, out, len(x_train), epochs, resume, log, "corner refiner", worst=float("inf"))
    opt, sched, gen, device, epochs = loop.opt, loop.sched, loop.gen, loop.device, loop.epochs
    best, history = loop.best, loop.history
    weight = torch.tensor([4.0, 4.0, 1.0, 1.0, 1.0, 1.0], device=device)
    best_path = out / "geometry.pt"
    def loss_of(idx):
        x, y = turn(_blob(x_train[idx]), torch.from_numpy(y_train[idx]),
                    int(torch.randint(4, (1,), generator=gen)))
        x = light(x, gen)
        return (torch.nn.functional.smooth_l1_loss(net(x.to(device)), y.to(device), reduction="none",
                                                   beta=0.05) * weight).mean()

    for epoch in range(loop.done + 1, epochs + 1):
        mean_loss = one_epoch(net, opt, sched, gen, len(x_train), cfg.batch, loss_of)
        errors = (rect_errors(predict(net, x_val, device=device), y_val, val_boxes, cfg.margin)
                  if len(x_val) else {})
        score = errors.get("corner", mean_loss)
        history.append({"epoch": epoch, "loss": round(mean_loss, 5),
                        **{k: round(v, 4) for k, v in errors.items()}, "seconds": round(time.time() - t0, 1)})
        if score <= best:
            best = score
            with files.replacing(best_path) as tmp:  # a kill mid-save keeps the last best
                torch.save({"state_dict": {k: v.cpu() for k, v in net.state_dict().items()},
                            "width": cfg.width, "margin": cfg.margin, "errors": errors}, tmp)
        save_progress(out, net, opt, sched, gen, epoch, best, history)
        log(f"corner refiner: epoch {epoch}/{epochs} loss {mean_loss:.5f} val " +
            " ".join(f"{k} {v:.4f}" for k, v in errors.items()))
    files.write_json(out / "geometry_history.json", history)
    return best_path


def export_geometry(weights: Path, dest: Path) -> Path:
    """Export the .pt to ONNX with a dynamic batch, its square's margin in the file's metadata."""
    from vision.detector.classifier_train import build_net

    ckpt = load_checkpoint(weights)
    net = build_net(ckpt["width"], 6)
    net.load_state_dict(ckpt["state_dict"])
    net.eval()
    export_batched(net, dest, (GEO_SIZE, GEO_SIZE), "squares", "rects")
    return set_margin(dest, ckpt.get("margin", GEO_MARGIN))


def set_margin(path: Path, margin: float) -> Path:
    """Write the refiner's margin (the square it learned to see around each box) into the
    .onnx's metadata: inference reads it there (``CornerRefiner``), so a refiner retrained with
    another margin cannot be decoded with the wrong one."""
    import onnx

    model = onnx.load(str(path))
    props = {p.key: p.value for p in model.metadata_props}
    onnx.helper.set_model_props(model, {**props, "margin": repr(float(margin))})
    onnx.save(model, str(path))
    return path
