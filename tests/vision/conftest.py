"""Fixtures the camera-referee tests share: one seeded Royal Family game rendered as a video
(held-out card design), with the renderer's labels as a stand-in detector."""

from __future__ import annotations

from pathlib import Path

import pytest
from run_cardref import render_game

from vision.replay_eval import truth_detections


@pytest.fixture(scope="session")
def game_video(tmp_path_factory) -> Path:
    """``cardref render-game``: 14 observations of seed 11, 1280x720, 30 fps."""
    return render_game(tmp_path_factory.mktemp("game"), 11, 14)


@pytest.fixture(scope="session")
def true_detections(game_video, tmp_path_factory) -> Path:
    return truth_detections(
        game_video / "labels.jsonl", tmp_path_factory.mktemp("truth") / "detections.jsonl"
    )


@pytest.fixture(scope="session")
def shuffle_video(tmp_path_factory) -> Path:
    """``cardref render-game royal_shuffle``: the first 30 observations of seed 2 (a deal, who
    starts, then turns of flips, draws and plays)."""
    return render_game(tmp_path_factory.mktemp("shuffle"), 2, 30, game="royal_shuffle")


@pytest.fixture
def browser():
    """Headless Chromium through Selenium (``browser.headless_chromium``)."""
    from browser import headless_chromium

    with headless_chromium() as chrome:
        yield chrome
