"""Drawing the referee's view onto a frame: zones, cards read, and the latest announcements.

Computing and drawing stay apart: the pipeline decides, these functions only paint.
"""

from __future__ import annotations

import functools

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


FONT = cv2.FONT_HERSHEY_SIMPLEX
MARK = (255, 0, 255)  # the card a move moved, in the report's frames


def plain(text: str) -> str:
    """Text OpenCV's fonts can draw (ASCII): arrows as ``->``, other signs as ``?``."""
    return text.replace("\u2192", "->").encode("ascii", "replace").decode()


def wrap(text: str, width: int, scale: float, thickness: int = 1) -> list[str]:
    """``text`` in lines no wider than ``width`` pixels at this font scale (a word too long
    for a line is cut at the edge rather than lost)."""
    lines: list[str] = []
    line = ""
    for word in plain(text).split():
        trial = f"{line} {word}".strip()
        if line and cv2.getTextSize(trial, FONT, scale, thickness)[0][0] > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return [*lines, line] if line else lines


def panel_width(frame_width: int) -> int:
    return max(360, round(frame_width * 0.4)) // 2 * 2


def with_side_panel(
    image: np.ndarray, status: str, lines: list[tuple[str, str]], width: int | None = None
) -> np.ndarray:
    """The frame with a dark panel beside it (never over the table): the status line, then
    ``lines`` newest first, wrapped, the newest in large type. The newest stays until the
    next one comes, as a subtitle does."""
    h, w = image.shape[:2]
    pw = width or panel_width(w)
    canvas = np.empty((h, w + pw, 3), np.uint8)
    canvas[:, :w] = image
    canvas[:, w:] = _panel(h, pw, status, tuple(lines))
    return canvas


@functools.lru_cache(maxsize=4)
def _panel(h: int, pw: int, status: str, lines: tuple[tuple[str, str], ...]) -> np.ndarray:
    """The panel alone, drawn once for as long as its text stays the same (laying out the
    text costs more than the rest of a frame)."""
    canvas = np.empty((h, pw, 3), np.uint8)
    canvas[:] = PANEL
    w = 0
    scale = max(0.45, h / 720 * 0.6)
    step = round(32 * scale)
    margin = round(12 * scale)
    y = margin
    inner = pw - 2 * margin

    def put(text: str, colour: tuple[int, int, int], s: float, thick: int = 1) -> bool:
        nonlocal y
        for line in wrap(text, inner, s, thick):
            y += round(step * s / scale)
            if y > h - margin:
                return False
            cv2.putText(canvas, line, (w + margin, y), FONT, s, colour, thick, cv2.LINE_AA)
        y += round(step * 0.35)
        return True

    put(status, (255, 255, 255), scale, 1)
    cv2.line(canvas, (w + margin, y), (w + pw - margin, y), (90, 90, 90), 1)
    y += round(step * 0.3)
    for i, (kind, text) in enumerate(reversed(lines)):
        colour = KIND_COLOUR.get(kind, (210, 210, 210))
        big = i == 0
        if not put(f"[{kind}] {text}", colour, scale * (1.25 if big else 0.85), 2 if big else 1):
            break
    canvas.flags.writeable = False  # shared by the frames that show it
    return canvas


def mark(image: np.ndarray, quad: np.ndarray, label: str | None = None) -> None:
    """A thick outline round the card a move moved, and its name above it if given."""
    pts = np.round(quad).astype(np.int32)
    cv2.polylines(image, [pts], True, MARK, 4, cv2.LINE_AA)
    if not label:
        return
    label = plain(label)
    x, y = int(pts[:, 0].min()), int(pts[:, 1].min())
    scale = max(0.6, image.shape[0] / 720 * 0.8)
    (tw, th), _ = cv2.getTextSize(label, FONT, scale, 2)
    y = max(th + 6, y - 6)
    cv2.rectangle(image, (x - 2, y - th - 6), (x + tw + 4, y + 4), MARK, -1)
    cv2.putText(image, label, (x + 1, y), FONT, scale, (255, 255, 255), 2, cv2.LINE_AA)
