"""Detector speed: backends and finder input sizes side by side, on the same rendered frames.

Each variant runs in its own process (so its peak memory is its own) over the same frames:
1280x720 table views rendered with the held-out decks. Rows: the shipped two-stage detector
(finder + classifier) on ONNX Runtime at the finder's input sizes, OpenVINO on the same files
when installed, and plain Ultralytics PyTorch inference of the finder's .pt. Prints a table of
medians and writes JSON.

    python bench/detector.py [--frames 30] [--sizes 480 640 960] [--out bench/detector.json]
"""

from __future__ import annotations

import argparse
import json
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


def export_finder(pt: Path, size: int, out: Path) -> Path:
    """The finder exported at another input size, with the classifier beside it."""
    import shutil

    from vision.detector.train import offline_ultralytics

    offline_ultralytics()
    from ultralytics import YOLO

    # Export a copy: Ultralytics writes the .onnx beside the weights, which would replace the
    # shipped models/cards.onnx.
    work = out / f"finder{size}"
    work.mkdir(exist_ok=True)
    copy = Path(shutil.copy(pt, work / "cards.pt"))
    onnx = Path(YOLO(str(copy)).export(format="onnx", imgsz=size, opset=17, simplify=False, dynamic=False))
    dest = out / f"cards{size}.onnx"
    shutil.move(onnx, dest)
    shutil.copy(pt.with_name("cards_cls.onnx"), out / f"cards{size}_cls.onnx")
    return dest


def measure(model: str, backend: str, frames_path: str, threads: int) -> dict:
    """Runs in the child process: warm up, then time every frame."""
    from vision.detector import load_detector

    frames = np.load(frames_path)
    det = load_detector(model, backend=backend, threads=threads)
    for f in frames[:3]:
        det.detect(f)
    times, cards = [], []
    for f in frames:
        t0 = time.perf_counter()
        cards.append(len(det.detect(f)))
        times.append((time.perf_counter() - t0) * 1000)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"ms_median": round(statistics.median(times), 1), "fps": round(1000 / statistics.median(times), 1),
            "peak_mb": round(peak_mb), "cards_per_frame": round(float(np.mean(cards)), 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--sizes", type=int, nargs="+", default=[480, 640, 960])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--model", default=str(ROOT / "models" / "cards.onnx"))
    ap.add_argument("--out", default=str(ROOT / "bench" / "detector.json"))
    ap.add_argument("--child", nargs=3, metavar=("MODEL", "BACKEND", "FRAMES"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(measure(*args.child, threads=args.threads)))
        return 0
    try:
        import openvino  # noqa: F401

        runtimes = ["onnx", "openvino"]
    except ImportError:
        runtimes = ["onnx"]
    model = Path(args.model)
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        frames = render_frames(args.frames, tmpdir)
        variants = []
        for size in args.sizes:
            path = export_finder(model.with_suffix(".pt"), size, tmpdir)
            variants += [(f"{rt} finder {size}", str(path), rt, size) for rt in runtimes]
        variants.append(("ultralytics pytorch (.pt)", str(model.with_suffix(".pt")), "ultralytics", 480))
        rows = []
        print(f"{'variant':<28} {'input':>6} {'ms/frame':>9} {'fps':>6} {'peak MB':>8} {'cards':>6} "
              f"{'x pytorch':>10}")
        for label, path, backend, size in variants:
            out = subprocess.run([sys.executable, __file__, "--threads", str(args.threads), "--child", path,
                                  backend, str(frames)], capture_output=True, text=True, check=True)
            measured = json.loads(out.stdout.splitlines()[-1])
            rows.append({"variant": label, "backend": backend, "input": size, **measured})
        base = next(r["ms_median"] for r in rows if r["backend"] == "ultralytics")
        for r in rows:
            r["speedup_vs_pytorch"] = round(base / r["ms_median"], 2)
            print(f"{r['variant']:<28} {r['input']:>6} {r['ms_median']:>9.1f} {r['fps']:>6.1f} "
                  f"{r['peak_mb']:>8} {r['cards_per_frame']:>6} {r['speedup_vs_pytorch']:>10.2f}")
    result = {"frames": args.frames, "frame_size": [1280, 720], "threads": args.threads, "rows": rows}
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
