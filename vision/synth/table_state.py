"""Where a game's cards physically lie, and their poses on the table in centimetres.

The referee's state is what the rules know (clean-ups already done, the draw pile a set);
the table is what a camera sees: a card moves only when an observation moves it. ``Table``
follows the observations; ``table_sprites`` lays each zone's cards out inside the zone's
rectangle of the layout, so a video's labels can be checked against the layout's zones.
Everything here is in table cm; pixels are the camera's business.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from referee.cards import CLASSES
from referee.errors import CardrefError
from vision.layout import Layout, Zone
from vision.synth.assets import Art, Deck
from vision.synth.compose import CardSprite
from vision.synth.scenes import CARD_H

PLAYING = CLASSES[:53]  # the 52 cards and the joker
OVERLAP_STEP = 1.06  # spread cards lie this many card widths apart while the zone has room
MAX_PILE_JITTER = 60  # positions in a pile with their own small shift and turn


@dataclass(frozen=True)
class Transfer:
    """One card going from one zone to another, as a ``move`` observation reports it."""

    card: str
    src: str
    dst: str
    src_index: int  # its position in the source zone (bottom first) before the move
    reshuffled: bool = False  # the discard pile became the draw pile just before it


class Table:
    """Cards in each zone, bottom first. Only observations change it.

    ``hidden`` zones (face-down piles, hands off the table) hold cards nobody has seen: in a
    game whose referee does not know which cards a hand or a pile holds (a draw into a hand is
    ``BACK draw_pile -> hand_p1``), a face-down move takes the top card, and a card that comes
    out of a hidden zone takes its name there, swapped with wherever that name lay hidden.
    Nothing visible changes, so the picture stays true."""

    def __init__(self, zones: dict[str, list[str]], hidden: tuple[str, ...] = ()):
        self.zones = {z: list(cards) for z, cards in zones.items()}
        self.hidden = hidden

    def copy(self) -> Table:
        return Table(self.zones, self.hidden)

    def locate(self, card: str, src: str) -> tuple[int, bool]:
        """Position of ``card`` in ``src`` (its topmost copy) and whether the discard pile had
        to become the draw pile first; raises when the card is not there."""
        pile = self.zones.setdefault(src, [])
        reshuffled = False
        if card not in pile and src == "draw_pile" and card in self.zones.get("discard_pile", []):
            # The draw pile ran out: the discard pile is turned over and becomes the draw pile.
            pile[:0] = self.zones["discard_pile"]
            self.zones["discard_pile"] = []
            reshuffled = True
        if src in self.hidden and pile and (card == "BACK" or card not in pile):
            self._unseen_on_top(card, pile)
            return len(pile) - 1, reshuffled
        if card not in pile:
            raise CardrefError(f"table: {card} is not in zone {src} (it holds {' '.join(pile) or 'nothing'})")
        i = len(pile) - 1 - pile[::-1].index(card)
        if src == "draw_pile":
            # Face down and unordered for the referee: the drawn card is the top one.
            pile[i], pile[-1] = pile[-1], pile[i]
            i = len(pile) - 1
        return i, reshuffled

    def _unseen_on_top(self, card: str, pile: list[str]) -> None:
        """Make the top card of a hidden ``pile`` the unseen ``card`` (any card for ``BACK``)."""
        if card == "BACK" or pile[-1] == card:
            return
        if card in pile:
            i = len(pile) - 1 - pile[::-1].index(card)
            pile[i], pile[-1] = pile[-1], pile[i]
            return
        holder = next((self.zones[z] for z in self.hidden if card in self.zones.get(z, [])), None)
        if holder is None:
            raise CardrefError(f"table: {card} is in no hidden zone (it cannot come out of one)")
        j = holder.index(card)
        holder[j], pile[-1] = pile[-1], card

    # ---- cards lying face down where cards lie face up (``~NAME``) -------------------------
    def unseen(self, zone: str, index: int) -> bool:
        return zone in self.hidden or face_down(self.zones[zone][index])

    def unseen_in(self, zone: str) -> list[int]:
        """Positions of ``zone`` whose card nobody has seen, bottom first."""
        return [i for i in range(len(self.zones.get(zone, []))) if self.unseen(zone, i)]

    def where_unseen(self, card: str) -> tuple[str, int]:
        """An unseen place from which ``card`` can come: the top unseen card of the zone that
        holds it unseen (named ``card`` by ``name_unseen``)."""
        for zone, cards in self.zones.items():
            if any(bare(c) == card and self.unseen(zone, i) for i, c in enumerate(cards)):
                return zone, self.unseen_in(zone)[-1]
        raise CardrefError(f"table: {card} is in no hidden zone (it cannot come out of one)")

    def name_unseen(self, zone: str, index: int, card: str) -> None:
        """Make the unseen card at ``zone[index]`` be ``card``, swapping names with the unseen
        card that had that name (nothing visible changes)."""
        pile = self.zones[zone]
        if bare(pile[index]) == card:
            return
        for z, cards in self.zones.items():
            for i, c in enumerate(cards):
                if bare(c) == card and self.unseen(z, i) and (z, i) != (zone, index):
                    mine = pile[index]
                    cards[i] = _named_as(c, bare(mine))
                    pile[index] = _named_as(mine, card)
                    return
        raise CardrefError(f"table: {card} is in no hidden zone (it cannot come out of one)")

    def take(self, zone: str, index: int) -> str:
        return self.zones[zone].pop(index)

    def put(self, zone: str, card: str, up: bool | None, layout: Layout, src: str = "") -> None:
        """Lay ``card`` (taken from ``src``) on top of ``zone``: face down (``~src~``) where
        cards lie face up if not ``up``."""
        z = layout.zones.get(zone)
        down = up is False and z is not None and not z.offtable and z.face == "up"
        if down and not face_down(card):
            card = f"~{src}~{card}"
        elif not down:
            card = bare(card)
        self.zones.setdefault(zone, []).append(card)

    def apply(self, card: str, src: str, dst: str) -> Transfer:
        """Move ``card`` (``BACK``: the top card, face down) from ``src`` to the top of ``dst``."""
        i, reshuffled = self.locate(card, src)
        card = self.zones[src].pop(i)
        self.zones.setdefault(dst, []).append(card)
        return Transfer(card, src, dst, i, reshuffled)


def face_down(name: str) -> bool:
    """A card lying face down in a zone where cards lie face up (``~FROM~NAME``: FROM is the
    zone it was laid from, such as the hand of the player whose commitment it is)."""
    return name.startswith("~")


def bare(name: str) -> str:
    return name.rsplit("~", 1)[-1]


def laid_from(name: str) -> str:
    return name.split("~")[1] if face_down(name) else ""


def _named_as(slot: str, card: str) -> str:
    return slot[: len(slot) - len(bare(slot))] + card


@dataclass(frozen=True)
class CardLook:
    """How one card of the deck looks: its face and back images, size and paper brightness."""

    front: str
    back: str
    size: tuple[float, float]  # (width, height) cm
    tint: float


class DeckLooks:
    """One physical deck for a whole video: each identity keeps its face and tint."""

    def __init__(self, rng: np.random.Generator, art: Art):
        complete = [d for d in art.decks if all(c in d.faces for c in (*PLAYING, "BACK"))]
        pool = complete or art.decks
        self.deck: Deck = pool[int(rng.integers(len(pool)))]
        back_files = self.deck.faces.get("BACK") or _any_deck_with(art, "BACK").faces["BACK"]
        self.back = str(art.root / "faces" / back_files[0])
        self.looks: dict[str, CardLook] = {}
        for cls in PLAYING:
            deck = self.deck if cls in self.deck.faces else _any_deck_with(art, cls)
            files = deck.faces[cls]
            rel = files[int(rng.integers(len(files)))]
            face = art.face(rel)
            width = CARD_H * face.shape[1] / face.shape[0]
            self.looks[cls] = CardLook(
                str(art.root / "faces" / rel), self.back, (width, CARD_H), float(rng.uniform(0.92, 1.0))
            )

    def __getitem__(self, identity: str) -> CardLook:
        return self.looks[identity]


def _any_deck_with(art: Art, cls: str) -> Deck:
    for d in art.decks:
        if cls in d.faces:
            return d
    raise CardrefError(f"art cache: no deck of the recipe has a face for {cls}")


@dataclass(frozen=True)
class Pose:
    """A card's place on the table: centre (cm), angle (degrees, counter-clockwise) and side."""

    center: tuple[float, float]
    angle: float
    face_up: bool


class Placer:
    """Lays zones out: piles stacked with small shifts, spreads side by side from the left,
    crosswise hits over their fortification. Shifts depend on (zone, position) only, so a
    pile that grows keeps the cards it had where they were."""

    def __init__(self, layout: Layout, seed: int, card_size: tuple[float, float] = (6.3, CARD_H)):
        self.layout = layout
        self.card_w, self.card_h = card_size
        self._jitter: dict[str, np.ndarray] = {}
        self.seed = seed

    def jitter(self, zone: str, i: int) -> tuple[float, float, float]:
        """(dx cm, dy cm, turn degrees) of position ``i`` in ``zone``."""
        if zone not in self._jitter:
            key = sum(ord(ch) * 31**k for k, ch in enumerate(zone)) % 2**32
            rng = np.random.default_rng([self.seed, key])
            self._jitter[zone] = rng.normal(0, 1, (MAX_PILE_JITTER, 3)) * (0.12, 0.12, 1.4)
        dx, dy, da = self._jitter[zone][i % MAX_PILE_JITTER]
        return float(dx), float(dy), float(da)

    def base_angle(self, zone: Zone) -> float:
        """Cards face the player whose side of the table the zone is on (red: far side)."""
        far_side = zone.center[1] > self.layout.table_size[1] * 0.6
        return (90.0 if zone.rotated else 0.0) + (180.0 if far_side else 0.0)

    def poses(self, zone_id: str, n: int) -> list[Pose]:
        """Poses of the ``n`` cards of a zone, bottom first (empty for off-table zones)."""
        zone = self.layout.zones.get(zone_id)
        if zone is None or zone.offtable or n == 0:
            return []
        face_up = zone.face == "up"
        if zone.kind == "across" and zone.over in self.layout.zones:
            return self._across(zone, self.layout.zones[zone.over], n, face_up)
        angle = self.base_angle(zone)
        if zone.kind == "spread":
            return self._spread(zone, n, angle, face_up)
        out = []
        for i in range(n):
            dx, dy, da = self.jitter(zone.id, i)
            out.append(Pose((zone.center[0] + dx, zone.center[1] + dy), angle + da, face_up))
        return out

    def _spread(self, zone: Zone, n: int, angle: float, face_up: bool) -> list[Pose]:
        a = math.radians(angle)
        ux = np.array([math.cos(a), math.sin(a)])
        length = zone.size[1] if zone.rotated else zone.size[0]
        room = max(0.0, length - self.card_w)
        step = min(self.card_w * OVERLAP_STEP, room / (n - 1)) if n > 1 else 0.0
        first = np.array(zone.center) - ux * room / 2
        out = []
        for i in range(n):
            dx, dy, da = self.jitter(zone.id, i)
            c = first + ux * step * i + (dx * 0.5, dy * 0.5)
            out.append(Pose((float(c[0]), float(c[1])), angle + da, face_up))
        return out

    def _across(self, zone: Zone, under: Zone, n: int, face_up: bool) -> list[Pose]:
        angle = self.base_angle(under) + 90.0
        room = max(0.0, zone.size[1] - self.card_w)
        step = min(1.8, room / (n - 1)) if n > 1 else 0.0
        out = []
        for i in range(n):
            dx, dy, da = self.jitter(zone.id, i)
            off = step * (i - (n - 1) / 2)
            out.append(Pose((zone.center[0] + dx, zone.center[1] + off + dy), angle + da, face_up))
        return out


def drawing_order(layout: Layout) -> list[str]:
    """Zones bottom first: crosswise zones after the zone they lie over."""
    zones = [z for z in layout.zones.values() if not z.offtable]
    return [z.id for z in zones if z.kind != "across"] + [z.id for z in zones if z.kind == "across"]


def sprite(identity: str, pose: Pose, looks: DeckLooks, zone: str | None, lift: float = 0.0) -> CardSprite:
    look = looks[bare(identity)]
    up = pose.face_up and not face_down(identity)
    return CardSprite(
        bare(identity),
        up,
        look.front if up else look.back,
        pose.center,
        pose.angle,
        look.size,
        lift=lift,
        zone=zone,
        tint=look.tint,
    )


def table_sprites(table: Table, placer: Placer, looks: DeckLooks) -> list[CardSprite]:
    """Every card on the table as a sprite, in drawing order (bottom first)."""
    out: list[CardSprite] = []
    for zid in drawing_order(placer.layout):
        cards = table.zones.get(zid, [])
        for card, pose in zip(cards, placer.poses(zid, len(cards)), strict=True):
            out.append(sprite(card, pose, looks, zid))
    return out


def pose_of(table: Table, placer: Placer, zone: str, index: int) -> Pose | None:
    """Where position ``index`` of ``zone`` lies now (None for an off-table zone)."""
    cards = table.zones.get(zone, [])
    poses = placer.poses(zone, len(cards))
    if not 0 <= index < len(poses):
        return None
    pose = poses[index]
    return replace(pose, face_up=False) if face_down(cards[index]) else pose
