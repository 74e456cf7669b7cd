"""Drawing detections on a frame (computing and drawing stay apart: this only draws)."""

from __future__ import annotations

import cv2
import numpy as np

from referee.cards import CLASSES
from vision.detector.detections import Detections

FACE_UP, FACE_DOWN = (40, 200, 40), (200, 120, 40)  # BGR
BACK = CLASSES.index("BACK")


def draw_detections(image: np.ndarray, detections: Detections, thickness: int = 2) -> np.ndarray:
    """A copy of ``image`` with each box (the card's outline where the detector found its
    corners) and its ``class conf`` label."""
    out = image.copy()
    scale = max(0.4, min(image.shape[:2]) / 900)
    for i, (box, cls, conf) in enumerate(zip(detections.xyxy, detections.class_id, detections.confidence,
                                             strict=True)):
        x0, y0, x1, y1 = (int(round(v)) for v in box)
        colour = FACE_DOWN if cls == BACK else FACE_UP
        if detections.corners is None:
            cv2.rectangle(out, (x0, y0), (x1, y1), colour, thickness)
        else:
            outline = np.round(detections.corners[i] * 4).astype(np.int32)
            cv2.polylines(out, [outline], True, colour, thickness, cv2.LINE_AA, shift=2)
        text = f"{CLASSES[cls]} {conf:.2f}"
        (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        ty = max(y0, th + base)
        cv2.rectangle(out, (x0, ty - th - base), (x0 + tw, ty), colour, -1)
        cv2.putText(out, text, (x0, ty - base), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 1, cv2.LINE_AA)
    return out


def yolo_txt(detections: Detections, width: int, height: int) -> str:
    """Ultralytics predict ``--save-txt`` lines: ``class cx cy w h conf``, normalised. The
    confidence has six significant digits, as Ultralytics writes it: a box's unlikely other
    names can be under 0.000005 sure, and a scoring tool ranks them by it."""
    lines = []
    for (x0, y0, x1, y1), cls, conf in zip(detections.xyxy, detections.class_id, detections.confidence,
                                           strict=True):
        cx, cy = (x0 + x1) / 2 / width, (y0 + y1) / 2 / height
        lines.append(f"{cls} {cx:.6f} {cy:.6f} {(x1 - x0) / width:.6f} {(y1 - y0) / height:.6f} {conf:.6g}")
    return "".join(line + "\n" for line in lines)
