"""Frame sources on real files decoded by OpenCV: video, image folder, and a live source that
loses its device and gets it back."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.errors import CardrefError
from vision.sources import Frame, LiveSource, Lost, PacedVideoSource, open_source


def write_video(path, frames: int, size=(160, 120), fps=30) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
    for i in range(frames):
        writer.write(np.full((size[1], size[0], 3), (i * 7) % 255, np.uint8))
    writer.release()


def test_video_frames_have_video_time(tmp_path):
    write_video(tmp_path / "v.mp4", 12, fps=24)
    source = open_source(str(tmp_path / "v.mp4"))
    frames = list(source)
    assert [f.index for f in frames] == list(range(12))
    assert frames[6].time == pytest.approx(6 / 24) and source.fps == pytest.approx(24)


class FakeClock:
    """A clock that a consumer's work (``spend``) and the source's waits (``sleep``) advance."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.slept += seconds


def test_a_realtime_video_drops_frames_for_a_slow_consumer_and_waits_for_a_fast_one(tmp_path):
    write_video(tmp_path / "v.mp4", 30, fps=10)
    clock = FakeClock()
    slow = PacedVideoSource(tmp_path / "v.mp4", clock=clock, sleep=clock.sleep)
    got = []
    for frame in slow:
        got.append(frame)
        clock.now += 0.25  # 2.5 frame times of work per frame
    assert [f.index for f in got[:4]] == [0, 2, 5, 7] and slow.dropped == 30 - len(got)
    decoded = [int(f.image[0, 0, 0]) for f in open_source(str(tmp_path / "v.mp4"))]
    assert [int(f.image[0, 0, 0]) for f in got] == [decoded[f.index] for f in got]  # the frame it says
    assert clock.slept == 0.0
    clock = FakeClock()
    fast = PacedVideoSource(tmp_path / "v.mp4", clock=clock, sleep=clock.sleep)
    assert [f.index for f in fast] == list(range(30)) and fast.dropped == 0
    assert clock.slept == pytest.approx(2.9)  # waited for each frame: the last is ready at 2.9 s


def test_image_folder_in_name_order(tmp_path):
    for name, v in (("b.png", 20), ("a.png", 10), ("notes.txt", 0)):
        if name.endswith(".png"):
            cv2.imwrite(str(tmp_path / name), np.full((8, 8, 3), v, np.uint8))
        else:
            (tmp_path / name).write_text("x")
    frames = list(open_source(str(tmp_path), fps=2))
    assert [int(f.image[0, 0, 0]) for f in frames] == [10, 20] and frames[1].time == 0.5


@pytest.mark.parametrize(
    "source,message", [("nothing.xyz", "not a camera index"), ("missing.mp4", "video file not found")]
)
def test_bad_sources_are_named(tmp_path, source, message):
    with pytest.raises(CardrefError, match=message):
        open_source(str(tmp_path / source))


def test_live_source_reopens_with_back_off(tmp_path):
    """The device is a real video file: when it runs dry the source reports Lost, waits
    (doubling), reopens, and frames flow again with increasing indices."""
    path = tmp_path / "cam.mp4"
    write_video(path, 5)
    opens, waits = [], []
    now = [0.0]

    def opener():
        opens.append(now[0])
        # the second reopening fails (the camera is still unplugged)
        return cv2.VideoCapture("/nonexistent.mp4" if len(opens) == 2 else str(path))

    def sleep(s):
        waits.append(s)
        now[0] += s

    live = LiveSource("0", backoff=0.5, opener=opener, clock=lambda: now[0], sleep=sleep)
    items = []
    for item in live:
        items.append(item)
        if sum(isinstance(i, Frame) for i in items) == 10:
            break
    kinds = ["F" if isinstance(i, Frame) else "L" for i in items]
    assert "".join(kinds) == "FFFFF" + "LL" + "FFFFF"
    assert waits == [0.5, 1.0]
    lost = [i for i in items if isinstance(i, Lost)]
    assert [x.attempt for x in lost] == [1, 2]
    assert [i.index for i in items if isinstance(i, Frame)] == list(range(10))
