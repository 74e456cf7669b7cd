"""The play mat of a game as printed: zone outlines, zone names and the ArUco calibration markers.

Everything is drawn from the layout in table centimetres at a chosen resolution, so a mat
printed at 100 % scale puts each marker where calibration expects it. Drawing works in *print
centimetres*: ``u`` to the right (table x), ``v`` down the page from red's edge (table height
minus table y), the way the mat reads from black's seat. Cutting the mat into paper pages is
``vision.mat_pages``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from referee import files
from referee.errors import CardrefError
from vision.layout import Layout, Marker, Zone

CM_PER_INCH = 2.54

ZONE_COLOUR = (90, 90, 90)  # BGR
LABEL_COLOUR = (60, 60, 60)  # RGB (drawn with Pillow)
LABEL_CM = 0.7  # height of a zone name's letters on the full-size mat
LABEL_MIN_CM = 0.35  # a name too long for its zone shrinks, down to this
LABEL_INSET_CM = 0.3  # from the zone's outline


def aruco_dictionary(name: str):
    """The OpenCV ArUco dictionary named in the layout (``DICT_4X4_50``)."""
    code = getattr(cv2.aruco, name, None)
    if code is None:
        raise CardrefError(f"unknown ArUco dictionary {name!r} (expected a cv2.aruco DICT_* name)")
    return cv2.aruco.getPredefinedDictionary(code)


@dataclass(frozen=True)
class Box:
    """A rectangle in print cm: ``u`` right, ``v`` down."""

    u0: float
    v0: float
    u1: float
    v1: float

    def inside(self, other: Box) -> bool:
        return other.u0 <= self.u0 and self.u1 <= other.u1 and other.v0 <= self.v0 and self.v1 <= other.v1

    def shifted(self, du: float, dv: float) -> Box:
        return Box(self.u0 + du, self.v0 + dv, self.u1 + du, self.v1 + dv)


def zone_box(layout: Layout, zone: Zone) -> Box:
    """A zone's rectangle in print cm."""
    x0, y0, x1, y1 = zone.rect
    h = layout.table_size[1]
    return Box(x0, h - y1, x1, h - y0)


def marker_box(layout: Layout, marker: Marker) -> Box:
    """A marker's printed square in print cm."""
    (cx, cy), half, h = marker.center, marker.size_cm / 2, layout.table_size[1]
    return Box(cx - half, h - cy - half, cx + half, h - cy + half)


def mat_box(layout: Layout) -> Box:
    w, h = layout.table_size
    return Box(0.0, 0.0, w, h)


def draw_mat(
    layout: Layout,
    px_per_cm: float,
    labels: bool = True,
    window: Box | None = None,
) -> np.ndarray:
    """The mat as a BGR image, ``px_per_cm`` pixels per table centimetre, as read from black's
    seat: table x to the right, table y up the page (the bottom row is black's edge). Printed
    face up, it lies on the table the way the layout describes it.

    ``window`` (print cm, default the whole mat) draws only that part; what lies outside the
    mat is white paper. ``labels`` puts each zone's name in its lower-left corner."""
    window = window or mat_box(layout)
    width = round((window.u1 - window.u0) * px_per_cm)
    height = round((window.v1 - window.v0) * px_per_cm)
    mat = np.full((height, width, 3), 255, np.uint8)
    left, top = round(window.u0 * px_per_cm), round(window.v0 * px_per_cm)

    def px(u: float, v: float) -> tuple[int, int]:
        """Pixels of the whole mat, less the window's corner: every window is an exact crop."""
        return round(u * px_per_cm) - left, round(v * px_per_cm) - top

    thick = max(1, round(0.12 * px_per_cm))
    for zone in layout.table_zones:
        if zone.kind == "across":
            continue  # drawn by the zone it lies over
        b = zone_box(layout, zone)
        cv2.rectangle(mat, px(b.u0, b.v0), px(b.u1, b.v1), ZONE_COLOUR, thick, cv2.LINE_AA)
    dictionary = aruco_dictionary(layout.marker_dictionary)
    h_cm = layout.table_size[1]
    for m in layout.markers:
        side = round(m.size_cm * px_per_cm)
        img = cv2.aruco.generateImageMarker(dictionary, m.id, side)
        x0, y0 = px(m.center[0] - m.size_cm / 2, h_cm - m.center[1] - m.size_cm / 2)
        _paste(mat, img, x0, y0)
    if labels:
        image = Image.fromarray(mat)
        for zone in layout.table_zones:
            if zone.kind != "across":
                draw_label(image, label_at(layout, zone), window, px_per_cm)
        mat = np.asarray(image).copy()
    return mat


def _paste(canvas: np.ndarray, gray: np.ndarray, x0: int, y0: int) -> None:
    """Paste a grey image at (x0, y0), clipped to the canvas."""
    h, w = canvas.shape[:2]
    gx0, gy0 = max(0, -x0), max(0, -y0)
    cx0, cy0 = max(0, x0), max(0, y0)
    cx1, cy1 = min(w, x0 + gray.shape[1]), min(h, y0 + gray.shape[0])
    if cx1 > cx0 and cy1 > cy0:
        canvas[cy0:cy1, cx0:cx1] = gray[gy0 : gy0 + cy1 - cy0, gx0 : gx0 + cx1 - cx0, None]


@lru_cache(maxsize=64)
def font(size_px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's own scalable font, so printing needs no font installed on the machine."""
    return ImageFont.load_default(size=max(4, size_px))


_REFERENCE_PX = 200


def text_size_cm(text: str, height_cm: float) -> tuple[float, float]:
    """Width and height (cm) of ``text`` whose letters are ``height_cm`` tall."""
    x0, y0, x1, y1 = font(_REFERENCE_PX).getbbox(text, anchor="lt")
    return (x1 - x0) / _REFERENCE_PX * height_cm, (y1 - y0) / _REFERENCE_PX * height_cm


@dataclass(frozen=True)
class Label:
    """A zone's name placed on the mat: its text, letter height and box (print cm)."""

    zone: str
    text: str
    height_cm: float
    box: Box


def zone_text(zone: Zone) -> str:
    return zone.id.replace("_", " ")


def label_size(zone_b: Box, text: str, height_cm: float = LABEL_CM) -> float:
    """The letter height that fits ``text`` inside the zone's width (never below the minimum)."""
    w, _ = text_size_cm(text, height_cm)
    room = zone_b.u1 - zone_b.u0 - 2 * LABEL_INSET_CM
    return max(LABEL_MIN_CM, min(height_cm, height_cm * room / w)) if w > 0 else height_cm


def label_places(
    layout: Layout, zone: Zone, height_cm: float = LABEL_CM, within: Box | None = None
) -> list[Label]:
    """Where a zone's name may go, best first: the lower-left inside corner, then sliding right
    along the bottom, then the same along the top. ``within`` keeps only places inside it."""
    zb = zone_box(layout, zone)
    text = zone_text(zone)
    size = label_size(zb, text, height_cm)
    w, h = text_size_cm(text, size)
    places = []
    for v0 in (zb.v1 - LABEL_INSET_CM - h, zb.v0 + LABEL_INSET_CM):
        u, last = zb.u0 + LABEL_INSET_CM, max(zb.u0 + LABEL_INSET_CM, zb.u1 - LABEL_INSET_CM - w)
        while u <= last + 1e-9:
            places.append(Label(zone.id, text, size, Box(u, v0, u + w, v0 + h)))
            u += 0.25
    if within is not None:
        places = [p for p in places if p.box.inside(within)]
    return places


def label_at(layout: Layout, zone: Zone, height_cm: float = LABEL_CM) -> Label:
    """A zone's name in its usual place (lower-left inside corner)."""
    return label_places(layout, zone, height_cm)[0]


def draw_label(image: Image.Image, label: Label, window: Box, px_per_cm: float, colour=LABEL_COLOUR) -> None:
    """Draw a placed label on an image showing ``window`` (print cm) at ``px_per_cm``."""
    x = (label.box.u0 - window.u0) * px_per_cm
    y = (label.box.v0 - window.v0) * px_per_cm
    ImageDraw.Draw(image).text(
        (x, y), label.text, fill=colour, font=font(round(label.height_cm * px_per_cm)), anchor="lt"
    )


def write_mat(
    layout: Layout,
    out: str | Path,
    dpi: int = 150,
    paper: str | None = None,
    one_page: bool = False,
):
    """Write the mat: a PNG or PDF at real size on one sheet, or a PDF cut into ``paper``
    pages (or scaled onto one page with ``one_page``). Returns the ``vision.mat_pages``
    plan of what was written, or None for a single real-size sheet."""
    from vision import mat_pages

    out = Path(out)
    suffix = out.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise CardrefError(f"{out}: expected a .png or .pdf file name")
    if paper is not None and paper not in mat_pages.PAPERS_CM:
        raise CardrefError(f"--paper: expected one of {', '.join(mat_pages.PAPERS_CM)}, got {paper!r}")
    if (paper is not None or one_page) and suffix != ".pdf":
        what = "one page" if one_page else f"{paper} paper"
        raise CardrefError(f"{out}: printing on {what} needs a .pdf file name")
    px_per_cm = dpi / CM_PER_INCH
    files.ensure_dir(out.parent, "mat")
    if one_page:
        return mat_pages.write_one_page(layout, out, paper or "a4", dpi)
    if paper is not None:
        return mat_pages.write_pages(layout, out, paper, dpi)
    rgb = Image.fromarray(draw_mat(layout, px_per_cm)[..., ::-1])
    with files.replacing(out) as tmp:
        if suffix == ".png":
            rgb.save(tmp, "PNG", dpi=(dpi, dpi))
        else:
            rgb.save(tmp, "PDF", resolution=dpi, quality=95)
    return None
