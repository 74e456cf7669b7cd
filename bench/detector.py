"""Detector speed: today's detector and an earlier one, backends and input sizes side by side.

Each variant runs in its own process (so its peak memory is its own) over the same frames:
1280x720 table views rendered with the held-out decks (about 20 cards each). At each finder
input size: the shipped detector (finder, corner refiner when it has one, classifier) on ONNX
Runtime and on OpenVINO when installed, the same for the detector of an earlier revision
(``--baseline REV``: its models/ and the code that reads them, vision/ and referee/, both
taken from git), and plain Ultralytics PyTorch inference of
the finder's .pt with the shipped classifier, and the shipped detector on the default runtime
looking closer at frames of small cards as ``cardref detect`` does at photos
(``vision/detector/closer_look.py``: a game's frames all trigger it, the camera referee never
does). Each process times its second pass over the
frames (the first pass's median is its own column). Prints a table of medians, each row's
speed over PyTorch at its size, and writes JSON.

    python bench/detector.py [--baseline c85475e] [--frames 30] [--sizes 416] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def render_frames(n: int, out: Path) -> Path:
    """``n`` 1280-px rendered frames (held-out decks, layout scenes), saved as one .npy."""
    import cv2

    from vision.layout import load_layout
    from vision.synth.assets import Art, load_recipe
    from vision.synth.render import render_sample

    art = Art(load_recipe(ROOT / "datasets" / "recipes" / "holdout.yaml"))
    layout = load_layout("royal_family")
    frames = []
    for i in range(n):
        s = render_sample(art, layout, 4242, i, imgsz=1280, weights={"layout": 1.0})
        img = cv2.imdecode(np.frombuffer(s.jpeg, np.uint8), cv2.IMREAD_COLOR)
        frames.append(cv2.resize(img, (1280, 720)) if img.shape[:2] != (720, 1280) else img)
    path = out / "frames.npy"
    np.save(path, np.stack(frames))
    return path


def models_at(rev: str, out: Path) -> Path:
    """The detector's .onnx files of git revision ``rev``, written to ``out``; its finder."""
    out.mkdir(parents=True, exist_ok=True)
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "--name-only", rev, "models/"],
                            capture_output=True, text=True, check=True).stdout.split()
    for name in (n for n in listed if n.endswith(".onnx")):
        blob = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{name}"], capture_output=True,
                              check=True)
        (out / Path(name).name).write_bytes(blob.stdout)
    return out / "cards.onnx"


def code_at(rev: str, out: Path) -> Path:
    """The packages ``vision`` and ``referee`` of git revision ``rev``, written to ``out``: a
    child process with ``out`` first on its PYTHONPATH runs the detector as that revision did."""
    out.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "vision", "referee"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    return out


def measure(model: str, backend: str, size: str, frames_path: str, threads: int,
            closer: bool = False) -> dict:
    """Runs in the child process: warm up, then time every frame. ``closer``: the detector
    looks closer at frames of small cards, as ``cardref detect`` does at photos."""
    from vision.detector import load_detector

    frames = np.load(frames_path)
    # An earlier revision's load_detector (--baseline) may not know look_closer: asked only when used.
    det = load_detector(model, backend=backend, threads=threads, imgsz=int(size),
                        **({"look_closer": True} if closer else {}))
    det.detect(frames[0])

    def one_pass() -> tuple[list[float], list[int]]:
        times, cards = [], []
        for f in frames:
            t0 = time.perf_counter()
            cards.append(len(det.detect(f)))
            times.append((time.perf_counter() - t0) * 1000)
        return times, cards

    # The first pass meets most of each network's batch sizes (cards per frame, covered cards)
    # for the first time, and OpenVINO prepares each new input shape once: a camera referee that
    # runs for an evening sees those costs in its first seconds only. The second pass is timed.
    first, _ = one_pass()
    times, cards = one_pass()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"ms_median": round(statistics.median(times), 1), "fps": round(1000 / statistics.median(times), 1),
            "ms_first_pass": round(statistics.median(first), 1),
            "peak_mb": round(peak_mb), "cards_per_frame": round(float(np.mean(cards)), 1)}


def cpu_name() -> str:
    """The CPU's model name (from /proc/cpuinfo where there is one): speeds differ by machine."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return "unknown"
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), "unknown")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--sizes", type=int, nargs="+", default=[416])
    ap.add_argument("--baseline", metavar="REV", help="also measure the detector of this git revision")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3, help="runs of each variant; the median run counts")
    ap.add_argument("--model", default=str(ROOT / "models" / "cards.onnx"))
    ap.add_argument("--out", default=str(ROOT / "bench" / "detector.json"))
    ap.add_argument("--child", nargs=4, metavar=("MODEL", "BACKEND", "SIZE", "FRAMES"),
                    help=argparse.SUPPRESS)
    ap.add_argument("--child-closer", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(measure(*args.child, threads=args.threads, closer=args.child_closer)))
        return 0
    from vision.detector import default_runtime

    default = default_runtime()  # what cardref runs on here when no --backend is given
    try:
        import openvino  # noqa: F401

        runtimes = ["onnx", "openvino"]
    except ImportError:
        runtimes = ["onnx"]
    onnx, pt = Path(args.model), Path(args.model).with_suffix(".pt")
    rows = []
    print(f"{'variant':<34} {'input':>6} {'ms/frame':>9} {'1st pass':>9} {'fps':>6} {'peak MB':>8} "
          f"{'cards':>6} {'x pytorch':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        frames = render_frames(args.frames, Path(tmp))
        base_onnx = models_at(args.baseline, Path(tmp) / "baseline") if args.baseline else None
        base_code = code_at(args.baseline, Path(tmp) / "baseline_code") if args.baseline else None
        for size in args.sizes:
            # The shipped finder is exported with dynamic shapes: one file runs at every size.
            variants = [(f"{rt} detector", onnx, rt, None, False) for rt in runtimes]
            if base_onnx:
                variants += [(f"{rt} detector at {args.baseline}", base_onnx, rt, base_code, False)
                             for rt in runtimes]
            # What cardref detect costs on such photos: a second, larger finder pass.
            variants.append((f"{default} detector, closer look", onnx, default, None, True))
            variants.append(("ultralytics pytorch + classifier", pt, "ultralytics", None, False))
            # Rounds go through every variant in turn, so that a noisy moment of the machine
            # does not fall on one variant only; a variant's figure is its median round.
            runs: dict[str, list[dict]] = {label: [] for label, *_ in variants}
            for _ in range(args.rounds):
                for label, path, backend, code, closer in variants:
                    env = dict(os.environ)
                    if code is not None:
                        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(code), env.get("PYTHONPATH")]))
                    out = subprocess.run([sys.executable, __file__, "--threads", str(args.threads), "--child",
                                          str(path), backend, str(size), str(frames),
                                          *(["--child-closer"] if closer else [])],
                                         capture_output=True, text=True, check=True, env=env)
                    runs[label].append(json.loads(out.stdout.splitlines()[-1]))
            measured = []
            for label, _, backend, _, _ in variants:
                mid = sorted(runs[label], key=lambda r: r["ms_median"])[len(runs[label]) // 2]
                measured.append({"variant": label, "backend": backend, "input": size, **mid,
                                 "ms_rounds": [r["ms_median"] for r in runs[label]]})
            base = next(r["ms_median"] for r in measured if r["backend"] == "ultralytics")
            for r in measured:
                r["speedup_vs_pytorch"] = round(base / r["ms_median"], 2)
                print(f"{r['variant']:<34} {r['input']:>6} {r['ms_median']:>9.1f} {r['ms_first_pass']:>9.1f} "
                      f"{r['fps']:>6.1f} {r['peak_mb']:>8} {r['cards_per_frame']:>6} "
                      f"{r['speedup_vs_pytorch']:>10.2f}")
            rows += measured
    print(f"default runtime on this CPU: {default}")
    result = {"frames": args.frames, "frame_size": [1280, 720], "threads": args.threads,
              "baseline": args.baseline, "rounds": args.rounds, "default_runtime": default,
              "cpu": cpu_name(), "rows": rows}
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
