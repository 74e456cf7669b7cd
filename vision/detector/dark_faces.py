"""Dark-faced decks read as light ones: the frame's lightness turned over for a second look.

Every network of the detector learned mostly from decks printed dark on white paper. A deck
printed light on black paper (gold or white pips, red suits left red) is a negative of such a
deck in lightness only: with its lightness turned over (luma ``Y`` -> 255 - ``Y``, colours
kept) its paper is light, its ink dark and its red pips still red, and the networks see the
decks they know. When a frame shows a dark deck, the finder looks again at the whole frame
turned over, and every dark face is named again turned over (``TwoStageDetector.detect``): on
the restyled held-out set the dark decks' cards rose from mAP50 0.382 to 0.57, with the
rendered and real light decks all but unchanged (``models/MODEL_CARD.md``).

A straightened crop shows a dark face when its median pixel lies in the darkest quarter of the
range between its 5th and 95th percentiles: a light card's paper fills most of the card (0.73
and up for nine in ten light pip cards on the held-out set), a dark card's paper too (0.26 and
under for nine in ten dark ones). The games are played with one deck, so a dark deck shows many
dark faces at once: a frame shows one when its dark faces are at least ``DARK_SHARE`` of its
faces. A light deck's court card whose art fills it, or a covered card showing the cards
around it, can look dark alone; read again, such cards gained nothing on the rendered held-out
set, and reading them cost a plain table 8 % more time a frame.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.detector.detections import SURE_BACK

# The median's place between the 5th and 95th percentiles under which a face is dark.
DARK_FACE = 0.25
# Share of the straightened crop's height and width left out on each side: the margin the
# crop is cut with shows the table around the card.
INNER = 0.125
# The rows and columns of the crop that are looked at (every third one: the percentiles of a
# card's paper and ink need no more).
STEP = 3
# Share of each dark card's box added on each side of the region inverted: its crops and index
# patches are cut with margins around the box and the card's corners.
AROUND = 0.3
# The share of a frame's faces (cards surely there and not surely backs) that must look dark.
DARK_SHARE = 0.3
# The finder's confidence from which a box counts among the frame's faces: its unsure boxes on
# the things around a close-up of one card are many and often dark, and it finds a dark deck's
# cards less surely than a light one's (counting every box, the dev photos by card fell from
# 0.9708 to 0.9699 (0.9704 so); from 0.25 on, the restyled held-out set scored 0.642 against 0.651).
SURELY_FOUND = 0.1
# A frame with no box from this finder confidence on (a card at all 0.5 or more) shows no card
# surely, and may show a dark deck the finder missed: it is looked at again turned over. The
# floor is the detector's own default cut and not ``SURELY_FOUND``, so that the same frames are
# looked at again whether the boxes are cut at 0.25 (the camera referee, ``cardref detect``) or
# kept from 0.01 (the label files for scoring); with 0.1 the cut detector found more cards than
# the files (``models/MODEL_CARD.md``, *... a frame with no card looked at again*).
BLIND_FOUND = 0.25
LUMA = np.array([0.114, 0.587, 0.299], np.float32)  # BGR weights of a pixel's grey level


def dark_faces(crops: np.ndarray) -> np.ndarray:
    """(n,) bool: which of the (n, h, w, 3) uint8 straightened BGR crops show a dark face."""
    n, h, w = crops.shape[:3]
    if not n:
        return np.zeros(0, bool)
    dy, dx = int(h * INNER), int(w * INNER)
    inner = crops[:, dy:h - dy:STEP, dx:w - dx:STEP].astype(np.float32) @ LUMA
    p5, p50, p95 = np.percentile(inner.reshape(n, -1), [5, 50, 95], axis=1)
    return (p50 - p5) / (p95 - p5 + 1) < DARK_FACE


def none_surely_found(found: np.ndarray, card: np.ndarray) -> bool:
    """Whether a frame shows no card surely: no box from finder confidence ``BLIND_FOUND`` on
    (``found``) with a card at all 0.5 or more (``card``)."""
    return not ((card >= 0.5) & (found >= BLIND_FOUND)).any()


def to_read_again(crops: np.ndarray, back: np.ndarray, card: np.ndarray,
                  dark_deck: bool | None = None) -> np.ndarray:
    """Indices of the cards of a frame to read again with their lightness turned over: its
    dark faces (``crops`` straightened) that are not surely backs (``back``: P(BACK)), when
    there are at least ``DARK_SHARE`` of the faces surely there (``card``: P(a card at all)),
    or whatever their share when the frame is known to show a dark deck (``dark_deck``)."""
    dark = dark_faces(crops)
    face = back < SURE_BACK
    sure = face & (card >= 0.5)
    if not dark_deck and (not sure.any() or (dark & sure).sum() < DARK_SHARE * sure.sum()):
        return np.zeros(0, np.int64)
    return np.flatnonzero(dark & face)


def around(boxes: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """(n, 4) xyxy: each card's found box and its corners together (a covered card's corners
    reach past its box, where the refiner guesses the hidden part)."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    return np.concatenate([np.minimum(b[:, :2], q.min(axis=1)), np.maximum(b[:, 2:], q.max(axis=1))], axis=1)


def inverted_lightness(image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """A copy of the BGR ``image`` whose lightness is turned over in each of the ``boxes``
    (xyxy, grown by ``AROUND``), the rest of the frame as it was. A pixel moves along the grey
    axis by 255 - 2Y (Y its luma): its luma becomes 255 - Y and its colour differences, the
    chroma of YCbCr, stay as they were."""
    out = image.copy()
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    grow = (np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]) * AROUND)[:, None]
    h, w = image.shape[:2]
    lo = np.maximum(np.floor(b[:, :2] - grow), 0).astype(int)
    hi = np.minimum(np.ceil(b[:, 2:] + grow) + 1, [w, h]).astype(int)
    for (x0, y0), (x1, y1) in zip(lo, hi, strict=True):
        if x1 > x0 and y1 > y0:
            part = image[y0:y1, x0:x1]
            shift = 255 - 2 * cv2.cvtColor(part, cv2.COLOR_BGR2GRAY).astype(np.int16)
            out[y0:y1, x0:x1] = np.clip(part + shift[..., None], 0, 255).astype(np.uint8)
    return out
