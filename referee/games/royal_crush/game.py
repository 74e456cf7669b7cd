"""Royal Crush referee: conquests with attacker, victim and allies, royal powers, the ladder.

The rules, conquest steps C1-C9 and settled questions A1-A22 below refer to
``docs/rules/royal_crush.md``. What the camera cannot see arrives as game observations (see
its part A): dice readings, the declared victim, alliances, the reveal of the
face-down commitments. Hands stay hidden: the referee counts cards and tracks which
identities are still unseen, so a revealed card that cannot be in that hand is refused.
"""

from __future__ import annotations

from typing import Any

import referee.games.royal_crush.moves as mv
from referee.announcements import Announcement, announce, legal
from referee.cards import Card
from referee.config import GameConfig
from referee.core import Game, Move, Outcome
from referee.games.royal_crush.invariants import check_state
from referee.games.royal_crush.observe import interpret_observation, validate_observation
from referee.games.royal_crush.rules import MAX_PLAYERS, Rules, player_ids, zone_ids
from referee.games.royal_crush.sim import CrushSimulator
from referee.games.royal_crush.state import DEAL, DECK_SIZE, OVER, CrushState
from referee.games.royal_crush.variants import Variants
from referee.observations import Observation


class RoyalCrush(Game):
    """Royal Crush for 3 to 7 players (4 by default), seated p1..pN clockwise."""

    name = "royal_crush"
    variants = Variants
    # Any set of revealed commitments; a commitment with its side named (listed without), and a
    # corrected roll (a misread die; listed are the rolls still due).
    unlisted = frozenset({mv.Reveal, mv.Commit, mv.Roll})
    players = player_ids(4)
    zones = zone_ids(player_ids(MAX_PLAYERS))
    observation_types = (
        "move", "answer", "end_turn", "deal", "dice", "declare", "join", "leave", "invite",
        "exclude", "lock_sides", "countdown", "reveal", "ladder",
    )
    rules_class = Rules
    rules: Rules

    def __init__(self, config: GameConfig):
        super().__init__(config)
        self.players = self.rules.players
        self.zones = self.rules.zones
        self.dice_count = self.rules.dice_count
        self.hand_size = self.rules.hand_size

    # ---- state ---------------------------------------------------------------------------
    def new_state(self) -> CrushState:
        return CrushState(
            players=self.players,
            hand_size=self.hand_size,
            ladder={p: 0 for p in self.players},
            hand={p: 0 for p in self.players},
            hand_known={p: [] for p in self.players},
            draw_top=DECK_SIZE,
        )

    def copy_state(self, state: CrushState) -> CrushState:
        return state.clone()

    def outcome(self, state: CrushState) -> Outcome | None:
        if state.phase != OVER:
            return None
        winner = "+".join(state.winners) if state.winners else None
        return Outcome(winner, state.end_reason, state.by_rules)

    def stats(self, state: CrushState) -> dict[str, Any]:
        out: dict[str, Any] = {"conquests": state.conquests}
        out.update(sorted(state.counters.items()))
        out["top_ladder"] = max(state.ladder.values())
        return out

    def start_announcements(self, state: CrushState) -> list[Announcement]:
        n = len(self.players)
        return [
            announce(
                f"Royal Crush, {n} players {', '.join(self.players)} (clockwise). Shuffle the 54 "
                f"cards and deal {self.hand_size} face-down to each player; the rest is the draw pile.",
                **self.rules._status(state),
            ),
            legal(f"Deal {self.hand_size} cards to each of {', '.join(self.players)}", phase=DEAL),
        ]

    def choice_label(self, state: CrushState, move: Move) -> str:
        if isinstance(move, mv.Join):
            return move.side
        if isinstance(move, (mv.Invite, mv.Exclude)):
            return move.by
        if isinstance(move, (mv.Roll, mv.Flip, mv.Sweep, mv.ReturnCard, mv.Commit, mv.Uncommit, mv.Draw,
                             mv.DealCard)):
            return move.player
        return move.describe()

    # ---- observations --------------------------------------------------------------------
    def validate(self, obs, loc: str = "") -> None:
        super().validate(obs, loc)
        validate_observation(self, obs, loc)

    def interpret(self, state: CrushState, obs) -> list[Move]:
        return interpret_observation(self, state, obs)

    # ---- what a camera compares with the table -------------------------------------------
    def cards_by_zone(self, state: CrushState) -> dict[str, list[Card]]:
        """The revealed cards in their owners' slots ``commit_pN`` (the referee keeps whose
        they are, not whether they lie in the slot or on the side mat: the camera follows
        where it saw them), the cards known to have gone back to a hand there, and every other
        card in the draw pile: the known ones under it, bottom first, then the unseen ones
        (hands, the unknown top and the face-down commitments, which a camera cannot tell
        apart)."""
        zones: dict[str, list[Card]] = {z: [] for z in sorted(self.zones)}
        q = state.conquest
        if q is not None:
            for p, slot in q.slots.items():
                zones[f"commit_{p}"] = list(slot.shown)
        for p, known in state.hand_known.items():
            zones[f"hand_{p}"] = list(known)
        under = [c for batch in reversed(state.draw_under) for c in batch]
        unseen = sorted((c for c, n in state.unseen().items() for _ in range(n)), key=str)
        zones["draw_pile"] = under + unseen
        return zones

    def unseen_source(self, card: Card, dst: str) -> Observation | None:
        """A card comes into view in a slot or on a side mat only by being turned up where it
        lay face down (commitments are placed face down): the flip, ``card dst -> dst``."""
        if dst.startswith("commit_") or dst.startswith("side_"):
            return Observation.move(card, dst, dst)
        return None

    # ---- rules -------------------------------------------------------------------------
    def _legal_moves(self, state: CrushState) -> list[Move]:
        return self.rules.legal(state)

    def _apply(self, state: CrushState, move: Move) -> list[Announcement]:
        return self.rules.apply(state, move)

    def check_invariants(self, state: CrushState) -> None:
        check_state(state)


GAME = RoyalCrush
SIMULATOR = CrushSimulator

__all__ = ["GAME", "SIMULATOR", "CrushSimulator", "RoyalCrush"]
