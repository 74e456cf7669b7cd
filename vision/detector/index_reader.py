"""The corner-index reader: a card named by the rank and suit printed in its corners.

Players name a card by its corner index, the one part of the face that nearly every deck prints
the same way; court pictures and pip layouts differ from deck to deck. Once the corner refiner
has straightened a card, its two printed corners (top-left, and bottom-right turned by 180
degrees) are cut at a fixed share of the card (``vision/synth/indices.py``) and read by a small
network trained on generated patches (``vision/detector/index_train.py``): a rank (A-K or
*none*) and a suit (S, H, D, C or *none*). The rank and suit become probabilities over the 54
classes (:func:`card_probs`: *none* is no evidence), the two corners are pooled (a mixture:
a corner under another card leaves the naming to the other), and the result is a third view
fused with the whole-card ones.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from referee.cards import CLASSES
from vision.detector.crops import to_blob
from vision.detector.detections import softmax
from vision.detector.geometry import Rects
from vision.detector.model_files import open_onnx
from vision.synth.indices import NONE, PATCH_H, PATCH_W, RANK_CLASSES, SUIT_CLASSES, both_patches


def index_for(classifier: Path) -> Path:
    """The index reader beside a classifier: ``cards_cls.onnx`` -> ``cards_idx.onnx``."""
    return classifier.with_name(classifier.name.replace("_cls", "_idx"))


def _class_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each of the 52 faces among the 54 classes: its id, its rank row and its suit row."""
    faces = [i for i, c in enumerate(CLASSES) if c not in ("JK", "BACK")]
    ranks = [RANK_CLASSES.index(CLASSES[i][:-1]) for i in faces]
    suits = [SUIT_CLASSES.index(CLASSES[i][-1]) for i in faces]
    return np.array(faces), np.array(ranks), np.array(suits)


FACE_IDS, FACE_RANK, FACE_SUIT = _class_table()
RANK_NONE, SUIT_NONE = RANK_CLASSES.index(NONE), SUIT_CLASSES.index(NONE)


def card_probs(rank_p: np.ndarray, suit_p: np.ndarray) -> np.ndarray:
    """(n, 54) class probabilities from (n, ranks) and (n, suits). A corner that shows no index
    (a back, a joker, a corner under another card) says nothing about the name: that share is
    spread evenly over the 54 classes; the rest goes to the faces, each the product of its
    rank's and suit's probabilities."""
    n = len(rank_p)
    unknown = 1 - (1 - rank_p[:, RANK_NONE]) * (1 - suit_p[:, SUIT_NONE])
    faces = rank_p[:, FACE_RANK] * suit_p[:, FACE_SUIT]
    faces = faces / np.maximum(faces.sum(axis=1, keepdims=True), 1e-12)
    p = np.repeat((unknown / len(CLASSES))[:, None], len(CLASSES), axis=1)
    p[np.arange(n)[:, None], FACE_IDS[None, :]] += (1 - unknown)[:, None] * faces
    return p


class IndexReader:
    """The index reader on ONNX Runtime (or OpenVINO): straightened cards in, (n, 54) out."""

    def __init__(self, path: str | Path, threads: int | None = None, runtime: str = "onnx"):
        self.path = Path(path)
        self.run = open_onnx(self.path, runtime, threads, "index reader model")

    def patches(self, image: np.ndarray, rects: Rects) -> np.ndarray:
        """(n, 2, h, w, 3) uint8: each card's two printed corners, upright."""
        quads = rects.quads()
        if not len(quads):
            return np.zeros((0, 2, PATCH_H, PATCH_W, 3), np.uint8)
        return np.stack([both_patches(image, q) for q in quads])

    def read(self, image: np.ndarray, rects: Rects) -> np.ndarray:
        """(n, 54) card probabilities from both printed corners of each card."""
        patches = self.patches(image, rects)
        n = len(patches)
        if not n:
            return np.zeros((0, len(CLASSES)), np.float32)
        logits = self.run(to_blob(patches.reshape(2 * n, PATCH_H, PATCH_W, 3)))
        nr = len(RANK_CLASSES)
        per_corner = card_probs(softmax(logits[:, :nr]), softmax(logits[:, nr:]))
        return per_corner.reshape(n, 2, -1).mean(axis=1).astype(np.float32)
