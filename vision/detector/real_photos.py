"""Real photos scored by card: reading a user's labelled folder, and what fails where.

A folder of real photos comes in one of two layouts: Ultralytics (``images/`` and ``labels/``
with a ``data.yaml`` whose names are the detector's classes, ``AS`` .. ``BACK``) or Pascal VOC
(an ``.xml`` per photo). VOC labels may name whole cards (``AS``, ``ace of spades``) or ranks
only (``ace``, ``nine``), as ``real_dev_edje`` does; a ``suits.csv`` beside them (one row per
``<object>``: ``split,image,object,rank,suit,...``) then gives each box its suit, so the photos
are scored by card, which is what the camera referee needs. Ranks alone hid that spades were
read as clubs.

Besides mAP, each true box is named by the classifier alone (:func:`name_true_boxes`), and
its top-1 is broken down by suit, by the card's tilt and by the light it lies in.
"""

from __future__ import annotations

import csv
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import yaml

from referee.cards import CLASS_ID, CLASSES, RANKS, SUITS
from referee.errors import CardrefError
from vision.detector.evaluate import Sample, read_yolo_dataset
from vision.detector.metrics import ImageResult

RANK_WORDS = {"ace": "A", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
              "eight": "8", "nine": "9", "ten": "10", "jack": "J", "queen": "Q", "king": "K"}
SUIT_WORDS = {"spades": "S", "hearts": "H", "diamonds": "D", "clubs": "C"}
# Rank classes for scoring by rank: the 13 ranks, then the joker and the back.
RANK_CLASSES: tuple[str, ...] = (*RANKS, "JK", "BACK")
TILT_BINS = ((0, 8), (8, 20), (20, 45), (45, 90))  # degrees from upright (a card lying sideways: 90)
CARD_ASPECT = 88 / 63  # a standard card's long side over its short side


@dataclass
class RealSet:
    """Labelled real photos. ``Sample.classes`` are ``CLASSES`` ids when every box has a suit
    (scored by card), else ``RANK_CLASSES`` ids (scored by rank only)."""

    root: Path
    samples: list[Sample]
    by_card: bool


def _rank(word: str) -> str | None:
    w = word.strip().lower()
    if w in RANK_WORDS:
        return RANK_WORDS[w]
    return w.upper() if w.upper() in RANKS else None


def _card_name(name: str) -> str | None:
    """``AS``, ``10h``, ``ace of spades``, ``joker``, ``back`` -> a ``CLASSES`` name, else None."""
    n = name.strip()
    if n.upper() in CLASS_ID:
        return n.upper()
    low = n.lower()
    if low in ("joker", "jk"):
        return "JK"
    if low in ("back", "face down", "face-down"):
        return "BACK"
    if " of " in low:
        rank, _, suit = low.partition(" of ")
        if _rank(rank) and suit.strip() in SUIT_WORDS:
            return _rank(rank) + SUIT_WORDS[suit.strip()]
    return None


def _suits(folder: Path) -> dict[tuple[str, int], str]:
    """``suits.csv``: (image file name, object index) -> suit letter."""
    path = folder / "suits.csv"
    if not path.exists():
        return {}
    out = {}
    with path.open(newline="", encoding="utf-8") as f:
        for n, row in enumerate(csv.DictReader(f), 2):
            try:
                suit = SUIT_WORDS[row["suit"].strip().lower()]
                out[(row["image"], int(row["object"]))] = suit
            except (KeyError, ValueError, AttributeError):
                raise CardrefError(f"{path}:{n}: expected columns image, object and suit "
                                   f"({', '.join(SUIT_WORDS)})") from None
    return out


def read_voc(folder: Path) -> RealSet:
    """Pascal VOC photos; by card when every box names a card or has a row in ``suits.csv``."""
    suits = _suits(folder)
    rows_of: list[tuple[Path, list[tuple[str, str | None, tuple[float, ...]]]]] = []
    for xml in sorted(folder.rglob("*.xml")):
        try:
            root = ET.parse(xml).getroot()
        except ET.ParseError as e:
            raise CardrefError(f"{xml}: not a Pascal VOC file ({e})") from None
        img = xml.with_name(root.findtext("filename") or xml.stem + ".jpg")
        if not img.exists():
            beside = [xml.with_suffix(s) for s in (".JPG", ".jpg", ".jpeg", ".png")]
            img = next((p for p in beside if p.exists()), img)
        boxes = []
        for k, obj in enumerate(root.iter("object")):
            name = (obj.findtext("name") or "").strip()
            card, rank = _card_name(name), _rank(name)
            if card is None and rank is None:
                raise CardrefError(f"{xml}: object {k}: unknown label {name!r} "
                                   "(expected a card such as AS or 'ace of spades', or a rank such as 'ace')")
            if card is None and (img.name, k) in suits:
                card = rank + suits[(img.name, k)]
            bb = obj.find("bndbox")
            try:
                xyxy = tuple(float(bb.findtext(c)) for c in ("xmin", "ymin", "xmax", "ymax"))
            except (AttributeError, TypeError, ValueError):
                raise CardrefError(f"{xml}: object {k}: expected a bndbox with xmin, ymin, xmax, "
                                   "ymax") from None
            boxes.append((card or "", rank or card or "", xyxy))
        rows_of.append((img, boxes))
    if not rows_of:
        raise CardrefError(f"{folder}: no Pascal VOC .xml files and no images/ folder (expected real photos "
                           "in the Ultralytics or Pascal VOC layout)")
    by_card = all(card for _, boxes in rows_of for card, _, _ in boxes)
    samples = []
    for img, boxes in rows_of:
        ids = [CLASS_ID[c] if by_card else RANK_CLASSES.index(_rank_of(c or r)) for c, r, _ in boxes]
        xyxy = np.array([b for _, _, b in boxes], float).reshape(-1, 4)
        samples.append(Sample(img, xyxy, np.array(ids, int)))
    return RealSet(folder, samples, by_card)


def _rank_of(name: str) -> str:
    return name if name in RANK_CLASSES else name[:-1]


def read_ultralytics(folder: Path) -> RealSet:
    """An Ultralytics dataset (all splits) whose ``data.yaml`` names cards in any order (``AS``,
    ``10h``, ``ace of spades``, ``joker``; public card sets often sort them as text); without a
    ``data.yaml`` its class ids are the detector's."""
    data = folder / "data.yaml"
    names = yaml.safe_load(data.read_text(encoding="utf-8")).get("names") if data.exists() else None
    if isinstance(names, dict):
        names = [names[k] for k in sorted(names)]
    ids = None
    if names is not None:
        cards = [_card_name(str(n)) for n in names]
        if None in cards:
            bad = names[cards.index(None)]
            raise CardrefError(f"{data}: field 'names': {bad!r} is no card (expected names such as AS, 10h, "
                               "'ace of spades', joker, back)")
        ids = np.array([CLASS_ID[c] for c in cards], int)
    samples = []
    for split in sorted(p.name for p in (folder / "images").iterdir() if p.is_dir()):
        samples += read_yolo_dataset(folder, split)
    if not samples:
        raise CardrefError(f"{folder}/images: no images (expected images/<split>/*.jpg with "
                           "labels/<split>/*.txt)")
    if ids is not None:
        for s in samples:
            if len(s.classes) and s.classes.max() >= len(ids):
                raise CardrefError(f"{s.image}: its labels use class {s.classes.max()}, but {data} names "
                                   f"{len(ids)} classes")
            s.classes = ids[s.classes]
    return RealSet(folder, samples, True)


def read_real_folder(folder: Path) -> RealSet:
    """Real photos in either layout (see the module's docstring)."""
    if not folder.is_dir():
        raise CardrefError(f"{folder}: no such folder of real photos (expected the Ultralytics or Pascal VOC "
                           "layout; cardref eval --real DIR)")
    if (folder / "images").is_dir():
        return read_ultralytics(folder)
    return read_voc(folder)


def to_rank_ids(class_ids: np.ndarray) -> np.ndarray:
    """``CLASSES`` ids -> ``RANK_CLASSES`` ids."""
    return np.array([RANK_CLASSES.index(_rank_of(CLASSES[c])) for c in class_ids], int)


def scored_by_rank(r: ImageResult, by_card: bool) -> ImageResult:
    """``r`` scored by rank: the true cards' ranks (when they are named by card) and each box's
    ranks, a box under two names of one rank (5H, then 5D) given that rank once."""
    ranks = to_rank_ids(r.pred_classes)
    _, once = np.unique(np.column_stack([r.pred_boxes, ranks]), axis=0, return_index=True)
    once.sort()
    return ImageResult(r.gt_boxes, to_rank_ids(r.gt_classes) if by_card else r.gt_classes,
                       r.pred_boxes[once], ranks[once], r.pred_scores[once], r.name,
                       None if r.pred_first is None else r.pred_first[once])


def box_tilt(box: np.ndarray) -> float:
    """A card's tilt in degrees from upright (0-90: a card lying sideways is at 90) estimated
    from the shape of its axis-aligned box, for a whole card of the standard aspect: the box of
    an upright card is 1.4 times as tall as wide, that of a card turned 45 degrees square, that
    of a card lying sideways 1.4 times as wide as tall. A turn and its mirror (20 degrees left or
    right) give the same box. A box of a card partly covered reads as upright or sideways."""
    w, h = float(box[2] - box[0]), float(box[3] - box[1])
    r = min(w, h) / max(w, h, 1e-9)
    theta = np.radians(np.linspace(0, 45, 451))
    ratio = (np.cos(theta) + CARD_ASPECT * np.sin(theta)) / (np.sin(theta) + CARD_ASPECT * np.cos(theta))
    folded = float(np.degrees(theta[int(np.argmin(np.abs(ratio - r)))]))
    return 90 - folded if w > h else folded


def tilt_bin(deg: float) -> str:
    lo, hi = next((b for b in TILT_BINS if deg < b[1]), TILT_BINS[-1])
    return f"{lo}-{hi} deg"


def box_brightness(image: np.ndarray, box: np.ndarray) -> float:
    """Mean grey level (0-255) inside the box: the light the card lies in."""
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    h, w = image.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    return float(cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY).mean())


@dataclass
class TrueBoxNames:
    """The classifier's name for every labelled box (``CLASSES`` ids), beside the truth."""

    truth: np.ndarray
    named: np.ndarray
    tilt: np.ndarray  # degrees, from the box's shape
    brightness: np.ndarray
    corner_iou: np.ndarray | None = None  # the box around the refiner's corners against the labelled box


def name_true_boxes(detector, samples: list[Sample], camera: str | None = None) -> TrueBoxNames:
    """Name each labelled box with the detector's naming stage alone (no finder): what the
    naming gets wrong when the box is right; and, where the detector finds corners, how the box
    around them agrees with the labelled one. ``camera``: see ``evaluate.read_image``."""
    from vision.detector.detections import box_iou
    from vision.detector.evaluate import read_image
    from vision.detector.two_stage import name_ids

    truth, named, tilt, light, ious = [], [], [], [], []
    for s in samples:
        image = read_image(s.image, camera)
        if not len(s.boxes):
            continue
        probs, _, corners = detector.read_boxes(image, s.boxes)
        named.append(name_ids(probs))
        truth.append(s.classes)
        tilt += [box_tilt(b) for b in s.boxes]
        light += [box_brightness(image, b) for b in s.boxes]
        if corners is not None:
            around = np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1)
            ious += list(np.diag(box_iou(s.boxes, around)))
    cat = (lambda xs: np.concatenate(xs).astype(int)) if truth else (lambda xs: np.zeros(0, int))
    return TrueBoxNames(cat(truth), cat(named), np.array(tilt), np.array(light),
                        np.array(ious) if ious else None)


def _top1(right: np.ndarray) -> dict:
    return {"cards": int(len(right)), "top1": round(float(right.mean()), 4) if len(right) else None}


def naming_breakdown(t: TrueBoxNames) -> dict:
    """Top-1 by card on the true boxes: overall, by rank, per suit, per tilt bin, per
    brightness tercile, and the commonest confusions (true -> named)."""
    right = t.truth == t.named
    suit = np.array([CLASSES[c][-1] if CLASSES[c][-1] in SUITS else CLASSES[c] for c in t.truth])
    out = {"top1": _top1(right), "top1_rank": _top1(to_rank_ids(t.truth) == to_rank_ids(t.named))}
    out["per_suit"] = {s: _top1(right[suit == s]) for s in (*SUITS, "JK", "BACK") if (suit == s).any()}
    bins = np.array([tilt_bin(d) for d in t.tilt])
    out["per_tilt"] = {f"{lo}-{hi} deg": _top1(right[bins == f"{lo}-{hi} deg"]) for lo, hi in TILT_BINS}
    if len(t.brightness):
        edges = np.quantile(t.brightness, [1 / 3, 2 / 3])
        tercile = np.digitize(t.brightness, edges)
        out["per_brightness"] = {}
        for k, name in enumerate(("dim", "middle", "bright")):
            part = tercile == k
            if part.any():
                grey = [round(float(t.brightness[part].min()), 1), round(float(t.brightness[part].max()), 1)]
                out["per_brightness"][name] = {**_top1(right[part]), "grey": grey}
    pairs: dict[tuple[str, str], int] = {}
    for a, b in zip(t.truth[~right], t.named[~right], strict=True):
        pairs[(CLASSES[a], CLASSES[b])] = pairs.get((CLASSES[a], CLASSES[b]), 0) + 1
    out["confusions"] = [{"true": a, "named": b, "count": n}
                         for (a, b), n in sorted(pairs.items(), key=lambda kv: -kv[1])[:12]]
    return out



def corner_box_agreement(t: TrueBoxNames) -> dict:
    """Real photos have no labelled corners: the box around the refiner's corners of each true
    box against that box (IoU; 1 when the rectangle fills it exactly). A card partly covered
    has a box smaller than the card, so the figure is a floor for whole cards."""
    if t.corner_iou is None or not len(t.corner_iou):
        return {}
    ious = t.corner_iou
    return {"cards": len(ious), "median_iou": round(float(np.median(ious)), 4),
            "p10_iou": round(float(np.quantile(ious, 0.1)), 4),
            "share_iou_0.8": round(float((ious >= 0.8).mean()), 4)}
