"""Card geometry: where a found card's four corners are, and the card cut out upright.

The finder gives an axis-aligned box. A card turned 20 degrees fills that box with felt and its
neighbour's pips, and seen through it the corner index is sideways; a player reads the card
straightened. A small network (the *corner refiner*, ``models/cards_geo.onnx``) looks at a square
cut around each box and says where the card lies in it, as a rotated rectangle: its centre, its
long and short sides, and the direction of its long side, given as twice the angle (cos 2a,
sin 2a) because a card turned by 180 degrees is the same card, so the network never has to
choose between the two. The rectangle then cuts the card out upright (:func:`rectified_crop`),
for the classifier. Under the overhead camera a card is a rectangle to within a few pixels.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

GEO_SIZE = 96  # the refiner's square input, pixels
# Share of the box's longer side added on every side of the square: the corner refiner's (the
# wide refiner's, 0.5, is in its recipe configs/detector/geometry_wide.yaml and its file's metadata).
GEO_MARGIN = 0.125
RECT_MARGIN = 0.04  # share of the card added on every side of a rectified crop


@dataclass
class Rects:
    """Rotated rectangles of n cards in image pixels: centre (n, 2), long and short sides (n,),
    and the unit direction of the long side (n, 2), pointing down the image."""

    center: np.ndarray
    long: np.ndarray
    short: np.ndarray
    axis: np.ndarray

    def quads(self, margin: float = 0.0) -> np.ndarray:
        """(n, 4, 2) corners TL, TR, BR, BL of each card upright (its long side vertical), grown
        by ``margin`` of its size on each side."""
        down = self.axis
        right = np.stack([down[:, 1], -down[:, 0]], axis=1)
        hl = (self.long * (0.5 + margin))[:, None] * down
        hs = (self.short * (0.5 + margin))[:, None] * right
        c = self.center
        return np.stack([c - hl - hs, c - hl + hs, c + hl + hs, c + hl - hs], axis=1)

    def take(self, which: np.ndarray) -> Rects:
        """The rectangles of the cards ``which`` (indices or a mask)."""
        return Rects(self.center[which], self.long[which], self.short[which], self.axis[which])

    def tilt(self) -> np.ndarray:
        """Degrees (0-45) from the nearest upright or sideways pose."""
        a = np.degrees(np.arctan2(self.axis[:, 0], self.axis[:, 1])) % 90
        return np.minimum(a, 90 - a)


def rects_from_quads(quads: np.ndarray) -> Rects:
    """The rotated rectangle of each card from its four true corners (TL, TR, BR, BL of the face)."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    top, bottom = (q[:, 0] + q[:, 1]) / 2, (q[:, 3] + q[:, 2]) / 2
    left, right = (q[:, 0] + q[:, 3]) / 2, (q[:, 1] + q[:, 2]) / 2
    along, across = bottom - top, right - left
    long, short = np.linalg.norm(along, axis=1), np.linalg.norm(across, axis=1)
    # The long side is the face's height; a face printed landscape (none here) would swap them.
    swap = short > long
    axis = np.where(swap[:, None], across, along)
    long, short = np.maximum(long, short), np.minimum(long, short)
    axis = axis / np.maximum(np.linalg.norm(axis, axis=1, keepdims=True), 1e-9)
    axis = np.where((axis[:, 1] < 0)[:, None], -axis, axis)
    return Rects(q.mean(axis=1), long, short, axis)


def rect_errors(p: Rects, t: Rects) -> dict[str, float]:
    """How far rectangles ``p`` are from the true ``t``: the median (and 90th percentile) mean
    corner distance and the median centre offset as shares of the card's long side, the angle
    in degrees (mod 180), the long side's relative error."""
    qp, qt = p.quads(), t.quads()
    # A card turned by 180 degrees is the same card: the nearer of the two corner orders.
    d = np.minimum(np.linalg.norm(qp - qt, axis=2).mean(1),
                   np.linalg.norm(np.roll(qp, 2, axis=1) - qt, axis=2).mean(1)) / t.long
    ang = np.degrees(np.arccos(np.clip(np.abs((p.axis * t.axis).sum(1)), 0, 1)))
    return {"corner": float(np.median(d)), "corner_p90": float(np.quantile(d, 0.9)),
            "center": float(np.median(np.linalg.norm(p.center - t.center, axis=1) / t.long)),
            "angle_deg": float(np.median(ang)), "angle_deg_p90": float(np.quantile(ang, 0.9)),
            "long": float(np.median(np.abs(p.long / t.long - 1)))}


def square_windows(boxes: np.ndarray, margin: float = GEO_MARGIN) -> tuple[np.ndarray, np.ndarray]:
    """The refiner's square around each box: (n, 2) top-left corners and (n,) sides."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    side = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]) * (1 + 2 * margin)
    side = np.maximum(side, 4.0)
    center = (b[:, :2] + b[:, 2:]) / 2
    return center - side[:, None] / 2, side


def square_crops(image: np.ndarray, boxes: np.ndarray, margin: float = GEO_MARGIN) -> np.ndarray:
    """(n, GEO_SIZE, GEO_SIZE, 3) uint8 squares around the boxes, the image's edge repeated."""
    corner, side = square_windows(boxes, margin)
    out = np.zeros((len(side), GEO_SIZE, GEO_SIZE, 3), np.uint8)
    for i, ((x0, y0), s) in enumerate(zip(corner, side, strict=True)):
        k = GEO_SIZE / s
        m = np.array([[k, 0, -x0 * k], [0, k, -y0 * k]], np.float32)
        interp = cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR
        out[i] = cv2.warpAffine(image, m, (GEO_SIZE, GEO_SIZE), flags=interp, borderMode=cv2.BORDER_REPLICATE)
    return out


def encode(rects: Rects, boxes: np.ndarray, margin: float = GEO_MARGIN) -> np.ndarray:
    """(n, 6) refiner targets of ``rects`` seen in the squares of ``boxes``: centre in the
    square (0-1), log of the sides over the square's side, cos and sin of twice the angle."""
    corner, side = square_windows(boxes, margin)
    c = (rects.center - corner) / side[:, None]
    a = np.arctan2(rects.axis[:, 1], rects.axis[:, 0])
    return np.stack([c[:, 0], c[:, 1], np.log(rects.long / side), np.log(rects.short / side),
                     np.cos(2 * a), np.sin(2 * a)], axis=1).astype(np.float32)


def decode(out: np.ndarray, boxes: np.ndarray, margin: float = GEO_MARGIN) -> Rects:
    """The refiner's outputs for the squares of ``boxes`` -> rectangles in image pixels."""
    out = np.asarray(out, np.float64).reshape(-1, 6)
    corner, side = square_windows(boxes, margin)
    center = corner + out[:, :2] * side[:, None]
    long, short = np.exp(out[:, 2]) * side, np.exp(out[:, 3]) * side
    a = np.arctan2(out[:, 5], out[:, 4]) / 2
    axis = np.stack([np.cos(a), np.sin(a)], axis=1)
    axis = np.where((axis[:, 1] < 0)[:, None], -axis, axis)
    long, short = np.maximum(long, short), np.minimum(long, short)
    return Rects(center, long, short, axis)


def quad_points(quad: np.ndarray, u, v) -> np.ndarray:
    """The image points at shares ``u`` (along the top edge) and ``v`` (down the side) of the
    card whose corners are ``quad`` (TL, TR, BR, BL), by bilinear interpolation: the same place
    on the card whatever its pose. ``u`` and ``v`` are numbers or arrays of one shape."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    u, v = np.asarray(u, np.float64)[..., None], np.asarray(v, np.float64)[..., None]
    top = q[0] * (1 - u) + q[1] * u
    bottom = q[3] * (1 - u) + q[2] * u
    return top * (1 - v) + bottom * v


@functools.cache
def _corners_of(w: int, h: int) -> np.ndarray:
    """The corners of a ``w`` x ``h`` crop in OpenCV's pixel-centre coordinates."""
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - 0.5
    corners.flags.writeable = False
    return corners


def rectified_crop(image: np.ndarray, quad: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The card inside ``quad`` (TL, TR, BR, BL) warped to an upright ``size`` (w, h) crop. A
    card much larger than the crop is blurred to the crop's scale first (as INTER_AREA would),
    so that its fine print does not alias."""
    w, h = size
    quad = np.asarray(quad, np.float64)
    edge = quad[1] - quad[0]
    shrink = math.sqrt(edge.dot(edge)) / w  # np.linalg.norm's own sum, without its checks
    if shrink > 1.5:
        x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int) - 2, 0)
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
        if x1 > x0 and y1 > y0 and x0 < image.shape[1] and y0 < image.shape[0]:
            image = cv2.GaussianBlur(image[y0:y1, x0:x1], (0, 0), 0.5 * shrink)
            quad = quad - [x0, y0]
    # Corners are in continuous coordinates (pixel edges), OpenCV samples at pixel centres: both
    # sides shifted by half a pixel, so that a crop turned by 180 degrees is the card turned so.
    m = cv2.getPerspectiveTransform((quad - 0.5).astype(np.float32), _corners_of(w, h))
    return cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def rectified_crops(image: np.ndarray, rects: Rects, size: tuple[int, int]) -> np.ndarray:
    """(n, h, w, 3) uint8 upright crops of every card, ``RECT_MARGIN`` around each."""
    w, h = size
    if not len(rects.long):
        return np.zeros((0, h, w, 3), np.uint8)
    return np.stack([rectified_crop(image, q, size) for q in rects.quads(RECT_MARGIN)])


class CornerRefiner:
    """The corner refiner on ONNX Runtime (or OpenVINO): boxes in, rectangles out. Its margin
    (the square it sees around each box) is the one its recipe trained it with, written in the
    file's metadata at export; ``margin`` is for a file exported before that (2026-12-02)."""

    def __init__(self, path: str | Path, threads: int | None = None, runtime: str = "onnx",
                 margin: float = GEO_MARGIN):
        from referee.errors import CardrefError
        from vision.detector.crops import to_blob
        from vision.detector.model_files import open_onnx

        self.path = Path(path)
        self.run = open_onnx(self.path, runtime, threads, "corner refiner model")
        text = self.run.metadata.get("margin", repr(margin))
        try:
            self.margin = float(text)
        except ValueError:
            raise CardrefError(f"{self.path}: metadata 'margin' is {text!r}, expected a number "
                               "(the share of the box added around it)") from None
        self._blob = to_blob

    def rects(self, image: np.ndarray, boxes: np.ndarray) -> Rects:
        if not len(boxes):
            return decode(np.zeros((0, 6)), np.zeros((0, 4)))
        squares = square_crops(image, boxes, self.margin)
        return decode(self.run(self._blob(squares)), boxes, self.margin)
