"""Royal Family's rules (docs/rules/royal_family.md): what is legal in a state, and what each
move does to it. The phase of the state says what may happen; one handler a move type."""

from __future__ import annotations

from collections import Counter
from typing import Any

import referee.games.royal_family.moves as mv
from referee.announcements import Announcement, announce, ask, damage, legal, result, state_change
from referee.cards import Card, full_deck
from referee.core import Move, handler, handles, move_table
from referee.errors import IllegalMove, InvariantError
from referee.games.royal_family.state import (
    ALLIANCE,
    CASTLE_SUITS,
    FLOPS,
    HOUSE,
    OWNER,
    PLAYERS,
    STATION,
    SUIT_LETTER,
    SUITS_OF,
    RFState,
    other,
    suit_name,
)
from referee.games.royal_family.variants import Variants

DECK = Counter(full_deck())


class Sequence(Move):
    """Two moves one observation implies (an attack's bonus ends, then the next turn starts)."""

    first: Move
    then: Move


def who(p: str) -> str:
    return f"{p.capitalize()} ({HOUSE[p]})"


def cards_text(cards: list[Card]) -> str:
    return ", ".join(str(c) for c in cards)


class Rules:
    """The rules of one configured game (``v``: its variants)."""

    def __init__(self, variants: Variants):
        self.v = variants
        self.handlers = move_table(self)

    def troop_range(self) -> range:
        return range(3, 10) if self.v.troop_range == "3_9" else range(3, 11)

    def is_troop(self, c: Card) -> bool:
        return c.suit != "" and c.value in self.troop_range()

    def fort_remaining(self, st: RFState, s: str) -> int:
        fort = st.zones[f"fort_{s}"]
        if not fort:
            return 0
        hits = sum(c.value for c in st.zones[f"fort_hits_{s}"]) + st.fort_tracked[s]
        return fort[0].value - hits

    def damage_total(self, st: RFState, s: str) -> int:
        return sum(c.value for c in st.zones[f"castle_damage_{s}"]) + st.surprise_damage[s]

    def residents(self, st: RFState, p: str) -> list[Card]:
        return [c for s in SUITS_OF[p] for c in st.zones[f"residents_{s}"]]

    def enemy_castles(self, st: RFState, p: str) -> list[str]:
        return [s for s in SUITS_OF[other(p)] if st.castle_status[s] == "active"]

    def free_dungeons(self, st: RFState, p: str) -> list[str]:
        if self.v.dungeon_capacity == "per_player" and any(
            st.zones[f"dungeon_{s}"] for s in SUITS_OF[p]
        ):
            return []
        return [s for s in SUITS_OF[p] if st.castle_status[s] == "active" and not st.zones[f"dungeon_{s}"]]

    def enablers(self, st: RFState, p: str, troop_suit: str) -> list[Card]:
        """Residents whose presence makes an attack damaging (A14)."""
        if self.v.damage_enabler == "any_own_castle":
            return self.residents(st, p)
        return list(st.zones[f"residents_{troop_suit}"])

    def family(self, p: str, c: Card) -> bool:
        """A face card of player p's colour (a member of p's family)."""
        return c.is_face and c.color == p

    # ---- legal moves -------------------------------------------------------------------
    def legal(self, st: RFState) -> list[Move]:
        p = st.active if st.order else None
        if st.phase == "flop":
            return [mv.FlopCard(c, f"flop_{st.flop_next}") for c in self.draw_pool(st)]
        assert p is not None
        if st.phase == "take":
            moves: list[Move] = [mv.TakeFromDraw(p, c) for c in self.draw_pool(st)]
            for k in FLOPS:
                top = st.top(k)
                if top is not None:
                    moves += self.card_uses(st, p, top, k)
            if not moves:
                moves.append(mv.Pass(p))
            return moves
        if st.phase == "staged":
            c = st.zones["staging"][-1]
            moves = self.card_uses(st, p, c, "staging")
            moves += [mv.Discard(p, c, "staging", z) for z in (*FLOPS, "discard_pile")]
            return moves
        if st.phase == "surprise":
            own = self.residents(st, p)
            if own:
                return [mv.SurpriseRemove(p, m) for m in own]
            return [mv.SurpriseDamage(p, s) for s in SUITS_OF[p] if st.castle_status[s] == "active"]
        if st.phase == "assassinate":
            return [mv.Assassinate(p, m) for m in self.residents(st, other(p))]
        if st.phase == "bonus":
            return self.bonus_moves(st, p) + [mv.NoBonus(p)]
        return []

    def draw_pool(self, st: RFState) -> list[Card]:
        """Cards that can come off the draw pile now (the discard pile once reshuffled)."""
        if st.zones["draw_pile"]:
            return list(dict.fromkeys(st.zones["draw_pile"]))
        if self.v.exhaustion == "reshuffle_discard":
            return list(dict.fromkeys(sorted(st.zones["discard_pile"])))
        return []

    def card_uses(self, st: RFState, p: str, c: Card, source: str) -> list[Move]:
        """Every legal action with card c taken from ``source`` (staging or a flop pile)."""
        from_flop = source in FLOPS
        moves: list[Move] = []
        s = suit_name(c)
        if self.is_troop(c) and OWNER.get(s) == p and st.castle_status[s] == "active":
            moves.append(mv.Fortify(p, c, source))
            for t in self.enemy_castles(st, p):
                if st.zones[f"fort_{t}"]:
                    moves.append(mv.AttackFortification(p, c, source, t))
                elif self.enablers(st, p, s) or self.v.residentless_attack == "allowed":
                    moves.append(mv.AttackCastle(p, c, source, t))
        elif c.is_face:
            if OWNER.get(s) == p and st.castle_status[s] in ("held", "active"):
                moves.append(mv.PlaceResident(p, c, source, s))
            elif c.color == other(p) and (from_flop or self.v.kidnap_from_draw):
                moves += [mv.Kidnap(p, c, source, d) for d in self.free_dungeons(st, p)]
        elif c.rank == "A" and s == ALLIANCE[p] and st.castle_status[s] == "absent":
            if from_flop or self.v.claim_ace_from == "flop_or_draw":
                moves.append(mv.ClaimAce(p, c, source))
        elif c.rank == "2" and from_flop and self.residents(st, other(p)):
            moves.append(mv.TakeAssassin(p, c, source))
        if from_flop and not self.v.flop_take_requires_use:
            moves.append(mv.Discard(p, c, source, "discard_pile"))
        return moves

    def unusable_reason(self, st: RFState, p: str, c: Card, source: str) -> str:
        """Why card c from ``source`` has no legal use for p (for LEGAL and REJECT)."""
        s = suit_name(c)
        if c.rank == "2":
            if source == "staging":
                return "A drawn 2 must be resolved and goes face-down"
            return "Opponent has no royal family member; a face-up 2 cannot be taken"
        if c.rank == "A":
            if s != ALLIANCE[p]:
                return f"{c} is not your alliance ace"
            return "A drawn alliance ace cannot be claimed (claim_ace_from: flop_only)"
        if c.is_face:
            if OWNER.get(s) == p:
                return f"{s.capitalize()} castle is not built"
            if source == "staging" and not self.v.kidnap_from_draw:
                return "Only a face-up flop card can be kidnapped"
            return "Dungeon full"
        if not self.is_troop(c):
            return f"{c.rank}s are not troops (troop_range {self.v.troop_range})"
        if OWNER.get(s) != p:
            actives = [x for x in SUITS_OF[p] if st.castle_status[x] == "active"]
            return f"Troops must match one of your active castles ({', '.join(actives)})"
        return f"{s.capitalize()} castle is not active"

    def bonus_moves(self, st: RFState, p: str) -> list[Move]:
        b = st.bonus
        assert b is not None
        used = b["used"]
        t = b["target"]
        if self.v.attack_bonus == "one" and used:
            return []
        moves: list[Move] = []
        if "rescue" not in used:
            moves += [mv.Rescue(p, m) for m in st.zones[f"dungeon_{t}"] if self.family(p, m)]
        if b["damaging"] and not b["rescue_only"]:
            members = st.zones[f"residents_{t}"]
            if "capture" not in used:
                moves += [mv.Capture(p, m, d) for m in members for d in self.free_dungeons(st, p)]
            if "execute" not in used:
                top = max((STATION[e.rank] for e in b["enablers"]), default=0)
                moves += [mv.Execute(p, m) for m in members if STATION[m.rank] < top]
        return moves

    # ---- applying moves ----------------------------------------------------------------
    def apply(self, st: RFState, move: Move) -> list[Announcement]:
        notes: list[Announcement] = []
        if isinstance(move, mv.CleanUp):
            st.expected.remove((str(move.card), move.src, move.dst))
            return notes
        if isinstance(move, Sequence):
            notes += self.apply(st, move.first)
            if st.phase == "over":
                raise IllegalMove("The game is over")
            return notes + self.apply(st, move.then)
        if st.phase != "flop" and getattr(move, "player", st.active) != st.active:
            raise IllegalMove(f"It is {who(st.active)}'s turn")
        if not isinstance(move, (mv.Rescue, mv.Capture, mv.Execute, mv.NoBonus, mv.Assassinate)):
            st.expected = []
        handler(self.handlers, move, "Royal Family")(st, move, notes)
        self._check_end(st, notes)
        return notes

    def _take_from_pool(self, st: RFState, c: Card, notes: list[Announcement]) -> None:
        if not st.zones["draw_pile"]:
            if self.v.exhaustion != "reshuffle_discard" or not st.zones["discard_pile"]:
                raise IllegalMove("The draw pile is empty")
            st.zones["draw_pile"] = sorted(st.zones["discard_pile"])
            st.zones["discard_pile"] = []
            notes.append(state_change("Draw pile empty: shuffle the discard pile to form a new draw pile",
                                      event="Reshuffle", cards=len(st.zones["draw_pile"])))
        if c not in st.zones["draw_pile"]:
            where = next((z for z, cs in st.zones.items() if c in cs), None)
            raise IllegalMove(f"{c} cannot come from the draw pile: it is in {where}")
        st.zones["draw_pile"].remove(c)

    def _joker(self, st: RFState, src: str, notes: list[Announcement]) -> None:
        jk = Card("JK")
        if not st.zones["joker_spot"]:
            st.zones["joker_spot"].append(jk)
            st.age = "oppression"
            st.expected.append(("JK", src, "joker_spot"))
            notes.append(announce("Joker! The age turns to oppression: put the joker on the joker spot",
                                  event="AgeFlip", age=st.age))
        else:
            st.zones["joker_spot"].clear()
            st.zones["discard_pile"] += [jk, jk]
            st.age = "revolution"
            st.expected += [("JK", src, "discard_pile"), ("JK", "joker_spot", "discard_pile")]
            notes.append(announce("Second joker! The age returns to revolution: both jokers go to the "
                                  "discard pile", event="AgeFlip", age=st.age))

    @handles(mv.FlopCard)
    def _do_FlopCard(self, st: RFState, m: mv.FlopCard, notes: list[Announcement]) -> None:
        if st.phase != "flop":
            raise IllegalMove("It is not time to flop")
        self._take_from_pool(st, m.card, notes)
        if m.card.is_joker:
            self._joker(st, m.pile, notes)
        else:
            st.zones[m.pile].append(m.card)
            st.flop_cards.append(m.card)
            st.flop_next += 1
        if st.flop_next > 3 or not any(not c.is_joker for c in self.draw_pool(st)):
            self._finish_flop(st, notes)  # cardref rule: jokers alone cannot refill a flop

    def _finish_flop(self, st: RFState, notes: list[Announcement]) -> None:
        b = sum(1 for c in st.flop_cards if c.color == "black")
        r = sum(1 for c in st.flop_cards if c.color == "red")
        if self.v.turn_order == "alternate" and st.round > 1:
            first = other(st.order[0])
            why = "alternating"
        elif b == r:
            first = st.second_last_round or "black"
            why = f"black {b} red {r}: tie, {first} moved second last round"
        else:
            minority = "black" if b < r else "red"
            first = minority if st.age == "revolution" else other(minority)
            why = f"black {b} red {r} → {first} first"
        st.order = [first, other(first), first]
        st.turn_index = 0
        st.phase = "take"
        notes.append(announce(
            f"Round {st.round}, age {st.age}: {why}: {', '.join(st.order)}",
            event="Order", round=st.round, age=st.age, black=b, red=r, order=list(st.order)))
        self._start_turn(st, notes)

    def _start_turn(self, st: RFState, notes: list[Announcement]) -> None:
        p = st.active
        notes.append(announce(f"{who(p)} to play (turn {st.turn_index + 1} of 3, round {st.round})",
                              event="Turn", player=p, round=st.round, turn=st.turn_index + 1))
        notes.append(self.legal_announcement(st))

    def legal_announcement(self, st: RFState) -> Announcement:
        p = st.active
        parts = []
        options: dict[str, list[str]] = {}
        if self.draw_pool(st):
            parts.append("draw pile")
            options["draw_pile"] = ["TakeFromDraw"]
        for k in FLOPS:
            top = st.top(k)
            if top is None:
                continue
            uses = self.card_uses(st, p, top, k)
            if uses:
                labels = [_use_label(u) for u in uses]
                options[k] = labels
                warn = ""
                if any(isinstance(u, mv.AttackCastle) and not self.enablers(st, p, suit_name(top))
                       for u in uses):
                    warn = f" (warning: no damage, {p} has no resident)"
                parts.append(f"{k} {top}: {', '.join(dict.fromkeys(labels))}{warn}")
            else:
                parts.append(f"{k} {top}: not takeable ({self.unusable_reason(st, p, top, k)})")
        if not options:
            parts.append("nothing takeable: pass (end_turn)")
        return legal(f"{p}: " + "; ".join(parts), player=p, options=options)

    def _end_turn(self, st: RFState, notes: list[Announcement]) -> None:
        st.bonus = None
        st.staged_from = None
        if st.turn_index < 2:
            st.turn_index += 1
            st.phase = "take"
            self._start_turn(st, notes)
            return
        st.second_last_round = st.order[1]
        if st.round >= self.v.max_rounds:
            self._game_over(st, None, f"round cap of {self.v.max_rounds} reached", notes, by_rules=False)
            return
        st.round += 1
        st.phase = "flop"
        st.flop_next = 1
        st.flop_cards = []
        notes.append(announce(f"Round {st.round}: flop three cards (age {st.age})",
                              event="Flop", round=st.round, age=st.age))
        if not any(not c.is_joker for c in self.draw_pool(st)):
            self._finish_flop(st, notes)

    @handles(mv.TakeFromDraw)
    def _do_TakeFromDraw(self, st: RFState, m: mv.TakeFromDraw, notes: list[Announcement]) -> None:
        if st.phase != "take":
            raise IllegalMove(f"Finish the turn first ({phase_hint(st)})")
        self._take_from_pool(st, m.card, notes)
        st.passes = 0
        if m.card.is_joker:
            self._joker(st, "staging", notes)
            notes.append(state_change(f"{who(m.player)} drew a joker: the turn ends with no action",
                                      event="JokerDrawn", player=m.player))
            self._end_turn(st, notes)
            return
        st.zones["staging"].append(m.card)
        st.staged_from = "draw_pile"
        if m.card.rank == "2":
            st.phase = "surprise"
            own = self.residents(st, m.player)
            if len(own) > 1:
                question = f"Surprised! {who(m.player)} must remove one resident: which?"
                notes.append(ask(question, [str(c) for c in own], event="Surprised"))
            elif own:  # nothing to ask: the only resident goes
                notes.append(state_change(
                    f"Surprised! {who(m.player)} must remove {own[0]}, their only resident: put it and "
                    "the 2 face-down on the discard pile", event="Surprised"))
            else:
                castles = [s for s in SUITS_OF[m.player] if st.castle_status[s] == "active"]
                if len(castles) > 1:
                    notes.append(ask(f"Surprised! Which castle of {who(m.player)} takes 1 damage?",
                                     castles, event="Surprised"))
                else:
                    notes.append(state_change(
                        f"Surprised! {castles[0].capitalize()} castle takes 1 damage: put the 2 "
                        "face-down on the discard pile", event="Surprised"))
            return
        st.phase = "staged"
        uses = self.card_uses(st, m.player, m.card, "staging")
        labels = ", ".join(dict.fromkeys(_use_label(u) for u in uses)) or "no use"
        notes.append(legal(f"{m.player} drew {m.card}: {labels}; or discard it (face-up on a flop pile "
                           "or face-down)", player=m.player, card=str(m.card)))

    def _remove_source(self, st: RFState, m: Any) -> None:
        """Take the move's card from its source zone, checking it is really there."""
        zone = st.zones[m.source]
        if not zone or zone[-1] != m.card:
            raise IllegalMove(f"{m.card} is not on top of {m.source}")
        if m.source in FLOPS and st.phase != "take":
            raise IllegalMove(f"Finish the turn first ({phase_hint(st)})")
        if m.source == "staging" and st.phase != "staged":
            raise IllegalMove("There is no drawn card in staging to use")
        zone.pop()
        st.passes = 0

    def _check_troop(self, st: RFState, p: str, c: Card) -> str:
        s = suit_name(c)
        if not self.is_troop(c) or OWNER.get(s) != p or st.castle_status[s] != "active":
            raise IllegalMove(self.unusable_reason(st, p, c, "staging"))
        return s

    @handles(mv.Fortify)
    def _do_Fortify(self, st: RFState, m: mv.Fortify, notes: list[Announcement]) -> None:
        s = self._check_troop(st, m.player, m.card)
        self._remove_source(st, m)
        fort = st.zones[f"fort_{s}"]
        if fort:
            old = fort + st.zones[f"fort_hits_{s}"]
            st.zones["discard_pile"] += old
            st.expected += [(str(c), f"fort_{s}" if c is fort[0] else f"fort_hits_{s}", "discard_pile")
                            for c in old]
            st.zones[f"fort_hits_{s}"] = []
            st.fort_tracked[s] = 0
            notes.append(state_change(f"Fortification replaced: put {cards_text(old)} on the discard pile",
                                      event="FortReplaced", castle=s, cards=[str(c) for c in old]))
        st.zones[f"fort_{s}"] = [m.card]
        notes.append(state_change(f"{who(m.player)} fortifies {s} with {m.card} (value {m.card.value})",
                                  event="Fortify", castle=s, card=str(m.card)))
        self._end_turn(st, notes)

    @handles(mv.AttackFortification)
    def _do_AttackFortification(self, st: RFState, m: mv.AttackFortification,
                                notes: list[Announcement]) -> None:
        self._check_troop(st, m.player, m.card)
        t = m.target
        if t not in self.enemy_castles(st, m.player):
            raise IllegalMove(f"{t.capitalize()} castle is not an enemy castle in play")
        if not st.zones[f"fort_{t}"]:
            raise IllegalMove(f"{t.capitalize()} castle has no fortification")
        self._remove_source(st, m)
        remaining = self.fort_remaining(st, t)
        fort = st.zones[f"fort_{t}"][0]
        if m.card.value >= remaining:
            cleared = [fort, *st.zones[f"fort_hits_{t}"], m.card]
            st.zones["discard_pile"] += cleared
            st.zones[f"fort_{t}"] = []
            st.zones[f"fort_hits_{t}"] = []
            st.fort_tracked[t] = 0
            st.expected += [(str(c), f"fort_{t}" if c is fort else f"fort_hits_{t}", "discard_pile")
                            for c in cleared[:-1]]
            st.expected += [(str(m.card), m.source, "discard_pile"), (str(m.card), f"fort_hits_{t}",
                                                                       "discard_pile"),
                            (str(m.card), f"fort_{t}", "discard_pile")]
            surplus = m.card.value - remaining
            notes.append(damage(
                f"{m.card} destroys the {t} fortification {fort}, which had {remaining} left"
                + (f"; the other {surplus} of {m.card}'s {m.card.value} "
                   + ("is" if surplus == 1 else "are") + " lost" if surplus else "")
                + f": put {cards_text(cleared)} on the discard pile",
                event="FortDestroyed", castle=t, surplus=surplus, cards=[str(c) for c in cleared]))
        else:
            if self.v.fort_damage == "attached_cards":
                st.zones[f"fort_hits_{t}"].append(m.card)
            else:
                st.fort_tracked[t] += m.card.value
                st.zones["discard_pile"].append(m.card)
                st.expected.append((str(m.card), f"fort_hits_{t}", "discard_pile"))
            notes.append(damage(
                f"{m.card} hits the {t} fortification {fort}: {remaining - m.card.value} remaining",
                event="FortHit", castle=t, remaining=remaining - m.card.value))
        self._end_turn(st, notes)

    @handles(mv.AttackCastle)
    def _do_AttackCastle(self, st: RFState, m: mv.AttackCastle, notes: list[Announcement]) -> None:
        s = self._check_troop(st, m.player, m.card)
        t = m.target
        if t not in self.enemy_castles(st, m.player):
            if st.castle_status.get(t) == "held":
                raise IllegalMove(f"{t.capitalize()} castle is only held: it cannot be attacked")
            raise IllegalMove(f"{t.capitalize()} castle is not an enemy castle in play")
        if st.zones[f"fort_{t}"]:
            raise IllegalMove("Attack the fortification first")
        enablers = self.enablers(st, m.player, s)
        if not enablers and self.v.residentless_attack == "forbidden":
            raise IllegalMove("An attack needs a resident in the attacking castle (residentless_attack)")
        self._remove_source(st, m)
        if enablers and self.v.castle_model == "damage_20":
            st.zones[f"castle_damage_{t}"].append(m.card)
            total = self.damage_total(st, t)
            notes.append(damage(f"{t.capitalize()} castle takes {m.card.value} damage from {m.card} "
                                f"(total {total})", event="CastleDamaged", castle=t,
                                amount=m.card.value, total=total))
        elif enablers:
            st.hp[t] -= len(enablers)
            st.zones["discard_pile"].append(m.card)
            st.expected.append((str(m.card), f"castle_damage_{t}", "discard_pile"))
            notes.append(damage(f"{t.capitalize()} castle loses {len(enablers)} HP ({st.hp[t]} left); "
                                f"put {m.card} on the discard pile", event="CastleDamaged", castle=t,
                                amount=len(enablers), hp=st.hp[t]))
        else:
            st.zones["discard_pile"].append(m.card)
            st.expected += [(str(m.card), f"castle_damage_{t}", "discard_pile"),
                            (str(m.card), f"castle_{t}", "discard_pile")]
            notes.append(state_change(f"Attack on {t} does no damage ({m.player} has no resident there): "
                                      f"put {m.card} on the discard pile", event="NoDamage", castle=t))
        self._open_bonus(st, m.player, t, bool(enablers), enablers, notes)

    def _open_bonus(self, st: RFState, p: str, t: str, damaging: bool, enablers: list[Card],
                    notes: list[Announcement], rescue_only: bool = False) -> None:
        st.bonus = {"target": t, "damaging": damaging, "enablers": list(enablers), "used": [],
                    "rescue_only": rescue_only}
        options = self.bonus_moves(st, p)
        if not options:
            if not rescue_only and not damaging:
                notes.append(state_change("Warning: this attack does nothing", event="Warning"))
            self._finish_attack(st, notes)
            return
        st.phase = "bonus"
        labels = sorted({f"{type(o).__name__} {choice_label(o)}" for o in options})
        notes.append(legal(f"{p} may claim a bonus: {', '.join(labels)}; or end the turn",
                           player=p, options=labels))

    def _finish_attack(self, st: RFState, notes: list[Announcement]) -> None:
        t = st.bonus["target"] if st.bonus else None
        st.bonus = None
        if t is not None:
            self._destruction_check(st, t, notes)
        if st.phase != "over" and not self._loser(st):
            self._end_turn(st, notes)

    def _destruction_check(self, st: RFState, t: str, notes: list[Announcement]) -> None:
        if st.castle_status[t] != "active":
            return
        hp_model = self.v.castle_model == "hit_points_10"
        destroyed = st.hp[t] <= 0 if hp_model else self.damage_total(st, t) >= 20
        if not destroyed:
            return
        gone = st.zones[f"castle_{t}"] + st.zones[f"residents_{t}"]
        to_discard = st.zones[f"castle_damage_{t}"] + st.zones[f"fort_{t}"] + st.zones[f"fort_hits_{t}"]
        st.zones["out_of_game"] += gone
        st.zones["discard_pile"] += to_discard
        for z in ("castle", "residents", "castle_damage", "fort", "fort_hits"):
            for c in st.zones[f"{z}_{t}"]:
                st.expected.append((str(c), f"{z}_{t}", "out_of_game" if c in gone else "discard_pile"))
            st.zones[f"{z}_{t}"] = []
        st.castle_status[t] = "destroyed"
        notes.append(damage(f"{t.capitalize()} castle is destroyed: {cards_text(gone)} leave the game; "
                            f"put {cards_text(to_discard) or 'nothing'} on the discard pile",
                            event="CastleDestroyed", castle=t))
        for prisoner in list(st.zones[f"dungeon_{t}"]):
            st.zones[f"dungeon_{t}"].remove(prisoner)
            dest = self._send_home(st, prisoner)
            st.expected.append((str(prisoner), f"dungeon_{t}", dest))
            notes.append(state_change(f"Prisoner {prisoner} is freed: to {dest}", event="Freed",
                                      card=str(prisoner), to=dest))

    def _send_home(self, st: RFState, member: Card) -> str:
        """A freed or rescued member returns to its castle if active or held (A18)."""
        s = suit_name(member)
        if st.castle_status[s] in ("active", "held"):
            if st.castle_status[s] == "held":
                st.castle_status[s] = "active"
            st.zones[f"residents_{s}"].append(member)
            return f"residents_{s}"
        st.zones["discard_pile"].append(member)
        return "discard_pile"

    def _bonus_pre(self, st: RFState, m: Move) -> None:
        if st.phase != "bonus" or st.bonus is None:
            raise IllegalMove("A bonus can only follow an attack on a castle")

    def _bonus_post(self, st: RFState, kind: str, notes: list[Announcement]) -> None:
        assert st.bonus is not None
        st.bonus["used"].append(kind)
        if self._loser(st):
            return
        if self.v.attack_bonus == "one" or not self.bonus_moves(st, st.active):
            self._finish_attack(st, notes)

    @handles(mv.Rescue)
    def _do_Rescue(self, st: RFState, m: mv.Rescue, notes: list[Announcement]) -> None:
        self._bonus_pre(st, m)
        t = st.bonus["target"]
        if m.member not in st.zones[f"dungeon_{t}"] or not self.family(m.player, m.member):
            raise IllegalMove(f"{m.member} is not your prisoner in the {t} dungeon")
        if "rescue" in st.bonus["used"]:
            raise IllegalMove("Only one rescue per attack")
        if self.v.attack_bonus == "one" and st.bonus["used"]:
            raise IllegalMove("Only one bonus per attack")
        st.zones[f"dungeon_{t}"].remove(m.member)
        dest = self._send_home(st, m.member)
        verb = "Attack with no damage: " if not st.bonus["damaging"] else ""
        notes.append(state_change(f"{verb}{who(m.player)} rescues {m.member}: to {dest}", event="Rescue",
                                  card=str(m.member), to=dest))
        self._bonus_post(st, "rescue", notes)

    def _member_of_target(self, st: RFState, member: Card) -> str:
        b = st.bonus
        assert b is not None
        t = b["target"]
        if not b["damaging"] or b["rescue_only"]:
            raise IllegalMove("Capture and Execute need a damaging attack")
        if member not in st.zones[f"residents_{t}"]:
            raise IllegalMove(f"{member} is not a resident of the attacked {t} castle")
        if self.v.attack_bonus == "one" and b["used"]:
            raise IllegalMove("Only one bonus per attack")
        return t

    @handles(mv.Capture)
    def _do_Capture(self, st: RFState, m: mv.Capture, notes: list[Announcement]) -> None:
        self._bonus_pre(st, m)
        t = self._member_of_target(st, m.member)
        if "capture" in st.bonus["used"]:
            raise IllegalMove("Only one capture per attack")
        if m.dungeon not in SUITS_OF[m.player] or st.castle_status[m.dungeon] != "active":
            raise IllegalMove("Prisoners go into the dungeon of one of your active castles")
        if m.dungeon not in self.free_dungeons(st, m.player):
            raise IllegalMove("Dungeon full")
        st.zones[f"residents_{t}"].remove(m.member)
        st.zones[f"dungeon_{m.dungeon}"].append(m.member)
        notes.append(state_change(f"{who(m.player)} captures {m.member} into the {m.dungeon} dungeon",
                                  event="Capture", card=str(m.member), dungeon=m.dungeon))
        self._bonus_post(st, "capture", notes)

    @handles(mv.Execute)
    def _do_Execute(self, st: RFState, m: mv.Execute, notes: list[Announcement]) -> None:
        self._bonus_pre(st, m)
        t = self._member_of_target(st, m.member)
        if "execute" in st.bonus["used"]:
            raise IllegalMove("Only one execution per attack")
        top = max(st.bonus["enablers"], key=lambda e: STATION[e.rank])
        if STATION[m.member.rank] >= STATION[top.rank]:
            names = {"J": "Jack", "Q": "Queen", "K": "King"}
            if m.member.rank == "K":
                reason = "Nobody can kill a King"
            else:
                reason = f"A {names[top.rank]} cannot kill a {names[m.member.rank]}"
            raise IllegalMove(f"{reason}; choose Capture or no bonus")
        st.zones[f"residents_{t}"].remove(m.member)
        st.zones["discard_pile"].append(m.member)
        notes.append(state_change(f"{who(m.player)} executes {m.member} (by {top})", event="Execute",
                                  card=str(m.member)))
        self._bonus_post(st, "execute", notes)

    @handles(mv.NoBonus)
    def _do_NoBonus(self, st: RFState, m: mv.NoBonus, notes: list[Announcement]) -> None:
        if st.phase != "bonus":
            raise IllegalMove("There is no bonus to decline")
        self._finish_attack(st, notes)

    @handles(mv.PlaceResident)
    def _do_PlaceResident(self, st: RFState, m: mv.PlaceResident, notes: list[Announcement]) -> None:
        s = suit_name(m.card)
        if not m.card.is_face:
            raise IllegalMove("Only a Jack, Queen or King can be a resident")
        if OWNER[s] != m.player:
            raise IllegalMove("Royals live only in your own castles")
        if m.castle != s:
            raise IllegalMove("Royals live only in the castle of their suit")
        if st.castle_status[s] not in ("held", "active"):
            raise IllegalMove(f"{s.capitalize()} castle is not built")
        self._remove_source(st, m)
        st.zones[f"residents_{s}"].append(m.card)
        notes.append(state_change(f"{who(m.player)} places {m.card} in the {s} castle",
                                  event="PlaceResident", card=str(m.card), castle=s))
        if st.castle_status[s] == "held":
            st.castle_status[s] = "active"
            notes.append(state_change(f"{s.capitalize()} castle is now active", event="CastleActivated",
                                      castle=s))
        self._end_turn(st, notes)

    @handles(mv.Kidnap)
    def _do_Kidnap(self, st: RFState, m: mv.Kidnap, notes: list[Announcement]) -> None:
        if not (m.card.is_face and m.card.color == other(m.player)):
            raise IllegalMove("Only an opponent's Jack, Queen or King can be kidnapped")
        if m.source == "staging" and not self.v.kidnap_from_draw:
            raise IllegalMove("Only a face-up flop card can be kidnapped")
        if m.dungeon not in SUITS_OF[m.player] or st.castle_status[m.dungeon] != "active":
            raise IllegalMove("Prisoners go into the dungeon of one of your active castles")
        if m.dungeon not in self.free_dungeons(st, m.player):
            raise IllegalMove("Dungeon full")
        self._remove_source(st, m)
        st.zones[f"dungeon_{m.dungeon}"].append(m.card)
        notes.append(state_change(f"{who(m.player)} kidnaps {m.card} into the {m.dungeon} dungeon",
                                  event="Kidnap", card=str(m.card), dungeon=m.dungeon))
        self._end_turn(st, notes)

    @handles(mv.ClaimAce)
    def _do_ClaimAce(self, st: RFState, m: mv.ClaimAce, notes: list[Announcement]) -> None:
        s = ALLIANCE[m.player]
        if m.card != Card("A", SUIT_LETTER[s]):
            raise IllegalMove(f"{m.card} is not your alliance ace")
        if m.source == "staging" and self.v.claim_ace_from == "flop_only":
            raise IllegalMove("The alliance ace can only be claimed from a flop pile")
        self._remove_source(st, m)
        st.zones[f"castle_{s}"].append(m.card)
        st.castle_status[s] = "held"
        notes.append(state_change(f"{who(m.player)} claims {m.card}: the {s} castle is held "
                                  "(active once a resident moves in)", event="ClaimAce", castle=s))
        self._end_turn(st, notes)

    @handles(mv.TakeAssassin)
    def _do_TakeAssassin(self, st: RFState, m: mv.TakeAssassin, notes: list[Announcement]) -> None:
        if m.card.rank != "2" or m.source not in FLOPS:
            raise IllegalMove("An assassin is a face-up 2 taken from a flop pile")
        victims = self.residents(st, other(m.player))
        if not victims:
            raise IllegalMove("Opponent has no royal family member; a face-up 2 cannot be taken")
        self._remove_source(st, m)
        st.zones["discard_pile"].append(m.card)
        st.phase = "assassinate"
        if len(victims) == 1:
            self._do_Assassinate(st, mv.Assassinate(m.player, victims[0]), notes)
            return
        notes.append(ask(f"{who(m.player)}'s assassin: which resident is killed?",
                         [str(v) for v in victims], event="Assassinate"))

    @handles(mv.Assassinate)
    def _do_Assassinate(self, st: RFState, m: mv.Assassinate, notes: list[Announcement]) -> None:
        if st.phase != "assassinate":
            raise IllegalMove("Take a face-up 2 from a flop pile first")
        s = suit_name(m.victim)
        if OWNER.get(s) != other(m.player) or m.victim not in st.zones[f"residents_{s}"]:
            raise IllegalMove(f"{m.victim} is not an opponent's resident")
        st.zones[f"residents_{s}"].remove(m.victim)
        st.zones["discard_pile"].append(m.victim)
        st.expected.append((str(m.victim), f"residents_{s}", "discard_pile"))
        notes.append(state_change(f"{who(m.player)} assassinates {m.victim}: put it and the 2 on the "
                                  "discard pile", event="Assassinate", victim=str(m.victim)))
        self._end_turn(st, notes)

    @handles(mv.Discard)
    def _do_Discard(self, st: RFState, m: mv.Discard, notes: list[Announcement]) -> None:
        if m.source in FLOPS:
            if self.v.flop_take_requires_use:
                raise IllegalMove("A flop card must be used by a legal action, not discarded")
            if m.to != "discard_pile":
                raise IllegalMove("A flop card cannot be moved onto another flop pile")
        elif m.card.rank == "2" or m.card.is_joker:
            raise IllegalMove("A drawn 2 must be resolved and goes face-down")
        self._remove_source(st, m)
        st.zones[m.to].append(m.card)
        face = "face-up on " + m.to if m.to in FLOPS else "face-down"
        notes.append(state_change(f"{who(m.player)} discards {m.card} {face}", event="Discard",
                                  card=str(m.card), to=m.to))
        # Same table as a non-damaging attack: a rescue that follows makes it one
        # (docs/rules/royal_family.md, what the camera sees).
        if m.source == "staging" and m.to == "discard_pile" and self.is_troop(m.card):
            s = suit_name(m.card)
            if OWNER.get(s) == m.player and st.castle_status[s] == "active":
                for t in self.enemy_castles(st, m.player):
                    if st.zones[f"fort_{t}"] or self.enablers(st, m.player, s):
                        continue
                    if any(self.family(m.player, c) for c in st.zones[f"dungeon_{t}"]):
                        st.bonus = {"target": t, "damaging": False, "enablers": [], "used": [],
                                    "rescue_only": True}
                        st.phase = "bonus"
                        return
        self._end_turn(st, notes)

    @handles(mv.SurpriseRemove)
    def _do_SurpriseRemove(self, st: RFState, m: mv.SurpriseRemove, notes: list[Announcement]) -> None:
        if st.phase != "surprise":
            raise IllegalMove("There is no drawn 2 to resolve")
        s = suit_name(m.member)
        if OWNER.get(s) != m.player or m.member not in st.zones[f"residents_{s}"]:
            raise IllegalMove(f"{m.member} is not one of your residents")
        st.zones[f"residents_{s}"].remove(m.member)
        two = st.zones["staging"].pop()
        st.zones["discard_pile"] += [m.member, two]
        st.expected += [(str(m.member), f"residents_{s}", "discard_pile"),
                        (str(two), "staging", "discard_pile")]
        notes.append(state_change(f"Surprised! {who(m.player)} loses {m.member}; {two} goes face-down "
                                  "on the discard pile", event="Surprised", removed=str(m.member)))
        self._end_turn(st, notes)

    @handles(mv.SurpriseDamage)
    def _do_SurpriseDamage(self, st: RFState, m: mv.SurpriseDamage, notes: list[Announcement]) -> None:
        if st.phase != "surprise":
            raise IllegalMove("There is no drawn 2 to resolve")
        if self.residents(st, m.player):
            raise IllegalMove("Surprised: you must remove one of your residents")
        if m.castle not in SUITS_OF[m.player] or st.castle_status[m.castle] != "active":
            raise IllegalMove(f"{m.castle} is not one of your active castles")
        two = st.zones["staging"].pop()
        st.zones["discard_pile"].append(two)
        st.expected.append((str(two), "staging", "discard_pile"))
        if self.v.castle_model == "damage_20":
            st.surprise_damage[m.castle] += 1
            text = f"total {self.damage_total(st, m.castle)}"
        else:
            st.hp[m.castle] -= 1
            text = f"{st.hp[m.castle]} HP left"
        notes.append(damage(f"Surprised! {m.castle.capitalize()} castle takes 1 damage ({text}); {two} "
                            "goes face-down on the discard pile", event="Surprised", castle=m.castle,
                            amount=1))
        self._destruction_check(st, m.castle, notes)
        if not self._loser(st):
            self._end_turn(st, notes)

    @handles(mv.Pass)
    def _do_Pass(self, st: RFState, m: mv.Pass, notes: list[Announcement]) -> None:
        if st.phase != "take":
            raise IllegalMove("You can only pass instead of taking a card")
        if self.draw_pool(st) or any(
            st.top(k) is not None and self.card_uses(st, m.player, st.top(k), k) for k in FLOPS
        ):
            raise IllegalMove("You must take a card: passing is allowed only when nothing is takeable")
        st.passes += 1
        notes.append(state_change(f"{who(m.player)} passes", event="Pass"))
        if st.passes >= 3:
            self._game_over(st, None, "three passes in a row: the game is a draw", notes)
            return
        self._end_turn(st, notes)

    # ---- end of game -------------------------------------------------------------------
    def _loser(self, st: RFState) -> str | None:
        for p in PLAYERS:
            if not any(st.castle_status[s] == "active" for s in SUITS_OF[p]):
                return p
        return None

    def _check_end(self, st: RFState, notes: list[Announcement]) -> None:
        if st.phase == "over":
            return
        loser = self._loser(st)
        if loser is not None:
            winner = other(loser)
            self._game_over(st, winner, f"{who(loser)} has no active castle left", notes)
        elif self.v.exhaustion == "draw_game" and not st.zones["draw_pile"]:
            self._game_over(st, None, "the draw pile ran out: the game is a draw", notes)

    def _game_over(self, st: RFState, winner: str | None, reason: str, notes: list[Announcement],
                   by_rules: bool = True) -> None:
        st.phase = "over"
        st.winner = winner
        st.end_reason = reason
        st.by_rules = by_rules
        text = f"{who(winner)} wins: {reason}" if winner else f"Draw: {reason}"
        notes.append(result(text, winner=winner, reason=reason, round=st.round))

    # ---- invariants --------------------------------------------------------------------
    def check_invariants(self, st: RFState) -> None:
        every = [c for cards in st.zones.values() for c in cards]
        jokers = sum(1 for c in every if c.is_joker)
        distinct = set(every)
        if len(every) != 54 or jokers != 2 or len(distinct) != 53 or Card("BACK") in distinct:
            seen = Counter(every)
            missing = DECK - seen
            extra = seen - DECK
            raise InvariantError(f"cards not conserved: missing {dict(missing)}, extra {dict(extra)}")
        for s in CASTLE_SUITS:
            status = st.castle_status[s]
            ace = Card("A", SUIT_LETTER[s])
            if (ace in st.zones[f"castle_{s}"]) != (status in ("held", "active")):
                raise InvariantError(f"castle_{s} and status {status} disagree")
            if len(st.zones[f"fort_{s}"]) > 1 or len(st.zones[f"dungeon_{s}"]) > 1:
                raise InvariantError(f"{s}: more than one fortification or prisoner")
            if st.zones[f"fort_hits_{s}"] and not st.zones[f"fort_{s}"]:
                raise InvariantError(f"{s}: hits without a fortification")
            if st.zones[f"fort_{s}"] and self.fort_remaining(st, s) <= 0:
                raise InvariantError(f"{s}: fortification with remaining value {self.fort_remaining(st, s)}")
            if status != "active" and (st.zones[f"fort_{s}"] or st.zones[f"castle_damage_{s}"]):
                raise InvariantError(f"{s}: fortification or damage on a {status} castle")
            if status == "held" and st.zones[f"residents_{s}"]:
                raise InvariantError(f"{s}: a held castle has residents")
            if any(suit_name(c) != s or not c.is_face for c in st.zones[f"residents_{s}"]):
                raise InvariantError(f"residents_{s} holds a card of another suit")
            if any(c.color == OWNER[s] for c in st.zones[f"dungeon_{s}"]):
                raise InvariantError(f"dungeon_{s} holds a member of its own family")
            hp_model = self.v.castle_model == "hit_points_10"
            attacked = st.phase == "bonus" and st.bonus is not None and st.bonus["target"] == s
            if status == "active" and attacked:
                continue  # destruction is checked once the attack's bonus is settled
            if status == "active" and not hp_model and self.damage_total(st, s) >= 20:
                raise InvariantError(f"{s}: damage {self.damage_total(st, s)} but not destroyed")
            if status == "active" and hp_model and st.hp[s] <= 0:
                raise InvariantError(f"{s}: {st.hp[s]} HP but not destroyed")
        if len(st.zones["joker_spot"]) > 1 or (st.age == "oppression") != bool(st.zones["joker_spot"]):
            raise InvariantError(f"age {st.age} disagrees with the joker spot")
        if st.phase != "over" and (
            st.phase in ("staged", "surprise")) != bool(st.zones["staging"]):
            raise InvariantError(f"phase {st.phase} with staging {st.zones['staging']}")
        if any(c.is_joker for k in FLOPS for c in st.zones[k]):
            raise InvariantError("a joker lies on a flop pile")
        if st.zones["draw_pile"] != sorted(st.zones["draw_pile"]):
            raise InvariantError("draw pile set not sorted")


def _use_label(m: Move) -> str:
    name = type(m).__name__
    target = getattr(m, "target", None) or getattr(m, "castle", None) or getattr(m, "dungeon", None)
    if isinstance(m, mv.Fortify):
        target = suit_name(m.card)
    return f"{name} {target}" if target else name


def choice_label(move: Move) -> str:
    """The word a player answers an ASK with to pick ``move``."""
    for attr in ("member", "victim"):
        if hasattr(move, attr):
            return str(getattr(move, attr))
    if isinstance(move, mv.SurpriseDamage):
        return move.castle
    if isinstance(move, (mv.AttackCastle, mv.AttackFortification)):
        return f"attack_{move.target}"
    return type(move).__name__


def phase_hint(st: RFState) -> str:
    """What the active player must do before anything else."""
    return {
        "flop": f"flop onto flop_{st.flop_next}",
        "staged": "use or discard the card in staging",
        "surprise": "resolve the drawn 2",
        "assassinate": "remove the assassinated resident",
    }.get(st.phase, st.phase)
