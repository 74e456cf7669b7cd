"""Dukes Up!'s typed moves: one per movement the camera reports (docs/rules/dukes_up.md), plus the answers
and the game observations for what it cannot see. A move says what happened on the table;
the rules decide what it means now (a set-up draw or a turn's draw, a switch or a new duke).
``meld`` is a meld zone id (``meld_3``); ``player`` the colour whose zone the card left.
"""

from __future__ import annotations

from referee.cards import Card
from referee.core import CardMove, Move, PlayerCardMove, PlayerMove
from referee.games.dukes_up.melds import MeldCards


class Draw(PlayerMove):
    """``BACK draw_pile_p -> hand_p``: one card drawn unseen (set-up or draw step)."""


class DrawDiscard(PlayerCardMove):
    """``X discard_pile_p -> hand_p``: the top of the own discard pile drawn (extra rule)."""


class PlaceDown(PlayerMove):
    """Set-up: ``BACK hand_p -> castle_p`` or ``-> dukes_p`` (``zone`` castle | dukes)."""

    zone: str


class PickUp(PlayerMove):
    """Set-up fix: a face-down castle or duke back to the hand (``zone`` castle | dukes)."""

    zone: str


class RevealDukes(Move):
    """``dukes_up``: both players turn their dukes face-up together."""

    black: tuple[Card, ...]
    red: tuple[Card, ...]


class ChooseFirst(PlayerMove):
    """Answer to "who plays first?" (A1)."""


class FlipCastle(PlayerCardMove):
    """``X castle_p -> castle_p``: the castle turned face-up (forced, T2)."""


class Meld(PlayerCardMove):
    """``X hand_p -> meld_k``: a hand card laid into a new or an existing meld; ``X hand_p ->
    table`` (``meld`` "table"): laid on the table, its meld unnamed (the pool)."""

    meld: str


class Shift(CardMove):
    """``X meld_i -> meld_k``: rearranging, one table card to another (or a new) meld."""

    meld: str


class TakeDuke(Move):
    """``X dukes_q -> meld_k``: an opponent duke becomes part of a meld."""

    player: str  # the duke's owner
    card: Card
    meld: str


class TakeCastle(Move):
    """``X castle_q -> meld_k``: a castle into a meld: the opponent's (a take) or, on a final
    turn with ``own_castle_last_stand``, the player's own. ``card`` BACK: a face-down one."""

    player: str  # the castle's owner
    card: Card
    meld: str


class ReturnCastle(PlayerCardMove):
    """``X meld_k -> castle_p``: the own castle back face-up after a failed last stand."""


class SwitchOut(PlayerCardMove):
    """``X dukes_p -> hand_p``: an own duke into the hand (one half of SwitchDuke)."""


class SwitchIn(PlayerCardMove):
    """``X hand_p -> dukes_p`` while dukes remain: the other half of SwitchDuke."""


class CreateDuke(PlayerCardMove):
    """``X hand_p -> dukes_p`` with no dukes left: a new duke (A7)."""


class Regroup(Move):
    """``table``: the camera's whole table after rearranging, read as these melds."""

    melds: tuple[MeldCards, ...]


class Discard(PlayerMove):
    """``X source -> discard_pile_p`` with ``source`` hand | draw_pile | table. ``melds``: the
    reading of the whole table adopted first, when cards were laid on it ungrouped (a pool)."""

    source: str
    card: Card
    melds: tuple[MeldCards, ...] | None = None


class EndTurn(Move):
    """``end_turn``: done (validates; ends a castle-take turn, declines a second discard).
    ``melds`` as for :class:`Discard`."""

    melds: tuple[MeldCards, ...] | None = None
