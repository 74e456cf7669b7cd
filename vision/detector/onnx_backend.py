"""YOLOv8 inference on the exported ONNX model: letterbox, run, decode, NMS. No torch needed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.errors import CardrefError
from vision.detector.crops import to_blob
from vision.detector.detections import NMS_IOU, Detections, nms


@dataclass(frozen=True)
class Letterbox:
    """How an image was fitted into the square network input (to map boxes back)."""

    scale: float
    pad_x: float
    pad_y: float


def letterbox(image: np.ndarray, size: int, rect: bool = False,
              stride: int = 32) -> tuple[np.ndarray, Letterbox]:
    """Resize keeping the aspect ratio (long side ``size``) and pad with grey, as Ultralytics:
    to a ``size``x``size`` square, or with ``rect`` only up to the next multiple of ``stride``
    on each side, as Ultralytics' predictor does: a 16:9 frame then costs 0.6 of the square."""
    h, w = image.shape[:2]
    scale = min(size / h, size / w)
    nh, nw = round(h * scale), round(w * scale)
    out_h, out_w = (-(-nh // stride) * stride, -(-nw // stride) * stride) if rect else (size, size)
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_LINEAR) if (nh, nw) != (h, w) else image
    pad_y, pad_x = (out_h - nh) / 2, (out_w - nw) / 2
    top, left = round(pad_y - 0.1), round(pad_x - 0.1)
    out = cv2.copyMakeBorder(resized, top, out_h - nh - top, left, out_w - nw - left,
                             cv2.BORDER_CONSTANT, value=(114, 114, 114))
    return out, Letterbox(scale, left, top)


def exported_imgsz(path: Path, text: str) -> int:
    """The input size a model was exported at, from the metadata Ultralytics writes into the
    ``.onnx`` (``imgsz: [416, 416]``): a dynamic-shape model does not say it in its input."""
    sizes = [int(v) for v in text.strip("[]").split(",") if v.strip().isdigit()]
    if not sizes:
        raise CardrefError(f"{path}: dynamic input size and no 'imgsz' in its metadata: give imgsz")
    return max(sizes)


def decode(output: np.ndarray, box: Letterbox, conf: float, iou: float, agnostic: bool,
           shape: tuple[int, int]) -> Detections:
    """YOLOv8 head output (1, 4 + classes, anchors) to Detections in image pixels."""
    pred = output[0].T  # (anchors, 4 + nc)
    scores = pred[:, 4:]
    class_id = scores.argmax(axis=1)
    confidence = scores[np.arange(len(scores)), class_id]
    mask = confidence >= conf
    if not mask.any():
        return Detections.empty()
    cxcywh, confidence, class_id = pred[mask, :4], confidence[mask], class_id[mask]
    xyxy = np.concatenate([cxcywh[:, :2] - cxcywh[:, 2:] / 2, cxcywh[:, :2] + cxcywh[:, 2:] / 2], axis=1)
    xyxy -= np.array([box.pad_x, box.pad_y, box.pad_x, box.pad_y], dtype=np.float32)
    xyxy /= box.scale
    h, w = shape
    xyxy = np.clip(xyxy, 0, [w, h, w, h]).astype(np.float32)
    # Class-aware NMS is done by offsetting each class's boxes far apart.
    offset = 0 if agnostic else class_id[:, None].astype(np.float32) * 10_000.0
    keep = nms(xyxy + offset, confidence, iou)
    return Detections(xyxy[keep], confidence[keep].astype(np.float32), class_id[keep].astype(np.int64))


class OrtRunner:
    """ONNX Runtime's CPU provider: the default, installed with cardref. Called with the
    model's one input, returns its first output; ``imgsz_text`` is the export size metadata."""

    def __init__(self, path: Path, threads: int | None = None):
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Idle threads sleep instead of spinning: the finder's and the classifier's sessions
        # take turns on two cores, and each one's spinning threads starved the other (a frame
        # took 48 ms with spinning, 24 ms without: bench/detector.py).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if threads:
            options.intra_op_num_threads = threads
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        inp = self.session.get_inputs()[0]
        self.input_name, self.input_shape = inp.name, inp.shape
        self.metadata = dict(self.session.get_modelmeta().custom_metadata_map)
        self.imgsz_text = self.metadata.get("imgsz", "")

    def __call__(self, blob: np.ndarray) -> np.ndarray:
        return self.session.run(None, {self.input_name: blob})[0]


class OpenVinoRunner:
    """OpenVINO on the same .onnx file (``pip install openvino``): compared in bench/detector.py.
    OpenVINO picks its own precision: bfloat16 on a CPU that has it (this one does)."""

    def __init__(self, path: Path, threads: int | None = None):
        try:
            import openvino as ov
        except ImportError:
            raise CardrefError("the openvino backend needs: pip install openvino") from None
        from openvino.frontend import FrontEndManager

        core = ov.Core()
        config = {"INFERENCE_NUM_THREADS": threads} if threads else {}
        # The ONNX reader alone: Core.read_model tries every format it knows on a file that is
        # not ONNX, and the others print their parse errors straight to stderr.
        onnx = FrontEndManager().load_by_framework("onnx")
        model = onnx.convert(onnx.load(str(path)))
        # OpenVINO keeps the .onnx metadata under "framework".
        self.metadata = {k: model.get_rt_info(["framework", k]).astype(str)
                         for k in ("imgsz", "crop", "margin") if model.has_rt_info(["framework", k])}
        self.imgsz_text = self.metadata.get("imgsz", "")
        self.model = core.compile_model(model, "CPU", config)
        shape = self.model.inputs[0].get_partial_shape()
        self.input_shape = [d.get_length() if d.is_static else "dynamic" for d in shape]

    def __call__(self, blob: np.ndarray) -> np.ndarray:
        # The array is handed to OpenVINO as it is, not copied: it is not changed until the call returns.
        return self.model(blob, share_inputs=True)[0]


RUNNERS = {"onnx": OrtRunner, "openvino": OpenVinoRunner}  # keyed by vision.detector.RUNTIMES


class OnnxDetector:
    """The exported ``.onnx`` model, run by ONNX Runtime (default) or OpenVINO on the CPU. A
    model exported with dynamic shapes runs on the smallest stride-32 rectangle that holds the
    letterboxed frame, at its export size or ``imgsz``; a fixed-shape one on its square."""

    def __init__(self, path: str | Path, conf: float = 0.25, iou: float = NMS_IOU, agnostic: bool = True,
                 threads: int | None = None, runtime: str = "onnx", imgsz: int | None = None):
        from vision.detector.model_files import open_onnx

        self.path = Path(path)
        self.run = open_onnx(self.path, runtime, threads)
        side = self.run.input_shape[2]
        self.rect = not isinstance(side, int)
        if not self.rect and imgsz not in (None, side):
            raise CardrefError(f"{self.path}: exported at a fixed {side} px input, cannot run at {imgsz}")
        self.imgsz = side if not self.rect else imgsz or exported_imgsz(self.path, self.run.imgsz_text)
        self.conf, self.iou, self.agnostic = conf, iou, agnostic

    @property
    def resizable(self) -> bool:
        """Whether :meth:`detect` can run at another input size (a dynamic-shape model)."""
        return self.rect

    def detect(self, image_bgr: np.ndarray, imgsz: int | None = None) -> Detections:
        """The boxes in ``image_bgr``, its long side fitted to ``imgsz`` (default: this
        detector's) for a dynamic-shape model."""
        boxed, box = letterbox(image_bgr, imgsz if imgsz and self.rect else self.imgsz, rect=self.rect)
        blob = to_blob(boxed[None])
        return decode(self.run(blob), box, self.conf, self.iou, self.agnostic, image_bgr.shape[:2])


class UltralyticsDetector:
    """The ``.pt`` weights through Ultralytics and PyTorch (for training-side checks)."""

    resizable = True  # Ultralytics letterboxes to any input size it is given

    def __init__(self, path: str | Path, conf: float = 0.25, iou: float = NMS_IOU, agnostic: bool = True,
                 imgsz: int | None = None):
        from vision.detector.model_files import load_yolo

        self.model = load_yolo(path)
        # Without imgsz, Ultralytics uses the input size the weights were trained at.
        self.options = dict(conf=conf, iou=iou, agnostic_nms=agnostic, verbose=False)
        if imgsz:
            self.options["imgsz"] = imgsz
        self.imgsz = imgsz  # None: the size the weights were trained at

    def detect(self, image_bgr: np.ndarray, imgsz: int | None = None) -> Detections:
        options = dict(self.options, imgsz=imgsz) if imgsz else self.options
        r = self.model.predict(image_bgr, **options)[0].boxes
        return Detections(r.xyxy.cpu().numpy().astype(np.float32), r.conf.cpu().numpy().astype(np.float32),
                          r.cls.cpu().numpy().astype(np.int64))
