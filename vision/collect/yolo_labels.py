"""Ultralytics label files (``class cx cy w h``, normalised): read strictly, written atomically.

Strict reading matters because a label file edited by hand or by another tool is read back by
training and by the review page; a bad line is reported with its file and line number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee import files
from referee.cards import CLASSES
from referee.errors import CardrefError
from vision.detector.detections import Detections


@dataclass
class LabelBox:
    """One labelled card: class id into CLASSES and a normalised centre-size box."""

    class_id: int
    cx: float
    cy: float
    w: float
    h: float
    confidence: float | None = None  # the model's, while nobody has reviewed it

    @property
    def name(self) -> str:
        return CLASSES[self.class_id]

    def line(self) -> str:
        return f"{self.class_id} {self.cx:.6f} {self.cy:.6f} {self.w:.6f} {self.h:.6f}"

    def xyxy(self, width: int, height: int) -> tuple[float, float, float, float]:
        return (
            (self.cx - self.w / 2) * width,
            (self.cy - self.h / 2) * height,
            (self.cx + self.w / 2) * width,
            (self.cy + self.h / 2) * height,
        )

    @classmethod
    def from_xyxy(cls, class_id: int, box, width: int, height: int, confidence: float | None = None):
        x0, y0, x1, y1 = (float(v) for v in box)
        x0, x1 = max(0.0, x0), min(float(width), x1)
        y0, y1 = max(0.0, y0), min(float(height), y1)
        return cls(
            int(class_id),
            (x0 + x1) / 2 / width,
            (y0 + y1) / 2 / height,
            max(0.0, x1 - x0) / width,
            max(0.0, y1 - y0) / height,
            None if confidence is None else round(float(confidence), 4),
        )


def from_detections(det: Detections, width: int, height: int) -> list[LabelBox]:
    boxes = [
        LabelBox.from_xyxy(int(c), b, width, height, float(p))
        for b, p, c in zip(det.xyxy, det.confidence, det.class_id, strict=True)
    ]
    return [b for b in boxes if b.w > 0 and b.h > 0]


def to_detections(boxes: list[LabelBox], width: int, height: int) -> Detections:
    if not boxes:
        return Detections.empty()
    return Detections(
        np.array([b.xyxy(width, height) for b in boxes], np.float32),
        np.array([1.0 if b.confidence is None else b.confidence for b in boxes], np.float32),
        np.array([b.class_id for b in boxes], np.int64),
    )


def check(box: LabelBox, where: str) -> LabelBox:
    """The box itself, or a CardrefError saying what is wrong ``where``."""
    if not 0 <= box.class_id < len(CLASSES):
        raise CardrefError(f"{where}: class {box.class_id} out of range (0-{len(CLASSES) - 1})")
    values = (box.cx, box.cy, box.w, box.h)
    if not all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in values) or box.w <= 0 or box.h <= 0:
        raise CardrefError(f"{where}: box {values} is not normalised (0..1, width and height > 0)")
    return box


def parse_line(line: str, where: str) -> LabelBox:
    parts = line.split()
    if len(parts) != 5:
        raise CardrefError(f"{where}: expected 'class cx cy w h', got {line.strip()!r}")
    try:
        box = LabelBox(int(parts[0]), *(float(p) for p in parts[1:]))
    except ValueError:
        raise CardrefError(f"{where}: expected 'class cx cy w h' (numbers), got {line.strip()!r}") from None
    return check(box, where)


def read_labels(path: Path) -> list[LabelBox]:
    """The boxes of one label file (missing file: no boxes); errors name ``path:line``."""
    if not path.exists():
        return []
    text = files.read_text(path, "label")
    return [parse_line(ln, f"{path}:{n}") for n, ln in enumerate(text.splitlines(), 1) if ln.strip()]


def write_labels(path: Path, boxes: list[LabelBox]) -> None:
    files.write_text(path, "".join(b.line() + "\n" for b in boxes))
