"""Card crops for the classifier: one geometry shared by training and inference.

The classifier sees each found card as a portrait crop of fixed size cut from the
full-resolution frame, so a card that is small in a wide view keeps the detail the finder's
downscaled input has lost. A box wider than tall is turned upright first (cards lie in both
orientations); a card turned by 180 degrees looks the same, so that choice does not matter.
"""

from __future__ import annotations

import cv2
import numpy as np

CROP_W, CROP_H = 64, 96  # classifier input, pixels (portrait, about a card's 1.4 aspect)
MARGIN = 0.06  # share of the box added on each side: the finder's boxes are not exact


def card_crop(image: np.ndarray, box: np.ndarray, margin: float = MARGIN) -> np.ndarray:
    """The ``CROP_H``×``CROP_W`` BGR crop of ``box`` (xyxy pixels), upright."""
    x0, y0, x1, y1 = (float(v) for v in box)
    w, h = max(x1 - x0, 1.0), max(y1 - y0, 1.0)
    x0, x1 = x0 - margin * w, x1 + margin * w
    y0, y1 = y0 - margin * h, y1 + margin * h
    landscape = (x1 - x0) > (y1 - y0)
    out_w, out_h = (CROP_H, CROP_W) if landscape else (CROP_W, CROP_H)
    # One affine map from the box to the output: no intermediate copy of a large region.
    sx, sy = out_w / (x1 - x0), out_h / (y1 - y0)
    m = np.array([[sx, 0, -x0 * sx], [0, sy, -y0 * sy]], np.float32)
    shrink = min(sx, sy)
    interp = cv2.INTER_AREA if shrink < 1 else cv2.INTER_LINEAR
    crop = cv2.warpAffine(image, m, (out_w, out_h), flags=interp, borderMode=cv2.BORDER_REPLICATE)
    return cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE) if landscape else crop


def crops_batch(image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(n, CROP_H, CROP_W, 3) uint8 crops of every box."""
    if not len(boxes):
        return np.zeros((0, CROP_H, CROP_W, 3), np.uint8)
    return np.stack([card_crop(image, b) for b in boxes])


def jitter_box(rng: np.random.Generator, box: np.ndarray, amount: float) -> np.ndarray:
    """Move each edge of ``box`` by up to ``amount`` of its size: the finder's box error."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    d = rng.uniform(-amount, amount, 4) * np.array([w, h, w, h])
    return np.array([x0 + d[0], y0 + d[1], x1 + d[2], y1 + d[3]], np.float32)


def to_blob(crops: np.ndarray) -> np.ndarray:
    """uint8 BGR (n, H, W, 3) to the network's float RGB (n, 3, H, W) in [0, 1]. The bytes are
    put in the network's order first, then divided in one pass over contiguous memory: the
    transposed copy and the division as two float passes took a tenth of a frame's time, and
    dividing plane by plane from the interleaved bytes a twelfth (``bench/detector.py``)."""
    planar = np.ascontiguousarray(crops[..., ::-1].transpose(0, 3, 1, 2))
    return np.divide(planar, np.float32(255), dtype=np.float32)
