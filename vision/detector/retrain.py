"""Retrain for your own deck: fine-tune both stages of the shipped detector on the synthetic set
plus frames collected at your table, and keep the new model only if it is better.

"Better" is measured before and after on two held-out sets, side by side: your own frames (the
val split of the collected datasets: whole sessions never trained on) and the synthetic
held-out set (card designs never trained on). The new model replaces the one in ``models``
only if its mAP50 is higher on both: better on your deck but worse in general would make the
referee worse at any other table, and the reverse would not be worth the change. Candidates
and the replaced files stay in the run folder, so nothing is lost either way.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from referee import files
from referee.cards import CLASSES
from referee.errors import CardrefError
from vision.detector.evaluate import IMAGE_SUFFIXES, Sample, read_yolo_dataset, run_detector
from vision.detector.metrics import evaluate

RETRAIN_EPOCHS = 5  # per stage, unless --epochs or --time: a fine-tune, not a training from scratch
EVAL_CONF = 0.01  # as cardref eval: mAP needs the low-confidence boxes too
MODEL_FILES = ("cards.onnx", "cards_cls.onnx", "cards.pt", "cards_cls.pt")  # the two stages fine-tuned
# Parts of the model a retrain keeps as they are (the corner refiners, the box-view classifier,
# the index reader), carried into the candidate so that it is a whole model folder, scored as
# the detector it would become.
KEPT_FILES = ("cards_geo.onnx", "cards_geo.pt", "cards_geo_wide.onnx", "cards_geo_wide.pt",
              "cards_box.onnx", "cards_box.pt", "cards_idx.onnx", "cards_idx.pt")


@dataclass
class Score:
    images: int
    instances: int
    map50: float
    map50_95: float


@dataclass
class Decision:
    old: dict[str, Score]  # held-out set name -> score of the current model
    new: dict[str, Score]
    replaced: bool
    reason: str
    candidate: str
    backup: str | None = None

    def table(self) -> str:
        rows = [
            f"{'held-out set':<26}{'images':>7}{'old mAP50':>11}{'new mAP50':>11}"
            f"{'old mAP50-95':>14}{'new mAP50-95':>14}"
        ]
        for name, o in self.old.items():
            n = self.new[name]
            rows.append(
                f"{name:<26}{o.images:>7}{o.map50:>11.3f}{n.map50:>11.3f}"
                f"{o.map50_95:>14.3f}{n.map50_95:>14.3f}"
            )
        return "\n".join(rows)


@dataclass
class RetrainJob:
    """Everything one retrain needs; paths are resolved by the command."""

    finder_config: Path
    classifier_config: Path
    synthetic: Path  # the config's rendered training set
    collected: list[Path]  # datasets written by cardref collect
    holdout: Path  # synthetic held-out set (cardref eval's)
    models: Path  # the current model: cards.onnx, cards_cls.onnx and their .pt weights
    out: Path  # run folder: finder/, classifier/, candidate/, previous/, retrain.json
    epochs: int | None = None
    imgsz: int | None = None
    batch: int | None = None
    time_hours: float | None = None
    device: str | None = None
    threads: int | None = None
    overrides: dict = field(default_factory=dict)


def check_inputs(collected: list[Path], models: Path) -> None:
    """Fail before rendering or training anything, not after an hour of it."""
    for d in collected:
        val = d / "images" / "val"
        if not val.is_dir() or not any(p.suffix.lower() in IMAGE_SUFFIXES for p in val.iterdir()):
            raise CardrefError(
                f"{d}: no held-out frames in images/val (collect one session with --split val, "
                "or a second session: the auto split sends it to val)"
            )
    for name in MODEL_FILES:
        if not (models / name).exists():
            what = "the weights to fine-tune" if name.endswith(".pt") else "the model to compare with"
            raise CardrefError(f"{models / name}: missing ({what})")


def train_candidate(job: RetrainJob, log: Callable[[str], None]) -> Path:
    """Fine-tune the finder and the classifier from the current weights; export both into
    ``out/candidate`` as a model folder (cards.onnx + cards_cls.onnx, .pt beside them)."""
    from vision.detector.classifier_train import ClassifierConfig, export_classifier, train_classifier
    from vision.detector.train import TrainConfig, export_onnx, train

    datasets = [job.synthetic, *job.collected]
    candidate = job.out / "candidate"
    candidate.mkdir(parents=True, exist_ok=True)
    cfg = TrainConfig.load(job.finder_config)
    epochs = job.epochs or RETRAIN_EPOCHS
    log(f"fine-tuning the card finder from {job.models / 'cards.pt'} ({epochs} epochs)")
    best = train(
        cfg,
        datasets,
        job.out / "finder",
        start_from=str(job.models / "cards.pt"),
        device=job.device,
        epochs=epochs,
        imgsz=job.imgsz,
        batch=job.batch,
        time=job.time_hours,
        **job.overrides,
    )
    export_onnx(best, cfg, candidate / "cards.onnx")
    shutil.copy(best, candidate / "cards.pt")
    cls_cfg = ClassifierConfig.load(job.classifier_config)
    if job.threads:
        cls_cfg.threads = job.threads
    log(f"fine-tuning the card classifier from {job.models / 'cards_cls.pt'} ({epochs} epochs)")
    if (job.models / "cards_geo.onnx").exists():
        cls_cfg.geometry = str(job.models / "cards_geo.onnx")  # straightens collected frames' cards
    weights = train_classifier(
        cls_cfg,
        datasets,
        job.out / "classifier",
        start_from=job.models / "cards_cls.pt",
        epochs=epochs,
        log=log,
    )
    weights = refit_not_a_card(job, weights, candidate / "cards.onnx", log)
    export_classifier(weights, candidate / "cards_cls.onnx")
    shutil.copy(weights, candidate / "cards_cls.pt")
    for name in KEPT_FILES:
        if (job.models / name).exists():
            shutil.copy(job.models / name, candidate / name)
    return candidate


def refit_not_a_card(job: RetrainJob, weights: Path, finder: Path, log: Callable[[str], None]) -> Path:
    """A fine-tune trains the card rows only: when the current classifier has a not-a-card
    row, fit it again on the new features, from the new finder's boxes on no card in the
    synthetic set (``configs/detector/not_a_card.yaml``)."""
    from referee.paths import project_root
    from vision.detector.model_files import load_checkpoint
    from vision.detector.not_a_card import NotACardConfig, fit_not_a_card, mine
    from vision.detector.onnx_backend import OnnxDetector

    current = load_checkpoint(job.models / "cards_cls.pt")
    if len(current.get("classes", CLASSES)) == len(CLASSES):
        return weights
    cfg = NotACardConfig.load(project_root() / "configs/detector/not_a_card.yaml")
    mined = mine(OnnxDetector(finder, conf=cfg.min_conf, threads=job.threads), [job.synthetic], cfg, log)
    if not len(mined.negatives):
        log("not a card: the new finder put no box on anything but cards: the classifier keeps no such row")
        return weights
    return fit_not_a_card(weights, mined, cfg, weights.with_name("classifier_not_a_card.pt"), log)


def held_out_sets(job: RetrainJob) -> dict[str, list[Sample]]:
    yours = [s for d in job.collected for s in read_yolo_dataset(d, "val")]
    synthetic = []
    for split in ("train", "val"):
        if (job.holdout / "images" / split).is_dir():
            synthetic += read_yolo_dataset(job.holdout, split)
    if not synthetic:
        raise CardrefError(f"{job.holdout}: no images in the synthetic held-out set")
    return {"your frames (val split)": yours, "synthetic held-out": synthetic}


def score(model: Path, samples: list[Sample], threads: int | None) -> Score:
    from vision.detector import load_detector

    detector = load_detector(model, conf=EVAL_CONF, threads=threads)
    ev = evaluate(run_detector(detector, samples), len(CLASSES))
    return Score(len(samples), int(ev.gt_counts.sum()), round(ev.map50, 4), round(ev.map50_95, 4))


def install(candidate: Path, models: Path, backup: Path) -> None:
    """Copy the candidate over ``models``, each file atomically, the old files to ``backup``."""
    backup.mkdir(parents=True, exist_ok=True)
    names = [*MODEL_FILES, *(n for n in KEPT_FILES if (candidate / n).exists())]
    for name in names:
        if (models / name).exists():
            shutil.copy2(models / name, backup / name)
    for name in names:
        tmp = models / f".{name}.{os.getpid()}.tmp"
        shutil.copy2(candidate / name, tmp)
        os.replace(tmp, models / name)


def decide(old: dict[str, Score], new: dict[str, Score]) -> tuple[bool, str]:
    worse = [name for name in old if new[name].map50 <= old[name].map50]
    if not worse:
        return True, "the new model is better on both held-out sets"
    return False, f"the new model is not better on {' and '.join(worse)}"


def retrain(job: RetrainJob, log: Callable[[str], None] = print) -> Decision:
    check_inputs(job.collected, job.models)
    sets = held_out_sets(job)
    job.out.mkdir(parents=True, exist_ok=True)
    old = {name: score(job.models / "cards.onnx", s, job.threads) for name, s in sets.items()}
    candidate = train_candidate(job, log)
    new = {name: score(candidate / "cards.onnx", s, job.threads) for name, s in sets.items()}
    better, reason = decide(old, new)
    backup = job.out / "previous"
    if better:
        install(candidate, job.models, backup)
    decision = Decision(old, new, better, reason, str(candidate), str(backup) if better else None)
    record = {**asdict(decision), "collected": [str(d) for d in job.collected], "models": str(job.models)}
    files.write_json(job.out / "retrain.json", record)
    return decision
