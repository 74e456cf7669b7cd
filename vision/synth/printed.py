"""Printed things that are not cards: book and box covers, sticky notes, business cards.

Real tables carry them, and a finder trained only on plain paper and phones takes a picture
book cover or a flyer for a card (the costliest false positives on the real photos). Each
texture is drawn from the scene's random generator, so a seed gives the same table.
"""

from __future__ import annotations

import string

import cv2
import numpy as np

from vision.synth.textures import fractal

FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
)
# name -> (width, height) range in cm
SIZES = {
    "cover": ((11.0, 22.0), (15.0, 28.0)),
    "note": ((7.0, 8.0), (7.0, 8.0)),
    "bizcard": ((8.5, 9.0), (5.0, 5.5)),
    "flyer": ((10.0, 15.0), (14.0, 21.0)),
}


def _colour(rng: np.random.Generator, lo: int = 0, hi: int = 256) -> tuple[int, int, int]:
    return tuple(int(v) for v in rng.integers(lo, hi, 3))


def _words(rng: np.random.Generator) -> str:
    letters = string.ascii_uppercase if rng.random() < 0.5 else string.ascii_lowercase
    return " ".join(
        "".join(rng.choice(list(letters), int(rng.integers(2, 9)))) for _ in range(int(rng.integers(1, 4)))
    )


def printed_texture(
    rng: np.random.Generator, kind: str, w_cm: float, h_cm: float, ppc: int = 12
) -> np.ndarray:
    """An RGB uint8 image of the printed side of a ``kind`` object, ``ppc`` pixels a cm."""
    w, h = max(8, int(w_cm * ppc)), max(8, int(h_cm * ppc))
    if kind == "note":
        img = np.full((h, w, 3), _colour(rng, 170, 256), np.uint8)
    elif kind == "bizcard":
        img = np.full((h, w, 3), _colour(rng, 215, 256), np.uint8)
    else:  # a cover or flyer: a gradient or a photo-like field
        a, b = np.array(_colour(rng), np.float32), np.array(_colour(rng), np.float32)
        t = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
        img = (a * (1 - t) + b * t).repeat(w, axis=1)
        if rng.random() < 0.6:  # a picture: coloured noise blobs in a box
            x0, y0 = int(rng.integers(0, w // 2)), int(rng.integers(0, h // 2))
            x1, y1 = int(rng.integers(x0 + w // 4, w + 1)), int(rng.integers(y0 + h // 4, h + 1))
            n = fractal(rng, y1 - y0, x1 - x0, int(rng.integers(2, 6)))[..., None]
            img[y0:y1, x0:x1] = np.array(_colour(rng), np.float32) * n + np.array(
                _colour(rng), np.float32
            ) * (1 - n)
        img = np.clip(img, 0, 255).astype(np.uint8)
    for _ in range(int(rng.integers(0, 4))):  # shapes
        c = _colour(rng)
        if rng.random() < 0.5:
            cv2.circle(
                img,
                (int(rng.integers(0, w)), int(rng.integers(0, h))),
                int(rng.integers(3, max(4, w // 3))),
                c,
                -1,
                cv2.LINE_AA,
            )
        else:
            p0 = (int(rng.integers(0, w)), int(rng.integers(0, h)))
            cv2.rectangle(
                img, p0, (p0[0] + int(rng.integers(4, w)), p0[1] + int(rng.integers(4, h // 2 + 5))), c, -1
            )
    ink = (20, 20, 25) if img.mean() > 110 else (240, 240, 235)
    y = int(rng.integers(ppc, 3 * ppc))
    while y < h - ppc // 2 and rng.random() < 0.85:  # lines of text
        scale = float(rng.uniform(0.25, 1.2)) * ppc / 12
        colour = ink if rng.random() < 0.7 else _colour(rng)
        cv2.putText(
            img,
            _words(rng),
            (int(rng.integers(2, max(3, w // 4))), y),
            FONTS[int(rng.integers(len(FONTS)))],
            scale,
            colour,
            max(1, int(scale * 2)),
            cv2.LINE_AA,
        )
        y += int(scale * 30) + int(rng.integers(2, ppc))
    if kind in ("cover", "flyer") and rng.random() < 0.3:  # a barcode
        x0, y0 = int(rng.integers(0, max(1, w - 4 * ppc))), int(rng.integers(0, max(1, h - 2 * ppc)))
        x = x0
        while x < min(w, x0 + 4 * ppc):
            bw = int(rng.integers(1, 4))
            if rng.random() < 0.5:
                img[y0 : y0 + 2 * ppc, x : x + bw] = 0
            x += bw
    return img


def printed_size(rng: np.random.Generator, kind: str) -> tuple[float, float]:
    (w0, w1), (h0, h1) = SIZES[kind]
    return float(rng.uniform(w0, w1)), float(rng.uniform(h0, h1))
