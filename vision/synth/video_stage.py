"""The fixed set of a game video: camera, light and empty table, and how frames are made.

Rendering every frame from scratch would redraw some sixty cards thirty times a second, so
a settled table is composed once (``Still``: surface, play mat and cards, unlit and lit) and
a frame only re-composites the region the moving card and hand cover (``overlay``). Camera
drift is then one warp of the finished frame: every drawn thing lies on the table plane,
so a slightly moved camera sees the same plane through the homography W = H_t · H_0⁻¹.
Labels are taken once per drawn frame from its instance map (per still when nothing moves)
and their boxes carried through W: at most a pixel looser than boxes of the warped map.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from vision.layout import Layout
from vision.synth.camera import Camera, look_at
from vision.synth.compose import (
    CardSprite,
    Drawn,
    Light,
    draw_card,
    draw_cards,
    draw_surface,
    local_px_per_cm,
    new_canvas,
)
from vision.synth.hands import Hand, draw_hand
from vision.synth.labels import CardLabel, label_cards
from vision.synth.photometric import Look, light_field
from vision.synth.play_mat import felt_over_layout, print_mat
from vision.synth.textures import Surface, felt, random_surface

MARGIN_CM = 4.0  # table seen beyond each edge of the layout
FOV_DEG = 52.0
DRIFT_CM = 0.7  # how far the aim wanders
DRIFT_YAW_DEG = 0.35
FLICKER = (0.025, 0.012)  # slow and fast amplitude of the light's flicker


@dataclass
class Still:
    """A settled table drawn once: sprites, unlit float image, lit uint8 image, instance map,
    and its labels (the hidden-card rule applied to that map)."""

    sprites: list[CardSprite]
    image: np.ndarray  # float32 RGB, before light
    lit: np.ndarray  # uint8 RGB
    ids: np.ndarray  # int16 instance map
    drawn: list[Drawn]
    labels: list[CardLabel]


@dataclass
class Frame:
    """A frame before the camera's drift: its picture and the labels of its cards."""

    lit: np.ndarray
    labels: list[CardLabel]


@dataclass
class Shot:
    """A frame as the drifting camera takes it: the warp to apply, brightness, labels."""

    lit: np.ndarray  # the undrifted picture (shared, never written to)
    warp: np.ndarray  # 3x3: undrifted pixels -> this frame's pixels
    gain: float
    cam: Camera
    labels: list[CardLabel]  # boxes already in this frame's pixels


@dataclass
class Stage:
    """Camera, light and table surface of one video, all drawn from one random generator."""

    layout: Layout
    width: int
    height: int
    rng: np.random.Generator
    photos: list[np.ndarray] = field(default_factory=list)
    printed_mat: bool = True  # False: plain felt, no zone outlines or markers (calibrate otherwise)

    def __post_init__(self) -> None:
        rng, (w, h) = self.rng, (self.width, self.height)
        tw, th = self.layout.table_size
        long_side = max(w, h)
        self.extent = max((tw + 2 * MARGIN_CM) * long_side / w, (th + 2 * MARGIN_CM) * long_side / h)
        self.target = (tw / 2, th / 2)
        self.tilt = float(rng.uniform(0, 6))
        self.tilt_dir = float(rng.uniform(0, 360))
        self.yaw = float(rng.normal(0, 1.0))
        self.cam = self.camera_at(None)
        self.H = self.cam.homography()
        self.H_inv = np.linalg.inv(self.H)
        self.ppc = local_px_per_cm(self.H, self.target)
        a = float(rng.uniform(0, 2 * math.pi))
        self.light = Light(math.cos(a) * 0.6, math.sin(a) * 0.6, float(rng.uniform(0.2, 0.4)), 1.2)
        look = Look.random(rng, strong=False)
        self.light_map = (
            light_field(look, w, h)[..., None] * np.array(look.temperature, np.float32)[None, None, :]
        ).astype(np.float32)
        self.drift_phase = rng.uniform(0, 2 * math.pi, 6)
        self.drift_freq = rng.uniform(0.04, 0.15, 3)
        self.flicker_phase = rng.uniform(0, 2 * math.pi, 2)
        surface = random_surface(rng, self.photos, size=512)
        self.background = self._table_with_mat(surface, felt(rng, 384))

    # ---- camera and light over time ------------------------------------------------------
    def camera_at(self, t: float | None) -> Camera:
        """The camera at time ``t`` seconds (None: its rest position)."""
        dx = dy = dyaw = 0.0
        if t is not None:
            p, f = self.drift_phase, self.drift_freq
            dx = DRIFT_CM * math.sin(2 * math.pi * f[0] * t + p[0])
            dy = DRIFT_CM * math.sin(2 * math.pi * f[1] * t + p[1])
            dyaw = DRIFT_YAW_DEG * math.sin(2 * math.pi * f[2] * t + p[2])
        target = (self.target[0] + dx, self.target[1] + dy)
        return look_at(
            self.width, self.height, target, self.extent, FOV_DEG, self.tilt, self.tilt_dir, self.yaw + dyaw
        )

    def flicker(self, t: float) -> float:
        """Overall brightness at ``t``: a slow swell and a faster mains-like shimmer."""
        slow, fast = FLICKER
        p = self.flicker_phase
        return (
            1.0
            + slow * math.sin(2 * math.pi * 0.6 * t + p[0])
            + fast * math.sin(2 * math.pi * 7.3 * t + p[1])
        )

    # ---- drawing ----------------------------------------------------------------------------
    def _table_with_mat(self, surface: Surface, mat: Surface) -> np.ndarray:
        """The table surface everywhere, and a felt play mat over the layout's rectangle."""
        table = draw_surface(surface, self.H, self.width, self.height)
        table = felt_over_layout(table, mat, self.layout, self.H)
        return print_mat(table, self.layout, self.H, self.ppc) if self.printed_mat else table

    def compose(self, sprites: list[CardSprite]) -> Still:
        canvas = new_canvas(self.background.copy())
        draw_cards(canvas, self.H, sprites, self.light, self.ppc)
        lit = _to_uint8(canvas.image * self.light_map)
        labels = label_cards(sprites, canvas.drawn, self.cam, canvas.ids, canvas.ids)
        return Still(list(sprites), canvas.image, lit, canvas.ids, canvas.drawn, labels)

    def overlay(self, still: Still, card: CardSprite | None, hand: Hand | None) -> Frame:
        """The still with a held card and a hand drawn over it, re-compositing only their region."""
        sprites, drawn = still.sprites, still.drawn
        if card is None and hand is None:
            return Frame(still.lit, still.labels)
        region = self._region(card, hand)
        lit, ids = still.lit, still.ids
        card_drawn: Drawn | None = None
        if region is not None:
            x0, y0, x1, y1 = region
            shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
            Hs = shift @ self.H
            canvas = new_canvas(still.image[y0:y1, x0:x1].copy())
            canvas.ids = still.ids[y0:y1, x0:x1].copy()
            if card is not None:
                d = draw_card(canvas, Hs, card, len(sprites), self.light, self.ppc)
                roi = None if d.roi is None else (d.roi[0] + x0, d.roi[1] + y0, d.roi[2] + x0, d.roi[3] + y0)
                card_drawn = Drawn(d.quad + (x0, y0), d.area, roi)
            if hand is not None:
                draw_hand(canvas, Hs, hand, self.light, self.ppc)
            lit, ids = still.lit.copy(), still.ids.copy()
            lit[y0:y1, x0:x1] = _to_uint8(canvas.image * self.light_map[y0:y1, x0:x1])
            ids[y0:y1, x0:x1] = canvas.ids
        if card is not None:
            if card_drawn is None:  # wholly outside the picture
                q = _project(card.corners(), self.H)
                card_drawn = Drawn(q, float(abs(cv2.contourArea(q.astype(np.float32)))), None)
            sprites, drawn = [*sprites, card], [*drawn, card_drawn]
        return Frame(lit, label_cards(sprites, drawn, self.cam, ids, ids))

    def _region(self, card: CardSprite | None, hand: Hand | None) -> tuple[int, int, int, int] | None:
        """Pixel box that the card, the hand and their shadows can touch, clipped to the image."""
        boxes = []
        off = math.hypot(self.light.dx, self.light.dy)
        if card is not None:
            pad = (
                off * (0.05 + card.lift) * self.ppc
                + 3 * max(0.6, (0.4 + 0.5 * card.lift) * self.ppc * 0.42)
                + 4
            )
            boxes.append((_project(card.corners(), self.H), pad))
        if hand is not None:
            pts = np.concatenate([_project(p, self.H) for p, _ in hand.parts()])
            boxes.append((pts, off * hand.height * self.ppc + hand.height * self.ppc * 0.8 + 8 * self.ppc))
        x0 = max(0, int(min(p[:, 0].min() - pad for p, pad in boxes)))
        y0 = max(0, int(min(p[:, 1].min() - pad for p, pad in boxes)))
        x1 = min(self.width, int(math.ceil(max(p[:, 0].max() + pad for p, pad in boxes))))
        y1 = min(self.height, int(math.ceil(max(p[:, 1].max() + pad for p, pad in boxes))))
        return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None

    def shoot(self, frame: Frame, t: float) -> Shot:
        """The frame as the drifting camera takes it at ``t`` seconds (the warp itself is left to
        ``develop``, which can run on another thread)."""
        cam = self.camera_at(t)
        W = cam.homography() @ self.H_inv
        return Shot(
            frame.lit, W, self.flicker(t), cam, _carry_boxes(frame.labels, W, self.width, self.height)
        )


def develop(shot: Shot) -> np.ndarray:
    """The finished RGB frame: drift warp, then the light's flicker."""
    h, w = shot.lit.shape[:2]
    img = cv2.warpPerspective(
        shot.lit, shot.warp, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return cv2.convertScaleAbs(img, alpha=shot.gain)


def _carry_boxes(labels: list[CardLabel], W: np.ndarray, width: int, height: int) -> list[CardLabel]:
    """Labels with their boxes moved by the drift warp W (the bounding box of the warped box)."""
    boxed = [i for i, lb in enumerate(labels) if lb.box is not None]
    if not boxed:
        return labels
    b = np.array([labels[i].box for i in boxed], np.float64)  # x0 y0 x1 y1, pixel edges
    corners = np.stack([b[:, [0, 1]], b[:, [2, 1]], b[:, [2, 3]], b[:, [0, 3]]], axis=1)
    q = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), W).reshape(-1, 4, 2)
    lo = np.floor(q.min(axis=1)).astype(int)
    hi = np.ceil(q.max(axis=1)).astype(int)
    out = list(labels)
    for k, i in enumerate(boxed):
        x0, y0 = max(0, int(lo[k, 0])), max(0, int(lo[k, 1]))
        x1, y1 = min(width, int(hi[k, 0])), min(height, int(hi[k, 1]))
        if x1 > x0 and y1 > y0:
            out[i] = replace(labels[i], box=(x0, y0, x1, y1))
        else:  # drifted out of the picture
            out[i] = replace(labels[i], box=None, labelled=False)
    return out


def _project(pts_cm: np.ndarray, H: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(pts_cm, np.float64).reshape(-1, 1, 2), H).reshape(-1, 2)


def _to_uint8(img: np.ndarray) -> np.ndarray:
    return np.clip(img, 0, 255).astype(np.uint8)
