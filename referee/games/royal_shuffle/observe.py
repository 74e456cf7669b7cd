"""Royal Shuffle observations: checking their fields and turning them into candidate moves.

Card movements name zones (``7S hand_p1 -> village_p2``). What a camera cannot see arrives
as game observations (docs/rules/royal_shuffle.md): ``deal``, ``first``, ``hand`` (a shown hand),
``hand_count``, ``layout`` and ``placed`` (a face-up card whose origin, pile or hand, was not
seen). Where an observation leaves something open (``placed``; the zone ``village`` for a
card on the midline) every reading is a candidate and the core referee asks which one.
"""

from __future__ import annotations

from typing import Any

import referee.games.royal_shuffle.moves as mv
from referee.cards import Card, CardError
from referee.core import Move
from referee.errors import IllegalMove, ObservationError
from referee.games.royal_shuffle.state import (
    ANY_VILLAGE,
    DEAL,
    HAND,
    OWNER,
    PLACES,
    PLAYERS,
    VILLAGE,
    ShuffleState,
)

# type -> (required fields, optional fields); ``layout`` also takes card=card pairs.
FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "deal": ((), ()),
    "first": (("player",), ()),
    "placed": ((), ()),
    "hand": (("player", "cards"), ()),
    "hand_count": (("player", "count"), ()),
    "layout": (("player",), ()),
}
OBSERVATION_TYPES: tuple[str, ...] = ("move", "answer", "end_turn", *FIELDS)


def _err(loc: str, name: str, text: str) -> ObservationError:
    where = f"{loc}: field '{name}'" if loc else f"field '{name}'"
    return ObservationError(f"{where}: {text}")


def card_list(value: Any) -> list[str]:
    """``cards`` as typed (``JK,5D`` is a list, ``JK`` a string, empty an empty hand)."""
    if value in ("", None):
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def validate_observation(obs: Any, loc: str = "") -> None:
    """Malformed game observations raise ObservationError naming the field; whether they are
    legal is the rules' business."""
    if obs.type not in FIELDS:
        return
    required, optional = FIELDS[obs.type]
    data: dict[str, Any] = obs.data
    for name in required:
        if name not in data:
            raise _err(loc, name, f"missing (a {obs.type} observation needs {', '.join(required)})")
    if "player" in data and data["player"] not in PLAYERS:
        raise _err(loc, "player", f"unknown player {data['player']!r} (expected p1 or p2)")
    if obs.type == "placed" and (obs.card is None or obs.dst is None or obs.src is not None):
        raise ObservationError(f"{loc + ': ' if loc else ''}a placed observation needs card and to, no from")
    if obs.type == "placed" and obs.dst not in PLACES:
        raise _err(loc, "to", f"a card is placed in a village or the court, not {obs.dst!r}")
    if obs.type == "hand":
        for text in card_list(data["cards"]):
            try:
                Card.parse(text)
            except CardError as e:
                raise _err(loc, "cards", str(e)) from None
    if obs.type == "hand_count" and (isinstance(data["count"], bool) or not isinstance(data["count"], int)):
        raise _err(loc, "count", f"expected an integer, got {data['count']!r}")
    allowed = set(required) | set(optional)
    for name, value in data.items():
        if name in allowed:
            continue
        if obs.type != "layout":
            raise _err(loc, name, f"unknown field for a {obs.type} observation")
        for text in (name, value):
            try:
                Card.parse(text)
            except CardError as e:
                raise _err(loc, name, f"expected resident=host cards: {e}") from None


def interpret_observation(s: ShuffleState, obs: Any) -> list[Move]:
    """Candidate moves an observation can mean, most natural first."""
    t, data = obs.type, obs.data
    if t == "deal":
        return [mv.DealAll()]
    if t == "first":
        return [mv.FirstPlayer(data["player"])]
    if t == "end_turn":
        return [mv.EndTurn()]
    if t == "answer":
        raise IllegalMove(f"No question is open (answer {data.get('choice')})")
    if t == "hand":
        return [mv.ShowHand(data["player"], tuple(Card.parse(c) for c in card_list(data["cards"])))]
    if t == "hand_count":
        return [mv.CountHand(data["player"], int(data["count"]))]
    if t == "layout":
        pairs = ((Card.parse(k), Card.parse(v)) for k, v in data.items() if k != "player")
        return [mv.Layout(data["player"], tuple(sorted(pairs)))]
    if t == "placed":
        assert obs.card is not None and obs.dst is not None
        return _flip_or_play(s, obs.card, obs.dst)
    return _movement(s, obs.card, obs.src, obs.dst)


def _destinations(zone: str) -> list[str]:
    """A village whose owner was not seen may be either."""
    return [VILLAGE[p] for p in PLAYERS] if zone == ANY_VILLAGE else [zone]


def _flip_or_play(s: ShuffleState, c: Card, dst: str) -> list[Move]:
    """A card appeared face up but its origin was not seen: a flip or the play (ASK)."""
    if s.phase == DEAL or s.active is None:
        raise IllegalMove("Deal 4 cards to each player and report who starts first")
    p = s.active
    moves: list[Move] = [mv.Flip(p, c, z) for z in _destinations(dst)]
    return moves + [mv.Play(p, c, z) for z in _destinations(dst)]


def _movement(s: ShuffleState, c: Card | None, a: str | None, b: str | None) -> list[Move]:
    assert c is not None and a is not None and b is not None
    if c.is_back:
        if a == "draw_pile" and b in OWNER and b == HAND[OWNER[b]]:
            p = OWNER[b]
            return [mv.Deal(p)] if s.phase == DEAL else [mv.Draw(p)]
        raise IllegalMove("Only a card drawn from draw_pile into a hand moves face down")
    if a == "draw_pile" and b in PLACES:
        if s.phase == DEAL or s.active is None:
            raise IllegalMove("Deal 4 cards to each player and report who starts first")
        return [mv.Flip(s.active, c, z) for z in _destinations(b)]
    if a == "draw_pile" and b in HAND.values():
        raise IllegalMove("Draw face down: nobody may see the drawn card")
    if a in HAND.values() and b in PLACES:
        return [mv.Play(OWNER[a], c, z) for z in _destinations(b)]
    if a in ("court_king", "court_queen") and b == "discard_pile":
        return [mv.ClearMonarch(c)]
    raise IllegalMove(f"{c} does not move from {a} to {b} in Royal Shuffle")
