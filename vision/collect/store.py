"""The collected dataset on disk: Ultralytics layout, sessions, and the review manifest.

Layout of DIR (what Label Studio, CVAT, FiftyOne and X-AnyLabeling open as "YOLO")::

    data.yaml  classes.txt                 the 54 names of referee.cards.CLASSES
    images/{train,val}/sNNN_FFFFFF.jpg     sNNN: the session, FFFFFF: the frame index
    labels/{train,val}/sNNN_FFFFFF.txt     class cx cy w h (normalised)
    review.jsonl                           one line per image: confidences, flagged, reason
    reviewed.jsonl                         images a person checked in ``cardref review``
    sessions.jsonl                         one line per collect run: id, split, source, model

Train/val is split by session, never by frame: frames of one session look alike, so a val
frame from a session that also trained would flatter the model. ``--split auto`` sends
session 2 and every ``val_every``-th after it (2, 6, 10, ... for 4) to val.

Each frame's label is written before its image (Ultralytics ignores a label without an image,
but would read an image without a label as "no cards"), both atomically, then its manifest line.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import cv2
import numpy as np
import yaml

from referee import files
from referee.cards import CLASSES
from referee.errors import CardrefError
from vision.collect.yolo_labels import LabelBox, write_labels

MANIFEST = "review.jsonl"
REVIEWED = "reviewed.jsonl"
SESSIONS = "sessions.jsonl"
SPLITS = ("train", "val")
SESSION_NAME = re.compile(r"^s(\d+)_")
JPEG_QUALITY = 95


@dataclass
class Entry:
    """One collected image as the review manifest records it."""

    image: str  # relative to DIR: images/<split>/<name>.jpg
    label: str
    session: str
    split: str
    frame: int
    time: float
    trigger: str  # settled | every | guided
    width: int
    height: int
    boxes: list[dict] = field(default_factory=list)  # {"class", "confidence"} in label-line order
    min_confidence: float | None = None
    flagged: bool = False
    reason: str = ""

    @classmethod
    def from_json(cls, data: dict, where: str) -> Entry:
        try:
            return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})
        except TypeError as e:
            raise CardrefError(f"{where}: not a review manifest line ({e})") from None


def split_for_session(number: int, split: str = "auto", val_every: int = 4) -> str:
    """The split of session ``number`` (1-based): fixed, or val for sessions 2, 2+k, 2+2k..."""
    if split in SPLITS:
        return split
    if split != "auto":
        raise CardrefError(f"split {split!r}: expected train, val or auto")
    return "val" if val_every > 0 and number >= 2 and (number - 2) % val_every == 0 else "train"


def write_meta(root: Path) -> None:
    """data.yaml and classes.txt (rewritten each run, so a moved folder gets its new path)."""
    names = {i: c for i, c in enumerate(CLASSES)}
    spec = {"path": str(root.resolve()), "train": "images/train", "val": "images/val", "names": names}
    files.write_text(root / "data.yaml", yaml.safe_dump(spec, sort_keys=False))
    files.write_text(root / "classes.txt", "".join(c + "\n" for c in CLASSES))


def read_manifest(root: Path) -> list[Entry]:
    path = root / MANIFEST
    entries = []
    for n, line in files.read_jsonl_lines(path):
        try:
            data = json.loads(line)
        except json.JSONDecodeError as e:
            raise CardrefError(f"{path}:{n}: not JSON ({e.msg})") from None
        entries.append(Entry.from_json(data, f"{path}:{n}"))
    return entries


def reviewed_images(root: Path) -> set[str]:
    out = set()
    for _, line in files.read_jsonl_lines(root / REVIEWED):
        try:
            out.add(json.loads(line)["image"])
        except (json.JSONDecodeError, KeyError, TypeError):
            continue  # a review mark is a convenience; a bad one only shows the image again
    return out


def existing_sessions(root: Path) -> int:
    """The highest session number used in DIR (0 for a new folder)."""
    numbers = [0]
    for split in SPLITS:
        folder = root / "images" / split
        if folder.is_dir():
            numbers += [int(m.group(1)) for p in folder.iterdir() if (m := SESSION_NAME.match(p.name))]
    for n, line in files.read_jsonl_lines(root / SESSIONS):
        try:
            session = str(json.loads(line)["session"])
        except (json.JSONDecodeError, KeyError, TypeError):
            raise CardrefError(
                f"{root / SESSIONS}:{n}: expected a JSON line with a 'session' field"
            ) from None
        if m := re.match(r"s(\d+)$", session):
            numbers.append(int(m.group(1)))
    return max(numbers)


class Session:
    """One collect run writing into DIR: picks the next session id and its split."""

    def __init__(self, root: Path, split: str = "auto", val_every: int = 4, info: dict | None = None):
        self.root = root
        if root.exists() and not root.is_dir():
            raise CardrefError(f"{root}: not a folder")
        for sub in ("images", "labels"):
            for s in SPLITS:
                (root / sub / s).mkdir(parents=True, exist_ok=True)
        write_meta(root)
        self.number = existing_sessions(root) + 1
        self.id = f"s{self.number:03d}"
        self.split = split_for_session(self.number, split, val_every)
        self.saved: list[Entry] = []
        started = time.strftime("%Y-%m-%dT%H:%M:%S")
        self.record = {"session": self.id, "split": self.split, "started": started, **(info or {})}

    def save(
        self,
        frame: int,
        t: float,
        image: np.ndarray,
        boxes: list[LabelBox],
        trigger: str,
        reasons: list[str],
    ) -> Entry:
        """Write one frame: label, then image, then its manifest line."""
        name = f"{self.id}_{frame:06d}"
        image_rel = f"images/{self.split}/{name}.jpg"
        label_rel = f"labels/{self.split}/{name}.txt"
        ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if not ok:
            raise CardrefError(f"frame {frame}: cannot encode as JPEG")
        if not self.saved:  # a run that keeps nothing uses no session number (nor the val turn)
            files.append_line(self.root / SESSIONS, json.dumps(self.record))
        write_labels(self.root / label_rel, boxes)
        files.write_bytes(self.root / image_rel, jpeg.tobytes())
        confidences = [b.confidence for b in boxes if b.confidence is not None]
        h, w = image.shape[:2]
        entry = Entry(
            image_rel,
            label_rel,
            self.id,
            self.split,
            frame,
            round(t, 3),
            trigger,
            w,
            h,
            [{"class": b.name, "confidence": b.confidence} for b in boxes],
            min(confidences) if confidences else None,
            bool(reasons),
            "; ".join(reasons),
        )
        files.append_line(self.root / MANIFEST, json.dumps(asdict(entry), separators=(",", ":")))
        self.saved.append(entry)
        return entry
