"""Photos labelled by their cards' corner indices, scored by card.

Many public card datasets box each printed corner index (the rank and suit a player reads), not
the card: a card shows one or two such boxes, and in a fan or a spread often only one. Scored
as whole-card boxes, a detector that finds every card would score nothing (a card's box and its
index's box hardly overlap). So a card is all the index boxes of one name in a photo (a photo
of one deck holds each card once), and a detected box *covers* it when the centre of each of
its labelled corners lies in the box and the box is no larger than a few cards of that
corner's size (a box over half the table covers every corner in it): the card was found,
wherever its hidden part is, and its name comes from the box's class. Ranked by confidence,
the covered cards give an average precision per class, as mAP does for whole-card boxes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.detector.metrics import ImageResult, average_precision

# A photo whose boxes are mostly this small against the photo's own cards looks corner-labelled:
# a corner index covers about 0.06 of its card's area (0.19 x 0.25 of the face, ``INDEX_REGIONS``).
CORNER_AREA_SHARE = 0.12
# The largest box that may cover a card, in areas of its labelled corner: a card is about 21
# corners, so this is about two and a half cards.
MAX_COVER_AREA = 50.0


@dataclass
class CornerCard:
    """One labelled card of a photo: its class and the centres of its labelled corners."""

    cls: int
    centres: np.ndarray  # (k, 2)
    corner_area: float  # the median area of its labelled corners


def cards_of(result: ImageResult) -> list[CornerCard]:
    """The labelled cards of a photo: its corner boxes grouped by class."""
    centres = (result.gt_boxes[:, :2] + result.gt_boxes[:, 2:]) / 2
    areas = _areas(result.gt_boxes)
    return [CornerCard(int(c), centres[mine], float(np.median(areas[mine])))
            for c in np.unique(result.gt_classes) for mine in [result.gt_classes == c]]


def covers(boxes: np.ndarray, card: CornerCard) -> np.ndarray:
    """(n,) True where the box holds the centre of every labelled corner of ``card`` and is not
    over ``MAX_COVER_AREA`` of its corners."""
    x, y = card.centres[:, 0], card.centres[:, 1]
    inside = ((boxes[:, None, 0] <= x) & (x <= boxes[:, None, 2])
              & (boxes[:, None, 1] <= y) & (y <= boxes[:, None, 3]))
    return inside.all(axis=1) & (_areas(boxes) <= MAX_COVER_AREA * card.corner_area)


@dataclass
class CornerScore:
    cards: int
    map_cover: float  # mean over classes of the AP of boxes covering cards of their class
    named: float  # share of cards covered by a box of their name (any confidence kept; its likeliest)
    named_sure: float  # the same with boxes of confidence 0.25 or more
    found: float  # share of cards covered by a box of any name


def score(results: list[ImageResult], num_classes: int, sure: float = 0.25) -> CornerScore:
    """The figures above over photos whose ``gt_boxes`` are corner-index boxes."""
    hits: list[list[bool]] = [[] for _ in range(num_classes)]
    confs: list[list[float]] = [[] for _ in range(num_classes)]
    counts = np.zeros(num_classes, int)
    named = named_sure = found = total = 0
    for r in results:
        cards = cards_of(r)
        total += len(cards)
        # (cards, boxes): which box covers which card, and which of those bear the card's name
        cover = np.zeros((len(cards), len(r.pred_boxes)), bool)
        for j, card in enumerate(cards):
            cover[j] = covers(r.pred_boxes, card)
        same = cover & (r.pred_classes[None, :] == np.array([card.cls for card in cards], int)[:, None])
        for card in cards:
            counts[card.cls] += 1
        # The shares count each box's likeliest name; its other names count in the mAP below,
        # lower in the ranking.
        first = np.ones(len(r.pred_boxes), bool) if r.pred_first is None else r.pred_first
        found += int(cover.any(axis=1).sum())
        named += int((same & first).any(axis=1).sum())
        named_sure += int((same & first & (r.pred_scores >= sure)).any(axis=1).sum())
        used = np.zeros(len(cards), bool)
        for k in np.argsort(-r.pred_scores, kind="stable"):  # each card matched once, surest box first
            mine = np.flatnonzero(same[:, k] & ~used)
            if len(mine):
                used[mine[0]] = True
            hits[int(r.pred_classes[k])].append(bool(len(mine)))
            confs[int(r.pred_classes[k])].append(float(r.pred_scores[k]))
    aps = [average_precision(np.array(hits[c], bool), np.array(confs[c]), counts[c])
           for c in range(num_classes)]
    finite = [a for a in aps if np.isfinite(a)]
    share = (lambda n: round(n / total, 4)) if total else (lambda n: 0.0)
    return CornerScore(total, round(float(np.mean(finite)), 4) if finite else 0.0,
                       share(named), share(named_sure), share(found))


def _areas(boxes: np.ndarray) -> np.ndarray:
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def _sure_area(r: ImageResult, sure: float) -> float:
    """The median area of the boxes the detector is sure of."""
    return float(np.median(_areas(r.pred_boxes[r.pred_scores >= sure])))


def looks_corner_labelled(results: list[ImageResult], sure: float = 0.25) -> bool:
    """Whether the labelled boxes look like corner indices rather than cards: most labelled
    photos hold two boxes of one name (one deck has each card once), or boxes far smaller than
    the cards the detector surely finds there."""
    labelled = [r for r in results if len(r.gt_classes)]
    pairs = sum(len(np.unique(r.gt_classes)) < len(r.gt_classes) for r in labelled)
    small = [np.median(_areas(r.gt_boxes)) < CORNER_AREA_SHARE * _sure_area(r, sure)
             for r in labelled if (r.pred_scores >= sure).any()]
    return bool(labelled) and (pairs > len(labelled) / 2 or (bool(small) and float(np.mean(small)) > 0.5))
