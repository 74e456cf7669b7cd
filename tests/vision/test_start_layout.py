"""Calibration from the start layout's cards: a game rendered on plain felt (no printed mat, no
markers) is calibrated from the aces and the draw pile that the shipped detector finds, and
refereed from there."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from run_cardref import cardref, render_game, replay

from vision.calibration import Calibration
from vision.layout import load_layout
from vision.replay_eval import score_replay

# Rendered tables calibrated from their cards and replayed (seconds each):
# CI runs them; the quick subset leaves them out.
pytestmark = pytest.mark.slow

LAYOUT = load_layout("royal_family")


@pytest.fixture(scope="module")
def felt_game(tmp_path_factory) -> Path:
    return render_game(tmp_path_factory.mktemp("felt"), 104, 6, "--no-mat")


def true_homography(game: Path, frame: int) -> np.ndarray:
    with (game / "labels.jsonl").open() as f:
        for line in f:
            row = json.loads(line)
            if row["frame"] == frame:
                return np.array(row["H"], float)
    raise AssertionError(f"no label line for frame {frame}")


def test_calibrate_from_the_start_cards_puts_every_zone_within_its_margin(felt_game, tmp_path):
    ok, image = cv2.VideoCapture(str(felt_game / "video.mp4")).read()
    assert ok
    still = tmp_path / "start.png"
    cv2.imwrite(str(still), image)
    r = cardref("calibrate", "royal_family", "--camera", str(still))
    assert r.returncode != 0 and "markers" in r.stderr  # no mat in view: the markers' error
    saved = tmp_path / "cal.json"
    r = cardref("calibrate", "royal_family", "--camera", str(still), "--cards", "--out", str(saved))
    assert r.returncode == 0, r.stderr
    cal = Calibration.load(saved)
    assert cal.method == "layout"
    centres = np.array([z.center for z in LAYOUT.table_zones], float)
    seen_at = cv2.perspectiveTransform(centres.reshape(-1, 1, 2), true_homography(felt_game, 0)).reshape(
        -1, 2
    )
    error_cm = np.linalg.norm(cal.to_table(seen_at) - centres, axis=1)
    # Zones are 9-20 cm wide: a card's centre stays in its zone with 2.5 cm to spare.
    assert error_cm.max() < 2.5, error_cm.round(2)


def test_replay_without_a_mat_calibrates_from_the_cards_and_referees(felt_game, tmp_path):
    out = tmp_path / "replay"
    r = replay(felt_game, out, "--no-video")
    assert r.returncode == 0, r.stderr
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    calibrated = [e for e in events if e["kind"] == "calibrated"]
    assert len(calibrated) == 1 and "start layout" in calibrated[0]["text"]
    score = score_replay(felt_game, out)
    # Measured 2026-11-25: 6 of 6 here, 24 of 24 on the same game's first 24 moves.
    assert score.recovered >= 5 / 6 and score.wrong_scored == [], score
    # The calibrating frame's detections are recorded too: the rules re-run without the model.
    again = tmp_path / "again"
    r = replay(felt_game, again, "--no-video", "--detections", str(out / "detections.jsonl"))
    assert r.returncode == 0, r.stderr
    assert (again / "observations.jsonl").read_text() == (out / "observations.jsonl").read_text()
