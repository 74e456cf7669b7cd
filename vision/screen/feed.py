"""What the live loop hands the screen: the game in one plain shape (``referee.summary``), the
latest announcements, the legal moves as typed, the open question with its choices, and the
camera image with the named cards (at most a few a second: encoding costs a 2-core machine)."""

from __future__ import annotations

import time
from collections import deque
from typing import Any

import cv2
import numpy as np

from referee.summary import summarise
from referee.typed_moves import typed_moves
from vision.layout import Layout
from vision.overlay import BACK, CARD, draw_zones
from vision.pipeline import CameraReferee, Event
from vision.screen.server import Hub, ScreenServer

RECENT = 6  # announcements shown
IMAGE_EVERY_S = 0.25
IMAGE_WIDTH = 960


def draw_names(image: np.ndarray, record: dict) -> None:
    """The last read's cards, boxed and named in type a room away can read (white on the
    box's colour)."""
    scale = max(0.7, image.shape[0] / 720 * 0.9)
    for (x0, y0, x1, y1), name in zip(record["xyxy"], record["class"], strict=True):
        colour = BACK if name == "BACK" else CARD
        cv2.rectangle(image, (int(x0), int(y0)), (int(x1), int(y1)), colour, 3)
        (tw, th), _ = cv2.getTextSize(name, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
        y = max(th + 4, int(y0) - 4)
        cv2.rectangle(image, (int(x0) - 2, y - th - 4), (int(x0) + tw + 2, y + 4), colour, -1)
        cv2.putText(image, name, (int(x0), y), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 2, cv2.LINE_AA)


def hidden_zones(layout: Layout) -> frozenset[str]:
    """Zones whose cards the players do not see: face-down piles and hands."""
    return frozenset(z.id for z in layout.zones.values() if z.face == "down" or z.id.startswith("hand"))


def open_question(camera: CameraReferee, checks: list) -> dict[str, Any] | None:
    """The question a number key answers now, in the order the live loop takes them: the
    referee's ASK, then which missed moves happened, then the oldest name check."""
    pending = camera.referee.pending
    if pending is not None:
        return {"kind": "ask", "text": pending.question, "choices": list(pending.labels)}
    question = camera.inference.question
    if question is not None:
        title = question.title()
        return {"kind": "name" if question.card else "missed", "text": title[0].upper() + title[1:],
                "choices": [c.describe() for c in question.choices]}
    if checks:
        check = checks[0]
        return {"kind": "check", "text": f"{check.card} was read unsurely: which card is it?",
                "choices": list(check.choices)}
    return None


class ScreenFeed:
    def __init__(self, address: str, layout: Layout):
        self.hub = Hub()
        self.server = ScreenServer(address, self.hub)
        self.layout = layout
        self.hidden = hidden_zones(layout)
        self.said: deque[dict[str, Any]] = deque(maxlen=RECENT)
        self.legal_for: tuple | None = None
        self.legal: list[str] = []
        self.image_at = -1e9

    @property
    def url(self) -> str:
        return self.server.url

    def tell(self, events: list[Event]) -> None:
        for e in events:
            if e.announcement is not None and e.announcement.kind != "LEGAL":  # the list shows those
                self.said.append({"time": round(e.time, 1), "kind": e.announcement.kind, "text": e.text})
            elif e.kind in ("desync", "recovered", "drift", "calibrated"):
                self.said.append({"time": round(e.time, 1), "kind": e.kind, "text": e.text})

    def pressed(self) -> list[int]:
        """The buttons pressed on a screen since the last call, as number keys."""
        return self.hub.take_keys()

    def _legal(self, camera: CameraReferee) -> list[str]:
        referee = camera.referee
        key = (len(referee.fed), referee.observations, referee.pending is None)
        if key != self.legal_for:
            self.legal_for = key
            self.legal = [t.text() for t in typed_moves(referee.game, referee.state)]
        return self.legal

    def show(self, camera: CameraReferee, checks: list, status: str, t: float, frame: int,
             image: np.ndarray | None) -> None:
        referee = camera.referee
        summary = summarise(referee, self.hidden)
        table = camera.table
        state = {
            "game": referee.game.name,
            "time": round(t, 1),
            "frame": frame,
            "status": status,
            "calibrated": camera.calibration is not None,
            "summary": summary.to_json(),
            "announcements": list(self.said),
            "legal": self._legal(camera) if not summary.over else [],
            "question": open_question(camera, checks),
            "seen": table.to_json()["cards"] if table is not None else {},
        }
        jpeg = None
        now = time.monotonic()
        if image is not None and now - self.image_at >= IMAGE_EVERY_S:
            self.image_at = now
            jpeg = self._picture(camera, image)
        state["image"] = self.hub.jpeg is not None or jpeg is not None
        self.hub.publish(state, jpeg)

    def _picture(self, camera: CameraReferee, image: np.ndarray) -> bytes | None:
        """The frame with the zones and the cards of the last read, named."""
        image = image.copy()
        if camera.calibration is not None:
            draw_zones(image, camera.calibration, self.layout)
        if camera.detections_log:
            draw_names(image, camera.detections_log[-1])
        h, w = image.shape[:2]
        if w > IMAGE_WIDTH:
            image = cv2.resize(image, (IMAGE_WIDTH, round(h * IMAGE_WIDTH / w)), interpolation=cv2.INTER_AREA)
        ok, jpg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return jpg.tobytes() if ok else None

    def close(self) -> None:
        self.server.close()
