"""The play mat cut into paper pages that a home printer prints and a person tapes together.

Each page shows a window of the mat. Neighbouring windows overlap by ``OVERLAP_CM``: a page
is cut on its dashed line (the middle of the overlap) and laid over the page to its left and
the page above, its half-crosses meeting theirs. A band at the foot of every page says which
page it is and where it goes, and carries a 10 cm bar to check that the printer printed at
100 %. The band and the margins are hidden under the next page once assembled (the last row's
band hangs below the mat: cut it off). Zone names are placed so that no cut splits them.

``write_one_page`` is the other choice: the whole mat scaled onto one sheet with its scale and
a 10 cm grid, for players who draw the zones on their table themselves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from referee import files
from vision.layout import Layout
from vision.mat import (
    CM_PER_INCH,
    LABEL_CM,
    LABEL_MIN_CM,
    Box,
    Label,
    draw_label,
    draw_mat,
    font,
    label_places,
    marker_box,
    mat_box,
    text_size_cm,
    zone_box,
)

PAPERS_CM = {"a4": (21.0, 29.7), "letter": (21.59, 27.94)}
PRINT_MARGIN_CM = 0.6  # most printers leave 3 to 5 mm unprinted at each edge
BAND_CM = 1.5  # the page's own strip at its foot: page number, assembly hint, scale bar
OVERLAP_CM = 1.0  # mat shown on both neighbouring pages
SCALE_BAR_CM = 10.0
LABEL_CLEARANCE_CM = 0.2  # a zone name keeps this far from a cut line

INK = (0, 0, 0)
MARK = (110, 110, 110)
MAT_EDGE = (190, 190, 190)


@dataclass(frozen=True)
class Tile:
    """One page of the cut mat: its number (from 1), grid place (from 0) and the window of
    the mat it shows (print cm)."""

    number: int
    row: int
    col: int
    window: Box


@dataclass(frozen=True)
class PagePlan:
    """How the mat is cut: the paper, its orientation and the grid of overlapping windows."""

    layout_name: str
    paper: str
    landscape: bool
    page_cm: tuple[float, float]
    window_cm: tuple[float, float]
    cols: int
    rows: int
    mat_cm: tuple[float, float]
    origin_cm: tuple[float, float] = (0.0, 0.0)  # print cm of the first window's corner (<= 0)

    @property
    def pages(self) -> int:
        return self.cols * self.rows

    @property
    def step_cm(self) -> tuple[float, float]:
        return self.window_cm[0] - OVERLAP_CM, self.window_cm[1] - OVERLAP_CM

    @property
    def tiles(self) -> list[Tile]:
        (ww, wh), (su, sv), (ou, ov) = self.window_cm, self.step_cm, self.origin_cm
        return [
            Tile(
                r * self.cols + c + 1, r, c, Box(ou + c * su, ov + r * sv, ou + c * su + ww, ov + r * sv + wh)
            )
            for r in range(self.rows)
            for c in range(self.cols)
        ]

    @property
    def cuts_u(self) -> list[float]:
        """Print-cm positions of the vertical cut lines (between columns)."""
        return _seams(self.origin_cm[0], self.step_cm[0], self.cols)

    @property
    def cuts_v(self) -> list[float]:
        """Print-cm positions of the horizontal cut lines (between rows)."""
        return _seams(self.origin_cm[1], self.step_cm[1], self.rows)

    def kept(self, tile: Tile) -> Box:
        """The part of a tile's window still seen once the mat is assembled."""
        inf = math.inf
        w = tile.window
        return Box(
            w.u0 + OVERLAP_CM / 2 if tile.col > 0 else -inf,
            w.v0 + OVERLAP_CM / 2 if tile.row > 0 else -inf,
            w.u1 - OVERLAP_CM / 2 if tile.col < self.cols - 1 else inf,
            w.v1 - OVERLAP_CM / 2 if tile.row < self.rows - 1 else inf,
        )

    def where(self, tile: Tile) -> str:
        return f"page {tile.number} of {self.pages}: row {tile.row + 1}, column {tile.col + 1}"

    def describe(self) -> list[str]:
        """What the command prints: page count, orientation and the assembly order."""
        orient = "landscape" if self.landscape else "portrait"
        width = len(str(self.pages))
        lines = [
            f"{self.pages} pages of {self.paper.upper()} {orient}, {self.rows} rows of {self.cols} "
            "(rows from the far edge, columns from the left, seen from the seat at the mat's foot):"
        ]
        for r in range(self.rows):
            numbers = " ".join(str(r * self.cols + c + 1).rjust(width) for c in range(self.cols))
            lines.append(f"  row {r + 1}: pages {numbers}")
        lines += [
            f"Print at 100 % (not 'fit to page'): the bar at the foot of each page must measure "
            f"{SCALE_BAR_CM:g} cm.",
            "Cut each page on its dashed lines and lay it over the page to its left and the page "
            "above, so the half-crosses meet.",
        ]
        return lines


def pages_for(length: float, window: float) -> int:
    """Windows of ``window`` cm, overlapping by OVERLAP_CM, needed to cover ``length`` cm."""
    if length <= window + 1e-9:
        return 1
    return math.ceil((length - window) / (window - OVERLAP_CM) - 1e-9) + 1


def _seams(origin: float, step: float, n: int) -> list[float]:
    return [origin + i * step + OVERLAP_CM / 2 for i in range(1, n)]


def _origin(
    n: int, window: float, markers: list[tuple[float, float]], zones: list[tuple[float, float]], length: float
) -> float:
    """Where the first of ``n`` windows starts (<= 0, print cm) along one axis. The seams
    between pages should miss the markers (a marker cut in two calibrates badly), then run
    clear of the zones' outlines along this axis (an outline on a cut edge is lost), then
    cross as few zones as possible; the spare paper is left evenly on both sides."""
    spare = n * window - (n - 1) * OVERLAP_CM - length
    if n == 1 or spare <= 0:
        return -max(spare, 0.0) / 2
    near = OVERLAP_CM / 2 + 0.3
    best = None
    for i in range(int(spare * 10) + 1):
        origin = -i / 10
        seams = _seams(origin, window - OVERLAP_CM, n)
        cost = sum(
            1000 * (a - near < s < b + near) + 10 * (abs(s - a) < near or abs(s - b) < near) + (a < s < b)
            for s in seams
            for a, b in markers
        ) + sum(10 * (abs(s - a) < near or abs(s - b) < near) + (a < s < b) for s in seams for a, b in zones)
        key = (cost, abs(origin + spare / 2))
        if best is None or key < best[0]:
            best = (key, origin)
    return best[1]


def printable(paper: str, landscape: bool) -> tuple[tuple[float, float], tuple[float, float]]:
    pw, ph = PAPERS_CM[paper]
    if landscape:
        pw, ph = ph, pw
    return (pw, ph), (pw - 2 * PRINT_MARGIN_CM, ph - 2 * PRINT_MARGIN_CM - BAND_CM)


def plan_pages(layout: Layout, paper: str) -> PagePlan:
    """The fewest pages of ``paper`` that cover the mat, portrait or landscape (portrait on a tie)."""
    w, h = layout.table_size
    plans = []
    for landscape in (False, True):
        page, (ww, wh) = printable(paper, landscape)
        plans.append(
            PagePlan(
                layout.name, paper, landscape, page, (ww, wh), pages_for(w, ww), pages_for(h, wh), (w, h)
            )
        )
    plan = min(plans, key=lambda p: p.pages)
    zones = [zone_box(layout, z) for z in layout.table_zones]
    markers = [marker_box(layout, m) for m in layout.markers]
    origin = (
        _origin(
            plan.cols, plan.window_cm[0], [(b.u0, b.u1) for b in markers], [(b.u0, b.u1) for b in zones], w
        ),
        _origin(
            plan.rows, plan.window_cm[1], [(b.v0, b.v1) for b in markers], [(b.v0, b.v1) for b in zones], h
        ),
    )
    return replace(plan, origin_cm=origin)


def page_labels(layout: Layout, plan: PagePlan) -> dict[int, list[Label]]:
    """The zone names each page prints. A name goes where no cut line crosses it, so it is
    whole on the page it is seen on; a zone too small for that gets its name on each page
    that shows part of it."""
    out: dict[int, list[Label]] = {t.number: [] for t in plan.tiles}
    cuts_u, cuts_v, clr = plan.cuts_u, plan.cuts_v, LABEL_CLEARANCE_CM

    def uncut(b: Box) -> bool:
        return not any(b.u0 - clr < c < b.u1 + clr for c in cuts_u) and not any(
            b.v0 - clr < c < b.v1 + clr for c in cuts_v
        )

    for zone in layout.table_zones:
        if zone.kind == "across":
            continue
        whole = [p for p in label_places(layout, zone) if uncut(p.box)]
        for tile in plan.tiles:
            if whole:
                if whole[0].box.inside(tile.window):
                    out[tile.number].append(whole[0])
                continue
            k = plan.kept(tile)
            seen = zone_box(layout, zone)
            inner = Box(max(k.u0, seen.u0), max(k.v0, seen.v0), min(k.u1, seen.u1), min(k.v1, seen.v1))
            inner = Box(inner.u0 + clr, inner.v0 + clr, inner.u1 - clr, inner.v1 - clr)
            # smaller letters if need be, half a millimetre at a time
            for half_mm in range(round(LABEL_CM * 20), round(LABEL_MIN_CM * 20) - 1, -1):
                fits = label_places(layout, zone, half_mm / 20, within=inner)
                if fits:
                    out[tile.number].append(fits[0])
                    break
    return out


def _px(cm: float, ppc: float) -> int:
    return round(cm * ppc)


def render_pages(layout: Layout, plan: PagePlan, dpi: int) -> list[Image.Image]:
    """Every page of the plan as an RGB image at ``dpi``."""
    ppc = dpi / CM_PER_INCH
    labels = page_labels(layout, plan)
    return [_render_tile(layout, plan, t, labels[t.number], ppc) for t in plan.tiles]


def _render_tile(layout: Layout, plan: PagePlan, tile: Tile, labels: list[Label], ppc: float) -> Image.Image:
    pw, ph = plan.page_cm
    page = Image.new("RGB", (_px(pw, ppc), _px(ph, ppc)), "white")
    m = PRINT_MARGIN_CM
    win = tile.window
    view = Image.fromarray(np.ascontiguousarray(draw_mat(layout, ppc, labels=False, window=win)[..., ::-1]))
    for label in labels:
        draw_label(view, label, win, ppc)
    page.paste(view, (_px(m, ppc), _px(m, ppc)))
    draw = ImageDraw.Draw(page)

    def at(u: float, v: float) -> tuple[float, float]:
        """Page pixels of a print-cm point of the mat."""
        return (m + u - win.u0) * ppc, (m + v - win.v0) * ppc

    # the mat's own edge, where the window runs past it (white beyond)
    mw, mh = plan.mat_cm
    x0, y0 = at(max(0.0, win.u0), max(0.0, win.v0))
    x1, y1 = at(min(mw, win.u1), min(mh, win.v1))
    width = max(1, _px(0.03, ppc))
    if x1 > x0 and y1 > y0:
        for edge, beyond in (
            ([(x0, y0), (x0, y1)], win.u0 < 0),
            ([(x1, y0), (x1, y1)], win.u1 > mw),
            ([(x0, y0), (x1, y0)], win.v0 < 0),
            ([(x0, y1), (x1, y1)], win.v1 > mh),
        ):
            if beyond:
                draw.line(edge, fill=MAT_EDGE, width=width)
    markers = [marker_box(layout, mk) for mk in layout.markers]
    _draw_seams(draw, plan, tile, at, ppc, markers)
    _draw_band(page, plan, tile, ppc)
    return page


def _draw_seams(
    draw: ImageDraw.ImageDraw, plan: PagePlan, tile: Tile, at, ppc: float, markers: list[Box]
) -> None:
    """Cut lines where this page is laid over its neighbours, and alignment crosses on every
    seam it shares (the same crosses, at the same place of the mat, on both pages)."""
    win, (pw, ph) = tile.window, plan.page_cm
    dash, width = 0.4 * ppc, max(1, _px(0.03, ppc))
    m = PRINT_MARGIN_CM * ppc
    if tile.col > 0:  # cut on the left, across the whole printed height
        x, _ = at(plan.cuts_u[tile.col - 1], 0.0)
        _dashed(draw, (x, m), (x, ph * ppc - m), dash, width)
    if tile.row > 0:
        _, y = at(0.0, plan.cuts_v[tile.row - 1])
        _dashed(draw, (m, y), (pw * ppc - m, y), dash, width)
    seams_u = [plan.cuts_u[c] for c in (tile.col - 1, tile.col) if 0 <= c < plan.cols - 1]
    seams_v = [plan.cuts_v[r] for r in (tile.row - 1, tile.row) if 0 <= r < plan.rows - 1]
    arm = 0.4
    crosses = [(u, win.v0 + (win.v1 - win.v0) * k / 4) for u in seams_u for k in (1, 2, 3)]
    crosses += [(win.u0 + (win.u1 - win.u0) * k / 4, v) for v in seams_v for k in (1, 2, 3)]
    for u, v in crosses:
        if not any(b.u0 - arm < u < b.u1 + arm and b.v0 - arm < v < b.v1 + arm for b in markers):
            _cross(draw, at(u, v), arm * ppc, width)


def _dashed(draw: ImageDraw.ImageDraw, a, b, dash: float, width: int) -> None:
    (x0, y0), (x1, y1) = a, b
    length = math.hypot(x1 - x0, y1 - y0)
    n = int(length // dash)
    for i in range(0, n, 2):
        t0, t1 = i * dash / length, min(1.0, (i + 1) * dash / length)
        draw.line(
            [(x0 + (x1 - x0) * t0, y0 + (y1 - y0) * t0), (x0 + (x1 - x0) * t1, y0 + (y1 - y0) * t1)],
            fill=INK,
            width=width,
        )


def _cross(draw: ImageDraw.ImageDraw, centre, arm: float, width: int) -> None:
    x, y = centre
    draw.line([(x - arm, y), (x + arm, y)], fill=MARK, width=width)
    draw.line([(x, y - arm), (x, y + arm)], fill=MARK, width=width)
    r = arm / 2
    draw.ellipse([(x - r, y - r), (x + r, y + r)], outline=MARK, width=width)


def draw_scale_bar(draw: ImageDraw.ImageDraw, left: float, top: float, ppc: float, caption: str) -> None:
    """A 10 cm bar of alternating black and white centimetres, outlined, with its caption
    above. ``left``/``top`` in page cm."""
    h = 0.25
    x0, y0, y1 = left * ppc, (top + 0.45) * ppc, (top + 0.45 + h) * ppc
    for i in range(int(SCALE_BAR_CM)):
        if i % 2 == 0:
            draw.rectangle([(x0 + i * ppc, y0), (x0 + (i + 1) * ppc, y1)], fill=INK)
    draw.rectangle([(x0, y0), (x0 + SCALE_BAR_CM * ppc, y1)], outline=INK, width=1)
    draw.text((x0, top * ppc), caption, fill=INK, font=font(_px(0.3, ppc)), anchor="lt")


def _draw_band(page: Image.Image, plan: PagePlan, tile: Tile, ppc: float) -> None:
    """The page's foot: where it goes, how to print and assemble it, and the scale bar."""
    draw = ImageDraw.Draw(page)
    m, (ww, wh) = PRINT_MARGIN_CM, plan.window_cm
    top = m + wh + 0.15
    left = m + (OVERLAP_CM if tile.col > 0 else 0.1)  # right of the part cut away
    draw.text((left * ppc, top * ppc), plan.where(tile), fill=INK, font=font(_px(0.42, ppc)), anchor="lt")
    hint = f"{plan.layout_name} play mat, {plan.rows} rows of {plan.cols} pages"
    draw.text((left * ppc, (top + 0.6) * ppc), hint, fill=INK, font=font(_px(0.28, ppc)), anchor="lt")
    hint = "cut on dashed lines; lay over left and upper pages"
    draw.text((left * ppc, (top + 0.95) * ppc), hint, fill=INK, font=font(_px(0.28, ppc)), anchor="lt")
    bar_left = m + ww - SCALE_BAR_CM - 0.2
    draw_scale_bar(draw, bar_left, top, ppc, "10 cm at 100 %: measure it")


def _save_pdf(pages: list[Image.Image], out: Path, dpi: int) -> None:
    with files.replacing(out) as tmp:  # whole or not at all
        pages[0].save(
            tmp, "PDF", resolution=dpi, save_all=True, append_images=pages[1:], quality=92, subsampling=0
        )


def write_pages(layout: Layout, out: Path, paper: str, dpi: int) -> PagePlan:
    """Write the cut mat as a PDF of ``paper`` pages; returns the plan (to tell the user)."""
    plan = plan_pages(layout, paper)
    _save_pdf(render_pages(layout, plan, dpi), out, dpi)
    return plan


@dataclass(frozen=True)
class OnePage:
    """The mat scaled onto one page: ``scale`` table cm per printed cm."""

    layout_name: str
    paper: str
    landscape: bool
    scale: float
    mat_cm: tuple[float, float]

    pages = 1

    def describe(self) -> list[str]:
        orient = "landscape" if self.landscape else "portrait"
        return [
            f"1 page of {self.paper.upper()} {orient}, the mat at 1:{self.scale:.1f} "
            f"(1 cm on the page is {self.scale:.1f} cm on the table; grid every 10 cm).",
            f"Print at 100 % (the bar at the foot must measure {SCALE_BAR_CM:g} cm) and draw the zones "
            "on the table at full size.",
            "Its markers are not to size: calibrate from the table's corners "
            "(cardref calibrate GAME --corners or --click) or the start cards (--cards).",
        ]


def one_page_plan(layout: Layout, paper: str) -> tuple[OnePage, tuple[float, float], tuple[float, float]]:
    """The orientation that prints the mat largest; also the page and the window size (cm)."""
    w, h = layout.table_size
    best = None
    for landscape in (False, True):
        page, (ww, wh) = printable(paper, landscape)
        scale = max(w / ww, h / wh)
        if best is None or scale < best[0].scale - 1e-9:
            best = (OnePage(layout.name, paper, landscape, scale, (w, h)), page, (ww, wh))
    return best


def render_one_page(layout: Layout, paper: str, dpi: int) -> tuple[OnePage, Image.Image]:
    plan, (pw, ph), (ww, wh) = one_page_plan(layout, paper)
    ppc = dpi / CM_PER_INCH
    mat_ppc = ppc / plan.scale  # pixels per table cm
    page = Image.new("RGB", (_px(pw, ppc), _px(ph, ppc)), "white")
    view = Image.fromarray(np.ascontiguousarray(draw_mat(layout, mat_ppc, labels=False)[..., ::-1]))
    draw = ImageDraw.Draw(view)
    w, h = layout.table_size
    small = 0.25 * plan.scale  # letters 2.5 mm tall on paper, in table cm
    for u in range(10, int(w), 10):
        draw.line([(u * mat_ppc, 0), (u * mat_ppc, h * mat_ppc)], fill=MAT_EDGE, width=1)
        draw.text((u * mat_ppc + 2, 2), str(u), fill=MARK, font=font(round(small * mat_ppc)), anchor="lt")
    for v in range(10, int(h), 10):
        draw.line([(0, v * mat_ppc), (w * mat_ppc, v * mat_ppc)], fill=MAT_EDGE, width=1)
        draw.text(
            (2, v * mat_ppc + 2), str(int(h - v)), fill=MARK, font=font(round(small * mat_ppc)), anchor="lt"
        )
    draw.rectangle([(0, 0), (w * mat_ppc - 1, h * mat_ppc - 1)], outline=MARK, width=1)
    for zone in layout.table_zones:
        if zone.kind != "across":
            zb = zone_box(layout, zone)
            text = f"{zone.id.replace('_', ' ')} {zone.size[0]:g}x{zone.size[1]:g}"
            tw, th = text_size_cm(text, small)
            size = small * min(1.0, (zb.u1 - zb.u0 - 0.2 * plan.scale) / tw)
            place = Label(
                zone.id, text, size, Box(zb.u0 + 0.1 * plan.scale, zb.v1 - size * 1.4, zb.u1, zb.v1)
            )
            draw_label(view, place, mat_box(layout), mat_ppc)
    m = PRINT_MARGIN_CM
    page.paste(view, (_px(m, ppc), _px(m, ppc)))
    pdraw = ImageDraw.Draw(page)
    top = m + wh + 0.15
    pdraw.text(
        (m * ppc, top * ppc),
        f"{layout.name} play mat, {w:g} x {h:g} cm, at 1:{plan.scale:.1f}",
        fill=INK,
        font=font(_px(0.42, ppc)),
        anchor="lt",
    )
    note = f"1 cm here = {plan.scale:.1f} cm on the table; grid every 10 cm; zone sizes in cm"
    pdraw.text((m * ppc, (top + 0.6) * ppc), note, fill=INK, font=font(_px(0.26, ppc)), anchor="lt")
    pdraw.text(
        (m * ppc, (top + 0.95) * ppc),
        "draw the zones on the table at full size",
        fill=INK,
        font=font(_px(0.26, ppc)),
        anchor="lt",
    )
    draw_scale_bar(pdraw, m + ww - SCALE_BAR_CM - 0.2, top, ppc, "10 cm at 100 %: measure it")
    return plan, page


def write_one_page(layout: Layout, out: Path, paper: str, dpi: int) -> OnePage:
    plan, page = render_one_page(layout, paper, dpi)
    _save_pdf([page], out, dpi)
    return plan
