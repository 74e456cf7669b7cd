"""``synth`` and ``render-game`` run from a folder other than the repository: their default
deck recipe is the project's own, not a path relative to where the user stands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_elsewhere(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """The command run from a folder that is not the repository (this checkout's code)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "vision.commands.main", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )


def test_synth_from_another_folder_with_its_progress_in_a_log(tmp_path):
    r = run_elsewhere(tmp_path, "synth", "--out", "ds", "--images", "3", "--imgsz", "320", "--workers", "1")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["images"] == 3
    assert len(list((tmp_path / "ds" / "images").rglob("*.jpg"))) == 3
    assert "\r" not in r.stderr
    assert r.stderr.splitlines()[-1].startswith("synth: 100%") and "3/3" in r.stderr


def test_render_game_from_another_folder(tmp_path):
    r = run_elsewhere(
        tmp_path,
        "render-game",
        "royal_family",
        "--seed",
        "1",
        "--out",
        "game",
        "--max-moves",
        "1",
        "--size",
        "320x240",
        "--settle",
        "0",
    )
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "game" / "video.mp4").stat().st_size > 0
    assert "\r" not in r.stderr and "render-game: 100%" in r.stderr
