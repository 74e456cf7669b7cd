"""A random Hero for Houska Castle, and the hidden truth the camera cannot see.

The simulator keeps the real order of both face-down piles and the identity of the hidden
observation card. Each step it asks the rules for the legal moves, with chance outcomes
restricted to its truth (the card really on top), picks one at random (weighted by kind so
that games reach every phase), and returns what a camera would see. When the observation
is ambiguous to the referee (an ASK), it answers with the move it meant.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import referee.games.houska_castle.moves as mv
from referee.cards import SUITS, Card, full_deck
from referee.core import Game, Move, Simulator
from referee.games.houska_castle.state import HERO_CARD, HouskaState, rank_text
from referee.observations import Observation

# How often each kind of move is picked when several kinds are legal.
WEIGHTS: dict[type, float] = {
    mv.Play: 4.0, mv.Draw: 4.0, mv.DrawAce: 4.0, mv.EndTurn: 1.0, mv.RevealMonster: 1.5,
    mv.MonsterPileAce: 1.5, mv.UseHeroPoint: 0.04, mv.TurnUp: 1.5, mv.Concede: 0.5, mv.Cross: 1.0,
}
DEATH_WEIGHTS: dict[type, float] = {mv.UseHeroPoint: 6.0, mv.EndTurn: 0.5, mv.Concede: 0.5}


def _mv(card: Card | str, src: str, dst: str) -> Observation:
    return Observation.move(card, src, dst)


class HouskaSimulator(Simulator):
    """Plays random legal games of Houska Castle and reports them as camera observations."""

    def __init__(self, game: Game, seed: int):
        super().__init__(game, seed)
        self.monster_pile: list[Card] = []  # top is the end of the list
        self.combat: list[Card] = []  # top is the end, bottom is index 0
        self.facedown: list[Card] = []  # face-down observation cards, in the order drawn
        self.shuffles = 0

    # ---- truth -------------------------------------------------------------------------
    def _chance(self, source: str, rank: int) -> list[Card]:
        if source == "combat":
            return self.combat[-1:]
        if source == "monster":
            return self.monster_pile[-1:]
        if source == "hidden":
            return self.facedown[:1]
        return [c for c in self.combat if c.rank == rank_text(rank)]

    def _setup(self) -> Observation:
        marker = Card("5", self.rng.choice(SUITS))
        deck = [c for c in full_deck(0) if c not in (HERO_CARD, marker)]
        self.rng.shuffle(deck)
        # Mostly the spec's 25/25 split; sometimes a short monster pile so that victories
        # (and the last-card-is-an-ace path) happen often enough to be exercised.
        n = 25 if self.rng.random() < 0.6 else self.rng.randint(1, 25)
        self.monster_pile, self.combat = deck[:n], deck[n:]
        return Observation.of("setup", marker=str(marker), monster_pile=n)

    # ---- one step ----------------------------------------------------------------------
    def next_observations(self, state: HouskaState) -> list[Observation]:
        if state.phase == "over":
            return []
        if state.phase == "setup":
            return [self._setup()]
        if state.shuffles != self.shuffles:
            self.rng.shuffle(self.combat)
            self.shuffles = state.shuffles
        if len(self.combat) != state.combat_pile or len(self.monster_pile) != state.monster_pile:
            raise AssertionError(
                f"referee counts piles {state.monster_pile}/{state.combat_pile}, "
                f"truth {len(self.monster_pile)}/{len(self.combat)}")
        rules = self.game.rules  # type: ignore[attr-defined]
        moves = [m for m in rules.legal(state, self._chance) if self._possible(state, m)]
        if not moves:
            raise AssertionError(f"no legal move in phase {state.phase} (duties {state.duties})")
        move = self._choose(state, moves)
        out = self._observe(state, move)
        return out + self._answer_if_asked(state, out[0], move)

    def _possible(self, state: HouskaState, m: Move) -> bool:
        """Player choices are always possible; "no marker found" only if it is true."""
        if isinstance(m, mv.NoMarker):
            rank = rank_text(state.duties[0].rank)
            return not any(c.rank == rank for c in self.combat)
        return True

    def _choose(self, state: HouskaState, moves: list[Move]) -> Move:
        groups: dict[type, list[Move]] = defaultdict(list)
        for m in moves:
            groups[type(m)].append(m)
        kinds = list(groups)
        table = DEATH_WEIGHTS if state.phase == "death" else WEIGHTS
        kind = self.rng.choices(kinds, weights=[table.get(k, 1.0) for k in kinds])[0]
        return self.rng.choice(groups[kind])

    def _observe(self, state: HouskaState, m: Any) -> list[Observation]:
        """The camera's view of move ``m``; updates the truth."""
        if isinstance(m, (mv.Draw, mv.DrawAce, mv.MarkerIn, mv.MonsterAce)):
            self.combat.remove(m.card)
            dst = {mv.Draw: "hand", mv.DrawAce: "artifacts", mv.MarkerIn: "max_hp_card",
                   mv.MonsterAce: "monster_rewards"}[type(m)]
            return [_mv(m.card, "combat_pile", dst)]
        if isinstance(m, mv.FieldDraw):
            c = self.combat.pop()
            if m.card is None:
                self.facedown.append(c)
                return [_mv("BACK", "combat_pile", m.to)]
            return [_mv(c, "combat_pile", m.to)]
        if isinstance(m, (mv.RevealMonster, mv.MonsterPileAce)):
            self.monster_pile.pop()
            dst = "monster_slot" if isinstance(m, mv.RevealMonster) else "monster_rewards"
            return [_mv(m.card, "monster_pile", dst)]
        if isinstance(m, mv.MarkerOut):
            self.combat.insert(0, m.card)
            return [_mv(m.card, "max_hp_card", "combat_pile")]
        if isinstance(m, mv.Cleanup):
            self.combat.insert(0, m.card)
            f = state.find(m.card)
            if f is not None and not f.face_up and self.rng.random() < 0.5:
                earliest = next(g for g in state.table if g.zone == f.zone and not g.face_up)
                if earliest is f:
                    return [_mv("BACK", m.src, "combat_pile")]
            return [_mv(m.card, m.src, "combat_pile")]
        if isinstance(m, mv.TurnUp):
            self.facedown.remove(m.card)
            return [_mv(m.card, "monster_field", m.to)]
        if isinstance(m, mv.TurnDown):
            return [_mv(m.card, m.zone, m.zone)]
        if isinstance(m, mv.Play):
            return [_mv(m.card, "hand", m.to)]
        if isinstance(m, mv.Cross):
            f = state.find(m.card)
            assert f is not None
            return [_mv(m.card, f.zone, m.to)]
        if isinstance(m, mv.AceToRewards):
            return [_mv(m.card, "monster_field", "monster_rewards")]
        if isinstance(m, mv.CollectReward):
            return [_mv(m.card, "monster_rewards", "artifacts")]
        if isinstance(m, mv.UseHeroPoint):
            return [_mv("JK", "hero_points", "hero_points_used")]
        if isinstance(m, mv.EndTurn):
            return [Observation("end_turn")]
        if isinstance(m, mv.Concede):
            return [Observation.answer("defeat")]
        if isinstance(m, mv.NoMarker):
            return [Observation.of("no_marker")]
        raise AssertionError(f"no observation for {m.describe()}")

    def _answer_if_asked(self, state: HouskaState, obs: Observation, meant: Move) -> list[Observation]:
        """If the referee will ask which move ``obs`` meant, the answer that picks ``meant``."""
        if not self.asked(state, obs):
            return []
        return [Observation.answer(self.game.choice_label(state, meant))]

