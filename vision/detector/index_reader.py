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
from vision.synth.indices import (
    NONE,
    PATCH_H,
    PATCH_W,
    RANK_CLASSES,
    SUIT_CLASSES,
    both_corners,
    cut_patches,
    window_quads,
)


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
# A found box under this share of the upright box around its straightened card: a card partly
# under others (0.7 to 0.9 measured alike on the held-out rendered set).
COVERED = 0.8


def shows_index(rank_p: np.ndarray, suit_p: np.ndarray) -> np.ndarray:
    """(n,) how sure the reader is that a patch shows an index at all (neither rank nor suit
    *none*)."""
    return (1 - rank_p[:, RANK_NONE]) * (1 - suit_p[:, SUIT_NONE])


def placements(quad: np.ndarray, box: np.ndarray) -> np.ndarray:
    """(4, 4, 2): ``quad`` moved so that its upright bounding box shares each corner of ``box``
    in turn: where the card lies if the found box holds one of its corners."""
    lo, hi = quad.min(axis=0), quad.max(axis=0)
    x0, y0, x1, y1 = box
    return np.stack([quad + np.array([x - qx, y - qy])
                     for x, qx in ((x0, lo[0]), (x1, hi[0])) for y, qy in ((y0, lo[1]), (y1, hi[1]))])


def covered(quads: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(n,) True where the found box is under ``COVERED`` of the area of the upright box around
    the card's corners: the card is partly under others, and its corners are the refiner's guess."""
    size = quads.max(axis=1) - quads.min(axis=1)
    area = np.maximum(size[:, 0] * size[:, 1], 1e-9)
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]) < COVERED * area


def in_boxes(points: np.ndarray, box: np.ndarray) -> np.ndarray:
    """(m,) whether each of (m, 2) points lies in ``box`` (x0, y0, x1, y1), edges included."""
    x0, y0, x1, y1 = box
    x, y = points[:, 0], points[:, 1]
    return (x0 <= x) & (x <= x1) & (y0 <= y) & (y <= y1)


def card_probs(rank_p: np.ndarray, suit_p: np.ndarray) -> np.ndarray:
    """(n, 54) class probabilities from (n, ranks) and (n, suits). A corner that shows no index
    (a back, a joker, a corner under another card) says nothing about the name: that share is
    spread evenly over the 54 classes; the rest goes to the faces, each the product of its
    rank's and suit's probabilities."""
    n = len(rank_p)
    unknown = 1 - shows_index(rank_p, suit_p)
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

    def patches(self, image: np.ndarray, quads: np.ndarray) -> np.ndarray:
        """(n, 2, h, w, 3) uint8: the two printed corners of each card at ``quads``, upright
        (the card's own top-left corner, and that of the card turned by 180 degrees)."""
        corners = both_corners(quads)
        return cut_patches(image, corners).reshape(len(corners) // 2, 2, PATCH_H, PATCH_W, 3)

    def _read(self, patches: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(m, 54) card probabilities and (m,) index evidence of (m, h, w, 3) patches."""
        logits = self.run(to_blob(patches))
        nr = len(RANK_CLASSES)
        rank_p, suit_p = softmax(logits[:, :nr]), softmax(logits[:, nr:])
        return card_probs(rank_p, suit_p), shows_index(rank_p, suit_p)

    def read(self, image: np.ndarray, rects: Rects, boxes: np.ndarray | None = None,
             again: Rects | None = None, which: np.ndarray | None = None) -> np.ndarray:
        """(n, 54) card probabilities from both printed corners of each card.

        With the found ``boxes``, a card mostly covered by others (:func:`covered`) is read at
        four more places too, its corners moved into each corner of its box (:func:`placements`),
        at each the printed corner that would lie in the box: the refiner must guess the hidden
        part of such a card, and its guess often puts the index patch on the card above. The
        patches are pooled by how surely each shows an index. On the held-out rendered cards
        less than half in view, the fused names went from 0.481 to 0.556 right, the others
        unchanged (``models/MODEL_CARD.md``).

        The cards ``which`` (indices into ``rects``) are read a second way too, at ``again``
        (their corners as a second refiner guessed them), and get the mean of the two readings.
        All patches go through the reader in one run: a run of its own for the second reading
        cost a frame 0.5 ms more (``bench/detector.py``)."""
        boxes = None if boxes is None else np.asarray(boxes, np.float64)
        looks = [(rects.quads(), boxes)]
        which = np.zeros(0, np.int64) if again is None or which is None else np.asarray(which, np.int64)
        if len(which):
            looks.append((again.quads(), None if boxes is None else boxes[which]))
        gathered = [self._gather(image, quads, bx) for quads, bx in looks]
        if not len(gathered[0][0]):
            return np.zeros((0, len(CLASSES)), np.float32)
        probs, shown = self._read(np.concatenate([g[0] for g in gathered]))
        outs, at = [], 0
        for (patches, owner, n, hidden), _ in zip(gathered, looks, strict=True):
            m = len(patches)
            outs.append(self._pool(probs[at:at + m], shown[at:at + m], owner, n, hidden))
            at += m
        out = outs[0]
        if len(which):
            out[which] = (out[which] + outs[1]) / 2
        return out

    def _gather(self, image: np.ndarray, quads: np.ndarray,
                boxes: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        """The patches to read for the cards at ``quads``: both printed corners of each card,
        then the covered cards' other places (of each placement's two printed corners, the one
        whose index would lie in the found box: the other is under cards); each extra patch's
        card (``owner``), the number of cards and the covered ones."""
        patches = self.patches(image, quads)
        n = len(patches)
        hidden = np.zeros(0, np.int64) if boxes is None or not n else np.flatnonzero(covered(quads, boxes))
        owner, more = [], [patches.reshape(2 * n, PATCH_H, PATCH_W, 3)]
        for i in hidden:
            corners = both_corners(placements(quads[i], boxes[i]))
            inside = in_boxes(window_quads(corners).mean(axis=1), boxes[i])
            owner += [i] * int(inside.sum())
            more.append(cut_patches(image, corners[inside]))
        return np.concatenate(more), np.array(owner, int), n, hidden

    @staticmethod
    def _pool(probs: np.ndarray, shown: np.ndarray, owner: np.ndarray, n: int,
              hidden: np.ndarray) -> np.ndarray:
        """Each card's probabilities from its patches' readings (``_gather``'s order): the mean
        of its two printed corners, or for a covered card all its patches weighed by how surely
        each shows an index."""
        out = probs[: 2 * n].reshape(n, 2, -1).mean(axis=1)
        for i in hidden:
            mine = np.concatenate([[2 * i, 2 * i + 1], 2 * n + np.flatnonzero(owner == i)])
            weight = shown[mine] + 1e-3
            out[i] = (probs[mine] * weight[:, None]).sum(axis=0) / weight.sum()
        return out.astype(np.float32)
