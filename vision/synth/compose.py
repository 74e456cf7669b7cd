"""Draw a table scene: surface, cards with contact shadows, hands; plus an instance map.

The instance map (int16, one value per pixel: the index of the card seen there, or
BACKGROUND / OCCLUDER) is drawn with the same alpha the colours are blended with, so labels
taken from it agree with the pixels exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.synth.assets import face_level
from vision.synth.styles import DeckStyle, restyle_face
from vision.synth.textures import Surface

BACKGROUND = -1
OCCLUDER = -2


@dataclass
class CardSprite:
    """A card lying on the table (or held just above it)."""

    identity: str  # the true card, e.g. "7S" or "JK"
    face_up: bool
    face: str  # path of the image of the side that faces the camera
    center: tuple[float, float]  # cm
    angle: float  # degrees, counter-clockwise, of the card's top edge from table x
    size: tuple[float, float]  # (width, height) cm
    lift: float = 0.0  # cm above the table: longer, softer shadow
    zone: str | None = None
    tint: float = 1.0  # brightness of this copy (worn or clean paper)
    style: DeckStyle | None = None  # the deck printed in other colours (vision/synth/styles.py)

    @property
    def cls(self) -> str:
        """Detector class of what the camera sees: the face, or BACK."""
        return self.identity if self.face_up else "BACK"

    def corners(self) -> np.ndarray:
        """(4, 2) cm: the face image's top-left, top-right, bottom-right, bottom-left."""
        w, h = self.size
        a = math.radians(self.angle)
        ux = np.array([math.cos(a), math.sin(a)])  # along the image's x (top edge)
        vy = np.array([math.sin(a), -math.cos(a)])  # along the image's y (downwards on the face)
        c = np.array(self.center)
        return np.array(
            [
                c - ux * w / 2 - vy * h / 2,
                c + ux * w / 2 - vy * h / 2,
                c + ux * w / 2 + vy * h / 2,
                c - ux * w / 2 + vy * h / 2,
            ]
        )

    def face_point(self, u: float, v: float) -> np.ndarray:
        """Table cm of face-normalised point (u right, v down, both 0..1)."""
        q = self.corners()
        return q[0] + (q[1] - q[0]) * u + (q[3] - q[0]) * v


@dataclass
class Drawn:
    """What the renderer knows about a card after drawing it."""

    quad: np.ndarray  # (4, 2) undistorted pixels
    area: float  # geometric area of the quad in pixels (inside and outside the image)
    roi: tuple[int, int, int, int] | None  # x0, y0, x1, y1 clipped to the image


@dataclass
class Light:
    """Where the light comes from, for shadows: offset in px per cm of height, and strength."""

    dx: float = 0.6
    dy: float = 0.8
    strength: float = 0.35
    softness: float = 1.0


@dataclass
class Canvas:
    image: np.ndarray  # float32 RGB 0..255
    ids: np.ndarray  # int16
    drawn: list[Drawn] = field(default_factory=list)


def draw_surface(surface: Surface, H: np.ndarray, width: int, height: int) -> np.ndarray:
    """Warp a texture patch (tiled over the table plane) under the camera; float32 RGB."""
    tex = surface.image
    th, tw = tex.shape[:2]
    # Texture pixel (i, j) sits at table cm (j, i) / px_per_cm; wrap to tile the plane.
    S = np.array([[1 / surface.px_per_cm, 0, 0], [0, 1 / surface.px_per_cm, 0], [0, 0, 1]])
    M = H @ S
    out = cv2.warpPerspective(
        tex, M, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101
    )
    # BORDER_REFLECT tiles mirrored copies, which hides the seams of a finite texture patch.
    del th, tw
    return out.astype(np.float32)


def new_canvas(image: np.ndarray) -> Canvas:
    return Canvas(image, np.full(image.shape[:2], BACKGROUND, np.int16))


def _mip_level(face_h: int, target_h: float) -> int:
    level = 0
    while face_h / 2 ** (level + 1) >= target_h * 1.3 and level < 4:
        level += 1
    return level


def draw_card(
    canvas: Canvas, H: np.ndarray, card: CardSprite, index: int, light: Light, px_per_cm: float
) -> Drawn:
    """Composite one card (and its contact shadow) and mark it in the instance map."""
    img_h, img_w = canvas.ids.shape
    q = cv2.perspectiveTransform(card.corners().reshape(-1, 1, 2), H).reshape(-1, 2)
    area = float(abs(cv2.contourArea(q.astype(np.float32))))
    off = np.array([light.dx, light.dy]) * (0.05 + card.lift) * px_per_cm
    blur = max(0.6, light.softness * (0.4 + 0.5 * card.lift) * px_per_cm * 0.35)
    pad = int(math.ceil(abs(off).max() + 3 * blur + 2))
    x0 = max(0, int(math.floor(q[:, 0].min())) - pad)
    y0 = max(0, int(math.floor(q[:, 1].min())) - pad)
    x1 = min(img_w, int(math.ceil(q[:, 0].max())) + pad + 1)
    y1 = min(img_h, int(math.ceil(q[:, 1].max())) + pad + 1)
    if x1 <= x0 or y1 <= y0:
        return Drawn(q, area, None)
    target_h = float(max(np.linalg.norm(q[3] - q[0]), np.linalg.norm(q[2] - q[1])))
    base = face_level(card.face, 0)
    img = face_level(card.face, _mip_level(base.shape[0], target_h))
    if card.style is not None and card.face_up:
        img = restyle_face(img, card.style)
    h, w = img.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    M = cv2.getPerspectiveTransform(src, (q - [x0, y0]).astype(np.float32))
    warped = cv2.warpPerspective(
        img,
        M,
        (x1 - x0, y1 - y0),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0, 0),
    )
    alpha = warped[..., 3].astype(np.float32) * (1 / 255)
    roi = canvas.image[y0:y1, x0:x1]
    # Contact shadow: the card's own silhouette, shifted away from the light and blurred.
    shift = np.float32([[1, 0, off[0]], [0, 1, off[1]]])
    sh = cv2.warpAffine(alpha, shift, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    sh = cv2.GaussianBlur(sh, (0, 0), blur)
    roi *= (1 - light.strength * sh)[..., None]
    a3 = alpha[..., None]
    roi *= 1 - a3
    roi += warped[..., :3].astype(np.float32) * (a3 * card.tint)
    canvas.ids[y0:y1, x0:x1][alpha > 0.5] = index
    return Drawn(q, area, (x0, y0, x1, y1))


def draw_cards(
    canvas: Canvas,
    H: np.ndarray,
    cards: list[CardSprite],
    light: Light,
    px_per_cm: float,
    first_index: int = 0,
) -> None:
    for i, c in enumerate(cards):
        canvas.drawn.append(draw_card(canvas, H, c, first_index + i, light, px_per_cm))


def local_px_per_cm(H: np.ndarray, point: tuple[float, float]) -> float:
    """Pixels per cm of the table near ``point`` (for shadow sizes)."""
    p = np.array([[point, (point[0] + 1, point[1]), (point[0], point[1] + 1)]], np.float64)
    q = cv2.perspectiveTransform(p, H)[0]
    return float((np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[0])) / 2)
