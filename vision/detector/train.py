"""Training the card detector with Ultralytics, offline.

Ultralytics would download pretrained weights, an AMP-check model and a font at run time;
none of that works here. So the model is built from its YAML (or fine-tuned from our own
.pt), the AMP check is answered locally, and the font is matplotlib's DejaVu Sans.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from referee import files
from referee.cards import CLASSES
from referee.errors import ConfigError
from referee.paths import project_root
from vision.detector.recipe import load_config


@dataclass
class TrainConfig:
    model: str
    imgsz: int
    epochs: int
    batch: int
    seed: int
    workers: int = 8
    stage: str = "finder"
    time_hours: float | None = None
    data: dict[str, Any] = field(default_factory=dict)
    train_args: dict[str, Any] = field(default_factory=dict)
    export: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> TrainConfig:
        return load_config(cls, path, "detector config")


def offline_ultralytics() -> None:
    """Make Ultralytics work with no network: local font, no AMP download."""
    from matplotlib import get_data_path
    from ultralytics.engine import trainer
    from ultralytics.utils import USER_CONFIG_DIR

    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        target = Path(USER_CONFIG_DIR) / name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(Path(get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf", target)
    # The AMP check loads a downloaded model to compare fp16 with fp32. Modern GPUs run AMP
    # correctly; on the CPU Ultralytics never uses AMP anyway.
    trainer.check_amp = lambda model: next(model.parameters()).device.type == "cuda"


def dataset_root(path: Path) -> Path:
    """The folder of an Ultralytics dataset given as the folder or its data.yaml, checked."""
    if not path.exists():
        raise ConfigError(f"{path}: no such dataset folder")
    root = path.parent if path.is_file() else path
    if not (root / "images" / "train").is_dir():
        raise ConfigError(f"{root}: not a dataset (expected images/train and images/val)")
    return root


def merged_data_yaml(datasets: list[Path], out: Path) -> Path:
    """One data.yaml listing the train and val image folders of several datasets."""
    train, val = [], []
    for d in datasets:
        root = dataset_root(d)
        train.append(str((root / "images" / "train").resolve()))
        if (root / "images" / "val").is_dir():
            val.append(str((root / "images" / "val").resolve()))
    spec = {"path": str(out.parent.resolve()), "train": train, "val": val or train,
            "names": {i: n for i, n in enumerate(CLASSES)}}
    files.write_text(out, yaml.safe_dump(spec, sort_keys=False))
    return out


FINE_TUNE = {"optimizer": "SGD", "lr0": 0.002, "warmup_epochs": 0, "warmup_bias_lr": 0.0}


def train(cfg: TrainConfig, datasets: list[Path], out: Path, start_from: str | None = None,
          resume: bool = False, device: str | None = None, **overrides: Any) -> Path:
    """Train; return the best weights (.pt). ``start_from`` fine-tunes our own weights."""
    offline_ultralytics()
    from vision.detector.model_files import load_yolo

    out = out.resolve()
    data_yaml = merged_data_yaml(datasets, out / "data.yaml")
    if resume:
        last = out / "run" / "weights" / "last.pt"
        if not last.exists():
            raise ConfigError(f"{last}: nothing to resume")
        load_yolo(last).train(resume=True)
        return out / "run" / "weights" / "best.pt"
    model = load_yolo(start_from or cfg.model)
    args: dict[str, Any] = dict(
        data=str(data_yaml), imgsz=cfg.imgsz, epochs=cfg.epochs, batch=cfg.batch, seed=cfg.seed,
        workers=cfg.workers, project=str(out), name="run", exist_ok=True, verbose=False,
        **cfg.train_args,
    )
    if start_from:
        # Fine-tuning keeps the weights: Ultralytics drops a checkpoint's weights when
        # ``pretrained`` is false, which the recipes set so that nothing is downloaded. And its
        # automatic optimiser picks AdamW at 0.002 for short runs, which took the shipped
        # finder's val mAP50 from 0.94 to 0.05 in three steps; plain SGD at 0.002 without
        # warm-up keeps it (measured 2026-11-25, see models/MODEL_CARD.md).
        args["pretrained"] = True
        for key, value in FINE_TUNE.items():
            if key not in cfg.train_args:
                args[key] = value
    if cfg.time_hours:
        args["time"] = cfg.time_hours
    if device is not None:
        args["device"] = device
    args.update({k: v for k, v in overrides.items() if v is not None})
    model.train(**args)
    return out / "run" / "weights" / "best.pt"


def export_onnx(weights: Path, cfg: TrainConfig, dest: Path | None = None) -> Path:
    """Export to ONNX (fixed input size, NMS done by our own post-processing)."""
    offline_ultralytics()
    from ultralytics import YOLO

    path = Path(YOLO(str(weights)).export(format="onnx", **cfg.export))
    if dest is not None and dest.resolve() != path.resolve():
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, dest)
        return dest
    return path


def default_config() -> Path:
    return project_root() / "configs" / "detector" / "cards.yaml"
