"""``cardref collect --camera 0 --out DIR``: collect pre-labelled frames to retrain the detector.

A frame is kept whenever the table settles into a new state (and, with ``--every S``, a still
frame every S seconds); frames that look like one already kept are skipped. Each kept frame is
pre-labelled by the current model (``--model``, default the shipped one; ``--detections``
replays a detections.jsonl of ``cardref replay`` instead) and flagged for review when a box is
below ``--review-below`` or the reads of the settled table disagree. Stop with Ctrl-C: every
frame written so far is complete.

DIR is an Ultralytics dataset (data.yaml, classes.txt, images/ and labels/ with train and val)
that Label Studio, CVAT, FiftyOne and X-AnyLabeling open, plus review.jsonl for ``cardref
review DIR``. A run is one *session* (sNNN in the file names) and goes wholly to train or to
val: ``--split auto`` (default) sends sessions 2, 2+K, 2+2K... to val (K = ``--val-every``, 4).

``--guided`` walks you through laying out every card of the deck on the game's table zones,
face-down ones included (``--plan`` prints the layouts), so the labels come from the plan and
only the boxes from the model.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from referee.errors import CardrefError


def build_parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--camera", help="webcam index, stream URL, video file or folder of images")
    p.add_argument("--out", type=Path, help="dataset folder (created, or added to)")
    p.add_argument("--every", type=float, metavar="S", help="also keep a still frame every S seconds")
    p.add_argument("--model", help="detector for the pre-labels (default: the shipped models/cards.onnx)")
    p.add_argument("--detections", type=Path, help="detections.jsonl recorded for this video: no model")
    p.add_argument("--conf", type=float, default=0.25, help="pre-label boxes at or above this (0.25)")
    p.add_argument("--review-below", type=float, default=0.5, help="flag a frame with a box below this")
    p.add_argument("--split", default="auto", choices=("auto", "train", "val"), help="this session's split")
    p.add_argument("--val-every", type=int, default=4, help="auto split: every K-th session is val (4)")
    p.add_argument("--reads", type=int, default=3, help="reads of each settled table, cross-checked (3)")
    p.add_argument(
        "--quiet-s", type=float, default=0.4,
        help="stillness before reading, seconds (0.4: longer than the referee's 0.25, for still frames)",
    )
    p.add_argument(
        "--min-change",
        type=float,
        default=0.002,
        help="share of thumbnail pixels that must differ from every kept frame (0.002)",
    )
    p.add_argument("--fps", type=float, default=1.0, help="folder of images: frames per second (1)")
    p.add_argument("--guided", action="store_true", help="lay out cards as a plan says; labels from it")
    p.add_argument("--plan", action="store_true", help="print the guided plan and exit")
    p.add_argument("--layout", default="royal_family", help="table layout: its mat markers, the plan's zones")
    p.add_argument("--seed", type=int, default=0, help="guided plan: which cards go where")
    p.add_argument("--calibration", type=Path, help="guided: saved calibration (default: mat markers)")
    p.add_argument(
        "--no-prompt",
        action="store_true",
        help="guided: do not wait for Enter (a recorded video of the layouts in order)",
    )
    return p


def make_detector(args: argparse.Namespace):
    """image, frame index -> Detections: recorded ones, or the model's down to ``--conf``."""
    from vision.calibration import without_markers
    from vision.detector import load_detector
    from vision.detector.detections_io import recorded_detector
    from vision.layout import load_layout

    if args.detections:
        return recorded_detector(args.detections)
    detector = load_detector(args.model, conf=args.conf)
    layout = load_layout(args.layout)
    # The mat's markers are not cards: a pre-label on one would teach the model otherwise.
    return lambda image, index: without_markers(detector.detect(image), image, layout)


def open_frames(args: argparse.Namespace, skipped: list[int], log):
    """The frame source; a folder's unreadable images are told, listed in ``skipped`` and passed."""
    from vision.sources import ImageSource, describe, open_source

    def unreadable(index: int, path: Path) -> None:
        skipped.append(index)
        log(f"frame {index}: unreadable ({path}), skipped")

    if describe(args.camera) == "folder":
        return ImageSource(Path(args.camera), args.fps, on_unreadable=unreadable)
    return open_source(args.camera, warn=log)


def ask(text: str) -> str:
    """Wait for Enter on the terminal."""
    try:
        return input(text)
    except (EOFError, OSError):
        raise CardrefError("no terminal to press Enter on (use --no-prompt for a recorded video)") from None


def collect_free(source, collector, layout, log) -> None:
    """Every frame of the source through the collector (a lost camera is waited for; a camera
    that mirrors the mat, turned back), with a progress bar (of the video's length, or an open
    count for a camera)."""
    from vision.collect.mirror import turned_back
    from vision.frame_loop import frames
    from vision.progress import progress

    with progress(getattr(source, "frame_count", None) or None, "collect", "frame") as bar:
        for item in frames(turned_back(source, layout, log), lost=lambda _: log("camera lost: reconnecting")):
            collector.process(item.index, item.time, item.image)
            bar.update()


def collect_guided(args: argparse.Namespace, source, watcher, session, log) -> None:
    from vision.calibration import Calibration
    from vision.collect.guided import make_plan, run_guided
    from vision.collect.mirror import turned_back
    from vision.layout import load_layout

    layout = load_layout(args.layout)
    calibration = Calibration.load(args.calibration) if args.calibration else None
    prompt = (lambda text: None) if args.no_prompt else ask
    steps = make_plan(layout, args.seed)
    frames = turned_back(source, layout, log)
    run_guided(steps, frames, watcher, session, layout, args.conf, calibration, prompt, log)


def run(args: argparse.Namespace) -> int:
    from vision.collect.capture import Collector, CollectSettings, StateWatcher
    from vision.collect.guided import format_plan, make_plan
    from vision.collect.store import Session
    from vision.commands.common import checked_quiet
    from vision.layout import load_layout
    from vision.progress import say

    if args.plan:
        layout = load_layout(args.layout)
        print(format_plan(make_plan(layout, args.seed), layout))
        return 0
    if not args.camera or not args.out:
        raise CardrefError("--camera and --out are needed (or --plan to print the guided plan)")
    checked_quiet(args.quiet_s)

    def log(text: str) -> None:
        say(text)  # a line of its own, below a running progress bar

    settings = CollectSettings(
        reads=args.reads,
        quiet_s=args.quiet_s,
        every_s=None if args.guided else args.every,
        conf=args.conf,
        review_below=args.review_below,
        min_change=args.min_change,
    )
    detect = make_detector(args)
    skipped: list[int] = []
    source = open_frames(args, skipped, log)
    model = str(args.detections or args.model or "models/cards.onnx")
    session = Session(
        args.out, args.split, args.val_every, {"source": args.camera, "model": model, "guided": args.guided}
    )
    log(f"session {session.id} -> {session.split} split of {args.out}")
    duplicates = None
    try:
        if args.guided:
            collect_guided(args, source, StateWatcher(detect, settings), session, log)
        else:
            collector = Collector(session, detect, settings, log)
            collect_free(source, collector, load_layout(args.layout), log)
            duplicates = collector.duplicates
            skipped += collector.unreadable
        skipped += getattr(source, "unreadable", [])
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)  # every frame kept so far is complete
    finally:
        source.close()
    flagged = sum(e.flagged for e in session.saved)
    parts = [f"kept {len(session.saved)} frames ({flagged} flagged for review)"]
    if duplicates is not None:
        parts.append(f"{duplicates} duplicates skipped")
    if skipped:
        parts.append(f"{len(skipped)} unreadable frames skipped")
    print(
        f"{', '.join(parts)}; session {session.id} ({session.split}); check them: cardref review {args.out}"
    )
    return 0
