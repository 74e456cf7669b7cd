"""Pinhole camera over the table plane, with mild radial lens distortion.

The table is the plane z = 0 in centimetres (x right, y away from black, z up). A camera is
placed above a target point, tilted at most ``max_tilt`` degrees from straight down, and
turned about the vertical. Everything the renderer draws lies on that plane, so the table
maps to undistorted pixels by one homography; lens distortion is applied to the finished
image (and to label points) afterwards.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class Camera:
    width: int
    height: int
    K: np.ndarray  # 3x3 intrinsics
    R: np.ndarray  # 3x3 world -> camera rotation (rows: x right, y down, z forward)
    t: np.ndarray  # (3,) translation, camera = R @ world + t
    k1: float = 0.0  # radial distortion on normalised coords (negative: barrel)

    def homography(self) -> np.ndarray:
        """Table cm -> undistorted pixels."""
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])
        return H / H[2, 2]

    def project(self, pts_cm: np.ndarray, distort: bool = True) -> np.ndarray:
        """(N, 2) table points in cm -> (N, 2) pixel coordinates (distorted by default)."""
        pts = np.asarray(pts_cm, dtype=np.float64).reshape(-1, 1, 2)
        px = cv2.perspectiveTransform(pts, self.homography()).reshape(-1, 2)
        return self.distort_points(px) if distort else px

    # ---- lens distortion --------------------------------------------------------------
    def _norm(self) -> tuple[float, float, float]:
        return float(self.K[0, 2]), float(self.K[1, 2]), float(self.K[0, 0])

    def distort_points(self, px: np.ndarray) -> np.ndarray:
        """Undistorted pixel coordinates -> where the lens puts them."""
        if self.k1 == 0.0:
            return np.asarray(px, dtype=np.float64)
        cx, cy, f = self._norm()
        p = np.asarray(px, dtype=np.float64)
        x, y = (p[:, 0] - cx) / f, (p[:, 1] - cy) / f
        s = 1.0 + self.k1 * (x * x + y * y)
        return np.column_stack([cx + x * s * f, cy + y * s * f])

    def distortion_maps(self) -> tuple[np.ndarray, np.ndarray] | None:
        """cv2.remap maps (distorted pixel -> undistorted source), None without distortion."""
        if self.k1 == 0.0:
            return None
        cx, cy, f = self._norm()
        xs = (np.arange(self.width, dtype=np.float32) - cx) / f
        ys = (np.arange(self.height, dtype=np.float32) - cy) / f
        xd, yd = np.meshgrid(xs, ys)
        rd2 = xd * xd + yd * yd
        # Invert x_d = x_u (1 + k1 r_u^2) by fixed-point iteration (converges for mild k1).
        scale = np.ones_like(rd2)
        for _ in range(4):
            ru2 = rd2 / (scale * scale)
            scale = 1.0 + self.k1 * ru2
        map_x = (xd / scale) * f + cx
        map_y = (yd / scale) * f + cy
        return map_x.astype(np.float32), map_y.astype(np.float32)

    def table_rect_in_view(self, margin: float = 0.0) -> tuple[float, float, float, float]:
        """Bounding rectangle (cm) of the table area the image sees (undistorted)."""
        Hinv = np.linalg.inv(self.homography())
        w, h = self.width, self.height
        corners = np.array(
            [[-margin, -margin], [w + margin, -margin], [w + margin, h + margin], [-margin, h + margin]],
            dtype=np.float64,
        ).reshape(-1, 1, 2)
        pts = cv2.perspectiveTransform(corners, Hinv).reshape(-1, 2)
        return float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max())


def look_at(
    width: int,
    height: int,
    target: tuple[float, float],
    extent_cm: float,
    fov_deg: float,
    tilt_deg: float,
    tilt_dir_deg: float,
    yaw_deg: float,
    k1: float = 0.0,
) -> Camera:
    """A camera aimed at ``target`` (cm) that sees about ``extent_cm`` across its wider side.

    ``tilt_deg`` is the angle from straight down, leaning towards azimuth ``tilt_dir_deg``;
    ``yaw_deg`` turns the image about the optical axis (0: table x to the right).
    """
    f = (max(width, height) / 2) / math.tan(math.radians(fov_deg) / 2)
    K = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]], dtype=np.float64)
    dist = (extent_cm / 2) / math.tan(math.radians(fov_deg) / 2)
    th, ph = math.radians(tilt_deg), math.radians(tilt_dir_deg)
    v = np.array([math.sin(th) * math.cos(ph), math.sin(th) * math.sin(ph), math.cos(th)])
    C = np.array([target[0], target[1], 0.0]) + dist * v
    z_c = -v
    ps = math.radians(yaw_deg)
    # Image "down" points along table -y at yaw 0 (black's edge at the bottom of the image).
    down = np.array([math.sin(ps), -math.cos(ps), 0.0])
    y_c = down - np.dot(down, z_c) * z_c
    y_c /= np.linalg.norm(y_c)
    x_c = np.cross(y_c, z_c)
    R = np.vstack([x_c, y_c, z_c])
    return Camera(width, height, K, R, -R @ C, k1)
