"""Detection metrics in numpy: COCO-style AP (101-point interpolation) at IoU 0.50:0.95.

Runs with the ONNX model alone, so evaluation needs no torch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.detector.detections import box_iou

IOU_THRESHOLDS = np.linspace(0.5, 0.95, 10)


@dataclass
class ImageResult:
    """Ground truth and predictions of one image (boxes xyxy, integer classes)."""

    gt_boxes: np.ndarray
    gt_classes: np.ndarray
    pred_boxes: np.ndarray
    pred_classes: np.ndarray
    pred_scores: np.ndarray
    name: str = ""
    # True for each box's likeliest name; the other rows are the same boxes under other likely
    # names (``detections.with_other_names``). None: every row is a box's likeliest name.
    pred_first: np.ndarray | None = None


def likeliest_names(r: ImageResult) -> ImageResult:
    """``r`` with one name per box, its likeliest: what ``cardref detect`` prints and draws."""
    if r.pred_first is None:
        return r
    k = r.pred_first
    return ImageResult(r.gt_boxes, r.gt_classes, r.pred_boxes[k], r.pred_classes[k], r.pred_scores[k], r.name)


@dataclass
class Evaluation:
    ap: np.ndarray  # (classes, 10) AP per class per IoU threshold; nan where no ground truth
    recall50: np.ndarray  # (classes,) recall at IoU 0.5 over all predictions kept
    gt_counts: np.ndarray
    confusion: dict[tuple[int, int], int] = field(default_factory=dict)  # (true, predicted) at IoU .5

    @property
    def map50(self) -> float:
        return float(np.nanmean(self.ap[:, 0])) if np.isfinite(self.ap[:, 0]).any() else 0.0

    @property
    def map50_95(self) -> float:
        return float(np.nanmean(self.ap)) if np.isfinite(self.ap).any() else 0.0


def _match(gt_boxes, gt_classes, pred_boxes, pred_classes, order, iou_threshold) -> np.ndarray:
    """Greedy matching in score order; True where a prediction matches an unused same-class box."""
    tp = np.zeros(len(order), bool)
    if not len(gt_boxes) or not len(order):
        return tp
    ious = box_iou(pred_boxes[order], gt_boxes)
    used = np.zeros(len(gt_boxes), bool)
    for k in range(len(order)):
        candidates = (gt_classes == pred_classes[order[k]]) & ~used & (ious[k] >= iou_threshold)
        if candidates.any():
            j = int(np.argmax(np.where(candidates, ious[k], -1)))
            used[j] = True
            tp[k] = True
    return tp


def average_precision(tp: np.ndarray, scores: np.ndarray, n_gt: int) -> float:
    """AP from per-prediction hits (any order) by the 101-point interpolated PR curve."""
    if n_gt == 0:
        return float("nan")
    if not len(tp):
        return 0.0
    order = np.argsort(-scores, kind="stable")
    hits = tp[order].astype(float)
    tpc, fpc = np.cumsum(hits), np.cumsum(1 - hits)
    recall = tpc / n_gt
    precision = tpc / np.maximum(tpc + fpc, 1e-9)
    precision = np.maximum.accumulate(precision[::-1])[::-1]  # precision envelope
    points = np.linspace(0, 1, 101)
    idx = np.searchsorted(recall, points, side="left")
    return float(np.mean([precision[i] if i < len(precision) else 0.0 for i in idx]))


def evaluate(results: list[ImageResult], num_classes: int) -> Evaluation:
    per_class_tp = [[[] for _ in IOU_THRESHOLDS] for _ in range(num_classes)]
    per_class_scores: list[list[float]] = [[] for _ in range(num_classes)]
    gt_counts = np.zeros(num_classes, int)
    confusion: dict[tuple[int, int], int] = {}
    for r in results:
        for c in r.gt_classes:
            gt_counts[c] += 1
        order = np.argsort(-r.pred_scores, kind="stable")
        hits = [_match(r.gt_boxes, r.gt_classes, r.pred_boxes, r.pred_classes, order, t)
                for t in IOU_THRESHOLDS]
        for k, p in enumerate(order):
            c = int(r.pred_classes[p])
            per_class_scores[c].append(float(r.pred_scores[p]))
            for t in range(len(IOU_THRESHOLDS)):
                per_class_tp[c][t].append(bool(hits[t][k]))
        if len(r.gt_boxes) and len(r.pred_boxes):  # class confusions at IoU .5, any class
            ious = box_iou(r.gt_boxes, r.pred_boxes)
            for g in range(len(r.gt_boxes)):
                j = int(np.argmax(ious[g]))
                if ious[g, j] >= 0.5 and r.pred_classes[j] != r.gt_classes[g]:
                    key = (int(r.gt_classes[g]), int(r.pred_classes[j]))
                    confusion[key] = confusion.get(key, 0) + 1
    ap = np.full((num_classes, len(IOU_THRESHOLDS)), np.nan)
    recall = np.full(num_classes, np.nan)
    for c in range(num_classes):
        scores = np.array(per_class_scores[c])
        for t in range(len(IOU_THRESHOLDS)):
            ap[c, t] = average_precision(np.array(per_class_tp[c][t], bool), scores, gt_counts[c])
        if gt_counts[c]:
            recall[c] = sum(per_class_tp[c][0]) / gt_counts[c]
    return Evaluation(ap, recall, gt_counts, confusion)
