"""Royal Crush, C5-C9: scoring the reveal, the ladder, cleanup, drawing, the next attacker.

Part of :class:`referee.games.royal_crush.rules.Rules`, like ``conquest.py``.
"""

from __future__ import annotations

import referee.games.royal_crush.moves as mv
from referee.announcements import Announcement, announce, damage, legal, result, state_change
from referee.cards import Card
from referee.core import handles
from referee.errors import IllegalMove
from referee.games.royal_crush.resolve import resolve, validate_slot
from referee.games.royal_crush.state import (
    CLEANUP,
    DECLARE,
    DRAW,
    LADDER_TOP,
    OVER,
    ROLLOFF,
    SIDES,
    Conquest,
    CrushState,
)


class AftermathRules:
    """Moves and forced effects from the count to the start of the next conquest."""

    def _resolve(self, s: CrushState) -> list[Announcement]:
        q = s.conquest
        assert q and q.victim
        notes: list[Announcement] = []
        counted: dict[str, list[Card]] = {}
        for p in self._participants(q):
            slot = q.slots.get(p)
            cards = slot.shown if slot else []
            order_known = slot.order_known if slot else True
            keep, back = validate_slot(cards, order_known, p not in q.allies, self.scoring)
            counted[p] = keep
            if slot:
                slot.returned = sorted(back)
            for c in back:
                why = "an ally commits one attack card" if p in q.allies else "one attack and one royal card"
                notes.append(state_change(f"{c} counts for nothing ({why}): return it to {p}'s hand",
                                          player=p, card=str(c)))
                s.bump("returned_cards")
        order = [p for p in s.clockwise_from(q.attacker) if p in counted]
        sides = {p: q.side_of(p) or "" for p in order}
        res = resolve(order, q.victim, sides, counted, self.scoring)
        q.resolution = res
        s.phase = ROLLOFF  # until decided below
        if res.kings == 1:
            s.bump("king_suppressions")
            notes.append(state_change("A King: every other royal card is worth 0 and has no effect"))
        elif res.kings >= 2:
            s.bump("kings_cancelled")
            notes.append(state_change("Two Kings cancel each other: both are worth 0"))
        for p in res.switched:
            s.bump("joker_switches")
            notes.append(state_change(f"{p}'s Joker: {p} switches to the {res.sides[p]} side", player=p,
                                      side=res.sides[p]))
        if res.all_win:
            s.bump("all_win")
            notes.append(announce("One side is empty: every participant wins the conquest", all_win=True))
            return notes + self._finish_conquest(s)
        for side in SIDES:
            parts = [f"{c}={v}" for p, c, v in res.powers if res.sides[p] == side]
            mult = " x2 combo" if res.multipliers[side] > 1 else ""
            text = f"{side} side: {' '.join(parts) or 'no cards'}{mult} = {res.totals[side]}"
            notes.append(state_change(text, side=side, total=res.totals[side]))
        if res.multipliers["attacker"] > 1 or res.multipliers["victim"] > 1 or res.player_multipliers:
            s.bump("combos")
        a, v = res.totals["attacker"], res.totals["victim"]
        if res.winner_side:
            notes.append(announce(f"{a} to {v}: the {res.winner_side} side wins", totals=dict(res.totals),
                                  winner_side=res.winner_side))
            return notes + self._finish_conquest(s)
        s.bump("ties")
        s.rollers = [res.tie_reps["attacker"], res.tie_reps["victim"]]
        s.rolls = {}
        notes.append(announce(f"Tie {a} to {v}: roll-off {' vs '.join(s.rollers)}", rollers=list(s.rollers),
                              phase=ROLLOFF))
        dice = self.v.dice
        notes.append(legal(f"Roll {dice}: {', '.join(s.rollers)}", rollers=list(s.rollers)))
        return notes

    # C6
    def _finish_conquest(self, s: CrushState) -> list[Announcement]:
        q = s.conquest
        assert q and q.resolution
        res = q.resolution
        everyone = list(res.sides)
        if res.all_win:
            up, down = everyone, []
        else:
            up = [p for p in everyone if res.sides[p] == res.winner_side]
            down = [p for p in everyone if res.sides[p] != res.winner_side]
        if self.role_reversal:
            up, down = down, up
            s.bump("reversals")
        notes: list[Announcement] = []
        for p in everyone:
            before = s.ladder[p]
            after = min(LADDER_TOP, before + 1) if p in up else max(0, before - 1)
            s.ladder[p] = after
            verb = "up to" if after > before else "down to" if after < before else "stays on"
            notes.append(damage(f"{p} {verb} {after}", player=p, ladder=after, change=after - before))
        notes.append(announce("Ladders: " + ", ".join(f"{p} {s.ladder[p]}" for p in s.players),
                              **self._status(s)))
        top = [p for p in s.players if s.ladder[p] >= LADDER_TOP]
        if top:
            return notes + self._game_over(s, top, f"{' and '.join(top)} reached {LADDER_TOP}")
        ace = next((p for p in res.ace_players if p in up), None)
        s.next_attacker = ace
        if ace:
            s.bump("ace_turns")
            notes.append(state_change(f"{ace} won with an Ace: {ace} attacks next", player=ace))
        s.phase = CLEANUP
        return notes + self._cleanup_prompt(s)

    def _game_over(self, s: CrushState, winners: list[str], reason: str, by_rules: bool = True):
        s.phase = OVER
        s.winners = list(winners)
        s.end_reason = reason
        s.by_rules = by_rules
        who = " and ".join(winners) + (" win" if len(winners) > 1 else " wins") if winners else "Nobody wins"
        return [result(f"{who}: {reason}", winners=list(winners), reason=reason, by_rules=by_rules,
                       ladders=dict(s.ladder))]

    # C7-C8
    def _cleanup_prompt(self, s: CrushState) -> list[Announcement]:
        q = s.conquest
        assert q
        sweep, back = [], []
        for p in s.clockwise_from(q.attacker):
            slot = q.slots.get(p)
            if slot is None:
                continue
            counted = list(slot.shown)
            for c in slot.returned:
                counted.remove(c)
            sweep += counted
            back += [f"{c} to {p}'s hand" for c in slot.returned]
        if sweep:
            s.draw_under.append([])
        if not sweep and not back:
            return self._after_cleanup(s)
        parts = []
        if sweep:
            parts.append(f"put {' '.join(map(str, sweep))} under the draw pile")
        if back:
            parts.append("return " + ", ".join(back))
        return [state_change("Cleanup: " + "; ".join(parts), phase=CLEANUP)]

    def _slot_with(self, s: CrushState, player: str, c: Card):
        q = s.conquest
        assert q
        slot = q.slots.get(player)
        if not slot or c not in slot.shown:
            raise IllegalMove(f"{c} is not in {player}'s slot")
        return slot

    @handles(mv.Sweep)
    def _do_Sweep(self, s: CrushState, m: mv.Sweep) -> list[Announcement]:
        self._need(s, CLEANUP, "clear the mats")
        slot = self._slot_with(s, m.player, m.card)
        if slot.shown.count(m.card) <= slot.returned.count(m.card):
            raise IllegalMove(f"{m.card} counted for nothing: it goes back to {m.player}'s hand")
        slot.shown.remove(m.card)
        batch = s.draw_under[-1]
        batch.append(m.card)
        batch.sort()
        return self._cleanup_progress(s)

    @handles(mv.ReturnCard)
    def _do_ReturnCard(self, s: CrushState, m: mv.ReturnCard) -> list[Announcement]:
        if s.phase not in (ROLLOFF, CLEANUP):
            raise IllegalMove(f"No card goes back to a hand now: {self.expect(s)}")
        slot = self._slot_with(s, m.player, m.card)
        if m.card not in slot.returned:
            raise IllegalMove(f"{m.card} counted: it goes under the draw pile, not back to the hand")
        slot.returned.remove(m.card)
        slot.shown.remove(m.card)
        s.hand[m.player] += 1
        s.hand_known[m.player] = sorted([*s.hand_known[m.player], m.card])
        if s.phase == CLEANUP:
            return self._cleanup_progress(s)
        return []

    def _cleanup_progress(self, s: CrushState) -> list[Announcement]:
        q = s.conquest
        assert q
        if any(slot.shown for slot in q.slots.values()):
            return []
        return self._after_cleanup(s)

    def _after_cleanup(self, s: CrushState) -> list[Announcement]:
        q = s.conquest
        assert q
        q.slots = {}
        notes: list[Announcement] = []
        if self.no_draw:
            out = [p for p in s.active() if s.hand[p] == 0]
            for p in out:
                s.eliminated.append(p)
                s.bump("eliminations")
                text = f"{p} has no cards left and is out of the game"
                notes.append(damage(text, player=p, eliminated=True))
            left = s.active()
            if len(left) == 1:
                return notes + self._game_over(s, left, f"{left[0]} is the last player standing")
            if not left:
                return notes + self._wipeout(s, out)
            s.drawers = []
        else:
            order = [p for p in s.clockwise_from(q.attacker) if p not in s.eliminated]
            if self.v.draw_mode == "all_draw_one":
                drawers = order
            else:
                per = s.hand_size if self.v.empty_hand_refill == "hand_size" else 1
                drawers = [p for p in order if s.hand[p] == 0 for _ in range(per)]
            s.drawers = drawers[: s.draw_count]
        if not s.drawers:
            return notes + self._start_next(s)
        s.phase = DRAW
        if len(set(s.drawers)) == len(s.drawers):
            text = f"Draw one card each, clockwise from {q.attacker}: {', '.join(s.drawers)}"
        else:  # empty_hand_refill: hand_size
            counts = {p: s.drawers.count(p) for p in s.drawers}
            text = "Draw a new hand: " + ", ".join(f"{p} {n} cards" for p, n in counts.items())
        notes.append(legal(text, drawers=list(s.drawers)))
        return notes

    def _wipeout(self, s: CrushState, last: list[str]) -> list[Announcement]:
        if self.v.no_draw_wipeout == "draw":
            return self._game_over(s, [], "every remaining player ran out of cards at once")
        best = max(s.ladder[p] for p in last)
        top = [p for p in last if s.ladder[p] == best]
        return self._game_over(s, top, f"everyone ran out of cards at once; highest on the ladder ({best})")

    @handles(mv.Draw)
    def _do_Draw(self, s: CrushState, m: mv.Draw) -> list[Announcement]:
        self._need(s, DRAW, "draw")
        if m.player not in s.drawers:
            raise IllegalMove(f"{m.player} does not draw now: {', '.join(s.drawers)} still draw")
        s.drawers.remove(m.player)
        self._take_from_pile(s, m.player)
        if s.drawers:
            return []
        return self._start_next(s)

    def _take_from_pile(self, s: CrushState, player: str) -> None:
        if not s.draw_top:
            if not s.draw_under:
                raise IllegalMove("The draw pile is empty")
            s.draw_top = len(s.draw_under.pop(0))  # the batch's cards become unseen again
        s.draw_top -= 1
        s.hand[player] += 1

    # C9
    def _start_next(self, s: CrushState) -> list[Announcement]:
        ace = s.next_attacker
        s.next_attacker = None
        if ace and ace not in s.eliminated:
            return self._start_conquest(s, ace, ace_turn=True)
        assert s.anchor
        return self._start_conquest(s, s.after(s.anchor))

    def _start_conquest(self, s: CrushState, attacker: str, ace_turn: bool = False) -> list[Announcement]:
        cap = int(self.v.max_conquests)
        if cap and s.conquests >= cap:
            best = max(s.ladder[p] for p in s.active())
            top = [p for p in s.active() if s.ladder[p] == best]
            reason = f"cap of {cap} conquests reached; highest on the ladder"
            return self._game_over(s, top, reason, by_rules=False)
        if not (ace_turn and self.v.ace_resume == "original_order"):
            s.anchor = attacker
        s.conquests += 1
        s.conquest = Conquest(s.conquests, attacker, ace_turn)
        s.phase = DECLARE
        extra = " (Ace: extra turn)" if ace_turn else ""
        return [
            announce(f"Conquest {s.conquests}: {attacker} attacks{extra}", **self._status(s)),
            legal(f"{attacker}: name a victim ({', '.join(self._victims(s))})", victims=self._victims(s)),
        ]
