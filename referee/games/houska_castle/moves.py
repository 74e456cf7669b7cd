"""Houska Castle's typed moves: one per physical movement the camera reports (docs/rules/houska_castle.md).

A move says *what happened on the table*; what it means (a heal draw or a regen draw, a
monster play or a bodyguard) follows from the state: the forced step due first (a
``Duty``) or the phase. ``card`` is the card's identity; ``to``/``zone``/``src`` are zone ids.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.cards import Card
from referee.core import Move


@dataclass(frozen=True)
class SetUp(Move):
    """Set-up observation: the 5 on ``max_hp_card`` and how many cards went to monster_pile."""

    marker: Card
    monster_pile: int = 25


@dataclass(frozen=True)
class Draw(Move):
    """combat_pile -> hand: a deal, heal or regen draw."""

    card: Card


@dataclass(frozen=True)
class DrawAce(Move):
    """combat_pile -> artifacts: the Hero drew an ace (deal, heal, regen or his bodyguard)."""

    card: Card


@dataclass(frozen=True)
class MarkerIn(Move):
    """combat_pile -> max_hp_card: the new Max HP marker found in the level-up search."""

    card: Card


@dataclass(frozen=True)
class MarkerOut(Move):
    """max_hp_card -> combat_pile: the old marker goes to the bottom of the pile."""

    card: Card


@dataclass(frozen=True)
class NoMarker(Move):
    """The level-up search found no card of the new Max HP rank (A12)."""


@dataclass(frozen=True)
class RevealMonster(Move):
    """monster_pile -> monster_slot (E1)."""

    card: Card


@dataclass(frozen=True)
class MonsterPileAce(Move):
    """monster_pile -> monster_rewards: an ace is not a monster (E1)."""

    card: Card


@dataclass(frozen=True)
class FieldDraw(Move):
    """combat_pile -> a field: observation card (``card`` None: face-down), monster play or
    bodyguard; onto the opponent's field when a Queen steals it on arrival."""

    card: Card | None
    to: str


@dataclass(frozen=True)
class MonsterAce(Move):
    """combat_pile -> monster_rewards: an ace drawn for the monster (A14)."""

    card: Card


@dataclass(frozen=True)
class TurnUp(Move):
    """The face-down observation card turned up (``to`` monster_field), or turned up and
    carried straight under a Hero Queen (``to`` hero_field)."""

    card: Card
    to: str = "monster_field"


@dataclass(frozen=True)
class TurnDown(Move):
    """A field card turned face-down: a Jack nullified it."""

    card: Card
    zone: str


@dataclass(frozen=True)
class Play(Move):
    """hand -> hero_field (or straight under a monster Queen on monster_field).

    ``first`` answers "which card did you place first?": True means this card went down
    before the Hero's other initial card, which a Queen had been taken to steal.
    """

    card: Card
    to: str
    first: bool = False


@dataclass(frozen=True)
class Cross(Move):
    """A field card moved to the other field: a queued Queen steal carried out."""

    card: Card
    to: str


@dataclass(frozen=True)
class AceToRewards(Move):
    """monster_field -> monster_rewards: a turned-up observation card was an ace."""

    card: Card


@dataclass(frozen=True)
class Cleanup(Move):
    """A field card or the monster -> combat_pile (E5)."""

    card: Card
    src: str


@dataclass(frozen=True)
class CollectReward(Move):
    """monster_rewards -> artifacts: the prize of a defeated monster (LevelUp)."""

    card: Card


@dataclass(frozen=True)
class UseHeroPoint(Move):
    """A joker hero_points -> hero_points_used: heal to Max HP."""


@dataclass(frozen=True)
class EndTurn(Move):
    """``end_turn``: the initial attack is one card, regen is over, or the Hero declines a
    Hero Point at death's door."""


@dataclass(frozen=True)
class Concede(Move):
    """``answer defeat``: the Hero declines the Hero Point offered at death's door."""
