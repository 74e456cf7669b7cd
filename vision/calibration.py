"""Camera-to-table calibration: the homography between table centimetres and image pixels.

Zones live in table centimetres (``configs/layouts``), never in pixels, so one homography is
all the camera side needs to say which zone a card lies in. It comes from the play mat's
ArUco markers (:func:`from_markers`), from four table corners clicked once
(:func:`from_corners`), or is loaded from a saved calibration. While playing,
:func:`drift_px` re-finds the markers and says how far the camera has moved.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from referee import files
from referee.errors import CardrefError
from vision.layout import Layout
from vision.mat import aruco_dictionary

FORMAT = 1
MIN_MARKERS = 2  # one marker's four corners fit a homography, but badly away from the marker
SIDES = ((-1, -1), (1, -1), (1, 1), (-1, 1))  # a rectangle's corners from its centre, in half sizes


@dataclass
class Calibration:
    """Table cm -> image pixels (``H``), for images of ``size`` (width, height)."""

    H: np.ndarray
    size: tuple[int, int]
    method: str  # markers | corners | layout
    error_px: float  # RMS reprojection error of the points it was fitted to
    markers: tuple[int, ...] = ()

    def to_image(self, pts_cm: np.ndarray) -> np.ndarray:
        return _transform(self.H, pts_cm)

    def to_table(self, pts_px: np.ndarray) -> np.ndarray:
        return _transform(np.linalg.inv(self.H), pts_px)

    def out_of_view(self, layout: Layout) -> list[str]:
        """The layout's table zones the camera does not see whole: the middle half of the zone
        (its rectangle shrunk by a quarter on each side, as a card laid there covers it)
        reaches past the picture's edge. Their cards cannot be read: the camera is too close or
        aimed off the mat."""
        w, h = self.size
        hidden = []
        for z in layout.table_zones:
            (cx, cy), (zw, zh) = z.center, z.size
            px = self.to_image(np.array([[cx + dx * zw / 4, cy + dy * zh / 4] for dx, dy in SIDES], float))
            if (px < 0).any() or (px[:, 0] > w).any() or (px[:, 1] > h).any():
                hidden.append(z.id)
        return hidden

    def px_per_cm(self, at_cm: tuple[float, float]) -> float:
        """Local scale near a table point: how many pixels one centimetre spans there."""
        x, y = at_cm
        p = self.to_image(np.array([[x, y], [x + 1, y], [x, y + 1]], float))
        return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 2)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        data = {"format": FORMAT, **asdict(self), "H": self.H.tolist()}
        files.write_json(path, data)
        return path

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        path = Path(path)
        data = files.read_json_object(path, "calibration")
        try:
            H = np.array(data["H"], float)
            if H.shape != (3, 3):
                raise ValueError("H is not 3x3")
            return cls(
                H,
                tuple(data["size"]),
                str(data["method"]),
                float(data["error_px"]),
                tuple(data.get("markers", ())),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise CardrefError(f"{path}: not a calibration file ({e})") from None


def _transform(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    pts = np.asarray(pts, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, H).reshape(-1, 2)


def detect_markers(image: np.ndarray, layout: Layout) -> dict[int, np.ndarray]:
    """Marker id -> its four corners in pixels (ArUco order), for the layout's markers only."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(aruco_dictionary(layout.marker_dictionary), params)
    corners, ids, _ = detector.detectMarkers(gray)
    wanted = {m.id for m in layout.markers}
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners, strict=True) if int(i) in wanted}


def _fit(table_pts: np.ndarray, image_pts: np.ndarray) -> tuple[np.ndarray, float]:
    H, _ = cv2.findHomography(table_pts, image_pts, 0)
    if H is None:
        raise CardrefError("calibration: the points do not fit a homography (are they in a line?)")
    err = np.sqrt(np.mean(np.sum((_transform(H, table_pts) - image_pts) ** 2, axis=1)))
    return H / H[2, 2], float(err)


def from_markers(image: np.ndarray, layout: Layout, source: str = "image") -> Calibration:
    """Fit the homography to every corner of every mat marker found in ``image``."""
    if not layout.markers:
        raise CardrefError(f"{layout.source}: the layout has no markers to calibrate with")
    found = detect_markers(image, layout)
    if len(found) < MIN_MARKERS:
        raise CardrefError(
            f"{source}: found {len(found)} of the play mat's {len(layout.markers)} markers "
            f"(need at least {MIN_MARKERS}; is the whole mat in view?)"
        )
    by_id = {m.id: m for m in layout.markers}
    table = np.array([c for i in sorted(found) for c in by_id[i].corners], float)
    image_pts = np.concatenate([found[i] for i in sorted(found)]).astype(float)
    H, err = _fit(table, image_pts)
    h, w = image.shape[:2]
    return Calibration(H, (w, h), "markers", err, tuple(sorted(found)))


def from_corners(points_px: list[tuple[float, float]], layout: Layout, size: tuple[int, int]) -> Calibration:
    """Four clicked table corners, in the order: black's left, black's right, red's right,
    red's left (table (0, 0), (W, 0), (W, H), (0, H))."""
    if len(points_px) != 4:
        raise CardrefError(f"calibration: expected 4 table corners, got {len(points_px)}")
    w, h = layout.table_size
    table = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    H, err = _fit(table, np.array(points_px, float))
    return Calibration(H, size, "corners", err)


def drift_px(calibration: Calibration, image: np.ndarray, layout: Layout) -> float | None:
    """Median distance (pixels) between where the calibration puts the markers' corners and
    where they are seen now; None when too few markers are visible to tell (hands over them)."""
    found = detect_markers(image, layout)
    if not found:
        return None
    by_id = {m.id: m for m in layout.markers}
    expected = np.concatenate([calibration.to_image(np.array(by_id[i].corners)) for i in sorted(found)])
    seen = np.concatenate([found[i] for i in sorted(found)])
    return float(np.median(np.linalg.norm(expected - seen, axis=1)))


def without_markers(detections, image: np.ndarray, layout: Layout, overlap: float = 0.3):
    """The detections less any box lying over one of the play mat's markers: a marker is
    square, black and white and card-sized, and the detector sometimes takes it for a card."""
    from vision.detector.detections import box_iou

    found = detect_markers(image, layout)
    if not found or not len(detections):
        return detections
    squares = np.array(
        [[c[:, 0].min(), c[:, 1].min(), c[:, 0].max(), c[:, 1].max()] for c in found.values()], np.float32
    )
    keep = box_iou(detections.xyxy, squares).max(axis=1) < overlap
    return detections[keep]


def from_markers_either_way(
    image: np.ndarray, layout: Layout, source: str = "image"
) -> tuple[Calibration, bool]:
    """The calibration from the mat's markers, and whether they read only in ``image`` turned
    back (a camera that shows the table as in a mirror, a webcam's selfie view: no marker
    reads in a mirror). Neither way: the error of the image as it is."""
    try:
        return from_markers(image, layout, source), False
    except CardrefError as error:
        if not layout.markers:
            raise
        try:
            return from_markers(cv2.flip(image, 1), layout, source), True
        except CardrefError:
            raise error from None


def mirrors(image: np.ndarray, layout: Layout) -> bool | None:
    """Whether the camera mirrors the table: True when the mat's markers read only in the
    image turned back, False when they read as it is (or the layout has none), None when
    neither shows them (the mat not in view yet)."""
    if not layout.markers:
        return False
    try:
        return from_markers_either_way(image, layout)[1]
    except CardrefError:
        return None
