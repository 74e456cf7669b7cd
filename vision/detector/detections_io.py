"""Detections on disk and the two kinds of frame detector the camera commands use.

A replay writes every analysed frame to ``detections.jsonl`` (:func:`to_record`); a later run
given ``--detections`` reads them back (:func:`recorded_detector`) and decides exactly as the
first run did, without a model. Both detectors have the same signature, ``(image, frame
index) -> Detections``, so the pipeline never knows which one it has."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from referee import files
from referee.cards import CLASS_ID, CLASSES
from referee.errors import CardrefError
from vision.detector.detections import Detections

FrameDetector = Callable[[np.ndarray, int], Detections]


def to_record(index: int, t: float, det: Detections, top_names: int) -> dict[str, Any]:
    """One analysed frame for ``detections.jsonl``: boxes, confidences, names and, from a
    two-stage detector, each box's presence and its ``top_names`` likeliest names, so that a
    ``--detections`` re-run votes and chooses among names as the live run did."""
    record: dict[str, Any] = {
        "frame": index,
        "time": round(t, 3),
        "xyxy": np.round(det.xyxy, 1).tolist(),
        "confidence": np.round(det.confidence, 3).tolist(),
        "class": det.names,
    }
    if det.presence is not None:
        record["presence"] = np.round(det.presence, 3).tolist()
    if det.class_probs is not None:
        top = np.argsort(-det.class_probs, axis=1)[:, :top_names]
        record["top"] = [
            [[CLASSES[int(i)], round(float(p[i]), 3)] for i in row]
            for row, p in zip(top, det.class_probs, strict=True)
        ]
    return record


def from_record(record: dict[str, Any]) -> Detections:
    """The inverse of :func:`to_record` (probabilities beyond the top names are 0)."""
    n = len(record["class"])
    probs = presence = None
    if "top" in record:
        probs = np.zeros((n, len(CLASSES)), np.float32)
        for row, names in zip(probs, record["top"], strict=True):
            for name, p in names:
                row[CLASS_ID[name]] = p
    if "presence" in record:
        presence = np.array(record["presence"], np.float32)
    return Detections(
        np.array(record["xyxy"], np.float32).reshape(-1, 4),
        np.array(record["confidence"], np.float32),
        np.array([CLASS_ID[c] for c in record["class"]], np.int64),
        probs,
        presence,
    )


def recorded_detector(path: Path, missing: FrameDetector | None = None) -> FrameDetector:
    """Detections read back from a ``detections.jsonl``, by frame index. A frame it lacks is
    detected by ``missing`` where given (the referee's code changed since the run that wrote
    the file, and it reads the table at frames that run did not), else it is an error."""
    by_frame: dict[int, Detections] = {}
    for n, r in files.read_jsonl(path, "detections", missing_ok=False):
        try:
            by_frame[int(r["frame"])] = from_record(r)
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise CardrefError(f"{path}:{n}: expected frame, xyxy, confidence and class ({e})") from None

    def detect(image: np.ndarray, index: int) -> Detections:
        if index in by_frame:
            return by_frame[index]
        if missing is not None:
            return missing(image, index)
        raise CardrefError(f"{path}: no detections for frame {index} (recorded from another video, or "
                           "by a referee that read other frames: give --model to detect those)")

    return detect


def model_detector(model: str | None, conf: float, backend: str | None = None,
                   threads: int | None = None) -> FrameDetector:
    """The model at ``model`` (the shipped one if None), loaded once a process."""
    from vision.detector import shipped_model

    path = Path(model or shipped_model())
    stamp = path.stat().st_mtime_ns if path.exists() else None  # a model retrained since is loaded anew
    detector = _loaded_detector(model, conf, backend, threads, stamp)
    return lambda image, index: detector.detect(image)


@functools.lru_cache(maxsize=2)
def _loaded_detector(model: str | None, conf: float, backend: str | None, threads: int | None,
                     stamp: int | None):
    """Loaded once a process (about a second here): a batch's worker replays many videos with
    it. The detector keeps no state from one image to the next."""
    from vision.detector import load_detector

    return load_detector(model, backend, conf=conf, threads=threads)
