"""``cardref detect SOURCE``: find and name the cards in an image, a folder of images or a video.

Prints one line per image (or analysed video frame) with the cards found; a box lying on one
of the play mat's ArUco markers is left out (a marker is no card). ``--save DIR``
writes annotated images; ``--save-txt DIR`` writes one text file per image in the
Ultralytics predict convention (``class cx cy w h conf``, normalised) plus ``classes.txt``,
so any labelling or scoring tool can read the predictions.

What is printed and drawn are the boxes that are a card at least ``--conf`` surely (the
finder's confidence times the classifier's that it is a card at all: what the camera referee
counts cards by). The label files hold every box the finder found from ``SCORING_CONF`` on,
each with its confidence: a scoring tool ranks boxes by it, and a cut at 0.25 drops cards
found unsurely (covered cards, unusual decks) that are named right (dev photos by card mAP50
0.968 against 0.960 at 0.25, ``models/MODEL_CARD.md``). A face-up card's box is written once
under each of its likeliest names (``--names-per-box``, each at least 0.01 likely), the first
with the confidence printed, the others with a tenth of theirs: a card named wrongly still
counts for its right name, lower in the ranking, as Ultralytics' validation scores a box under
every class it may be. Of two lines of one face name on boxes that overlap by half, the less
sure is one card boxed twice, and is written at a tenth of its confidence.

A photo whose cards come out small at the finder's input (a spread of many cards, a table seen
from afar) is looked at again with the frame enlarged (``vision/detector/closer_look.py``);
``--imgsz N`` runs the finder at N alone.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from referee import files
from referee.errors import CardrefError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v")
# The finder confidence from which a box goes into the label files (``cardref eval``'s too).
SCORING_CONF = 0.01


def build_parser(prog: str) -> argparse.ArgumentParser:
    from vision.detector import BACKENDS
    from vision.detector.detections import NAMES_PER_BOX

    p = argparse.ArgumentParser(prog=prog, description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source", help="an image, a folder of images, or a video file")
    p.add_argument("--model", help="model file (default: the shipped models/cards.onnx)")
    p.add_argument("--conf", type=float, default=0.25,
                   help="how surely a box must be a card to be printed and drawn (default 0.25); the label "
                        f"files hold every box found from {SCORING_CONF} on, with its confidence")
    p.add_argument("--save", type=Path, metavar="DIR", help="write annotated images here")
    p.add_argument("--save-txt", type=Path, metavar="DIR", help="write class cx cy w h conf files here")
    p.add_argument("--names-per-box", type=int, default=NAMES_PER_BOX, metavar="N",
                   help="label files: a face-up card's box under its N likeliest names "
                        f"(default {NAMES_PER_BOX}), each at least 0.01 likely, the others than the "
                        "likeliest at a tenth of their confidence; 1 writes the likeliest only")
    p.add_argument("--vid-stride", type=int, default=15, help="video: analyse every N-th frame (default 15)")
    p.add_argument("--backend", choices=BACKENDS,
                   help="runtime (default: openvino for .onnx when installed and the CPU has bfloat16, "
                        "else onnx; ultralytics for .pt)")
    p.add_argument("--imgsz", type=int,
                   help="finder input size alone (default: the size it was exported at, and a closer look "
                        "at a photo of small cards, vision/detector/closer_look.py)")
    p.add_argument(
        "--layout", default="royal_family",
        help="play mat whose ArUco markers are in view: a box on one is no card (default royal_family)",
    )
    return p


def frames(source: Path, stride: int, skipped: list[int]) -> Iterator[tuple[str, np.ndarray]]:
    """(name, BGR image) of every image in ``source``, or of every ``stride``-th video frame
    (its unreadable frames are skipped and added to ``skipped``)."""
    if source.is_dir():
        files = sorted(f for f in source.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise CardrefError(f"{source}: no images in this folder (expected {', '.join(IMAGE_SUFFIXES)})")
    elif source.suffix.lower() in IMAGE_SUFFIXES:
        files = [source]
    elif source.suffix.lower() in VIDEO_SUFFIXES:
        yield from video_frames(source, stride, skipped)
        return
    else:
        raise CardrefError(f"{source}: not an image, a folder of images or a video file")
    for f in files:
        image = cv2.imread(str(f))
        if image is None:
            raise CardrefError(f"{f}: cannot read image")
        yield f.stem, image


def video_frames(path: Path, stride: int, skipped: list[int]) -> Iterator[tuple[str, np.ndarray]]:
    """Every ``stride``-th frame of a video; unreadable frames are skipped with a warning."""
    from vision.sources import VideoSource

    source = VideoSource(path)
    count = 0
    try:
        for frame in source:
            count += 1
            if frame.index % stride == 0:
                yield f"{path.stem}_{frame.index:06d}", frame.image
    finally:
        source.close()
        skipped += source.unreadable
    if count == 0:
        raise CardrefError(f"{path}: no frame could be decoded")


def encode_jpeg(image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".jpg", image)
    if not ok:
        raise CardrefError("cannot encode an annotated image as JPEG")
    return data.tobytes()


def run(args: argparse.Namespace) -> int:
    from referee.cards import CLASSES
    from vision.calibration import without_markers
    from vision.detector import load_detector
    from vision.detector.detections import label_lines
    from vision.detector.draw import draw_detections, yolo_txt
    from vision.layout import load_layout

    source = Path(args.source)
    if not source.exists():
        raise CardrefError(f"{source}: no such file or folder")
    if args.vid_stride < 1:
        raise CardrefError("--vid-stride: expected a positive number")
    if args.names_per_box < 1:
        raise CardrefError(f"--names-per-box: expected 1 or more, got {args.names_per_box}")
    if not 0 <= args.conf <= 1:
        raise CardrefError(f"--conf: expected a confidence from 0 to 1, got {args.conf}")
    layout = load_layout(args.layout)
    detector = load_detector(args.model, args.backend, conf=min(args.conf, SCORING_CONF), imgsz=args.imgsz,
                              look_closer=args.imgsz is None)
    for folder, what in ((args.save, "annotated images"), (args.save_txt, "label files")):
        if folder:
            files.ensure_dir(folder, what)
    if args.save_txt:
        files.write_text(args.save_txt / "classes.txt", "".join(f"{n}\n" for n in CLASSES))
    count = 0
    skipped: list[int] = []
    for name, image in frames(source, args.vid_stride, skipped):
        det = without_markers(detector.detect(image), image, layout)  # the mat's markers are no cards
        cards = det[det.found >= args.conf]
        count += 1
        found = " ".join(f"{n}({c:.2f})" for n, c in zip(cards.names, cards.confidence, strict=True))
        unsure = len(det) - len(cards) if args.save_txt else 0
        also = f" (and {unsure} unsure boxes in the label files)" if unsure else ""
        print(f"{name}: {len(cards)} cards {found}{also}")
        if args.save:
            files.write_bytes(args.save / f"{name}.jpg", encode_jpeg(draw_detections(image, cards)))
        if args.save_txt:
            h, w = image.shape[:2]
            named = label_lines(det, args.names_per_box)
            files.write_text(args.save_txt / f"{name}.txt", yolo_txt(named, w, h))
    print(f"{count} images analysed" + (f", {len(skipped)} unreadable frames skipped" if skipped else ""))
    return 0
