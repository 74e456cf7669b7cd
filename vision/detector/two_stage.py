"""The shipped detector: a card finder (YOLO, one class) and a classifier that names each card.

Design (b) of the detector issue, chosen because it trains on a CPU: finding a card-shaped
object converges in a few epochs, and naming 54 classes is a small image-classification
problem on crops cut from the full-resolution frame (see ``models/MODEL_CARD.md``).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from referee.cards import CLASSES
from referee.errors import CardrefError
from vision.detector.closer_look import closer_size
from vision.detector.crops import CROP_H, CROP_W, crops_batch, to_blob
from vision.detector.dark_faces import (
    SURELY_FOUND,
    around,
    inverted_lightness,
    none_surely_found,
    to_read_again,
)
from vision.detector.detections import BACK_ID, NMS_IOU, SURE_BACK, Detections, likeliest_face, nms, softmax
from vision.detector.geometry import RECT_MARGIN, CornerRefiner, Rects, rectified_crops
from vision.detector.index_reader import IndexReader, covered, index_for
from vision.detector.model_files import open_onnx

# The index reader's say against each whole-card view's (1.0) in the fused names.
INDEX_WEIGHT = 1.0
# Its say on a card partly under others (``index_reader.covered``): the whole-card views then
# see mostly the cards above it, the index reader the corner that shows (``models/MODEL_CARD.md``,
# *More say to the index on a covered card*).
COVERED_INDEX_WEIGHT = 2.0
# A frame with no colour (a grey camera or photo): mean |B-G| + |G-R| under this many grey
# levels (rendered grey cameras 0-2.4, colour tables 7.7 and up, the dev photos 9.5 and up).
GREY_CHROMA = 4.0
# The box view's say among the faces in such a frame (``models/MODEL_CARD.md``).
GREY_BOX_WEIGHT = 0.25


def geometry_for(classifier: Path) -> Path:
    """The corner refiner beside a classifier: ``cards_cls.onnx`` -> ``cards_geo.onnx``."""
    return classifier.with_name(classifier.name.replace("_cls", "_geo"))


def wide_geometry_for(classifier: Path) -> Path:
    """The wide corner refiner beside a classifier: ``cards_cls.onnx`` -> ``cards_geo_wide.onnx``."""
    geo = geometry_for(classifier)
    return geo.with_name(geo.stem + "_wide.onnx")


class CardClassifier:
    """The crop classifier on ONNX Runtime (or OpenVINO): crops in, class probabilities out."""

    def __init__(self, path: str | Path, threads: int | None = None, runtime: str = "onnx"):
        self.path = Path(path)
        self.run = open_onnx(self.path, runtime, threads, "classifier model")
        # How its crops are cut: "box" (the finder's box, upright) or "rectified" (the card
        # straightened by the corner refiner), and their size, both from the model file.
        self.crop = self.run.metadata.get("crop", "box")
        self.judges_cards = False  # whether it has a not-a-card output: known at its first read
        h, w = self.run.input_shape[2:]
        self.size = (int(w), int(h)) if isinstance(w, int) and isinstance(h, int) else (CROP_W, CROP_H)

    def read(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(n, 54) card probabilities and (n,) each crop's probability of being a card at all.

        A box-view classifier's softmax is averaged over each crop and the crop turned by 180
        degrees: a card reads the same both ways up, and the two looks together name real cards
        better (rank accuracy on the real photos' true boxes 0.88 -> 0.90). A classifier of
        straightened cards reads each crop once: fused with the box view, its second look added
        nothing (true boxes of the real photos 0.975 either way) and cost a third of a frame's
        time. A classifier with a not-a-card output
        (``vision/detector/not_a_card.py``) gives the second array from the softmax over all
        its outputs; the card probabilities are the softmax over the card outputs alone, so a
        card's name and its likely alternatives are what the card rows say."""
        n = len(crops)
        if not n:
            return np.zeros((0, len(CLASSES)), np.float32), np.zeros(0, np.float32)
        looks = [crops] if self.crop == "rectified" else [crops, crops[:, ::-1, ::-1]]
        logits = self.run(to_blob(np.concatenate(looks)))
        cards = softmax(logits[:, : len(CLASSES)]).reshape(len(looks), n, -1).mean(axis=0)
        card = np.ones(n)
        self.judges_cards = logits.shape[1] > len(CLASSES)
        if self.judges_cards:
            card = 1 - softmax(logits)[:, len(CLASSES)].reshape(len(looks), n).mean(axis=0)
        return cards.astype(np.float32), card.astype(np.float32)


def name_ids(probs: np.ndarray) -> np.ndarray:
    """Each box's class id: its likeliest name, but a back only when the back is likelier than
    all the faces together (``SURE_BACK``), else its likeliest face. Court cards of an unseen
    design whose picture fills the card are the classifier's hesitant backs: on the held-out
    set 29 of the 32 backs named on face-up cards had P(BACK) under 0.5, and 1 of the
    face-down cards (`cardref eval`)."""
    class_id = probs.argmax(axis=1)
    hesitant = (class_id == BACK_ID) & (probs[:, BACK_ID] < SURE_BACK)
    return np.where(hesitant, likeliest_face(probs), class_id)


def fuse(probs: list[np.ndarray], weights: list[float] | np.ndarray | None = None) -> np.ndarray:
    """The views' card probabilities together: their weighted geometric mean, normalised. A
    name every view finds likely wins over one that only one of them is sure of. ``weights``:
    each view's say, one for every card (k,) or for each card its own (n, k)."""
    if len(probs) == 1:
        return probs[0]
    w = np.asarray(weights if weights is not None else [1.0] * len(probs), np.float64)
    w = np.broadcast_to(w, (len(probs[0]), len(probs)))
    w = w / w.sum(axis=1, keepdims=True)
    logp = sum(w[:, i, None] * np.log(np.clip(p, 1e-6, 1.0)) for i, p in enumerate(probs))
    e = np.exp(logp - logp.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def is_grey(image_bgr: np.ndarray) -> bool:
    """Whether the frame has no colour, judged on a coarse grid of its pixels."""
    grid = image_bgr[::8, ::8].astype(np.int16)
    chroma = np.abs(grid[..., 0] - grid[..., 1]) + np.abs(grid[..., 1] - grid[..., 2])
    return bool(chroma.mean() < GREY_CHROMA)


def faces_from(names: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """``names`` with its faces and joker shared out as in ``faces``: the back keeps its
    probability from ``names``."""
    out = faces.copy()
    out[:, BACK_ID] = 0
    out *= ((1 - names[:, BACK_ID]) / np.maximum(out.sum(axis=1), 1e-12))[:, None]
    out[:, BACK_ID] = names[:, BACK_ID]
    return out


def read_twice(view: CardClassifier, crops: np.ndarray, again: np.ndarray,
               which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``view.read`` of ``crops``, and of the cards ``which`` cut a second way (``again``), in
    one run; those cards' probabilities and card-at-all are the mean of their two readings."""
    p, card = view.read(np.concatenate([crops, again]) if len(which) else crops)
    n = len(crops)
    p, card, p2, card2 = p[:n].copy(), card[:n].copy(), p[n:], card[n:]
    p[which] = (p[which] + p2) / 2
    card[which] = (card[which] + card2) / 2
    return p, card


class TwoStageDetector:
    """Find cards with the one-class finder, then name each from its full-resolution crop.
    A box is kept when the finder's confidence reaches ``conf`` (a card is there, however
    unsure its name: the camera referee lets the rules choose among the likely names); its
    confidence is the finder's confidence times the classifier's probability of the name (and
    of a card at all, when the classifier has a not-a-card output), which ranks detections
    for mAP. A box on something that is no card keeps its place with a low confidence, and a
    low ``presence`` (the finder's confidence times the probability of a card at all).

    The naming may look at each card two ways (``classifiers``): straightened by its corners
    (a classifier whose crops are ``rectified``, with the corner refiner beside it) and cut by
    its box; and, with the index reader beside the first (``index``), by the rank and suit
    printed in its corners. Their probabilities are fused (:func:`fuse`)."""

    def __init__(self, finder, classifiers: str | Path | list[str | Path], conf: float = 0.25,
                 threads: int | None = None, runtime: str = "onnx", index: bool = True,
                 look_closer: bool = False):
        self.finder = finder  # any backend with .detect(image, imgsz=None) -> Detections (one class)
        paths = [Path(p) for p in (classifiers if isinstance(classifiers, list) else [classifiers])]
        self.views = [CardClassifier(p, threads=threads, runtime=runtime) for p in paths]
        self.refiner = None
        self.wide = None  # a second guess at each card's corners, from a square that shows its neighbours
        self.index = None  # the corner-index reader, beside a classifier of straightened cards
        rectified = [v for v in self.views if v.crop == "rectified"]
        if rectified:
            geo = geometry_for(rectified[0].path)
            if not geo.exists():
                raise CardrefError(f"{rectified[0].path}: names straightened cards, but its corner refiner "
                                   f"{geo} is missing")
            self.refiner = CornerRefiner(geo, threads=threads, runtime=runtime)
            wide = wide_geometry_for(rectified[0].path)
            if wide.exists():
                # Its file says its margin; one exported before it did was trained with 0.5.
                self.wide = CornerRefiner(wide, threads=threads, runtime=runtime, margin=0.5)
            reader = index_for(rectified[0].path)
            if index and reader.exists():
                self.index = IndexReader(reader, threads=threads, runtime=runtime)
        self.conf = conf
        self.read_dark = True  # dark-faced cards read again with their lightness turned over
        # A photo of small cards looked at again larger (``vision.detector.closer_look``): for
        # still photos, not the camera referee's frames.
        self.look_closer = look_closer

    def read_boxes(self, image_bgr: np.ndarray, boxes: np.ndarray):
        """For ``boxes``: the card probabilities (the views fused), the probability of a card at
        all (the mean over the views that have a not-a-card output) and each card's corners
        (None without a refiner)."""
        return self.read(image_bgr, boxes)[:3]

    def read(self, image_bgr: np.ndarray, boxes: np.ndarray, found: np.ndarray | None = None,
             dark_deck: bool | None = None):
        """:meth:`read_boxes`, and whether the frame shows a dark deck (its dark faces were read
        again, ``vision.detector.dark_faces``); ``found``: the finder's confidence in each box,
        by which a box counts among the frame's faces only from ``SURELY_FOUND`` on;
        ``dark_deck``: the frame is known to show one, whatever the share of these boxes."""
        rects = self.refiner.rects(image_bgr, boxes) if self.refiner is not None else None
        hidden, wide = self.second_guess(image_bgr, boxes, rects)
        probs, cards, straightened = self.read_views(image_bgr, boxes, rects, hidden, wide)
        # Each view's say: the index reader's, when it read, is INDEX_WEIGHT (it comes last).
        weights = np.ones((len(boxes), len(probs)))
        index_read = len(probs) > len(self.views)
        if index_read:
            weights[:, -1] = INDEX_WEIGHT
        card = np.mean(cards, axis=0) if cards else np.ones(len(boxes), np.float32)
        corners = None if rects is None else rects.quads().astype(np.float32)
        names = fuse(probs, weights)
        # The faces are shared out by other says where the views differ in what they can
        # see, the back's probability kept from ``names``.
        covered_w = weights.copy()
        if index_read:
            # A card partly under others: the whole-card views see mostly the cards above it,
            # the index reader the corner that shows.
            covered_w[hidden, -1] = COVERED_INDEX_WEIGHT
        faces_w = covered_w.copy()
        box_views = [i for i, v in enumerate(self.views) if v.crop != "rectified"]
        if box_views and len(probs) > len(box_views) and is_grey(image_bgr):
            # Without colour the box view, which never learned to name cards without it, reads
            # faces worse than the straightened view and the index reader; it keeps its say on
            # whether the card is face down.
            faces_w[:, box_views] = GREY_BOX_WEIGHT
        if (faces_w != weights).any():
            names = faces_from(names, fuse(probs, faces_w))
        dark = np.zeros(0, np.int64)
        if straightened is not None and self.read_dark:
            surely = card if found is None else np.where(found >= SURELY_FOUND, card, 0)
            dark = to_read_again(straightened, names[:, BACK_ID], surely, dark_deck)
            if len(dark):
                names[dark] = self.read_inverted(image_bgr, np.asarray(boxes)[dark], rects.take(dark),
                                                 names[dark], [p[dark] for p in probs], covered_w[dark],
                                                 box_views)
        return names, card.astype(np.float32), corners, bool(len(dark))

    def read_views(self, image_bgr: np.ndarray, boxes: np.ndarray, rects: Rects | None,
                   hidden: np.ndarray, wide: Rects | None):
        """Each view's card probabilities of ``boxes`` (the index reader's last), the card-at-all
        probabilities of the views that judge them, and the straightened crops (None without a
        straightened view)."""
        probs, cards, straightened = [], [], None
        for view in self.views:
            if view.crop == "rectified":
                again = rectified_crops(image_bgr, wide, view.size) if wide is not None else None
                straightened = rectified_crops(image_bgr, rects, view.size)
                p, card = read_twice(view, straightened, again, hidden)
            else:
                p, card = view.read(crops_batch(image_bgr, boxes))
            probs.append(p)
            if view.judges_cards:
                cards.append(card)
        if self.index is not None and rects is not None:
            probs.append(self.index.read(image_bgr, rects, boxes, again=wide, which=hidden))
        return probs, cards, straightened

    def read_inverted(self, image_bgr: np.ndarray, boxes: np.ndarray, rects: Rects, names: np.ndarray,
                      probs: list[np.ndarray], weights: np.ndarray, box_views: list[int]) -> np.ndarray:
        """The names of dark-faced cards (``vision.detector.dark_faces``): every view read again
        on the frame with its lightness turned over there, fused with the first reading's views
        but the box view's (which names 4 % of dark faces right); the back keeps its probability
        from ``names``, as the grey rule does. Each view keeps its say (``weights``) in both readings."""
        inverted = inverted_lightness(image_bgr, around(boxes, rects.quads(RECT_MARGIN)))
        none = np.zeros(0, np.int64)
        again, _, _ = self.read_views(inverted, boxes, rects, none, None)
        first = [i for i in range(len(probs)) if i not in box_views]
        fused = fuse([probs[i] for i in first] + again, np.concatenate([weights[:, first], weights], axis=1))
        return faces_from(names, fused)

    def second_guess(self, image_bgr: np.ndarray, boxes: np.ndarray,
                     rects: Rects | None) -> tuple[np.ndarray, Rects | None]:
        """The cards partly under others (their found box much smaller than the box around the
        refiner's corners, :func:`vision.detector.index_reader.covered`) and the wide refiner's
        guess at their corners; none without the wide refiner. Such a card's hidden corners can
        only be guessed, the two refiners guess them differently, and the straightened views read
        at both and averaged name more of them right than at either (``models/MODEL_CARD.md``).
        A card in view is read once: read twice, those gained little, and every card read twice
        made a frame 40 % slower."""
        none = np.zeros(0, np.int64)
        if self.wide is None or rects is None or not len(boxes):
            return none, None
        hidden = np.flatnonzero(covered(rects.quads(), np.asarray(boxes, np.float64)))
        if not len(hidden):
            return none, None
        return hidden, self.wide.rects(image_bgr, np.asarray(boxes)[hidden])

    def find(self, image_bgr: np.ndarray) -> tuple[Detections, int | None]:
        """The finder's boxes, and the input size they were found at when not the finder's own:
        with ``look_closer``, a frame of small cards is looked at again larger, and the second
        look's boxes replace the first's."""
        found = self.finder.detect(image_bgr)
        side = getattr(self.finder, "imgsz", None)
        if not (self.look_closer and getattr(self.finder, "resizable", False) and isinstance(side, int)):
            return found, None
        size = closer_size(found, image_bgr.shape[:2], side)
        if size is None:
            return found, None
        return self.finder.detect(image_bgr, imgsz=size), size

    def found_turned_over(self, image_bgr: np.ndarray, found: Detections,
                          size: int | None = None) -> tuple[Detections, np.ndarray]:
        """``found`` and the finder's boxes on the whole frame with its lightness turned over,
        overlapping pairs suppressed, and each kept box's index in ``found`` (-1 for a new one):
        the finder learned light decks, and finds more of a dark deck's cards so (on the
        restyled held-out set, the dark decks' cards found AP50 0.78 -> 0.89,
        ``models/MODEL_CARD.md``)."""
        # Turned over at the finder's own input size: the whole frame at full size took 10 ms.
        # ``size``: the input size ``found`` was found at, when the finder looked closer.
        h, w = image_bgr.shape[:2]
        side = size or getattr(self.finder, "imgsz", None)
        scale = min(1.0, side / max(h, w)) if isinstance(side, int) else 1.0
        small = (cv2.resize(image_bgr, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_LINEAR)
                 if scale < 1 else image_bgr)
        sh, sw = small.shape[:2]
        turned = inverted_lightness(small, np.array([[0, 0, sw, sh]], np.float64))
        more = self.finder.detect(turned, imgsz=size)
        xyxy = np.concatenate([found.xyxy, (more.xyxy / scale).astype(found.xyxy.dtype)])
        confidence = np.concatenate([found.confidence, more.confidence])
        keep = nms(xyxy, confidence, getattr(self.finder, "iou", NMS_IOU))
        origin = np.where(keep < len(found), keep, -1)
        return Detections(xyxy[keep], confidence[keep], np.zeros(len(keep), np.int64)), origin

    def detect(self, image_bgr: np.ndarray) -> Detections:
        found, size = self.find(image_bgr)
        probs, card, corners, dark = self.read(image_bgr, found.xyxy, found.confidence)
        # A frame where no card is surely found may show a dark deck the finder cannot see.
        blind = self.read_dark and self.refiner is not None and none_surely_found(found.confidence, card)
        if dark or blind:
            # The boxes of the first pass keep their reading; the new ones are read as cards of
            # the dark deck the frame shows, or, in a frame where none was surely found, as any.
            found, origin = self.found_turned_over(image_bgr, found, size)
            old, new = np.flatnonzero(origin >= 0), np.flatnonzero(origin < 0)
            read = [probs[origin[old]], card[origin[old]], corners[origin[old]]]
            if len(new):
                more = self.read(image_bgr, found.xyxy[new], found.confidence[new], dark_deck=dark or None)
                order = np.argsort(np.concatenate([old, new]), kind="stable")
                read = [np.concatenate([a, b])[order] for a, b in zip(read, more[:3], strict=True)]
            probs, card, corners = read
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
            None if corners is None else corners[keep],
        )
