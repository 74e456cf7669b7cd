"""Training the card classifier (stage 2) on crops cut from labelled datasets, then ONNX export.

Crops come from the same Ultralytics datasets as the finder's (synthetic and collected), cut
with :func:`vision.detector.crops.card_crop` after jittering each box as the finder would,
so training sees what inference will. The network is a small plain CNN: it trains in minutes
on a CPU and runs in about a millisecond a card.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee import files
from referee.cards import CLASSES
from referee.errors import ConfigError
from vision.detector.crops import CROP_H, CROP_W, card_crop, jitter_box
from vision.detector.evaluate import MOSTLY_HIDDEN, read_yolo_dataset
from vision.detector.not_a_card import cards_only_state, load_net
from vision.detector.recipe import load_config


@dataclass
class ClassifierConfig:
    """``configs/detector/classifier.yaml``: every setting of the classifier recipe."""

    stage: str
    epochs: int = 12
    batch: int = 128
    lr: float = 0.003
    weight_decay: float = 0.0005
    label_smoothing: float = 0.05
    seed: int = 0
    jitter: float = 0.08  # box edge jitter, share of the box size
    copies: int = 2  # jittered crops per labelled card (train split)
    partial_copies: int = 0  # extra crops per card less than half in view (its index shows)
    court_swap: float = 0.0  # share of J/Q/K crops whose picture is another court card's of its suit
    suit_swap: float = 0.0  # share of J/Q/K crops whose picture is another suit's court card of its rank
    index_mask: float = 0.0  # share of J/Q/K crops whose two corner indices are blanked
    full_bleed: float = 0.0  # share of J/Q/K crops whose picture is stretched over the whole card
    keep_start: float = 0.0  # a fine-tune's weights end as this share of the start's plus the rest
    width: int = 48  # channels of the first stage; doubled at each stride
    threads: int | None = None  # torch threads; 1 when another training shares the cores
    device: str = "cpu"  # where the network trains: cpu, or a GPU as 0, 1, ... (cuda:N)
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> ClassifierConfig:
        return load_config(cls, path, "classifier config")


def build_net(width: int = 48, classes: int = len(CLASSES)):
    """Conv-BN-ReLU stages at strides 2, 4, 8, 16, global average pool, one linear layer."""
    import torch.nn as nn

    def block(cin: int, cout: int, stride: int) -> list:
        return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    w = width
    layers = block(3, w // 2, 2) + block(w // 2, w, 2) + block(w, w, 1)
    layers += block(w, 2 * w, 2) + block(2 * w, 2 * w, 1) + block(2 * w, 4 * w, 2) + block(4 * w, 4 * w, 1)
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(4 * w, classes)]
    return nn.Sequential(*layers)


def extract_crops(datasets: list[Path], split: str, copies: int, jitter: float,
                  seed: int, partial_copies: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """All labelled cards of ``split`` as (n, H, W, 3) uint8 crops and their class ids; a card
    the renderer saw less than half in view (labelled because a corner index shows) gets
    ``partial_copies`` more: such slivers are few in a set and the hardest to name."""
    rng = np.random.default_rng(seed)
    crops, labels = [], []
    for root in datasets:
        if not (root / "images" / split).is_dir():
            continue
        for sample in read_yolo_dataset(root, split):
            image = cv2.imread(str(sample.image))
            if image is None:
                raise ConfigError(f"{sample.image}: cannot read image")
            shares = [c["visible"] for c in sample.cards] if sample.cards else [1.0] * len(sample.boxes)
            for box, cls, share in zip(sample.boxes, sample.classes, shares, strict=True):
                for _ in range(copies + (partial_copies if share < MOSTLY_HIDDEN else 0)):
                    b = jitter_box(rng, box, jitter) if jitter else box
                    crops.append(card_crop(image, b))
                    labels.append(cls)
    if not crops:
        return np.zeros((0, CROP_H, CROP_W, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(crops), np.array(labels, np.int64)


def augment(x, generator):
    """Batch augmentations on float RGB tensors: 180-degree turns, light, colour, blur, noise."""
    import torch
    import torch.nn.functional as F

    n = x.shape[0]
    turn = torch.rand(n, generator=generator) < 0.5
    x = torch.where(turn[:, None, None, None], x.flip(2, 3), x)
    gain = 0.6 + 0.8 * torch.rand(n, 1, 1, 1, generator=generator)
    bias = 0.15 * (torch.rand(n, 1, 1, 1, generator=generator) - 0.5)
    tint = 1 + 0.2 * (torch.rand(n, 3, 1, 1, generator=generator) - 0.5)
    x = x * gain * tint + bias
    small = torch.rand(n, generator=generator) < 0.3  # a small card in a wide view
    if small.any():
        scale = float(0.35 + 0.4 * torch.rand(1, generator=generator))
        h, w = x.shape[2:]
        low = F.interpolate(x[small], scale_factor=scale, mode="bilinear", align_corners=False)
        x[small] = F.interpolate(low, size=(h, w), mode="bilinear", align_corners=False)
    x = x + 0.03 * torch.rand(n, 1, 1, 1, generator=generator) * torch.randn(x.shape, generator=generator)
    return x.clamp(0, 1)


COURT = np.array([c not in ("JK", "BACK") and c[:-1] in ("J", "Q", "K") for c in CLASSES])
RANK = np.array([c[:-1] for c in CLASSES])
SUIT = np.array([c[-1] for c in CLASSES])
# The middle of a crop (channels, rows, columns): the picture, clear of both corner indices.
PICTURE = (slice(None), slice(int(0.22 * CROP_H), int(0.78 * CROP_H)),
           slice(int(0.24 * CROP_W), int(0.76 * CROP_W)))


def chosen_courts(labels: np.ndarray, generator, share: float) -> np.ndarray:
    """The indices of a random ``share`` of the J, Q and K crops among ``labels``."""
    import torch

    courts = np.nonzero(COURT[labels])[0]
    if share <= 0 or not len(courts):
        return courts[:0]
    return courts[(torch.rand(len(courts), generator=generator) < share).numpy()]


def swap_courts(x, labels: np.ndarray, generator, share: float, keep: str = "suit"):
    """Give a ``share`` of the J, Q and K crops the picture of another court card, keeping
    their corners. With ``keep="suit"`` the donor is a court card of the same suit and another
    rank: the rank is then told by the corner index alone, as on a deck whose pictures are
    unlike any seen in training (a jack drawn like a king is still a J). With ``keep="rank"``
    it is the same rank in another suit: designs give a suit's figure to another suit (one
    deck's queen of spades is drawn as another's queen of clubs), so the suit too must be
    read from the corner."""
    import torch

    if keep not in ("suit", "rank"):
        raise ValueError(f"keep: expected 'suit' or 'rank', got {keep!r}")
    courts = np.nonzero(COURT[labels])[0]
    chosen = chosen_courts(labels, generator, share)
    if not len(chosen):
        return x
    same, other = (SUIT, RANK) if keep == "suit" else (RANK, SUIT)
    source = x.clone()
    for i in chosen:
        c = labels[courts]
        donors = courts[(same[c] == same[labels[i]]) & (other[c] != other[labels[i]])]
        if len(donors):
            j = donors[int(torch.randint(len(donors), (1,), generator=generator))]
            x[(i, *PICTURE)] = source[(j, *PICTURE)]
    return x


# The two corners where most designs print the index (rank over suit), top left and, turned,
# bottom right: the parts of a crop outside the picture window, on the card.
CORNERS = ((slice(None), slice(0, int(0.24 * CROP_H)), slice(0, int(0.26 * CROP_W))),
           (slice(None), slice(int(0.76 * CROP_H), CROP_H), slice(int(0.74 * CROP_W), CROP_W)))


def mask_indices(x, labels: np.ndarray, generator, share: float):
    """Blank both corner indices of a ``share`` of the J, Q and K crops with the corner's own
    median colour (the card's paper): some designs print no rank on their court cards, only
    the picture tells them apart, and it is then the picture the classifier must read."""
    for i in chosen_courts(labels, generator, share):
        for corner in CORNERS:
            region = x[(i, *corner)]
            x[(i, *corner)] = region.flatten(1).median(dim=1).values[:, None, None]
    return x


# The card inside a crop (``card_crop`` adds a margin of 0.06 of the box on each side).
CARD_ROWS = (round(0.06 / 1.12 * CROP_H), round(1.06 / 1.12 * CROP_H))
CARD_COLS = (round(0.06 / 1.12 * CROP_W), round(1.06 / 1.12 * CROP_W))


def full_bleed(x, labels: np.ndarray, generator, share: float):
    """Stretch the picture of a ``share`` of the J, Q and K crops over the whole card, keeping
    both corners: a picture that fills the card, as some designs draw their court cards (no
    white field around a framed figure), which a classifier that has seen only framed
    pictures takes for a card's back."""
    import torch.nn.functional as F

    top, bottom = CARD_ROWS
    left, right = CARD_COLS
    for i in chosen_courts(labels, generator, share):
        corners = [x[(i, *c)].clone() for c in CORNERS]
        picture = x[(i, *PICTURE)][None]
        x[i, :, top:bottom, left:right] = F.interpolate(picture, size=(bottom - top, right - left),
                                                        mode="bilinear", align_corners=False)[0]
        for c, saved in zip(CORNERS, corners, strict=True):
            x[(i, *c)] = saved
    return x


def torch_device(spec: str) -> str:
    """``0`` -> ``cuda:0`` (the finder's Ultralytics spelling); ``cpu``, ``cuda:1`` as given."""
    return f"cuda:{spec}" if spec.isdigit() else spec


def _blob(crops: np.ndarray):
    import torch

    return torch.from_numpy(np.ascontiguousarray(crops[..., ::-1].transpose(0, 3, 1, 2))).float() / 255.0


def accuracy(net, crops: np.ndarray, labels: np.ndarray, batch: int = 512, device: str = "cpu") -> float:
    import torch

    net.eval()
    right = 0
    with torch.no_grad():
        for i in range(0, len(crops), batch):
            pred = net(_blob(crops[i : i + batch]).to(device)).argmax(1).cpu().numpy()
            right += int((pred == labels[i : i + batch]).sum())
    return right / max(len(crops), 1)


def train_classifier(cfg: ClassifierConfig, datasets: list[Path], out: Path, start_from: Path | None = None,
                     epochs: int | None = None, log=print) -> Path:
    """Train on the datasets' train splits, keep the best on their val splits; return the .pt."""
    import torch
    import torch.nn as nn

    torch.manual_seed(cfg.seed)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)  # two jobs oversubscribing 2 cores run 8x slower
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    x_train, y_train = extract_crops(datasets, "train", cfg.copies, cfg.jitter, cfg.seed, cfg.partial_copies)
    x_val, y_val = extract_crops(datasets, "val", 1, cfg.jitter / 2, cfg.seed + 1)
    if not len(x_train):
        raise ConfigError("no labelled cards in the train split of " + ", ".join(map(str, datasets)))
    log(f"classifier: {len(x_train)} train crops, {len(x_val)} val crops ({time.time() - t0:.0f} s)")
    net = build_net(cfg.width)
    if start_from is not None:  # the card rows: a not-a-card row is re-fitted after (not_a_card.py)
        net.load_state_dict(cards_only_state(start_from))
    # Crops are cut and augmented on the CPU (one seeded generator); the network runs on the device.
    device = torch_device(cfg.device)
    net.to(device)
    epochs = epochs or cfg.epochs
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    steps = epochs * ((len(x_train) + cfg.batch - 1) // cfg.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg.lr, total_steps=steps, pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=cfg.label_smoothing)
    gen = torch.Generator().manual_seed(cfg.seed)
    best, best_path, history = -1.0, out / "classifier.pt", []
    for epoch in range(1, epochs + 1):
        net.train()
        order = torch.randperm(len(x_train), generator=gen).numpy()
        total = 0.0
        for i in range(0, len(order), cfg.batch):
            idx = order[i : i + cfg.batch]
            x = swap_courts(_blob(x_train[idx]), y_train[idx], gen, cfg.court_swap)
            x = swap_courts(x, y_train[idx], gen, cfg.suit_swap, keep="rank")
            x = full_bleed(x, y_train[idx], gen, cfg.full_bleed)
            x = augment(mask_indices(x, y_train[idx], gen, cfg.index_mask), gen)
            loss = loss_fn(net(x.to(device)), torch.from_numpy(y_train[idx]).to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        acc = accuracy(net, x_val, y_val, device=device) if len(x_val) else float("nan")
        history.append({"epoch": epoch, "loss": round(total / len(order), 4), "val_accuracy": round(acc, 4),
                        "seconds": round(time.time() - t0, 1)})
        log(f"classifier: epoch {epoch}/{epochs} loss {total / len(order):.4f} val accuracy {acc:.4f}")
        if acc >= best or not len(x_val):
            best = acc
            weights = {k: v.cpu() for k, v in net.state_dict().items()}
            with files.replacing(best_path) as tmp:  # a kill mid-save keeps the last best
                torch.save({"state_dict": weights, "width": cfg.width, "classes": list(CLASSES)}, tmp)
    files.write_json(out / "classifier_history.json", history)
    if start_from is not None and cfg.keep_start > 0:
        tuned = best_path.rename(out / "classifier_tuned.pt")
        average_weights(start_from, tuned, cfg.keep_start, best_path)
        log(f"classifier: weights averaged with the start's ({cfg.keep_start:.2f} of the start)")
    return best_path


def average_weights(start: Path, tuned: Path, keep_start: float, dest: Path) -> Path:
    """Write ``keep_start`` x the start's weights + the rest x the fine-tuned ones to ``dest``.

    A fine-tune on a few new sets forgets some of what the start knew (the fifth pass read
    the new decks' court cards better and the real photos worse); the average of the two,
    both from one training, keeps most of each. Integer buffers (batch counts) are the tuned
    ones."""
    import torch

    from vision.detector.model_files import load_checkpoint

    start_net, a = load_net(start, cards_only=True)
    start_cards = start_net.state_dict()
    b = load_checkpoint(tuned)
    if a.get("width") != b.get("width") or start_cards.keys() != b["state_dict"].keys():
        raise ConfigError(f"{start}: not the same network as {tuned}: cannot average their weights")
    mixed = {}
    for k, w in b["state_dict"].items():
        if w.is_floating_point():
            w = (keep_start * start_cards[k].float() + (1 - keep_start) * w.float()).to(w.dtype)
        mixed[k] = w
    with files.replacing(dest) as tmp:
        torch.save({**b, "state_dict": mixed}, tmp)
    return dest


def export_classifier(weights: Path, dest: Path) -> Path:
    """Export the .pt to ONNX with a dynamic batch (crops of one frame run together)."""
    import torch

    from vision.detector.model_files import load_checkpoint

    ckpt = load_checkpoint(weights)
    net = build_net(ckpt["width"], len(ckpt.get("classes", CLASSES)))
    net.load_state_dict(ckpt["state_dict"])
    net.eval()
    dest.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, 3, CROP_H, CROP_W), str(dest), input_names=["crops"],
                      output_names=["logits"], dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
                      opset_version=17, dynamo=False)
    return dest
