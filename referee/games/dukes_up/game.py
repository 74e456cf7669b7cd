"""Dukes Up! (two players, a half deck each): castles, dukes, runs and sets, refereed from
the table.

Rules, formats and decisions: ``docs/rules/dukes_up.md``. Melds and
the partition search live in ``melds.py``, the rules in ``rules.py``, the
reading of observations in ``observe.py``; this module ties them to the core and
checks the state (cards conserved, counts consistent).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import referee.games.dukes_up.moves as mv
from referee.announcements import Announcement, announce, legal
from referee.cards import Card
from referee.core import Game, Move, Outcome, to_jsonable
from referee.errors import IllegalMove, InvariantError, ObservationError
from referee.games.dukes_up.melds import is_meld, show, sort_cards
from referee.games.dukes_up.observe import APPEAR_IN, interpret, validate_fields
from referee.games.dukes_up.rules import Rules, side_summary
from referee.games.dukes_up.sim import DukesSimulator
from referee.games.dukes_up.state import (
    HAND_LIMIT,
    MELD_ZONE,
    PLAYERS,
    ZONES,
    DukesState,
    half_deck,
    other,
    owner,
    zone_of,
)
from referee.games.dukes_up.variants import Variants
from referee.observations import Observation

HALVES: dict[str, frozenset[Card]] = {p: frozenset(half_deck(p)) for p in PLAYERS}


class DukesUp(Game):
    name = "dukes_up"
    variants = Variants
    # Any two dukes each may be revealed, and any new grouping of the table read; the listing
    # also leaves out a castle flipped as the draw step ends.
    unlisted = frozenset({mv.RevealDukes, mv.Regroup, mv.FlipCastle})
    players = PLAYERS
    zones = ZONES
    observation_types = ("move", "answer", "end_turn", "dukes_up", "table", "appeared")
    rules_class = Rules
    rules: Rules
    state_class = DukesState

    def _apply(self, state: DukesState, move: Move) -> list[Announcement]:
        notes: list[Announcement] = []
        self.rules.apply(state, move, notes)
        return notes

    def _legal_moves(self, state: DukesState) -> list[Move]:
        """Every single-card movement (and answer, reveal excluded) that is legal now; hidden
        cards are listed by every identity they could have. ``table`` regroupings are not
        enumerated: any rearrangement is a sequence of ``Shift`` moves."""
        out: list[Move] = []
        for move in self._all_candidates(state):
            try:
                self.try_apply(state, move)
            except IllegalMove:
                continue
            out.append(move)
        return out

    def _listed(self, state: DukesState, move: Move) -> bool:
        """The listing is the candidates the rules take: asked of a move they took, whether
        it is a candidate is the same answer, without trying every other. The listing names
        where a card goes, not how the table is read then: a card laid on the table unnamed
        (meld ``table``, grouped when the turn is validated) is listed as one put into a new
        meld; a discard or an end of turn that carries a new reading of the table into melds is
        a regrouping, left to the rules as ``Regroup`` is."""
        if getattr(move, "meld", None) == "table":
            move = dataclasses.replace(move, meld=state.new_meld_id())
        if getattr(move, "melds", None) is not None:
            return True  # it carries a reading of the table into melds: a regrouping, as Regroup
        kind = type(move)
        return move in self._once_per_state(state, kind, lambda: self._all_candidates(state, only=kind))

    def _all_candidates(self, state: DukesState, only: type[Move] | None = None) -> list[Move]:
        candidates = self._candidates(state, only)
        if state.phase == "second_discard" and not state.final_turn:
            # The next player's first action ends the turn that offered a second discard.
            ended = self.copy_state(state)
            self.rules._end_turn(ended, [])
            candidates += self._candidates(ended, only)
        return list(dict.fromkeys(candidates))

    def _candidates(self, s: DukesState, only: type[Move] | None = None) -> list[Move]:
        """The moves to try; with ``only``, at least those of that type (the long lists, a
        card of the hand or of the table into every meld, are made only when asked for)."""

        def want(*types: type[Move]) -> bool:
            return only is None or only in types

        if s.phase == "setup":
            return [m for p in PLAYERS for m in (mv.Draw(p), mv.PlaceDown(p, "castle"),
                                                 mv.PlaceDown(p, "dukes"), mv.PickUp(p, "castle"),
                                                 mv.PickUp(p, "dukes"))]
        if s.phase == "first":
            return [mv.ChooseFirst(p) for p in PLAYERS]
        p, q = s.active, other(s.active)
        me, opp = s.sides[p], s.sides[q]
        targets = [*s.melds, s.new_meld_id()]
        hand = list(me.hand_known) + (sorted(me.hidden) if me.hand_unknown else [])
        moves: list[Move] = [mv.Draw(p), mv.EndTurn()]
        if me.discard:
            moves.append(mv.DrawDiscard(p, me.discard[-1]))
        moves += [mv.FlipCastle(p, c) for c in sorted(me.hidden)] if s.flip_due else []
        for c in hand:
            if want(mv.Meld):
                moves += [mv.Meld(p, c, t) for t in targets]
            switch = mv.SwitchIn(p, c) if me.dukes or s.switch_out else mv.CreateDuke(p, c)
            moves += [switch, mv.Discard(p, "hand", c)]
        moves += [mv.Discard(p, "draw_pile", c) for c in sorted(me.hidden)] if me.draw else []
        for key, cards in s.melds.items():
            for c in cards:
                if want(mv.Shift):
                    moves += [mv.Shift(c, t) for t in targets if t != key]
                moves.append(mv.Discard(p, "table", c))
        if want(mv.TakeDuke):
            for c in opp.dukes:
                moves += [mv.TakeDuke(q, c, t) for t in targets]
        for side, who in ((opp, q), (me, p)):
            if side.castle_up is not None and want(mv.TakeCastle):
                moves += [mv.TakeCastle(who, side.castle_up, t) for t in targets]
        if s.last_stand is not None:
            moves.append(mv.ReturnCastle(p, s.last_stand))
        moves += [mv.SwitchOut(p, c) for c in me.dukes]
        return moves

    # ---- observations ------------------------------------------------------------------
    def validate(self, obs: Observation, loc: str = "") -> None:
        prefix = f"{loc}: " if loc else ""
        if obs.type not in self.observation_types:
            super().validate(obs, loc)
        for key, zone in (("from", obs.src), ("to", obs.dst)):
            if zone is not None and zone not in ZONES and not MELD_ZONE.fullmatch(zone):
                raise ObservationError(
                    f"{prefix}field '{key}': unknown zone {zone!r} for {self.name} "
                    "(expected ZONE_black/ZONE_red with ZONE draw_pile, discard_pile, hand, castle, "
                    "dukes; meld_1, meld_2, ...; or table)")
        validate_fields(obs.type, obs.data, prefix)
        if obs.type == "appeared" and (obs.card is None or obs.src is not None or obs.dst is None
                                       or zone_of(obs.dst)[0] not in APPEAR_IN):
            raise ObservationError(f"{prefix}an appeared observation needs card and to (table, castle_p, "
                                   "dukes_p or discard_pile_p), no from")

    def interpret(self, state: DukesState, obs: Observation) -> list[Move]:
        return interpret(state, obs.type, obs.card, obs.src, obs.dst, obs.data, self.rules.ace_wrap)

    def choice_label(self, state: DukesState, move: Move) -> str:
        if isinstance(move, (mv.Discard, mv.EndTurn)):
            # which source (a card come up on the discard pile: hand or draw pile), and which
            # grouping of the cards laid this turn: the melds the reading makes or changes
            old = {frozenset(v) for v in state.melds.values()}
            groups = "/".join("+".join(map(str, sort_cards(m))) for m in move.melds or ()
                              if frozenset(m) not in old)
            head = f"from_{move.source}" if isinstance(move, mv.Discard) else "end_turn"
            return f"{head}|{groups}" if groups else head
        if isinstance(move, mv.Regroup):
            return "/".join("+".join(map(str, sort_cards(m))) for m in move.melds)
        if isinstance(move, mv.ChooseFirst):
            return move.player
        return move.describe()

    def outcome_key(self, state: DukesState) -> str:
        """The state with the melds as a set of card groups: meld ids are the referee's names
        for clusters (a reading announced with new ids is the same table)."""
        plain = to_jsonable(state)
        plain["melds"] = sorted(sorted(map(str, sort_cards(v))) for v in state.melds.values())
        plain["pool"] = sorted(map(str, state.pool))
        return json.dumps(plain, sort_keys=True, separators=(",", ":"))

    # ---- what a camera compares with the table -------------------------------------------
    def awaited_zone(self, state: DukesState) -> str | None:
        """The active player's dukes while a duke switched out waits for its replacement."""
        return f"dukes_{state.active}" if state.switch_out is not None else None

    def cards_by_zone(self, state: DukesState) -> dict[str, list[Card]]:
        """Every card where a camera can see it, and each player's unseen cards (draw pile,
        the unknown part of the hand, the face-down castle, set-up dukes) in their draw pile: a
        camera tells none of them apart. Every meld, and the pool, lies on the one ``table``
        zone: the camera sees the zone, not the clusters in it."""
        s = state
        zones: dict[str, list[Card]] = {z: [] for z in sorted(self.zones)}
        for p, side in s.sides.items():
            zones[f"draw_pile_{p}"] = sort_cards(side.hidden)
            zones[f"hand_{p}"] = list(side.hand_known)
            zones[f"discard_pile_{p}"] = list(side.discard)
            zones[f"castle_{p}"] = [side.castle_up] if side.castle_up is not None else []
            zones[f"dukes_{p}"] = list(side.dukes)
        zones["table"] = [c for cards in s.melds.values() for c in cards] + list(s.pool)
        return zones

    def face_down_count(self, state: DukesState, zone: str) -> int | None:
        """A player's dukes lie face down only at the set-up; from the reveal on, none."""
        if zone.startswith("dukes_") and zone in self.zones and state.phase != "setup":
            return 0
        return None

    def unseen_source(self, card: Card, dst: str) -> Observation | None:
        """A card come into view from nowhere a camera sees: ``appeared``. The rules read it as
        a hand card laid on the table (into the pool: its meld is read at validation) or made a
        duke, the castle turned up where it lies, or a discard from the hand or the draw pile's
        top (asked when both are legal). A card seen leaving a zone is a plain ``move``."""
        if dst in self.zones and zone_of(dst)[0] in APPEAR_IN:
            return Observation("appeared", card, dst=dst)
        return None

    # ---- announcements, end and checks -------------------------------------------------
    def start_announcements(self, state: DukesState) -> list[Announcement]:
        return [
            announce("Dukes Up!: black has spades and clubs, red hearts and diamonds", event="Setup"),
            legal("Each player shuffles, draws 4 (BACK draw_pile_p -> hand_p), puts 1 castle and 2 dukes "
                  "face-down (BACK hand_p -> castle_p / dukes_p), then dukes_up black=.. red=..",
                  phase=state.phase),
        ]

    def outcome(self, state: DukesState) -> Outcome | None:
        if state.phase != "over":
            return None
        return Outcome(state.winner, state.end_reason, state.by_rules)

    def stats(self, state: DukesState) -> dict[str, Any]:
        scores = state.scores or self.rules.scores(state)
        return {
            "turns": state.turn,
            "score_black": scores["black"],
            "score_red": scores["red"],
            "castle_taken": int(state.castle_taken_by is not None),
            "final_turn": int(state.final_turn),
            "table_cards": len(state.table_cards()),
            "reshuffles": state.reshuffles,
        }

    def describe(self, state: DukesState) -> str:
        """A few lines for a person: both sides and the table."""
        lines = [f"{p}: {side_summary(state.sides[p])}" for p in PLAYERS]
        lines += [f"{k}: {show(v)}" for k, v in state.melds.items()]
        lines += [f"table (ungrouped): {show(state.pool)}"] if state.pool else []
        return "\n".join(lines)

    def check_invariants(self, state: DukesState) -> None:
        s = state
        table = [c for cards in s.melds.values() for c in cards] + list(s.pool)
        if any(not cards for cards in s.melds.values()):
            raise InvariantError("an empty meld is kept")
        for p in PLAYERS:
            side = s.sides[p]
            mine = [c for c in table if owner(c) == p]
            seen = [*side.hand_known, *side.dukes, *side.discard, *mine]
            if side.castle_up is not None:
                seen.append(side.castle_up)
            every = seen + list(side.hidden)
            if len(set(every)) != len(every) or set(every) != HALVES[p]:
                dup = sorted({str(c) for c in every if every.count(c) > 1})
                missing = sorted(map(str, HALVES[p] - set(every)))
                raise InvariantError(f"{p}'s cards not conserved: in two zones {dup}, missing {missing}")
            if side.hand_unknown < 0 or side.draw < 0:
                raise InvariantError(f"{p}: hand {side.hand} < {len(side.hand_known)} known, "
                                     f"or draw {side.draw}")
            face_down = int(side.castle_down) + side.setup_dukes
            if len(side.hidden) != side.draw + side.hand_unknown + face_down:
                raise InvariantError(f"{p}: {len(side.hidden)} hidden cards != draw {side.draw} + unknown "
                                     f"hand {side.hand_unknown} + face-down {face_down}")
            limit = HAND_LIMIT + int(s.switch_out is not None and s.active == p)
            if side.hand > limit:
                raise InvariantError(f"{p} holds {side.hand} cards (limit {limit})")
            if len(side.dukes) > 2 + int(s.switch_in is not None and s.active == p):
                raise InvariantError(f"{p} has {len(side.dukes)} dukes")
            if side.castle_down and side.castle_up is not None:
                raise InvariantError(f"{p}'s castle is both face-down and face-up")
        if s.pool and s.phase not in ("draw", "play"):
            raise InvariantError(f"cards laid ungrouped outside a play phase: {show(s.pool)}")
        if s.phase == "draw" and s.drawn == 0:
            bad = [show(v) for v in s.melds.values() if not is_meld(v, self.rules.ace_wrap)]
            if bad:
                raise InvariantError(f"a turn starts with invalid melds on the table: {bad}")


GAME = DukesUp
SIMULATOR = DukesSimulator
