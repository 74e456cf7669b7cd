"""Everything a replay writes, as it goes: events and detections streamed line by line (a crash
keeps what came before), the annotated video frame by frame (the cards named as last read, the
announcements in a panel beside the table), then subtitles, summary and the HTML report at the
end (each observation's frame with the moved card marked, taken as it happens)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee import files
from referee.summary import Summary, summarise
from vision.background import BackgroundWorker
from vision.calibration import Calibration
from vision.detector.detections_io import from_record
from vision.layout import Layout
from vision.overlay import draw_detections, draw_zones, mark, panel_width, with_side_panel
from vision.pipeline import UNSURE_NAME, CameraReferee, Event
from vision.report import FLAGGED, FLAGGED_ANNOUNCEMENTS, Moment, Report, jpeg_uri, write_report, write_srt
from vision.screen.feed import hidden_zones
from vision.sources import Frame, VideoSource
from vision.video_out import H264Writer

UNSURE_VOTE = 1.0  # a zone whose cards not every read agreed on is flagged
RECENT = 6  # announcements in the video's panel
PICTURE_WIDTH = 640  # the report's frames
ZOOM_HEIGHT = 220
NAMES_SHOWN = 4  # likely names of a card named unsurely, in the report


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
            w, h = source.size
            self.video = H264Writer(self.video_tmp, source.fps or 30.0, (w + panel_width(w), h))
            # Annotating and encoding run on a second thread, beside decoding and detecting.
            self.painter = BackgroundWorker(self._paint)
        self.srt: list[tuple[float, str]] = []
        self.moments: list[Moment] = []
        self.series: list[tuple[float, dict[str, float]]] = []
        self.before: Summary | None = None  # the game before this frame's events
        self.hidden = hidden_zones(layout)
        self.held: dict | None = None  # the last read's detections: drawn until the next read
        self.recent: list[tuple[str, str]] = []
        self.status = "waiting for the play mat"
        self.counts = {
            "observations": 0,
            "announcements": 0,
            "desyncs": 0,
            "recoveries": 0,  # tables explained by steps the camera missed (fed, flagged)
            "recovery_questions": 0,  # tables several sequences of missed steps explain
            "name_questions": 0,  # cards read unsurely whose likely names announce other effects
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
        if camera is not None and self.before is None:
            self._follow(camera, 0.0)
        for e in events:
            record = {"t": round(e.time, 3), "frame": e.frame, "kind": e.kind, "text": e.text, "data": e.data}
            self.events.write(json.dumps(record, separators=(",", ":")) + "\n")
            self._count(e, frame, camera)
        if events:
            self.events.flush()
            if camera is not None:
                self._follow(camera, events[-1].time)
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

    def _follow(self, camera: CameraReferee, t: float) -> None:
        """The game after a frame's events: the section the next ones belong to, and the
        figures the report plots, kept when they change."""
        self.before = summarise(camera.referee, self.hidden)
        figures = self.before.tracked()
        if not self.series or self.series[-1][1] != figures:
            self.series.append((round(t, 2), figures))

    def _count(self, e: Event, frame: Frame | None, camera: CameraReferee | None = None) -> None:
        flag = e.kind in FLAGGED
        text = e.text
        if e.kind == "observation" and e.data.get("type") == "rename":
            flag, text = True, f"{e.data['card']} was {e.data['as']}: misread when it came into view, renamed"
            if "glimpse" in e.data:  # a stand-in for a card drawn unseen, named by a brief sight
                text = f"the card drawn unseen (kept as {e.data['card']}) was {e.data['as']}: seen in a pause"
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
            kind = "name_questions" if "card" in e.data else "recovery_questions"
            self.counts["recoveries" if e.kind == "recovered" else kind] += 1
        elif e.kind == "announcement" and e.announcement is not None:
            a = e.announcement
            self.counts["announcements"] += 1
            self.counts["rejects"] += a.kind == "REJECT"
            self.counts["asks"] += a.kind == "ASK"
            flag = a.kind in FLAGGED_ANNOUNCEMENTS
            self.srt.append((e.time, a.to_text()))
            self.recent = (self.recent + [(a.kind, a.text)])[-RECENT:]
            if a.kind == "ANNOUNCE":
                self.status = a.text
            if a.kind == "RESULT":
                self.result = a.text
        if e.kind in ("desync", "drift", "calibrated"):
            self.recent = (self.recent + [(e.kind, e.text)])[-RECENT:]
        kind = e.announcement.kind if e.announcement is not None else e.kind
        moment = Moment(e.time, e.frame, kind, text, flag)
        if self.before is not None:
            fields = [f"{k} {v}" for k, v in self.before.fields.items() if k != "phase"]
            moment.section = ", ".join(fields) or "the game"
            moment.turn = self.before.active or ""
        else:
            moment.section = "set-up"
        if frame is not None and camera is not None and e.kind in ("observation", "desync"):
            self._picture(moment, e, frame, camera)
        self.moments.append(moment)

    def _picture(self, moment: Moment, e: Event, frame: Frame, camera: CameraReferee) -> None:
        """The frame of a move, its card marked and shown close, and, for a card named unsurely,
        the names it may have, with their probabilities."""
        image = frame.image.copy()
        card, zone = e.data.get("card"), e.data.get("to")
        quad = self._where(camera, frame.index, e.data.get("read_as", card), zone) if card else None
        if quad is not None:
            mark(image, quad)
            moment.zoom = self._zoom(image, quad)  # the card itself, no label over it
            mark(image, quad, f"{card} -> {zone}")
        moment.picture = jpeg_uri(image, PICTURE_WIDTH)
        table = camera.table
        flagged = "others" in e.data or e.data.get("name_p", 1.0) < UNSURE_NAME
        if flagged and table is not None and zone is not None:
            read = e.data.get("read_as", card)
            p = table.likelihood.get((zone, read))
            if p is not None:
                names = [(read, p), *table.candidates.get((zone, read), ())]
                moment.names = [(n, round(float(q), 3)) for n, q in names[:NAMES_SHOWN]]

    def _where(self, camera: CameraReferee, index: int, card: str, zone: str | None) -> np.ndarray | None:
        """The card's box in this frame's read (4 image corners), else its zone's outline."""
        record = camera.detections_log[-1] if camera.detections_log else None
        if record is not None and record["frame"] == index:
            for (x0, y0, x1, y1), name in zip(record["xyxy"], record["class"], strict=True):
                if name == card:
                    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)
        z = self.layout.zones.get(zone) if zone else None
        if z is None or z.offtable or camera.calibration is None:
            return None
        x0, y0, x1, y1 = z.rect
        return camera.calibration.to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float))

    @staticmethod
    def _zoom(image: np.ndarray, quad: np.ndarray) -> str:
        """A close view round the marked card: twice its size, at least 160 px."""
        h, w = image.shape[:2]
        (cx, cy), size = quad.mean(axis=0), max(160.0, 2 * float(np.ptp(quad, axis=0).max()))
        x0, y0 = int(max(0, cx - size / 2)), int(max(0, cy - size / 2))
        x1, y1 = int(min(w, cx + size / 2)), int(min(h, cy + size / 2))
        if x1 - x0 < 8 or y1 - y0 < 8:
            return ""
        crop = image[y0:y1, x0:x1]
        return jpeg_uri(crop, max(1, round(crop.shape[1] * ZOOM_HEIGHT / crop.shape[0])), 85)

    def _overlay(self, frame: Frame, camera: CameraReferee | None) -> Overlay:
        """What the annotated frame shows, taken now (the painter thread draws it later)."""
        calibration = camera.calibration if camera is not None else None
        if camera is not None and camera.detections_log and camera.detections_log[-1]["frame"] == frame.index:
            self.held = camera.detections_log[-1]  # named until the next read
        return Overlay(frame.image, calibration, self.held, self.status, list(self.recent))

    def _paint(self, o: Overlay) -> None:
        image = o.image.copy()
        if o.calibration is not None:
            draw_zones(image, o.calibration, self.layout)
            if o.detections is not None:
                draw_detections(image, from_record(o.detections))
        assert self.video is not None
        self.video.write(with_side_panel(image, o.status, o.recent))

    def finish(self, camera: CameraReferee, elapsed: float, extra: dict | None = None) -> dict:
        self.events.close()
        self.detections.close()
        if self.video is not None:
            try:
                self.painter.close()
            finally:
                self.video.close()
            files.move_into_place(self.video_tmp, self.out / "annotated.mp4")
        video_s = self.counts["frames"] / (self.source.fps or 30.0)
        write_srt(self.out / "announcements.srt", self.srt, video_s)
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
        final = summarise(camera.referee, self.hidden)
        self._follow(camera, video_s)
        report = Report(
            f"cardref replay: {self.source.path.name} ({camera.referee.game.name.replace('_', ' ')})",
            final.result, summary, self.moments, self.series, final.to_json(),
            "annotated.mp4" if self.video is not None else None,
        )
        write_report(self.out / "report.html", report)
        return summary
