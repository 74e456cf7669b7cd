"""Royal Shuffle's typed moves: one per thing that happens at the table (docs/rules/royal_shuffle.md).

A move says what happened; the rules decide what it means (a Flip of a King replaces the
old King, a joker ends the reign). ``to`` is always a zone id.
"""

from __future__ import annotations

from referee.cards import Card
from referee.core import CardMove, Move, PlayerCardMove, PlayerMove


class Deal(PlayerMove):
    """One face-down card from draw_pile into ``player``'s hand during the deal."""


class DealAll(Move):
    """``deal``: the whole deal (4 cards to each hand) seen as one event."""


class FirstPlayer(PlayerMove):
    """``first player=p1``: who won the draw of lots and starts (A17)."""


class Flip(PlayerCardMove):
    """Step 1: the top of draw_pile turned face up and placed at once, as if played."""

    to: str


class Draw(PlayerMove):
    """Step 2: the top of draw_pile into the active player's hand, face down."""


class Play(PlayerCardMove):
    """Step 3: one card from the active player's hand placed in a village or the court."""

    to: str


class ClearMonarch(CardMove):
    """A replaced King or Queen carried from the court to discard_pile (MonarchReplaced)."""


class ShowHand(PlayerMove):
    """``hand player=p2 cards=JK,5D``: a player shows the whole hand (a camera cannot see
    it otherwise); the referee checks it against what it knows and remembers it."""

    cards: tuple[Card, ...]


class CountHand(PlayerMove):
    """``hand_count player=p1 count=4``: the camera's count of a fanned hand, checked."""

    count: int


class Layout(PlayerMove):
    """``layout player=p1 6H=AS 2H=6H``: how a village lies (``settlement: as_laid_out``);
    each resident is paired with its host (adult -> house/tent, child -> adult/tent)."""

    homes: tuple[tuple[Card, Card], ...]


class EndTurn(Move):
    """``end_turn``: a player's gesture that the turn is over. Turns end by themselves once
    flip, draw and play are done, so this only confirms (or says what is still owed)."""
