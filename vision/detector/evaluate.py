"""Evaluating a detector on a YOLO-format set: reading it, running the detector, breakdowns."""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee import files
from referee.cards import CLASSES, FACE_RANKS
from referee.errors import CardrefError
from vision.detector.detections import NAMES_PER_BOX, label_lines
from vision.detector.metrics import ImageResult, evaluate, likeliest_names

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
BACK = CLASSES.index("BACK")


@dataclass
class Sample:
    image: Path
    boxes: np.ndarray  # xyxy pixels
    classes: np.ndarray
    cards: list[dict] | None = None  # the renderer's record of each box's card (design, visible share)


def read_yolo_dataset(root: Path, split: str = "val") -> list[Sample]:
    """Images and labels of an Ultralytics dataset split (labels: class cx cy w h, normalised)."""
    images = root / "images" / split
    if not images.is_dir():
        raise CardrefError(f"{root}: no images/{split} folder (expected an Ultralytics dataset)")
    samples = []
    for img in sorted(p for p in images.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
        label = root / "labels" / split / f"{img.stem}.txt"
        gray = cv2.imread(str(img), cv2.IMREAD_REDUCED_GRAYSCALE_2)
        if gray is None:
            raise CardrefError(f"{img}: cannot read image")
        h, w = gray.shape[0] * 2, gray.shape[1] * 2
        rows = []
        if label.exists():
            for n, line in enumerate(files.read_text(label, "label").splitlines(), 1):
                parts = line.split()
                if not parts:
                    continue
                try:
                    c, cx, cy, bw, bh = int(parts[0]), *map(float, parts[1:5])
                except ValueError:
                    raise CardrefError(f"{label}:{n}: expected 'class cx cy w h'") from None
                rows.append((c, (cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h))
        arr = np.array(rows, float).reshape(-1, 5)
        cards = _rendered_cards(root, split, img.stem, len(arr))
        samples.append(Sample(img, arr[:, 1:], arr[:, 0].astype(int), cards))
    return samples


def _rendered_cards(root: Path, split: str, stem: str, count: int) -> list[dict] | None:
    """The renderer's record of each labelled card, from its ``quads`` file (the labelled
    cards are the label file's rows, in order); None for a set made otherwise."""
    quads = root / "quads" / split / f"{stem}.json"
    if not quads.exists():
        return None
    listed = files.read_json_object(quads, "card record").get("cards")
    if not isinstance(listed, list) or not all(isinstance(c, dict) for c in listed):
        raise CardrefError(f"{quads}: field 'cards': expected a list of the rendered cards")
    cards = [c for c in listed if c.get("labelled")]
    return cards if len(cards) == count else None


def read_image(path: Path, camera: str | None = None) -> np.ndarray:
    """The BGR picture at ``path``; with ``camera`` (one of ``vision.synth.conditions.CAMERAS``)
    as that camera would see it, its noise drawn from the file's name, so every pass over a
    set sees the same pictures."""
    image = cv2.imread(str(path))
    if image is None:
        raise CardrefError(f"{path}: cannot read image")
    if camera:
        from vision.synth.conditions import filmed

        image = filmed(image, camera, np.random.default_rng(zlib.crc32(Path(path).name.encode())))
    return image


def run_detector(detector, samples: list[Sample], camera: str | None = None,
                 names_per_box: int = NAMES_PER_BOX) -> list[ImageResult]:
    """Every box of each image under its ``names_per_box`` likeliest names, as the label files
    of ``cardref detect --save-txt`` hold them; ``camera``: see :func:`read_image`."""
    results = []
    for s in samples:
        image = read_image(s.image, camera)
        det = detector.detect(image)
        named = label_lines(det, names_per_box)
        first = np.arange(len(named)) < len(det)
        results.append(ImageResult(s.boxes, s.classes, named.xyxy, named.class_id, named.confidence,
                                   str(s.image), first))
    return results


def any_name(r: ImageResult) -> ImageResult:
    """One class for every card and every box: how well the cards are found, whatever their
    names (the finder's share of the mAP: its boxes, and the cards it misses)."""
    r = likeliest_names(r)
    return ImageResult(r.gt_boxes, np.zeros_like(r.gt_classes), r.pred_boxes, np.zeros_like(r.pred_classes),
                       r.pred_scores, r.name)


def face_back_confusions(results: list[ImageResult], operating: float = 0.25) -> dict[str, float | int]:
    """BACK predicted on a face-up card, and a face class on a face-down card, counted two ways:
    every box at IoU >= 0.5 with a card, whatever its confidence (the strict count); and as a
    confusion matrix counts them, the boxes at confidence ``operating`` or more (where
    ``cardref detect`` and the camera referee act), each card matched to one box and each box
    to one card, the best overlaps first (a faint box half on a back and half on the card
    beside it is then no confusion)."""
    from vision.detector.detections import best_overlaps, box_iou

    out = {"back_on_face_up": 0, "face_on_face_down": 0, "operating_conf": operating,
           "back_on_face_up_operating": 0, "face_on_face_down_operating": 0}

    def count(g: int, p: int, r: ImageResult, suffix: str) -> None:
        gt_back, pred_back = r.gt_classes[g] == BACK, r.pred_classes[p] == BACK
        out["back_on_face_up" + suffix] += int(pred_back and not gt_back)
        out["face_on_face_down" + suffix] += int(gt_back and not pred_back)

    for r in map(likeliest_names, results):  # a box's other names are faces as its first is
        if not len(r.gt_boxes) or not len(r.pred_boxes):
            continue
        ious = box_iou(r.gt_boxes, r.pred_boxes)
        for g, p in zip(*np.nonzero(ious >= 0.5), strict=True):
            count(g, p, r, "")
        ious[:, r.pred_scores < operating] = 0
        for g, p in best_overlaps(ious):
            count(g, p, r, "_operating")
    return out


# A card with less of its area in view shows little more than a corner (the renderer labels
# such a card when a corner index is uncovered): the hardest to name.
MOSTLY_HIDDEN = 0.5


def by_design(card: dict) -> str | None:
    return card.get("deck") or None  # sets rendered before designs were recorded have none


def by_deck_style(card: dict) -> str | None:
    """Decks printed in other colours (``vision/synth/styles.py``), or as designed."""
    if "style" not in card:
        return None  # rendered before styles were recorded
    return f"{card['style']} deck" if card["style"] else "deck as designed"


def by_camera(card: dict) -> str | None:
    """A grey or strongly tinted camera, or an ordinary colour one."""
    if "camera" not in card:
        return None
    return f"{card['camera']} camera" if card["camera"] else "colour camera"


def by_visible_share(card: dict) -> str:
    """A card mostly in view, or one that shows only a corner (labelled for its index)."""
    return "half or more in view" if card["visible"] >= MOSTLY_HIDDEN else "less than half in view"


def breakdown(samples: list[Sample], results: list[ImageResult], classes: int, group) -> dict[str, dict]:
    """mAP per group of cards (``group`` maps a rendered card's record to its group): each
    group's cards alone, the boxes on other groups' cards left out; boxes on no card count
    against every group. Empty where the renderer's records are missing."""
    from vision.detector.detections import box_iou

    if not samples or any(s.cards is None for s in samples):
        return {}
    groups = [[group(c) for c in s.cards or []] for s in samples]
    if any(g is None for gs in groups for g in gs):
        return {}
    out = {}
    for name in sorted({g for gs in groups for g in gs}):
        part = []
        for gs, r in zip(groups, results, strict=True):
            mine = np.array([g == name for g in gs], bool).reshape(-1)
            keep = np.ones(len(r.pred_boxes), bool)
            if (~mine).any() and len(r.pred_boxes):
                # A box is another group's when it lies on one of its cards more than on ours.
                theirs = box_iou(r.gt_boxes[~mine], r.pred_boxes).max(axis=0)
                ours = np.zeros_like(theirs)
                if mine.any():
                    ours = box_iou(r.gt_boxes[mine], r.pred_boxes).max(axis=0)
                keep = (theirs < 0.5) | (ours >= theirs)
            part.append(ImageResult(r.gt_boxes[mine], r.gt_classes[mine], r.pred_boxes[keep],
                                    r.pred_classes[keep], r.pred_scores[keep], r.name))
        ev = evaluate(part, classes)
        out[name] = {"instances": int(ev.gt_counts.sum()), "mAP50": round(ev.map50, 4),
                     "mAP50_95": round(ev.map50_95, 4)}
    return out


def image_score(r: ImageResult) -> float:
    """Share of ground-truth boxes found with the right class at IoU ≥ 0.5 (for 'worst')."""
    if not len(r.gt_boxes):
        return 1.0 if not len(r.pred_boxes) else 0.5
    single = evaluate([r], int(max(r.gt_classes.max(), r.pred_classes.max(initial=0))) + 1)
    return float(np.nanmean(single.recall50))


def draw_worst(results: list[ImageResult], names: list[str], out: Path, camera: str | None = None,
               count: int = 8) -> Path:
    """A contact sheet of the worst images as the detector saw them (``camera``: see
    :func:`read_image`): ground truth green, predictions red."""
    worst = sorted((likeliest_names(r) for r in results), key=image_score)[:count]
    tiles = []
    for r in worst:
        img = read_image(Path(r.name), camera)
        scale = 480 / max(img.shape[:2])
        img = cv2.resize(img, None, fx=scale, fy=scale)
        for boxes, classes, colour in ((r.gt_boxes, r.gt_classes, (0, 200, 0)),
                                       (r.pred_boxes, r.pred_classes, (0, 0, 255))):
            for b, c in zip(boxes * scale, classes, strict=True):
                x1, y1, x2, y2 = map(int, b)
                cv2.rectangle(img, (x1, y1), (x2, y2), colour, 2)
                cv2.putText(img, names[c], (x1 + 2, y1 + 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1)
        tile = np.full((480, 480, 3), 40, np.uint8)
        tile[: img.shape[0], : img.shape[1]] = img
        tiles.append(tile)
    while len(tiles) % 4:
        tiles.append(np.full((480, 480, 3), 40, np.uint8))
    sheet = np.vstack([np.hstack(tiles[i : i + 4]) for i in range(0, len(tiles), 4)])
    ok, png = cv2.imencode(".png", sheet)
    if ok:
        files.write_bytes(out, png.tobytes())
    return out


def summary(results: list[ImageResult], names: list[str], top: int = 10) -> dict:
    """The mAP of ``results`` as the label files hold them (each box under its likely names),
    and of each box's likeliest name alone (``one_name``); the recall per class and the
    confusions are the likeliest names' (another name in the ranking recalls no card)."""
    ev = evaluate(results, len(names))
    one = evaluate([likeliest_names(r) for r in results], len(names))
    confusions = sorted(one.confusion.items(), key=lambda kv: -kv[1])[:top]
    recall = {names[c]: float(r) for c, r in enumerate(one.recall50) if np.isfinite(r)}
    return {
        "mAP50": round(ev.map50, 4),
        "mAP50_95": round(ev.map50_95, 4),
        "one_name": {"mAP50": round(one.map50, 4), "mAP50_95": round(one.map50_95, 4)},
        "recall50_per_class": {name: round(r, 3) for name, r in recall.items()},
        "court_recall50": court_recall(recall),
        "confusions": [{"true": names[t], "predicted": names[p], "count": n} for (t, p), n in confusions],
        "instances": int(ev.gt_counts.sum()),
    }


def court_recall(recall: dict[str, float]) -> dict[str, float]:
    """The recall of the court cards (J, Q and K of the four suits, or the ranks alone in a set
    scored by rank), rank by rank and their mean over the court classes the set holds: their
    pictures change most from deck to deck, so a design never trained on is named worst there.
    Empty when the set holds none."""
    by_rank = {r: [v for name, v in recall.items() if name != "JK" and r in (name, name[:-1])]
               for r in FACE_RANKS}
    every = [v for values in by_rank.values() for v in values]
    if not every:
        return {}
    out = {r: round(float(np.mean(v)), 3) for r, v in by_rank.items() if v}
    out["mean"] = round(float(np.mean(every)), 3)
    return out


def write_json(path: Path, data: dict) -> None:
    files.write_json(path, data, indent=2)


def corner_errors(refiner, samples: list[Sample], camera: str | None = None) -> dict[str, dict]:
    """The corner refiner on the true boxes of rendered cards against the renderer's corners
    (:func:`vision.detector.geometry.rect_errors`), for the cards half or more in view and for
    those less than half in view (whose hidden corners it must guess)."""
    from vision.detector.geometry import Rects, rect_errors, rects_from_quads

    pred: list[Rects] = []
    true: list[np.ndarray] = []
    shown: list[float] = []
    for s in samples:
        if not s.cards or not len(s.boxes):
            continue
        image = read_image(s.image, camera)
        pred.append(refiner.rects(image, s.boxes))
        true += [c["quad"] for c in s.cards]
        shown += [c["visible"] for c in s.cards]
    if not pred:
        return {}
    p = Rects(*(np.concatenate([getattr(r, f) for r in pred]) for f in ("center", "long", "short", "axis")))
    t = rects_from_quads(np.array(true))
    out = {}
    for name, part in (("half or more in view", np.array(shown) >= MOSTLY_HIDDEN),
                       ("less than half in view", np.array(shown) < MOSTLY_HIDDEN)):
        if part.any():
            sub = (Rects(r.center[part], r.long[part], r.short[part], r.axis[part]) for r in (p, t))
            out[name] = {"cards": int(part.sum()), **{k: round(v, 4) for k, v in rect_errors(*sub).items()}}
    return out
