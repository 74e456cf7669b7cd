"""What an observation of Houska Castle can mean: a card moved from one zone to another, a card
seen come face up, a face-down card moved, or the game's own types (setup, no_marker, answer).
The rules decide between readings (docs/rules/houska_castle.md)."""

from __future__ import annotations

from typing import Any

import referee.games.houska_castle.moves as mv
from referee.cards import Card, CardError
from referee.core import Move
from referee.errors import IllegalMove, ObservationError
from referee.games.houska_castle.rules import Rules
from referee.games.houska_castle.state import (
    FIELDS,
    HERO_CARD,
    HouskaState,
)
from referee.observations import Observation

# Movements whose meaning does not depend on the card: (from, to) -> move type.
_SIMPLE: dict[tuple[str, str], type] = {
    ("combat_pile", "hand"): mv.Draw,
    ("combat_pile", "artifacts"): mv.DrawAce,
    ("combat_pile", "max_hp_card"): mv.MarkerIn,
    ("max_hp_card", "combat_pile"): mv.MarkerOut,
    ("monster_pile", "monster_slot"): mv.RevealMonster,
    ("monster_pile", "monster_rewards"): mv.MonsterPileAce,
    ("combat_pile", "monster_rewards"): mv.MonsterAce,
    ("monster_field", "monster_rewards"): mv.AceToRewards,
    ("monster_rewards", "artifacts"): mv.CollectReward,
}


def validate_observation(obs: Observation, loc: str = "") -> None:
    """Fields of Houska Castle's own observation types, each error naming its field."""
    prefix = f"{loc}: " if loc else ""
    if obs.type == "setup":
        marker = obs.data.get("marker")
        try:
            Card.parse(marker)
        except CardError as e:
            raise ObservationError(f"{prefix}field 'marker': {e}") from None
        n = obs.data.get("monster_pile", 25)
        if not isinstance(n, int) or isinstance(n, bool):
            raise ObservationError(f"{prefix}field 'monster_pile': expected an integer, got {n!r}")
    if obs.type == "appeared" and (obs.card is None or obs.src is not None or obs.dst not in FIELDS):
        raise ObservationError(f"{prefix}an appeared observation needs card and to (a field), no from")


def interpret_observation(rules: Rules, state: HouskaState, obs: Observation) -> list[Move]:
    """Candidate moves of one observation; ``rules`` decides between readings."""
    t = obs.type
    if t == "setup":
        return [mv.SetUp(Card.parse(obs.data["marker"]), int(obs.data.get("monster_pile", 25)))]
    if t == "no_marker":
        return [mv.NoMarker()]
    if t == "end_turn":
        return [mv.EndTurn()]
    if t == "answer":
        return _answer(state, obs.data.get("choice"))
    if t == "appeared":
        return _appeared(state, obs.card, obs.dst)
    c, a, b = obs.card, obs.src, obs.dst
    assert c is not None and a is not None and b is not None
    if c.is_joker:
        if (a, b) == ("hero_points", "hero_points_used"):
            return [mv.UseHeroPoint()]
        if b in FIELDS:
            raise IllegalMove("Jokers are Hero Points, not attack cards")
        raise IllegalMove("A joker only moves from hero_points to hero_points_used (a Hero Point)")
    if c == HERO_CARD and a == "hero_card":
        raise IllegalMove("KH is the Hero: it stays on hero_card")
    if c.is_back:
        return _face_down(state, a, b)
    if a == b:
        if a not in FIELDS:
            raise IllegalMove(f"Only cards on a field are turned over, not on {a}")
        f = state.find(c)
        if f is not None and f.zone == a:
            return [mv.TurnDown(c, a)]
        if a == "monster_field":
            return [mv.TurnUp(c)]
        raise IllegalMove(f"{c} is not on {a}")
    simple = _SIMPLE.get((a, b))
    if simple is not None:
        return [simple(c)]
    if a == "combat_pile" and b in FIELDS:
        return [mv.FieldDraw(c, b)]
    if a == "hand" and b in FIELDS:
        play = mv.Play(c, b)
        if b == "hero_field" and rules.reorder_open(state):
            return [play, mv.Play(c, b, first=True)]
        return [play]
    if a in FIELDS and b in FIELDS:
        f = state.find(c)
        if f is None and a == "monster_field" and state.hidden_count():
            return [mv.TurnUp(c, b)]
        return [mv.Cross(c, b)]
    if b == "combat_pile" and (a in FIELDS or a == "monster_slot"):
        return [mv.Cleanup(c, a)]
    raise IllegalMove(f"{c} cannot go from {a} to {b} in Houska Castle")


def _answer(state: HouskaState, choice: Any) -> list[Move]:
    if state.phase == "death":
        if choice in ("defeat", 2):
            return [mv.Concede()]
        if choice in ("hero_point", 1):
            raise IllegalMove("Use the Hero Point by moving a joker from hero_points to hero_points_used")
    raise IllegalMove(f"No question is open (answer {choice})")


def _appeared(state: HouskaState, c: Card | None, b: str | None) -> list[Move]:
    """A card seen come face up on a field from nowhere in view: drawn from combat_pile,
    or the hidden observation card turned up (and carried over when stolen at once). The
    legal moves decide; when both are legal (mid-observation) the referee asks."""
    assert c is not None and b is not None
    draw = mv.FieldDraw(c, b)
    return [mv.TurnUp(c, b), draw] if state.hidden_count() and state.unseen(c) else [draw]


def _face_down(state: HouskaState, a: str, b: str) -> list[Move]:
    """A face-down card moved: an observation card, or a nullified card at cleanup (the
    referee knows which from history: the earliest face-down card on that field)."""
    if (a, b) == ("combat_pile", "monster_field"):
        return [mv.FieldDraw(None, b)]
    if b == "combat_pile" and a in FIELDS:
        for f in state.table:
            if f.zone == a and not f.face_up and f.card is not None:
                return [mv.Cleanup(f.card, a)]
        raise IllegalMove(f"There is no face-down card on {a} to put back")
    raise IllegalMove(
        "A face-down card only goes from combat_pile to monster_field (observation) "
        "or back under combat_pile at cleanup")
