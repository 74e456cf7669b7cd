"""Light and sensor: gradients, glare, colour temperature, blur, noise and JPEG.

Applied in the order a camera meets them: light on the scene, then the lens (blur, done by
the caller after distortion), then the sensor (noise) and the encoder (JPEG).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class Look:
    """One image's photometric parameters (drawn once, so a video can keep them steady)."""

    gain: float = 1.0  # overall exposure
    gradient: tuple[float, float, float] = (0.0, 0.0, 0.0)  # (strength, direction rad, centre shift)
    vignette: float = 0.0
    glare: tuple[float, float, float, float] = (0.0, 0.5, 0.5, 0.2)  # (strength, x, y, radius) frac
    temperature: tuple[float, float, float] = (1.0, 1.0, 1.0)  # RGB gains
    blur_sigma: float = 0.0
    motion: tuple[float, float] = (0.0, 0.0)  # (length px, angle rad)
    noise: float = 0.0  # std of sensor noise, 0..255 scale
    jpeg_quality: int = 92

    @classmethod
    def random(cls, rng: np.random.Generator, strong: bool = True) -> Look:
        k = 1.0 if strong else 0.5
        warm = rng.uniform(-1, 1) * 0.12 * k
        temp = (1 + warm, 1.0 + rng.uniform(-0.03, 0.03), 1 - warm)
        glare = (
            float(rng.uniform(0.08, 0.4) if rng.random() < 0.25 * k else 0.0),
            float(rng.uniform(0, 1)),
            float(rng.uniform(0, 1)),
            float(rng.uniform(0.12, 0.45)),
        )
        motion = (
            float(rng.uniform(2, 9)) if rng.random() < 0.12 * k else 0.0,
            float(rng.uniform(0, math.pi)),
        )
        blur = float(rng.uniform(0.5, 2.0)) if rng.random() < 0.3 * k else 0.0
        return cls(
            gain=float(rng.uniform(0.65, 1.15)),
            gradient=(
                float(rng.uniform(0, 0.45) * k),
                float(rng.uniform(0, 2 * math.pi)),
                float(rng.uniform(-0.3, 0.3)),
            ),
            vignette=float(rng.uniform(0, 0.35)),
            glare=glare,
            temperature=temp,
            blur_sigma=blur,
            motion=motion,
            noise=float(rng.uniform(1.0, 9.0) * k),
            jpeg_quality=int(rng.integers(55, 96)),
        )


def light_field(look: Look, w: int, h: int) -> np.ndarray:
    """Multiplicative light (H, W) from exposure, a linear gradient and vignetting.

    Computed at 1/8 resolution and upscaled: light varies smoothly.
    """
    sw, sh = max(2, w // 8), max(2, h // 8)
    ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xs = xs / (sw - 1) - 0.5
    ys = ys / (sh - 1) - 0.5
    s, ang, c = look.gradient
    lin = 1 + s * ((xs * math.cos(ang) + ys * math.sin(ang)) + c * 0.2)
    vig = 1 - look.vignette * (xs * xs + ys * ys) * 2
    gx, gy, gr = look.glare[1] - 0.5, look.glare[2] - 0.5, look.glare[3]
    small = look.gain * lin * vig
    small = cv2.resize(small.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    del gx, gy, gr
    return small


def apply_light(img: np.ndarray, look: Look) -> np.ndarray:
    """Exposure, gradient, vignette, colour temperature and glare on a float32 RGB image."""
    h, w = img.shape[:2]
    field = light_field(look, w, h)
    img *= field[..., None]
    img *= np.array(look.temperature, np.float32)[None, None, :]
    strength, gx, gy, gr = look.glare
    if strength > 0:
        sw, sh = max(2, w // 8), max(2, h // 8)
        ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
        d2 = (xs / sw - gx) ** 2 + (ys / sh * h / w - gy * h / w) ** 2
        g = strength * 255 * np.exp(-d2 / (2 * gr * gr))
        g = cv2.resize(g.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
        # Glare washes colours out towards white, as a specular reflection does.
        img += g[..., None] * (1 - img / 300)
    return img


def apply_blur(img: np.ndarray, look: Look) -> np.ndarray:
    if look.blur_sigma > 0:
        img = cv2.GaussianBlur(img, (0, 0), look.blur_sigma)
    length, ang = look.motion
    if length >= 1.5:
        n = int(math.ceil(length)) | 1
        k = np.zeros((n, n), np.float32)
        c = n // 2
        dx, dy = math.cos(ang) * c, math.sin(ang) * c
        cv2.line(
            k,
            (int(round(c - dx)), int(round(c - dy))),
            (int(round(c + dx)), int(round(c + dy))),
            1.0,
            1,
            cv2.LINE_AA,
        )
        k /= k.sum()
        img = cv2.filter2D(img, -1, k)
    return img


def to_uint8_with_noise(img: np.ndarray, look: Look, rng: np.random.Generator) -> np.ndarray:
    """Add sensor noise (luma plus a little chroma, stronger in the dark) and quantise."""
    if look.noise > 0:
        h, w = img.shape[:2]
        luma = rng.standard_normal((h, w), dtype=np.float32)
        shot = np.sqrt(np.clip(img.mean(axis=2), 0, 255) / 255 + 0.15)
        img += (look.noise * luma * shot)[..., None]
        chroma = rng.standard_normal((h // 2 + 1, w // 2 + 1, 3), dtype=np.float32)
        chroma = cv2.resize(chroma, (w, h), interpolation=cv2.INTER_LINEAR)
        img += chroma * (look.noise * 0.35)
    return np.clip(img, 0, 255).astype(np.uint8)


def encode_jpeg(rgb: np.ndarray, quality: int) -> bytes:
    ok, buf = cv2.imencode(
        ".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, int(quality)]
    )
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()
