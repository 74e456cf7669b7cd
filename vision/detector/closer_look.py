"""A closer look at a photo of small cards: the finder run again at the input size that shows
them as large as it finds them best.

The finder was trained and is run with the frame's long side at 416 pixels: a card then spans
20-40 pixels in a game's overhead frame and 100-200 in a phone photo of a few cards. In a
photo of a spread of many cards, or a table seen from afar, the cards come out so small that
the finder misses some and boxes others loosely. Run again with the frame enlarged so that
the cards' median long side reaches ``CARD_PX``, it found and named more of them (rendered
held-out tables: mAP50 0.855 -> 0.876, ``models/MODEL_CARD.md``); a photo whose cards are
already that large is left as found (enlarged further, the dev photos scored worse: 0.975 at
416, 0.962 at 640, 0.923 at 832).

The camera referee does not look closer: a game's frames all show small cards, and the closer
look would cost every frame two finder passes, one of them several times the first's size.
It is for still photos and recorded videos read one frame at a time (``cardref detect``,
``cardref eval``).
"""

from __future__ import annotations

import numpy as np

from vision.detector.detections import Detections

CARD_PX = 100  # the cards' median long side at the finder's input that the closer look aims at
SURELY_A_CARD = 0.25  # the finder's confidence from which a box counts in the median (the default cut)
WORTH_IT = 1.25  # a closer look that would enlarge the frame less than this is not taken
MOST_PX = 832  # the closer look's longest input side (the frame's own long side if smaller)
STRIDE = 32  # the finder's input sides are multiples of its stride


def median_card_px(found: Detections, shape: tuple[int, int], imgsz: int) -> float | None:
    """The median long side, in pixels of the finder's input at ``imgsz``, of the boxes the
    finder is sure of; None when it is sure of none."""
    sure = found.confidence >= SURELY_A_CARD
    if not sure.any():
        return None
    boxes = found.xyxy[sure].astype(np.float64)
    sides = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    return float(np.median(sides)) * imgsz / max(shape)


def closer_size(found: Detections, shape: tuple[int, int], imgsz: int) -> int | None:
    """The finder input size at which to look again at a frame of ``shape`` (h, w) whose
    first pass at ``imgsz`` found ``found``; None when the cards are large enough already, or
    none was found surely (nothing to measure them by)."""
    px = median_card_px(found, shape, imgsz)
    if px is None or px * WORTH_IT > CARD_PX:
        return None
    most = max(imgsz, min(MOST_PX, -(-max(shape) // STRIDE) * STRIDE))
    size = min(most, round(imgsz * CARD_PX / px / STRIDE) * STRIDE)
    return size if size >= imgsz * WORTH_IT else None
