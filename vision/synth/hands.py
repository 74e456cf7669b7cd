"""Procedural hands and forearms that reach over the table and hide parts of cards.

A hand is a few polygons in table centimetres (forearm, sleeve, palm, fingers, thumb)
projected by the camera, filled with a skin tone, shaded along the arm, and given a soft
shadow on the table (the hand hovers a few centimetres up). The instance map marks its
pixels OCCLUDER, so the cards under it lose those pixels for the hidden-card rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.compose import OCCLUDER, Canvas, Light

SKIN_TONES = (
    (233, 196, 170), (224, 172, 138), (198, 142, 108), (160, 110, 80), (120, 80, 55), (90, 60, 45),
    (240, 205, 185),
)
SLEEVES = ((30, 30, 35), (200, 200, 205), (40, 60, 120), (120, 30, 35), (60, 90, 60), (150, 120, 90))


@dataclass
class Hand:
    tip: tuple[float, float]  # cm: where the fingertips are (over the card being touched)
    direction: float  # degrees: direction the arm points (from elbow to fingertips)
    length: float = 19.0  # cm, wrist to fingertip
    spread: float = 0.3  # 0: fingers together, 1: spread
    skin: tuple[int, int, int] = SKIN_TONES[1]
    sleeve: tuple[int, int, int] | None = SLEEVES[0]
    height: float = 6.0  # cm above the table (shadow offset)

    @classmethod
    def random(cls, rng: np.random.Generator, tip: tuple[float, float], direction: float) -> Hand:
        skin = SKIN_TONES[int(rng.integers(len(SKIN_TONES)))]
        sleeve = SLEEVES[int(rng.integers(len(SLEEVES)))] if rng.random() < 0.7 else None
        return cls(
            tip,
            direction,
            float(rng.uniform(16, 21)),
            float(rng.uniform(0, 1)),
            skin,
            sleeve,
            float(rng.uniform(3, 12)),
        )

    def parts(self) -> list[tuple[np.ndarray, tuple[int, int, int]]]:
        """(polygon in cm, colour) from the back (sleeve) to the front (fingers)."""
        a = math.radians(self.direction)
        d = np.array([math.cos(a), math.sin(a)])
        n = np.array([-d[1], d[0]])
        tip = np.array(self.tip)
        L = self.length
        wrist = tip - d * L
        palm_c = wrist + d * L * 0.33
        polys: list[tuple[np.ndarray, tuple[int, int, int]]] = []
        elbow = wrist - d * 45
        arm = np.array([wrist + n * 3.0, wrist - n * 3.0, elbow - n * 4.5, elbow + n * 4.5])
        polys.append((arm, self.skin))
        if self.sleeve is not None:
            cuff = wrist - d * 12
            polys.append(
                (np.array([cuff + n * 4.3, cuff - n * 4.3, elbow - n * 5.5, elbow + n * 5.5]), self.sleeve)
            )
        ang = np.linspace(0, 2 * math.pi, 20, endpoint=False)
        palm = palm_c + np.outer(np.cos(ang), d) * L * 0.3 + np.outer(np.sin(ang), n) * 4.4
        polys.append((palm, self.skin))
        base = palm_c + d * L * 0.2
        for k, off in enumerate((-2.7, -0.9, 0.9, 2.6)):
            fl = L * (0.42, 0.5, 0.48, 0.38)[k]
            fd = d * math.cos(math.radians(off * 6 * self.spread)) + n * math.sin(
                math.radians(off * 6 * self.spread)
            )
            root = base + n * off
            polys.append((_capsule(root, root + fd * fl, 0.85), self.skin))
        th_dir = d * 0.55 + n * 0.85
        th_dir /= np.linalg.norm(th_dir)
        th_root = wrist + d * L * 0.2 + n * 3.2
        polys.append((_capsule(th_root, th_root + th_dir * L * 0.36, 1.1), self.skin))
        return polys


def _capsule(p0: np.ndarray, p1: np.ndarray, r: float) -> np.ndarray:
    d = p1 - p0
    length = float(np.linalg.norm(d)) or 1.0
    d = d / length
    n = np.array([-d[1], d[0]])
    half = np.linspace(-math.pi / 2, math.pi / 2, 7)
    end1 = [p1 + (d * math.cos(t) + n * math.sin(t)) * r for t in half]
    end0 = [p0 - (d * math.cos(t) + n * math.sin(t)) * r for t in half]
    return np.array(end1 + end0)


def draw_hand(
    canvas: Canvas,
    H: np.ndarray,
    hand: Hand,
    light: Light,
    px_per_cm: float,
    rng: np.random.Generator | None = None,
) -> None:
    """Shadow, then the hand itself; its pixels become OCCLUDER in the instance map."""
    h, w = canvas.ids.shape
    mask = np.zeros((h, w), np.uint8)
    colour = np.zeros((h, w, 3), np.uint8)
    for poly, col in hand.parts():
        pts = cv2.perspectiveTransform(poly.reshape(-1, 1, 2).astype(np.float64), H).reshape(-1, 2)
        pts = np.round(pts * 4).astype(np.int32)  # 2 bits of sub-pixel precision
        cv2.fillPoly(mask, [pts], 255, cv2.LINE_AA, shift=2)
        cv2.fillPoly(colour, [pts], col, cv2.LINE_AA, shift=2)
    bx, by, bw, bh = cv2.boundingRect(mask)  # of the non-zero pixels; much faster than np.nonzero
    if bw == 0 or bh == 0:
        return
    off = np.array([light.dx, light.dy]) * hand.height * px_per_cm
    pad = int(abs(off).max() + 4 * px_per_cm * 1.5) + 2
    x0, x1 = max(0, bx - pad), min(w, bx + bw - 1 + pad + 1)
    y0, y1 = max(0, by - pad), min(h, by + bh - 1 + pad + 1)
    m = mask[y0:y1, x0:x1].astype(np.float32) * (1 / 255)
    shift = np.float32([[1, 0, off[0]], [0, 1, off[1]]])
    sh = cv2.warpAffine(m, shift, (x1 - x0, y1 - y0))
    sh = cv2.GaussianBlur(sh, (0, 0), max(1.0, hand.height * px_per_cm * 0.25))
    roi = canvas.image[y0:y1, x0:x1]
    roi *= (1 - min(0.6, light.strength * 1.3) * sh)[..., None]
    # Skin shading: darker towards the edges of each part, a little texture.
    edge = cv2.GaussianBlur(m, (0, 0), max(1.0, px_per_cm * 0.8))
    shade = 0.72 + 0.35 * edge
    if rng is not None:
        shade = shade * (0.96 + 0.08 * rng.random(shade.shape, dtype=np.float32))
    col = colour[y0:y1, x0:x1].astype(np.float32) * shade[..., None]
    m3 = m[..., None]
    roi *= 1 - m3
    roi += col * m3
    canvas.ids[y0:y1, x0:x1][m > 0.5] = OCCLUDER
