"""The shipped detector: a card finder (YOLO, one class) and a classifier that names each card.

Design (b) of the detector issue, chosen because it trains on a CPU: finding a card-shaped
object converges in a few epochs, and naming 54 classes is a small image-classification
problem on crops cut from the full-resolution frame (see ``models/MODEL_CARD.md``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from referee.errors import CardrefError
from vision.detector.crops import crops_batch, to_blob
from vision.detector.detections import Detections
from vision.detector.onnx_backend import RUNNERS


class CardClassifier:
    """The crop classifier on ONNX Runtime (or OpenVINO): crops in, class probabilities out."""

    def __init__(self, path: str | Path, threads: int | None = None, runtime: str = "onnx"):
        self.path = Path(path)
        if not self.path.exists():
            raise CardrefError(f"{self.path}: classifier model not found")
        self.run = RUNNERS[runtime](self.path, threads)

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """(n, classes) softmax probabilities of uint8 BGR crops (n, H, W, 3), averaged over
        each crop and the crop turned by 180 degrees: a card reads the same both ways up, and
        the two looks together name real cards better (rank accuracy on the real photos'
        true boxes 0.88 -> 0.90)."""
        n = len(crops)
        if not n:
            return np.zeros((0, 0), np.float32)
        both = np.concatenate([crops, crops[:, ::-1, ::-1]])
        logits = self.run(to_blob(both))
        z = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(z)
        p = e / e.sum(axis=1, keepdims=True)
        return ((p[:n] + p[n:]) / 2).astype(np.float32)


class TwoStageDetector:
    """Find cards with the one-class finder, then name each from its full-resolution crop.
    A box is kept when the finder's confidence reaches ``conf`` (a card is there, however
    unsure its name: the camera referee lets the rules choose among the likely names); its
    confidence is the finder's confidence times the classifier's probability, which ranks
    detections for mAP."""

    def __init__(self, finder, classifier: str | Path, conf: float = 0.25, threads: int | None = None,
                 runtime: str = "onnx"):
        self.finder = finder  # any backend with .detect(image) -> Detections (one class)
        self.classifier = CardClassifier(classifier, threads=threads, runtime=runtime)
        self.conf = conf

    def detect(self, image_bgr: np.ndarray) -> Detections:
        found = self.finder.detect(image_bgr)
        if not len(found):
            return found
        probs = self.classifier.probabilities(crops_batch(image_bgr, found.xyxy))
        class_id = probs.argmax(axis=1)
        confidence = found.confidence * probs[np.arange(len(probs)), class_id]
        keep = found.confidence >= self.conf
        return Detections(
            found.xyxy[keep],
            confidence[keep].astype(np.float32),
            class_id[keep].astype(np.int64),
            probs[keep],
            found.confidence[keep].astype(np.float32),
        )
