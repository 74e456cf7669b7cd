"""Everything a replay writes, as it goes: events and detections streamed line by line (a crash
keeps what came before), the annotated video frame by frame, then subtitles, summary and the
HTML report at the end."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee import files
from vision.background import BackgroundWorker
from vision.calibration import Calibration
from vision.detector.detections_io import from_record
from vision.layout import Layout
from vision.overlay import draw_detections, draw_panel, draw_zones
from vision.pipeline import UNSURE_NAME, CameraReferee, Event
from vision.report import FLAGGED, FLAGGED_ANNOUNCEMENTS, thumbnail, write_report, write_srt
from vision.sources import Frame, VideoSource

UNSURE_VOTE = 1.0  # a zone whose cards not every read agreed on is flagged


@dataclass(frozen=True)
class Overlay:
    """One annotated frame's content: the frame and what the referee knew at that moment."""

    image: np.ndarray
    calibration: Calibration | None
    detections: dict | None  # this frame's detections record, when it was analysed
    status: str
    recent: list[tuple[str, str]]


class ReplayWriter:
    def __init__(self, out: Path, source: VideoSource, layout: Layout, write_video: bool = True):
        self.out, self.source, self.layout = out, source, layout
        self.events = (out / "events.jsonl").open("w", encoding="utf-8")
        self.detections = (out / "detections.jsonl").open("w", encoding="utf-8")
        self.video = None
        if write_video:
            # Written under a temporary name and moved into place at the end: a killed replay
            # leaves no annotated.mp4 that does not play.
            for stale in out.glob(".annotated.*.tmp.mp4"):  # left by a replay that was killed
                stale.unlink(missing_ok=True)
            self.video_tmp = files.temporary_beside(out / "annotated.mp4")
            self.video = cv2.VideoWriter(
                str(self.video_tmp), cv2.VideoWriter_fourcc(*"mp4v"), source.fps or 30.0, source.size
            )
            # Annotating and encoding run on a second thread, beside decoding and detecting.
            self.painter = BackgroundWorker(self._paint)
        self.srt: list[tuple[float, str]] = []
        self.rows: list[dict] = []
        self.recent: list[tuple[str, str]] = []
        self.status = "waiting for the play mat"
        self.counts = {
            "observations": 0,
            "announcements": 0,
            "desyncs": 0,
            "recoveries": 0,  # tables explained by steps the camera missed (fed, flagged)
            "recovery_questions": 0,  # tables several sequences of missed steps explain
            "rejects": 0,
            "asks": 0,
            "frames": 0,
            "reads": 0,
            "unsure_names": 0,  # moves whose card the detector named with probability < 0.5
            "named_by_rules": 0,  # moves whose card the rules named from the likely names
            "renamed": 0,  # cards misread when drawn, renamed when read right later
        }
        self.written_detections = 0
        self.result: str | None = None

    def add(self, events: list[Event], frame: Frame | None, camera: CameraReferee | None = None) -> None:
        for e in events:
            record = {"t": round(e.time, 3), "frame": e.frame, "kind": e.kind, "text": e.text, "data": e.data}
            self.events.write(json.dumps(record, separators=(",", ":")) + "\n")
            self._count(e, frame)
        if events:
            self.events.flush()
        if camera is not None:
            for d in camera.detections_log[self.written_detections :]:
                self.detections.write(json.dumps(d, separators=(",", ":")) + "\n")
            if len(camera.detections_log) > self.written_detections:
                self.detections.flush()
            self.written_detections = len(camera.detections_log)
        if frame is not None:
            self.counts["frames"] += 1
            if self.video is not None:
                self.painter.put(self._overlay(frame, camera))

    def _count(self, e: Event, frame: Frame | None) -> None:
        flag = e.kind in FLAGGED
        text = e.text
        if e.kind == "observation" and e.data.get("type") == "rename":
            flag, text = True, f"{e.data['card']} was {e.data['as']}: misread when it came into view, renamed"
            self.counts["renamed"] += 1
        elif e.kind == "observation":
            self.counts["observations"] += 1
            if "read_as" in e.data:
                flag, text = True, f"{text} (read as {e.data['read_as']}; the rules chose this name)"
                self.counts["named_by_rules"] += 1
            elif e.data.get("name_p", 1.0) < UNSURE_NAME:
                flag, text = True, f"{text} (name unsure: probability {e.data['name_p']:.2f})"
                self.counts["unsure_names"] += 1
        elif e.kind == "read":
            self.counts["reads"] += 1
            return
        elif e.kind == "desync":
            self.counts["desyncs"] += 1
        elif e.kind in ("recovered", "question"):
            flag = True
            self.counts["recoveries" if e.kind == "recovered" else "recovery_questions"] += 1
        elif e.kind == "announcement" and e.announcement is not None:
            a = e.announcement
            self.counts["announcements"] += 1
            self.counts["rejects"] += a.kind == "REJECT"
            self.counts["asks"] += a.kind == "ASK"
            flag = a.kind in FLAGGED_ANNOUNCEMENTS
            self.srt.append((e.time, a.to_text()))
            self.recent = (self.recent + [(a.kind, a.text)])[-3:]
            if a.kind == "ANNOUNCE":
                self.status = a.text
            if a.kind == "RESULT":
                self.result = a.text
        if e.kind in ("desync", "drift", "calibrated"):
            self.recent = (self.recent + [(e.kind, e.text)])[-3:]
        kind = e.announcement.kind if e.announcement is not None else e.kind
        thumb = thumbnail(frame.image) if frame is not None and e.kind in ("observation", "desync") else ""
        self.rows.append({"time": e.time, "kind": kind, "text": text, "flag": flag, "thumb": thumb})

    def _overlay(self, frame: Frame, camera: CameraReferee | None) -> Overlay:
        """What the annotated frame shows, taken now (the painter thread draws it later)."""
        calibration = camera.calibration if camera is not None else None
        record = None
        if camera is not None and camera.detections_log and camera.detections_log[-1]["frame"] == frame.index:
            record = camera.detections_log[-1]
        return Overlay(frame.image, calibration, record, self.status, list(self.recent))

    def _paint(self, o: Overlay) -> None:
        image = o.image.copy()
        if o.calibration is not None:
            draw_zones(image, o.calibration, self.layout)
            if o.detections is not None:
                draw_detections(image, from_record(o.detections))
        draw_panel(image, o.status, o.recent)
        assert self.video is not None
        self.video.write(image)

    def finish(self, camera: CameraReferee, elapsed: float, extra: dict | None = None) -> dict:
        self.events.close()
        self.detections.close()
        if self.video is not None:
            try:
                self.painter.close()
            finally:
                self.video.release()
            files.move_into_place(self.video_tmp, self.out / "annotated.mp4")
        write_srt(self.out / "announcements.srt", self.srt)
        video_s = self.counts["frames"] / (self.source.fps or 30.0)
        unsure = [z for z, c in (camera.table.confidence.items() if camera.table else []) if c < UNSURE_VOTE]
        summary = {
            "video": str(self.source.path),
            "game": camera.referee.game.name,
            "frames": self.counts["frames"],
            "unreadable_frames": len(self.source.unreadable),
            "video_seconds": round(video_s, 2),
            "seconds": round(elapsed, 2),
            "speed_x_real_time": round(video_s / max(elapsed, 1e-9), 2),
            **{k: v for k, v in self.counts.items() if k != "frames"},
            "result": self.result,
            "pending_question": camera.referee.pending.question if camera.referee.pending else None,
            "unsure_zones_at_end": unsure,
            "calibration": None
            if camera.calibration is None
            else {"method": camera.calibration.method, "error_px": round(camera.calibration.error_px, 3)},
            **(extra or {}),
        }
        files.write_json(self.out / "summary.json", summary)
        write_report(self.out / "report.html", f"cardref replay: {self.source.path.name}", summary, self.rows)
        return summary
