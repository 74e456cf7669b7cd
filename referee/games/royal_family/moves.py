"""Royal Family's typed moves (docs/rules/royal_family.md). ``source`` is the zone the card came from:
``staging`` for a card drawn from the draw pile, or a flop pile."""

from __future__ import annotations

from dataclasses import dataclass

from referee.cards import Card
from referee.core import Move


@dataclass(frozen=True)
class FlopCard(Move):
    card: Card
    pile: str


@dataclass(frozen=True)
class TakeFromDraw(Move):
    player: str
    card: Card


@dataclass(frozen=True)
class Fortify(Move):
    player: str
    card: Card
    source: str


@dataclass(frozen=True)
class AttackFortification(Move):
    player: str
    card: Card
    source: str
    target: str


@dataclass(frozen=True)
class AttackCastle(Move):
    player: str
    card: Card
    source: str
    target: str


@dataclass(frozen=True)
class PlaceResident(Move):
    player: str
    card: Card
    source: str
    castle: str


@dataclass(frozen=True)
class Kidnap(Move):
    player: str
    card: Card
    source: str
    dungeon: str


@dataclass(frozen=True)
class ClaimAce(Move):
    player: str
    card: Card
    source: str


@dataclass(frozen=True)
class TakeAssassin(Move):
    """A 2 taken from a flop pile to assassinate; the victim follows (``Assassinate``)."""

    player: str
    card: Card
    source: str


@dataclass(frozen=True)
class Assassinate(Move):
    player: str
    victim: Card


@dataclass(frozen=True)
class Discard(Move):
    player: str
    card: Card
    source: str
    to: str


@dataclass(frozen=True)
class SurpriseRemove(Move):
    player: str
    member: Card


@dataclass(frozen=True)
class SurpriseDamage(Move):
    player: str
    castle: str


@dataclass(frozen=True)
class Rescue(Move):
    player: str
    member: Card


@dataclass(frozen=True)
class Capture(Move):
    player: str
    member: Card
    dungeon: str


@dataclass(frozen=True)
class Execute(Move):
    player: str
    member: Card


@dataclass(frozen=True)
class NoBonus(Move):
    player: str


@dataclass(frozen=True)
class Pass(Move):
    player: str


@dataclass(frozen=True)
class CleanUp(Move):
    """The camera saw a clean-up movement the referee had announced: nothing changes."""

    card: Card
    src: str
    dst: str
