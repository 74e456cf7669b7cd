"""Unusual decks and cameras: dark faces, metallic inks, tinted paper, grey and tinted sensors.

Real tables show decks the art packages do not: black faces with gold or white pips, gold
ink on cream, tinted paper; and cameras that see in grey or through a strong colour cast. A
recipe asks for them with ``options: {deck_styles: P, camera_styles: P}`` (the share of
decks and of images restyled). Without the options nothing is drawn from the random
generator for them, so a recipe without them renders the same images with or without this
module.

A face is recoloured by splitting each pixel into paper (its darkest channel), colour (what
its channels have above that) and ink (what its brightest channel lacks), then putting the
new paper and ink colours back: red pips stay red, black ink becomes the style's ink, white
paper the style's paper, and painted court art keeps its hues.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# (paper, ink) colour ranges of each deck style, RGB.
DARK_PAPERS = ((18, 18, 20), (22, 28, 52), (20, 44, 30), (52, 20, 22), (40, 40, 44))
LIGHT_INKS = ((236, 236, 232), (212, 175, 55), (192, 192, 200), (230, 200, 120))
TINTED_PAPERS = ((242, 232, 205), (226, 236, 246), (246, 226, 230), (232, 242, 224), (214, 206, 186))
DARK_INKS = ((10, 10, 12), (20, 24, 70), (60, 36, 20), (30, 50, 30))
METAL_INKS = ((200, 160, 50), (170, 170, 180), (184, 115, 51))
STYLE_KINDS = ("dark", "metallic", "tinted")


@dataclass(frozen=True)
class DeckStyle:
    """New paper and ink colours for every face of a deck (``kind`` names them)."""

    kind: str
    paper: tuple[int, int, int]
    ink: tuple[int, int, int]


def _jitter(rng: np.random.Generator, colour: tuple[int, int, int], amount: float) -> tuple[int, int, int]:
    c = np.clip(np.array(colour, np.float64) + rng.normal(0, amount, 3), 0, 255)
    return (int(c[0]), int(c[1]), int(c[2]))


def random_deck_style(rng: np.random.Generator, share: float) -> DeckStyle | None:
    """A style for one deck, or None (the deck as printed) with probability ``1 - share``."""
    if share <= 0 or rng.random() >= share:
        return None
    kind = STYLE_KINDS[int(rng.choice(3, p=[0.5, 0.2, 0.3]))]

    def pick(colours: tuple[tuple[int, int, int], ...]) -> tuple[int, int, int]:
        return colours[int(rng.integers(len(colours)))]

    if kind == "dark":
        paper, ink = pick(DARK_PAPERS), pick(LIGHT_INKS)
    elif kind == "metallic":
        paper = pick(TINTED_PAPERS) if rng.random() < 0.5 else (250, 250, 248)
        ink = pick(METAL_INKS)
    else:
        paper, ink = pick(TINTED_PAPERS), pick(DARK_INKS)
    return DeckStyle(kind, _jitter(rng, paper, 6), _jitter(rng, ink, 10))


def restyle_face(face: np.ndarray, style: DeckStyle) -> np.ndarray:
    """The face (RGB or RGBA, uint8) printed in the style's paper and ink; alpha kept."""
    rgb = face[..., :3].astype(np.float32)
    low = rgb.min(axis=2, keepdims=True)
    high = rgb.max(axis=2, keepdims=True)
    paper = low / 255.0
    ink = 1.0 - high / 255.0
    colour = rgb - low
    if style.kind == "dark":
        # On a dark face the printed colours must stay bright enough to read.
        colour *= 1.15
    out = paper * np.array(style.paper, np.float32) + colour + ink * np.array(style.ink, np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if face.shape[2] == 4:
        return np.dstack([out, face[..., 3]])
    return out


@dataclass(frozen=True)
class CameraStyle:
    """A sensor that sees in grey, or through a strong colour cast (RGB gains)."""

    grey: bool
    gains: tuple[float, float, float] = (1.0, 1.0, 1.0)

    @property
    def kind(self) -> str:
        return "grey" if self.grey else "tinted"


def random_camera_style(rng: np.random.Generator, share: float) -> CameraStyle | None:
    """A grey or strongly tinted camera with probability ``share``, else None."""
    if share <= 0 or rng.random() >= share:
        return None
    if rng.random() < 0.5:
        return CameraStyle(True)
    g = rng.uniform(0.55, 1.35, 3)
    g /= g.mean()
    return CameraStyle(False, (float(g[0]), float(g[1]), float(g[2])))


def apply_camera_style(img: np.ndarray, style: CameraStyle | None) -> np.ndarray:
    """Apply to a float32 RGB image in the 0..255 range (before noise, as a sensor would)."""
    if style is None:
        return img
    if style.grey:
        grey = img @ np.array([0.299, 0.587, 0.114], np.float32)
        return np.repeat(grey[..., None], 3, axis=2)
    return img * np.array(style.gains, np.float32)[None, None, :]
