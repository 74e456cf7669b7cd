"""Royal Crush invariants: what must hold in every state the referee can reach.

Cards are conserved (54 across pile, hands, slots) and none is in two places; the unseen
cards match the hidden places that can hold them; ladders stay on 0-5; the sides obey the
alliance rules; the side totals add up from the card powers.
"""

from __future__ import annotations

from referee.errors import InvariantError
from referee.games.royal_crush.resolve import recount
from referee.games.royal_crush.state import CLEANUP, DECK_SIZE, LADDER_TOP, OVER, CrushState


def check_state(state: CrushState) -> None:
    """Raise InvariantError naming the first broken invariant."""
    s = state
    q = s.conquest
    slots = q.slots if q else {}
    facedown = sum(slot.facedown for slot in slots.values())
    on_table = [c for slot in slots.values() for c in slot.shown]
    total = s.draw_count + sum(s.hand.values()) + facedown + len(on_table)
    if total != DECK_SIZE:
        raise InvariantError(f"{total} cards in play, expected {DECK_SIZE}")
    located = s.located()
    twice = [f"{c} x{n}" for c, n in located.items() if n > 1 and (n > 2 or not c.is_joker)]
    if twice:
        raise InvariantError(f"cards in two places: {', '.join(twice)}")
    hidden_known = sum(len(v) for v in s.hand_known.values())
    unseen = DECK_SIZE - sum(located.values())
    if unseen != s.draw_top + sum(s.hand.values()) + facedown - hidden_known:
        raise InvariantError(
            f"{unseen} unseen cards for {s.draw_top} on the pile, {sum(s.hand.values())} in hands "
            f"({hidden_known} known) and {facedown} face-down"
        )
    for p in s.players:
        slot = slots.get(p)
        if len(s.hand_known[p]) > s.hand[p] + (slot.facedown if slot else 0):
            raise InvariantError(f"{p} has more known cards than hidden cards")
        if not 0 <= s.ladder[p] <= LADDER_TOP:
            raise InvariantError(f"{p}'s ladder {s.ladder[p]} outside 0..{LADDER_TOP}")
        if s.hand[p] < 0:
            raise InvariantError(f"{p} has {s.hand[p]} cards")
    empty_batches = [i for i, b in enumerate(s.draw_under) if not b]
    if empty_batches and (s.phase != CLEANUP or empty_batches != [len(s.draw_under) - 1]):
        raise InvariantError("an empty batch under the draw pile")
    if q and q.victim:
        if q.victim == q.attacker:
            raise InvariantError("attacker and victim are the same player")
        for p, side in q.allies.items():
            if p in (q.attacker, q.victim) or p in q.excluded.get(side, []):
                raise InvariantError(f"{p} is an ally of the {side} side against the rules")
        for p, slot in slots.items():
            limit = 1 if p in q.allies else 2
            if slot.facedown + len(slot.shown) > limit:
                raise InvariantError(f"{p}'s slot holds {slot.facedown + len(slot.shown)} cards")
            for c in slot.returned:
                if slot.returned.count(c) > slot.shown.count(c):
                    raise InvariantError(f"returned {c} is not in {p}'s slot")
        res = q.resolution
        if res is not None and recount(res) != res.totals:
            raise InvariantError(f"totals {res.totals} do not add up to {recount(res)}")
    if s.phase == OVER and s.by_rules and s.winners:
        at_top = [p for p in s.players if s.ladder[p] >= LADDER_TOP]
        if at_top and sorted(at_top) != sorted(s.winners):
            raise InvariantError(f"winners {s.winners} but {at_top} are on {LADDER_TOP}")
