"""Which cards get a label, and their boxes: taken from the rendered instance map.

Hidden-card rule (documented in docs/synth.md): a card is labelled when at least
``MIN_VISIBLE`` (40 %) of its area is visible in the image, or, for a face-up card, when at
least ``MIN_VISIBLE_WITH_INDEX`` (10 %) is visible and one of its two corner indices is at
least ``INDEX_VISIBLE`` (85 %) uncovered: a player can name such a card, so the detector
should too. Everything else (cards deep in a pile, a face-down card showing only an edge) is
not labelled. The box is the axis-aligned box of the card's visible pixels.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.synth.camera import Camera
from vision.synth.compose import CardSprite, Drawn

MIN_VISIBLE = 0.40
MIN_VISIBLE_WITH_INDEX = 0.10
INDEX_VISIBLE = 0.85
MIN_BOX_PX = 4
# Corner index regions in face-normalised coordinates (u right, v down): top-left and its
# point-symmetric twin, generous enough for the designs in the art cache.
INDEX_REGIONS = (((0.02, 0.02), (0.21, 0.27)), ((0.79, 0.73), (0.98, 0.98)))


@dataclass
class CardLabel:
    index: int  # position in the scene's card list
    cls: str
    identity: str
    zone: str | None
    visible: float  # visible fraction of the card's area
    index_visible: float  # best corner-index visibility (0 for a face-down card)
    labelled: bool
    box: tuple[int, int, int, int] | None  # x0, y0, x1, y1 (pixel edges, x1/y1 exclusive)
    quad: list[list[float]]  # the card's true corners in the image (distorted), TL TR BR BL of the face
    deck: str = ""  # the design the card's picture comes from (its folder in the art cache)
    style: str = ""  # the deck printed in other colours (dark, metallic, tinted), or as designed
    camera: str = ""  # a grey or strongly tinted camera saw it, or an ordinary one


def index_visibility(card: CardSprite, index: int, H: np.ndarray, ids: np.ndarray) -> float:
    best = 0.0
    h, w = ids.shape
    for (u0, v0), (u1, v1) in INDEX_REGIONS:
        pts = np.array(
            [
                card.face_point(u0, v0),
                card.face_point(u1, v0),
                card.face_point(u1, v1),
                card.face_point(u0, v1),
            ]
        )
        q = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), H).reshape(-1, 2)
        x0, y0 = max(0, int(np.floor(q[:, 0].min()))), max(0, int(np.floor(q[:, 1].min())))
        x1, y1 = min(w, int(np.ceil(q[:, 0].max())) + 1), min(h, int(np.ceil(q[:, 1].max())) + 1)
        area = float(abs(cv2.contourArea(q.astype(np.float32))))
        if x1 <= x0 or y1 <= y0 or area < 1:
            continue
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, np.round((q - [x0, y0]) * 4).astype(np.int32), 1, cv2.LINE_8, shift=2)
        inside = mask.sum()
        if inside == 0:
            continue
        seen = np.count_nonzero((ids[y0:y1, x0:x1] == index) & (mask > 0))
        best = max(best, seen / max(area, float(inside)))
    return best


def label_cards(
    cards: list[CardSprite],
    drawn: list[Drawn],
    cam: Camera,
    ids_flat: np.ndarray,
    ids_final: np.ndarray,
    camera: str = "",
) -> list[CardLabel]:
    """Apply the hidden-card rule (on the undistorted map) and take boxes from the final map."""
    H = cam.homography()
    out: list[CardLabel] = []
    h, w = ids_final.shape
    for i, (card, dr) in enumerate(zip(cards, drawn, strict=True)):
        quad = cam.distort_points(dr.quad).tolist()
        visible = 0.0
        if dr.roi is not None and dr.area > 0:
            x0, y0, x1, y1 = dr.roi
            visible = min(1.0, np.count_nonzero(ids_flat[y0:y1, x0:x1] == i) / dr.area)
        idx_vis = 0.0
        if card.face_up and MIN_VISIBLE_WITH_INDEX <= visible < MIN_VISIBLE:
            idx_vis = index_visibility(card, i, H, ids_flat)
        labelled = bool(
            visible >= MIN_VISIBLE or (visible >= MIN_VISIBLE_WITH_INDEX and idx_vis >= INDEX_VISIBLE)
        )
        box = None
        if labelled:
            box = _box(i, card, cam, ids_final, dr)
            if box is None or min(box[2] - box[0], box[3] - box[1]) < MIN_BOX_PX:
                labelled, box = False, None
        out.append(
            CardLabel(
                i,
                card.cls,
                card.identity,
                card.zone,
                round(float(visible), 4),
                round(float(idx_vis), 4),
                labelled,
                box,
                [[round(x, 2), round(y, 2)] for x, y in quad],
                Path(card.face).parent.name,
                card.style.kind if card.style is not None and card.face_up else "",
                camera,
            )
        )
    del h, w
    return out


def _box(
    i: int, card: CardSprite, cam: Camera, ids: np.ndarray, dr: Drawn
) -> tuple[int, int, int, int] | None:
    h, w = ids.shape
    if cam.k1 == 0.0 and dr.roi is not None:
        x0, y0, x1, y1 = dr.roi
    else:
        # Sample the card's edges: with lens distortion the sides bow out past the corners.
        t = np.linspace(0, 1, 9)
        q = card.corners()
        edge = np.concatenate([q[k] + np.outer(t, q[(k + 1) % 4] - q[k]) for k in range(4)])
        p = cam.project(edge)
        x0, y0 = max(0, int(np.floor(p[:, 0].min())) - 3), max(0, int(np.floor(p[:, 1].min())) - 3)
        x1, y1 = min(w, int(np.ceil(p[:, 0].max())) + 4), min(h, int(np.ceil(p[:, 1].max())) + 4)
    if x1 <= x0 or y1 <= y0:
        return None
    m = ids[y0:y1, x0:x1] == i
    rows = np.flatnonzero(m.any(axis=1))
    if len(rows) == 0:
        return None
    cols = np.flatnonzero(m.any(axis=0))
    return (int(x0 + cols[0]), int(y0 + rows[0]), int(x0 + cols[-1] + 1), int(y0 + rows[-1] + 1))


def yolo_lines(labels: list[CardLabel], width: int, height: int, class_id: dict[str, int]) -> list[str]:
    lines = []
    for lb in labels:
        if not lb.labelled or lb.box is None:
            continue
        x0, y0, x1, y1 = lb.box
        cx, cy = (x0 + x1) / 2 / width, (y0 + y1) / 2 / height
        bw, bh = (x1 - x0) / width, (y1 - y0) / height
        lines.append(f"{class_id[lb.cls]} {cx:.6f} {cy:.6f} {bw:.6f} {bh:.6f}")
    return lines
