"""The card detector: training (Ultralytics), inference backends, evaluation."""

from __future__ import annotations

import functools
from pathlib import Path

from referee.errors import CardrefError
from referee.paths import models_dir
from vision.detector.detections import NMS_IOU

RUNTIMES = ("onnx", "openvino")  # the CPU runtimes of the exported .onnx files
BACKENDS = (*RUNTIMES, "ultralytics")  # and Ultralytics on the .pt weights


def shipped_model(suffix: str = ".onnx") -> Path:
    return models_dir() / f"cards{suffix}"


def classifier_for(model: Path) -> Path:
    """The classifier that goes with a finder: ``cards.onnx`` or ``cards.pt`` -> ``cards_cls.onnx``."""
    return model.with_name(f"{model.stem}_cls.onnx")


def default_runtime() -> str:
    """The runtime of the .onnx files when none is asked for: OpenVINO when it is installed and
    the CPU computes in bfloat16, else ONNX Runtime. With bfloat16 (avx512_bf16 or AMX) OpenVINO
    ran the detector about twice as fast as ONNX Runtime, with the same figures within 0.002; on
    a CPU without it (AVX2 only) OpenVINO computes in f32 and was 1.2 times slower than ONNX
    Runtime (models/MODEL_CARD.md, "Speed")."""
    import importlib.util

    if importlib.util.find_spec("openvino") is None:
        return "onnx"
    return "openvino" if computes_bf16() else "onnx"


@functools.cache
def computes_bf16() -> bool:
    """Whether OpenVINO's CPU device computes in bfloat16 here (it says so among its
    optimisation capabilities)."""
    import openvino as ov

    return "BF16" in ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")


def box_view_for(model: Path) -> Path:
    """The box-view classifier that goes with a finder: ``cards.onnx`` -> ``cards_box.onnx``."""
    return model.with_name(f"{model.stem}_box.onnx")


def load_detector(path: str | Path | None = None, backend: str | None = None, conf: float = 0.25,
                  iou: float = NMS_IOU, threads: int | None = None, imgsz: int | None = None,
                  look_closer: bool = False):
    """The detector for ``path`` (default: the shipped ``models/cards.onnx``). The backend
    follows the file: ``.onnx`` -> ONNX Runtime or OpenVINO, ``.pt`` -> Ultralytics. When the classifier
    ``<stem>_cls.onnx`` lies beside it, the model is a one-class card finder and the classifier
    names each card (design (b)); otherwise the model names the cards itself. An ``.onnx`` runs
    on :func:`default_runtime` unless ``backend`` says otherwise. ``imgsz`` runs
    a model exported with dynamic shapes (the shipped one) at another input size;
    ``look_closer`` looks again larger at a photo of small cards (``closer_look``: for still
    photos, not for the camera referee's frames)."""
    from vision.detector.model_files import check_model_file

    if imgsz is not None and not 32 <= imgsz <= 4096:
        raise CardrefError(f"--imgsz: expected 32..4096 pixels, got {imgsz}")
    p = check_model_file(path or shipped_model(), "detector model")
    backend = backend or ("ultralytics" if p.suffix == ".pt" else default_runtime())
    if backend not in BACKENDS:
        raise CardrefError(f"unknown backend {backend!r} (expected {', '.join(BACKENDS)})")
    classifier = classifier_for(p)
    two_stage = classifier.exists()
    if backend == "ultralytics":
        from vision.detector.onnx_backend import OnnxDetector, UltralyticsDetector

        # The .pt runs at the size its .onnx was exported at, so that both give the same boxes
        # (the shipped finder was trained at 640 and is run at 416: models/MODEL_CARD.md).
        beside = p.with_suffix(".onnx")
        if imgsz is None and p.suffix == ".pt" and beside.exists():
            imgsz = OnnxDetector(beside, threads=1).imgsz
        detector = UltralyticsDetector(p, conf=conf, iou=iou, imgsz=imgsz)
    else:
        from vision.detector.onnx_backend import OnnxDetector

        detector = OnnxDetector(p, conf=conf, iou=iou, threads=threads, runtime=backend, imgsz=imgsz)
    if not two_stage:
        return detector
    from vision.detector.two_stage import TwoStageDetector

    # The classifier runs on OpenVINO with an OpenVINO finder, else on ONNX Runtime.
    runtime = "openvino" if backend == "openvino" else "onnx"
    # A second classifier that names each card from its box (``<stem>_box.onnx``) is fused with it.
    views = [classifier, *(p for p in [box_view_for(p)] if p.exists())]
    return TwoStageDetector(detector, views, conf=conf, threads=threads, runtime=runtime,
                            look_closer=look_closer)
