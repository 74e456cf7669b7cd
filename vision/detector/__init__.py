"""The card detector: training (Ultralytics), inference backends, evaluation."""

from __future__ import annotations

from pathlib import Path

from referee.errors import CardrefError
from referee.paths import models_dir


def shipped_model(suffix: str = ".onnx") -> Path:
    return models_dir() / f"cards{suffix}"


def load_detector(path: str | Path | None = None, backend: str | None = None, **options):
    """The detector for ``path`` (default: the shipped ``models/cards.onnx``). The backend
    follows the file: ``.onnx`` → ONNX Runtime, ``.pt`` → Ultralytics."""
    p = Path(path) if path else shipped_model()
    if not p.exists():
        raise CardrefError(f"{p}: detector model not found (expected the shipped models/cards.onnx)")
    backend = backend or ("ultralytics" if p.suffix == ".pt" else "onnx")
    if backend == "onnx":
        from vision.detector.onnx_backend import OnnxDetector

        return OnnxDetector(p, **options)
    if backend == "ultralytics":
        from vision.detector.onnx_backend import UltralyticsDetector

        return UltralyticsDetector(p, **options)
    raise CardrefError(f"unknown backend {backend!r} (expected onnx or ultralytics)")
