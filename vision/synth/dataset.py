"""Write an Ultralytics dataset of synthetic images, in parallel, deterministic for a seed.

Layout of DIR: ``data.yaml``, ``classes.txt``, ``images/{train,val}/*.jpg``,
``labels/{train,val}/*.txt`` (YOLO: class cx cy w h, normalised) and ``quads/{train,val}/*.json``
(every card's true corners, class, zone, visible fraction and whether it was labelled).
Image ``i`` is made from ``(seed, i)`` alone, so the bytes do not depend on worker count:
the images are split into shards of consecutive indices that run on local processes or on a
Dask cluster's workers (:mod:`referee.executors`), in whatever order they finish.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import math
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import yaml

from referee import files
from referee.cards import CLASS_ID, CLASSES
from referee.executors import Workers, executor
from vision.layout import load_layout
from vision.progress import progress as progress_bar
from vision.synth.assets import Art, Recipe, load_recipe
from vision.synth.labels import yolo_lines
from vision.synth.render import render_sample


@dataclass(frozen=True)
class Job:
    out: str
    recipe: str
    layout: str
    seed: int
    imgsz: int
    val_every: int  # every n-th image goes to val (0: none)


_STATE: dict = {}


def split_of(index: int, val_every: int) -> str:
    return "val" if val_every and index % val_every == val_every - 1 else "train"


def _init(job: Job) -> None:
    """Load the art and layout once per process (a worker keeps them for the next shard)."""
    cv2.setNumThreads(1)
    _STATE["job"] = job
    _STATE["art"] = Art(load_recipe(job.recipe))
    _STATE["layout"] = load_layout(job.layout)


def _make(index: int) -> tuple[int, int, int]:
    job: Job = _STATE["job"]
    s = render_sample(_STATE["art"], _STATE["layout"], job.seed, index, job.imgsz)
    split = split_of(index, job.val_every)
    name = f"synth_{job.seed}_{index:06d}"
    out = Path(job.out)
    (out / "images" / split / f"{name}.jpg").write_bytes(s.jpeg)
    lines = yolo_lines(s.labels, s.width, s.height, CLASS_ID)
    (out / "labels" / split / f"{name}.txt").write_text("".join(ln + "\n" for ln in lines))
    quads = {
        "image": f"images/{split}/{name}.jpg",
        "width": s.width,
        "height": s.height,
        "scene": s.scene,
        "decks": s.decks,
        "cards": [asdict(lb) for lb in s.labels],
    }
    (out / "quads" / split / f"{name}.json").write_text(json.dumps(quads, separators=(",", ":")) + "\n")
    return index, len(lines), len(s.jpeg)


def _shard(job: Job, start: int, stop: int) -> int:
    """Render images ``start..stop-1``: one task on a local process or a cluster's worker.
    Returns the number of boxes labelled."""
    if _STATE.get("job") != job:
        _init(job)
    return sum(_make(i)[1] for i in range(start, stop))


def shards(images: int, size: int) -> list[tuple[int, int]]:
    return [(a, min(a + size, images)) for a in range(0, images, size)]


def shard_size(images: int, workers: Workers) -> int:
    """Four shards a process at least (so that one slow shard does not keep the others idle),
    at most 16 images each (a progress bar that moves; a cluster's task small enough)."""
    share = 8 if workers.cluster else workers.processes  # a cluster's size is not known here
    return max(1, min(16, math.ceil(images / (4 * share))))


def write_meta(out: Path, recipe: Recipe, job: Job, n: int) -> None:
    """synth.json, classes.txt, then data.yaml: written once every image is, so that a set
    with a data.yaml is a whole one (see :func:`is_complete`)."""
    meta = {
        "generator": "cardref synth",
        "images": n,
        "seed": job.seed,
        "imgsz": job.imgsz,
        "recipe": recipe.name,
        "decks": list(recipe.decks),
        "layout": job.layout,
        "val_every": job.val_every,
    }
    files.write_json(out / "synth.json", meta)
    files.write_text(out / "classes.txt", "".join(c + "\n" for c in CLASSES))
    names = {i: c for i, c in enumerate(CLASSES)}
    data = {"path": str(out.resolve()), "train": "images/train", "val": "images/val", "names": names}
    files.write_text(out / "data.yaml", yaml.safe_dump(data, sort_keys=False))


def is_complete(out: Path) -> bool:
    """Whether a rendered set is whole: its data.yaml (written last) is there and it holds as
    many images as its synth.json says (a set rendered before data.yaml was written last may
    have one over a render that was killed)."""
    if not (out / "data.yaml").is_file() or not (out / "synth.json").is_file():
        return False
    wanted = files.read_json_object(out / "synth.json", "synthetic set record").get("images")
    found = sum(1 for split in ("train", "val") if (out / "images" / split).is_dir()
                for p in (out / "images" / split).iterdir() if p.suffix == ".jpg")
    return found == wanted


def generate(
    out: str | Path,
    images: int,
    seed: int,
    recipe: str,
    imgsz: int = 960,
    workers: int | None = None,
    layout: str = "royal_family",
    val_every: int = 10,
    progress: bool = True,
    cluster: str | None = None,
) -> dict:
    """Render ``images`` images into ``out`` on ``workers`` local processes (default: all
    cores) or on the Dask scheduler at ``cluster``, whose workers must see ``out``."""
    out = Path(out)
    rec = load_recipe(recipe)
    Art(rec)  # fail early, with a clear error, when the art cache is missing
    for sub in ("images", "labels", "quads"):
        for split in ("train", "val"):
            files.ensure_dir(out / sub / split, "synthetic set")
    # Absolute paths: a cluster's workers do not share this process's working folder.
    job = Job(str(out.resolve()), str(Path(rec.source).resolve()), layout, seed, imgsz, val_every)
    (out / "data.yaml").unlink(missing_ok=True)  # the set is whole again only when rendered
    if cluster:
        pool = Workers(cluster=cluster)
    else:
        pool = Workers(processes=min(workers or os.cpu_count() or 1, images))
    bar = progress_bar(images, "synth", "img", enabled=progress)
    t0 = time.perf_counter()
    boxes = 0
    if pool.processes <= 1 and not pool.cluster:
        _init(job)
        for i in range(images):
            boxes += _make(i)[1]
            bar.update()
    else:
        with executor(pool) as ex:
            parts = shards(images, shard_size(images, pool))
            futures = {ex.submit(_shard, job, a, b): b - a for a, b in parts}
            for future in cf.as_completed(futures):
                boxes += future.result()
                bar.update(futures[future])
    bar.close()
    write_meta(out, rec, job, images)
    seconds = time.perf_counter() - t0
    return {
        "images": images,
        "boxes": boxes,
        "seconds": round(seconds, 2),
        "images_per_second": round(images / seconds, 2) if seconds else None,
        "out": str(out),
    }
