"""Houska Castle's typed moves: one per physical movement the camera reports (docs/rules/houska_castle.md).

A move says *what happened on the table*; what it means (a heal draw or a regen draw, a
monster play or a bodyguard) follows from the state: the forced step due first (a
``Duty``) or the phase. ``card`` is the card's identity; ``to``/``zone``/``src`` are zone ids.
"""

from __future__ import annotations

from referee.cards import Card
from referee.core import CardMove, Move


class SetUp(Move):
    """Set-up observation: the 5 on ``max_hp_card`` and how many cards went to monster_pile."""

    marker: Card
    monster_pile: int = 25


class Draw(CardMove):
    """combat_pile -> hand: a deal, heal or regen draw."""


class DrawAce(CardMove):
    """combat_pile -> artifacts: the Hero drew an ace (deal, heal, regen or his bodyguard)."""


class MarkerIn(CardMove):
    """combat_pile -> max_hp_card: the new Max HP marker found in the level-up search."""


class MarkerOut(CardMove):
    """max_hp_card -> combat_pile: the old marker goes to the bottom of the pile."""


class NoMarker(Move):
    """The level-up search found no card of the new Max HP rank (A12)."""


class RevealMonster(CardMove):
    """monster_pile -> monster_slot (E1)."""


class MonsterPileAce(CardMove):
    """monster_pile -> monster_rewards: an ace is not a monster (E1)."""


class FieldDraw(Move):
    """combat_pile -> a field: observation card (``card`` None: face-down), monster play or
    bodyguard; onto the opponent's field when a Queen steals it on arrival."""

    card: Card | None
    to: str


class MonsterAce(CardMove):
    """combat_pile -> monster_rewards: an ace drawn for the monster (A14)."""


class TurnUp(CardMove):
    """The face-down observation card turned up (``to`` monster_field), or turned up and
    carried straight under a Hero Queen (``to`` hero_field)."""

    to: str = "monster_field"


class TurnDown(CardMove):
    """A field card turned face-down: a Jack nullified it."""

    zone: str


class Play(CardMove):
    """hand -> hero_field (or straight under a monster Queen on monster_field).

    ``first`` answers "which card did you place first?": True means this card went down
    before the Hero's other initial card, which a Queen had been taken to steal.
    """

    to: str
    first: bool = False


class Cross(CardMove):
    """A field card moved to the other field: a queued Queen steal carried out."""

    to: str


class AceToRewards(CardMove):
    """monster_field -> monster_rewards: a turned-up observation card was an ace."""


class Cleanup(CardMove):
    """A field card or the monster -> combat_pile (E5)."""

    src: str


class CollectReward(CardMove):
    """monster_rewards -> artifacts: the prize of a defeated monster (LevelUp)."""


class UseHeroPoint(Move):
    """A joker hero_points -> hero_points_used: heal to Max HP."""


class EndTurn(Move):
    """``end_turn``: the initial attack is one card, regen is over, or the Hero declines a
    Hero Point at death's door."""


class Concede(Move):
    """``answer defeat``: the Hero declines the Hero Point offered at death's door."""
