"""Run the ``cardref`` command line as a user would (a subprocess in the repository root)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def cardref(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "vision.commands.main", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        input=stdin,
    )


def render_game(out: Path, seed: int, moves: int, *extra: str, game: str = "royal_family") -> Path:
    """``cardref render-game GAME`` with the held-out card designs; returns ``out``."""
    r = cardref(
        "render-game", game, "--seed", str(seed), "--out", str(out), "--max-moves", str(moves),
        "--recipe", str(ROOT / "datasets/recipes/holdout.yaml"), "--quiet", *extra,
    )
    assert r.returncode == 0, r.stderr
    return out


def replay(game: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    """``cardref replay`` of a rendered game's video, the players' answers taken from its log."""
    return cardref(
        "replay", str(game / "video.mp4"), "--game", "royal_family", "--out", str(out),
        "--answers", str(game / "observations.jsonl"), "--quiet", *extra,
    )


def rendered_set(out: Path, images: int, seed: int) -> Path:
    """``cardref synth``: a small rendered dataset (train split only, the renderer's corners
    recorded); returns ``out``."""
    r = cardref("synth", "--out", str(out), "--images", str(images), "--seed", str(seed), "--val-every", "0",
                "--quiet")
    assert r.returncode == 0, r.stderr
    return out
