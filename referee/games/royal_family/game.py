"""Royal Family referee (docs/rules/royal_family.md): the game as the core sees it. The rules
are in ``rules.py``, the reading of observations in ``observe.py``."""

from __future__ import annotations

from typing import Any

from referee.announcements import Announcement, announce
from referee.cards import Card, full_deck
from referee.config import GameConfig
from referee.core import Game, Move, Movement, Outcome, state_json
from referee.games.royal_family.moves import CleanUp
from referee.games.royal_family.observe import Interpreter
from referee.games.royal_family.rules import Rules, Sequence, choice_label
from referee.games.royal_family.sim import RoyalFamilySimulator
from referee.games.royal_family.state import (
    CASTLE_SUITS,
    PLAYERS,
    ZONES,
    RFState,
)
from referee.games.royal_family.variants import Variants
from referee.observations import Observation


class RoyalFamily(Game):
    name = "royal_family"
    variants = Variants
    players = PLAYERS
    zones = frozenset(ZONES)
    # A clean-up is an instruction the referee gave (state.expected); a sequence is two moves
    # one observation implies, each checked by the rules as it is applied.
    unlisted = frozenset({CleanUp, Sequence})
    rules_class = Rules
    rules: Rules

    def __init__(self, config: GameConfig):
        super().__init__(config)
        self.reader = Interpreter(self.rules)

    # ---- set-up and queries ------------------------------------------------------------
    def new_state(self) -> RFState:
        zones: dict[str, list[Card]] = {z: [] for z in ZONES}
        zones["castle_spades"] = [Card("A", "S")]
        zones["castle_hearts"] = [Card("A", "H")]
        zones["draw_pile"] = sorted(c for c in full_deck() if str(c) not in ("AS", "AH"))
        status = {"spades": "active", "hearts": "active", "clubs": "absent", "diamonds": "absent"}
        return RFState(
            zones=zones,
            castle_status=status,
            surprise_damage={s: 0 for s in CASTLE_SUITS},
            hp={s: 10 for s in CASTLE_SUITS},
            fort_tracked={s: 0 for s in CASTLE_SUITS},
        )

    def outcome_key(self, state: RFState) -> str:
        plain = state.copy()
        plain.expected = []  # clean-up instructions differ in wording, not in outcome
        return state_json(plain)

    def asked_movements(self, state: RFState) -> list[Movement]:
        return [Movement(*e) for e in state.expected]

    def awaited_zone(self, state: RFState) -> str | None:
        """The next flop pile while a round's flop of three is under way: a deal half made."""
        return f"flop_{state.flop_next}" if state.phase == "flop" and state.flop_next > 1 else None

    def start_announcements(self, state: RFState) -> list[Announcement]:
        return [announce("Royal Family: AS and AH are in play. Round 1: flop three cards.",
                         round=1, age=state.age, phase="flop")]

    def outcome(self, state: RFState) -> Outcome | None:
        if state.phase != "over":
            return None
        return Outcome(state.winner, state.end_reason or "", state.by_rules)

    def stats(self, state: RFState) -> dict[str, Any]:
        return {"rounds": state.round}

    def _legal_moves(self, st: RFState) -> list[Move]:
        return self.rules.legal(st)

    def _apply(self, st: RFState, move: Move) -> list[Announcement]:
        return self.rules.apply(st, move)

    def interpret(self, st: RFState, obs: Observation) -> list[Move]:
        return self.reader.interpret(st, obs)

    def choice_label(self, state: Any, move: Move) -> str:
        return choice_label(move)

    def check_invariants(self, st: RFState) -> None:
        self.rules.check_invariants(st)


GAME = RoyalFamily
SIMULATOR = RoyalFamilySimulator
