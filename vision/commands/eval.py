"""``cardref eval [MODEL]``: mAP on a held-out synthetic set and on real photos (by rank).

The synthetic set is rendered with a seed and card designs never used in training
(``datasets/recipes/holdout.yaml``) unless ``--synthetic DIR`` gives one. The real photos
(``../shared/datasets/real_dev_edje``) are scored by rank: a prediction counts when its rank
matches and IoU ≥ 0.5, whatever the suit.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from referee.errors import CardrefError
from referee.paths import project_root

HOLDOUT = {"out": ".cache/datasets/synth_holdout", "images": 300, "seed": 9001,
           "recipe": "datasets/recipes/holdout.yaml"}


def build_parser(prog: str) -> argparse.ArgumentParser:
    from vision.detector import BACKENDS

    p = argparse.ArgumentParser(prog=prog, description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", nargs="?", help="model file (default: the shipped models/cards.onnx)")
    p.add_argument("--synthetic", type=Path, help="held-out Ultralytics dataset (default: rendered)")
    real = project_root().parent / "shared" / "datasets" / "real_dev_edje"
    p.add_argument("--real", type=Path, default=real, help="folder of real photos with VOC rank labels")
    p.add_argument("--skip-synthetic", action="store_true")
    p.add_argument("--skip-real", action="store_true")
    p.add_argument("--conf", type=float, default=0.01, help="confidence threshold for mAP (default 0.01)")
    p.add_argument("--out", type=Path, default=Path("runs/eval"), help="where JSON and PNGs go")
    p.add_argument("--backend", choices=BACKENDS,
                   help="runtime (default: onnx for .onnx, ultralytics for .pt)")
    p.add_argument("--imgsz", type=int, help="finder input size (default: the size it was exported at)")
    return p


def holdout_dataset() -> Path:
    from vision.synth.dataset import is_complete

    out = project_root() / HOLDOUT["out"]
    if not is_complete(out):
        subprocess.run([sys.executable, "-m", "vision.cli.main", "synth", "--out", str(out),
                        "--images", str(HOLDOUT["images"]), "--seed", str(HOLDOUT["seed"]),
                        "--recipe", str(project_root() / HOLDOUT["recipe"])], check=True)
    return out


def found(ev) -> dict[str, float]:
    """The one-class figures of :func:`vision.detector.evaluate.any_name` results."""
    return {"AP50": round(ev.map50, 4), "mAP50_95": round(ev.map50_95, 4)}


def run(args: argparse.Namespace) -> int:
    from referee.cards import CLASSES
    from vision.detector import load_detector
    from vision.detector.evaluate import (
        REAL_RANKS,
        any_name,
        breakdown,
        by_design,
        by_visible_share,
        draw_worst,
        face_back_confusions,
        read_voc_folder,
        read_yolo_dataset,
        run_detector,
        summary,
        to_ranks,
        write_json,
    )
    from vision.detector.metrics import evaluate

    detector = load_detector(args.model, args.backend, conf=args.conf, imgsz=args.imgsz)
    report: dict = {"model": str(args.model or "models/cards.onnx"), "backend": args.backend or "default",
                    "imgsz": args.imgsz or "exported"}
    if not args.skip_synthetic:
        root = args.synthetic or holdout_dataset()
        samples = []
        for split in ("train", "val"):
            if (root / "images" / split).is_dir():
                samples += read_yolo_dataset(root, split)
        if not root.is_dir():
            raise CardrefError(f"{root}: no such dataset folder")
        if not samples:
            raise CardrefError(f"{root}: no images in images/train or images/val (an Ultralytics dataset)")
        results = run_detector(detector, samples)
        ev = evaluate(results, len(CLASSES))
        report["synthetic"] = {"dataset": str(root), "images": len(samples), **summary(ev, list(CLASSES)),
                               "found": found(evaluate([any_name(r) for r in results], 1)),
                               **face_back_confusions(results),
                               "by_design": breakdown(samples, results, len(CLASSES), by_design),
                               "by_visible_share": breakdown(samples, results, len(CLASSES),
                                                             by_visible_share)}
        worst = draw_worst(results, list(CLASSES), args.out / "worst_synthetic.png")
        report["synthetic"]["worst_png"] = str(worst)
        s = report["synthetic"]
        print(f"synthetic held-out ({len(samples)} images, {s['instances']} cards): "
              f"mAP50 {s['mAP50']:.3f}  mAP50-95 {s['mAP50_95']:.3f}  "
              f"BACK on face-up {s['back_on_face_up']}  face class on face-down {s['face_on_face_down']}")
        print(f"  at confidence >= {s['operating_conf']}, one box per card: BACK on face-up "
              f"{s['back_on_face_up_operating']}  face class on face-down {s['face_on_face_down_operating']}")
        print(f"  cards found, whatever their names: AP50 {s['found']['AP50']:.3f}  "
              f"mAP50-95 {s['found']['mAP50_95']:.3f}")
        for name, d in (*s["by_design"].items(), *s["by_visible_share"].items()):
            print(f"  {name} ({d['instances']} cards): mAP50 {d['mAP50']:.3f}  mAP50-95 {d['mAP50_95']:.3f}")
        if not s["by_design"] and s["by_visible_share"]:
            print(f"  (no figures per card design: {root} was rendered before designs were recorded; "
                  "delete it and run again to render it anew)")
    if not args.skip_real:
        samples = read_voc_folder(args.real)
        if not samples:
            raise CardrefError(f"{args.real}: no Pascal VOC labels (.xml) in this folder")
        every_box = run_detector(detector, samples)
        results = [to_ranks(r) for r in every_box]
        ev = evaluate(results, len(REAL_RANKS))
        report["real"] = {"dataset": str(args.real), "images": len(samples), **summary(ev, list(REAL_RANKS)),
                          "found": found(evaluate([any_name(r) for r in every_box], 1))}
        report["real"]["worst_png"] = str(draw_worst(results, list(REAL_RANKS), args.out / "worst_real.png"))
        r = report["real"]
        print(f"real photos by rank ({len(samples)} images, {r['instances']} cards): "
              f"mAP50 {r['mAP50']:.3f}  mAP50-95 {r['mAP50_95']:.3f}")
        print(f"  cards found, whatever their ranks: AP50 {r['found']['AP50']:.3f}  "
              f"mAP50-95 {r['found']['mAP50_95']:.3f}")
    for part in ("synthetic", "real"):
        if part in report:
            print(f"{part}: recall@0.5 per class: " + " ".join(
                f"{k}={v:.2f}" for k, v in report[part]["recall50_per_class"].items()))
            print(f"{part}: costliest confusions: " + ", ".join(
                f"{c['true']}->{c['predicted']} x{c['count']}" for c in report[part]["confusions"]))
    write_json(args.out / "eval.json", report)
    print(f"report: {args.out / 'eval.json'}")
    return 0
