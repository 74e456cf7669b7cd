"""What the camera sees on the table, zone by zone, from the detections of a settled moment.

Each detected card is placed in a zone by the table point under its box centre (through the
calibration's homography, so zones stay in centimetres). A landscape card over a zone that has
an ``across`` zone on it (a hit laid across a fortification) belongs to the across zone.
:class:`Vote` merges a few reads of the same settled table so that one bad frame changes
nothing: a card counts when most reads saw it in the same zone.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from referee.cards import CLASSES
from vision.calibration import Calibration
from vision.detector.detections import Detections
from vision.layout import Layout

BACK = "BACK"


@dataclass(frozen=True)
class SeenCard:
    name: str  # a CLASSES name: 7S, JK or BACK
    zone: str | None  # None: on the table but in no zone
    at_cm: tuple[float, float]
    confidence: float


@dataclass
class TableState:
    """Face-up cards by zone (names, most confident first) and face-down cards counted."""

    cards: dict[str, list[str]] = field(default_factory=dict)
    backs: dict[str, int] = field(default_factory=dict)
    loose: list[str] = field(default_factory=list)  # face-up cards outside every zone
    confidence: dict[str, float] = field(default_factory=dict)  # lowest vote share per zone

    def zone_of(self, name: str) -> list[str]:
        return [z for z, names in self.cards.items() if name in names]

    def all_face_up(self) -> Counter:
        return Counter(n for names in self.cards.values() for n in names) + Counter(self.loose)

    def to_json(self) -> dict:
        return {
            "cards": {z: list(v) for z, v in sorted(self.cards.items()) if v},
            "backs": {z: n for z, n in sorted(self.backs.items()) if n},
            "loose": list(self.loose),
        }


def zone_for(layout: Layout, x: float, y: float, landscape: bool) -> str | None:
    """The zone at table point (x, y); a landscape card prefers an ``across`` zone there."""
    zone = layout.zone_at(x, y)
    if zone is None:
        return None
    if landscape:
        for z in layout.table_zones:
            if z.kind == "across" and z.over == zone.id and z.contains(x, y):
                return z.id
    return zone.id


def place(detections: Detections, calibration: Calibration, layout: Layout) -> list[SeenCard]:
    """Every detection as a card at a table point, in a zone."""
    if not len(detections):
        return []
    boxes = detections.xyxy.astype(np.float64)
    centres = calibration.to_table((boxes[:, :2] + boxes[:, 2:]) / 2)
    # The box's corners on the table give its extent along table x and y: a card lying
    # crosswise is wider than tall there, whichever way the camera is turned.
    corners = np.stack([boxes[:, [0, 1]], boxes[:, [2, 1]], boxes[:, [2, 3]], boxes[:, [0, 3]]], axis=1)
    on_table = calibration.to_table(corners.reshape(-1, 2)).reshape(-1, 4, 2)
    extent = on_table.max(axis=1) - on_table.min(axis=1)
    seen = []
    for i, (x, y) in enumerate(centres):
        landscape = extent[i, 0] > 1.15 * extent[i, 1]
        zone = zone_for(layout, x, y, landscape)
        name = CLASSES[int(detections.class_id[i])]
        if name == BACK and zone is not None and layout.zones[zone].face == "up":
            name = best_face(detections, i) or name
        seen.append(SeenCard(name, zone, (float(x), float(y)), float(detections.confidence[i])))
    return seen


def best_face(detections: Detections, i: int) -> str | None:
    """A card read as face-down in a zone where cards lie face up (a design whose pictures the
    classifier took for a back): its most likely face, if the detector gave probabilities."""
    if detections.class_probs is None:
        return None
    p = detections.class_probs[i].copy()
    p[CLASSES.index(BACK)] = 0
    return CLASSES[int(p.argmax())]


def read_table(seen: list[SeenCard]) -> TableState:
    """One read: face-up names per zone (each name once, its best sighting), backs counted."""
    state = TableState()
    best: dict[str, SeenCard] = {}
    for s in seen:
        if s.name == BACK:
            if s.zone is not None:
                state.backs[s.zone] = state.backs.get(s.zone, 0) + 1
            continue
        if s.name not in best or s.confidence > best[s.name].confidence:
            best[s.name] = s  # a card is in one place: its most confident sighting wins
    for s in sorted(best.values(), key=lambda s: -s.confidence):
        if s.zone is None:
            state.loose.append(s.name)
        else:
            state.cards.setdefault(s.zone, []).append(s.name)
    return state


class Vote:
    """Majority over a few reads of one settled table: (card, zone) pairs seen in more than
    half of the reads, face-down counts by median."""

    def __init__(self) -> None:
        self.reads: list[TableState] = []

    def add(self, state: TableState) -> None:
        self.reads.append(state)

    def __len__(self) -> int:
        return len(self.reads)

    def result(self) -> TableState:
        n = len(self.reads)
        pairs = Counter((z, c) for r in self.reads for z, names in r.cards.items() for c in names)
        loose = Counter(c for r in self.reads for c in r.loose)
        out = TableState()
        for (zone, name), k in pairs.most_common():
            if k * 2 > n and not out.zone_of(name):
                out.cards.setdefault(zone, []).append(name)
                out.confidence[zone] = min(out.confidence.get(zone, 1.0), k / n)
        out.loose = [c for c, k in loose.items() if k * 2 > n and not out.zone_of(c)]
        zones = {z for r in self.reads for z in r.backs}
        for z in zones:
            counts = sorted(r.backs.get(z, 0) for r in self.reads)
            median = counts[len(counts) // 2]
            if median:
                out.backs[z] = median
        return out
