"""Royal Crush's moves: what the referee reads an observation as (docs/rules/royal_crush.md,
part A). Hands stay hidden, so most moves name a player, not a card."""

from __future__ import annotations

from referee.cards import Card
from referee.core import Move, PlayerCardMove, PlayerMove


class DealCard(PlayerMove):
    """One face-down card from the draw pile to a hand during the deal."""


class DealAll(Move):
    """The rest of the deal at once (every hand filled to the hand size)."""


class Roll(PlayerMove):
    """A dice reading for ``player`` (first-player roll or a tie roll-off)."""

    values: tuple[int, ...]


class Declare(Move):
    """C1: the attacker names the victim."""

    attacker: str
    victim: str


class Join(PlayerMove):
    """C2: a player joins a side as an ally."""

    side: str


class Leave(PlayerMove):
    """C2: an ally withdraws before the sides are locked."""


class Invite(Move):
    """C2: a principal asks a player to join their side (binding only with invite_only)."""

    by: str
    player: str


class Exclude(Move):
    """C2: a principal bars a player from their side."""

    by: str
    player: str


class LockSides(Move):
    """C2 ends: "sides locked", commitments may start."""


class Commit(PlayerMove):
    """C3: one face-down card from the player's hand into their slot (``side``: the mat the
    camera saw, None for the slot itself)."""

    side: str | None = None


class Uncommit(PlayerMove):
    """C3: a face-down card taken back into the hand before the countdown."""


class Countdown(Move):
    """C4 starts: 3-2-1, no more cards may be placed."""


class Flip(PlayerCardMove):
    """C4: one face-down card in ``player``'s slot turns out to be ``card``."""


class Reveal(Move):
    """C4: every remaining face-down card at once, per player in placement order."""

    cards: tuple[tuple[str, tuple[Card, ...]], ...]
    order_known: bool = True


class Sweep(PlayerCardMove):
    """C7: a conquest card from ``player``'s slot under the draw pile."""


class ReturnCard(PlayerCardMove):
    """C4/A10: a card that counted for nothing goes back to its owner's hand."""


class Draw(PlayerMove):
    """C8: one face-down card from the draw pile into a hand."""


class CheckLadder(PlayerMove):
    """The camera read a ladder token: confirms the announced spot (changes nothing)."""

    spot: int
