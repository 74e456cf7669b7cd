"""Contact sheet of random synthetic samples with their boxes and class names drawn."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.layout import load_layout
from vision.synth.assets import Art, load_recipe
from vision.synth.render import render_sample

TILE = (480, 360)


def annotate(jpeg: bytes, labels, scale: float = 1.0) -> np.ndarray:
    """Decode a sample and draw its labelled boxes (green) and class names."""
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    thick = max(1, round(2 / scale))
    for lb in labels:
        if not lb.labelled or lb.box is None:
            continue
        x0, y0, x1, y1 = lb.box
        cv2.rectangle(img, (x0, y0), (x1 - 1, y1 - 1), (40, 230, 40), thick)
        font = 0.45 / scale
        (tw, th), _ = cv2.getTextSize(lb.cls, cv2.FONT_HERSHEY_SIMPLEX, font, thick)
        cv2.rectangle(img, (x0, y0), (x0 + tw + 2, y0 + th + 4), (40, 230, 40), -1)
        cv2.putText(
            img, lb.cls, (x0 + 1, y0 + th + 2), cv2.FONT_HERSHEY_SIMPLEX, font, (0, 0, 0), thick, cv2.LINE_AA
        )
    return img


def _fit(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    s = min(w / img.shape[1], h / img.shape[0])
    small = cv2.resize(
        img, (max(1, int(img.shape[1] * s)), max(1, int(img.shape[0] * s))), interpolation=cv2.INTER_AREA
    )
    tile = np.full((h, w, 3), 24, np.uint8)
    y, x = (h - small.shape[0]) // 2, (w - small.shape[1]) // 2
    tile[y : y + small.shape[0], x : x + small.shape[1]] = small
    return tile


def contact_sheet(
    out: str | Path,
    n: int,
    seed: int,
    recipe: str,
    imgsz: int = 960,
    layout: str = "royal_family",
    cols: int = 3,
) -> Path:
    art = Art(load_recipe(recipe))
    lay = load_layout(layout)
    tiles = []
    for i in range(n):
        s = render_sample(art, lay, seed, i, imgsz)
        scale = min(TILE[0] / s.width, TILE[1] / s.height)
        tiles.append(_fit(annotate(s.jpeg, s.labels, scale), TILE))
    while len(tiles) % cols:
        tiles.append(np.full((TILE[1], TILE[0], 3), 24, np.uint8))
    rows = [np.hstack(tiles[i : i + cols]) for i in range(0, len(tiles), cols)]
    sheet = np.vstack(rows)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    params = [cv2.IMWRITE_JPEG_QUALITY, 80] if out.suffix.lower() in (".jpg", ".jpeg") else []
    cv2.imwrite(str(out), sheet, params)
    return out
