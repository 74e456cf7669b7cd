"""``Detections``: the one type that flows from the detector through every vision stage."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from referee.cards import CLASSES

# A box is named face down only when the classifier gives the back at least this probability
# (more than all the faces together); a surer back from a faint box is what the camera takes
# for a printed zone outline (vision/detector/two_stage.py, vision/table_state.py).
SURE_BACK = 0.5
BACK_ID = CLASSES.index("BACK")


def softmax(logits: np.ndarray) -> np.ndarray:
    """Each row of a network's logits as probabilities."""
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def likeliest_face(probs: np.ndarray) -> np.ndarray:
    """The likeliest face class of each row of class probabilities (or of one row), the back
    left out: the name of a card the classifier read as face down where it cannot be."""
    faces = np.array(probs, copy=True)
    faces[..., BACK_ID] = -1
    return faces.argmax(axis=-1)


@dataclass(frozen=True)
class Detections:
    """Parallel arrays: ``xyxy`` (n, 4) float32 pixel boxes, ``confidence`` (n,) float32,
    ``class_id`` (n,) int64 indexing :data:`referee.cards.CLASSES`. A two-stage detector also
    gives each box's class probabilities and its ``presence``, how sure it is that a card is
    there at all, whatever its name (the finder's confidence times the classifier's
    probability of a card): a card can be surely there and unsurely named."""

    xyxy: np.ndarray
    confidence: np.ndarray
    class_id: np.ndarray
    class_probs: np.ndarray | None = None  # (n, classes) when the detector gives them
    presence: np.ndarray | None = None  # (n,) a card is there (two-stage detectors)
    corners: np.ndarray | None = None  # (n, 4, 2) each card's corners, upright TL TR BR BL (refiner)

    def __post_init__(self) -> None:
        n = len(self.xyxy)
        if self.xyxy.shape != (n, 4) or self.confidence.shape != (n,) or self.class_id.shape != (n,):
            raise ValueError(
                f"Detections arrays disagree: xyxy {self.xyxy.shape}, confidence "
                f"{self.confidence.shape}, class_id {self.class_id.shape}"
            )
        if self.class_probs is not None and self.class_probs.shape[0] != n:
            raise ValueError(f"Detections class_probs {self.class_probs.shape} for {n} boxes")
        if self.presence is not None and self.presence.shape != (n,):
            raise ValueError(f"Detections presence {self.presence.shape} for {n} boxes")
        if self.corners is not None and self.corners.shape != (n, 4, 2):
            raise ValueError(f"Detections corners {self.corners.shape} for {n} boxes")

    @classmethod
    def empty(cls) -> Detections:
        return cls(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64))

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index) -> Detections:
        probs = None if self.class_probs is None else self.class_probs[index]
        presence = None if self.presence is None else self.presence[index]
        corners = None if self.corners is None else self.corners[index]
        return Detections(self.xyxy[index], self.confidence[index], self.class_id[index], probs, presence,
                          corners)

    @property
    def found(self) -> np.ndarray:
        """How sure the detector is that a card is there: ``presence`` when it is separate,
        else the detection's confidence."""
        return self.confidence if self.presence is None else self.presence

    @property
    def names(self) -> list[str]:
        return [CLASSES[i] for i in self.class_id]


# A scoring tool's label file gives each box whose card faces up its likeliest names, each at
# least OTHER_NAME_FLOOR likely: a card named wrongly still counts for its right name, lower in
# the ranking, as Ultralytics' validation scores a box under every class it may be. Another
# name's confidence is OTHER_NAME_WEIGHT of its probability's, so that the likeliest name of an
# unsure box (a covered card) ranks above a second guess at a sure one. Held-out rendered
# cards, mAP50: 0.805 with one name per box, 0.841 with three at full confidence, 0.855 now;
# their names on the true boxes unchanged (models/MODEL_CARD.md, *Other likely names*).
NAMES_PER_BOX = 5
OTHER_NAME_FLOOR = 0.01
OTHER_NAME_WEIGHT = 0.1


def with_other_names(det: Detections, most: int = NAMES_PER_BOX,
                     floor: float = OTHER_NAME_FLOOR) -> Detections:
    """``det`` followed by a copy of each box under another of its ``most`` likeliest names that
    is at least ``floor`` likely, with the confidence ``OTHER_NAME_WEIGHT`` times ``presence``
    times that name's probability.
    A box named ``BACK`` keeps its one name and a face gets no ``BACK``: whether a card faces
    down is decided once (``SURE_BACK``), only a face's name is in doubt. The first ``len(det)``
    rows are ``det`` itself."""
    if most <= 1 or det.class_probs is None or det.presence is None or not len(det):
        return det
    faces = np.array(det.class_probs, copy=True)
    faces[np.arange(len(det)), det.class_id] = -1  # the name already given
    faces[:, BACK_ID] = -1
    faces[det.class_id == BACK_ID] = -1
    rows, names = [], []
    for _ in range(most - 1):
        best = faces.argmax(axis=1)
        p = faces[np.arange(len(det)), best]
        (sure,) = np.nonzero(p >= floor)
        rows.append(sure)
        names.append(best[sure])
        faces[sure, best[sure]] = -1
    row = np.concatenate(rows)
    if not len(row):
        return det
    order = np.argsort(row, kind="stable")  # a box's other names together, likeliest first
    row, name = row[order], np.concatenate(names)[order]
    other = OTHER_NAME_WEIGHT * det.presence[row] * det.class_probs[row, name]
    return replace(det[np.concatenate([np.arange(len(det)), row])],
                   confidence=np.concatenate([det.confidence, other]).astype(np.float32),
                   class_id=np.concatenate([det.class_id, name]).astype(np.int64))


# A deck holds one card of each face. In the label files, of two lines of one face name whose
# boxes overlap by REPEAT_IOU or more, the less sure is a second box on the same card (the
# finder keeps overlapping boxes, for the cards of fans and spreads) and counts at REPEAT_WEIGHT
# of its confidence: Ultralytics suppresses such a box class by class. Backs and jokers come
# more than once to a deck. Held-out mAP50 0.876 -> 0.880, its cards less than half in view
# 0.593 -> 0.609 (models/MODEL_CARD.md, *A second box of one name on a card*).
REPEAT_IOU = 0.5
REPEAT_WEIGHT = 0.1
JOKER_ID = CLASSES.index("JK")


def repeats_lowered(named: Detections) -> Detections:
    """``named`` with each line that a surer line of its face name overlaps by ``REPEAT_IOU``
    or more at ``REPEAT_WEIGHT`` of its confidence (greedy, surest first, name by name)."""
    confidence = np.array(named.confidence, copy=True)
    for name in np.unique(named.class_id):
        (lines,) = np.nonzero(named.class_id == name)
        if name in (BACK_ID, JOKER_ID) or len(lines) < 2:
            continue
        kept = lines[nms(named.xyxy[lines], named.confidence[lines], REPEAT_IOU - 1e-9)]
        confidence[np.setdiff1d(lines, kept)] *= REPEAT_WEIGHT
    return replace(named, confidence=confidence)


def label_lines(det: Detections, most: int = NAMES_PER_BOX) -> Detections:
    """What a label file of ``cardref detect --save-txt`` holds, and ``cardref eval`` scores:
    each box under its likeliest names (:func:`with_other_names`), a second box of a face name
    on one card lowered (:func:`repeats_lowered`)."""
    return repeats_lowered(with_other_names(det, most))


def box_area(boxes: np.ndarray) -> np.ndarray:
    """Areas (n,) of xyxy boxes."""
    return (boxes[:, 2:] - boxes[:, :2]).clip(0).prod(axis=1)


def box_intersection(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Intersection areas (len(a), len(b)) of xyxy boxes."""
    tl = np.maximum(a[:, None, :2], b[None, :, :2])
    br = np.minimum(a[:, None, 2:], b[None, :, 2:])
    return np.clip(br - tl, 0, None).prod(axis=2)


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU matrix (len(a), len(b)) of xyxy boxes."""
    inter = box_intersection(a, b)
    return inter / np.maximum(box_area(a)[:, None] + box_area(b)[None, :] - inter, 1e-9)


def best_overlaps(iou: np.ndarray, threshold: float = 0.5) -> list[tuple[int, int]]:
    """Greedy one-to-one (row, column) pairs of an IoU matrix, best overlaps first, each at
    least ``threshold``: each true card matched to one box and each box to one card."""
    pairs: list[tuple[int, int]] = []
    used_rows, used_cols = set(), set()
    for r, c in zip(*np.unravel_index(np.argsort(-iou, axis=None), iou.shape), strict=True):
        if iou[r, c] < threshold:
            break
        if r not in used_rows and c not in used_cols:
            pairs.append((int(r), int(c)))
            used_rows.add(r)
            used_cols.add(c)
    return pairs


# The finder keeps only the surer of two boxes that overlap more than this (Ultralytics' own
# default). At 0.6, until 2026-12-01, it dropped cards of tight fans and spreads, whose boxes of
# what shows overlap their neighbours' (models/MODEL_CARD.md).
NMS_IOU = 0.7


def nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Indices kept by greedy non-maximum suppression, best first. The overlaps of all pairs are
    computed at once: a frame's few dozen candidates made the overlaps one box at a time cost
    more than the matrix."""
    order = np.argsort(-scores, kind="stable")
    if len(order) < 2:
        return order.astype(np.int64)
    over = box_iou(boxes, boxes) > iou_threshold
    suppressed = np.zeros(len(order), bool)
    keep: list[int] = []
    for i in order:
        if not suppressed[i]:
            keep.append(int(i))
            suppressed |= over[i]
    return np.array(keep, dtype=np.int64)
