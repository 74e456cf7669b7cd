"""Table layouts: ``configs/layouts/<game>.yaml`` read into zone rectangles in table cm.

The renderer places cards by these zones and the camera pipeline maps detections back to
them, so both read this one module. Coordinates: x to the right, y away from black's edge.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee import files
from referee.errors import ConfigError
from referee.paths import configs_dir

ZONE_KINDS = ("pile", "spread", "across")
FACES = ("up", "down")


@dataclass(frozen=True)
class Zone:
    """One place on the table: a rectangle (centre and size in cm) and how cards lie there."""

    id: str
    center: tuple[float, float] = (0.0, 0.0)
    size: tuple[float, float] = (0.0, 0.0)
    kind: str = "pile"
    face: str = "up"
    rotated: bool = False
    over: str | None = None
    offtable: bool = False
    # Cards of the game may lie face down here although the zone's cards lie face up (Royal
    # Crush's commitments, Houska Castle's hidden and nullified cards, Dukes Up!'s castles and
    # dukes before dukes_up): a sure back read here is a back, not a face misread.
    backs: bool = False

    @property
    def rect(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) in table cm."""
        (cx, cy), (w, h) = self.center, self.size
        return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)

    def contains(self, x: float, y: float) -> bool:
        x0, y0, x1, y1 = self.rect
        return not self.offtable and x0 <= x <= x1 and y0 <= y <= y1


@dataclass(frozen=True)
class Marker:
    """An ArUco marker printed on the play mat: its id and its square (centre, side) in cm.
    The mat is printed to be read from black's seat (table y up the page), so the marker's
    top-left corner, as drawn upright, is its corner at smallest x and largest y."""

    id: int
    center: tuple[float, float]
    size_cm: float

    @property
    def corners(self) -> list[tuple[float, float]]:
        """Table cm of the marker's corners in ArUco order (top-left, top-right, bottom-right,
        bottom-left of the printed marker, read from black's seat)."""
        (cx, cy), h = self.center, self.size_cm / 2
        return [(cx - h, cy + h), (cx + h, cy + h), (cx + h, cy - h), (cx - h, cy - h)]


@dataclass(frozen=True)
class Layout:
    name: str
    table_size: tuple[float, float]  # width, height in cm
    card_size: tuple[float, float]  # width, height in cm
    zones: dict[str, Zone]
    source: str = ""
    markers: tuple[Marker, ...] = ()
    marker_dictionary: str = "DICT_4X4_50"
    # Stillness before the camera reads the table, seconds, where this game's players need
    # another than the camera referee's default (``vision.pipeline.QUIET_S``); None: that.
    quiet_s: float | None = None

    @property
    def table_zones(self) -> list[Zone]:
        """Zones that have a place on the table (not ``offtable``)."""
        return [z for z in self.zones.values() if not z.offtable]

    def zone_at(self, x: float, y: float) -> Zone | None:
        """The smallest on-table zone containing the point (cm), or None."""
        hits = [z for z in self.table_zones if z.contains(x, y)]
        return min(hits, key=lambda z: z.size[0] * z.size[1]) if hits else None

    def lies_in(self, zone: str) -> str:
        """The layout zone where a referee zone lies: Dukes Up!'s melds (``meld_3``) are
        clusters on its ``table``; any other zone is its own."""
        return zone if zone in self.zones or "table" not in self.zones else "table"


def _pair(value: Any, loc: str) -> tuple[float, float]:
    if not (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    ):
        raise ConfigError(f"{loc}: expected a pair of numbers [x, y], got {value!r}")
    return float(value[0]), float(value[1])


def _size(obj: Any, loc: str, keys: tuple[str, str]) -> tuple[float, float]:
    if not isinstance(obj, dict) or any(k not in obj for k in keys):
        raise ConfigError(f"{loc}: expected {{{keys[0]}: N, {keys[1]}: N}}, got {obj!r}")
    return _pair([obj[keys[0]], obj[keys[1]]], loc)


def parse_layout(data: Any, source: str = "<layout>") -> Layout:
    """Build a Layout from decoded YAML; errors name the file and the field."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping at the top level")
    for key in ("name", "table", "card", "zones"):
        if key not in data:
            raise ConfigError(f"{source}: field '{key}': missing")
    table = _size(data["table"], f"{source}: field 'table'", ("width_cm", "height_cm"))
    card = _size(data["card"], f"{source}: field 'card'", ("width_cm", "height_cm"))
    if not isinstance(data["zones"], dict) or not data["zones"]:
        raise ConfigError(f"{source}: field 'zones': expected a mapping of zone id -> zone")
    zones: dict[str, Zone] = {}
    for zid, z in data["zones"].items():
        loc = f"{source}: zone '{zid}'"
        if not isinstance(z, dict):
            raise ConfigError(f"{loc}: expected a mapping, got {z!r}")
        if z.get("offtable"):
            zones[zid] = Zone(str(zid), offtable=True)
            continue
        for key in ("center", "size"):
            if key not in z:
                raise ConfigError(f"{loc}: field '{key}': missing")
        kind = z.get("kind", "pile")
        face = z.get("face", "up")
        if kind not in ZONE_KINDS:
            raise ConfigError(f"{loc}: field 'kind': expected one of {', '.join(ZONE_KINDS)}, got {kind!r}")
        if face not in FACES:
            raise ConfigError(f"{loc}: field 'face': expected up or down, got {face!r}")
        if not isinstance(z.get("backs", False), bool):
            raise ConfigError(f"{loc}: field 'backs': expected true or false, got {z['backs']!r}")
        zones[zid] = Zone(
            str(zid),
            _pair(z["center"], f"{loc}: field 'center'"),
            _pair(z["size"], f"{loc}: field 'size'"),
            kind,
            face,
            bool(z.get("rotated", False)),
            z.get("over"),
            backs=z.get("backs", False),
        )
    for z in zones.values():
        if z.over is not None and z.over not in zones:
            raise ConfigError(f"{source}: zone '{z.id}': field 'over': unknown zone {z.over!r}")
    markers, dictionary = _markers(data.get("markers"), f"{source}: field 'markers'")
    quiet = data.get("quiet_s")
    seconds = isinstance(quiet, (int, float)) and not isinstance(quiet, bool) and 0 < quiet <= 5
    if quiet is not None and not seconds:
        raise ConfigError(f"{source}: field 'quiet_s': expected seconds between 0 and 5, got {quiet!r}")
    quiet_s = None if quiet is None else float(quiet)
    return Layout(str(data["name"]), table, card, zones, source, markers, dictionary, quiet_s)


def _markers(spec: Any, loc: str) -> tuple[tuple[Marker, ...], str]:
    """``markers: {dictionary: DICT_4X4_50, size_cm: 6, at: {0: [x, y], ...}}`` (optional)."""
    if spec is None:
        return (), "DICT_4X4_50"
    if not isinstance(spec, dict) or not isinstance(spec.get("at"), dict):
        raise ConfigError(f"{loc}: expected {{dictionary: ..., size_cm: N, at: {{id: [x, y]}}}}")
    size = spec.get("size_cm", 6)
    if not isinstance(size, (int, float)) or size <= 0:
        raise ConfigError(f"{loc}: field 'size_cm': expected a positive number, got {size!r}")
    markers = []
    for mid, center in spec["at"].items():
        if not isinstance(mid, int) or mid < 0:
            raise ConfigError(f"{loc}: marker id {mid!r}: expected a non-negative integer")
        markers.append(Marker(mid, _pair(center, f"{loc}: marker {mid}"), float(size)))
    return tuple(markers), str(spec.get("dictionary", "DICT_4X4_50"))


def load_layout(name_or_path: str | Path) -> Layout:
    """A layout by game name (``royal_family``) or by file path."""
    p = Path(name_or_path)
    if p.suffix not in (".yaml", ".yml"):
        p = configs_dir() / "layouts" / f"{name_or_path}.yaml"
    return parse_layout(files.read_yaml(p, "layout"), str(p))
