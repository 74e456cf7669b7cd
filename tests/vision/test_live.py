"""``cardref live`` headless on a rendered game video, with recorded detections standing in for
the camera's model: announcements as it goes, the game log, refusing to overwrite a game, and
resuming one."""

from __future__ import annotations

import json

from run_cardref import cardref


def observations_in(log) -> list[dict]:
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines[0]["type"] == "header" and lines[0]["game"] == "royal_family"
    return lines[1:]


def test_live_referees_a_video_and_resumes_from_its_log(game_video, true_detections, tmp_path):
    log = tmp_path / "game.jsonl"
    args = [
        "live",
        "royal_family",
        "--camera",
        str(game_video / "video.mp4"),
        "--headless",
        "--log",
        str(log),
        "--detections",
        str(true_detections),
    ]
    first = cardref(*args, stdin="")
    assert first.returncode == 0, first.stderr
    assert "calibrated from markers" in first.stdout and "[ANNOUNCE] Round 1" in first.stdout
    truth = [json.loads(line) for line in (game_video / "observations.jsonl").read_text().splitlines()]
    assert observations_in(log) == truth

    again = cardref(*args, stdin="")
    assert again.returncode == 2 and "a game is already logged here" in again.stderr

    resumed = cardref(*args, "--resume", stdin="")
    assert resumed.returncode == 0, resumed.stderr
    assert f"resumed: {len(truth)} observations" in resumed.stdout or "[ANNOUNCE]" not in resumed.stdout
    assert observations_in(log) == truth  # the table already matches the game: nothing new, nothing lost


def test_live_without_a_source_is_a_clear_error(tmp_path):
    r = cardref(
        "live",
        "royal_family",
        "--camera",
        str(tmp_path / "none.mp4"),
        "--headless",
        "--log",
        str(tmp_path / "g.jsonl"),
    )
    assert r.returncode == 2 and "none.mp4: video file not found" in r.stderr
