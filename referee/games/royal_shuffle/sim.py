"""Random legal Royal Shuffle games, as a camera would see them.

The simulator holds the hidden truth (the shuffled pile, both hands) and plays random legal
turns against the referee's state: it deals (card by card or all at once), declares who
starts, flips, draws and plays in a random legal order, carries replaced monarchs to the
discard pile (or forgets to), and now and then shows a hand, counts one, confirms the end
of a turn or (``settlement: as_laid_out``) reports how a village lies. Some observations are
vague (a face-up card whose origin was not seen, a card on the midline between villages)
so that the referee asks; the simulator answers with the truth.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.cards import Card
from referee.core import DealingSimulator, Move
from referee.games.royal_shuffle.moves import Flip, Play
from referee.games.royal_shuffle.rules import places_for
from referee.games.royal_shuffle.scoring import best_settlement
from referee.games.royal_shuffle.state import (
    ANY_VILLAGE,
    BACK,
    DEAL,
    FLIP,
    HAND,
    HAND_SIZE,
    OVER,
    PLAYERS,
    VILLAGE,
    ShuffleState,
)
from referee.observations import Observation

if TYPE_CHECKING:
    from referee.games.royal_shuffle.game import RoyalShuffle

VAGUE = 0.1  # share of placements the camera reports without origin or village owner
EXTRA = 0.03  # share of steps preceded by a check the camera cannot make itself


class ShuffleSimulator(DealingSimulator):
    """Two random but legal players, with the truth the camera cannot see."""

    game: RoyalShuffle

    def __init__(self, game: RoyalShuffle, seed: int):
        super().__init__(game, seed, jokers=2)
        self.first = self.rng.choice(PLAYERS)

    def next_observations(self, state: ShuffleState) -> list[Observation]:
        s = state
        if s.phase == OVER:
            return []
        if s.phase == DEAL:
            return self._deal(s)
        extra = self._extra(s)
        if extra:
            return extra
        todo = s.still_to_do()
        strict = self.game.v.step_order == "strict"
        step = todo[0] if strict or self.rng.random() < 0.7 else self.rng.choice(todo)
        assert s.active is not None
        p = s.active
        if step == FLIP:
            c = self.pile.pop(0)
            return self._place(s, Flip(p, c, self._dest(c, p)))
        if step == "draw":
            self.hands[p].append(self.pile.pop(0))
            return [Observation.move(BACK, "draw_pile", HAND[p])]
        c = self.hands[p].pop(self.rng.randrange(len(self.hands[p])))
        return self._place(s, Play(p, c, self._dest(c, p)))

    # ---- set-up --------------------------------------------------------------------------
    def _deal(self, s: ShuffleState) -> list[Observation]:
        if s.first is None and self.rng.random() < 0.25:
            return [Observation.of("first", player=self.first)]
        short = [p for p in PLAYERS if s.hand_count[p] < HAND_SIZE]
        if not short:
            return [Observation.of("first", player=self.first)]
        if all(n == 0 for n in s.hand_count.values()) and self.rng.random() < 0.3:
            for _ in range(HAND_SIZE):
                for p in PLAYERS:
                    self.hands[p].append(self.pile.pop(0))
            return [Observation.of("deal")]
        p = self.rng.choice(short)
        self.hands[p].append(self.pile.pop(0))
        return [Observation.move(BACK, "draw_pile", HAND[p])]

    # ---- things the camera cannot see by itself --------------------------------------------
    def _extra(self, s: ShuffleState) -> list[Observation]:
        if s.to_discard and self.rng.random() < 0.6:
            c = s.to_discard[0]
            return [Observation.move(c, "court_king" if c.rank == "K" else "court_queen", "discard_pile")]
        r = self.rng.random()
        p = self.rng.choice(PLAYERS)
        if r < EXTRA:
            return [Observation.of("hand", player=p, cards=[str(c) for c in self.hands[p]])]
        if r < 2 * EXTRA:
            return [Observation.of("hand_count", player=p, count=len(self.hands[p]))]
        if r < 3 * EXTRA and not s.done:
            return [Observation.of("end_turn")]
        if self.game.v.settlement == "as_laid_out" and r < 0.2 and s.villages[p]:
            best = best_settlement(s.villages[p], s.court())
            return [Observation.of("layout", player=p, **{str(a): str(b) for a, b in best.homes})]
        return []

    # ---- placements ----------------------------------------------------------------------
    def _dest(self, c: Card, p: str) -> str:
        places = places_for(c)
        if len(places) == 1:
            return places[0]
        return VILLAGE[p] if self.rng.random() < 0.6 else places[1 - PLAYERS.index(p)]

    def _place(self, s: ShuffleState, truth: Flip | Play) -> list[Observation]:
        src = "draw_pile" if isinstance(truth, Flip) else HAND[truth.player]
        precise = Observation.move(truth.card, src, truth.to)
        r = self.rng.random()
        if r >= VAGUE:
            return [precise]
        to = ANY_VILLAGE if truth.to in VILLAGE.values() and r < VAGUE / 2 else truth.to
        if r < VAGUE / 3 or to == truth.to:
            vague = Observation("placed", truth.card, None, to)
        else:
            vague = Observation.move(truth.card, src, to)
        return self._say(s, vague, truth, precise)

    def _say(self, s: ShuffleState, obs: Observation, truth: Move, precise: Observation) -> list[Observation]:
        """``obs``, followed by the answer when the referee will ask about it."""
        options = self.asked(s, obs)
        if not options:
            return [obs]
        moves = [o.move for o in options]
        if truth not in moves:  # the referee cannot tell it: say it precisely instead
            return [precise]
        if self.rng.random() < 0.3:
            return [obs, precise]  # a gesture that only one reading explains
        if self.rng.random() < 0.5:
            return [obs, Observation.answer(moves.index(truth) + 1)]
        return [obs, Observation.answer(self.game.choice_label(s, truth))]

