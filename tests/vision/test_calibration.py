"""The printed play mat calibrates a camera view: markers found, homography recovered."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from referee.errors import CardrefError
from vision.calibration import Calibration, drift_px, from_corners, from_markers
from vision.layout import load_layout
from vision.synth.camera import look_at

ROOT = Path(__file__).resolve().parents[2]
LAYOUT = load_layout("royal_family")


def view_of(mat: np.ndarray, px_per_cm: float, camera) -> np.ndarray:
    """What ``camera`` sees of the mat image lying on the table (an exact homography warp)."""
    height_cm = mat.shape[0] / px_per_cm  # mat rows run down the page, table y up it
    mat_to_table = np.array([[1 / px_per_cm, 0, 0], [0, -1 / px_per_cm, height_cm], [0, 0, 1]])
    return cv2.warpPerspective(
        mat,
        camera.homography() @ mat_to_table,
        (camera.width, camera.height),
        flags=cv2.INTER_AREA,
        borderValue=(60, 90, 120),
    )


def zone_centres() -> np.ndarray:
    return np.array([z.center for z in LAYOUT.table_zones], float)


@pytest.fixture(scope="module")
def printed_mat(tmp_path_factory) -> tuple[np.ndarray, float]:
    """The mat written by ``cardref mat`` as PNG, read back with its resolution."""
    out = tmp_path_factory.mktemp("mat") / "mat.png"
    r = subprocess.run(
        [sys.executable, "-m", "vision.commands.main", "mat", "royal_family", "--out", str(out),
         "--dpi", "60"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    dpi = Image.open(out).info["dpi"][0]
    return cv2.imread(str(out)), dpi / 2.54


@pytest.mark.parametrize("tilt,yaw", [(0, 0), (15, 90), (22, 180), (10, 8)])
def test_markers_of_the_printed_mat_calibrate_a_view(printed_mat, tilt, yaw):
    mat, px_per_cm = printed_mat
    assert mat.shape[1] == pytest.approx(120 * px_per_cm, abs=1)
    camera = look_at(1280, 720, (60, 50), 240, 60, tilt, 45, yaw)
    cal = from_markers(view_of(mat, px_per_cm, camera), LAYOUT)
    assert cal.markers == (0, 1, 2, 3)
    truth = camera.project(zone_centres(), distort=False)
    assert np.abs(cal.to_image(zone_centres()) - truth).max() < 1.5
    assert np.abs(cal.to_table(truth) - zone_centres()).max() < 0.3  # cm


def test_saved_calibration_loads_the_same(tmp_path, printed_mat):
    mat, px_per_cm = printed_mat
    camera = look_at(960, 540, (60, 50), 200, 60, 10, 0, 0)
    cal = from_markers(view_of(mat, px_per_cm, camera), LAYOUT)
    back = Calibration.load(cal.save(tmp_path / "calibration.json"))
    assert np.allclose(back.H, cal.H) and back.size == (960, 540) and back.method == "markers"


def test_a_moved_camera_shows_as_drift(printed_mat):
    mat, px_per_cm = printed_mat
    before = look_at(1280, 720, (60, 50), 200, 60, 5, 0, 0)
    after = look_at(1280, 720, (63, 50), 200, 60, 5, 0, 2)
    cal = from_markers(view_of(mat, px_per_cm, before), LAYOUT)
    assert drift_px(cal, view_of(mat, px_per_cm, before), LAYOUT) < 1.0
    assert drift_px(cal, view_of(mat, px_per_cm, after), LAYOUT) > 10.0


def test_four_clicked_corners_calibrate():
    camera = look_at(1280, 720, (60, 50), 200, 60, 12, 90, 10)
    w, h = LAYOUT.table_size
    clicks = camera.project(np.array([[0, 0], [w, 0], [w, h], [0, h]], float), distort=False)
    cal = from_corners([tuple(p) for p in clicks], LAYOUT, (1280, 720))
    assert np.abs(cal.to_image(zone_centres()) - camera.project(zone_centres(), distort=False)).max() < 0.01


def test_a_view_without_the_mat_is_a_clear_error():
    with pytest.raises(CardrefError, match=r"frame 7: found 0 of the play mat's 4 markers"):
        from_markers(np.full((480, 640, 3), 128, np.uint8), LAYOUT, source="frame 7")


def test_mat_tiled_on_a4_pages(tmp_path):
    out = tmp_path / "mat.pdf"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "vision.commands.main",
            "mat",
            "royal_family",
            "--out",
            str(out),
            "--paper",
            "a4",
            "--dpi",
            "40",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    # 120 x 100 cm on A4 less 1 cm margins: 19 x 27.7 cm landscape-or-portrait -> 4 x 5 or so pages
    assert data.count(b"/Type /Page\n") + data.count(b"/Type /Page ") + data.count(b"/Type/Page>") >= 12


def test_mat_refuses_an_unknown_format(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "vision.commands.main", "mat", "royal_family",
         "--out", str(tmp_path / "mat.svg")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 2 and "expected a .png or .pdf" in r.stderr


def test_calibrate_command_saves_what_replay_loads(tmp_path, printed_mat):
    mat, px_per_cm = printed_mat
    camera = look_at(1280, 720, (60, 50), 200, 60, 12, 0, 3)
    cv2.imwrite(str(tmp_path / "view.png"), view_of(mat, px_per_cm, camera))
    for extra in ([], ["--corners", "100,700 1180,700 1180,20 100,20"]):
        out = tmp_path / f"cal{len(extra)}.json"
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "vision.commands.main",
                "calibrate",
                "royal_family",
                "--camera",
                str(tmp_path / "view.png"),
                "--out",
                str(out),
                *extra,
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        assert r.returncode == 0, r.stderr
        cal = Calibration.load(out)
        assert cal.size == (1280, 720) and cal.method == ("corners" if extra else "markers")
    truth = camera.project(zone_centres(), distort=False)
    assert np.abs(Calibration.load(tmp_path / "cal0.json").to_image(zone_centres()) - truth).max() < 1.5


def test_boxes_over_the_mat_markers_are_dropped(printed_mat):
    from vision.calibration import detect_markers, without_markers
    from vision.detector.detections import Detections

    mat, px_per_cm = printed_mat
    image = view_of(mat, px_per_cm, look_at(1280, 720, (60, 50), 200, 60, 5, 0, 0))
    corners = detect_markers(image, LAYOUT)[2]
    x0, y0 = corners.min(axis=0) - 2
    x1, y1 = corners.max(axis=0) + 2
    boxes = np.array([[x0, y0, x1, y1], [600, 300, 650, 370]], np.float32)
    det = Detections(boxes, np.array([0.3, 0.8], np.float32), np.array([52, 7], np.int64))
    kept = without_markers(det, image, LAYOUT)
    assert len(kept) == 1 and kept.class_id[0] == 7


def test_zones_the_camera_does_not_see_whole_are_named():
    """A camera that sees the whole mat sees every zone; one brought closer over the mat's
    middle loses the zones along its edges, and keeps the flop and staging in the middle."""
    w, h = LAYOUT.table_size
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    far = look_at(1280, 720, (60, 50), 240, 60, 0, 45, 0)
    near = look_at(1280, 720, (60, 50), 120, 60, 0, 45, 0)
    seen = from_corners([tuple(p) for p in far.project(corners, distort=False)], LAYOUT, (1280, 720))
    assert seen.out_of_view(LAYOUT) == []
    close = from_corners([tuple(p) for p in near.project(corners, distort=False)], LAYOUT, (1280, 720))
    hidden = close.out_of_view(LAYOUT)
    middle = {"flop_1", "flop_2", "flop_3", "staging"}
    assert hidden and not middle & set(hidden), hidden
    for z in LAYOUT.table_zones:  # every zone whose very centre is out of the picture is named
        x, y = close.to_image(np.array([z.center], float))[0]
        if min(x, y, 1280 - x, 720 - y) < 0:
            assert z.id in hidden, z.id


def test_calibrate_tells_a_camera_that_mirrors_the_mat(tmp_path, printed_mat):
    """A selfie-view webcam shows the mat mirrored, where no marker reads: the command says so
    in one line instead of counting no markers."""
    mat, px_per_cm = printed_mat
    view = view_of(mat, px_per_cm, look_at(1280, 720, (60, 50), 200, 60, 12, 0, 3))
    cv2.imwrite(str(tmp_path / "mirrored.png"), cv2.flip(view, 1))
    r = subprocess.run(
        [sys.executable, "-m", "vision.commands.main", "calibrate", "royal_family",
         "--camera", str(tmp_path / "mirrored.png"), "--out", str(tmp_path / "cal.json")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode != 0 and "the camera mirrors the table" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "cal.json").exists()
