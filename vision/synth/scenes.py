"""Card placements: game layouts with random game-like content, random scatter, close-ups.

A scene is a list of CardSprite in drawing order (bottom first), a camera aim, hands and
table clutter. Placement is in table centimetres; the camera decides what the image sees.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from referee.cards import CLASSES
from vision.layout import Layout
from vision.synth.assets import Art, Deck
from vision.synth.compose import CardSprite
from vision.synth.hands import Hand
from vision.synth.printed import SIZES, printed_size, printed_texture
from vision.synth.styles import random_deck_style

CARD_H = 8.8  # cm, poker size; the width follows each deck's face aspect
PLAYING = CLASSES[:53]  # the 52 cards and the joker


@dataclass
class Aim:
    """Where the camera looks: target point, extent across the wider side, angles (degrees)."""

    target: tuple[float, float]
    extent: float
    tilt: float
    tilt_dir: float
    yaw: float


@dataclass
class Clutter:
    """A flat non-card object on the table (paper, phone, coin, notebook), under the cards."""

    polygon: np.ndarray  # cm
    colour: tuple[int, int, int]
    lines: list[np.ndarray] = field(default_factory=list)  # text-like strokes, cm polygons
    texture: np.ndarray | None = None  # a printed side (RGB), warped onto the polygon


@dataclass
class Scene:
    kind: str
    cards: list[CardSprite]
    aim: Aim
    hands: list[Hand] = field(default_factory=list)
    clutter: list[Clutter] = field(default_factory=list)


class Dealer:
    """Hands out faces of one or two decks, so each image shows few designs, like a table."""

    def __init__(self, rng: np.random.Generator, art: Art, decks: int = 1):
        self.rng = rng
        self.art = art
        idx = rng.choice(len(art.decks), size=min(decks, len(art.decks)), replace=False)
        self.decks: list[Deck] = [art.decks[int(i)] for i in idx]
        self.scale = float(rng.uniform(0.97, 1.03))
        share = float(art.options.get("deck_styles", 0.0))
        # Drawn only when the recipe asks, so recipes without the option render as before.
        self.styles = {d.name: random_deck_style(rng, share) for d in self.decks} if share > 0 else {}

    def deck_for(self, cls: str) -> Deck:
        options = [d for d in self.decks if cls in d.faces]
        if not options:
            options = [d for d in self.art.decks if cls in d.faces]
        if not options:
            options = [d for d in self.art.decks if d.faces]
        return options[int(self.rng.integers(len(options)))]

    def sprite(
        self, identity: str, face_up: bool, center: tuple[float, float], angle: float, zone: str | None = None
    ) -> CardSprite:
        shown = identity if face_up else "BACK"
        deck = self.deck_for(shown)
        files = deck.faces.get(shown) or next(iter(deck.faces.values()))
        rel = files[int(self.rng.integers(len(files)))]
        face = self.art.face(rel)
        aspect = face.shape[0] / face.shape[1]
        h = CARD_H * self.scale
        return CardSprite(
            identity,
            face_up,
            str(self.art.root / "faces" / rel),
            center,
            angle,
            (h / aspect, h),
            zone=zone,
            tint=float(self.rng.uniform(0.9, 1.0)),
            style=self.styles.get(deck.name),
        )


def shuffled_cards(rng: np.random.Generator, n: int, jokers: bool = True) -> list[str]:
    pool = list(PLAYING if jokers else PLAYING[:52])
    rng.shuffle(pool)
    while len(pool) < n:
        extra = list(PLAYING)
        rng.shuffle(extra)
        pool += extra
    return pool[:n]


# ---- groups of cards -------------------------------------------------------------------------------
def pile(
    d: Dealer,
    ids: list[str],
    face_up: bool,
    center: tuple[float, float],
    angle: float,
    zone: str | None = None,
    messy: float = 1.0,
) -> list[CardSprite]:
    """A stack: each card slightly shifted and turned, so edges show under the top card."""
    rng = d.rng
    out = []
    drift = rng.normal(0, 0.12, 2) * messy
    for i, cid in enumerate(ids):
        jitter = rng.normal(0, 0.08, 2) * messy + drift * i / max(1, len(ids))
        out.append(
            d.sprite(
                cid,
                face_up,
                (center[0] + jitter[0], center[1] + jitter[1]),
                angle + float(rng.normal(0, 1.5)) * messy,
                zone,
            )
        )
    return out


def row(
    d: Dealer,
    ids: list[str],
    center: tuple[float, float],
    angle: float,
    step: float,
    zone: str | None = None,
    face_up: bool = True,
) -> list[CardSprite]:
    """Cards side by side along the card's x axis, ``step`` cm apart (overlap when small)."""
    a = math.radians(angle)
    ux = np.array([math.cos(a), math.sin(a)])
    n = len(ids)
    out = []
    for i, cid in enumerate(ids):
        p = np.array(center) + ux * step * (i - (n - 1) / 2) + d.rng.normal(0, 0.15, 2)
        out.append(
            d.sprite(cid, face_up, (float(p[0]), float(p[1])), angle + float(d.rng.normal(0, 2)), zone)
        )
    return out


def fan(
    d: Dealer, ids: list[str], pivot: tuple[float, float], angle: float, spread_deg: float
) -> list[CardSprite]:
    """Cards held in a fan: turned about a point near their bottom edge."""
    n = len(ids)
    out = []
    for i, cid in enumerate(ids):
        t = angle + spread_deg * (i - (n - 1) / 2)
        a = math.radians(t)
        vy = np.array([math.sin(a), -math.cos(a)])  # face-down direction
        c = np.array(pivot) - vy * CARD_H * 0.38
        out.append(d.sprite(cid, True, (float(c[0]), float(c[1])), t))
    return out


def across(
    d: Dealer,
    base: str,
    hits: list[str],
    center: tuple[float, float],
    angle: float,
    zone: str | None = None,
    hits_zone: str | None = None,
) -> list[CardSprite]:
    """A card with others laid crosswise over it (fortification hits)."""
    out = [d.sprite(base, True, center, angle, zone)]
    a = math.radians(angle)
    along = np.array([math.sin(a), -math.cos(a)])
    for i, cid in enumerate(hits):
        p = np.array(center) + along * (i - (len(hits) - 1) / 2) * d.rng.uniform(1.2, 2.2)
        out.append(
            d.sprite(cid, True, (float(p[0]), float(p[1])), angle + 90 + float(d.rng.normal(0, 4)), hits_zone)
        )
    return out


# ---- whole scenes -----------------------------------------------------------------------------------
def layout_scene(rng: np.random.Generator, art: Art, layout: Layout) -> Scene:
    """The game layout with random game-like content in each zone."""
    d = Dealer(rng, art, 1 if rng.random() < 0.85 else 2)
    deck = shuffled_cards(rng, 120)
    take = iter(deck)
    cards: list[CardSprite] = []
    cw = CARD_H / 1.4
    for z in layout.table_zones:
        if z.kind == "across":
            continue
        cx, cy = z.center
        base_angle = 90.0 if z.rotated else 0.0
        base_angle += float(rng.choice([0.0, 180.0]))
        if z.kind == "pile":
            n = int(rng.integers(0, 25 if z.face == "down" else 5))
            if n:
                ids = [next(take) for _ in range(n)]
                cards += pile(d, ids, z.face == "up", (cx, cy), base_angle + float(rng.normal(0, 3)), z.id)
                if z.id.startswith("fort_"):
                    hz = next((h for h in layout.table_zones if h.over == z.id), None)
                    k = int(rng.integers(0, 4))
                    if hz is not None and k:
                        cards += across(
                            d, next(take), [next(take) for _ in range(k)], (cx, cy), base_angle, z.id, hz.id
                        )[1:]
        else:
            n = int(rng.integers(0, 4))
            ids = ["JK"] * int(rng.integers(0, 3)) if z.id == "joker_spot" else [next(take) for _ in range(n)]
            if ids:
                step = min(cw * 1.08, (z.size[0] - cw) / max(1, len(ids) - 1) if len(ids) > 1 else cw)
                step = max(step, cw * 0.3)
                cards += row(d, ids, (cx, cy), base_angle + float(rng.normal(0, 2)), step, z.id)
    aim = _table_aim(rng, layout)
    hands = _random_hands(rng, cards, max_hands=2, p=0.35)
    return Scene(
        "layout",
        cards,
        aim,
        hands,
        _clutter(rng, (-20, -20, layout.table_size[0] + 20, layout.table_size[1] + 20), 0.3, printed(art)),
    )


def _table_aim(rng: np.random.Generator, layout: Layout) -> Aim:
    tw, th = layout.table_size
    yaw = (
        float(rng.choice([0.0, 180.0]) + rng.normal(0, 6))
        if rng.random() < 0.7
        else float(rng.uniform(0, 360))
    )
    tilt, tdir = float(rng.uniform(0, 25)), float(rng.uniform(0, 360))
    if rng.random() < 0.6:
        return Aim(
            (tw / 2 + float(rng.normal(0, 4)), th / 2 + float(rng.normal(0, 4))),
            float(tw * rng.uniform(0.95, 1.35)),
            tilt,
            tdir,
            yaw,
        )
    return Aim(
        (float(rng.uniform(15, tw - 15)), float(rng.uniform(10, th - 10))),
        float(rng.uniform(30, 80)),
        tilt,
        tdir,
        yaw,
    )


def scatter_scene(rng: np.random.Generator, art: Art) -> Scene:
    """Random groups on a table: piles, face-down piles, rows, fans, ribbon spreads, crosswise
    cards, singles."""
    d = Dealer(rng, art, 1 if rng.random() < 0.7 else 2)
    region = float(rng.uniform(35, 100))
    ids = iter(shuffled_cards(rng, 200))
    cards: list[CardSprite] = []
    groups = int(rng.integers(2, 8 if region > 60 else 5))
    for _ in range(groups):
        c = (float(rng.uniform(-region / 2, region / 2)), float(rng.uniform(-region / 2.6, region / 2.6)))
        ang = float(rng.uniform(0, 360))
        kind = rng.choice(["pile", "down", "row", "fan", "spread", "across", "single", "single"])
        if kind == "pile":
            cards += pile(
                d, [next(ids) for _ in range(int(rng.integers(2, 9)))], True, c, ang, messy=rng.uniform(1, 6)
            )
        elif kind == "down":
            cards += pile(
                d,
                [next(ids) for _ in range(int(rng.integers(2, 20)))],
                False,
                c,
                ang,
                messy=rng.uniform(1, 8),
            )
        elif kind == "row":
            n = int(rng.integers(2, 8))
            step = CARD_H / 1.4 * float(rng.uniform(0.22, 1.15))
            cards += row(d, [next(ids) for _ in range(n)], c, ang, step)
        elif kind == "fan":  # a hand's fan: the more cards, the closer together
            n = int(rng.integers(3, 14))
            spacing = float(rng.uniform(4, 16) * min(1.0, 8 / n))
            cards += fan(d, [next(ids) for _ in range(n)], c, ang, spacing)
        elif kind == "spread":
            # A ribbon spread: each card shows little more than its index column.
            n = int(rng.integers(5, 21))
            step = CARD_H / 1.4 * float(rng.uniform(0.2, 0.32))
            cards += row(d, [next(ids) for _ in range(n)], c, ang, step, face_up=bool(rng.random() < 0.85))
        elif kind == "across":
            cards += across(d, next(ids), [next(ids) for _ in range(int(rng.integers(1, 4)))], c, ang)
        else:
            cards.append(d.sprite(next(ids), bool(rng.random() < 0.85), c, ang))
    centres = np.array([c.center for c in cards]) if cards else np.zeros((1, 2))
    lo, hi = centres.min(axis=0), centres.max(axis=0)
    span = float(max(hi - lo)) + CARD_H * 2
    target = (
        float((lo[0] + hi[0]) / 2 + rng.normal(0, span * 0.08)),
        float((lo[1] + hi[1]) / 2 + rng.normal(0, span * 0.08)),
    )
    aim = _aim_from_anywhere(rng, target, span * float(rng.uniform(0.6, 1.25)), max_tilt=25)
    hands = _random_hands(rng, cards, max_hands=2, p=0.3)
    clutter = _clutter(rng, (-region, -region, region, region), 0.35, printed(art))
    return Scene("scatter", cards, aim, hands, clutter)


def closeup_scene(rng: np.random.Generator, art: Art) -> Scene:
    """A phone photo of one to four cards filling much of the frame."""
    d = Dealer(rng, art, 1)
    n = int(rng.choice([1, 1, 1, 2, 2, 3, 4]))
    ids = shuffled_cards(rng, n)
    cards: list[CardSprite] = []
    spread = CARD_H * (0.3 + 0.35 * n)
    for cid in ids:
        c = (float(rng.uniform(-spread / 2, spread / 2)), float(rng.uniform(-spread / 2, spread / 2)))
        cards.append(d.sprite(cid, bool(rng.random() < 0.92), c, float(rng.uniform(0, 360))))
    extent = (CARD_H + spread) * float(rng.uniform(1.2, 3.2))
    mid = np.mean([c.center for c in cards], axis=0)
    target = (float(mid[0] + rng.normal(0, CARD_H * 0.3)), float(mid[1] + rng.normal(0, CARD_H * 0.3)))
    aim = _aim_from_anywhere(rng, target, extent, max_tilt=30)
    hands = _random_hands(rng, cards, max_hands=1, p=0.12)
    clutter = _clutter(rng, (-extent, -extent, extent, extent), 0.6, printed(art))
    return Scene("closeup", cards, aim, hands, clutter)


def _aim_from_anywhere(
    rng: np.random.Generator, target: tuple[float, float], extent: float, max_tilt: float
) -> Aim:
    """A camera aimed at ``target``, tilted up to ``max_tilt`` degrees from any side, turned
    any way (loose cards have no side the players sit at)."""
    tilt = float(rng.uniform(0, max_tilt))
    return Aim(target, extent, tilt, float(rng.uniform(0, 360)), float(rng.uniform(0, 360)))


def _random_hands(rng: np.random.Generator, cards: list[CardSprite], max_hands: int, p: float) -> list[Hand]:
    hands = []
    for _ in range(max_hands):
        if not cards or rng.random() >= p:
            continue
        c = cards[int(rng.integers(len(cards)))]
        tip = (c.center[0] + float(rng.normal(0, 2)), c.center[1] + float(rng.normal(0, 2)))
        hands.append(Hand.random(rng, tip, float(rng.uniform(0, 360))))
    return hands


def printed(art: Art) -> bool:
    """Does the recipe ask for printed clutter (``options: {printed_clutter: true}``)?"""
    return bool(art.options.get("printed_clutter", False))


def _clutter(
    rng: np.random.Generator, rect: tuple[float, float, float, float], p: float, printed: bool = False
) -> list[Clutter]:
    """Paper sheets with text lines, phones, coins, notebooks: white or dark rectangles that are
    not cards, so the detector learns the difference. With ``printed`` (the recipe option
    ``printed_clutter``), also book covers, flyers, sticky notes and business cards with
    pictures and text (``vision/synth/printed.py``)."""
    out: list[Clutter] = []
    x0, y0, x1, y1 = rect
    if printed:
        p = min(0.85, p + 0.35)
    while rng.random() < p and len(out) < (6 if printed else 4):
        c = np.array([rng.uniform(x0, x1), rng.uniform(y0, y1)])
        a = math.radians(float(rng.uniform(0, 360)))
        R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        if printed and rng.random() < 0.6:
            kind = str(rng.choice(list(SIZES)))
            w, h = printed_size(rng, kind)
            poly = c + (np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) * 0.5) @ R.T
            out.append(Clutter(poly, (0, 0, 0), texture=printed_texture(rng, kind, w, h)))
            continue
        kind = rng.choice(["paper", "paper", "phone", "coin", "book"])
        if kind == "coin":
            t = np.linspace(0, 2 * math.pi, 24, endpoint=False)
            r = rng.uniform(1, 1.4)
            poly = c + np.column_stack([np.cos(t), np.sin(t)]) * r
            out.append(Clutter(poly, (int(rng.integers(150, 210)), int(rng.integers(120, 170)), 80)))
            continue
        w, h = {"paper": (21.0, 29.7), "phone": (7.2, 15.0), "book": (15.0, 22.0)}[str(kind)]
        s = rng.uniform(0.7, 1.0) if kind == "paper" else 1.0
        corners = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) * 0.5 * s
        poly = c + corners @ R.T
        if kind == "paper":
            col = tuple(int(v) for v in rng.integers(225, 250, 3))
            lines = []
            for k in range(int(rng.integers(4, 20))):
                ly = -h * s / 2 + 2.5 + k * 0.9
                if ly > h * s / 2 - 1.5:
                    break
                lx = rng.uniform(6, w * s - 3)
                seg = np.array(
                    [
                        [-w * s / 2 + 2, ly],
                        [-w * s / 2 + 2 + lx, ly],
                        [-w * s / 2 + 2 + lx, ly + 0.35],
                        [-w * s / 2 + 2, ly + 0.35],
                    ]
                )
                lines.append(c + seg @ R.T)
            out.append(Clutter(poly, col, lines))
        elif kind == "phone":
            out.append(Clutter(poly, (int(rng.integers(10, 40)),) * 3))
        else:
            out.append(Clutter(poly, tuple(int(v) for v in rng.integers(30, 220, 3))))
    return out
