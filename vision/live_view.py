"""What the ``cardref live`` window shows, drawn as an image (no window needed to test it).

Players at a table glance at the window: they need the cards as the camera read them (named,
in their zones), whose turn it is, which keys do what right now, and whether the camera keeps
up. A machine that falls behind drops frames and reads late; saying so on screen tells the
players to slow down or close other programs instead of leaving them to guess why moves are
refused. :class:`FrameHealth` measures that; :func:`draw_live` paints everything.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.layout import Layout
from vision.overlay import draw_panel, draw_zones
from vision.table_state import TableState

HEALTH_WINDOW_S = 3.0  # seconds of frames the health is judged over
TOO_SLOW = 1.0  # mean processing time per frame over the frame interval, at which it falls behind
DROPPING = 0.1  # share of frames dropped over the window that is worth telling
FONT = cv2.FONT_HERSHEY_SIMPLEX
NAME = (60, 230, 60)
TURN = (80, 220, 255)
GOOD, BAD = (120, 210, 120), (60, 60, 255)


@dataclass
class FrameHealth:
    """Frames that never reached the referee (a gap in the source's frame numbers) and the time
    spent per frame, over the last ``HEALTH_WINDOW_S`` seconds of video."""

    fps: float = 30.0
    last_index: int | None = None
    frames: deque = field(default_factory=deque)  # (video time, frames dropped before, seconds spent)
    dropped_total: int = 0

    def update(self, index: int, t: float, seconds: float) -> None:
        """Frame ``index`` at video time ``t`` took ``seconds`` to process."""
        gap = 0 if self.last_index is None else max(0, index - self.last_index - 1)
        self.last_index = index
        self.dropped_total += gap
        self.frames.append((t, gap, seconds))
        while self.frames and self.frames[0][0] < t - HEALTH_WINDOW_S:
            self.frames.popleft()

    @property
    def dropped_share(self) -> float:
        dropped = sum(g for _, g, _ in self.frames)
        return dropped / max(1, dropped + len(self.frames))

    @property
    def load(self) -> float:
        """Processing time over the video time the frames span, the dropped ones included
        (above 1: falling behind; a live camera then drops frames)."""
        span = len(self.frames) + sum(g for _, g, _ in self.frames)
        return sum(s for _, _, s in self.frames) * self.fps / max(1, span)

    @property
    def too_slow(self) -> bool:
        """Judged once a second of frames is in (the first frames calibrate, which is slow)."""
        if len(self.frames) + sum(g for _, g, _ in self.frames) < self.fps:
            return False
        return self.load >= TOO_SLOW or self.dropped_share >= DROPPING

    def text(self) -> str:
        said = f"frames dropped {self.dropped_share:.0%}, load {self.load:.0%}"
        if self.too_slow:
            said += ": TOO SLOW, moves may be missed"
        return said


@dataclass
class LiveView:
    """Everything the window shows besides the camera picture."""

    layout: Layout
    calibration: Calibration | None = None
    table: TableState | None = None  # the last table the camera read
    turn: str | None = None  # whose turn it is, as the referee says
    status: str = ""
    recent: list[tuple[str, str]] = field(default_factory=list)  # (kind, text), latest last
    asking: bool = False  # the referee waits for an answer (ASK)
    checking: bool = False  # a card named unsurely or a missed move waits for a key
    health: FrameHealth | None = None

    def key_help(self) -> str:
        """The keys that do something now."""
        said = []
        if self.asking:
            said.append("1-9 answer the question")
        elif self.checking:
            said.append("1-9 pick the right card or move")
        return "keys: " + ", ".join([*said, "e end turn", "q quit"])

    def labels(self) -> list[tuple[tuple[int, int], str, tuple[int, int, int]]]:
        """(frame position, text, colour) of each card name read, at its zone's centre, one
        line per card, the zone's name first."""
        if self.calibration is None or self.table is None:
            return []
        out = []
        for zone_id, names in self.table.cards.items():
            zone = self.layout.zones.get(zone_id)
            if zone is None or not names:
                continue
            x0, y0, x1, y1 = zone.rect
            cx, cy = self.calibration.to_image(np.array([[(x0 + x1) / 2, (y0 + y1) / 2]], float))[0]
            for i, name in enumerate(names):
                out.append(((int(cx) - 14, int(cy) + 16 * i), name, NAME))
        return out


def _text(image: np.ndarray, at: tuple[int, int], text: str, colour, scale: float = 0.5) -> None:
    """Text with a dark outline, readable on felt and on cards alike."""
    cv2.putText(image, text, at, FONT, scale, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(image, text, at, FONT, scale, colour, 1, cv2.LINE_AA)


def draw_live(frame: np.ndarray, view: LiveView) -> np.ndarray:
    """The window's picture for ``frame`` (which is left as it is)."""
    image = frame.copy()
    if view.calibration is not None:
        draw_zones(image, view.calibration, view.layout)
    for at, text, colour in view.labels():
        _text(image, at, text, colour)
    top = 20
    if view.turn:
        _text(image, (8, top), f"{view.turn} to play", TURN, 0.6)
    if view.health is not None:
        said = view.health.text()
        (w, _), _ = cv2.getTextSize(said, FONT, 0.5, 1)
        at = (max(8, image.shape[1] - w - 8), top)
        _text(image, at, said, BAD if view.health.too_slow else GOOD)
    _text(image, (8, top + 22), view.key_help(), (230, 230, 230), 0.45)
    draw_panel(image, view.status, view.recent)
    return image
