"""The shipped detector: a card finder (YOLO, one class) and a classifier that names each card.

Design (b) of the detector issue, chosen because it trains on a CPU: finding a card-shaped
object converges in a few epochs, and naming 54 classes is a small image-classification
problem on crops cut from the full-resolution frame (see ``models/MODEL_CARD.md``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from referee.cards import CLASSES
from vision.detector.crops import crops_batch, to_blob
from vision.detector.detections import BACK_ID, SURE_BACK, Detections, likeliest_face
from vision.detector.model_files import open_onnx


def softmax(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


class CardClassifier:
    """The crop classifier on ONNX Runtime (or OpenVINO): crops in, class probabilities out."""

    def __init__(self, path: str | Path, threads: int | None = None, runtime: str = "onnx"):
        self.path = Path(path)
        self.run = open_onnx(self.path, runtime, threads, "classifier model")

    def read(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(n, 54) card probabilities and (n,) each crop's probability of being a card at all.

        The softmax is averaged over each crop and the crop turned by 180 degrees: a card reads
        the same both ways up, and the two looks together name real cards better (rank accuracy
        on the real photos' true boxes 0.88 -> 0.90). A classifier with a not-a-card output
        (``vision/detector/not_a_card.py``) gives the second array from the softmax over all
        its outputs; the card probabilities are the softmax over the card outputs alone, so a
        card's name and its likely alternatives are what the card rows say."""
        n = len(crops)
        if not n:
            return np.zeros((0, len(CLASSES)), np.float32), np.zeros(0, np.float32)
        both = np.concatenate([crops, crops[:, ::-1, ::-1]])
        logits = self.run(to_blob(both))
        cards = softmax(logits[:, : len(CLASSES)])
        cards = (cards[:n] + cards[n:]) / 2
        card = np.ones(n)
        if logits.shape[1] > len(CLASSES):
            p = softmax(logits)
            card = 1 - (p[:n, len(CLASSES)] + p[n:, len(CLASSES)]) / 2
        return cards.astype(np.float32), card.astype(np.float32)

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """(n, 54) card probabilities of uint8 BGR crops (n, H, W, 3): see :meth:`read`."""
        return self.read(crops)[0]


def name_ids(probs: np.ndarray) -> np.ndarray:
    """Each box's class id: its likeliest name, but a back only when the back is likelier than
    all the faces together (``SURE_BACK``), else its likeliest face. Court cards of an unseen
    design whose picture fills the card are the classifier's hesitant backs: on the held-out
    set 29 of the 32 backs named on face-up cards had P(BACK) under 0.5, and 1 of the
    face-down cards (`cardref eval`)."""
    class_id = probs.argmax(axis=1)
    hesitant = (class_id == BACK_ID) & (probs[:, BACK_ID] < SURE_BACK)
    return np.where(hesitant, likeliest_face(probs), class_id)


class TwoStageDetector:
    """Find cards with the one-class finder, then name each from its full-resolution crop.
    A box is kept when the finder's confidence reaches ``conf`` (a card is there, however
    unsure its name: the camera referee lets the rules choose among the likely names); its
    confidence is the finder's confidence times the classifier's probability of the name (and
    of a card at all, when the classifier has a not-a-card output), which ranks detections
    for mAP. A box on something that is no card keeps its place with a low confidence, and a
    low ``presence`` (the finder's confidence times the probability of a card at all)."""

    def __init__(self, finder, classifier: str | Path, conf: float = 0.25, threads: int | None = None,
                 runtime: str = "onnx"):
        self.finder = finder  # any backend with .detect(image) -> Detections (one class)
        self.classifier = CardClassifier(classifier, threads=threads, runtime=runtime)
        self.conf = conf

    def detect(self, image_bgr: np.ndarray) -> Detections:
        found = self.finder.detect(image_bgr)
        if not len(found):
            return found
        probs, card = self.classifier.read(crops_batch(image_bgr, found.xyxy))
        class_id = name_ids(probs)
        # How sure a card is there at all, whatever its name: the camera referee counts a box
        # as a card from this. The mat's empty zone outlines and its markers are card-shaped
        # enough for the finder; the classifier's not-a-card output takes most of them down.
        presence = found.confidence * card
        confidence = presence * probs[np.arange(len(probs)), class_id]
        keep = found.confidence >= self.conf
        return Detections(
            found.xyxy[keep],
            confidence[keep].astype(np.float32),
            class_id[keep].astype(np.int64),
            probs[keep],
            presence[keep].astype(np.float32),
        )
