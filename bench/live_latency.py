"""Live-mode latency: rendered Royal Family games delivered as a webcam delivers them.

Each game's video (rendered by ``bench/replay.py``, or here if missing) is played at its own
speed by :class:`vision.sources.PacedVideoSource`, which drops frames when the pipeline falls
behind, exactly as a camera's buffer would; the shipped detector runs as in ``cardref live``.
Latency of a move = wall time of its first announcement - wall time at which the first
settled frame after the move was ready (the table has just settled). Compared side by side:
three reads a settled table (the default) and one.

    python bench/live_latency.py --seeds 101 102 [--json bench/live_latency.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.core import Referee  # noqa: E402
from referee.games import load_game  # noqa: E402
from vision.commands.replay import read_answers  # noqa: E402
from vision.detector.detections_io import model_detector  # noqa: E402
from vision.layout import load_layout  # noqa: E402
from vision.pipeline import CameraReferee, Settings  # noqa: E402
from vision.replay_eval import latencies, settled_times  # noqa: E402
from vision.sources import PacedVideoSource  # noqa: E402


def run_live(game: Path, reads: int, detect) -> dict:
    """Play the video in real time through the camera referee; wall-clock latencies."""
    referee = Referee(load_game("royal_family"))  # default variants, as `cardref live` plays
    camera = CameraReferee(referee, load_layout("royal_family"), detect, settings=Settings(reads=reads))
    camera.start()
    answers = read_answers(game / "observations.jsonl")
    source = PacedVideoSource(game / "video.mp4")
    seen: list[float] = []  # wall seconds since the start, of each observation event
    for frame in source:
        events = camera.process(frame.index, frame.time, frame.image)
        now = time.monotonic() - source.started
        seen += [now for e in events if e.kind == "observation"]
        while answers and referee.pending is not None:
            events = camera.answer(answers.pop(0), frame.index, frame.time)
            seen += [time.monotonic() - source.started for e in events if e.kind == "observation"]
    source.close()
    lat = latencies(settled_times(game), seen)
    return {
        "frames": source.frame_count,
        "dropped": source.dropped,
        "observations": len(seen),
        "latency_median_s": round(statistics.median(lat), 3) if lat else None,
        "latency_p90_s": round(sorted(lat)[int(0.9 * (len(lat) - 1))], 3) if lat else None,
        "latency_max_s": round(max(lat), 3) if lat else None,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, nargs="+", default=[101, 102])
    p.add_argument("--moves", type=int, default=24)
    p.add_argument("--work", type=Path, default=ROOT / ".cache" / "bench_replay")
    p.add_argument("--json", type=Path, default=ROOT / "bench" / "live_latency.json")
    args = p.parse_args()
    detect = model_detector(None, Settings.conf)
    rows = []
    for seed in args.seeds:
        game = args.work / f"game_{seed}"
        if not (game / "video.mp4").exists():
            subprocess.run(
                [sys.executable, "-m", "vision.commands.main", "render-game", "royal_family",
                 "--seed", str(seed),
                 "--out", str(game), "--max-moves", str(args.moves), "--recipe",
                 str(ROOT / "datasets/recipes/holdout.yaml"), "--quiet"],
                check=True, cwd=ROOT,
            )
        for reads in (3, 1):
            rows.append({"seed": seed, "reads": reads, **run_live(game, reads, detect)})
    print(
        f"{'seed':>5} {'reads':>5} {'frames':>7} {'dropped':>8} {'obs':>4} "
        f"{'median s':>9} {'p90 s':>6} {'max s':>6}"
    )
    for r in rows:
        print(f"{r['seed']:>5} {r['reads']:>5} {r['frames']:>7} {r['dropped']:>8} {r['observations']:>4} "
              f"{r['latency_median_s']:>9} {r['latency_p90_s']:>6} {r['latency_max_s']:>6}")
    args.json.write_text(json.dumps({"rows": rows}, indent=1))
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
