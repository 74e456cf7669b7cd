"""Renderer speed: ``cardref synth`` images per second (1 vs 2 workers) and ``cardref
render-game`` frames per second at 1280x720 against real time (30 fps).

Each figure is the median of ``--runs`` runs into a temporary folder; worker processes are
started inside the timing, as the command starts them. Prints a table and writes JSON.

    python bench/synth.py [--images 12] [--moves 6] [--runs 3] [--out bench/synth.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.synth.dataset import generate  # noqa: E402
from vision.synth.game_video import VideoSpec, render_game  # noqa: E402

RECIPE = str(ROOT / "datasets" / "recipes" / "train.yaml")


def synth_rate(images: int, workers: int, imgsz: int, runs: int) -> dict:
    rates = []
    for r in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            s = generate(tmp, images, 100 + r, RECIPE, imgsz=imgsz, workers=workers, progress=False)
        rates.append(s["images_per_second"])
    return {"images_per_second": round(statistics.median(rates), 2), "runs": rates}


def video_rate(moves: int, size: tuple[int, int], fps: float, runs: int) -> dict:
    rates, frames = [], 0
    for r in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            s = render_game(VideoSpec(seed=r, size=size, fps=fps, max_moves=moves, recipe=RECIPE), tmp, False)
        rates.append(s["frames_per_second"])
        frames += s["frames"]
    fps_med = statistics.median(rates)
    return {
        "frames_per_second": fps_med,
        "realtime_factor": round(fps_med / fps, 2),
        "frames": frames,
        "runs": rates,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--images", type=int, default=12, help="images per synth run")
    ap.add_argument("--imgsz", type=int, default=960)
    ap.add_argument("--moves", type=int, default=6, help="observations per render-game run")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "bench" / "synth.json"))
    args = ap.parse_args()
    rows = []
    print(f"{'what':<34} {'rate':>10} {'unit':<10} {'vs':>12}")
    base = None
    for workers in (1, 2):
        m = synth_rate(args.images, workers, args.imgsz, args.runs)
        base = base or m["images_per_second"]
        speedup = round(m["images_per_second"] / base, 2)
        rows.append(
            {
                "what": f"synth {args.imgsz}px, {workers} worker(s)",
                "workers": workers,
                **m,
                "speedup": speedup,
            }
        )
        print(f"{rows[-1]['what']:<34} {m['images_per_second']:>10.2f} {'img/s':<10} {speedup:>11.2f}x")
    v = video_rate(args.moves, (1280, 720), 30.0, args.runs)
    rows.append({"what": "render-game 1280x720 @ 30 fps", **v})
    rt = f"{v['realtime_factor']:.2f}x rt"
    print(f"{rows[-1]['what']:<34} {v['frames_per_second']:>10.1f} {'frames/s':<10} {rt:>12}")
    result = {
        "cpu_count": os.cpu_count(),
        "images": args.images,
        "moves": args.moves,
        "runs": args.runs,
        "rows": rows,
    }
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
