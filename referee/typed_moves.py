"""The legal moves of a game as a person types them (``7S draw_pile -> flop_1``, ``end_turn``,
``dice player=p1 values=3,4``), so that ``cardref play`` can list them, number them and play
one by its number.

The typed form of a move is found by asking the game itself: an observation is the typed form
of a move when the game's ``interpret`` reads the move from it. Nothing here knows a game's
rules; a move no observation reads as (a chance move whose card nobody has seen yet) keeps
its description.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from referee.cards import RANKS, SUITS, Card, CardError
from referee.core import Game, Move, to_jsonable
from referee.errors import CardrefError, IllegalMove
from referee.observations import Observation


@dataclass(frozen=True)
class TypedMove:
    """A legal move, the line that plays it, and the answer to give if that line has
    several readings (the referee then asks which one)."""

    move: Move
    observation: Observation | None
    answer: str | None = None

    @property
    def line(self) -> str | None:
        return self.observation.short() if self.observation else None

    def text(self) -> str:
        if self.observation is None:
            return f"{self.move.describe()}  (no typed form: type what you see happen)"
        return self.line + (f"  (then answer {self.answer})" if self.answer else "")


def _reads_as(game: Game, state: Any, obs: Observation, move: Move) -> list[Move] | None:
    """The moves ``obs`` may mean, when one of them is ``move``; else None."""
    try:
        game.validate(obs)  # as the referee does first: interpret expects a well-formed one
        candidates = game.interpret(state, obs)
    except (IllegalMove, CardrefError, CardError, KeyError, ValueError, TypeError):
        return None
    return candidates if move in candidates else None


def _attempts(game: Game, state: Any, move: Move):
    """Observations that may be the typed form of ``move``, the likeliest first: the move's
    card carried from where the referee last saw it to each zone, an answer naming one of the
    move's fields, then each of the game's own observation types with the move's fields (all
    of them first, then fewer)."""
    card = getattr(move, "card", None)
    zones = sorted(game.zones)
    if isinstance(card, Card):
        seen = game.cards_by_zone(state) or {}
        sources = [z for z, cards in seen.items() if card in cards]
        for src in sources + [z for z in zones if z not in sources]:
            for dst in zones:
                if dst != src:
                    yield Observation.move(card, src, dst)
    fields = {k: v for k, v in to_jsonable(move).items() if v is not None}
    if "answer" in game.observation_types:  # a game's own question (who plays first?)
        for choice in dict.fromkeys(v for v in fields.values() if isinstance(v, str | int)):
            yield Observation.answer(choice)
    for kind in game.observation_types:
        if kind in ("move", "answer"):
            continue
        for n in range(len(fields), -1, -1):
            for keys in itertools.combinations(fields, n):
                try:
                    yield Observation.from_json({"type": kind, **{k: fields[k] for k in keys}})
                except CardrefError:
                    continue


def typed_move(game: Game, state: Any, move: Move) -> TypedMove:
    for obs in _attempts(game, state, move):
        candidates = _reads_as(game, state, obs, move)
        if candidates is None:
            continue
        return TypedMove(move, obs, _answer_for(game, state, candidates, move))
    return TypedMove(move, None)


def _answer_for(game: Game, state: Any, candidates: list[Move], move: Move) -> str | None:
    """The label to answer with when the line's readings lead to different outcomes (the
    referee asks then, offering the first reading of each outcome)."""
    first_of: dict[str, Move] = {}
    for c in candidates:
        try:
            first_of.setdefault(game.outcome_key(game.apply(state, c).state), c)
        except IllegalMove:
            continue
    if len(first_of) < 2:
        return None
    try:
        mine = game.outcome_key(game.apply(state, move).state)
    except IllegalMove:
        return None
    return game.choice_label(state, first_of[mine]) if mine in first_of else None


def _order(t: TypedMove) -> tuple:
    """Moves by kind, then by place, then cards by rank as players count them (A, 2 .. 10, J,
    Q, K) and suit."""
    obs = t.observation
    if obs is None:
        return (2, t.move.describe(), 0, 0)
    if obs.type == "move" and obs.card is not None:
        rank = RANKS.index(obs.card.rank) if obs.card.rank in RANKS else len(RANKS)
        suit = SUITS.index(obs.card.suit) if obs.card.suit in SUITS else len(SUITS)
        return (0, f"{obs.src} {obs.dst}", rank, suit)
    return (1, obs.short(), 0, 0)


def typed_moves(game: Game, state: Any) -> list[TypedMove]:
    """Every legal move now in its typed form, each line once, in reading order."""
    out: dict[str, TypedMove] = {}
    for move in game.legal_moves(state):
        t = typed_move(game, state, move)
        key = t.text()
        out.setdefault(key, t)
    return sorted(out.values(), key=_order)
