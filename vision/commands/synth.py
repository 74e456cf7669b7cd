"""``cardref synth``: write a synthetic Ultralytics dataset, or a preview contact sheet."""

from __future__ import annotations

import argparse
import json
import sys

from referee.errors import CardrefError
from referee.executors import add_worker_args, workers_from_args
from referee.paths import datasets_dir


def build_parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Render labelled synthetic card-table images (YOLO dataset), deterministic for a seed.",
    )
    p.add_argument("--out", help="output folder (dataset) or PNG file (--preview)")
    p.add_argument("--images", type=int, default=200, help="number of images (default 200)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--recipe",
        default=str(datasets_dir() / "recipes" / "train.yaml"),  # the project's, from any folder
        help="deck recipe YAML (default: datasets/recipes/train.yaml of the cardref repository)",
    )
    p.add_argument("--imgsz", type=int, default=960, help="longest image side at most (default 960)")
    add_worker_args(p, "render shards of the images (the same bytes whatever the count)")
    p.add_argument("--layout", default="royal_family", help="table layout of the layout scenes")
    p.add_argument("--val-every", type=int, default=10, help="every N-th image goes to val (0: none)")
    p.add_argument("--preview", action="store_true", help="write a contact sheet of samples with boxes")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def run(args: argparse.Namespace) -> int:
    if args.images < 1:
        raise CardrefError("--images: expected a positive number")
    if not 160 <= args.imgsz <= 4096:
        raise CardrefError("--imgsz: expected 160..4096")
    if args.preview:
        from vision.synth.preview import contact_sheet

        out = args.out or "synth_preview.png"
        n = min(args.images, 12) if args.images != 200 else 12
        path = contact_sheet(out, n, args.seed, args.recipe, args.imgsz, args.layout)
        print(path)
        return 0
    if not args.out:
        raise CardrefError("--out: required (a folder for the dataset)")
    from vision.synth.dataset import generate

    workers = workers_from_args(args)
    summary = generate(
        args.out,
        args.images,
        args.seed,
        args.recipe,
        args.imgsz,
        workers.processes,
        args.layout,
        args.val_every,
        progress=not args.quiet,
        cluster=workers.cluster,
    )
    print(json.dumps(summary))
    sys.stdout.flush()
    return 0
