"""Royal Crush's moves: what the referee reads an observation as (docs/rules/royal_crush.md,
part A). Hands stay hidden, so most moves name a player, not a card."""

from __future__ import annotations

from dataclasses import dataclass

from referee.cards import Card
from referee.core import Move


@dataclass(frozen=True)
class DealCard(Move):
    """One face-down card from the draw pile to a hand during the deal."""

    player: str


@dataclass(frozen=True)
class DealAll(Move):
    """The rest of the deal at once (every hand filled to the hand size)."""


@dataclass(frozen=True)
class Roll(Move):
    """A dice reading for ``player`` (first-player roll or a tie roll-off)."""

    player: str
    values: tuple[int, ...]


@dataclass(frozen=True)
class Declare(Move):
    """C1: the attacker names the victim."""

    attacker: str
    victim: str


@dataclass(frozen=True)
class Join(Move):
    """C2: a player joins a side as an ally."""

    player: str
    side: str


@dataclass(frozen=True)
class Leave(Move):
    """C2: an ally withdraws before the sides are locked."""

    player: str


@dataclass(frozen=True)
class Invite(Move):
    """C2: a principal asks a player to join their side (binding only with invite_only)."""

    by: str
    player: str


@dataclass(frozen=True)
class Exclude(Move):
    """C2: a principal bars a player from their side."""

    by: str
    player: str


@dataclass(frozen=True)
class LockSides(Move):
    """C2 ends: "sides locked", commitments may start."""


@dataclass(frozen=True)
class Commit(Move):
    """C3: one face-down card from the player's hand into their slot (``side``: the mat the
    camera saw, None for the slot itself)."""

    player: str
    side: str | None = None


@dataclass(frozen=True)
class Uncommit(Move):
    """C3: a face-down card taken back into the hand before the countdown."""

    player: str


@dataclass(frozen=True)
class Countdown(Move):
    """C4 starts: 3-2-1, no more cards may be placed."""


@dataclass(frozen=True)
class Flip(Move):
    """C4: one face-down card in ``player``'s slot turns out to be ``card``."""

    player: str
    card: Card


@dataclass(frozen=True)
class Reveal(Move):
    """C4: every remaining face-down card at once, per player in placement order."""

    cards: tuple[tuple[str, tuple[Card, ...]], ...]
    order_known: bool = True


@dataclass(frozen=True)
class Sweep(Move):
    """C7: a conquest card from ``player``'s slot under the draw pile."""

    player: str
    card: Card


@dataclass(frozen=True)
class ReturnCard(Move):
    """C4/A10: a card that counted for nothing goes back to its owner's hand."""

    player: str
    card: Card


@dataclass(frozen=True)
class Draw(Move):
    """C8: one face-down card from the draw pile into a hand."""

    player: str


@dataclass(frozen=True)
class CheckLadder(Move):
    """The camera read a ladder token: confirms the announced spot (changes nothing)."""

    player: str
    spot: int
