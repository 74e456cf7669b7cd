"""``cardref replay VIDEO --game GAME --out DIR``: referee a recorded game video.

Writes, in DIR: ``events.jsonl`` (observations, announcements and camera events, streamed as
they happen: a crash keeps everything up to it), ``detections.jsonl`` (the detector's output
on every analysed frame: ``--detections`` re-runs the rules from it without the model),
``observations.jsonl`` (the game log, resumable with ``cardref referee``),
``announcements.srt`` (subtitles to play beside the video), ``annotated.mp4``,
``summary.json`` and ``report.html`` (a timeline with thumbnails; doubtful moments flagged).

The referee's questions (ASK) cannot be answered during a replay: give the answers in order
with ``--answers FILE.jsonl`` (lines such as ``{"type": "answer", "choice": "clubs"}``), or
they are flagged in the report and the game waits.

On a game rendered by ``cardref render-game``, ``--players GAME_DIR`` plays the part of the
players at the table, as the true game went: they type what the camera cannot see (a draw into
a hand, who starts), answer the referee's questions, and answer each card the camera named
unsurely (a ``[CHECK]`` in ``cardref live``) with the card really moved, as a key or a typed
rename would live; ``summary.json`` counts the checks and how they were answered. This
measures the live referee with its players; ``--answers`` alone measures the camera alone.

Several videos (paths, a folder, a glob such as ``'night/*.mp4'``) are replayed side by side on
all cores (``--workers N``) or on a Dask cluster (``--cluster ADDRESS``, docs/scale.md): each
into its own folder under ``--out``, with ``games.csv`` and ``index.html`` over all of them. A
file that differs per video is named by a pattern: ``{dir}`` is the video's folder, ``{stem}``
its name (``--players '{dir}'``, ``--answers '{dir}/observations.jsonl'``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from referee import files
from referee.errors import CardrefError


def build_parser(prog: str) -> argparse.ArgumentParser:
    from referee.executors import add_worker_args
    from referee.games import GAMES
    from vision.commands.common import add_quiet_arg
    from vision.detector import RUNTIMES

    p = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("video", nargs="+",
                   help="recorded video file; several, a folder or a glob: one replay each (see above)")
    p.add_argument("--game", required=True, choices=GAMES)
    p.add_argument("--out", required=True, type=Path, help="output folder")
    p.add_argument("--set", dest="overrides", action="append", metavar="KEY=VALUE", help="rule variant")
    p.add_argument("--model", help="detector model (default: the shipped models/cards.onnx)")
    p.add_argument("--backend", choices=RUNTIMES,
                   help="detector runtime (default: openvino when installed and the CPU has "
                        "bfloat16, where it is about 2x faster, else onnx)")
    p.add_argument("--detections", type=Path, help="detections.jsonl of an earlier run: no model needed "
                   "(with --model, the frames it lacks are detected by that model)")
    p.add_argument(
        "--calibration", type=Path, help="saved calibration JSON (default: from the mat's markers)"
    )
    p.add_argument("--answers", type=Path, help="answers to the referee's questions, in order (JSONL)")
    p.add_argument(
        "--players",
        type=Path,
        metavar="GAME_DIR",
        help="a game rendered by cardref render-game: its players type, answer and check as it went",
    )
    p.add_argument("--no-video", action="store_true", help="skip annotated.mp4 (faster)")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no announcements on stdout")
    add_quiet_arg(p)
    p.add_argument("--threads", type=int, help="detector threads (default: the runtime's; with several "
                   "local workers, the cores shared out among them)")
    add_worker_args(p, "replay several videos side by side")
    return p


def read_answers(path: Path | None) -> list:
    if path is None:
        return []
    from referee.observations import read_jsonl

    return [obs for _, obs in read_jsonl(str(path)) if obs.type == "answer"]


def run(args: argparse.Namespace) -> int:
    from vision import batch

    if batch.is_batch(args.video):
        return batch.replay_many(args)
    args.video = args.video[0]
    for name in batch.PER_VIDEO:  # a {dir} or {stem} pattern names this video's own
        setattr(args, name, batch.per_video(getattr(args, name), Path(args.video)))
    return replay_one(args)


def replay_one(args: argparse.Namespace) -> int:
    from vision.calibration import Calibration
    from vision.commands.common import game_from_args, open_referee, quiet_from_args
    from vision.detector.detections_io import model_detector, recorded_detector
    from vision.frame_loop import frames, referee_frame, rendered_players
    from vision.layout import load_layout
    from vision.pipeline import CameraReferee, Settings
    from vision.progress import progress, say
    from vision.replay_writer import ReplayWriter
    from vision.sources import VideoSource

    game = game_from_args(args)
    settings = Settings(**quiet_from_args(args))
    layout = load_layout(args.game)
    source = VideoSource(Path(args.video))
    answers = read_answers(args.answers)
    players = None
    if args.players:
        players = rendered_players(args.players, layout)
        answers = []  # the players answer
    # With --detections the model only detects the frames the file lacks, and only if given.
    model = model_detector(args.model, Settings.conf, args.backend, args.threads) \
        if args.model or not args.detections else None
    detect = recorded_detector(args.detections, model) if args.detections else model
    calibration = Calibration.load(args.calibration) if args.calibration else None
    files.ensure_dir(args.out, "replay")
    log = args.out / "observations.jsonl"
    if log.exists():
        log.unlink()  # a replay starts the game afresh
    referee, _ = open_referee(game, str(log))
    camera = CameraReferee(referee, layout, detect, calibration, settings)
    camera.inference.ask_readings = players is not None  # someone answers the camera's questions
    writer = ReplayWriter(args.out, source, layout, write_video=not args.no_video)
    started = time.perf_counter()
    writer.add(camera.start(), None)
    bar = progress(source.frame_count or None, "replay", "frame", enabled=not args.quiet)
    for frame in frames(source):
        events = referee_frame(camera, frame, players)
        while referee.pending is not None and answers:
            events += camera.answer(answers.pop(0), frame.index, frame.time)
        writer.add(events, frame, camera)
        if not args.quiet:
            for e in events:
                if e.kind in ("announcement", "desync", "resync", "drift", "calibrated"):
                    say(f"{e.time:7.1f}s  {e.text}")
        bar.update()
    bar.close()
    if camera.calibration is None:
        raise CardrefError(
            f"{args.video}: never calibrated: no play mat markers, and the start layout's cards were not "
            "found before the first move (use --calibration FILE)"
        )
    elapsed = time.perf_counter() - started
    summary = writer.finish(camera, elapsed, players.tally.to_json() if players else None)
    print(
        f"{summary['observations']} observations, {summary['announcements']} announcements, "
        f"{summary['speed_x_real_time']:.1f}x real time; report: {args.out / 'report.html'}"
    )
    return 0
