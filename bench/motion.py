"""When to read the table: this tree's motion judge and an earlier revision's, side by side.

Renders one Royal Family game (held-out decks, 720p), films it under the replay bench's light
conditions that move every pixel of every frame (``flicker``: the light pulsing by a quarter;
``shake``: the camera trembling by a pixel), and runs each revision's ``SettleDetector`` over
every frame of each video, calibrated to the table as the camera referee is. Prints, per video
and revision, the settled reads it would ask for (the game has one per move, and a few more),
and the milliseconds per frame (median and 90th percentile): the judge runs on every frame of
a live camera, the detector only on the reads.

    python bench/motion.py [--baseline 1755c95] [--seed 141] [--moves 24] [--json bench/motion.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision import motion  # noqa: E402
from vision.calibration import from_markers  # noqa: E402
from vision.layout import load_layout  # noqa: E402
from vision.pipeline import watched_corners  # noqa: E402
from vision.synth.conditions import perturb  # noqa: E402


def module_at(rev: str, out: Path):
    """``vision/motion.py`` as it was at git revision ``rev``, imported on its own."""
    src = subprocess.run(["git", "show", f"{rev}:vision/motion.py"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    path = out / f"motion_{rev}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"motion_{rev}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def judge(module, video: Path) -> dict:
    """Every frame of ``video`` through ``module.SettleDetector``, its region the table."""
    cap = cv2.VideoCapture(str(video))
    fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
    settle, layout, times, reads, index = module.SettleDetector(), load_layout("royal_family"), [], 0, 0
    try:
        while True:
            ok, image = cap.read()
            if not ok:
                break
            if index == 0:  # the table and its margin, from the mat's markers as the camera referee does
                cal = from_markers(image, layout)
                corners = cal.to_image(watched_corners(layout))
                settle.set_region(corners, (image.shape[1], image.shape[0]))
            t0 = time.perf_counter()
            report = settle.update(image, index / fps)
            times.append((time.perf_counter() - t0) * 1000)
            if report.read_now:
                settle.mark_read(image)
                reads += 1
            index += 1
    finally:
        cap.release()
    return {"frames": index, "reads": reads, "ms_median": round(statistics.median(times), 3),
            "ms_p90": round(float(np.percentile(times, 90)), 3)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--baseline", default="1755c95", help="git revision whose vision/motion.py to compare")
    p.add_argument("--seed", type=int, default=141)
    p.add_argument("--moves", type=int, default=24)
    p.add_argument("--work", type=Path, default=None, help="keep the videos here (default: a temporary one)")
    p.add_argument("--json", type=Path, default=ROOT / "bench" / "motion.json")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        game = work / f"game_{args.seed}"
        if not (game / "video.mp4").exists():
            subprocess.run([sys.executable, "-m", "vision.commands.main", "render-game", "royal_family",
                            "--seed", str(args.seed), "--out", str(game), "--max-moves", str(args.moves),
                            "--recipe", str(ROOT / "datasets/recipes/holdout.yaml"), "--quiet"],
                           cwd=ROOT, check=True)
        moves = sum(1 for line in (game / "observations.jsonl").read_text().splitlines()
                    if json.loads(line).get("type", "move") == "move")
        videos = {"clean": game}
        for condition in ("flicker", "shake"):
            filmed = work / f"game_{args.seed}_{condition}"
            if not (filmed / "video.mp4").exists():
                perturb(game, filmed, condition, args.seed)
            videos[condition] = filmed
        judges = {args.baseline: module_at(args.baseline, Path(tmp)), "this tree": motion}
        rows = [{"video": name, "revision": rev, "moves": moves, **judge(module, folder / "video.mp4")}
                for name, folder in videos.items() for rev, module in judges.items()]
    print(f"{'video':<8} {'revision':<10} {'moves':>5} {'reads':>5} {'ms median':>9} {'ms p90':>7}")
    for r in rows:
        print(f"{r['video']:<8} {r['revision']:<10} {r['moves']:>5} {r['reads']:>5} {r['ms_median']:>9.3f} "
              f"{r['ms_p90']:>7.3f}")
    args.json.write_text(json.dumps({"seed": args.seed, "rows": rows}, indent=1) + "\n")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
