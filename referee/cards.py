"""Card vocabulary: the one card type every game, the detector and the logs share.

Text form is the spec's notation: rank + suit letter (``7S``, ``10H``, ``QD``, ``AC``),
``JK`` for a joker and ``BACK`` for a face-down card as the camera sees it. Parsing is
strict so that a typo in an observation log never turns into a different card.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
SUIT_NAMES: dict[str, str] = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
SUIT_OF_NAME: dict[str, str] = {v: k for k, v in SUIT_NAMES.items()}
RANK_VALUES: dict[str, int] = {r: i + 1 for i, r in enumerate(RANKS)}  # A=1 .. K=13
FACE_RANKS: tuple[str, ...] = ("J", "Q", "K")

Color = Literal["black", "red"]


class CardError(ValueError):
    """A text that is not a card in the project's notation."""


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """A card identity: ``rank`` + ``suit``, or the specials ``JK`` and ``BACK``.

    ``rank`` is one of RANKS or ``"JK"``/``"BACK"``; ``suit`` is a letter of SUITS or ``""``
    for the specials. Build cards with :func:`card` or :meth:`Card.parse`.
    """

    rank: str
    suit: str = ""

    def __post_init__(self) -> None:
        if self.rank in ("JK", "BACK"):
            if self.suit:
                raise CardError(f"{self.rank} has no suit, got suit {self.suit!r}")
        elif self.rank not in RANKS or self.suit not in SUITS:
            raise CardError(f"not a card: rank {self.rank!r}, suit {self.suit!r}")

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``7S``/``10H``/``QD``/``JK``/``BACK``; anything else raises CardError."""
        if not isinstance(text, str):
            raise CardError(f"expected a card text such as '7S', got {text!r}")
        t = text.strip()
        if t in ("JK", "BACK"):
            return cls(t)
        if len(t) < 2 or t[:-1] not in RANKS or t[-1] not in SUITS:
            raise CardError(
                f"not a card: {text!r} (expected rank A,2-10,J,Q,K + suit S,H,D,C, or JK, BACK)"
            )
        return cls(t[:-1], t[-1])

    def __str__(self) -> str:
        return self.rank + self.suit

    @property
    def is_joker(self) -> bool:
        return self.rank == "JK"

    @property
    def is_back(self) -> bool:
        return self.rank == "BACK"

    @property
    def is_face(self) -> bool:
        """Jack, Queen or King."""
        return self.rank in FACE_RANKS

    @property
    def value(self) -> int:
        """Rank value A=1, 2..10, J=11, Q=12, K=13; 0 for JK and BACK."""
        return RANK_VALUES.get(self.rank, 0)

    @property
    def color(self) -> Color | None:
        """``black`` for spades/clubs, ``red`` for hearts/diamonds, None for JK/BACK."""
        if self.suit in ("S", "C"):
            return "black"
        if self.suit in ("H", "D"):
            return "red"
        return None

    @property
    def suit_name(self) -> str:
        return SUIT_NAMES.get(self.suit, "")


def card(text: str) -> Card:
    """Shorthand for :meth:`Card.parse`."""
    return Card.parse(text)


def full_deck(jokers: int = 2) -> list[Card]:
    """The 52 cards in CLASSES order, followed by ``jokers`` jokers."""
    return [Card(r, s) for s in SUITS for r in RANKS] + [Card("JK")] * jokers


# The detector's classes, in class-id order. Vision, training and the datasets read this list
# and nothing else: 52 cards (suit-major, A..K), then the joker, then a face-down card.
CLASSES: tuple[str, ...] = tuple(f"{r}{s}" for s in SUITS for r in RANKS) + ("JK", "BACK")
CLASS_ID: dict[str, int] = {name: i for i, name in enumerate(CLASSES)}


def class_id(c: Card | str) -> int:
    """Detector class id of a card (or its text)."""
    return CLASS_ID[str(c) if isinstance(c, Card) else str(Card.parse(c))]
