"""What the ``cardref live`` window shows (``vision.live_view``), drawn on the frames of a rendered
game as the camera referee reads it (the renderer's labels standing in for the detector): the
cards read with their names in their zones, whose turn it is, the keys, and the frames dropped
or a machine too slow to keep up."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from run_cardref import cardref

from referee.games import load_game
from referee.summary import whose_turn
from vision.commands.common import open_referee
from vision.commands.replay import read_answers
from vision.detector.detections_io import recorded_detector
from vision.layout import load_layout
from vision.live_view import BAD, GOOD, FrameHealth, LiveView, draw_live
from vision.pipeline import CameraReferee
from vision.sources import VideoSource

# Live runs on a rendered video, its window recorded (seconds each):
# CI runs them; the quick subset leaves them out.
pytestmark = pytest.mark.slow


def read_until(game_video, true_detections, seconds: float):
    """The camera referee run over the video's first ``seconds``: (camera, last frame)."""
    referee, _ = open_referee(load_game("royal_family"), None)
    camera = CameraReferee(referee, load_layout("royal_family"), recorded_detector(true_detections))
    camera.start()
    answers = read_answers(game_video / "observations.jsonl")
    for frame in VideoSource(game_video / "video.mp4"):
        camera.process(frame.index, frame.time, frame.image)
        while referee.pending is not None and answers:
            camera.answer(answers.pop(0), frame.index, frame.time)
        if frame.time >= seconds:
            return camera, frame
    raise AssertionError("the video is shorter")


def changed(a: np.ndarray, b: np.ndarray, at: tuple[int, int], r: int = 10) -> bool:
    x, y = at
    return bool((cv2.absdiff(a[max(0, y - r):y + r, max(0, x):x + 4 * r],
                             b[max(0, y - r):y + r, max(0, x):x + 4 * r]) > 40).any())


def colour_in(image: np.ndarray, colour, box) -> bool:
    x0, y0, x1, y1 = box
    return bool((np.abs(image[y0:y1, x0:x1].astype(int) - colour).sum(axis=2) < 30).any())


def test_the_window_names_the_cards_read_in_their_zones_and_whose_turn(game_video, true_detections):
    camera, frame = read_until(game_video, true_detections, 12.0)
    assert camera.table is not None and camera.table.cards
    assert whose_turn(camera.referee.state) in ("black", "red")
    view = LiveView(camera.layout, camera.calibration, camera.table, turn=whose_turn(camera.referee.state),
                    status="Black to play", health=FrameHealth())
    image = draw_live(frame.image, view)
    assert image.shape == frame.image.shape and not (image == frame.image).all()
    labels = view.labels()
    read = sorted(n for names in camera.table.cards.values() for n in names)
    assert sorted(text for _, text, _ in labels) == read
    h, w = image.shape[:2]
    for at, _, _ in labels:  # each name drawn where its zone lies in the picture
        assert 0 <= at[0] < w and 0 <= at[1] < h and changed(image, frame.image, at)
    assert changed(image, frame.image, (8, 20))  # whose turn, top left
    assert "q quit" in view.key_help() and "1-9" not in view.key_help()
    assert "1-9 answer the question" in LiveView(camera.layout, asking=True).key_help()
    assert "1-9 pick" in LiveView(camera.layout, checking=True).key_help()


def test_the_window_says_when_frames_are_dropped_and_the_machine_is_too_slow(game_video):
    frame = next(iter(VideoSource(game_video / "video.mp4"))).image
    w = frame.shape[1]
    corner = (w // 2, 0, w, 30)
    keeping_up, behind = FrameHealth(), FrameHealth()
    for i in range(90):  # three seconds: every frame, 10 ms each
        keeping_up.update(i, i / 30, 0.01)
    for i in range(0, 90, 4):  # three of every four frames never arrived (the first did)
        behind.update(i, i / 30, 0.01)
    assert not keeping_up.too_slow and behind.too_slow and behind.dropped_total == 66
    assert "TOO SLOW" in behind.text() and "frames dropped 74%, load 8%" in behind.text()
    slow = FrameHealth()
    for i in range(60):  # every frame, but each takes twice its interval
        slow.update(i, i / 30, 2 / 30)
    assert slow.too_slow and "load 200%" in slow.text()
    layout = load_layout("royal_family")
    good = draw_live(frame, LiveView(layout, health=keeping_up))
    bad = draw_live(frame, LiveView(layout, health=behind))
    assert colour_in(good, GOOD, corner) and not colour_in(good, BAD, corner)
    assert colour_in(bad, BAD, corner)


def test_live_records_its_window_headless(game_video, true_detections, tmp_path):
    """``cardref live --headless --record-window``: the window's pictures of a rendered game,
    one per frame, as a video (what a player would have seen)."""
    out = tmp_path / "window.mp4"
    r = cardref("live", "royal_family", "--camera", str(game_video / "video.mp4"), "--headless",
                "--log", str(tmp_path / "g.jsonl"), "--detections", str(true_detections),
                "--record-window", str(out), stdin="")
    assert r.returncode == 0, r.stderr
    recorded, source = VideoSource(out), VideoSource(game_video / "video.mp4")
    assert recorded.frame_count == source.frame_count and recorded.size == source.size
    first = next(iter(recorded)).image
    plain = next(iter(source)).image
    assert cv2.absdiff(first, plain).max() > 100  # drawn over, not the camera alone
