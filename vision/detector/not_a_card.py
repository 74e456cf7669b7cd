"""The classifier's "not a card" output: telling the finder's boxes on other things apart.

On the real photos the finder puts hundreds of confident boxes on things that are not cards
(toy puzzles, envelopes, book covers, other games' cards), and a classifier that knows only
cards names each of them. One more row on the classifier's last layer, fitted on its frozen
features of the boxes the finder puts on no card in rendered sets (printed covers, notes,
phones, empty table), gives each box a probability of being no card at all. The 54 card rows
are left as they were, so a card's name does not change; only a box's confidence drops
(real photos, rank mAP50 0.894 -> 0.910 with the sixth-pass classifier; see the model card).

Fitting one row takes seconds on a CPU, where fine-tuning the whole classifier with a 55th
class takes most of an hour, and it can be re-fitted after any fine-tune of the card rows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee import files
from referee.cards import CLASSES
from referee.errors import ConfigError
from vision.detector.crops import crops_batch, jitter_box, to_blob
from vision.detector.detections import box_area, box_intersection, box_iou
from vision.detector.evaluate import read_yolo_dataset
from vision.detector.recipe import load_config

NOT_A_CARD = "NOT_A_CARD"  # the extra class of a classifier checkpoint, after the 54 cards


@dataclass
class NotACardConfig:
    """``configs/detector/not_a_card.yaml``: how boxes are mined and the row is fitted."""

    stage: str
    finder: str | None = None  # the finder (.onnx) whose boxes are mined (default: the shipped one)
    geometry: str | None = None  # corner refiner of a classifier of straightened cards (default: shipped)
    min_conf: float = 0.05  # a finder box this confident on no card is a negative
    every: int = 2  # mine every n-th image of each dataset's train split
    cards_per_image: int = 3  # true cards per image kept as positives (jittered boxes)
    jitter: float = 0.08
    steps: int = 400
    lr: float = 0.01
    l2: float = 0.001
    seed: int = 0
    threads: int | None = None

    @classmethod
    def load(cls, path: str | Path) -> NotACardConfig:
        return load_config(cls, path, "not-a-card config")


@dataclass
class Mined:
    negatives: np.ndarray  # (n, H, W, 3) crops of finder boxes on no card
    positives: np.ndarray  # (m, H, W, 3) crops of true cards
    labels: np.ndarray  # (m,) their classes


def on_no_card(true_boxes: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Boxes that are no card: IoU < 0.3 with every true card, and no true card covers more
    than 60 % of the box (a box on part of a card, or on two overlapping cards, is not one)."""
    if not len(true_boxes):
        return np.ones(len(boxes), bool)
    covered = box_intersection(true_boxes, boxes) / np.maximum(box_area(boxes), 1e-9)
    return (box_iou(true_boxes, boxes).max(axis=0) < 0.3) & (covered.max(axis=0) < 0.6)


def mine(finder, datasets: list[Path], cfg: NotACardConfig, log: Callable[[str], None] = print,
         cut: Callable[[np.ndarray, np.ndarray], np.ndarray] = crops_batch) -> Mined:
    """Run the finder on the train split of each rendered dataset; keep its boxes on no card as
    negatives and a few jittered true cards of each image as positives, both cut by ``cut``
    (image, boxes) as the classifier's crops are at inference."""
    rng = np.random.default_rng(cfg.seed)
    negatives, positives, labels = [], [], []
    for root in datasets:
        samples = read_yolo_dataset(root, "train")[:: cfg.every]
        for s in samples:
            image = cv2.imread(str(s.image))
            if image is None:
                raise ConfigError(f"{s.image}: cannot read image")
            found = finder.detect(image)
            bad = on_no_card(s.boxes, found.xyxy) & (found.confidence >= cfg.min_conf)
            negatives.append(cut(image, found.xyxy[bad]))
            picked = rng.choice(len(s.boxes), min(cfg.cards_per_image, len(s.boxes)), replace=False)
            boxes = np.array([jitter_box(rng, s.boxes[i], cfg.jitter) for i in picked], np.float32)
            positives.append(cut(image, boxes.reshape(-1, 4)))
            labels.append(s.classes[picked])
        log(f"not a card: {root}: {len(samples)} images, {sum(map(len, negatives))} boxes on no card so far")
    labels = np.concatenate(labels).astype(np.int64)
    return Mined(np.concatenate(negatives), np.concatenate(positives), labels)


def load_net(weights: Path, cards_only: bool = False):
    """The classifier network of a checkpoint; ``cards_only`` drops a not-a-card row."""
    from vision.detector.classifier_train import build_net
    from vision.detector.model_files import load_checkpoint

    ckpt = load_checkpoint(weights)
    classes = ckpt.get("classes", list(CLASSES))
    net = build_net(ckpt["width"], len(classes), standardize=ckpt.get("standardize", False))
    net.load_state_dict(ckpt["state_dict"])
    if cards_only and len(classes) > len(CLASSES):
        net[-1] = card_rows(net[-1])
    return net, ckpt


def card_rows(head):
    """A copy of the last layer with only the 54 card rows."""
    import torch
    import torch.nn as nn

    out = nn.Linear(head.in_features, len(CLASSES))
    with torch.no_grad():
        out.weight.copy_(head.weight[: len(CLASSES)])
        out.bias.copy_(head.bias[: len(CLASSES)])
    return out


def cards_only_state(weights: Path) -> dict:
    """A checkpoint's state dict without its not-a-card row (fine-tunes train the cards only)."""
    net, _ = load_net(weights, cards_only=True)
    return net.state_dict()


def fit_not_a_card(weights: Path, mined: Mined, cfg: NotACardConfig, dest: Path,
                   log: Callable[[str], None] = print) -> Path:
    """Add (or re-fit) the not-a-card row of ``weights`` on frozen features; write ``dest``.

    Only the new row learns: a cross-entropy over the 54 card logits and the new one, with
    every crop seen both ways up, as the classifier sees it at inference."""
    import torch
    import torch.nn as nn

    if not len(mined.negatives):
        raise ConfigError("not a card: the finder put no box on anything but cards: nothing to fit")
    torch.manual_seed(cfg.seed)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    t0 = time.time()
    net, ckpt = load_net(weights, cards_only=True)
    net.eval()
    body, head = net[:-1], net[-1]

    def features(crops: np.ndarray) -> torch.Tensor:
        """Features of every crop, then of every crop turned by 180 degrees."""
        with torch.no_grad():
            return torch.cat([body(torch.from_numpy(to_blob(c[i : i + 512])))
                              for c in (crops, crops[:, ::-1, ::-1]) for i in range(0, len(c), 512)])

    x = torch.cat([features(mined.negatives), features(mined.positives)])
    negative = np.full(len(mined.negatives), len(CLASSES))
    y = torch.from_numpy(np.concatenate([negative, negative, mined.labels, mined.labels]).astype(np.int64))
    card_logits = (x @ head.weight.T + head.bias).detach()
    w = torch.zeros(1, head.in_features, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    opt = torch.optim.Adam([w, b], lr=cfg.lr)
    for _ in range(cfg.steps):
        logits = torch.cat([card_logits, x @ w.T + b], dim=1)
        loss = nn.functional.cross_entropy(logits, y) + cfg.l2 * (w**2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    full = nn.Linear(head.in_features, len(CLASSES) + 1)
    with torch.no_grad():
        full.weight.copy_(torch.cat([head.weight, w]))
        full.bias.copy_(torch.cat([head.bias, b]))
    net[-1] = full
    with files.replacing(dest) as tmp:
        torch.save({**ckpt, "state_dict": net.state_dict(), "classes": [*CLASSES, NOT_A_CARD]}, tmp)
    log(f"not a card: row fitted on {len(mined.negatives)} boxes on no card and {len(mined.positives)} cards "
        f"(loss {float(loss.detach()):.4f}, {time.time() - t0:.0f} s)")
    return dest

