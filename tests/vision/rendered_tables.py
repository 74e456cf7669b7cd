"""Tables the renderer draws for the detector's tests, with card designs never used in training:
each picture with the boxes and names of its labelled cards."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from referee.cards import CLASSES
from vision.layout import load_layout
from vision.synth.assets import Art, load_recipe
from vision.synth.render import render_sample

ROOT = Path(__file__).resolve().parents[2]


def rendered_tables(seed: int, count: int, imgsz: int, weights: dict[str, float],
                    recipe: str = "holdout.yaml") -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(image, true xyxy boxes, true class ids) of ``count`` pictures of ``recipe``'s decks,
    ``imgsz`` pixels on the long side, the scenes drawn by ``weights`` (layout, scatter, closeup)."""
    art = Art(load_recipe(ROOT / "datasets" / "recipes" / recipe))
    layout = load_layout("royal_family")
    out = []
    for i in range(count):
        s = render_sample(art, layout, seed, i, imgsz=imgsz, weights=weights)
        image = cv2.imdecode(np.frombuffer(s.jpeg, np.uint8), cv2.IMREAD_COLOR)
        labelled = [lb for lb in s.labels if lb.labelled]
        boxes = np.array([lb.box for lb in labelled], np.float32).reshape(-1, 4)
        classes = np.array([CLASSES.index(lb.cls) for lb in labelled], np.int64)
        out.append((image, boxes, classes))
    return out
