"""Writing a video that browsers and phones play: H.264 in MP4 through PyAV's FFmpeg (x264,
its fastest preset, one thread beside the detector). OpenCV's own MP4 writer gives MPEG-4
part 2, which no browser plays, so the replay report could not show it."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import cv2
import numpy as np

from referee.errors import CardrefError


class H264Writer:
    def __init__(self, path: Path, fps: float, size: tuple[int, int]):
        import av

        self.path = path
        w, h = size
        self.size = (w + w % 2, h + h % 2)  # 4:2:0 colour wants even sides
        try:
            self.container = av.open(str(path), "w")
        except OSError as e:
            raise CardrefError(f"{path}: cannot write the video ({e.strerror or e})") from None
        rate = Fraction(fps).limit_denominator(1001) if fps > 0 else Fraction(30)
        self.stream = self.container.add_stream("libx264", rate=rate)
        self.stream.width, self.stream.height = self.size
        self.stream.pix_fmt = "yuv420p"
        self.stream.codec_context.options = {"preset": "ultrafast", "crf": "26", "threads": "1"}

    def write(self, bgr: np.ndarray) -> None:
        import av

        h, w = bgr.shape[:2]
        if (w, h) != self.size:
            canvas = np.zeros((self.size[1], self.size[0], 3), np.uint8)
            canvas[:h, :w] = bgr[: self.size[1], : self.size[0]]
            bgr = canvas
        # OpenCV's conversion to 4:2:0 is the faster one, and lets the detector's thread run
        yuv = cv2.cvtColor(np.ascontiguousarray(bgr), cv2.COLOR_BGR2YUV_I420)
        frame = av.VideoFrame.from_ndarray(yuv, format="yuv420p")
        for packet in self.stream.encode(frame):
            self.container.mux(packet)

    def close(self) -> None:
        for packet in self.stream.encode():
            self.container.mux(packet)
        self.container.close()
