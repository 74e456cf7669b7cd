"""The printed play mat seen through a camera: felt over the layout's rectangle, zone outlines
in ink and the calibration markers on white paper squares, as ``cardref mat`` prints them.

Drawn under the cards of game videos (``video_stage``) and of the still images' layout scenes
(recipe option ``printed_mat``), so a detector trained on them meets the mat's markers and
outlines as things that are not cards.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.layout import Layout
from vision.mat import draw_mat
from vision.synth.compose import draw_surface
from vision.synth.textures import Surface


def felt_over_layout(table: np.ndarray, cloth: Surface, layout: Layout, H: np.ndarray) -> np.ndarray:
    """``table`` (float RGB) with the felt ``cloth`` over the layout's rectangle."""
    h, w = table.shape[:2]
    felt = draw_surface(cloth, H, w, h)
    tw, th = layout.table_size
    corners = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float64).reshape(-1, 1, 2)
    q = cv2.perspectiveTransform(corners, H).reshape(-1, 2)
    mask = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(mask, np.round(q * 4).astype(np.int32), 255, cv2.LINE_AA, shift=2)
    m = cv2.GaussianBlur(mask, (0, 0), 1.0).astype(np.float32)[..., None] / 255
    return table * (1 - m) + felt * m


def print_mat(img: np.ndarray, layout: Layout, H: np.ndarray, px_per_cm: float) -> np.ndarray:
    """The mat's ink and marker papers on ``img`` (float RGB), drawn at about the image's own
    resolution (``px_per_cm`` near the layout) and warped by ``H`` (table cm to pixels)."""
    h, w = img.shape[:2]
    ppc = max(4.0, min(12.0, 2 * px_per_cm))
    ink = cv2.cvtColor(draw_mat(layout, ppc, labels=False), cv2.COLOR_BGR2GRAY)
    paper = np.zeros_like(ink)
    th = layout.table_size[1]
    for m in layout.markers:  # 1 cm of white around each marker, as printed
        x0, y0 = (m.center[0] - m.size_cm / 2 - 1) * ppc, (th - m.center[1] - m.size_cm / 2 - 1) * ppc
        side = (m.size_cm + 2) * ppc
        cv2.rectangle(paper, (round(x0), round(y0)), (round(x0 + side), round(y0 + side)), 255, -1)
    to_table = np.array([[1 / ppc, 0, 0], [0, -1 / ppc, th], [0, 0, 1]])  # mat rows run down the page
    warp = H @ to_table
    ink_v = cv2.warpPerspective(ink, warp, (w, h), flags=cv2.INTER_AREA, borderValue=255)
    paper_v = cv2.warpPerspective(paper, warp, (w, h), flags=cv2.INTER_LINEAR, borderValue=0)
    a = paper_v.astype(np.float32)[..., None] / 255
    img = img * (1 - a) + 235.0 * a
    return img * (0.25 + 0.75 * ink_v.astype(np.float32)[..., None] / 255)
