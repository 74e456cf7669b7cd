"""Houska Castle (solitaire): the Hero against the monster deck, refereed from the table.

Rules, formats and decisions: ``docs/rules/houska_castle.md``.
The rules live in ``rules.py``, the reading of observations in ``observe.py``; this module
wires them to the core and checks the state (cards conserved, arithmetic consistent).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from referee.announcements import Announcement, announce, legal
from referee.cards import Card, full_deck
from referee.core import Game, Move, Outcome
from referee.errors import IllegalMove, InvariantError
from referee.games.houska_castle.moves import (
    FieldDraw,
    Play,
    SetUp,
    TurnUp,
)
from referee.games.houska_castle.observe import interpret_observation, validate_observation
from referee.games.houska_castle.rules import Rules, plural
from referee.games.houska_castle.sim import HouskaSimulator
from referee.games.houska_castle.state import (
    FIELDS,
    HERO,
    HERO_CARD,
    JOKER,
    MONSTER,
    START_BUFF,
    START_MAX_HP,
    ZONES,
    HouskaState,
)
from referee.games.houska_castle.variants import Variants
from referee.observations import Observation

ALL_CARDS: frozenset[Card] = frozenset(full_deck(0))
DECK: tuple[Card, ...] = tuple(full_deck(2))  # the 54 cards on the table, jokers included


class HouskaCastle(Game):
    name = "houska_castle"
    variants = Variants
    # The set-up reports the marker card and the monster pile's size: any of them.
    unlisted = frozenset({SetUp})
    players = (HERO,)
    zones = ZONES
    observation_types = ("move", "answer", "end_turn", "setup", "no_marker", "appeared")
    rules_class = Rules
    rules: Rules
    state_class = HouskaState

    def _legal_moves(self, state: HouskaState) -> list[Move]:
        return self.rules.legal(state)

    def _listed(self, state: HouskaState, move: Move) -> bool:
        """``legal`` keeps the candidates ``reason`` passes, and ``_apply`` has just passed it:
        whether it is a candidate is the same answer, without asking of every other."""
        return move in self._once_per_state(state, "candidates", lambda: self.rules.candidates(state))

    def _apply(self, state: HouskaState, move: Move) -> list[Announcement]:
        why = self.rules.reason(state, move)
        if why is not None:
            raise IllegalMove(why)
        before = self.rules.expect(state)
        notes: list[Announcement] = []
        self.rules.effect(state, move, notes)
        after = self.rules.expect(state)
        if after and after != before:
            notes.append(legal(after, phase=state.phase))
        return notes

    # ---- observations ------------------------------------------------------------------
    def validate(self, obs: Observation, loc: str = "") -> None:
        super().validate(obs, loc)
        validate_observation(obs, loc)

    def interpret(self, state: HouskaState, obs: Observation) -> list[Move]:
        return interpret_observation(self.rules, state, obs)

    def choice_label(self, state: HouskaState, move: Move) -> str:
        if isinstance(move, Play) and self.rules.reorder_open(state):
            first = move.card if move.first else state.duties[0].card
            return f"{first}_first"  # "which card did you place first?"
        if isinstance(move, TurnUp):
            return "turned_up"  # an ``appeared`` card: the hidden observation card turned up
        if isinstance(move, FieldDraw):
            return "drawn"  # ... or drawn face up from combat_pile
        return move.describe()

    # ---- what a camera compares with the table -------------------------------------------
    def cards_by_zone(self, state: HouskaState) -> dict[str, list[Card]]:
        """The face-up cards where they lie (fields in placement order; the new Max HP
        marker on the old one for a moment), and every other card in combat_pile: the two
        face-down piles, the hidden observation card and the nullified cards lying face down
        on a field are all out of a camera's sight (a card revealed from monster_pile is
        told apart by the rules)."""
        s = state
        zones: dict[str, list[Card]] = {z: [] for z in sorted(self.zones)}
        if s.phase != "setup":
            zones["hero_card"] = [HERO_CARD]
            zones["hero_points"] = [JOKER] * s.hero_points
            zones["hero_points_used"] = [JOKER] * s.hero_points_used
        zones["max_hp_card"] = list(s.marker)
        zones["artifacts"] = list(s.artifacts)
        zones["hand"] = list(s.hand)
        zones["monster_slot"] = [s.monster] if s.monster is not None else []
        zones["monster_rewards"] = list(s.rewards)
        for f in s.table:
            if f.card is not None and f.face_up:
                zones[f.zone].append(f.card)
        shown = Counter(c for cards in zones.values() for c in cards)
        zones["combat_pile"] = sorted((Counter(DECK) - shown).elements(), key=str)
        return zones

    def unseen_source(self, card: Card, dst: str) -> Observation | None:
        """A card come into view on a field was drawn from combat_pile or is the hidden
        observation card turned up: ``appeared``, the rules decide or ask."""
        return Observation("appeared", card, dst=dst) if dst in FIELDS else None

    def turned_down(self, card: Card, zone: str) -> Observation | None:
        """A field card gone from view may have been turned face down where it lay (a Jack
        nullified it): the same move as typed, ``KD hero_field -> hero_field``."""
        return Observation.move(card, zone, zone) if zone in FIELDS else None

    # ---- announcements, end and checks -------------------------------------------------
    def start_announcements(self, state: HouskaState) -> list[Announcement]:
        return [
            announce(
                "Houska Castle: place KH on hero_card, both jokers on hero_points and a 5 on "
                "max_hp_card; shuffle the other 50 cards and split them into monster_pile and "
                "combat_pile", phase=state.phase),
            legal(self.rules.expect(state), phase=state.phase),
        ]

    def outcome(self, state: HouskaState) -> Outcome | None:
        if state.result == "victory":
            return Outcome(HERO, f"Victory: {plural(state.defeated, 'monster')} defeated, "
                                 f"{plural(state.hero_points, 'Hero Point')} left")
        if state.result == "defeat":
            return Outcome(MONSTER, f"Defeat in encounter {state.encounter} "
                                    f"({plural(state.defeated, 'monster')} defeated)")
        return None

    def stats(self, state: HouskaState) -> dict[str, Any]:
        return {
            "encounters": state.encounter,
            "defeated": state.defeated,
            "exchanges": state.exchanges,
            "max_hp": state.max_hp,
            "artifacts": len(state.artifacts),
            "points_used": state.hero_points_used,
            "hp_lost": state.hp_lost,
            "victory": int(state.result == "victory"),
        }

    def check_invariants(self, state: HouskaState) -> None:
        s = state
        if s.hero_points + s.hero_points_used != 2 or s.hero_points < 0:
            raise InvariantError(f"jokers: {s.hero_points} unused + {s.hero_points_used} used != 2")
        if s.phase == "setup":
            return
        seen = [HERO_CARD, *s.marker, *s.artifacts, *s.hand, *s.rewards]
        if s.monster is not None:
            seen.append(s.monster)
        seen += [f.card for f in s.table if f.card is not None]
        # One union of cached hashes: 52 distinct cards (51 + KH) means none lost or doubled.
        known = set(seen)
        total = len(seen) + len(s.pool) + len(s.combat_known)
        everything = known | s.pool | s.combat_known
        if len(known) != len(seen) or len(everything) != total or total != len(ALL_CARDS):
            every = seen + list(s.pool) + list(s.combat_known)
            dup = sorted({str(c) for c in every if every.count(c) > 1})
            missing = sorted(map(str, ALL_CARDS - everything))
            raise InvariantError(f"cards not conserved: in two zones {dup}, missing {missing}")
        hidden = s.hidden_count()
        if len(s.pool) + len(s.combat_known) != s.monster_pile + s.combat_pile + hidden:
            raise InvariantError(
                f"unseen {len(s.pool)}+{len(s.combat_known)} != monster_pile {s.monster_pile} + "
                f"combat_pile {s.combat_pile} + face-down {hidden}")
        if min(s.monster_pile, s.combat_pile) < 0 or len(s.pool) < s.monster_pile:
            raise InvariantError(f"pile counts impossible: monster {s.monster_pile}, pool {len(s.pool)}")
        if s.max_hp != START_MAX_HP + len(s.artifacts):
            raise InvariantError(f"Max HP {s.max_hp} != 5 + {len(s.artifacts)} artifacts")
        buff = dict(START_BUFF)
        for ace in s.artifacts:
            buff[ace.suit] += 1
        if buff != s.buff:
            raise InvariantError(f"buffs {s.buff} != {buff} from the artifacts")
        if len(s.hand) > s.max_hp:
            raise InvariantError(f"hand {len(s.hand)} > Max HP {s.max_hp}")
        if any(c.rank == "A" for c in s.hand) or any(c.rank != "A" for c in s.artifacts + s.rewards):
            raise InvariantError("an ace in the hand, or a non-ace among artifacts/rewards")
        if any(f.card is not None and f.card.rank == "A" and f.role != "ace" for f in s.table):
            raise InvariantError("an ace fights on a field")
        played = sum(f.monster_play for f in s.table)
        if s.phase in ("observe", "hero", "monster", "death") and played != s.monster_played:
            raise InvariantError(f"monster_played {s.monster_played} != {played} plays on the field")
        if s.monster is not None and s.budget != s.monster.value:
            raise InvariantError(f"budget {s.budget} != value of {s.monster}")
        for side, queens in s.steals.items():
            for q in queens:
                f = s.find(q)
                on_side = (f is not None and f.side == side) or (side == MONSTER and q == s.monster)
                if not on_side or q.rank != "Q":
                    raise InvariantError(f"queued steal of {q} for the {side} has no Queen on that side")
        if not s.duties:
            for f in s.table:
                if f.zone != ("hero_field" if f.side == HERO else "monster_field"):
                    raise InvariantError(f"{f.card} lies on {f.zone} but counts for the {f.side}")
                if f.nullified == f.face_up and f.card is not None:
                    raise InvariantError(f"{f.card}: nullified={f.nullified} but face_up={f.face_up}")


GAME = HouskaCastle
SIMULATOR = HouskaSimulator
