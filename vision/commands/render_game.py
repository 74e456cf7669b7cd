"""``cardref render-game GAME --seed S --out DIR``: a seeded random game as a labelled video.

With ``--games N`` it renders the games of seeds S .. S+N-1, each into ``DIR/seedK/``, as tasks
on local processes or a Dask cluster (``--workers``, ``--cluster``): each game is made from
its seed alone, so its folder holds the same bytes whatever runs it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from referee.errors import CardrefError
from referee.executors import add_worker_args, completed, executor, workers_from_args
from referee.paths import configs_dir, datasets_dir


def build_parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Play a seeded random game and render it as an overhead video (MP4) with the true "
        "observations, announcements and per-frame card labels.",
    )
    p.add_argument(
        "game", help="game to play: royal_family, royal_shuffle, houska_castle, dukes_up or royal_crush"
    )
    p.add_argument(
        "--seed", type=int, default=0, help="random seed of the game and the rendering (default 0)"
    )
    p.add_argument("--out", required=True, help="output folder (video.mp4, observations.jsonl, ...)")
    p.add_argument(
        "--games", type=int, default=1,
        help="render the games of seeds SEED .. SEED+N-1, each into OUT/seedK/ (default 1: into OUT)",
    )
    add_worker_args(p, "render the games (the same bytes whatever the count)")
    p.add_argument("--size", default="1280x720", help="frame size WIDTHxHEIGHT (default 1280x720)")
    p.add_argument("--fps", type=float, default=30.0, help="frames per second (default 30)")
    p.add_argument("--max-moves", type=int, default=None, help="render only the first N observations")
    p.add_argument(
        "--recipe",
        default=str(datasets_dir() / "recipes" / "train.yaml"),  # the project's, from any folder
        help="deck recipe YAML (default: datasets/recipes/train.yaml of the cardref repository)",
    )
    p.add_argument(
        "--settle", type=float, default=0.6, help="seconds of still table after each move (default 0.6)"
    )
    p.add_argument(
        "--no-mat", action="store_true",
        help="plain felt without the printed play mat (no markers: replays calibrate from the cards)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def run(args: argparse.Namespace) -> int:
    from vision.synth.game_video import RENDERED_GAMES, VideoSpec, check_size, render_game

    size = check_size(args.size)
    if not 1 <= args.fps <= 120:
        raise CardrefError(f"--fps: expected 1..120, got {args.fps}")
    if args.max_moves is not None and args.max_moves < 1:
        raise CardrefError(f"--max-moves: expected a positive number, got {args.max_moves}")
    if not 0 <= args.settle <= 30:
        raise CardrefError(f"--settle: expected 0..30 seconds, got {args.settle}")
    if args.game not in RENDERED_GAMES:
        raise CardrefError(
            f"{args.game}: render-game draws {', '.join(RENDERED_GAMES)} games only"
        )
    if not (configs_dir() / "layouts" / f"{args.game}.yaml").exists():
        raise CardrefError(f"{args.game}: no table layout configs/layouts/{args.game}.yaml to render it on")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CardrefError(f"--out: {out} is a file, expected a folder")
    if args.games < 1:
        raise CardrefError(f"--games: expected a positive number, got {args.games}")
    specs = {
        seed: VideoSpec(args.game, seed, size, args.fps, args.settle, args.max_moves, args.recipe,
                        mat=not args.no_mat)
        for seed in range(args.seed, args.seed + args.games)
    }
    if args.games == 1:
        print(json.dumps(render_game(specs[args.seed], out, progress=not args.quiet)))
        return 0
    from vision.progress import progress

    workers = workers_from_args(args)
    tasks = [(seed, render_game, (spec, str((out / f"seed{seed}").resolve()), False))
             for seed, spec in specs.items()]
    failed = 0
    bar = progress(len(tasks), "render-game", "game", enabled=not args.quiet)
    with executor(workers) as pool, bar:
        for seed, future in completed(pool, tasks):
            try:
                print(json.dumps(future.result()), flush=True)
            except CardrefError as e:
                failed += 1
                message = " ".join(str(e).split())
                print(f"cardref render-game: seed {seed}: error: {message}", file=sys.stderr)
            bar.update()
    return 1 if failed else 0
