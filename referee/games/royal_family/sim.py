"""Random legal Royal Family games, as the camera would see them.

The simulator holds what the referee cannot know (the draw pile's order) and where each card
physically lies, so it also performs the clean-up movements the referee announces.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

import referee.games.royal_family.moves as mv
from referee.cards import Card
from referee.core import Move, Simulator
from referee.games.royal_family.state import SUITS_OF, RFState, suit_name
from referee.observations import Observation

# Weights of the random policy: aggressive enough that games end by the rules.
WEIGHTS: dict[type, float] = {
    mv.AttackCastle: 6.0, mv.AttackFortification: 4.0, mv.PlaceResident: 4.0, mv.Capture: 2.0,
    mv.Execute: 2.0, mv.Rescue: 3.0, mv.Kidnap: 1.5, mv.ClaimAce: 3.0, mv.TakeAssassin: 1.5,
    mv.Fortify: 1.0, mv.Discard: 0.3, mv.NoBonus: 1.0, mv.TakeFromDraw: 2.5,
}

# Where a card taken and used lands on the table, by the move that uses it.
LANDS: dict[type[mv.Taken], Callable[[Any], str]] = {
    mv.Fortify: lambda m: f"fort_{suit_name(m.card)}",
    mv.AttackFortification: lambda m: f"fort_hits_{m.target}",
    mv.AttackCastle: lambda m: f"castle_damage_{m.target}",
    mv.PlaceResident: lambda m: f"residents_{m.castle}",
    mv.Kidnap: lambda m: f"dungeon_{m.dungeon}",
    mv.ClaimAce: lambda m: f"castle_{suit_name(m.card)}",
}


class RoyalFamilySimulator(Simulator):
    def __init__(self, game, seed: int):
        super().__init__(game, seed)
        state = game.new_state()
        self.deck: list[Card] = list(state.zones["draw_pile"])
        self.rng.shuffle(self.deck)
        self.phys: dict[Card, list[str]] = defaultdict(list)
        for zone, cards in state.zones.items():
            for c in cards:
                self.phys[c].append(zone)

    def _obs(self, card: Card, src: str, dst: str) -> Observation:
        self.phys[card].remove(src)
        self.phys[card].append(dst)
        return Observation.move(card, src, dst)

    def _draw(self, st: RFState) -> Card:
        if not self.deck:  # the referee reshuffles the discard pile: so do we
            self.deck = sorted(st.zones["discard_pile"])
            self.rng.shuffle(self.deck)
            for c in self.deck:
                self.phys[c] = ["draw_pile" if z == "discard_pile" else z for z in self.phys[c]]
        return self.deck.pop()

    def next_observations(self, st: RFState) -> list[Observation]:
        out = [self._obs(Card.parse(c), src, dst) for c, src, dst in list(st.expected)
               if src in self.phys[Card.parse(c)]]
        move = self._choose(st)
        return out + self._observe(st, move)

    def _choose(self, st: RFState) -> Move:
        moves = self.game.legal_moves(st)
        if st.phase in ("flop", "take"):
            draws = [m for m in moves if isinstance(m, (mv.FlopCard, mv.TakeFromDraw))]
            if draws:  # the draw is one option whatever card comes: collapse the chance node
                moves = [m for m in moves if not isinstance(m, (mv.FlopCard, mv.TakeFromDraw))] + draws[:1]
        if any(isinstance(m, mv.TakeAssassin) for m in moves):  # keep the camera's view unambiguous
            moves = [m for m in moves if not (isinstance(m, mv.Discard) and m.card.rank == "2")]
        weights = [WEIGHTS.get(type(m), 1.0) for m in moves]
        return self.rng.choices(moves, weights)[0]

    def _answering(self, st: RFState, obs: Observation, meant: Move) -> list[Observation]:
        """The observation, plus the answer when the referee will ask what it meant."""
        options = self.asked(st, obs)  # the referee offers the first move of each outcome
        if options:
            key = self.game.outcome_key(self.game.apply(st, meant).state)
            label_move = next(o.move for o in options if o.key == key)
            return [obs, Observation.answer(self.game.choice_label(st, label_move))]
        return [obs]

    def _observe(self, st: RFState, m: Move) -> list[Observation]:
        if isinstance(m, mv.FlopCard):
            return [self._obs(self._draw(st), "draw_pile", m.pile)]
        if isinstance(m, mv.TakeFromDraw):
            return [self._obs(self._draw(st), "draw_pile", "staging")]
        if type(m) in LANDS:
            return [self._obs(m.card, m.source, LANDS[type(m)](m))]
        if isinstance(m, mv.TakeAssassin):
            return self._answering(st, self._obs(m.card, m.source, "discard_pile"), m)
        if isinstance(m, mv.Discard):
            return self._answering(st, self._obs(m.card, m.source, m.to), m)
        if isinstance(m, (mv.Assassinate, mv.Execute, mv.SurpriseRemove)):
            member = m.victim if isinstance(m, mv.Assassinate) else m.member
            return [self._obs(member, f"residents_{suit_name(member)}", "discard_pile")]
        if isinstance(m, mv.SurpriseDamage):
            two = st.zones["staging"][-1]
            out = [self._obs(two, "staging", "discard_pile")]
            active = [s for s in SUITS_OF[m.player] if st.castle_status[s] == "active"]
            if len(active) > 1:
                out.append(Observation.answer(m.castle))
            return out
        if isinstance(m, mv.Rescue):
            src = f"dungeon_{st.bonus['target']}"
            home = suit_name(m.member)
            dst = f"residents_{home}" if st.castle_status[home] in ("active", "held") else "discard_pile"
            return [self._obs(m.member, src, dst)]
        if isinstance(m, mv.Capture):
            return [self._obs(m.member, f"residents_{st.bonus['target']}", f"dungeon_{m.dungeon}")]
        if isinstance(m, (mv.NoBonus, mv.Pass)):
            return [Observation("end_turn")]
        raise AssertionError(f"simulator cannot show {m}")


SIMULATOR = RoyalFamilySimulator
