"""``cardref train``: train or fine-tune one stage of the card detector, then export ONNX.

The config says which stage: the card finder (``configs/detector/cards.yaml``, Ultralytics
YOLO) or the card classifier (``configs/detector/classifier.yaml``, ``stage: classifier``).
Without ``--data`` the synthetic training set of the config is rendered first (``cardref
synth``); with ``--data DIR`` (repeatable) those Ultralytics datasets are used together.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from referee.paths import project_root


def build_parser(prog: str) -> argparse.ArgumentParser:
    from vision.detector.train import default_config

    p = argparse.ArgumentParser(prog=prog, description=__doc__)
    p.add_argument("--config", default=str(default_config()), help="detector recipe (YAML)")
    p.add_argument("--data", action="append", type=Path, metavar="DIR",
                   help="dataset folder (data.yaml, images/, labels/); repeatable")
    p.add_argument("--from", dest="start_from", metavar="MODEL.pt", help="fine-tune these weights")
    p.add_argument("--resume", action="store_true", help="resume the interrupted run in --out")
    p.add_argument("--out", type=Path, default=Path("runs/detector"), help="run folder")
    p.add_argument("--device", help="cpu, 0, ... (default: Ultralytics picks)")
    p.add_argument("--epochs", type=int)
    p.add_argument("--imgsz", type=int)
    p.add_argument("--batch", type=int)
    p.add_argument("--time", type=float, help="wall-time budget in hours (overrides epochs)")
    p.add_argument("--threads", type=int, help="classifier: torch threads (1 beside another training)")
    p.add_argument("--no-export", action="store_true", help="skip the ONNX export")
    return p


def synth_dataset(spec: dict) -> Path:
    out = project_root() / spec["out"]
    if not (out / "data.yaml").exists():
        cmd = [sys.executable, "-m", "vision.cli.main", "synth", "--out", str(out),
               "--images", str(spec["images"]), "--seed", str(spec["seed"])]
        if spec.get("recipe"):
            cmd += ["--recipe", str(project_root() / spec["recipe"])]
        subprocess.run(cmd, check=True)
    return out


def config_stage(path: str) -> str:
    import yaml

    from referee.errors import ConfigError

    try:
        raw = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as e:
        raise ConfigError(f"{path}: cannot read detector config: {e}") from None
    stage = raw.get("stage", "finder") if isinstance(raw, dict) else None
    if stage not in ("finder", "classifier"):
        raise ConfigError(f"{path}: field 'stage': expected finder or classifier, got {stage!r}")
    return stage


def run_classifier(args: argparse.Namespace) -> int:
    from vision.detector.classifier_train import ClassifierConfig, export_classifier, train_classifier

    cfg = ClassifierConfig.load(args.config)
    if args.threads:
        cfg.threads = args.threads
    if args.batch:
        cfg.batch = args.batch
    datasets = args.data or [synth_dataset(cfg.data)]
    start = Path(args.start_from) if args.start_from else None
    best = train_classifier(cfg, datasets, args.out, start_from=start, epochs=args.epochs)
    print(f"best weights: {best}")
    if not args.no_export:
        print(f"ONNX model: {export_classifier(best, best.with_suffix('.onnx'))}")
    return 0


def run(args: argparse.Namespace) -> int:
    from vision.detector.train import TrainConfig, export_onnx, train

    if config_stage(args.config) == "classifier":
        return run_classifier(args)
    cfg = TrainConfig.load(args.config)
    datasets = args.data or [synth_dataset(cfg.data)]
    best = train(cfg, datasets, args.out, start_from=args.start_from, resume=args.resume,
                 device=args.device, epochs=args.epochs, imgsz=args.imgsz, batch=args.batch,
                 time=args.time)
    print(f"best weights: {best}")
    if not args.no_export:
        onnx = export_onnx(best, cfg, best.with_suffix(".onnx"))
        print(f"ONNX model: {onnx}")
    return 0
