"""``cardref eval [MODEL]``: mAP on a held-out synthetic set and on real photos, by card.

The synthetic set is rendered with a seed and card designs never used in training
(``datasets/recipes/holdout.yaml``) unless ``--synthetic DIR`` gives one. The real photos
(``--real DIR``: the shipped sample ``datasets/samples/real_dev_edje`` by default, or any folder
in the Ultralytics or Pascal VOC layout) are scored by card, rank and suit (a prediction counts
when its name matches at IoU >= 0.5), and by rank for comparison. Each true box is also named by
the naming stage alone: top-1 per suit, per tilt, per brightness tercile, and the confusions.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from referee.errors import CardrefError
from referee.paths import project_root
from vision.detector.detections import NAMES_PER_BOX

HOLDOUT = {"out": ".cache/datasets/synth_holdout", "images": 300, "seed": 9001,
           "recipe": "datasets/recipes/holdout.yaml"}


def build_parser(prog: str) -> argparse.ArgumentParser:
    from vision.commands.detect import SCORING_CONF
    from vision.detector import BACKENDS
    from vision.synth.conditions import CAMERAS

    p = argparse.ArgumentParser(prog=prog, description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", nargs="?", help="model file (default: the shipped models/cards.onnx)")
    p.add_argument("--synthetic", type=Path, help="held-out Ultralytics dataset (default: rendered)")
    real = project_root() / "datasets" / "samples" / "real_dev_edje"
    p.add_argument("--real", type=Path, default=real,
                   help="folder of labelled real photos, Ultralytics or Pascal VOC layout (VOC rank labels "
                        "take their suits from a suits.csv beside them); default: the shipped sample")
    p.add_argument("--corner-labels", action="store_true",
                   help="the real photos' boxes are their cards' corner indices (as many public card "
                        "sets label them), not whole cards: a card counts when a box of its name covers "
                        "its corners")
    p.add_argument("--skip-synthetic", action="store_true")
    p.add_argument("--skip-real", action="store_true")
    p.add_argument("--conf", type=float, default=SCORING_CONF,
                   help=f"finder confidence from which boxes are scored (default {SCORING_CONF}, as in "
                        "the label files of cardref detect --save-txt)")
    p.add_argument("--names-per-box", type=int, default=NAMES_PER_BOX, metavar="N",
                   help="score a face-up card's box under its N likeliest names (default "
                        f"{NAMES_PER_BOX}, as in the label files of cardref detect --save-txt); the figures "
                        "of each box's likeliest name alone are printed beside")
    p.add_argument("--out", type=Path, default=Path("runs/eval"), help="where JSON and PNGs go")
    p.add_argument("--backend", choices=BACKENDS,
                   help="runtime (default: openvino for .onnx when installed and the CPU has bfloat16, "
                        "else onnx; ultralytics for .pt)")
    p.add_argument("--imgsz", type=int,
                   help="finder input size alone (default: the size it was exported at, and a closer look "
                        "at a photo of small cards, vision/detector/closer_look.py)")
    p.add_argument("--camera", choices=CAMERAS,
                   help="see every picture, held-out and real, as this camera of the replay bench's "
                        "conditions would (vision/synth/conditions.py): dim warm light, defocus blur "
                        "(2.5 px at 1280 wide), grain and JPEG, the detail of a 640x360 camera")
    return p


def holdout_dataset() -> Path:
    from vision.synth.dataset import is_complete

    out = project_root() / HOLDOUT["out"]
    if not is_complete(out):
        subprocess.run([sys.executable, "-m", "vision.commands.main", "synth", "--out", str(out),
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
        any_name,
        breakdown,
        by_camera,
        by_deck_style,
        by_design,
        by_visible_share,
        corner_errors,
        draw_worst,
        face_back_confusions,
        read_yolo_dataset,
        run_detector,
        summary,
        write_json,
    )
    from vision.detector.metrics import evaluate
    from vision.progress import progress

    if args.names_per_box < 1:
        raise CardrefError(f"--names-per-box: expected 1 or more, got {args.names_per_box}")
    detector = load_detector(args.model, args.backend, conf=args.conf, imgsz=args.imgsz,
                              look_closer=args.imgsz is None)
    report: dict = {"model": str(args.model or "models/cards.onnx"), "backend": args.backend or "default",
                    "imgsz": args.imgsz or "exported", "camera": args.camera or "as filmed"}
    if args.camera:
        print(f"every picture seen through the {args.camera!r} camera (vision/synth/conditions.py)")
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
        results = run_detector(detector, progress(len(samples), "eval synthetic", "img", iterable=samples),
                               args.camera, args.names_per_box)
        report["synthetic"] = {"dataset": str(root), "images": len(samples),
                               **summary(results, list(CLASSES)),
                               "found": found(evaluate([any_name(r) for r in results], 1)),
                               **face_back_confusions(results),
                               "by_design": breakdown(samples, results, len(CLASSES), by_design),
                               "by_visible_share": breakdown(samples, results, len(CLASSES),
                                                             by_visible_share),
                               "by_deck_style": breakdown(samples, results, len(CLASSES), by_deck_style),
                               "by_camera": breakdown(samples, results, len(CLASSES), by_camera)}
        worst = draw_worst(results, list(CLASSES), args.out / "worst_synthetic.png", args.camera)
        report["synthetic"]["worst_png"] = str(worst)
        s = report["synthetic"]
        print(f"synthetic held-out ({len(samples)} images, {s['instances']} cards): "
              f"mAP50 {s['mAP50']:.3f}  mAP50-95 {s['mAP50_95']:.3f}  "
              f"BACK on face-up {s['back_on_face_up']}  face class on face-down {s['face_on_face_down']}")
        print(f"  each box under its likeliest name only: mAP50 {s['one_name']['mAP50']:.3f}  "
              f"mAP50-95 {s['one_name']['mAP50_95']:.3f}")
        print(f"  at confidence >= {s['operating_conf']}, one box per card: BACK on face-up "
              f"{s['back_on_face_up_operating']}  face class on face-down {s['face_on_face_down_operating']}")
        print(f"  cards found, whatever their names: AP50 {s['found']['AP50']:.3f}  "
              f"mAP50-95 {s['found']['mAP50_95']:.3f}")
        refiners = [("corners", "corners", getattr(detector, "refiner", None)),
                    ("corners_wide", "the wide refiner's corners", getattr(detector, "wide", None))]
        for key, what, refiner in refiners:
            if refiner is None:
                continue
            s[key] = corner_errors(refiner, samples, args.camera)
            for name, d in s[key].items():
                print(f"  {what} on the true boxes, {name} ({d['cards']} cards): median error "
                      f"{d['corner']:.3f} of the card's length (90th percentile {d['corner_p90']:.3f}), "
                      f"angle {d['angle_deg']:.1f} deg (90th percentile {d['angle_deg_p90']:.1f})")
        groups = [s["by_design"], s["by_visible_share"]]
        groups += [g for g in (s["by_deck_style"], s["by_camera"]) if len(g) > 1]  # rendered with styles
        for name, d in (i for g in groups for i in g.items()):
            print(f"  {name} ({d['instances']} cards): mAP50 {d['mAP50']:.3f}  mAP50-95 {d['mAP50_95']:.3f}")
        if not s["by_design"] and s["by_visible_share"]:
            print(f"  (no figures per card design: {root} was rendered before designs were recorded; "
                  "delete it and run again to render it anew)")
    if not args.skip_real:
        report["real"] = real_photos(detector, args.real, args.out, args.corner_labels, args.camera,
                                     args.names_per_box)
    for part in ("synthetic", "real"):
        if "recall50_per_class" in report.get(part, {}):
            print(f"{part}: recall@0.5 per class: " + " ".join(
                f"{k}={v:.2f}" for k, v in report[part]["recall50_per_class"].items()))
            court = report[part].get("court_recall50")
            if court:
                print(f"{part}: court cards, mean recall@0.5 {court['mean']:.3f} (" + ", ".join(
                    f"{r} {v:.3f}" for r, v in court.items() if r != "mean") + ")")
            print(f"{part}: costliest confusions: " + ", ".join(
                f"{c['true']}->{c['predicted']} x{c['count']}" for c in report[part]["confusions"]))
    write_json(args.out / "eval.json", report)
    print(f"report: {args.out / 'eval.json'}")
    return 0


def real_photos(detector, folder: Path, out: Path, corner_labels: bool = False,
                camera: str | None = None, names_per_box: int = NAMES_PER_BOX) -> dict:
    """Scores on a folder of labelled real photos, printed and returned for ``eval.json``."""
    from referee.cards import CLASSES
    from vision.detector.corner_labels import looks_corner_labelled
    from vision.detector.evaluate import any_name, draw_worst, run_detector, summary
    from vision.detector.metrics import evaluate
    from vision.detector.real_photos import (
        RANK_CLASSES,
        corner_box_agreement,
        name_true_boxes,
        naming_breakdown,
        read_real_folder,
        scored_by_rank,
    )
    from vision.progress import progress

    real = read_real_folder(folder)
    if corner_labels and not real.by_card:
        raise CardrefError(f"{folder}: --corner-labels needs boxes named by card (rank and suit), "
                           "not by rank")
    every_box = run_detector(detector, progress(len(real.samples), "eval real", "img", iterable=real.samples),
                             camera, names_per_box)
    if corner_labels:
        return corner_labelled(every_box, real, folder)
    by_rank = [scored_by_rank(r, real.by_card) for r in every_box]
    if looks_corner_labelled(every_box):
        print(f"note: the boxes of {folder} look like corner indices, not whole cards (two of one name in "
              "most photos, or much smaller than the cards found): score them with --corner-labels")
    report = {"dataset": str(folder), "images": len(real.samples),
              "scored_by": "card" if real.by_card else "rank",
              "found": found(evaluate([any_name(r) for r in every_box], 1))}
    if real.by_card:
        rank_ev = evaluate(by_rank, len(RANK_CLASSES))
        report["by_rank"] = {"mAP50": round(rank_ev.map50, 4), "mAP50_95": round(rank_ev.map50_95, 4)}
        report.update(summary(every_box, list(CLASSES)))
        report["worst_png"] = str(draw_worst(every_box, list(CLASSES), out / "worst_real.png", camera))
        print(f"real photos by card ({len(real.samples)} images, {report['instances']} cards): "
              f"mAP50 {report['mAP50']:.3f}  mAP50-95 {report['mAP50_95']:.3f}")
    else:
        report.update(summary(by_rank, list(RANK_CLASSES)))  # its mAP is the by-rank figure
        report["by_rank"] = {"mAP50": report["mAP50"], "mAP50_95": report["mAP50_95"]}
        report["worst_png"] = str(draw_worst(by_rank, list(RANK_CLASSES), out / "worst_real.png", camera))
        print(f"real photos ({len(real.samples)} images, {report['instances']} cards; no suits: "
              "scored by rank only)")
    print(f"  each box under its likeliest name only: mAP50 {report['one_name']['mAP50']:.3f}  "
          f"mAP50-95 {report['one_name']['mAP50_95']:.3f}")
    print(f"  by rank: mAP50 {report['by_rank']['mAP50']:.3f}  mAP50-95 {report['by_rank']['mAP50_95']:.3f}")
    print(f"  cards found, whatever their names: AP50 {report['found']['AP50']:.3f}  "
          f"mAP50-95 {report['found']['mAP50_95']:.3f}")
    if not hasattr(detector, "read_boxes"):  # a model that names the cards itself
        return report
    named = name_true_boxes(detector, real.samples, camera)  # one pass: the names and the corners
    if corners := corner_box_agreement(named):
        report["corners"] = corners
        print(f"  corners on the true boxes: the box around them against the labelled box, median IoU "
              f"{corners['median_iou']:.3f}, 10th percentile {corners['p10_iou']:.3f}, "
              f"IoU >= 0.8 for {corners['share_iou_0.8']:.2f}")
    if real.by_card:
        naming = naming_breakdown(named)
        report["true_boxes"] = naming

        def fmt(d: dict) -> str:
            return "-" if d["top1"] is None else f"{d['top1']:.3f} ({d['cards']})"

        print(f"  named on the true boxes: top-1 by card {fmt(naming['top1'])}, "
              f"by rank {fmt(naming['top1_rank'])}")
        for key in ("per_suit", "per_tilt", "per_brightness"):
            parts = "  ".join(f"{k} {fmt(v)}" for k, v in naming[key].items())
            print(f"    {key.replace('_', ' ')}: {parts}")
        print("    confusions: " + ", ".join(f"{c['true']}->{c['named']} x{c['count']}"
                                           for c in naming["confusions"]) or "none")
    return report


def corner_labelled(every_box, real, folder: Path) -> dict:
    """Scores on photos whose boxes are their cards' corner indices (``corner_labels``)."""
    from dataclasses import asdict

    from referee.cards import CLASSES
    from vision.detector.corner_labels import score

    sc = score(every_box, len(CLASSES))
    print(f"real photos labelled by their corner indices ({len(real.samples)} images, {sc.cards} cards): "
          f"a box of the card's name covers its labelled corners for {sc.named:.3f} of the cards "
          f"({sc.named_sure:.3f} at confidence >= 0.25), a box of any name {sc.found:.3f}; "
          f"mAP of covering boxes {sc.map_cover:.3f}")
    return {"dataset": str(folder), "images": len(real.samples), "scored_by": "corner indices", **asdict(sc)}
