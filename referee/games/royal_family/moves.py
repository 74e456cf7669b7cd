"""Royal Family's typed moves (docs/rules/royal_family.md). ``source`` is the zone the card came from:
``staging`` for a card drawn from the draw pile, or a flop pile."""

from __future__ import annotations

from referee.cards import Card
from referee.core import CardMove, Move, PlayerCardMove, PlayerMove


class FlopCard(CardMove):
    """A card of the draw pile turned onto a flop pile (``pile``) as a round starts."""

    pile: str


class TakeFromDraw(PlayerCardMove):
    """A blind draw: the draw pile's top, shown in staging first."""


class Taken(PlayerCardMove):
    """A card taken from ``source`` (staging or a flop pile) and used: the base of the moves
    that play a card."""

    source: str


class Fortify(Taken):
    """A troop put on the fort of its own suit."""


class Attack(Taken):
    """Troops sent against ``target``: the base of the two attacks."""

    target: str


class AttackFortification(Attack):
    """A troop laid across an enemy fort."""


class AttackCastle(Attack):
    """An attack on an enemy castle with no fort."""


class PlaceResident(Taken):
    """A king, queen or jack moved in among a castle's residents."""

    castle: str


class Kidnap(Taken):
    """An enemy family member taken from a flop into a free dungeon of one's own."""

    dungeon: str


class ClaimAce(Taken):
    """The ally ace taken to the castle row: a held castle."""


class TakeAssassin(Taken):
    """A 2 taken from a flop pile to assassinate; the victim follows (``Assassinate``)."""


class Assassinate(PlayerMove):
    """The opponent's resident a two taken from a flop kills (after ``TakeAssassin``)."""

    victim: Card


class Discard(Taken):
    """A card thrown away: face-up on a flop pile or face-down on the discard pile (``to``)."""

    to: str


class SurpriseDamage(PlayerMove):
    """Surprised with no resident: one point of damage on the player's own ``castle``."""

    castle: str


class MemberMove(PlayerMove):
    """A move of one family member (a resident or a prisoner)."""

    member: Card


class SurpriseRemove(MemberMove):
    """Surprised (a two drawn blind): one of the player's own residents discarded."""


class Rescue(MemberMove):
    """A bonus: one of the attacker's family brought home from the target's dungeon."""


class Capture(MemberMove):
    """A bonus after damage: one of the target's residents moved into ``dungeon``."""

    dungeon: str


class Execute(MemberMove):
    """A bonus after damage: one of the target's residents discarded."""


class NoBonus(PlayerMove):
    """The attacker takes no bonus."""


class Pass(PlayerMove):
    """Nothing takeable: the turn passes (A5)."""


class CleanUp(Move):
    """The camera saw a clean-up movement the referee had announced: nothing changes."""

    card: Card
    src: str
    dst: str
