"""The printable play mat of a game: zone outlines, labels and the ArUco calibration markers.

Everything is drawn from the layout in table centimetres at a chosen resolution, so a mat
printed at 100 % scale puts each marker where calibration expects it. A large mat is cut
into numbered paper-sized tiles with overlap marks (``--paper a4``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from referee import files
from referee.errors import CardrefError
from vision.layout import Layout

CM_PER_INCH = 2.54
PAPERS_CM = {"a4": (21.0, 29.7), "letter": (21.59, 27.94)}
PRINT_MARGIN_CM = 1.0  # printers leave an unprinted border; tiles overlap by it

ZONE_COLOUR = (90, 90, 90)  # BGR
LABEL_COLOUR = (60, 60, 60)


def aruco_dictionary(name: str):
    """The OpenCV ArUco dictionary named in the layout (``DICT_4X4_50``)."""
    code = getattr(cv2.aruco, name, None)
    if code is None:
        raise CardrefError(f"unknown ArUco dictionary {name!r} (expected a cv2.aruco DICT_* name)")
    return cv2.aruco.getPredefinedDictionary(code)


def draw_mat(layout: Layout, px_per_cm: float, labels: bool = True) -> np.ndarray:
    """The whole mat as a BGR image, ``px_per_cm`` pixels per table centimetre, as read from
    black's seat: table x to the right, table y up the page (the bottom row is black's edge).
    Printed face up, it lies on the table the way the layout describes it."""
    w_cm, h_cm = layout.table_size
    width, height = round(w_cm * px_per_cm), round(h_cm * px_per_cm)
    mat = np.full((height, width, 3), 255, np.uint8)
    thick = max(1, round(0.12 * px_per_cm))
    for zone in layout.table_zones:
        if zone.kind == "across":
            continue  # drawn by the zone it lies over
        x0, y0, x1, y1 = zone.rect
        top_left = round(x0 * px_per_cm), round((h_cm - y1) * px_per_cm)
        bottom_right = round(x1 * px_per_cm), round((h_cm - y0) * px_per_cm)
        cv2.rectangle(mat, top_left, bottom_right, ZONE_COLOUR, thick, cv2.LINE_AA)
        if labels:
            _label(mat, zone.id, (top_left[0], bottom_right[1]), px_per_cm)
    dictionary = aruco_dictionary(layout.marker_dictionary)
    for m in layout.markers:
        side = round(m.size_cm * px_per_cm)
        img = cv2.aruco.generateImageMarker(dictionary, m.id, side)
        x0 = round((m.center[0] - m.size_cm / 2) * px_per_cm)
        y0 = round((h_cm - m.center[1] - m.size_cm / 2) * px_per_cm)
        mat[y0 : y0 + side, x0 : x0 + side] = img[..., None]
    return mat


def _label(mat: np.ndarray, text: str, corner: tuple[int, int], px_per_cm: float) -> None:
    """A small zone name just inside the zone's lower-left corner."""
    scale = 0.028 * px_per_cm
    x, y = corner[0] + round(0.3 * px_per_cm), corner[1] - round(0.3 * px_per_cm)
    cv2.putText(
        mat,
        text.replace("_", " "),
        (x, y),
        cv2.FONT_HERSHEY_SIMPLEX,
        scale,
        LABEL_COLOUR,
        max(1, round(scale * 1.5)),
        cv2.LINE_AA,
    )


@dataclass(frozen=True)
class Tile:
    """One printed page: its place on the mat (cm) and its grid position."""

    row: int
    col: int
    x0: float
    y0: float


def tiles(layout: Layout, paper: str) -> tuple[list[Tile], tuple[float, float]]:
    """Pages covering the mat, each ``paper`` size less the margin; portrait or landscape,
    whichever needs fewer pages."""
    pw, ph = PAPERS_CM[paper]
    w_cm, h_cm = layout.table_size
    best = None
    for aw, ah in ((pw, ph), (ph, pw)):
        uw, uh = aw - 2 * PRINT_MARGIN_CM, ah - 2 * PRINT_MARGIN_CM
        cols, rows = math.ceil(w_cm / uw), math.ceil(h_cm / uh)
        if best is None or cols * rows < best[0]:
            best = (cols * rows, cols, rows, uw, uh, (aw, ah))
    _, cols, rows, uw, uh, page = best
    return [Tile(r, c, c * uw, r * uh) for r in range(rows) for c in range(cols)], page


def write_mat(layout: Layout, out: str | Path, dpi: int = 150, paper: str | None = None) -> Path:
    """Write the mat as PNG (one image, ``dpi`` recorded) or PDF (real size; tiled on
    ``paper`` when given). Returns the path written."""
    out = Path(out)
    suffix = out.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise CardrefError(f"{out}: expected a .png or .pdf file name")
    if paper is not None and paper not in PAPERS_CM:
        raise CardrefError(f"--paper: expected one of {', '.join(PAPERS_CM)}, got {paper!r}")
    if paper is not None and suffix != ".pdf":
        raise CardrefError(f"{out}: tiling on {paper} paper needs a .pdf file name")
    px_per_cm = dpi / CM_PER_INCH
    mat = draw_mat(layout, px_per_cm)
    rgb = Image.fromarray(mat[..., ::-1])
    if paper is None:
        with files.replacing(out) as tmp:
            rgb.save(tmp, "PNG", dpi=(dpi, dpi)) if suffix == ".png" else rgb.save(tmp, "PDF", resolution=dpi)
        return out
    pages = []
    tile_list, (page_w, page_h) = tiles(layout, paper)
    for t in tile_list:
        page = Image.new("RGB", (round(page_w * px_per_cm), round(page_h * px_per_cm)), "white")
        m = round(PRINT_MARGIN_CM * px_per_cm)
        box = (
            round(t.x0 * px_per_cm),
            round(t.y0 * px_per_cm),
            round((t.x0 + page_w - 2 * PRINT_MARGIN_CM) * px_per_cm),
            round((t.y0 + page_h - 2 * PRINT_MARGIN_CM) * px_per_cm),
        )
        page.paste(rgb.crop(box), (m, m))
        arr = np.array(page)
        cv2.putText(
            arr,
            f"{layout.name} row {t.row + 1} col {t.col + 1}  (print at 100 %)",
            (m, max(12, m - 8)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.4 * px_per_cm / 20,
            (0, 0, 0),
            1,
            cv2.LINE_AA,
        )
        pages.append(Image.fromarray(arr))
    with files.replacing(out) as tmp:
        pages[0].save(tmp, "PDF", resolution=dpi, save_all=True, append_images=pages[1:])
    return out
