"""Table surfaces: procedural textures made at generation time and cached table photos.

Each maker returns an RGB uint8 image of a patch of table and its scale in pixels per cm;
the renderer warps it under the camera so texture shrinks with distance like a real table.
All randomness comes from the ``rng`` passed in, so a seed gives the same table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class Surface:
    image: np.ndarray  # RGB uint8
    px_per_cm: float
    kind: str


def noise(rng: np.random.Generator, h: int, w: int, cells: int) -> np.ndarray:
    """Smooth value noise in [0, 1]: random grid of ``cells`` across, upscaled bicubically."""
    cells = max(2, cells)
    ch = max(2, round(cells * h / w))
    g = rng.random((ch, cells), dtype=np.float32)
    out = cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)
    return np.clip(out, 0, 1)


def fractal(rng: np.random.Generator, h: int, w: int, base: int, octaves: int = 4) -> np.ndarray:
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for o in range(octaves):
        out += amp * noise(rng, h, w, base * 2**o)
        total += amp
        amp *= 0.5
    return out / total


def _colour(rng: np.random.Generator, base: tuple[int, int, int], spread: int) -> np.ndarray:
    return np.clip(np.array(base, np.float32) + rng.integers(-spread, spread + 1, 3), 0, 255)


def _tint(gray: np.ndarray, colour: np.ndarray) -> np.ndarray:
    return np.clip(gray[..., None] * colour[None, None, :], 0, 255).astype(np.uint8)


def wood(rng: np.random.Generator, size: int) -> Surface:
    """Planks of wood grain: long fibre streaks, soft growth rings, plank seams, varied stain."""
    h = w = size
    ppc = float(rng.uniform(3, 8))
    plank_cm = rng.uniform(9, 25)
    # Fibres: noise that changes fast across the grain and slowly along it.
    streaks = 0.0
    for rows, cols, amp in ((h, 3, 0.5), (h // 3, 5, 0.3), (h // 12, 4, 0.2)):
        s_ = rng.random((max(2, rows), cols), dtype=np.float32)
        streaks = streaks + amp * cv2.resize(s_, (w, h), interpolation=cv2.INTER_CUBIC)
    warp = fractal(rng, h, w, 3, 3) * rng.uniform(8, 30)
    yy = np.arange(h, dtype=np.float32)[:, None] + warp
    rings = 0.5 + 0.5 * np.sin(yy * rng.uniform(0.05, 0.25) + fractal(rng, h, w, 4, 2) * 4)
    fine = cv2.GaussianBlur(rng.random((h, w), dtype=np.float32), (0, 0), 0.6)
    g = 0.72 + 0.1 * (rings - 0.5) + 0.22 * (streaks - 0.5) + 0.04 * (fine - 0.5)
    plank_px = max(8, int(plank_cm * ppc))
    plank = np.arange(h) // plank_px
    offsets = rng.random(int(plank.max()) + 2) * 0.14 - 0.07
    g = g + offsets[plank][:, None]
    seams = (np.arange(h) % plank_px) < max(1, int(ppc * 0.12))
    g[seams, :] *= 0.6
    stains = [
        (140, 90, 50), (170, 120, 70), (110, 70, 40), (200, 160, 110),
        (90, 55, 35), (150, 130, 110), (190, 150, 100), (70, 45, 30),
    ]
    col = _colour(rng, stains[rng.integers(len(stains))], 15) / 255.0 * 1.25
    img = _tint(np.clip(g, 0, 1.3) * 255 / 1.25, col)
    if rng.random() < 0.5:
        img = np.ascontiguousarray(np.rot90(img))
    return Surface(img, ppc, "wood")


def felt(rng: np.random.Generator, size: int) -> Surface:
    """Baize or felt: a strong colour with fine fibre noise and soft blotches."""
    h = w = size
    ppc = float(rng.uniform(6, 14))
    colours = [(30, 110, 50), (20, 80, 40), (130, 25, 30), (30, 50, 120), (60, 60, 70), (20, 90, 90)]
    col = _colour(rng, colours[rng.integers(len(colours))], 18) / 255.0
    fine = rng.random((h, w), dtype=np.float32)
    fine = cv2.GaussianBlur(fine, (0, 0), 0.7)
    g = 0.85 + 0.18 * (fine - 0.5) + 0.12 * (fractal(rng, h, w, 4, 3) - 0.5)
    return Surface(_tint(g * 255, col), ppc, "felt")


def carpet(rng: np.random.Generator, size: int) -> Surface:
    """Loop pile carpet: speckled multi-colour fibres, like the real photos' floors."""
    h = w = size
    ppc = float(rng.uniform(8, 16))
    colours = [(150, 130, 105), (120, 105, 85), (90, 90, 95), (60, 70, 110), (170, 160, 140), (100, 80, 70)]
    col = _colour(rng, colours[rng.integers(len(colours))], 20) / 255.0
    speck = rng.random((h // 2, w // 2), dtype=np.float32)
    speck = cv2.resize(speck, (w, h), interpolation=cv2.INTER_LINEAR)
    loops = cv2.GaussianBlur(rng.random((h, w), dtype=np.float32), (0, 0), 1.2)
    g = 0.55 + 0.55 * (speck**2) * 0.8 + 0.35 * (loops - 0.5) + 0.1 * (fractal(rng, h, w, 5, 2) - 0.5)
    img = _tint(np.clip(g, 0, 1.6) * 255 / 1.2, col * 1.1)
    return Surface(img, ppc, "carpet")


def cloth(rng: np.random.Generator, size: int) -> Surface:
    """Tablecloth: gingham checks or stripes with a visible weave."""
    h = w = size
    ppc = float(rng.uniform(4, 10))
    period = int(rng.uniform(1.0, 4.0) * ppc)
    y, x = np.mgrid[0:h, 0:w]
    a = ((x // max(2, period)) % 2).astype(np.float32)
    b = ((y // max(2, period)) % 2).astype(np.float32)
    pattern = (a + b) / 2 if rng.random() < 0.6 else a
    c1 = _colour(
        rng, [(200, 40, 40), (40, 60, 160), (40, 130, 60), (220, 200, 80), (90, 90, 90)][rng.integers(5)], 30
    )
    c2 = _colour(rng, (235, 232, 225), 15)
    weave = 0.9 + 0.1 * ((x % 3 == 0) ^ (y % 3 == 0)).astype(np.float32)
    img = (pattern[..., None] * c1 + (1 - pattern[..., None]) * c2) * weave[..., None]
    img *= (0.93 + 0.1 * fractal(rng, h, w, 3, 2))[..., None]
    return Surface(np.clip(img, 0, 255).astype(np.uint8), ppc, "cloth")


def desk(rng: np.random.Generator, size: int) -> Surface:
    """Plain desk or laminate: one colour, faint texture and smudges."""
    h = w = size
    ppc = float(rng.uniform(2, 6))
    colours = [
        (235, 235, 230), (200, 200, 195), (60, 60, 62), (30, 30, 32),
        (180, 150, 110), (120, 130, 140), (225, 215, 190),
    ]
    col = _colour(rng, colours[rng.integers(len(colours))], 15) / 255.0
    g = 0.93 + 0.06 * fractal(rng, h, w, 3, 3) + 0.03 * (rng.random((h, w), dtype=np.float32) - 0.5)
    return Surface(_tint(g * 255, col), ppc, "desk")


MAKERS: dict[str, Callable[[np.random.Generator, int], Surface]] = {
    "wood": wood,
    "felt": felt,
    "carpet": carpet,
    "cloth": cloth,
    "desk": desk,
}


def photo(rng: np.random.Generator, img: np.ndarray) -> Surface:
    """A cached table photo (RGB), randomly cropped, flipped and scaled."""
    h, w = img.shape[:2]
    side = int(min(h, w) * rng.uniform(0.5, 1.0))
    y = int(rng.integers(0, h - side + 1))
    x = int(rng.integers(0, w - side + 1))
    crop = img[y : y + side, x : x + side]
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    return Surface(np.ascontiguousarray(crop), float(side / rng.uniform(60, 200)), "photo")


def random_surface(
    rng: np.random.Generator,
    photos: list[np.ndarray],
    size: int = 512,
    weights: dict[str, float] | None = None,
) -> Surface:
    weights = weights or {
        "wood": 0.24,
        "felt": 0.18,
        "carpet": 0.2,
        "cloth": 0.1,
        "desk": 0.13,
        "photo": 0.15,
    }
    kinds = [k for k in weights if k != "photo" or photos]
    p = np.array([weights[k] for k in kinds], dtype=np.float64)
    kind = kinds[int(rng.choice(len(kinds), p=p / p.sum()))]
    if kind == "photo":
        return photo(rng, photos[int(rng.integers(len(photos)))])
    return MAKERS[kind](rng, size)
