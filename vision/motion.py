"""When to read the table: hands move over it, then it settles.

Each frame is shrunk to a small grey image and compared with the previous one; the share of
pixels that changed is the motion. The table has *settled* when the motion stayed low for
``quiet_s`` seconds, and it is worth reading only if it also differs from the last image that
was read (a hand that came and went without moving a card changes nothing). So the detector
runs a few times per move, not on every frame.
"""

from __future__ import annotations

import functools
from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

SMALL_WIDTH = 160  # px: enough to see a hand or a card move, cheap to compare
PIXEL_DELTA = 18  # grey levels, in good light: a pixel changed by more than this counts as moved
# (sensor noise, averaged away by the shrinking, stays far below it)
# In dim light every difference shrinks with the light (a joker leaving a pile changed the
# thumbnail by 17 levels): the delta follows the frame's contrast (its 1st to 99th grey
# percentile over the table), full below FULL_CONTRAST of it, never under MIN_DELTA (noise).
# Rendered games: 85-170 levels in their light, 26-48 at a third of it, warm.
FULL_CONTRAST = 80.0
MIN_DELTA = 5.0
# A hand far from the camera moves few thumbnail pixels: 0.05 % of them (7 of 14,400) is motion.
# Measured on the rendered sample game: 26 reads for 24 moves, none while a hand was moving
# (at 0.4 % most reads fell inside hand movements).


PARTIAL_AFTER_S = 1.0  # something moving over the table this long: read the parts still
# ...still this long at least: beside a moving arm a part of the table must stay still longer
# than the whole table (quiet_s). With 0.25 s for both, parts were read at every pause of a
# passing hand and a drawn card's one still moment in staging went unread (held-out seed 148
# under arms: 9 of 24 observations and a wrong damage; 24 with 0.4 s here).
PARTIAL_QUIET_S = 0.4
# A frame is still when none of the frames of the last RECENT_S moved (a hand seen in one
# frame of three is still moving): three frames at 30 fps, the frame alone at 10 fps, so that
# a slow camera needs no longer a stillness than a fast one.
RECENT_S = 0.07
# A card laid on a pile over a card much like it (an ace of spades on a five of clubs) changes
# about 20 thumbnail pixels, a third of the card: under the share of the whole thumbnail
# (0.2 %, 29 pixels), so the table was not read until the next move covered it (a rendered
# Dukes Up! discard lost so). Where the camera is calibrated, a change of this share of one
# card's thumbnail area is worth reading too.
CARD_CHANGE = 0.2
# A lamp that flickers or a webcam's exposure that hunts brightens and darkens the whole frame
# at once: every pixel moves, and with a light pulsing by a quarter a few times a second the
# table never looked still (a rendered game: no read in 52 s). Two thumbnails are compared at
# the same light: the older one is scaled by the median of the ratios of their pixels over the
# table (those of LIGHT_FLOOR grey levels or more: a dark pixel's ratio is mostly noise). A
# hand or an arm changes a part of the pixels and leaves that median at 1; their mean moved by
# more than LIGHT_STEADY when an arm reached over the table, and scaled so, a move beside the
# arm went unseen (held-out seed 147 under arms, with the players: 21 of 24). The scaling is
# not exact (a compressed video's edges, the clipped whites), so a pixel must then change by
# that much more, in proportion to the light's change. A ratio within LIGHT_STEADY of 1 is the
# same light, and nothing is scaled.
LIGHT_STEADY = 0.05
LIGHT_FLOOR, LIGHT_PIXELS = 16, 100  # grey levels; pixels that light must cover to judge it
# A camera that shakes (a gooseneck mount, a table leant on) moves the whole picture by a pixel
# or two from frame to frame: every card edge changes, and a camera jittering by 1 px (720p)
# kept a rendered game from ever settling (0 of 24 observations). Each frame's shift from the
# one before is found (phase correlation), and kept when undoing it leaves the frame changed
# little (SHAKE_QUIET: a hand moving pulls the shift found, and a shake's larger shifts change
# more pixels, so the change before undoing it would keep the small ones only); the camera
# *shakes* when the median of the last SHAKE_FRAMES kept shifts is more than SHAKE_STEADY
# thumbnail pixels (0.8 px of a 720p frame; a still camera's are a few hundredths, a camera
# trembling by 1 px 0.15-0.29). Then, when two of a shaking camera's thumbnails differ, the
# older is moved onto the newer by their shift (if under SHAKE_MAX, 24 px of 720p: a knock is
# left to be seen as the drift it is) and kept so if that leaves at most SHAKE_EXPLAINS of the
# changed pixels (``moved_pixels``).
# A still camera's thumbnails are always compared as they are: a hand starting to move slowly
# looks like a shift of the whole picture by half a pixel, and moved so, its motion was hidden.
SHAKE_STEADY, SHAKE_MAX = 0.1, 3.0
SHAKE_FRAMES = 60
SHAKE_QUIET = 0.005  # a frame that changed this little, its shift undone, tells the camera's shift
SHAKE_SLACK = 0.3  # thumbnail pixels: how far off the shift found may be
SHAKE_EXPLAINS = 0.25  # a shake undone leaves at most this share of the changed pixels


def thumbnail_mask(corners_px: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The thumbnail's pixels inside the polygon ``corners_px`` of a frame of ``size``
    (width, height)."""
    w, h = size
    scale = SMALL_WIDTH / w
    mask = np.zeros((max(1, round(h * scale)), SMALL_WIDTH), np.uint8)
    cv2.fillConvexPoly(mask, np.round(np.asarray(corners_px) * scale).astype(np.int32), 1)
    return mask.astype(bool)


@dataclass(frozen=True)
class MotionReport:
    motion: float  # share of pixels that changed since the previous frame
    moving: bool
    settled: bool  # quiet for long enough (stays True while quiet)
    read_now: bool  # settled, and the table differs from the last read: run the detector
    # An arm has been moving over part of the table for a while, and the part that stayed
    # still for ``quiet_s`` differs from the last read: read that part (``still``: its
    # thumbnail pixels).
    partial: bool = False
    still: np.ndarray | None = None


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
        self.recent: deque[tuple[float, float]] = deque()  # (time, motion) of the last RECENT_S
        # The table's pixels in the thumbnail (the play area, from the calibration): an arm
        # or a person beyond it does not hold the reads back. None: the whole frame.
        self.region: np.ndarray | None = None
        self.moved_at: np.ndarray | None = None  # per thumbnail pixel: when it last moved
        self.moving_since: float | None = None
        self.card_share: float | None = None  # one card's share of the thumbnail (calibrated)
        self.shifts: deque[float] = deque(maxlen=SHAKE_FRAMES)  # each frame's shift from the last

    @property
    def shaky(self) -> bool:
        """Whether the camera shakes: the median shift of the last frames (:data:`SHAKE_STEADY`)."""
        return len(self.shifts) >= SHAKE_FRAMES // 4 and float(np.median(self.shifts)) > SHAKE_STEADY

    @staticmethod
    def small(image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        size = (SMALL_WIDTH, max(1, round(h * SMALL_WIDTH / w)))
        small = cv2.resize(grey, size, interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(small, (3, 3), 0)

    def delta(self, small: np.ndarray) -> float:
        """Grey levels a pixel must change by to count, for this frame's light."""
        values = small if self.region is None else small[self.region]
        if values.size == 0:
            return PIXEL_DELTA
        lo, hi = np.percentile(values, (1, 99))
        return float(np.clip(PIXEL_DELTA * (hi - lo) / FULL_CONTRAST, MIN_DELTA, PIXEL_DELTA))

    @staticmethod
    def changed(
        a: np.ndarray, b: np.ndarray, delta: float = PIXEL_DELTA, region: np.ndarray | None = None,
        shaky: bool = False,
    ) -> float:
        """The share of the thumbnail's pixels that changed by over ``delta`` (counting only
        those in ``region``, if given: the thresholds stay shares of the whole thumbnail),
        ``b`` taken as ``a``'s camera saw it (:func:`moved_pixels`)."""
        moved = moved_pixels(a, b, delta, region, shift(b, a) if shaky else None)
        if region is not None and region.shape == moved.shape:
            moved &= region
        return float(np.count_nonzero(moved)) / a.size

    def set_region(self, corners_px: np.ndarray, size: tuple[int, int], card_px: float | None = None) -> None:
        """Judge motion over the polygon ``corners_px`` (the table, in frame pixels) of a frame
        of ``size`` (width, height) only; ``card_px``: a card's area in frame pixels there."""
        mask = thumbnail_mask(corners_px, size)  # the thumbnail's shape
        self.region = mask if mask.any() else None
        self.card_share = None if card_px is None else card_px * (SMALL_WIDTH / size[0]) ** 2 / mask.size

    def worth_reading(self, changed: float) -> bool:
        """Whether a change (a share of the thumbnail) is enough to read the settled table
        again: the share ``change_threshold``, or a fifth of one card where its size is known."""
        threshold = self.change_threshold
        if self.card_share is not None:
            threshold = min(threshold, CARD_CHANGE * self.card_share)
        return changed > threshold

    def update(self, image: np.ndarray, t: float) -> MotionReport:
        small = self.small(image)
        delta = self.delta(small)
        if self.moved_at is None or self.moved_at.shape != small.shape:
            self.moved_at = np.full(small.shape, -np.inf, np.float32)
        motion = 0.0
        if self.previous is not None and self.previous.shape == small.shape:
            by = shift(self.previous, small)  # once a frame: the shake undone and the shakiness judged
            moved = moved_pixels(small, self.previous, delta, self.region)
            steadied = moved_pixels(small, self.previous, delta, self.region, by) if moved.any() else moved
            on_table = self.region is not None and self.region.shape == moved.shape
            if np.count_nonzero(steadied & self.region if on_table else steadied) <= SHAKE_QUIET * small.size:
                self.shifts.append(float(np.hypot(*by)))  # no hand: the shift is the camera's
            if self.shaky:
                moved = steadied
            self.moved_at[moved] = t
            motion = float(np.count_nonzero(moved & self.region if on_table else moved)) / small.size
        self.previous = small
        self.recent.append((t, motion))
        while self.recent[0][0] < t - RECENT_S:
            self.recent.popleft()
        moving = max(m for _, m in self.recent) > self.motion_threshold
        if moving:
            self.quiet_since = None
            self.moving_since = t if self.moving_since is None else self.moving_since
        else:
            self.moving_since = None
            if self.quiet_since is None:
                self.quiet_since = t
        if moving and t - self.moving_since >= PARTIAL_AFTER_S and self.reference is not None:
            still = (t - self.moved_at) >= max(self.quiet_s, PARTIAL_QUIET_S)
            if self.region is not None and self.region.shape == still.shape:
                still &= self.region
            # (The share alone here: a part of the table read while an arm moves is read
            # again once it settles, and reading it at every small change under a passing arm
            # kept a drawn card's only still moment from being read, a whole turn lost.)
            if self.changed(small, self.reference, delta, still, self.shaky) > self.change_threshold:
                return MotionReport(motion, moving, False, False, True, still)
        settled = self.quiet_since is not None and t - self.quiet_since >= self.quiet_s
        read_now = settled and (
            self.reference is None
            or self.worth_reading(self.changed(small, self.reference, delta, self.region, self.shaky))
        )
        return MotionReport(motion, moving, settled, read_now)

    def mark_read(self, image: np.ndarray) -> None:
        """The table was read from this image: later frames must differ from it to be read."""
        self.reference = self.small(image)

    def force_read(self) -> None:
        """Read again at the next settled frame (after a desync or a reconnected camera)."""
        self.reference = None


def same_light(b: np.ndarray, a: np.ndarray, region: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Thumbnail ``b`` as it would look in thumbnail ``a``'s light, and the grey levels that
    scaling leaves uncertain: ``b`` scaled by the light's ratio between them (the median of
    their pixels' ratios over ``region``, the table, when given: a hand or an arm changes some
    pixels, a light all of them), with a slack of that ratio's distance from 1 times ``a``'s
    bright end (its 99th percentile: a card's paper); ``b`` itself and no slack when the light
    is the same (:data:`LIGHT_STEADY`) or too dark to tell."""
    if b.shape != a.shape:
        return b, 0.0
    inside = region is not None and region.shape == a.shape and region.any()
    va, vb = (x[region] if inside else x.ravel() for x in (a, b))
    lit = vb >= LIGHT_FLOOR
    if np.count_nonzero(lit) < LIGHT_PIXELS:
        return b, 0.0
    ratio = float(np.median(va[lit].astype(np.float32) / vb[lit].astype(np.float32)))
    if abs(ratio - 1) <= LIGHT_STEADY:
        return b, 0.0
    return cv2.convertScaleAbs(b, alpha=ratio), abs(ratio - 1) * float(np.percentile(va, 99))


def shaken(b: np.ndarray, a: np.ndarray, by: tuple[float, float]) -> tuple[np.ndarray, np.ndarray | float]:
    """Thumbnail ``b`` moved onto thumbnail ``a`` by ``by``, the whole picture's shift between
    them (:func:`shift`: a shaking camera's), when that shift is a shake (:data:`SHAKE_STEADY`,
    :data:`SHAKE_MAX`), with the grey levels the move leaves uncertain at each pixel: an edge's
    slope times :data:`SHAKE_SLACK` (the shift is found to a fraction of a pixel, and moving a
    picture by a fraction of a pixel softens its edges); else ``b`` itself, and no slack."""
    dx, dy = by
    if b.shape != a.shape or min(a.shape) < 8 or not SHAKE_STEADY < float(np.hypot(dx, dy)) < SHAKE_MAX:
        return b, 0.0
    move = np.float32([[1, 0, dx], [0, 1, dy]])
    size = (b.shape[1], b.shape[0])
    moved = cv2.warpAffine(b, move, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    slope = cv2.magnitude(cv2.Sobel(moved, cv2.CV_32F, 1, 0), cv2.Sobel(moved, cv2.CV_32F, 0, 1))
    return moved, slope * (SHAKE_SLACK / 8)  # a 3x3 Sobel weighs a slope eightfold


def moved_pixels(
    a: np.ndarray, b: np.ndarray, delta: float, region: np.ndarray | None = None,
    by: tuple[float, float] | None = None,
) -> np.ndarray:
    """(h, w) bool: the pixels of thumbnail ``a`` that differ from thumbnail ``b`` by over
    ``delta`` grey levels, ``b`` taken in ``a``'s light (:func:`same_light`) and, from a camera
    that shakes (``by``: its shift from ``b`` to ``a``, :func:`shift`), moved by the shake
    (:func:`shaken`) when that leaves at most :data:`SHAKE_EXPLAINS` of the changed pixels: a
    shake changes the edges of everything, and they agree again once it is undone; a hand
    moving fast changes more than a shift explains."""
    lit, light = same_light(b, a, region)
    moved = cv2.absdiff(a, lit) > delta + light
    if by is None:
        return moved
    inside = region if region is not None and region.shape == moved.shape else None
    count = np.count_nonzero(moved if inside is None else moved & inside)
    if not count:
        return moved
    steady, shake = shaken(lit, a, by)
    if steady is lit:
        return moved
    after = cv2.absdiff(a, steady) > delta + light + shake
    if np.count_nonzero(after if inside is None else after & inside) <= SHAKE_EXPLAINS * count:
        return after
    return moved


def shift(b: np.ndarray, a: np.ndarray) -> tuple[float, float]:
    """The whole picture's shift from thumbnail ``b`` to thumbnail ``a`` (thumbnail pixels)."""
    (dx, dy), _ = cv2.phaseCorrelate(b.astype(np.float32), a.astype(np.float32), _window(*a.shape[:2]))
    return float(dx), float(dy)


@functools.cache
def _window(h: int, w: int) -> np.ndarray:
    """The Hanning window that phase correlation weighs an (h, w) thumbnail by."""
    return cv2.createHanningWindow((w, h), cv2.CV_32F)
