"""``cardref train``: train or fine-tune one stage of the card detector, then export ONNX.

The config says which stage: the card finder (``configs/detector/cards.yaml``, Ultralytics
YOLO), the card classifier (``configs/detector/classifier.yaml``, ``stage: classifier``) or
the classifier's not-a-card row (``configs/detector/not_a_card.yaml``, ``stage: not_a_card``:
fitted on the finder's boxes on no card in the ``--data`` sets).
Without ``--data`` the synthetic training set of the config is rendered first (``cardref
synth``); with ``--data DIR`` (repeatable) those Ultralytics datasets are used together.

``--data synthetic --data DIR`` retrains for your own deck: both stages of the model in
``--models`` (default the shipped models/) are fine-tuned on the config's synthetic set plus
the datasets written by ``cardref collect``, scored before and after on your held-out frames
(their val split) and on the synthetic held-out set, side by side, and the new model replaces
the old only if it is better on both (see vision/detector/retrain.py).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from referee.errors import CardrefError, ConfigError
from referee.paths import project_root

SYNTHETIC = "synthetic"  # --data synthetic: the config's rendered set, and retraining mode


def build_parser(prog: str) -> argparse.ArgumentParser:
    from vision.detector.train import default_config

    p = argparse.ArgumentParser(prog=prog, description=__doc__)
    p.add_argument("--config", default=str(default_config()), help="detector recipe (YAML)")
    p.add_argument("--data", action="append", type=Path, metavar="DIR",
                   help="dataset folder (data.yaml, images/, labels/); repeatable")
    p.add_argument("--from", dest="start_from", metavar="MODEL.pt", help="fine-tune these weights")
    p.add_argument("--resume", action="store_true", help="resume the interrupted run in --out")
    p.add_argument("--out", type=Path, default=Path("runs/detector"), help="run folder")
    p.add_argument("--device", help="cpu, 0, ... (finder default: Ultralytics picks; classifier: cpu); "
                   "0,1: the finder on both GPUs (Ultralytics' DDP), the other stages on GPU 0")
    p.add_argument("--epochs", type=int)
    p.add_argument("--imgsz", type=int)
    p.add_argument("--batch", type=int)
    p.add_argument("--time", type=float, help="wall-time budget in hours (overrides epochs)")
    p.add_argument("--threads", type=int, help="classifier: torch threads (1 beside another training)")
    p.add_argument("--no-export", action="store_true", help="skip the ONNX export")
    retrain = p.add_argument_group("retraining (--data synthetic --data DIR)")
    retrain.add_argument("--models", type=Path, help="folder of the model to improve (default: models/)")
    retrain.add_argument("--classifier-config",
                         help="classifier recipe (default: configs/detector/classifier.yaml)")
    retrain.add_argument("--holdout", type=Path, help="synthetic held-out dataset (default: cardref eval's)")
    return p


def synth_dataset(spec: dict) -> Path:
    from vision.synth.dataset import is_complete

    out = project_root() / spec["out"]
    if not is_complete(out):
        cmd = [sys.executable, "-m", "vision.commands.main", "synth", "--out", str(out),
               "--images", str(spec["images"]), "--seed", str(spec["seed"])]
        if spec.get("recipe"):
            cmd += ["--recipe", str(project_root() / spec["recipe"])]
        subprocess.run(cmd, check=True)
    return out


def config_stage(path: str) -> str:
    from referee import files

    raw = files.read_yaml(path, "detector config")
    stage = raw.get("stage", "finder") if isinstance(raw, dict) else None
    if stage not in ("finder", "classifier", "not_a_card", "geometry", "index"):
        raise ConfigError(f"{path}: field 'stage': expected finder, classifier, not_a_card, geometry "
                          f"or index, got {stage!r}")
    return stage


def run_network(args: argparse.Namespace, stage: str) -> int:
    """The classifier's or the corner refiner's training: the project's own small networks,
    the same loop shape, each with its recipe class, trainer and exporter."""
    if stage == "classifier":
        from vision.detector.classifier_train import ClassifierConfig as Config
        from vision.detector.classifier_train import export_classifier as export
        from vision.detector.classifier_train import train_classifier as fit
    elif stage == "index":
        from vision.detector.index_train import IndexConfig as Config
        from vision.detector.index_train import export_index as export
        from vision.detector.index_train import train_index as fit
    else:
        from vision.detector.geometry_train import GeometryConfig as Config
        from vision.detector.geometry_train import export_geometry as export
        from vision.detector.geometry_train import train_geometry as fit

    cfg = Config.load(args.config)
    if args.threads:
        cfg.threads = args.threads
    if args.device:
        cfg.device = args.device
    if args.batch:
        cfg.batch = args.batch
    start = existing_weights(args.start_from)
    # The index reader draws its own patches; the others cut theirs from rendered sets.
    datasets = args.data or ([synth_dataset(cfg.data)] if cfg.data else [])
    best = fit(cfg, datasets, args.out, start_from=start, epochs=args.epochs, resume=args.resume)
    print(f"best weights: {best}")
    if not args.no_export:
        print(f"ONNX model: {export(best, best.with_suffix('.onnx'))}")
    return 0


def existing_weights(path: str | Path | None) -> Path | None:
    """``--from`` checked before any work: a missing file is an error, not a traceback after
    minutes of crop extraction or mining."""
    from vision.detector.model_files import check_weights

    if path is None:
        return None
    return check_weights(path, "--from weights")


def classifier_cut(weights: Path, cfg):
    """How the classifier in ``weights`` has its crops cut: boxes, or cards straightened by the
    corner refiner (the recipe's ``geometry``, default the shipped one)."""
    import torch

    from vision.detector import shipped_model
    from vision.detector.crops import crops_batch
    from vision.detector.geometry import CornerRefiner, rectified_crops
    from vision.detector.two_stage import geometry_for

    ckpt = torch.load(weights, map_location="cpu")
    if ckpt.get("crop", "box") != "rectified":
        return crops_batch
    geo = Path(cfg.geometry) if cfg.geometry else geometry_for(shipped_model("_cls.onnx"))
    if not geo.exists():
        raise ConfigError(f"{weights}: names straightened cards: its corner refiner {geo} is missing "
                          "(field 'geometry' of the not-a-card recipe)")
    refiner, size = CornerRefiner(geo, threads=cfg.threads), tuple(ckpt["crop_size"])
    return lambda image, boxes: rectified_crops(image, refiner.rects(image, boxes), size)


def run_not_a_card(args: argparse.Namespace) -> int:
    """Fit the classifier's not-a-card row (``--from`` the classifier's .pt, default the shipped
    one) on the boxes the finder puts on no card in ``--data`` sets."""
    from vision.detector import box_view_for, shipped_model
    from vision.detector.classifier_train import export_classifier
    from vision.detector.not_a_card import NotACardConfig, fit_not_a_card, mine
    from vision.detector.onnx_backend import OnnxDetector

    cfg = NotACardConfig.load(args.config)
    if args.threads:
        cfg.threads = args.threads
    if not args.data:
        raise ConfigError(f"{args.config}: a not-a-card fit mines rendered sets: give --data DIR")
    # The not-a-card row belongs to the classifier that cuts boxes as the finder gives them.
    start = existing_weights(args.start_from or box_view_for(shipped_model()).with_suffix(".pt"))
    finder_path = Path(cfg.finder) if cfg.finder else shipped_model()
    if not finder_path.exists():
        raise ConfigError(f"{args.config}: field 'finder': {finder_path} not found")
    finder = OnnxDetector(finder_path, conf=cfg.min_conf, threads=cfg.threads)  # the finder alone
    best = fit_not_a_card(start, mine(finder, args.data, cfg, cut=classifier_cut(start, cfg)), cfg,
                          args.out / "classifier.pt")
    print(f"weights: {best}")
    if not args.no_export:
        print(f"ONNX model: {export_classifier(best, best.with_suffix('.onnx'))}")
    return 0


def run_retrain(args: argparse.Namespace) -> int:
    from referee.paths import models_dir
    from vision.commands.eval import holdout_dataset
    from vision.detector.retrain import RetrainJob, check_inputs, retrain
    from vision.detector.train import TrainConfig

    if config_stage(args.config) != "finder":
        raise ConfigError(f"{args.config}: --data synthetic retrains both stages: give the finder's config")
    collected = [d for d in args.data if str(d) != SYNTHETIC]
    if not collected:
        raise ConfigError("--data synthetic: add --data DIR, a dataset written by cardref collect")
    models = args.models or models_dir()
    check_inputs(collected, models)  # before rendering the synthetic sets, which takes minutes
    job = RetrainJob(
        finder_config=Path(args.config),
        classifier_config=Path(args.classifier_config or project_root() / "configs/detector/classifier.yaml"),
        synthetic=synth_dataset(TrainConfig.load(args.config).data),
        collected=collected,
        holdout=args.holdout or holdout_dataset(),
        models=models,
        out=args.out,
        epochs=args.epochs,
        imgsz=args.imgsz,
        batch=args.batch,
        time_hours=args.time,
        device=args.device,
        threads=args.threads,
    )
    decision = retrain(job)
    print(decision.table())
    if decision.replaced:
        print(f"REPLACED: new model installed in {job.models}: {decision.reason} "
              f"(old one kept in {decision.backup})")
    else:
        print(f"KEPT the old model in {job.models}: {decision.reason} "
              f"(candidate left in {decision.candidate})")
    return 0


def require_training_extras() -> None:
    """Training needs Ultralytics and PyTorch, which the main job does not install."""
    import importlib.util

    missing = [m for m in ("torch", "ultralytics", "matplotlib") if importlib.util.find_spec(m) is None]
    if missing:
        raise CardrefError(
            f"cardref train needs the training extras (missing: {', '.join(missing)}): "
            "run `make install-train` (or pip install -e '.[train]' -c constraints.txt)"
        )


def run(args: argparse.Namespace) -> int:
    from vision.detector.classifier_train import ClassifierConfig
    from vision.detector.geometry_train import GeometryConfig
    from vision.detector.index_train import IndexConfig
    from vision.detector.not_a_card import NotACardConfig
    from vision.detector.train import TrainConfig, dataset_root, export_onnx, train

    require_training_extras()
    # Everything given is checked before anything is rendered, mined or trained.
    stage = config_stage(args.config)
    recipes = {"finder": TrainConfig, "classifier": ClassifierConfig, "not_a_card": NotACardConfig,
               "geometry": GeometryConfig, "index": IndexConfig}
    recipes[stage].load(args.config)
    existing_weights(args.start_from)
    for d in args.data or []:
        if str(d) != SYNTHETIC:
            dataset_root(d)
    if args.data and any(str(d) == SYNTHETIC for d in args.data):
        return run_retrain(args)
    if stage in ("classifier", "geometry", "index"):
        return run_network(args, stage)
    if stage == "not_a_card":
        return run_not_a_card(args)
    cfg = TrainConfig.load(args.config)
    existing_weights(args.start_from)
    datasets = args.data or [synth_dataset(cfg.data)]
    best = train(cfg, datasets, args.out, start_from=args.start_from, resume=args.resume,
                 device=args.device, epochs=args.epochs, imgsz=args.imgsz, batch=args.batch,
                 time=args.time)
    print(f"best weights: {best}")
    if not args.no_export:
        onnx = export_onnx(best, cfg, best.with_suffix(".onnx"))
        print(f"ONNX model: {onnx}")
    return 0
