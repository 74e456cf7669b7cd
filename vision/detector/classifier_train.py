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

import cv2
import numpy as np

from referee import files
from referee.cards import CLASSES
from referee.errors import ConfigError
from vision.detector.crops import CROP_H, CROP_W, card_crop, jitter_box
from vision.detector.evaluate import MOSTLY_HIDDEN, read_yolo_dataset
from vision.detector.geometry import CornerRefiner, Rects, rectified_crops, rects_from_quads
from vision.detector.not_a_card import cards_only_state, load_net
from vision.detector.recipe import NetworkRecipe, export_batched, one_epoch, save_progress, start_loop


@dataclass
class ClassifierConfig(NetworkRecipe):
    """``configs/detector/classifier.yaml``: every setting of a classifier recipe (the shared
    ones in :class:`vision.detector.recipe.NetworkRecipe`)."""

    epochs: int = 12
    label_smoothing: float = 0.05
    partial_copies: int = 0  # extra crops per card less than half in view (its index shows)
    court_swap: float = 0.0  # share of J/Q/K crops whose picture is another court card's of its suit
    suit_swap: float = 0.0  # share of J/Q/K crops whose picture is another suit's court card of its rank
    index_mask: float = 0.0  # share of J/Q/K crops whose two corner indices are blanked
    full_bleed: float = 0.0  # share of J/Q/K crops whose picture is stretched over the whole card
    keep_start: float = 0.0  # a fine-tune's weights end as this share of the start's plus the rest
    crop: str = "box"  # box: the finder's box cut upright; rectified: the card straightened (geometry.py)
    crop_size: list[int] = field(default_factory=lambda: [CROP_W, CROP_H])  # input (w, h), pixels
    rect_shift: float = 0.0  # rectified: centre moved by up to this share of the card (the refiner's error)
    rect_turn: float = 0.0  # rectified: turned by up to this many degrees
    rect_scale: float = 0.0  # rectified: sides scaled by up to this share
    standardize: bool = False  # the network first scales each crop to zero mean, unit contrast
    grey: float = 0.0  # share of crops turned grey (grey cameras, washed-out light)
    invert: float = 0.0  # share of crops with light and dark swapped (dark-faced decks)
    defocus: float = 0.0  # share of crops seen through a lens out of focus (DEFOCUS_SIGMA)
    geometry: str | None = None  # rectified: the corner refiner for sets without true corners (collected)

    WHAT = "classifier config"


def build_net(width: int = 48, classes: int = len(CLASSES), standardize: bool = False):
    """Conv-BN-ReLU stages at strides 2, 4, 8, 16, global average pool, one linear layer; with
    ``standardize`` the network first brings each crop to zero mean and unit contrast, so that
    one photometric normalisation is part of the model, the same in training and inference."""
    import torch.nn as nn

    class Standardize(nn.Module):
        """Each crop to zero mean and unit standard deviation over all its pixels and channels:
        dim, bright and low-contrast cards look alike, and colour ratios are kept."""

        def forward(self, x):
            mean = x.mean(dim=(1, 2, 3), keepdim=True)
            sd = ((x - mean) ** 2).mean(dim=(1, 2, 3), keepdim=True).sqrt()
            return (x - mean) / (sd + 0.02)

    def block(cin: int, cout: int, stride: int) -> list:
        return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    w = width
    layers = block(3, w // 2, 2) + block(w // 2, w, 2) + block(w, w, 1)
    layers += block(w, 2 * w, 2) + block(2 * w, 2 * w, 1) + block(2 * w, 4 * w, 2) + block(4 * w, 4 * w, 1)
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(4 * w, classes)]
    return nn.Sequential(*([Standardize()] if standardize else []), *layers)


def box_rects(boxes: np.ndarray) -> Rects:
    """Upright rectangles of axis-aligned boxes: what a card without recorded corners gets."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    axis = np.where((w > h)[:, None], [[1.0, 0.0]], [[0.0, 1.0]])
    return Rects((b[:, :2] + b[:, 2:]) / 2, np.maximum(w, h), np.minimum(w, h), axis)


def jitter_rects(rng: np.random.Generator, r: Rects, shift: float, turn: float, scale: float) -> Rects:
    """Move, turn and scale true rectangles by up to the refiner's errors."""
    n = len(r.long)
    center = r.center + rng.uniform(-shift, shift, (n, 2)) * r.long[:, None]
    a = np.arctan2(r.axis[:, 1], r.axis[:, 0]) + np.radians(rng.uniform(-turn, turn, n))
    k = 1 + rng.uniform(-scale, scale, (2, n))
    return Rects(center, r.long * k[0], r.short * k[1], np.stack([np.cos(a), np.sin(a)], axis=1))


def sample_crops(image: np.ndarray, sample, idx: list[int], cfg: ClassifierConfig,
                 rng: np.random.Generator, jitter: float, refiner=None) -> np.ndarray:
    """Crops of the labelled cards ``idx`` of one image, cut as the recipe's crop says: a
    straightened card from its true corners where the renderer recorded them, else from the
    corner refiner's (``refiner``, as at inference), else from its box."""
    if cfg.crop == "box":
        return np.stack([card_crop(image, jitter_box(rng, sample.boxes[i], jitter) if jitter
                                   else sample.boxes[i]) for i in idx])
    quads = [sample.cards[i].get("quad") if sample.cards else None for i in idx]
    boxes = np.array([sample.boxes[i] for i in idx])
    unknown = any(q is None for q in quads)
    rects = refiner.rects(image, boxes) if unknown and refiner is not None else box_rects(boxes)
    known = [k for k, q in enumerate(quads) if q is not None]
    if known:
        true = rects_from_quads(np.array([quads[k] for k in known]))
        for field_name in ("center", "long", "short", "axis"):
            getattr(rects, field_name)[known] = getattr(true, field_name)
    if jitter:
        rects = jitter_rects(rng, rects, cfg.rect_shift, cfg.rect_turn, cfg.rect_scale)
    return rectified_crops(image, rects, tuple(cfg.crop_size))


def shifted_state(state: dict, net) -> dict:
    """A state dict of a network with or without the leading ``Standardize`` (which has no
    weights), renumbered for ``net``'s layers: a plain classifier fine-tunes into one that
    standardizes its crops."""
    first = next(i for i, m in enumerate(net) if any(True for _ in m.parameters()))
    have = min(int(k.split(".")[0]) for k in state)
    shift = first - have
    return {f"{int(k.split('.')[0]) + shift}.{k.split('.', 1)[1]}": v for k, v in state.items()}


def extract_crops(datasets: list[Path], split: str, copies: int, jitter: float,
                  seed: int, partial_copies: int = 0,
                  cfg: ClassifierConfig | None = None) -> tuple[np.ndarray, np.ndarray]:
    """All labelled cards of ``split`` as (n, H, W, 3) uint8 crops and their class ids; a card
    the renderer saw less than half in view (labelled because a corner index shows) gets
    ``partial_copies`` more: such slivers are few in a set and the hardest to name."""
    if cfg is not None and cfg.crop == "rectified":
        return _extract_rectified(datasets, split, copies, jitter, seed, partial_copies, cfg)
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


def _extract_rectified(datasets: list[Path], split: str, copies: int, jitter: float, seed: int,
                       partial_copies: int, cfg: ClassifierConfig) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    refiner = CornerRefiner(cfg.geometry, threads=cfg.threads) if cfg.geometry else None
    crops, labels = [], []
    for root in datasets:
        if not (root / "images" / split).is_dir():
            continue
        for sample in read_yolo_dataset(root, split):
            if not len(sample.boxes):
                continue
            image = cv2.imread(str(sample.image))
            if image is None:
                raise ConfigError(f"{sample.image}: cannot read image")
            shares = [c["visible"] for c in sample.cards] if sample.cards else [1.0] * len(sample.boxes)
            idx = [i for i, share in enumerate(shares)
                   for _ in range(copies + (partial_copies if share < MOSTLY_HIDDEN else 0))]
            crops.append(sample_crops(image, sample, idx, cfg, rng, jitter, refiner))
            labels.append(sample.classes[idx])
    w, h = cfg.crop_size
    if not crops:
        return np.zeros((0, h, w, 3), np.uint8), np.zeros(0, np.int64)
    return np.concatenate(crops), np.concatenate(labels).astype(np.int64)


# A camera out of focus, in crop pixels: a 2.5 px blur of a 1280-wide frame is 1-4 px of a
# crop, as the card is seen small or large.
DEFOCUS_SIGMA = (1.0, 5.0)


def gaussian_blur(x, sigma: float):
    """``x`` (n, c, h, w) blurred by a Gaussian of ``sigma`` pixels (3 sigma each side), the
    edges reflected."""
    from torchvision.transforms.functional import gaussian_blur as blur

    size = 2 * max(1, int(3 * sigma)) + 1
    return blur(x, [size, size], [sigma, sigma])


def augment(x, generator, grey: float = 0.0, invert: float = 0.0, defocus: float = 0.0):
    """Batch augmentations on float RGB tensors: 180-degree turns, light, colour, blur, noise;
    a ``grey`` share turned grey, an ``invert`` share with light and dark swapped and a
    ``defocus`` share out of focus (one sigma a batch; drawn only when asked, so a recipe
    without it augments as it always did)."""
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
    if defocus > 0:
        soft = torch.rand(n, generator=generator) < defocus
        lo, hi = DEFOCUS_SIGMA
        sigma = lo + (hi - lo) * float(torch.rand(1, generator=generator))
        if soft.any():
            x[soft] = gaussian_blur(x[soft], sigma)
    x = x + 0.03 * torch.rand(n, 1, 1, 1, generator=generator) * torch.randn(x.shape, generator=generator)
    if grey > 0:
        g = torch.rand(n, generator=generator) < grey
        x = torch.where(g[:, None, None, None], x.mean(1, keepdim=True).expand_as(x), x)
    if invert > 0:
        v = torch.rand(n, generator=generator) < invert
        x = torch.where(v[:, None, None, None], 1 - x, x)
    return x.clamp(0, 1)


COURT = np.array([c not in ("JK", "BACK") and c[:-1] in ("J", "Q", "K") for c in CLASSES])
RANK = np.array([c[:-1] for c in CLASSES])
SUIT = np.array([c[-1] for c in CLASSES])
# The middle of a crop (channels, rows, columns): the picture, clear of both corner indices.
def picture(h: int, w: int) -> tuple[slice, slice, slice]:
    return slice(None), slice(int(0.22 * h), int(0.78 * h)), slice(int(0.24 * w), int(0.76 * w))


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
            x[(i, *picture(*x.shape[2:]))] = source[(j, *picture(*x.shape[2:]))]
    return x


# The two corners where most designs print the index (rank over suit), top left and, turned,
# bottom right: the parts of a crop outside the picture window, on the card.
def corners(h: int, w: int) -> tuple[tuple[slice, slice, slice], ...]:
    return ((slice(None), slice(0, int(0.24 * h)), slice(0, int(0.26 * w))),
            (slice(None), slice(int(0.76 * h), h), slice(int(0.74 * w), w)))


def mask_indices(x, labels: np.ndarray, generator, share: float):
    """Blank both corner indices of a ``share`` of the J, Q and K crops with the corner's own
    median colour (the card's paper): some designs print no rank on their court cards, only
    the picture tells them apart, and it is then the picture the classifier must read."""
    for i in chosen_courts(labels, generator, share):
        for corner in corners(*x.shape[2:]):
            region = x[(i, *corner)]
            x[(i, *corner)] = region.flatten(1).median(dim=1).values[:, None, None]
    return x


# The card inside a crop (``card_crop`` adds a margin of 0.06 of the box on each side).
def card_span(n: int) -> tuple[int, int]:
    return round(0.06 / 1.12 * n), round(1.06 / 1.12 * n)


def full_bleed(x, labels: np.ndarray, generator, share: float):
    """Stretch the picture of a ``share`` of the J, Q and K crops over the whole card, keeping
    both corners: a picture that fills the card, as some designs draw their court cards (no
    white field around a framed figure), which a classifier that has seen only framed
    pictures takes for a card's back."""
    import torch.nn.functional as F

    h, w = x.shape[2:]
    (top, bottom), (left, right) = card_span(h), card_span(w)
    for i in chosen_courts(labels, generator, share):
        kept = [x[(i, *c)].clone() for c in corners(h, w)]
        middle = x[(i, *picture(h, w))][None]
        x[i, :, top:bottom, left:right] = F.interpolate(middle, size=(bottom - top, right - left),
                                                        mode="bilinear", align_corners=False)[0]
        for c, saved in zip(corners(h, w), kept, strict=True):
            x[(i, *c)] = saved
    return x


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
                     epochs: int | None = None, log=print, resume: bool = False) -> Path:
    """Train on the datasets' train splits, keep the best on their val splits; return the .pt.
    Each whole epoch is saved (``out/last.pt``); ``resume`` goes on from the last one, the
    crops cut again from the same seed, as if the run had not stopped."""
    import torch
    import torch.nn as nn

    torch.manual_seed(cfg.seed)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)  # two jobs oversubscribing 2 cores run 8x slower
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    x_train, y_train = extract_crops(datasets, "train", cfg.copies, cfg.jitter, cfg.seed,
                                     cfg.partial_copies, cfg)
    x_val, y_val = extract_crops(datasets, "val", 1, cfg.jitter / 2, cfg.seed + 1, cfg=cfg)
    if not len(x_train):
        raise ConfigError("no labelled cards in the train split of " + ", ".join(map(str, datasets)))
    log(f"classifier: {len(x_train)} train crops, {len(x_val)} val crops ({time.time() - t0:.0f} s)")
    net = build_net(cfg.width, standardize=cfg.standardize)
    if start_from is not None:  # the card rows: a not-a-card row is re-fitted after (not_a_card.py)
        net.load_state_dict(shifted_state(cards_only_state(start_from), net))
    loss_fn = nn.CrossEntropyLoss(label_smoothing=cfg.label_smoothing)
    # Crops are cut and augmented on the CPU (one seeded generator); the network runs on the device.
    loop = start_loop(net, cfg, out, len(x_train), epochs, resume, log, "classifier")
    opt, sched, gen, device, epochs = loop.opt, loop.sched, loop.gen, loop.device, loop.epochs
    best, history = loop.best, loop.history
    best_path = out / "classifier.pt"
    def loss_of(idx):
        x = swap_courts(_blob(x_train[idx]), y_train[idx], gen, cfg.court_swap)
        x = swap_courts(x, y_train[idx], gen, cfg.suit_swap, keep="rank")
        x = full_bleed(x, y_train[idx], gen, cfg.full_bleed)
        x = mask_indices(x, y_train[idx], gen, cfg.index_mask)
        x = augment(x, gen, cfg.grey, cfg.invert, cfg.defocus)
        return loss_fn(net(x.to(device)), torch.from_numpy(y_train[idx]).to(device))

    for epoch in range(loop.done + 1, epochs + 1):
        mean_loss = one_epoch(net, opt, sched, gen, len(x_train), cfg.batch, loss_of)
        acc = accuracy(net, x_val, y_val, device=device) if len(x_val) else float("nan")
        history.append({"epoch": epoch, "loss": round(mean_loss, 4), "val_accuracy": round(acc, 4),
                        "seconds": round(time.time() - t0, 1)})
        if acc >= best or not len(x_val):
            best = acc
            weights = {k: v.cpu() for k, v in net.state_dict().items()}
            with files.replacing(best_path) as tmp:  # a kill mid-save keeps the last best
                torch.save({"state_dict": weights, "width": cfg.width, "classes": list(CLASSES),
                            "standardize": cfg.standardize, "crop": cfg.crop,
                            "crop_size": list(cfg.crop_size)}, tmp)
        save_progress(out, net, opt, sched, gen, epoch, best, history)
        log(f"classifier: epoch {epoch}/{epochs} loss {mean_loss:.4f} val accuracy {acc:.4f}")
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
    import onnx

    from vision.detector.not_a_card import load_net

    net, ckpt = load_net(weights)
    net.eval()
    export_batched(net, dest, tuple(ckpt.get("crop_size", (CROP_W, CROP_H))), "crops", "logits")
    # How the crops are cut travels with the model: inference reads it (two_stage.CardClassifier).
    model = onnx.load(str(dest))
    onnx.helper.set_model_props(model, {"crop": ckpt.get("crop", "box")})
    onnx.save(model, str(dest))
    return dest
