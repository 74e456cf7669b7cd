"""Drawing the referee's view onto a frame: zones, cards read, and the latest announcements.

Computing and drawing stay apart: the pipeline decides, these functions only paint.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.detector.detections import Detections
from vision.layout import Layout

ZONE = (200, 200, 200)
CARD = (60, 220, 60)
BACK = (60, 160, 230)
PANEL = (30, 30, 30)
KIND_COLOUR = {
    "REJECT": (80, 80, 255),
    "DAMAGE": (80, 200, 255),
    "RESULT": (255, 255, 255),
    "ASK": (255, 200, 80),
    "desync": (80, 80, 255),
}


def draw_zones(image: np.ndarray, calibration: Calibration, layout: Layout) -> None:
    for zone in layout.table_zones:
        if zone.kind == "across":
            continue
        x0, y0, x1, y1 = zone.rect
        quad = calibration.to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float))
        cv2.polylines(image, [np.round(quad).astype(np.int32)], True, ZONE, 1, cv2.LINE_AA)


def draw_detections(image: np.ndarray, det: Detections) -> None:
    for (x0, y0, x1, y1), name, conf in zip(det.xyxy, det.names, det.confidence, strict=True):
        colour = BACK if name == "BACK" else CARD
        cv2.rectangle(image, (int(x0), int(y0)), (int(x1), int(y1)), colour, 2)
        cv2.putText(
            image,
            f"{name} {conf:.2f}",
            (int(x0), max(12, int(y0) - 4)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.45,
            colour,
            1,
            cv2.LINE_AA,
        )


def draw_panel(image: np.ndarray, status: str, lines: list[tuple[str, str]]) -> None:
    """A dark band at the bottom: the status line, then the latest (kind, text) lines."""
    h, w = image.shape[:2]
    rows = 1 + len(lines)
    top = h - 20 * rows - 8
    band = image[top:h]
    cv2.addWeighted(band, 0.35, np.full_like(band, PANEL), 0.65, 0, dst=band)
    cv2.putText(image, status, (8, top + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
    for i, (kind, text) in enumerate(lines, 1):
        colour = KIND_COLOUR.get(kind, (210, 210, 210))
        cv2.putText(
            image,
            f"[{kind}] {text}"[:140],
            (8, top + 18 + 20 * i),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.45,
            colour,
            1,
            cv2.LINE_AA,
        )
