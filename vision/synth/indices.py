"""Corner-index patches for the index reader: what a player reads in a card's corner.

Almost every deck prints a rank glyph and a suit pip in two opposite corners, whatever its
court art. The reader (``vision/detector/index_reader.py``) sees the card's top-left corner cut
from the straightened card (:data:`PATCH_WINDOW`, a share of the card), and this module makes
its training patches two ways, labelled with the rank and suit (or *none*):

- **cut from the training decks' faces** (their own indices, including the French ``R``/``D``
  and ``1`` of older designs), through a card window jittered as the corner refiner errs;
- **printed**: a rank in one of hundreds of typefaces (``vision/synth/fonts.py``) and a suit
  pip drawn in one of several shapes, on a paper, ink and layout drawn at random, so that an
  unseen deck's index is one more sample of a familiar distribution.

Backs, jokers and bare table give the *none* patches. Every patch then meets the camera: a
neighbour card over part of it, tint, grey or inverted faces, blur, low resolution, noise, JPEG.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from referee.cards import RANKS
from vision.detector.geometry import rectified_crop
from vision.synth.styles import random_deck_style, restyle_face

SUITS = ("S", "H", "D", "C")
RANK_NAMES = tuple(RANKS)  # A, 2-10, J, Q, K
NONE = "none"
RANK_CLASSES = (*RANK_NAMES, NONE)
SUIT_CLASSES = (*SUITS, NONE)
PATCH_W, PATCH_H = 32, 56  # the reader's input, pixels
# The window cut from a straightened card, as shares of its width and height (x0, y0, x1, y1):
# the top-left corner down to below the suit pip of every deck in the art cache.
PATCH_WINDOW = (-0.03, -0.02, 0.33, 0.40)
SUIT_GLYPHS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
# A camera out of focus, in patch pixels: a 2.5 px blur of a 1280-wide frame is about 1-4 px
# of a patch, as the card is seen small or large.
DEFOCUS_SIGMA = (1.0, 5.0)


@dataclass(frozen=True)
class Patch:
    image: np.ndarray  # (PATCH_H, PATCH_W, 3) uint8 RGB
    rank: int  # index into RANK_CLASSES
    suit: int  # index into SUIT_CLASSES


def window_quad(card_quad: np.ndarray) -> np.ndarray:
    """The patch window's four corners (TL, TR, BR, BL) inside a card's quad (TL, TR, BR, BL),
    by bilinear interpolation: the same shares of the card whatever its pose."""
    return window_quads(card_quad)[0]


def window_quads(card_quads: np.ndarray) -> np.ndarray:
    """:func:`window_quad` of (m, 4, 2) card quads at once: (m, 4, 2) (``quad_points``' bilinear
    interpolation, for many quads in one step)."""
    q = np.asarray(card_quads, np.float64).reshape(-1, 4, 2)
    x0, y0, x1, y1 = PATCH_WINDOW
    u = np.array([x0, x1, x1, x0], np.float64)[None, :, None]
    v = np.array([y0, y0, y1, y1], np.float64)[None, :, None]
    top = q[:, None, 0] * (1 - u) + q[:, None, 1] * u
    bottom = q[:, None, 3] * (1 - u) + q[:, None, 2] * u
    return top * (1 - v) + bottom * v


def cut_patches(image: np.ndarray, card_quads: np.ndarray) -> np.ndarray:
    """(m, h, w, 3): :func:`cut_patch` of each of (m, 4, 2) card quads."""
    windows = window_quads(card_quads)
    if not len(windows):
        return np.zeros((0, PATCH_H, PATCH_W, 3), np.uint8)
    return np.stack([rectified_crop(image, w, (PATCH_W, PATCH_H)) for w in windows])


def cut_patch(image: np.ndarray, card_quad: np.ndarray) -> np.ndarray:
    """The top-left index patch of the card at ``card_quad`` in ``image``, upright, reader-sized
    (cut as a straightened card is: ``vision.detector.geometry.rectified_crop``)."""
    return cut_patches(image, card_quad)[0]


def both_corners(card_quads: np.ndarray) -> np.ndarray:
    """(2m, 4, 2): each of (m, 4, 2) card quads, then the same card turned by 180 degrees (the
    quad whose top-left corner is its other printed corner)."""
    q = np.asarray(card_quads, np.float64).reshape(-1, 4, 2)
    return np.stack([q, np.roll(q, 2, axis=1)], axis=1).reshape(-1, 4, 2)


def both_patches(image: np.ndarray, card_quad: np.ndarray) -> np.ndarray:
    """(2, h, w, 3): the index patch of the card and of the card turned by 180 degrees (its
    other printed corner)."""
    return cut_patches(image, both_corners(card_quad))


# ---------------------------------------------------------------------------------------------
# Printed indices


def _draws_ranks(font: ImageFont.FreeTypeFont) -> bool:
    """Whether ``font`` draws the rank glyphs, each of a legible size and not as the font's
    missing-glyph box."""
    missing = font.getmask("\uffff").getbbox()

    def drawn(ch: str) -> bool:
        x0, y0, x1, y1 = font.getbbox(ch)
        return x1 - x0 >= 4 and y1 - y0 >= 10 and font.getmask(ch).getbbox() != missing

    return all(drawn(ch) for ch in "AQK10J")


@lru_cache(maxsize=1)
def usable_fonts() -> tuple[str, ...]:
    """Fonts that draw every rank glyph (some of the fetched faces cover other scripts only)."""
    from vision.synth.fonts import font_files

    good = []
    for path in font_files():
        try:
            font = ImageFont.truetype(str(path), 40)
        except OSError:
            continue
        if _draws_ranks(font):
            good.append(str(path))
    return tuple(good)


@lru_cache(maxsize=1)
def pip_fonts() -> tuple[str, ...]:
    """Fonts that draw the four suit signs."""
    good = []
    for path in usable_fonts():
        font = ImageFont.truetype(path, 40)
        notdef = font.getmask("\uffff").getbbox()
        if all(font.getmask(g).getbbox() not in (None, notdef) for g in SUIT_GLYPHS.values()):
            good.append(path)
    return tuple(good)


def _ink(rng: np.random.Generator, suit: str, paper: np.ndarray) -> tuple[int, int, int]:
    """Red for hearts and diamonds, dark for spades and clubs, with the variations decks use
    (four-colour decks, gold or white on a dark face)."""
    dark_face = paper.mean() < 110
    if suit in "HD":
        if rng.random() < 0.08 and suit == "D":
            return (20, 60, 200)  # four-colour deck: blue diamonds
        base = np.array([rng.uniform(150, 240), rng.uniform(0, 50), rng.uniform(0, 60)])
        if dark_face and rng.random() < 0.5:
            base = np.array([255, rng.uniform(60, 120), rng.uniform(60, 120)])
    else:
        if rng.random() < 0.08 and suit == "C":
            return (20, 140, 40)  # four-colour deck: green clubs
        base = np.full(3, rng.uniform(0, 60)) + rng.uniform(-15, 15, 3)
        if dark_face:
            base = np.array([rng.uniform(190, 255), rng.uniform(160, 230), rng.uniform(60, 200)])
    return tuple(int(v) for v in np.clip(base, 0, 255))


def _paper(rng: np.random.Generator) -> np.ndarray:
    r = rng.random()
    if r < 0.07:  # a dark-faced deck
        return np.clip(rng.uniform(0, 60, 3), 0, 255)
    if r < 0.25:  # cream, ivory or a light tint
        return np.clip(np.array([245, 238, 215]) + rng.uniform(-25, 10, 3), 0, 255)
    return np.clip(rng.uniform(225, 255) + rng.uniform(-8, 8, 3), 0, 255)


def _draw_pip(draw: ImageDraw.ImageDraw, rng: np.random.Generator, suit: str,
              box: tuple[float, float, float, float],
              ink: tuple[int, int, int]) -> None:
    """A suit sign filling ``box`` (x0, y0, x1, y1): a font's glyph, or drawn from circles and
    triangles as cheap decks do."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    fonts = pip_fonts()
    if fonts and rng.random() < 0.7:
        font = ImageFont.truetype(fonts[int(rng.integers(len(fonts)))], max(6, int(h * 1.25)))
        glyph = SUIT_GLYPHS[suit]
        gb = font.getbbox(glyph)
        gw, gh = gb[2] - gb[0], gb[3] - gb[1]
        draw.text((x0 + (w - gw) / 2 - gb[0], y0 + (h - gh) / 2 - gb[1]), glyph, font=font, fill=ink)
        return
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if suit == "D":
        draw.polygon([(cx, y0), (x1 - w * 0.1, cy), (cx, y1), (x0 + w * 0.1, cy)], fill=ink)
    elif suit == "H":
        r = w / 4
        draw.ellipse([x0, y0, cx + r * 0.15, y0 + 2 * r], fill=ink)
        draw.ellipse([cx - r * 0.15, y0, x1, y0 + 2 * r], fill=ink)
        draw.polygon([(x0 + r * 0.1, y0 + r * 1.3), (x1 - r * 0.1, y0 + r * 1.3), (cx, y1)], fill=ink)
    elif suit == "S":
        r = w / 4
        draw.polygon([(cx, y0), (x1 - r * 0.05, y0 + h * 0.62), (x0 + r * 0.05, y0 + h * 0.62)], fill=ink)
        draw.ellipse([x0, y0 + h * 0.35, cx + r * 0.2, y0 + h * 0.35 + 2 * r], fill=ink)
        draw.ellipse([cx - r * 0.2, y0 + h * 0.35, x1, y0 + h * 0.35 + 2 * r], fill=ink)
        draw.polygon([(cx, y0 + h * 0.55), (cx + w * 0.18, y1), (cx - w * 0.18, y1)], fill=ink)
    else:
        r = w * 0.24
        for ex, ey in ((cx, y0 + r), (x0 + r, y0 + h * 0.55), (x1 - r, y0 + h * 0.55)):
            draw.ellipse([ex - r, ey - r, ex + r, ey + r], fill=ink)
        draw.polygon([(cx, y0 + h * 0.45), (cx + w * 0.18, y1), (cx - w * 0.18, y1)], fill=ink)


def _rank_font(rng: np.random.Generator, size: int) -> ImageFont.FreeTypeFont:
    """One of the usable fonts at ``size`` (Pillow's built-in face on a machine with none)."""
    fonts = usable_fonts()
    if not fonts:
        return ImageFont.load_default(size)
    return ImageFont.truetype(fonts[int(rng.integers(len(fonts)))], size)


def printed_card_corner(rng: np.random.Generator, rank: str | None, suit: str | None,
                        width: int = 160) -> np.ndarray:
    """A card's top-left area (RGB, ``width`` wide, the card's aspect) with a rank and suit
    printed as a deck might: ``None`` leaves the index out (a plain or pictured corner)."""
    aspect = rng.uniform(1.38, 1.56)
    w, h = width, int(width * aspect)
    paper = _paper(rng)
    img = Image.new("RGB", (w, h), tuple(int(v) for v in paper))
    draw = ImageDraw.Draw(img)
    ink = _ink(rng, suit or str(rng.choice(SUITS)), paper)
    # Beyond the index: a border line, a court picture's frame, or a big pip further in.
    if rng.random() < 0.3:
        m = int(w * rng.uniform(0.02, 0.05))
        draw.rounded_rectangle([m, m, w - m, h - m], radius=int(w * 0.06), outline=ink, width=max(1, w // 80))
    if rng.random() < 0.35:
        fx = int(w * rng.uniform(0.24, 0.32))
        colours = [tuple(int(v) for v in rng.integers(0, 256, 3)) for _ in range(3)]
        draw.rectangle([fx, int(h * 0.08), w, h], fill=colours[0], outline=ink, width=2)
        for _ in range(4):
            px, py = rng.uniform(fx, w), rng.uniform(h * 0.1, h)
            r = rng.uniform(5, w * 0.2)
            draw.ellipse([px - r, py - r, px + r, py + r], fill=colours[int(rng.integers(1, 3))])
    elif suit and rng.random() < 0.8:
        s = w * rng.uniform(0.14, 0.22)
        px, py = w * rng.uniform(0.3, 0.42), h * rng.uniform(0.12, 0.3)
        _draw_pip(draw, rng, suit, (px, py, px + s, py + s * 1.1), ink)
    if rank is not None and suit is not None:
        rank_h = h * rng.uniform(0.07, 0.135)
        font = _rank_font(rng, max(6, int(rank_h * 1.35)))
        text = rank
        tb = font.getbbox(text)
        tw, th = tb[2] - tb[0], max(1, tb[3] - tb[1])
        scale_x = rng.uniform(0.7, 1.15)
        if rank == "10" and rng.random() < 0.25:
            scale_x *= 0.7  # squeezed "10" as narrow decks print it
        layer = Image.new("L", (tw + 4, th + 4), 0)
        ImageDraw.Draw(layer).text((2 - tb[0], 2 - tb[1]), text, font=font, fill=255)
        target_h = int(rank_h)
        target_w = max(2, int((tw + 4) * target_h / (th + 4) * scale_x))
        layer = layer.resize((target_w, target_h + 2), Image.BILINEAR)
        cx = w * rng.uniform(0.085, 0.14)
        top = h * rng.uniform(0.02, 0.06)
        left = cx - target_w / 2
        if left < w * 0.015:
            left = w * 0.015
        img.paste(Image.new("RGB", layer.size, ink), (int(left), int(top)), layer)
        pip_w = w * rng.uniform(0.09, 0.15)
        pip_top = top + target_h + h * rng.uniform(0.005, 0.03)
        pip_h = pip_w * rng.uniform(1.0, 1.2)
        _draw_pip(draw, rng, suit, (cx - pip_w / 2, pip_top, cx + pip_w / 2, pip_top + pip_h), ink)
    return np.asarray(img)


# ---------------------------------------------------------------------------------------------
# Patches: a card's corner seen through the camera


def _jittered_quad(rng: np.random.Generator, w: float, h: float, error: float) -> np.ndarray:
    """The card's quad (TL, TR, BR, BL) in its own pixels, moved as the corner refiner errs:
    ``error`` is the typical corner error as a share of the card's length."""
    q = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    c = q.mean(axis=0)
    ang = np.radians(rng.normal(0, 2.0))
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    scale = 1 + rng.normal(0, error * 0.8)
    shift = rng.normal(0, error * h * 0.6, 2)
    return (q - c) @ rot.T * scale + c + shift + rng.normal(0, error * h * 0.25, (4, 2))


def _on_table(rng: np.random.Generator, card_rgba: np.ndarray, pad: int) -> np.ndarray:
    """The card on a plain or mottled table colour, ``pad`` pixels of table around it."""
    h, w = card_rgba.shape[:2]
    table = np.empty((h + 2 * pad, w + 2 * pad, 3), np.float32)
    table[:] = rng.uniform(0, 200, 3)
    table += rng.normal(0, rng.uniform(0, 20), table.shape[:2])[..., None]
    alpha = card_rgba[..., 3:4].astype(np.float32) / 255 if card_rgba.shape[2] == 4 else 1.0
    face = card_rgba[..., :3].astype(np.float32)
    table[pad:pad + h, pad:pad + w] = face * alpha + table[pad:pad + h, pad:pad + w] * (1 - alpha)
    return np.clip(table, 0, 255).astype(np.uint8)


def _opaque(rgb: np.ndarray) -> np.ndarray:
    return np.dstack([rgb, np.full(rgb.shape[:2], 255, np.uint8)])


def _neighbour(rng: np.random.Generator, img: np.ndarray, cover: np.ndarray, whole: bool = False) -> None:
    """Another card's edge over part of the patch, from its right or bottom side, where a
    neighbour in a fan or a pile lies (the index itself stays mostly in view); ``whole``: over
    the index too, as a card laid on this one's corner."""
    h, w = img.shape[:2]
    if whole:
        x = int(w * rng.uniform(-0.2, 0.05))
        x_low = x + int(rng.uniform(-0.15, 0.15) * w)
        poly = np.array([[x, -5], [w + 5, -5], [w + 5, h + 5], [x_low, h + 5]])
    elif rng.random() < 0.5:
        x = int(w * rng.uniform(0.55, 0.95))
        poly = np.array([[x, -5], [w + 5, -5], [w + 5, h + 5], [x + int(rng.uniform(-0.3, 0.3) * w), h + 5]])
    else:
        y = int(h * rng.uniform(0.62, 0.95))
        poly = np.array([[-5, y], [w + 5, y + int(rng.uniform(-0.2, 0.2) * h)], [w + 5, h + 5], [-5, h + 5]])
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [poly.astype(np.int32)], 255)
    ch, cw = cover.shape[:2]
    ys, xs = int(rng.integers(0, max(1, ch - h))), int(rng.integers(0, max(1, cw - w)))
    patch = cv2.resize(cover[ys:ys + h, xs:xs + w, :3], (w, h))
    img[mask > 0] = patch[mask > 0]
    cv2.polylines(img, [poly.astype(np.int32)], True, (60, 60, 60), 1)


def camera(rng: np.random.Generator, patch: np.ndarray, defocus: float = 0.0) -> np.ndarray:
    """Light, colour, resolution and sensor applied to an RGB uint8 patch; a ``defocus`` share
    of patches is seen through a lens out of focus (:data:`DEFOCUS_SIGMA`)."""
    img = patch.astype(np.float32)
    img = img * rng.uniform(0.45, 1.25) + rng.uniform(-30, 30)  # exposure and black level
    if rng.random() < 0.5:
        img = img * rng.uniform(0.75, 1.25, 3)  # colour cast
    if rng.random() < 0.3:  # uneven light across the patch, down it or across it
        start, end, axis = rng.uniform(0.6, 1), rng.uniform(0.6, 1.1), int(rng.integers(2))
        ramp = np.linspace(start, end, img.shape[axis])
        img = img * (ramp[:, None, None] if axis == 0 else ramp[None, :, None])
    if rng.random() < 0.5:
        gamma = rng.uniform(0.6, 1.6)
        img = 255 * (np.clip(img, 0, 255) / 255) ** gamma
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.12:
        img = np.repeat(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)[..., None], 3, axis=2)
    if rng.random() < 0.5:  # seen smaller than the reader's input
        k = rng.uniform(0.35, 0.9)
        size = (max(4, int(PATCH_W * k)), max(6, int(PATCH_H * k)))
        small = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (PATCH_W, PATCH_H), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.3:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.1))
    if defocus > 0 and rng.random() < defocus:  # drawn only when asked: a seed's patches stay
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(*DEFOCUS_SIGMA))
    if rng.random() < 0.6:
        img = np.clip(img + rng.normal(0, rng.uniform(1, 9), img.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        img = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    return img


class PatchMaker:
    """Draws labelled patches from the training decks' faces and from printed indices."""

    def __init__(self, art, printed_share: float = 0.45, none_share: float = 0.1, error: float = 0.045,
                 styled: float = 0.0, defocus: float = 0.0):
        self.art = art  # vision.synth.assets.Art of the training decks
        self.styled = styled  # share of the decks' faces printed in other colours (styles.py)
        self.defocus = defocus  # share of patches seen out of focus (camera)
        self.printed_share = printed_share
        self.none_share = none_share
        self.error = error
        self.faces = [(d, c, rel) for d in art.decks for c, rels in d.faces.items() for rel in rels]
        self.cards = [f for f in self.faces if f[1] not in ("JK", "BACK")]
        self.blanks = [f for f in self.faces if f[1] in ("JK", "BACK")]

    def _face_patch(self, rng: np.random.Generator, rgba: np.ndarray, scale_w: int,
                    turn: bool = True) -> np.ndarray:
        """The index patch of a face (RGBA) seen ``scale_w`` pixels wide; ``turn``: either of
        its two printed corners (a printed corner has one)."""
        h, w = rgba.shape[:2]
        k = scale_w / w
        if k < 1:
            rgba = cv2.resize(rgba, (max(8, int(w * k)), max(8, int(h * k))), interpolation=cv2.INTER_AREA)
        if turn and rng.random() < 0.5:  # the other printed corner: the card turned by 180 degrees
            rgba = cv2.rotate(rgba, cv2.ROTATE_180)
        h, w = rgba.shape[:2]
        pad = int(0.2 * w)
        table = _on_table(rng, rgba, pad)
        return cut_patch(table, _jittered_quad(rng, w, h, self.error) + pad)

    def _cover(self, rng: np.random.Generator) -> np.ndarray:
        _, _, rel = self.faces[int(rng.integers(len(self.faces)))]
        return self.art.face(rel)[..., :3]

    def sample(self, rng: np.random.Generator) -> Patch:
        width = int(rng.uniform(45, 220))  # the card's width in the frame, pixels
        r = rng.random()
        if r < self.none_share:
            if rng.random() < 0.7:
                _, _, rel = self.blanks[int(rng.integers(len(self.blanks)))]
                img = self._face_patch(rng, self.art.face(rel), width)
            else:
                corner = printed_card_corner(rng, None, None, width=max(60, width))
                img = self._face_patch(rng, _opaque(corner), width, False)
            rank, suit = RANK_CLASSES.index(NONE), SUIT_CLASSES.index(NONE)
        elif r < self.none_share + self.printed_share:
            rank_i, suit_i = int(rng.integers(13)), int(rng.integers(4))
            corner = printed_card_corner(rng, RANK_NAMES[rank_i], SUITS[suit_i], width=max(80, width))
            img = self._face_patch(rng, _opaque(corner), width, False)
            rank, suit = rank_i, suit_i
        else:
            _, cls, rel = self.cards[int(rng.integers(len(self.cards)))]
            face = self.art.face(rel)
            if self.styled > 0:  # drawn only when asked: the patches of a seed stay as they were
                style = random_deck_style(rng, self.styled)
                face = face if style is None else restyle_face(face, style)
            img = self._face_patch(rng, face, width)
            rank, suit = RANK_NAMES.index(cls[:-1]), SUITS.index(cls[-1])
        img = np.ascontiguousarray(img)
        if rng.random() < 0.06:  # a card laid over this one's corner: no index in view
            _neighbour(rng, img, self._cover(rng), whole=True)
            rank, suit = RANK_CLASSES.index(NONE), SUIT_CLASSES.index(NONE)
        elif rng.random() < 0.25:
            _neighbour(rng, img, self._cover(rng))
        if rng.random() < 0.04:
            img = 255 - img  # an inverted (dark-faced) deck
        return Patch(camera(rng, img, self.defocus), rank, suit)


def make_patches(n: int, seed: int, recipe: str = "train",
                 styled: float = 0.0, defocus: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` patches (n, h, w, 3) uint8 and their rank and suit labels, from ``seed``; a
    ``styled`` share of the decks' faces printed in other colours, a ``defocus`` share of the
    patches out of focus."""
    from vision.synth.assets import Art, load_recipe

    maker = PatchMaker(Art(load_recipe(recipe)), styled=styled, defocus=defocus)
    rng = np.random.default_rng(seed)
    images = np.zeros((n, PATCH_H, PATCH_W, 3), np.uint8)
    ranks, suits = np.zeros(n, np.int64), np.zeros(n, np.int64)
    for i in range(n):
        p = maker.sample(rng)
        images[i], ranks[i], suits[i] = p.image, p.rank, p.suit
    return images, ranks, suits


def preview(path: Path, n: int = 96, seed: int = 0) -> None:
    """A contact sheet of ``n`` patches with their labels, to check the generator by eye."""
    images, ranks, suits = make_patches(n, seed)
    cols = 16
    rows = -(-n // cols)
    sheet = np.full((rows * (PATCH_H + 14), cols * (PATCH_W + 4), 3), 255, np.uint8)
    for i in range(n):
        y, x = (i // cols) * (PATCH_H + 14), (i % cols) * (PATCH_W + 4)
        sheet[y:y + PATCH_H, x:x + PATCH_W] = images[i]
        label = f"{RANK_CLASSES[ranks[i]]}{SUIT_CLASSES[suits[i]][0]}"
        cv2.putText(sheet, label, (x, y + PATCH_H + 11), cv2.FONT_HERSHEY_PLAIN, 0.8, (0, 0, 0), 1)
    cv2.imwrite(str(path), cv2.cvtColor(sheet, cv2.COLOR_RGB2BGR))


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m vision.synth.indices",
                                description="A contact sheet of generated index patches, to check by eye.")
    p.add_argument("out", type=Path, help="PNG to write")
    p.add_argument("--patches", type=int, default=96)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    preview(args.out, args.patches, args.seed)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
