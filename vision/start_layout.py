"""Calibration without a mat or clicks: fit the homography to the cards of the start layout.

Every game starts with known cards in known zones (Royal Family: the two castles' aces face
up, the draw pile face down). The detector names those cards in the first settled frame;
their centres give a first, affine guess of the table-to-image map, which says which corner
of each card's outline in the image is which corner of the card on the table; the map is then
fitted to all those corners, as an affine map (an overhead camera sees the table with little
perspective, and three cards cannot measure it). Cards lie roughly, not exactly, in their zones, so this is
coarser than the markers (about a centimetre), which the zones' margins absorb.
"""

from __future__ import annotations

import cv2
import numpy as np

from referee.errors import CardrefError
from vision.calibration import Calibration, _transform
from vision.detector.detections import Detections
from vision.layout import Layout

MIN_CARDS = 3  # three centres fix an affine map; their twelve corners a homography
MAX_ERROR_CARD = 0.12  # RMS corner error, as a share of a card's height in pixels: else refuse


def card_outline(image: np.ndarray, box: np.ndarray) -> np.ndarray:
    """The four corners (pixels) of the card inside ``box``: the largest bright, low-saturation
    region around the box's centre (card stock on a cloth), as a rotated rectangle. Falls back
    to the box's own corners when no such region fills most of the box."""
    x0, y0, x1, y1 = (float(v) for v in box)
    w, h = x1 - x0, y1 - y0
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
    H, W = image.shape[:2]
    ax, ay = int(max(0, x0 - 0.15 * w)), int(max(0, y0 - 0.15 * h))
    bx, by = int(min(W, x1 + 0.15 * w)), int(min(H, y1 + 0.15 * h))
    crop = image[ay:by, ax:bx]
    if crop.size == 0:
        return corners
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    score = hsv[..., 2].astype(np.float32) - hsv[..., 1].astype(np.float32)  # white, not coloured
    _, mask = cv2.threshold(
        cv2.GaussianBlur(score, (5, 5), 0).clip(0, 255).astype(np.uint8),
        0,
        255,
        cv2.THRESH_BINARY + cv2.THRESH_OTSU,
    )
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return corners
    biggest = max(contours, key=cv2.contourArea)
    rect = cv2.minAreaRect(biggest)
    area = rect[1][0] * rect[1][1]
    if not 0.6 * w * h <= area <= 1.3 * w * h:
        return corners  # glare, a back's dark print or the cloth: trust the box
    return cv2.boxPoints(rect).astype(np.float64) + (ax, ay)


def card_corners_cm(layout: Layout, zone: str) -> np.ndarray:
    """The corners of a card lying upright in the middle of ``zone`` (table cm)."""
    z = layout.zones[zone]
    (cx, cy), (w, h) = z.center, layout.card_size
    if z.rotated:
        w, h = h, w
    return np.array(
        [
            [cx - w / 2, cy - h / 2],
            [cx + w / 2, cy - h / 2],
            [cx + w / 2, cy + h / 2],
            [cx - w / 2, cy + h / 2],
        ],
        np.float64,
    )


def from_start_cards(
    image: np.ndarray, detections: Detections, layout: Layout, start: dict[str, str], source: str = "image"
) -> Calibration:
    """Fit the homography to the start layout's cards. ``start`` maps a zone to the name of the
    card that lies on top there at the start (``BACK`` for a face-down pile); a name expected
    in several zones says nothing about which is which and is not used."""
    names = list(start.values())
    wanted = {z: n for z, n in start.items() if names.count(n) == 1 and z in layout.zones}
    found: dict[str, int] = {}
    for zone, name in wanted.items():
        idx = [i for i, n in enumerate(detections.names) if n == name]
        if idx:
            found[zone] = max(idx, key=lambda i: float(detections.confidence[i]))
    if len(found) < MIN_CARDS:
        missing = ", ".join(f"{wanted[z]} in {z}" for z in wanted if z not in found)
        raise CardrefError(
            f"{source}: found {len(found)} of the start layout's cards "
            f"(need {MIN_CARDS}; not seen: {missing})"
        )
    zones = sorted(found)
    centres_cm = np.array([layout.zones[z].center for z in zones], np.float64)
    boxes = detections.xyxy[[found[z] for z in zones]].astype(np.float64)
    centres_px = (boxes[:, :2] + boxes[:, 2:]) / 2
    affine, _ = cv2.estimateAffine2D(centres_cm, centres_px, method=cv2.LMEDS)
    if affine is None or abs(np.linalg.det(affine[:, :2])) < 1e-6:
        raise CardrefError(f"{source}: the start layout's cards lie in a line: cannot calibrate from them")
    guess = np.vstack([affine, [0, 0, 1]])
    table_pts, image_pts = [], []
    for zone, box in zip(zones, boxes, strict=True):
        outline = card_outline(image, box)
        corners_cm = card_corners_cm(layout, zone)
        predicted = _transform(guess, corners_cm)
        # Each table corner takes the outline corner nearest to where the guess puts it.
        dist = np.linalg.norm(predicted[:, None, :] - outline[None, :, :], axis=2)
        for i, j in enumerate(_assign(dist)):
            table_pts.append(corners_cm[i])
            image_pts.append(outline[j])
    H, err = fit_affine(np.array(table_pts), np.array(image_pts))
    card_px = float(np.median(boxes[:, 3] - boxes[:, 1]))
    if err > MAX_ERROR_CARD * max(card_px, 1.0):
        raise CardrefError(
            f"{source}: the start layout's cards do not fit one view (error {err:.1f} px): "
            "are they in their zones?"
        )
    h, w = image.shape[:2]
    return Calibration(H, (w, h), "layout", err)


def fit_affine(table_pts: np.ndarray, image_pts: np.ndarray) -> tuple[np.ndarray, float]:
    """Least-squares affine map (as a 3x3 homography) and its RMS error in pixels. Three cards
    close together do not pin down a homography's perspective terms: measured on rendered
    games, a full homography put far zones up to 3.8 cm off, the affine fit at most 2.3 cm."""
    a = np.hstack([table_pts, np.ones((len(table_pts), 1))])
    sol, *_ = np.linalg.lstsq(a, image_pts, rcond=None)
    H = np.vstack([sol.T, [0, 0, 1]])
    err = np.sqrt(np.mean(np.sum((_transform(H, table_pts) - image_pts) ** 2, axis=1)))
    return H, float(err)


def _assign(dist: np.ndarray) -> list[int]:
    """Rows to distinct columns, greedily by smallest distance (4 x 4: exact enough)."""
    out = [-1] * dist.shape[0]
    used: set[int] = set()
    for flat in np.argsort(dist, axis=None):
        i, j = divmod(int(flat), dist.shape[1])
        if out[i] < 0 and j not in used:
            out[i] = j
            used.add(j)
    return out
