"""Frame sources: a webcam, a video file, a stream URL or a folder of images, behind one API.

Every source yields :class:`Frame` (index, timestamp in seconds, BGR image). A live source
(webcam or stream) that stops delivering is reopened with back-off; while it is gone the
source yields :class:`Lost` markers so the caller can pause the game and say so, and the
game resumes when frames come back: nothing is lost.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.errors import CardrefError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v")
STREAM_PREFIXES = ("rtsp://", "rtsps://", "http://", "https://", "udp://", "tcp://")


@dataclass
class Frame:
    index: int
    time: float  # seconds since the start of the source (video time, or wall time when live)
    image: np.ndarray


@dataclass
class Lost:
    """The live source stopped delivering; ``attempt`` reopenings have been tried so far."""

    since: float
    attempt: int


def _warn(text: str) -> None:
    print(f"warning: {text}", file=sys.stderr, flush=True)


class _EndOfVideo(Exception):
    pass


def describe(source: str) -> str:
    """What kind of source a command-line value names: camera, stream, video or folder."""
    if source.isascii() and source.isdigit():
        return "camera"
    if source.startswith(STREAM_PREFIXES):
        return "stream"
    p = Path(source)
    if p.is_dir():
        return "folder"
    if p.suffix.lower() in VIDEO_SUFFIXES:
        return "video"
    if p.suffix.lower() in IMAGE_SUFFIXES:
        return "image"
    raise CardrefError(f"{source}: not a camera index, a stream URL, a video file or a folder of images")


@contextmanager
def quiet_opencv():
    """OpenCV's own log silenced for the block: opening a camera that is not there makes each
    of its capture backends print warnings before the caller can say so in one line."""
    logging = cv2.utils.logging
    level = logging.getLogLevel()
    logging.setLogLevel(logging.LOG_LEVEL_SILENT)
    try:
        yield
    finally:
        logging.setLogLevel(level)


def open_source(source: str, fps: float | None = None, realtime: bool = False,
                warn: Callable[[str], None] = _warn, **live_options) -> FrameSource:
    """The source a command-line value names. ``realtime``: a video file is played at its own
    speed, dropping frames when the consumer falls behind, as a webcam would deliver it.
    ``warn`` is told of a video's unreadable frames, which are skipped."""
    kind = describe(source)
    if kind in ("camera", "stream"):
        return LiveSource(source, **live_options)
    if kind == "video":
        return PacedVideoSource(Path(source), warn=warn) if realtime else VideoSource(Path(source), warn)
    return ImageSource(Path(source), fps or 1.0)


class FrameSource:
    """Iterate to get frames; ``fps`` is the nominal rate (None when unknown)."""

    fps: float | None = None
    name: str = ""

    def __iter__(self) -> Iterator[Frame | Lost]:
        raise NotImplementedError

    def close(self) -> None:
        pass


class VideoSource(FrameSource):
    """A recorded video, decoded by OpenCV; time is the frame's video time.

    A frame the decoder cannot read (a damaged stretch of the file) is skipped, not taken for
    the end: reading goes on to the last frame the file declares, each run of unreadable
    frames is told to ``warn`` by its indexes, and ``unreadable`` lists them all. A file that
    ends early (truncated) gives up after ``MAX_GAP_S`` seconds of frames without one readable,
    the frames it still declared counted as unreadable."""

    MAX_GAP_S = 10.0

    def __init__(self, path: Path, warn: Callable[[str], None] = _warn):
        if not path.exists():
            raise CardrefError(f"{path}: video file not found")
        if path.is_dir():
            raise CardrefError(f"{path}: is a folder, expected a video file")
        self.path, self.name = path, str(path)
        # The decoder's own messages about a damaged stretch would bury the one warning here.
        os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
        self.cap = cv2.VideoCapture(str(path))
        if not self.cap.isOpened():
            raise CardrefError(f"{path}: cannot open video (not a video OpenCV can decode)")
        self.fps = self.cap.get(cv2.CAP_PROP_FPS) or 30.0
        self.frame_count = max(0, int(self.cap.get(cv2.CAP_PROP_FRAME_COUNT)))
        self.size = (
            int(self.cap.get(cv2.CAP_PROP_FRAME_WIDTH)),
            int(self.cap.get(cv2.CAP_PROP_FRAME_HEIGHT)),
        )
        self.warn = warn
        self.unreadable: list[int] = []
        self._gap: list[int] = []  # the current run of unreadable frames

    def _read(self, index: int, grab_only: bool = False) -> tuple[bool, np.ndarray | None]:
        """Read frame ``index``: (True, image); (False, None) for an unreadable frame to skip;
        raises _EndOfVideo at the end of the video."""
        ok, image = (self.cap.grab(), None) if grab_only else self.cap.read()
        if ok:
            self._end_gap()
            return True, image
        if index >= self.frame_count or len(self._gap) >= max(1, int(self.MAX_GAP_S * self.fps)):
            self._gap += range(index, max(index, self.frame_count))  # declared but never read
            self._end_gap(ends_early=index < self.frame_count)
            raise _EndOfVideo
        self._gap.append(index)
        return False, None

    def _end_gap(self, ends_early: bool = False) -> None:
        if not self._gap:
            return
        first, last = self._gap[0], self._gap[-1]
        frames = f"frame {first}" if first == last else f"frames {first}-{last}"
        why = "the file ends early" if ends_early else "damaged"
        self.warn(f"{self.path}: {frames} unreadable ({why}), skipped")
        self.unreadable += self._gap
        self._gap = []

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        while True:
            try:
                ok, image = self._read(index)
            except _EndOfVideo:
                return
            if ok:
                yield Frame(index, index / self.fps, image)
            index += 1

    def close(self) -> None:
        self.cap.release()


class PacedVideoSource(VideoSource):
    """A recorded video delivered as a webcam delivers: frame ``i`` is ready ``i / fps`` seconds
    after the start; a consumer that is ahead waits for it, one that is behind gets the newest
    ready frame (the frames in between are dropped, as a camera's buffer would). Rehearses
    live mode, and measures its latency, with a recorded game. ``dropped`` counts the frames
    never delivered."""

    def __init__(self, path: Path, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, warn: Callable[[str], None] = _warn):
        super().__init__(path, warn)
        self.clock, self.sleep = clock, sleep
        self.dropped = 0
        self.started: float | None = None  # clock() when frame 0 was ready

    def __iter__(self) -> Iterator[Frame]:
        self.started = self.clock()
        position = 0  # index of the next frame the decoder gives
        while True:
            ready = int((self.clock() - self.started) * self.fps)
            try:
                while position < ready:  # behind: skip to the newest ready frame
                    self._read(position, grab_only=True)
                    position += 1
                    self.dropped += 1
                ok, image = self._read(position)
            except _EndOfVideo:
                return
            if not ok:
                position += 1
                continue
            wait = position / self.fps - (self.clock() - self.started)
            if wait > 0:  # ahead of the camera: the frame is not there yet
                self.sleep(wait)
            yield Frame(position, position / self.fps, image)
            position += 1


class ImageSource(FrameSource):
    """A folder of images in name order (or one image), paced at ``fps`` for the timestamps.
    An unreadable image is an error, unless ``on_unreadable(index, path)`` is given: then it
    is told and skipped (the indexes of the others stay their positions in the folder)."""

    def __init__(self, path: Path, fps: float = 1.0,
                 on_unreadable: Callable[[int, Path], None] | None = None):
        self.name = str(path)
        if path.is_dir():
            self.files = sorted(f for f in path.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
            if not self.files:
                raise CardrefError(f"{path}: no images in this folder (expected {', '.join(IMAGE_SUFFIXES)})")
        else:
            self.files = [path]
        self.fps = fps
        self.on_unreadable = on_unreadable

    def __iter__(self) -> Iterator[Frame]:
        for index, f in enumerate(self.files):
            image = cv2.imread(str(f))
            if image is None and self.on_unreadable is not None:
                self.on_unreadable(index, f)
                continue
            if image is None:
                raise CardrefError(f"{f}: cannot read image")
            yield Frame(index, index / self.fps, image)


class LiveSource(FrameSource):
    """A webcam (index) or a stream URL. A read failure closes the device and reopens it with
    exponential back-off (``backoff`` seconds doubling up to ``max_backoff``); ``give_up``
    seconds without a frame end the source (None: never)."""

    def __init__(
        self,
        source: str,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        give_up: float | None = None,
        size: tuple[int, int] | None = None,
        opener: Callable[[], cv2.VideoCapture] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.name = source
        self.target: int | str = int(source) if source.isascii() and source.isdigit() else source
        self.backoff, self.max_backoff, self.give_up = backoff, max_backoff, give_up
        self.size = size
        self._open = opener or self._default_open
        self.clock, self.sleep = clock, sleep
        self.cap = self._open()
        if not self.cap.isOpened():
            raise CardrefError(f"{source}: cannot open camera or stream")
        self.fps = self.cap.get(cv2.CAP_PROP_FPS) or None

    def _default_open(self) -> cv2.VideoCapture:
        with quiet_opencv():  # a missing camera is our one clear line, not OpenCV's warnings
            cap = cv2.VideoCapture(self.target)
        if self.size and cap.isOpened():
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        return cap

    def __iter__(self) -> Iterator[Frame | Lost]:
        start = self.clock()
        index = 0
        while True:
            ok, image = self.cap.read() if self.cap is not None else (False, None)
            if ok:
                yield Frame(index, self.clock() - start, image)
                index += 1
                continue
            lost_at, attempt, wait = self.clock(), 0, self.backoff
            while True:
                if self.cap is not None:
                    self.cap.release()
                attempt += 1
                yield Lost(lost_at - start, attempt)
                if self.give_up is not None and self.clock() - lost_at > self.give_up:
                    return
                self.sleep(wait)
                wait = min(wait * 2, self.max_backoff)
                self.cap = self._open()
                if self.cap.isOpened():
                    break

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()
