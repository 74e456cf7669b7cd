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
from vision.detector.detections import SURE_BACK, Detections, likeliest_face
from vision.layout import Layout

BACK = "BACK"


@dataclass(frozen=True)
class SeenCard:
    name: str  # a CLASSES name: 7S, JK or BACK
    zone: str | None  # None: on the table but in no zone
    at_cm: tuple[float, float]
    confidence: float
    probs: np.ndarray | None = field(default=None, compare=False)  # class probabilities, if given


@dataclass
class TableState:
    """Face-up cards by zone (names, most confident first) and face-down cards counted."""

    cards: dict[str, list[str]] = field(default_factory=dict)
    backs: dict[str, int] = field(default_factory=dict)
    loose: list[str] = field(default_factory=list)  # face-up cards outside every zone
    confidence: dict[str, float] = field(default_factory=dict)  # lowest vote share per zone
    # (zone, name) -> the card's other likely names, likeliest first: event inference tries
    # them when the rules cannot explain the table with the likeliest names
    alternatives: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    # (zone, name) -> the detector's probability of that name, when it gave probabilities
    likelihood: dict[tuple[str, str], float] = field(default_factory=dict)
    # (zone, name) -> every other face name the detector gave some probability, with it,
    # likeliest first: what a card named unsurely may turn out to be when the game later
    # shows that its name cannot be right
    candidates: dict[tuple[str, str], tuple[tuple[str, float], ...]] = field(default_factory=dict)
    # zone -> for each back counted there, the detector's probability of the back and the
    # faces it gave some probability, with theirs, likeliest first
    back_faces: dict[str, list[tuple[float, tuple[tuple[str, float], ...]]]] = field(default_factory=dict)

    def zone_of(self, name: str) -> list[str]:
        return [z for z, names in self.cards.items() if name in names]

    def all_face_up(self) -> Counter:
        return Counter(n for names in self.cards.values() for n in names) + Counter(self.loose)

    def kept_under(self, last: TableState, covered: set[str]) -> TableState:
        """This read of the zones that were still, completed from ``last``: a zone an arm
        moved over keeps its last cards, and a card gone from view that is seen nowhere now
        keeps its place and name (a hand may hold it, or cover part of it). Such a table only
        tells cards seen arriving somewhere still."""
        out = TableState(
            {z: list(v) for z, v in self.cards.items() if z not in covered},
            {z: n for z, n in self.backs.items() if z not in covered},
            list(self.loose), dict(self.confidence), dict(self.alternatives),
            dict(self.likelihood), dict(self.candidates),
            {z: list(v) for z, v in self.back_faces.items() if z not in covered},
        )
        shown = out.all_face_up()
        for zone, names in last.cards.items():
            for name in names:
                if zone in covered or not shown[name]:
                    out.cards.setdefault(zone, []).append(name)
                    for table in ("alternatives", "likelihood", "candidates"):
                        old = getattr(last, table)
                        if (zone, name) in old:
                            getattr(out, table).setdefault((zone, name), old[(zone, name)])
        for zone in covered & set(last.backs):
            out.backs[zone] = last.backs[zone]
            out.back_faces[zone] = list(last.back_faces.get(zone, []))
        return out

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


def on_marker(layout: Layout, x: float, y: float) -> bool:
    """Is table point (x, y) on one of the mat's printed markers? A black-and-white square
    the size of a card is what the finder most often takes for one. (Collection, which may
    have no calibration, finds the markers in the image instead: ``calibration.without_markers``.)"""
    return any(
        abs(x - m.center[0]) <= m.size_cm * 0.75 and abs(y - m.center[1]) <= m.size_cm * 0.75
        for m in layout.markers
    )


# A sure face-down read in a zone where cards lie face up, from a box this unsure to hold a
# card (the finder's confidence times the card-ness), is the zone's printed outline: on twenty
# rendered games such reads lay only on the face-down piles, and once on an empty staging
# square, where it was fed as a card drawn. (A guyenne queen drawn to staging was read as a
# back too, from as faint a box, but less surely: it stays a card, named by its faces.)
FAINT_BACK_PRESENCE = 0.5


def place(detections: Detections, calibration: Calibration, layout: Layout) -> list[SeenCard]:
    """Every detection as a card at a table point, in a zone (none on the mat's markers)."""
    if not len(detections):
        return []
    boxes = detections.xyxy.astype(np.float64)
    centres = calibration.to_table((boxes[:, :2] + boxes[:, 2:]) / 2)
    # The box's corners on the table give its extent along table x and y: a card lying
    # crosswise is wider than tall there, whichever way the camera is turned.
    corners = np.stack([boxes[:, [0, 1]], boxes[:, [2, 1]], boxes[:, [2, 3]], boxes[:, [0, 3]]], axis=1)
    on_table = calibration.to_table(corners.reshape(-1, 2)).reshape(-1, 4, 2)
    extent = on_table.max(axis=1) - on_table.min(axis=1)
    crosswise = lying_crosswise(detections, calibration, extent)
    seen = []
    for i, (x, y) in enumerate(centres):
        if on_marker(layout, x, y):
            continue
        zone = zone_for(layout, x, y, bool(crosswise[i]))
        name = CLASSES[int(detections.class_id[i])]
        z = None if zone is None else layout.zones[zone]
        if z is not None and z.face == "up" and not z.backs:
            if outline(detections, i):
                continue  # the printed outline of an empty zone, taken for a card's back
            if name == BACK:
                name = best_face(detections, i) or name
        probs = None if detections.class_probs is None else detections.class_probs[i]
        seen.append(SeenCard(name, zone, (float(x), float(y)), float(detections.confidence[i]), probs))
    return seen


# A box this much wider than tall on the table (or taller than wide) shows which way its card
# lies; between the two, the card is turned near 45 degrees to the table or the camera.
CROSSWISE = 1.15


def lying_crosswise(detections: Detections, calibration: Calibration, extent: np.ndarray) -> np.ndarray:
    """(n,) bool: which cards lie with their long side along the table's x (a hit laid across
    a fortification). From the box's extent on the table (``extent``: (n, 2) cm) when it is
    plainly wider or taller; otherwise from the card's corners (the refiner's), whose long side
    says which way it lies. A box is axis-aligned in the picture: a camera turned by 12 degrees
    to the mat, or a card laid at a slant, makes a crosswise card's box near square on the
    table (a rendered game filmed turned so: its hit on the spades fortification read as a
    fortification card, three observations lost)."""
    ratio = extent[:, 0] / np.maximum(extent[:, 1], 1e-9)
    crosswise = ratio > CROSSWISE
    unsure = (ratio >= 1 / CROSSWISE) & ~crosswise
    if detections.corners is None or not unsure.any():
        return crosswise
    pts = detections.corners[unsure].reshape(-1, 2).astype(np.float64)
    quad = calibration.to_table(pts).reshape(-1, 4, 2)
    along = (quad[:, 2] + quad[:, 3] - quad[:, 0] - quad[:, 1]) / 2  # top edge to bottom edge
    crosswise[unsure] = np.abs(along[:, 0]) > np.abs(along[:, 1])
    return crosswise


def outline(detections: Detections, i: int) -> bool:
    """Whether box ``i`` is a zone's printed outline rather than a card: a box too faint to
    hold a card (``FAINT_BACK_PRESENCE``) read surely as a back, or as a back more than as any
    face with no face worth trying (``ALTERNATIVE_P``; an empty discard pile's outline at
    640x360: back 0.45, presence 0.3, its best face 0.04; a guyenne queen read as a hesitant
    back named faces likelier)."""
    if detections.presence is None or detections.class_probs is None:
        return False
    probs, back = detections.class_probs[i], CLASSES.index(BACK)
    if detections.presence[i] >= FAINT_BACK_PRESENCE:
        return False
    faces = np.delete(probs, back)
    return bool(probs[back] >= SURE_BACK or (probs.argmax() == back and faces.max() < ALTERNATIVE_P))


def best_face(detections: Detections, i: int) -> str | None:
    """A card read as face-down in a zone where cards lie face up (a design whose pictures the
    classifier took for a back): its most likely face, if the detector gave probabilities."""
    if detections.class_probs is None:
        return None
    return CLASSES[int(likeliest_face(detections.class_probs[i]))]


JOKERS_IN_A_DECK = 2
ALTERNATIVE_P = 0.08  # a name this likely (class probability) is worth trying
CANDIDATE_P = 0.005  # a name less likely than this is not what the card turns out to be
MAX_CANDIDATES = 8


def copies_of(name: str) -> int:
    return JOKERS_IN_A_DECK if name == "JK" else 1


def likely_names(s: SeenCard) -> list[str]:
    """The sighting's name, then its other likely face-up names, likeliest first."""
    if s.probs is None:
        return [s.name]
    order = [CLASSES[int(i)] for i in np.argsort(-s.probs) if s.probs[i] >= ALTERNATIVE_P]
    return [s.name] + [n for n in order if n not in (s.name, BACK)]


def candidate_names(s: SeenCard, name: str) -> tuple[tuple[str, float], ...]:
    """The other face names the detector gave ``s`` some probability, likeliest first."""
    if s.probs is None:
        return ()
    order = [int(i) for i in np.argsort(-s.probs) if s.probs[i] >= CANDIDATE_P]
    out = [(CLASSES[i], float(s.probs[i])) for i in order if CLASSES[i] not in (name, BACK)]
    return tuple(out[:MAX_CANDIDATES])


def read_table(seen: list[SeenCard]) -> TableState:
    """One read: face-up names per zone (each card once, its most confident sighting; the
    two jokers look alike, so up to two of them), backs counted. A sighting whose name a
    surer one has taken is named by its next likeliest free name, if the detector gave one."""
    state = TableState()
    kept: dict[str, list[SeenCard]] = {}
    others: dict[int, tuple[str, ...]] = {}
    # Cards in zones name themselves first: something off the mat read as a card (a striped
    # tablecloth) must not take a name from a card in play.
    for s in sorted(seen, key=lambda s: (s.zone is None, -s.confidence)):
        if s.name == BACK:
            if s.zone is not None:
                state.backs[s.zone] = state.backs.get(s.zone, 0) + 1
                if s.probs is not None:
                    back = float(s.probs[CLASSES.index(BACK)])
                    state.back_faces.setdefault(s.zone, []).append((back, candidate_names(s, BACK)))
            continue
        names = likely_names(s)
        free = [n for n in names if len(kept.get(n, [])) < copies_of(n)]
        if not free and s.zone is not None and all(k.zone != s.zone for n in names for k in kept.get(n, [])):
            # Its names were taken by cards in other zones (a king read as the jack of its suit
            # while that jack lies in view elsewhere): it is another card, its name unsure.
            names += [n for n, _ in candidate_names(s, s.name) if n not in names]
            free = [n for n in names if len(kept.get(n, [])) < copies_of(n)]
        if not free:
            continue  # a card is in one place: its most confident sighting wins
        sighting = SeenCard(free[0], s.zone, s.at_cm, s.confidence, s.probs)
        kept.setdefault(free[0], []).append(sighting)
        others[id(sighting)] = tuple(n for n in names if n != free[0])
    for s in sorted((s for group in kept.values() for s in group), key=lambda s: -s.confidence):
        if s.zone is None:
            state.loose.append(s.name)
            continue
        state.cards.setdefault(s.zone, []).append(s.name)
        if s.probs is not None:
            state.likelihood[(s.zone, s.name)] = float(s.probs[CLASSES.index(s.name)])
            state.candidates[(s.zone, s.name)] = candidate_names(s, s.name)
        if others[id(s)]:
            state.alternatives[(s.zone, s.name)] = others[id(s)]
    return state


class Vote:
    """Several reads of one settled table merged into one state, so that one bad frame changes
    nothing. The sightings of all reads are grouped by zone and place (within ``SAME_PLACE_CM``);
    a group seen in more than half of the reads is a card, named by its averaged class
    probabilities (a card whose name wavers between reads still gets its likeliest one), or by
    its commonest name when the detector gave no probabilities."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.reads: list[list[SeenCard]] = []

    def add(self, seen: list[SeenCard]) -> None:
        self.reads.append(seen)

    def __len__(self) -> int:
        return len(self.reads)

    def result(self) -> TableState:
        n = len(self.reads)
        groups: list[list[SeenCard]] = []
        for read in self.reads:
            for s in read:
                group = next((g for g in groups if g[0].zone == s.zone and _near(g, s)), None)
                if group is None:
                    groups.append([s])
                else:
                    group.append(s)
        merged, share = [], {}
        for g in groups:
            if len(g) * 2 <= n:
                continue
            name, probs = self._name(g)
            card = SeenCard(
                name,
                g[0].zone,
                tuple(np.mean([s.at_cm for s in g], axis=0)),
                float(np.mean([s.confidence for s in g])),
                probs,
            )
            merged.append(card)
            if card.zone is not None:
                share[card.zone] = min(share.get(card.zone, 1.0), len(g) / n)
        state = read_table(merged)
        state.confidence = share
        return state

    def _name(self, group: list[SeenCard]) -> tuple[str, np.ndarray | None]:
        """The group's name and averaged class probabilities (None without probabilities)."""
        if any(s.probs is None for s in group):
            return Counter(s.name for s in group).most_common(1)[0][0], None
        p = np.mean([s.probs for s in group], axis=0)
        zone = group[0].zone
        z = None if zone is None else self.layout.zones[zone]
        if z is not None and z.face == "up" and not z.backs and CLASSES[int(p.argmax())] == BACK:
            p[CLASSES.index(BACK)] = 0  # a face-up zone: its likeliest face
        return CLASSES[int(p.argmax())], p


SAME_PLACE_CM = 2.5


def _near(group: list[SeenCard], s: SeenCard) -> bool:
    x, y = np.mean([g.at_cm for g in group], axis=0)
    return abs(x - s.at_cm[0]) <= SAME_PLACE_CM and abs(y - s.at_cm[1]) <= SAME_PLACE_CM
