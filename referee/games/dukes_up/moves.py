"""Dukes Up!'s typed moves: one per movement the camera reports (docs/rules/dukes_up.md), plus the answers
and the game observations for what it cannot see. A move says what happened on the table;
the rules decide what it means now (a set-up draw or a turn's draw, a switch or a new duke).
``meld`` is a meld zone id (``meld_3``); ``player`` the colour whose zone the card left.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.cards import Card
from referee.core import Move
from referee.games.dukes_up.melds import MeldCards


@dataclass(frozen=True)
class Draw(Move):
    """``BACK draw_pile_p -> hand_p``: one card drawn unseen (set-up or draw step)."""

    player: str


@dataclass(frozen=True)
class DrawDiscard(Move):
    """``X discard_pile_p -> hand_p``: the top of the own discard pile drawn (extra rule)."""

    player: str
    card: Card


@dataclass(frozen=True)
class PlaceDown(Move):
    """Set-up: ``BACK hand_p -> castle_p`` or ``-> dukes_p`` (``zone`` castle | dukes)."""

    player: str
    zone: str


@dataclass(frozen=True)
class PickUp(Move):
    """Set-up fix: a face-down castle or duke back to the hand (``zone`` castle | dukes)."""

    player: str
    zone: str


@dataclass(frozen=True)
class RevealDukes(Move):
    """``dukes_up``: both players turn their dukes face-up together."""

    black: tuple[Card, ...]
    red: tuple[Card, ...]


@dataclass(frozen=True)
class ChooseFirst(Move):
    """Answer to "who plays first?" (A1)."""

    player: str


@dataclass(frozen=True)
class FlipCastle(Move):
    """``X castle_p -> castle_p``: the castle turned face-up (forced, T2)."""

    player: str
    card: Card


@dataclass(frozen=True)
class Meld(Move):
    """``X hand_p -> meld_k``: a hand card laid into a new or an existing meld; ``X hand_p ->
    table`` (``meld`` "table"): laid on the table, its meld unnamed (the pool)."""

    player: str
    card: Card
    meld: str


@dataclass(frozen=True)
class Shift(Move):
    """``X meld_i -> meld_k``: rearranging, one table card to another (or a new) meld."""

    card: Card
    meld: str


@dataclass(frozen=True)
class TakeDuke(Move):
    """``X dukes_q -> meld_k``: an opponent duke becomes part of a meld."""

    player: str  # the duke's owner
    card: Card
    meld: str


@dataclass(frozen=True)
class TakeCastle(Move):
    """``X castle_q -> meld_k``: a castle into a meld: the opponent's (a take) or, on a final
    turn with ``own_castle_last_stand``, the player's own. ``card`` BACK: a face-down one."""

    player: str  # the castle's owner
    card: Card
    meld: str


@dataclass(frozen=True)
class ReturnCastle(Move):
    """``X meld_k -> castle_p``: the own castle back face-up after a failed last stand."""

    player: str
    card: Card


@dataclass(frozen=True)
class SwitchOut(Move):
    """``X dukes_p -> hand_p``: an own duke into the hand (one half of SwitchDuke)."""

    player: str
    card: Card


@dataclass(frozen=True)
class SwitchIn(Move):
    """``X hand_p -> dukes_p`` while dukes remain: the other half of SwitchDuke."""

    player: str
    card: Card


@dataclass(frozen=True)
class CreateDuke(Move):
    """``X hand_p -> dukes_p`` with no dukes left: a new duke (A7)."""

    player: str
    card: Card


@dataclass(frozen=True)
class Regroup(Move):
    """``table``: the camera's whole table after rearranging, read as these melds."""

    melds: tuple[MeldCards, ...]


@dataclass(frozen=True)
class Discard(Move):
    """``X source -> discard_pile_p`` with ``source`` hand | draw_pile | table. ``melds``: the
    reading of the whole table adopted first, when cards were laid on it ungrouped (a pool)."""

    player: str
    source: str
    card: Card
    melds: tuple[MeldCards, ...] | None = None


@dataclass(frozen=True)
class EndTurn(Move):
    """``end_turn``: done (validates; ends a castle-take turn, declines a second discard).
    ``melds`` as for :class:`Discard`."""

    melds: tuple[MeldCards, ...] | None = None
