"""The art cache seen by the generator: manifest, deck recipes, faces and table photos.

Only numpy, OpenCV and PyYAML are needed here, so any machine with a copy of
``.cache/cardart`` (about 30 MB) can generate data without apt or network.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from referee import files
from referee.cards import CLASSES
from referee.errors import ConfigError
from referee.paths import datasets_dir
from vision.synth.art import cache_dir


@dataclass(frozen=True)
class Deck:
    name: str
    faces: dict[str, tuple[str, ...]]  # class -> face files (relative to faces/)

    def classes(self) -> list[str]:
        return [c for c in CLASSES if c in self.faces]


@dataclass(frozen=True)
class Recipe:
    """Which decks a dataset may use (train and holdout never share a deck)."""

    name: str
    decks: tuple[str, ...]
    source: str = ""
    options: dict = field(default_factory=dict)


def load_manifest(root: Path | None = None) -> dict:
    root = root or cache_dir()
    path = root / "manifest.json"
    if not path.is_file():
        raise ConfigError(
            f"{path}: card art cache missing: run `make art` (or python -m vision.synth.art) first"
        )
    return files.read_json_object(path, "card art manifest")


def load_recipe(path: str | Path, _seen: tuple[Path, ...] = ()) -> Recipe:
    p = Path(path)
    if not p.exists() and not p.suffix:
        p = datasets_dir() / "recipes" / f"{path}.yaml"
    if p.resolve() in _seen:
        raise ConfigError(f"{p}: field 'extends': the recipes extend each other in a circle")
    data = files.read_yaml(p, "recipe")
    if isinstance(data, dict) and not isinstance(data.get("options") or {}, dict):
        raise ConfigError(f"{p}: field 'options': expected a mapping, got {data['options']!r}")
    if isinstance(data, dict) and "extends" in data:  # another recipe's decks, other options
        if not isinstance(data["extends"], str):
            raise ConfigError(f"{p}: field 'extends': expected a recipe name, got {data['extends']!r}")
        base = load_recipe(data["extends"], (*_seen, p.resolve()))
        data = {"decks": list(base.decks), **data, "options": {**base.options, **(data.get("options") or {})}}
    if not isinstance(data, dict) or not isinstance(data.get("decks"), list) or not data["decks"]:
        raise ConfigError(f"{p}: field 'decks': expected a non-empty list of deck names")
    return Recipe(
        str(data.get("name", p.stem)),
        tuple(str(d) for d in data["decks"]),
        str(p),
        dict(data.get("options") or {}),
    )


class Art:
    """Decks of a recipe with their faces, and the table photos; loads images lazily."""

    def __init__(self, recipe: Recipe, root: Path | None = None):
        self.root = root or cache_dir()
        manifest = load_manifest(self.root)
        decks = manifest.get("decks", {})
        missing = [d for d in recipe.decks if d not in decks]
        if missing:
            raise ConfigError(
                f"{recipe.source}: field 'decks': not in the art cache: {', '.join(missing)} "
                f"(available: {', '.join(sorted(decks))})"
            )
        self.options = recipe.options  # rendering options of the recipe (printed_clutter)
        self.decks = [Deck(d, {c: tuple(v) for c, v in decks[d]["faces"].items()}) for d in recipe.decks]
        self.decks = [d for d in self.decks if d.faces]
        if not self.decks:
            raise ConfigError(f"{recipe.source}: no usable deck")
        self.backgrounds = list(manifest.get("backgrounds", []))
        self._photos: list[np.ndarray] | None = None

    def face(self, rel: str) -> np.ndarray:
        return _load_face(str(self.root / "faces" / rel))

    def photos(self) -> list[np.ndarray]:
        if self._photos is None:
            self._photos = []
            for rel in self.backgrounds:
                img = cv2.imread(str(self.root / rel), cv2.IMREAD_COLOR)
                if img is not None:
                    self._photos.append(cv2.cvtColor(img, cv2.COLOR_BGR2RGB))
        return self._photos


@lru_cache(maxsize=700)
def _load_face(path: str) -> np.ndarray:
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if img is not None and img.ndim == 3 and img.shape[2] == 4:
        return cv2.cvtColor(img, cv2.COLOR_BGRA2RGBA)
    try:  # some OpenCV builds have no WebP codec: Pillow reads it
        from PIL import Image

        with Image.open(path) as im:
            return np.asarray(im.convert("RGBA")).copy()
    except OSError:
        raise ConfigError(f"{path}: cannot read card face (expected an RGBA image): run `make art`") from None


@lru_cache(maxsize=1400)
def face_level(path: str, level: int) -> np.ndarray:
    """The face halved ``level`` times (mipmap), so small cards are not aliased."""
    img = _load_face(path)
    for _ in range(level):
        img = cv2.pyrDown(img)
    return img
