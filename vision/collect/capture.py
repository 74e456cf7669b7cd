"""Which frames to keep, and their pre-labels: settled new table states, timed snapshots.

The table is read when it has settled into something new (:class:`vision.motion.SettleDetector`),
``reads`` frames in a row, as the camera referee does; the last of them is kept. The reads
cross-check each other: a card named differently, or seen in some reads only, is *disputed*
and the frame is flagged for review, as is any box the model is unsure of. A frame that looks
like one already kept in this run (small grey thumbnails that barely differ) is skipped.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from referee.cards import CLASSES
from vision.collect.store import Entry, Session
from vision.collect.yolo_labels import LabelBox, from_detections
from vision.detector.detections import Detections, box_iou
from vision.motion import SettleDetector

Detect = Callable[[np.ndarray, int], Detections]


@dataclass
class CollectSettings:
    reads: int = 3  # settled frames read per table state (cross-checked)
    quiet_s: float = 0.4  # stillness before the table counts as settled
    every_s: float | None = None  # also keep a still frame this often (None: only new states)
    conf: float = 0.25  # boxes below this are not pre-labelled
    review_below: float = 0.5  # a pre-label below this flags the frame for review
    min_change: float = 0.002  # share of thumbnail pixels that must differ from every kept frame


@dataclass
class Reading:
    """A moment worth keeping: the frame and the detector's reads (the last one is of it)."""

    index: int
    time: float
    image: np.ndarray
    reads: list[Detections]
    trigger: str  # settled | every


class StateWatcher:
    """Frames in, :class:`Reading` out when the table settled into a new state or a timed
    snapshot is due. The detector runs only then."""

    def __init__(self, detect: Detect, settings: CollectSettings):
        self.detect, self.settings = detect, settings
        self.settle = SettleDetector(quiet_s=settings.quiet_s)
        self.pending: list[Detections] = []
        self.last_snapshot = -math.inf

    def update(self, index: int, t: float, image: np.ndarray) -> Reading | None:
        motion = self.settle.update(image, t)
        if motion.moving:
            self.pending = []
            return None
        if self.pending or motion.read_now:
            self.pending.append(self.detect(image, index))
            if len(self.pending) < self.settings.reads:
                return None
            self.settle.mark_read(image)
            reads, self.pending = self.pending, []
            self.last_snapshot = t
            return Reading(index, t, image, reads, "settled")
        every = self.settings.every_s
        if every and t - self.last_snapshot >= every:
            self.last_snapshot = t
            return Reading(index, t, image, [self.detect(image, index)], "every")
        return None

    def force_read(self) -> None:
        """Read the next settled frame even if the table looks as it did at the last read."""
        self.settle.force_read()


def disputes(reads: list[Detections]) -> list[str]:
    """Disagreements between the last read and the others (IoU ≥ 0.5 pairs the boxes)."""
    final, out = reads[-1], []
    for other in reads[:-1]:
        iou = box_iou(final.xyxy, other.xyxy) if len(final) and len(other) else np.zeros((len(final), 0))
        for i, name in enumerate(final.names):
            j = int(np.argmax(iou[i])) if iou.shape[1] else -1
            if j < 0 or iou[i, j] < 0.5:
                out.append(f"{name} not seen in every read")
            elif other.class_id[j] != final.class_id[i]:
                out.append(f"{name} also read as {CLASSES[other.class_id[j]]}")
        unmatched = (iou < 0.5).all(axis=0) if len(final) else np.ones(len(other), bool)
        out += [f"{CLASSES[c]} seen in another read only" for c in other.class_id[unmatched]]
    return list(dict.fromkeys(out))


def prelabel(reading: Reading, settings: CollectSettings) -> tuple[list[LabelBox], list[str]]:
    """The kept frame's boxes (confidence ≥ conf) and the reasons to review it, if any. The
    confidence here is the finder's times the class probability: keeping every box the finder
    alone is sure of found all the cards of a rendered table but doubled the boxes to review
    (measured on two 30-move games with an unseen deck: precision 0.54 against 0.86)."""
    reads = [d[d.confidence >= settings.conf] for d in reading.reads]
    h, w = reading.image.shape[:2]
    boxes = from_detections(reads[-1], w, h)
    reasons = []
    unsure = [b for b in boxes if b.confidence is not None and b.confidence < settings.review_below]
    if unsure:
        reasons.append("low confidence: " + ", ".join(f"{b.name} {b.confidence:.2f}" for b in unsure))
    reasons += disputes(reads)
    if not boxes:
        reasons.append("no cards found")
    return boxes, reasons


def unusable(image: np.ndarray | None) -> str | None:
    """Why a decoded frame cannot be used, or None."""
    if image is None or not isinstance(image, np.ndarray) or image.size == 0:
        return "empty frame"
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        return f"not an 8-bit colour image (shape {image.shape}, {image.dtype})"
    return None


class Collector:
    """Frames of one collect run in, saved entries out."""

    def __init__(
        self,
        session: Session,
        detect: Detect,
        settings: CollectSettings | None = None,
        log: Callable[[str], None] = print,
    ):
        self.session, self.settings, self.log = session, settings or CollectSettings(), log
        self.watcher = StateWatcher(detect, self.settings)
        self.kept: list[np.ndarray] = []  # thumbnails of the frames kept
        self.duplicates = 0
        self.unreadable: list[int] = []

    def skip_unreadable(self, index: int, why: str) -> None:
        self.unreadable.append(index)
        self.log(f"frame {index}: unreadable ({why}), skipped")

    def is_duplicate(self, image: np.ndarray) -> bool:
        small = SettleDetector.small(image)
        return any(SettleDetector.changed(small, k) < self.settings.min_change for k in self.kept)

    def process(self, index: int, t: float, image: np.ndarray) -> Entry | None:
        why = unusable(image)
        if why:
            self.skip_unreadable(index, why)
            return None
        reading = self.watcher.update(index, t, image)
        if reading is None:
            return None
        if self.is_duplicate(image):
            self.duplicates += 1
            self.log(f"frame {index}: same as a frame already kept, skipped")
            return None
        boxes, reasons = prelabel(reading, self.settings)
        entry = self.session.save(index, t, image, boxes, reading.trigger, reasons)
        self.kept.append(SettleDetector.small(image))
        flag = f"  REVIEW: {entry.reason}" if entry.flagged else ""
        self.log(f"frame {index} ({t:.1f}s, {reading.trigger}): {len(boxes)} cards -> {entry.image}{flag}")
        return entry
