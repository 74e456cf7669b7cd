"""``cardref train``: train or fine-tune the card detector (Ultralytics), then export ONNX.

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


def run(args: argparse.Namespace) -> int:
    from vision.detector.train import TrainConfig, export_onnx, train

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
