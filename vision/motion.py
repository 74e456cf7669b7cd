"""When to read the table: hands move over it, then it settles.

Each frame is shrunk to a small grey image and compared with the previous one; the share of
pixels that changed is the motion. The table has *settled* when the motion stayed low for
``quiet_s`` seconds, and it is worth reading only if it also differs from the last image that
was read (a hand that came and went without moving a card changes nothing). So the detector
runs a few times per move, not on every frame.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

SMALL_WIDTH = 160  # px: enough to see a hand or a card move, cheap to compare
PIXEL_DELTA = 18  # grey levels: a pixel changed by more than this counts as moved (sensor noise,
# averaged away by the shrinking, stays far below it)
# A hand far from the camera moves few thumbnail pixels: 0.05 % of them (7 of 14,400) is motion.
# Measured on the rendered sample game: 26 reads for 24 moves, none while a hand was moving
# (at 0.4 % most reads fell inside hand movements).


@dataclass(frozen=True)
class MotionReport:
    motion: float  # share of pixels that changed since the previous frame
    moving: bool
    settled: bool  # quiet for long enough (stays True while quiet)
    read_now: bool  # settled, and the table differs from the last read: run the detector


class SettleDetector:
    """Debounced motion: ``update(frame, t)`` once per frame, in time order."""

    def __init__(
        self, quiet_s: float = 0.4, motion_threshold: float = 0.0005, change_threshold: float = 0.002
    ):
        self.quiet_s = quiet_s
        self.motion_threshold = motion_threshold
        self.change_threshold = change_threshold
        self.previous: np.ndarray | None = None
        self.reference: np.ndarray | None = None  # the image at the last read
        self.quiet_since: float | None = None
        self.recent: deque[float] = deque(maxlen=3)

    @staticmethod
    def small(image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        size = (SMALL_WIDTH, max(1, round(h * SMALL_WIDTH / w)))
        small = cv2.resize(grey, size, interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(small, (3, 3), 0)

    @staticmethod
    def changed(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.count_nonzero(cv2.absdiff(a, b) > PIXEL_DELTA)) / a.size

    def update(self, image: np.ndarray, t: float) -> MotionReport:
        small = self.small(image)
        motion = 0.0 if self.previous is None else self.changed(small, self.previous)
        self.previous = small
        self.recent.append(motion)
        moving = max(self.recent) > self.motion_threshold
        if moving:
            self.quiet_since = None
        elif self.quiet_since is None:
            self.quiet_since = t
        settled = self.quiet_since is not None and t - self.quiet_since >= self.quiet_s
        read_now = settled and (
            self.reference is None or self.changed(small, self.reference) > self.change_threshold
        )
        return MotionReport(motion, moving, settled, read_now)

    def mark_read(self, image: np.ndarray) -> None:
        """The table was read from this image: later frames must differ from it to be read."""
        self.reference = self.small(image)

    def force_read(self) -> None:
        """Read again at the next settled frame (after a desync or a reconnected camera)."""
        self.reference = None
