"""Guided capture: the person lays out cards as a plan says, so the labels are known.

The plan puts one card in each zone of the game's table (face-down zones get any card face
down, labelled BACK) over as few layouts as cover every class of referee.cards.CLASSES. When a
layout has settled, each detection is placed in a zone through the calibration's homography
(as the camera referee does) and matched to the planned card of that zone: the class comes
from the plan, the box from the detector. A planned card with no box, a box outside the plan
or a model reading that disagrees with the plan flags the frame for review.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from referee.cards import CLASS_ID, CLASSES
from referee.errors import CardrefError
from vision.calibration import Calibration, from_markers
from vision.collect.capture import Reading, StateWatcher, unusable
from vision.collect.store import Entry, Session
from vision.collect.yolo_labels import LabelBox
from vision.detector.detections import Detections
from vision.layout import Layout, Zone
from vision.sources import Frame, Lost
from vision.table_state import place

BACK = "BACK"
FACES = [c for c in CLASSES if c != BACK]  # the 52 cards and the joker


@dataclass(frozen=True)
class Placement:
    zone: str
    card: str  # a CLASSES name; BACK: any card, face down
    sideways: bool = False  # the zone holds its card turned 90 degrees (dungeons)

    def instruction(self) -> str:
        what = "any card FACE DOWN" if self.card == BACK else self.card
        return f"{self.zone:<24} {what}{'  (sideways)' if self.sideways else ''}"


@dataclass(frozen=True)
class Step:
    number: int
    placements: tuple[Placement, ...]


def plan_zones(layout: Layout) -> list[Zone]:
    """Zones that hold one card each in a guided layout (crosswise 'across' zones overlap their
    base zone, so they are left out)."""
    return [z for z in layout.table_zones if z.kind != "across"]


def make_plan(layout: Layout, seed: int = 0) -> list[Step]:
    """Layouts that together show every class: faces spread evenly over the face-up zones,
    BACK in every face-down zone. The same seed gives the same plan."""
    zones = plan_zones(layout)
    up = [z for z in zones if z.face == "up"]
    down = [z for z in zones if z.face == "down"]
    if not up:
        raise CardrefError(f"{layout.source}: no face-up zone to lay the cards out in")
    rng = np.random.default_rng(seed)
    faces = list(FACES)
    rng.shuffle(faces)
    count = math.ceil(len(faces) / len(up))
    steps = []
    for k in range(count):
        chunk = faces[k::count]
        spots = [up[int(i)] for i in rng.permutation(len(up))[: len(chunk)]]
        placed = [Placement(z.id, c, z.rotated) for z, c in zip(spots, chunk, strict=True)]
        placed += [Placement(z.id, BACK, z.rotated) for z in down]
        order = {z.id: i for i, z in enumerate(zones)}
        steps.append(Step(k + 1, tuple(sorted(placed, key=lambda p: order[p.zone]))))
    missing = set(CLASSES) - {p.card for s in steps for p in s.placements}
    if missing:
        raise CardrefError(f"{layout.source}: no face-down zone, so the plan cannot show {sorted(missing)}")
    return steps


def format_plan(steps: list[Step], layout: Layout) -> str:
    lines = [
        f"Guided capture on the {layout.name} table: {len(steps)} layouts, "
        f"{sum(len(s.placements) for s in steps)} cards, every one of the {len(CLASSES)} classes.",
    ]
    for s in steps:
        lines.append("")
        lines += format_step(s, len(steps)).splitlines()
    return "\n".join(lines)


def format_step(step: Step, total: int) -> str:
    head = f"Layout {step.number} of {total}: one card per zone, nothing else on the table"
    return "\n".join([head, *("  " + p.instruction() for p in step.placements)])


def match_step(
    step: Step, det: Detections, calibration: Calibration, layout: Layout, width: int, height: int
) -> tuple[list[LabelBox], list[str]]:
    """Label boxes for the planned cards (class from the plan, box from the detector) and the
    reasons to review the frame."""
    seen = place(det, calibration, layout)
    zone_of = [s.zone for s in seen]
    for i, z in enumerate(zone_of):  # a card turned crosswise on a fort is still on that fort
        if z is not None and layout.zones[z].kind == "across":
            zone_of[i] = layout.zones[z].over
    used: set[int] = set()
    boxes, reasons = [], []
    for p in step.placements:
        here = [i for i, z in enumerate(zone_of) if z == p.zone and i not in used]
        if not here:
            reasons.append(f"missing: {p.card} in {p.zone}")
            continue
        best = max(here, key=lambda i: float(det.confidence[i]))
        used.update(here)
        boxes.append(
            LabelBox.from_xyxy(CLASS_ID[p.card], det.xyxy[best], width, height, float(det.confidence[best]))
        )
        if seen[best].name != p.card:
            reasons.append(f"{p.zone}: planned {p.card}, model read {seen[best].name}")
        if len(here) > 1:
            reasons.append(f"{p.zone}: {len(here)} boxes, kept the most confident")
    extra = [seen[i].name for i in range(len(seen)) if i not in used]
    if extra:
        reasons.append(f"{len(extra)} box(es) outside the plan dropped: {', '.join(extra)}")
    return boxes, reasons


def run_guided(
    steps: list[Step],
    frames: Iterable[Frame | Lost],
    watcher: StateWatcher,
    session: Session,
    layout: Layout,
    conf: float,
    calibration: Calibration | None = None,
    prompt: Callable[[str], object] = input,
    log: Callable[[str], None] = print,
) -> list[Entry]:
    """Walk the person through the plan: show a layout, wait for Enter (``prompt``), keep the
    first settled new table state, label it from the plan."""
    stream = iter(frames)
    fixed = calibration is not None
    entries = []
    for step in steps:
        log(format_step(step, len(steps)))
        prompt(f"Lay out layout {step.number}, take your hands away, then press Enter ")
        reading = next_settled(stream, watcher, log)
        if reading is None:
            raise CardrefError(f"the source ended before layout {step.number} of {len(steps)} was seen")
        if not fixed:  # re-found at every layout: the camera may have been nudged
            try:
                calibration = from_markers(reading.image, layout, source=f"frame {reading.index}")
            except CardrefError:
                if calibration is None:
                    raise
        det = reading.reads[-1]
        det = det[det.confidence >= conf]
        h, w = reading.image.shape[:2]
        assert calibration is not None
        boxes, reasons = match_step(step, det, calibration, layout, w, h)
        entry = session.save(reading.index, reading.time, reading.image, boxes, "guided", reasons)
        entries.append(entry)
        flag = f"  REVIEW: {entry.reason}" if entry.flagged else ""
        log(f"layout {step.number}: {len(boxes)} of {len(step.placements)} cards -> {entry.image}{flag}")
    return entries


def next_settled(stream, watcher: StateWatcher, log: Callable[[str], None]) -> Reading | None:
    for item in stream:
        if isinstance(item, Lost):
            if item.attempt == 1:
                log("camera lost: reconnecting")
            continue
        why = unusable(item.image)
        if why:
            log(f"frame {item.index}: unreadable ({why}), skipped")
            continue
        reading = watcher.update(item.index, item.time, item.image)
        if reading is not None and reading.trigger == "settled":
            return reading
    return None
