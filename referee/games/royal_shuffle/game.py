"""Royal Shuffle referee (2 players): villages, the royal court, flip-draw-play turns and
the best settlement of every village, scored exactly.

Rules, formats and decisions: ``docs/rules/royal_shuffle.md`` (A<n> is item n of its settled
questions). The rules are in ``rules.py``, the village
optimiser in ``scoring.py``; this module wires them to the referee core.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from referee.announcements import Announcement, announce, legal
from referee.cards import Card
from referee.core import Game, Move, Outcome
from referee.games.royal_shuffle.invariants import check_state
from referee.games.royal_shuffle.moves import CountHand, Flip, Layout, Play, ShowHand
from referee.games.royal_shuffle.observe import (
    OBSERVATION_TYPES,
    interpret_observation,
    validate_observation,
)
from referee.games.royal_shuffle.rules import Rules
from referee.games.royal_shuffle.sim import ShuffleSimulator
from referee.games.royal_shuffle.state import COURT_ZONES, HAND, OVER, PLACES, PLAYERS, ZONES, ShuffleState
from referee.games.royal_shuffle.variants import Variants
from referee.observations import Observation


class RoyalShuffle(Game):
    name = "royal_shuffle"
    players = PLAYERS
    zones = ZONES
    observation_types = OBSERVATION_TYPES
    variants = Variants
    # A shown hand is any set of cards the hand may hold, a village's layout any pairing of its
    # cards; a count of a hand (a check that changes nothing) is listed once the deal is over,
    # not during it.
    unlisted = frozenset({ShowHand, Layout, CountHand})
    rules_class = Rules
    rules: Rules
    state_class = ShuffleState

    def _legal_moves(self, state: ShuffleState) -> list[Move]:
        return self.rules.legal(state)

    def _apply(self, state: ShuffleState, move: Move) -> list[Announcement]:
        return self.rules.apply(state, move)

    # ---- observations ------------------------------------------------------------------
    def validate(self, obs: Observation, loc: str = "") -> None:
        super().validate(obs, loc)
        validate_observation(obs, loc)

    def interpret(self, state: ShuffleState, obs: Observation) -> list[Move]:
        return interpret_observation(state, obs)

    def cards_by_zone(self, state: ShuffleState) -> dict[str, list[Card]]:
        """The face-up cards where they lie, the cards known in a hand there, and every other
        unseen card in the draw pile (the camera cannot tell the pile from a hand)."""
        zones: dict[str, list[Card]] = {z: [] for z in ZONES}
        leaving = list(state.to_discard)  # replaced monarchs: discarded, still under their successors
        for card in state.face_up():
            zone = state.locate(card) or COURT_ZONES["JK"]
            if zone == "discard_pile" and card in leaving:
                leaving.remove(card)
                zones[COURT_ZONES[card.rank]].insert(0, card)
            else:
                zones[zone].append(card)
        known: Counter[Card] = Counter()
        for p, cards in state.hand_known.items():
            zones[HAND[p]] = list(cards)
            known.update(cards)
        rest = Counter(state.unseen) - known
        zones["draw_pile"] = sorted(rest.elements(), key=str)
        return zones

    def unseen_source(self, card: Card, dst: str) -> Observation | None:
        """``placed``: a card flipped from the pile and one played from a hand look alike."""
        return Observation("placed", card, dst=dst) if dst in PLACES else None

    def choice_label(self, state: ShuffleState, move: Move) -> str:
        """``flip_village_p1`` / ``play_village_p2``: which card was flipped, and where."""
        if isinstance(move, (Flip, Play)):
            return f"{type(move).__name__.lower()}_{move.to}"
        return move.describe()

    # ---- announcements, end and checks -------------------------------------------------
    def start_announcements(self, state: ShuffleState) -> list[Announcement]:
        return [
            announce("Royal Shuffle, 2 players p1 and p2. Shuffle the 54 cards, deal 4 face down "
                     "to each player, the rest is draw_pile. Draw lots for who starts.",
                     event="Setup", variants=dict(self.config.variants)),
            legal(self.rules.expect(state), phase=state.phase),
        ]

    def outcome(self, state: ShuffleState) -> Outcome | None:
        if state.phase != OVER:
            return None
        return Outcome(state.winner, state.end_reason, True)

    def stats(self, state: ShuffleState) -> dict[str, Any]:
        scores = self.rules.scores(state)
        return {
            "turns": state.turn,
            "draw_pile_left": state.draw_pile,
            "village_cards": sum(len(v) for v in state.villages.values()),
            **{f"score_{p}": pts for p, (pts, _) in scores.items()},
            "ended_by_joker": int(state.end_reason.startswith("Joker")),
        }

    def check_invariants(self, state: ShuffleState) -> None:
        check_state(state, self.v)




GAME = RoyalShuffle
SIMULATOR = ShuffleSimulator

__all__ = ["GAME", "SIMULATOR", "RoyalShuffle", "ShuffleSimulator"]
