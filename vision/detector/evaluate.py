"""Evaluating a detector on a YOLO-format synthetic set and on real photos scored by rank."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.cards import CLASSES
from referee.errors import CardrefError
from vision.detector.metrics import Evaluation, ImageResult, evaluate

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
REAL_RANKS = ("9", "10", "J", "Q", "K", "A")
VOC_RANK = {"nine": "9", "ten": "10", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}
BACK = CLASSES.index("BACK")


@dataclass
class Sample:
    image: Path
    boxes: np.ndarray  # xyxy pixels
    classes: np.ndarray


def read_yolo_dataset(root: Path, split: str = "val") -> list[Sample]:
    """Images and labels of an Ultralytics dataset split (labels: class cx cy w h, normalised)."""
    images = root / "images" / split
    if not images.is_dir():
        raise CardrefError(f"{root}: no images/{split} folder (expected an Ultralytics dataset)")
    samples = []
    for img in sorted(p for p in images.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
        label = root / "labels" / split / f"{img.stem}.txt"
        h, w = cv2.imread(str(img), cv2.IMREAD_REDUCED_GRAYSCALE_2).shape[:2]
        h, w = h * 2, w * 2
        rows = []
        if label.exists():
            for n, line in enumerate(label.read_text().splitlines(), 1):
                parts = line.split()
                if not parts:
                    continue
                try:
                    c, cx, cy, bw, bh = int(parts[0]), *map(float, parts[1:5])
                except ValueError:
                    raise CardrefError(f"{label}:{n}: expected 'class cx cy w h'") from None
                rows.append((c, (cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h))
        arr = np.array(rows, float).reshape(-1, 5)
        samples.append(Sample(img, arr[:, 1:], arr[:, 0].astype(int)))
    return samples


def read_voc_folder(folder: Path) -> list[Sample]:
    """Pascal VOC photos labelled by rank (real_dev_edje): classes index REAL_RANKS."""
    samples = []
    for xml in sorted(folder.rglob("*.xml")):
        root = ET.parse(xml).getroot()
        img = xml.with_name(root.findtext("filename") or xml.stem + ".jpg")
        if not img.exists():
            img = next((xml.with_suffix(s) for s in (".JPG", ".jpg", ".png") if xml.with_suffix(s).exists()),
                       img)
        rows = []
        for obj in root.iter("object"):
            name = (obj.findtext("name") or "").strip().lower()
            if name not in VOC_RANK:
                raise CardrefError(f"{xml}: unknown label {name!r} (expected {', '.join(VOC_RANK)})")
            bb = obj.find("bndbox")
            rows.append((REAL_RANKS.index(VOC_RANK[name]),
                         *(float(bb.findtext(k)) for k in ("xmin", "ymin", "xmax", "ymax"))))
        arr = np.array(rows, float).reshape(-1, 5)
        samples.append(Sample(img, arr[:, 1:], arr[:, 0].astype(int)))
    return samples


def rank_class(class_ids: np.ndarray) -> np.ndarray:
    """Map detector classes to REAL_RANKS indices; -1 for ranks not in the real set."""
    out = np.full(len(class_ids), -1)
    for i, c in enumerate(class_ids):
        rank = CLASSES[c][:-1]
        if rank in REAL_RANKS:
            out[i] = REAL_RANKS.index(rank)
    return out


def run_detector(detector, samples: list[Sample], by_rank: bool = False) -> list[ImageResult]:
    results = []
    for s in samples:
        image = cv2.imread(str(s.image))
        if image is None:
            raise CardrefError(f"{s.image}: cannot read image")
        det = detector.detect(image)
        classes = det.class_id
        keep = np.ones(len(det), bool)
        if by_rank:
            classes = rank_class(classes)
            keep = classes >= 0
        results.append(ImageResult(s.boxes, s.classes, det.xyxy[keep], classes[keep],
                                   det.confidence[keep], str(s.image)))
    return results


def face_back_confusions(results: list[ImageResult]) -> dict[str, int]:
    """BACK predicted on a face-up card, and a face class on a face-down card (IoU ≥ 0.5)."""
    from vision.detector.detections import box_iou

    back_on_face = face_on_back = 0
    for r in results:
        if not len(r.gt_boxes) or not len(r.pred_boxes):
            continue
        ious = box_iou(r.gt_boxes, r.pred_boxes)
        for g, p in zip(*np.nonzero(ious >= 0.5), strict=True):
            gt_back, pred_back = r.gt_classes[g] == BACK, r.pred_classes[p] == BACK
            back_on_face += int(pred_back and not gt_back)
            face_on_back += int(gt_back and not pred_back)
    return {"back_on_face_up": back_on_face, "face_on_face_down": face_on_back}


def image_score(r: ImageResult) -> float:
    """Share of ground-truth boxes found with the right class at IoU ≥ 0.5 (for 'worst')."""
    if not len(r.gt_boxes):
        return 1.0 if not len(r.pred_boxes) else 0.5
    single = evaluate([r], int(max(r.gt_classes.max(), r.pred_classes.max(initial=0))) + 1)
    return float(np.nanmean(single.recall50))


def draw_worst(results: list[ImageResult], names: list[str], out: Path, count: int = 8) -> Path:
    """A contact sheet of the worst images: ground truth green, predictions red."""
    worst = sorted(results, key=image_score)[:count]
    tiles = []
    for r in worst:
        img = cv2.imread(r.name)
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
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), sheet)
    return out


def summary(ev: Evaluation, names: list[str], top: int = 10) -> dict:
    confusions = sorted(ev.confusion.items(), key=lambda kv: -kv[1])[:top]
    return {
        "mAP50": round(ev.map50, 4),
        "mAP50_95": round(ev.map50_95, 4),
        "recall50_per_class": {names[c]: round(float(r), 3) for c, r in enumerate(ev.recall50)
                               if np.isfinite(r)},
        "confusions": [{"true": names[t], "predicted": names[p], "count": n} for (t, p), n in confusions],
        "instances": int(ev.gt_counts.sum()),
    }


def write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))
