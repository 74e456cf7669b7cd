"""``cardref mat --paper``/``--one-page`` checked as a person printing it would: the PDF rendered
to pixels (PDFium), its pages counted against what the command said, the margins white, the cut
lines and crosses where the pages meet, the 10 cm bar measured, and the pages cut and laid
together into a mat whose markers calibrate a camera view."""

from __future__ import annotations

import re
from dataclasses import replace

import cv2
import numpy as np
import pypdfium2 as pdfium
import pytest
from run_cardref import cardref
from test_calibration import view_of

from vision.calibration import from_markers
from vision.layout import load_layout, parse_layout
from vision.mat import draw_mat, zone_box
from vision.mat_pages import (
    BAND_CM,
    OVERLAP_CM,
    PAPERS_CM,
    PRINT_MARGIN_CM,
    page_labels,
    pages_for,
    plan_pages,
    printable,
)
from vision.synth.camera import look_at

DPI = 100
PPC = DPI / 2.54  # pixels per cm on the rendered pages
DARK = 128


def render(pdf_path) -> list[np.ndarray]:
    """Every page as a grey image at DPI, as a printer driver would rasterise it."""
    pdf = pdfium.PdfDocument(str(pdf_path))
    return [np.asarray(page.render(scale=DPI / 72, grayscale=True).to_pil().convert("L")) for page in pdf]


def longest_dark_run(band: np.ndarray) -> int:
    """The longest stretch of columns holding ink: the scale bar (text has gaps between words)."""
    cols = (band < DARK).any(axis=0)
    best = run = 0
    for dark in cols:
        run = run + 1 if dark else 0
        best = max(best, run)
    return best


def band_of(page: np.ndarray, window_h_cm: float) -> np.ndarray:
    top = round((PRINT_MARGIN_CM + window_h_cm + 0.1) * PPC)
    return page[top : page.shape[0] - round(PRINT_MARGIN_CM * PPC)]


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    """``cardref mat royal_family --paper a4``: what it said and the pages it wrote."""
    out = tmp_path_factory.mktemp("mat") / "mat.pdf"
    r = cardref("mat", "royal_family", "--out", str(out), "--paper", "a4", "--dpi", str(DPI))
    assert r.returncode == 0, r.stderr
    return r.stdout, render(out)


def test_the_command_says_how_many_pages_and_how_they_go_together(printed):
    said, pages = printed
    m = re.search(r"(\d+) pages of A4 (portrait|landscape), (\d+) rows of (\d+)", said)
    assert m, said
    count, orient, rows, cols = int(m[1]), m[2], int(m[3]), int(m[4])
    assert count == len(pages) == rows * cols
    grid = [
        [int(n) for n in line.split("pages")[1].split()] for line in said.splitlines() if "row " in line[:8]
    ]
    assert grid == [list(range(r * cols + 1, (r + 1) * cols + 1)) for r in range(rows)]
    w, h = PAPERS_CM["a4"] if orient == "portrait" else PAPERS_CM["a4"][::-1]
    for page in pages:
        assert page.shape == pytest.approx((h * PPC, w * PPC), abs=1.5)
    assert "10 cm" in said and "100 %" in said


def test_every_page_has_white_margins_and_a_10_cm_bar(printed):
    _, pages = printed
    plan = plan_pages(load_layout("royal_family"), "a4")
    edge = round(0.5 * PPC)  # the unprinted border of a home printer
    for n, page in enumerate(pages, 1):
        frame = np.concatenate(
            [page[:edge].ravel(), page[-edge:].ravel(), page[:, :edge].ravel(), page[:, -edge:].ravel()]
        )
        assert frame.min() >= 245, f"page {n}: ink in the unprinted margin"
        bar = longest_dark_run(band_of(page, plan.window_cm[1]))
        assert bar == pytest.approx(10 * PPC, abs=3), f"page {n}: scale bar {bar / PPC:.2f} cm"


def test_pages_carry_cut_lines_and_crosses_where_they_meet(printed):
    _, pages = printed
    plan = plan_pages(load_layout("royal_family"), "a4")
    m = PRINT_MARGIN_CM * PPC
    for tile, page in zip(plan.tiles, pages, strict=True):
        x = round(m + OVERLAP_CM / 2 * PPC)
        window = slice(round(m), round(m + plan.window_cm[1] * PPC))
        column = page[window, x - 1 : x + 2].min(axis=1) < DARK
        dashes = np.count_nonzero(np.diff(column.astype(int)) == 1)
        if tile.col > 0:  # laid over its left neighbour: a dashed line to cut on
            assert dashes > 15, f"page {tile.number}: no dashed cut line on the left ({dashes})"
        else:
            assert dashes < 10, f"page {tile.number}: a cut line where no page lies beside it"
        row = page[
            round(m + OVERLAP_CM / 2 * PPC) - 1 : round(m + OVERLAP_CM / 2 * PPC) + 2, round(m) : -round(m)
        ]
        dashes = np.count_nonzero(np.diff((row.min(axis=0) < DARK).astype(int)) == 1)
        assert (dashes > 15) == (tile.row > 0), f"page {tile.number}: top cut line ({dashes} dashes)"
        # a cross on each seam the page shares: ink at its centre and along both arms
        for u in [plan.cuts_u[c] for c in (tile.col - 1, tile.col) if 0 <= c < plan.cols - 1]:
            v = tile.window.v0 + (tile.window.v1 - tile.window.v0) / 2
            cx, cy = (
                round((PRINT_MARGIN_CM + u - tile.window.u0) * PPC),
                round((PRINT_MARGIN_CM + v - tile.window.v0) * PPC),
            )
            arm = round(0.3 * PPC)
            assert page[cy - 1 : cy + 2, cx - arm : cx + arm].min(axis=0).max() < 200, f"page {tile.number}"
            assert page[cy - arm : cy + arm, cx - 1 : cx + 2].min(axis=1).max() < 200, f"page {tile.number}"


def test_outside_the_mat_is_white_paper(printed):
    _, pages = printed
    layout = load_layout("royal_family")
    plan = plan_pages(layout, "a4")
    w, h = layout.table_size
    beyond = 0
    for tile, page in zip(plan.tiles, pages, strict=True):
        win = tile.window
        ys = slice(round(PRINT_MARGIN_CM * PPC), round((PRINT_MARGIN_CM + plan.window_cm[1]) * PPC))
        view = page[ys, round(PRINT_MARGIN_CM * PPC) : round((PRINT_MARGIN_CM + plan.window_cm[0]) * PPC)]
        u = win.u0 + (np.arange(view.shape[1]) + 0.5) / PPC
        v = win.v0 + (np.arange(view.shape[0]) + 0.5) / PPC
        outside = (u[None, :] < -0.2) | (u[None, :] > w + 0.2) | (v[:, None] < -0.2) | (v[:, None] > h + 0.2)
        if outside.any():
            beyond += 1
            ink = np.count_nonzero(view[outside] < DARK) / np.count_nonzero(outside)
            assert ink < 0.01, f"page {tile.number}: {ink:.0%} of the paper past the mat's edge is inked"
    assert beyond >= plan.cols + plan.rows - 1  # the last column and row run past the mat


def test_cut_and_assembled_pages_make_the_mat(printed):
    """Cut each page on its lines, lay it on the others: the zone outlines are those of the
    one-sheet mat, and a camera over the assembled mat calibrates from its four markers."""
    _, pages = printed
    layout = load_layout("royal_family")
    plan = plan_pages(layout, "a4")
    w, h = layout.table_size
    ou, ov = plan.origin_cm
    su, sv = plan.step_cm
    canvas = np.full(
        (round((plan.rows * sv + OVERLAP_CM) * PPC), round((plan.cols * su + OVERLAP_CM) * PPC)),
        255,
        np.uint8,
    )
    m = round(PRINT_MARGIN_CM * PPC)
    for tile, page in zip(plan.tiles, pages, strict=True):  # row by row, left to right: each on top
        cut_x = round(OVERLAP_CM / 2 * PPC) if tile.col > 0 else 0
        cut_y = round(OVERLAP_CM / 2 * PPC) if tile.row > 0 else 0
        piece = page[
            m + cut_y : m + round(plan.window_cm[1] * PPC), m + cut_x : m + round(plan.window_cm[0] * PPC)
        ]
        # where the page's mat corner lies on the table, to the pixel of this resolution
        cx = round(tile.window.u0 * PPC) - round(ou * PPC) + cut_x
        cy = round(tile.window.v0 * PPC) - round(ov * PPC) + cut_y
        canvas[cy : cy + piece.shape[0], cx : cx + piece.shape[1]] = piece[
            : canvas.shape[0] - cy, : canvas.shape[1] - cx
        ]
    mat = canvas[-round(ov * PPC) :, -round(ou * PPC) :]
    sheet = draw_mat(layout, PPC, labels=False)[..., 0]
    mat = mat[: sheet.shape[0], : sheet.shape[1]]
    assert mat.shape == sheet.shape
    outlines = cv2.erode((sheet < DARK).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0  # to the pixel
    assert np.mean(mat[outlines] < 160) > 0.99  # every zone outline and marker, where it belongs
    camera = look_at(1280, 720, (w / 2, h / 2), 2 * max(w, h), 60, 10, 45, 8)
    cal = from_markers(view_of(np.dstack([mat] * 3), PPC, camera), layout)
    assert cal.markers == (0, 1, 2, 3)
    centres = np.array([z.center for z in layout.table_zones], float)
    assert np.abs(cal.to_table(camera.project(centres, distort=False)) - centres).max() < 0.5  # cm


@pytest.mark.parametrize("paper", sorted(PAPERS_CM))
@pytest.mark.parametrize(
    "game", ["royal_family", "royal_shuffle", "royal_crush", "dukes_up", "houska_castle"]
)
def test_fewest_pages_and_whole_zone_names(game, paper):
    layout = load_layout(game)
    plan = plan_pages(layout, paper)
    w, h = layout.table_size
    # one column or row fewer would not reach across the mat
    assert (plan.cols - 1) * plan.step_cm[0] + OVERLAP_CM < w <= plan.cols * plan.step_cm[0] + OVERLAP_CM
    assert (plan.rows - 1) * plan.step_cm[1] + OVERLAP_CM < h <= plan.rows * plan.step_cm[1] + OVERLAP_CM
    for landscape in (False, True):  # neither orientation does with fewer
        turned = replace(plan, landscape=landscape)
        _, (ww, wh) = printable(paper, landscape)
        assert plan.pages <= pages_for(w, ww) * pages_for(h, wh), turned
    assert_whole_names(layout, plan)


def assert_whole_names(layout, plan) -> dict[str, int]:
    """Every zone's name is printed whole on each page that prints it, and seen whole on the
    assembled mat; returns on how many pages each name is printed."""
    labels = page_labels(layout, plan)
    shown: dict[str, int] = {}
    for tile in plan.tiles:
        kept = plan.kept(tile)
        for label in labels[tile.number]:
            assert label.box.inside(tile.window), f"{label.zone} cut by the edge of page {tile.number}"
            if label.box.inside(kept):
                shown[label.zone] = shown.get(label.zone, 0) + 1
    named = {z.id for z in layout.table_zones if z.kind != "across"}
    assert set(shown) == named, named - set(shown)
    return shown


def test_a_name_no_place_keeps_whole_is_printed_on_both_pages():
    """A row of zones as wide as the mat: some seam must cross a zone whose name fills it, so
    that name goes on each page that shows part of the zone, whole on each."""
    zones = {f"zone_{i:02d}_long_name": {"center": [5 + 10 * i, 30], "size": [10, 12]} for i in range(12)}
    layout = parse_layout(
        {
            "name": "strip",
            "table": {"width_cm": 120, "height_cm": 60},
            "card": {"width_cm": 6.3, "height_cm": 8.8},
            "zones": zones,
        }
    )
    plan = plan_pages(layout, "a4")
    shown = assert_whole_names(layout, plan)
    twice = {z for z, n in shown.items() if n > 1}
    assert twice, shown
    for z in twice:  # those a cut line crosses
        b = zone_box(layout, layout.zones[z])
        assert any(b.u0 < c < b.u1 for c in plan.cuts_u), z


def test_one_page_mat_says_its_scale(tmp_path):
    out = tmp_path / "one.pdf"
    r = cardref("mat", "royal_family", "--out", str(out), "--one-page", "--dpi", str(DPI))
    assert r.returncode == 0, r.stderr
    scale = float(re.search(r"1 page of A4 \w+, the mat at 1:([\d.]+)", r.stdout)[1])
    [page] = render(out)
    assert page.shape == pytest.approx((21.0 * PPC, 29.7 * PPC), abs=1.5)  # landscape fits it larger
    # the mat's frame measures 120 cm at the printed scale
    top = page[round(PRINT_MARGIN_CM * PPC) - 1 : round(PRINT_MARGIN_CM * PPC) + 2]
    assert longest_dark_run(top) == pytest.approx(120 / scale * PPC, rel=0.02)
    window_h = 21.0 - 2 * PRINT_MARGIN_CM - BAND_CM
    assert longest_dark_run(band_of(page, window_h)) == pytest.approx(10 * PPC, abs=3)
    assert "draw the zones" in r.stdout and "--corners" in r.stdout
