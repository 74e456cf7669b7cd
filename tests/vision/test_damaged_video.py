"""A video with a damaged stretch (issue 24, defect 2): every readable frame is used, the
unreadable ones are skipped with a warning naming them and counted, never taken for the end.
Real OpenCV decoding of the shipped sample game with 64 KB of noise written into its middle."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from run_cardref import ROOT, cardref, replay

from vision.sources import VideoSource

# Damaged videos written and replayed (seconds each):
# CI runs them; the quick subset leaves them out.
pytestmark = pytest.mark.slow

SAMPLE = ROOT / "datasets/samples/royal_family_demo/video.mp4"


def damage(src: Path, dst: Path, at: float = 0.5, size: int = 65536) -> Path:
    shutil.copy(src, dst)
    data = bytearray(dst.read_bytes())
    start = int(len(data) * at)
    data[start:start + size] = np.random.default_rng(0).integers(0, 256, size, np.uint8).tobytes()
    dst.write_bytes(bytes(data))
    return dst


@pytest.fixture(scope="module")
def damaged(tmp_path_factory) -> Path:
    return damage(SAMPLE, tmp_path_factory.mktemp("damaged") / "video.mp4")


def test_a_damaged_stretch_is_skipped_and_the_rest_is_read(damaged):
    warnings: list[str] = []
    source = VideoSource(damaged, warn=warnings.append)
    indexes = [f.index for f in source]
    assert source.frame_count == 1516
    assert indexes[-1] == 1515  # read on to the end, not stopped at the damage
    assert source.unreadable and len(indexes) + len(source.unreadable) == 1516
    assert sorted(set(indexes) | set(source.unreadable)) == list(range(1516))
    first, last = source.unreadable[0], source.unreadable[-1]
    assert warnings == [f"{damaged}: frames {first}-{last} unreadable (damaged), skipped"]
    intact = VideoSource(SAMPLE, warn=warnings.append)
    assert sum(1 for _ in intact) == 1516 and intact.unreadable == []


def test_detect_warns_of_the_damaged_frames_and_counts_them(damaged, tmp_path):
    r = cardref("detect", str(damaged), "--vid-stride", "300")
    assert r.returncode == 0, r.stderr
    warning = [ln for ln in r.stderr.splitlines() if ln.startswith("warning:")]
    assert len(warning) == 1 and re.search(r"frames \d+-\d+ unreadable", warning[0]), r.stderr
    assert "video_001500" in r.stdout  # past the damage
    assert re.search(r"6 images analysed, \d+ unreadable frames skipped", r.stdout), r.stdout


def test_replay_of_a_damaged_video_counts_its_unreadable_frames(game_video, true_detections, tmp_path):
    game = tmp_path / "game"
    game.mkdir()
    damage(game_video / "video.mp4", game / "video.mp4", at=0.4, size=4096)
    shutil.copy(game_video / "observations.jsonl", game / "observations.jsonl")
    out = tmp_path / "replay"
    r = replay(game, out, "--detections", str(true_detections), "--no-video")
    assert r.returncode == 0, r.stderr
    assert "unreadable" in r.stderr
    summary = json.loads((out / "summary.json").read_text())
    frames = VideoSource(game_video / "video.mp4").frame_count
    assert summary["unreadable_frames"] > 0
    assert summary["frames"] + summary["unreadable_frames"] == frames
