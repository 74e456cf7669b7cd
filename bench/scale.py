"""Many replays at once: ``cardref replay`` of the same rendered games one after another
(``--workers 1``), on two local processes (``--workers 2``) and on a two-worker Dask
``LocalCluster`` (``--cluster``), in one run, through the shipped detector.

Each mode is one ``cardref replay`` command timed from start to end as a user would run it
(its processes started inside the timing; the cluster is started and warmed by one replay
before, as a running cluster would be: its workers have imported cardref and loaded the
detector). The modes run in rounds, each round in a rotated order, and the medians are
compared, so that a change in the machine's load does not fall on one mode alone.
``--workers 2`` shares the cores out (one detector thread each); the cluster's replays are
given ``--threads 1`` for the same reason. Prints a table and writes JSON.

    python bench/scale.py [--games 6] [--moves 8] [--size 640x360] [--repeats 3] [--no-video]
        [--out bench/scale.json]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.synth.game_video import VideoSpec, render_game  # noqa: E402

RECIPE = str(ROOT / "datasets" / "recipes" / "holdout.yaml")


def _children_cpu() -> float:
    """CPU seconds of this process's finished children (the command and its local workers;
    a cluster's workers are not its children, so theirs is not counted)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def replay(videos: list[Path], out: Path, *extra: str) -> dict:
    """One ``cardref replay`` of every video; its wall time and what games.csv says."""
    cmd = [sys.executable, "-m", "vision.commands.main", "replay", *map(str, videos),
           "--game", "royal_family",
           "--out", str(out), "--answers", "{dir}/observations.jsonl", "--quiet", *extra]
    t0, cpu0 = time.perf_counter(), _children_cpu()
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    seconds, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{r.stderr}")
    rows = list(csv.DictReader((out / "games.csv").open()))
    return {"seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
            "observations": sum(int(r["observations"]) for r in rows),
            "video_seconds": round(sum(float(r["seconds"]) for r in rows), 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--moves", type=int, default=8, help="observations rendered per game")
    ap.add_argument("--size", default="640x360")
    ap.add_argument("--repeats", type=int, default=3,
                    help="rounds of every mode, each round in a rotated order; medians are reported")
    ap.add_argument("--no-video", action="store_true",
                    help="replays without the annotated video (whose encoder is a second thread of each)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "scale.json"))
    args = ap.parse_args()
    from distributed import LocalCluster

    width, height = map(int, args.size.split("x"))
    load_before = os.getloadavg()
    video = ("--no-video",) if args.no_video else ()
    modes = {
        "one after another (--workers 1)": ("--workers", "1", *video),
        "--workers 2": ("--workers", "2", *video),
        "LocalCluster, 2 workers": ("--cluster", "{address}", "--threads", "1", *video),
    }
    runs: dict[str, list[dict]] = {name: [] for name in modes}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        videos = []
        for seed in range(1, args.games + 1):
            spec = VideoSpec(seed=seed, size=(width, height), max_moves=args.moves, recipe=RECIPE)
            render_game(spec, tmp / "games" / f"seed{seed}", False)
            videos.append(tmp / "games" / f"seed{seed}" / "video.mp4")
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
            # A running cluster: its workers have imported cardref and loaded the detector once.
            replay(videos, tmp / "warm", "--cluster", c.scheduler_address, "--threads", "1")
            names = list(modes)
            for k in range(args.repeats):
                # Rotated order, so that a change of the machine's load falls on every mode alike.
                for name in names[k % len(names):] + names[:k % len(names)]:
                    extra = [a.format(address=c.scheduler_address) for a in modes[name]]
                    runs[name].append(replay(videos, tmp / f"round{k}_mode{names.index(name)}", *extra))
    results = {}
    for name, rs in runs.items():
        results[name] = {"seconds": round(statistics.median(r["seconds"] for r in rs), 2),
                         "cpu_seconds": round(statistics.median(r["cpu_seconds"] for r in rs), 2),
                         "runs": [r["seconds"] for r in rs],
                         "observations": rs[0]["observations"], "video_seconds": rs[0]["video_seconds"]}
    serial = results["one after another (--workers 1)"]["seconds"]
    workers2 = results["--workers 2"]["seconds"]
    for r in results.values():
        r["ratio_to_one_after_another"] = round(r["seconds"] / serial, 3)
        r["ratio_to_workers_2"] = round(r["seconds"] / workers2, 3)
    print(f"{args.games} rendered games of {args.moves} observations at {args.size}, "
          f"{os.cpu_count()} cores, load average before {load_before[0]:.2f}, "
          f"median of {args.repeats} rounds")
    print(f"{'mode':34} {'median s':>9} {'x serial':>9} {'x workers 2':>12} {'cores busy':>11} "
          f"{'observations':>13}")
    for name, r in results.items():
        busy = f"{r['cpu_seconds'] / r['seconds']:.2f}" if "cluster" not in name.lower() else "-"
        print(f"{name:34} {r['seconds']:9.2f} {r['ratio_to_one_after_another']:9.3f} "
              f"{r['ratio_to_workers_2']:12.3f} {busy:>11} {r['observations']:13d}")
    record = {
        "date": time.strftime("%Y-%m-%d"),
        "games": args.games, "moves": args.moves, "size": args.size, "cores": os.cpu_count(),
        "repeats": args.repeats, "annotated_video": not args.no_video,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "modes": results,
    }
    Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
