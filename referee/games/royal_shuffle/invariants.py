"""Royal Shuffle invariants: what must hold in every state the referee can reach.

All 54 cards are accounted for exactly once (face up, or unseen in the pile or a hand), the
known hand cards are among the unseen ones, every zone holds only the cards it may hold,
hand sizes follow from the turns, and the game is over exactly when a rule ended it.
"""

from __future__ import annotations

from collections import Counter

from referee.errors import InvariantError
from referee.games.royal_shuffle.scoring import evaluate, is_village_card
from referee.games.royal_shuffle.state import (
    DECK_SIZE,
    DRAW,
    HAND_SIZE,
    OVER,
    PLAY,
    PLAYERS,
    TURN,
    ShuffleState,
    fresh_deck,
)
from referee.games.royal_shuffle.variants import Variants


def check_state(s: ShuffleState, v: Variants) -> None:
    """Raise InvariantError naming the first broken invariant."""
    face_up = Counter(s.face_up())
    unseen = Counter(s.unseen)
    if any(n <= 0 for n in s.unseen.values()):
        raise InvariantError(f"unseen holds a non-positive count: {s.unseen}")
    if face_up + unseen != Counter(fresh_deck()):
        twice = sorted(str(c) for c, n in (face_up + unseen).items() if n > fresh_deck().get(c, 0))
        missing = sorted(str(c) for c, n in fresh_deck().items() if (face_up + unseen)[c] < n)
        raise InvariantError(f"cards not conserved: in two zones {twice}, missing {missing}")
    hidden = s.draw_pile + sum(s.hand_count.values())
    if sum(unseen.values()) != hidden or len(s.face_up()) + hidden != DECK_SIZE:
        raise InvariantError(f"{sum(unseen.values())} unseen cards for a pile of {s.draw_pile} "
                             f"and hands {s.hand_count}")
    known = Counter(s.hand_known[PLAYERS[0]]) + Counter(s.hand_known[PLAYERS[1]])
    if known - unseen:
        raise InvariantError(f"cards known in a hand are not unseen: {sorted(map(str, known - unseen))}")
    for p in PLAYERS:
        if len(s.hand_known[p]) > s.hand_count[p] or s.hand_count[p] < 0:
            raise InvariantError(f"{p} holds {s.hand_count[p]} cards, {len(s.hand_known[p])} known")
        if not all(is_village_card(c) for c in s.villages[p]):
            raise InvariantError(f"a royal card in {p}'s village")
        for resident, host in s.layouts[p].items():
            if resident not in s.villages[p] or host not in s.villages[p]:
                raise InvariantError(f"layout of {p} names {resident}/{host} outside the village")
        if s.layouts[p]:
            evaluate(s.villages[p], s.layouts[p], s.court())
    if (s.king and s.king.rank != "K") or (s.queen and s.queen.rank != "Q"):
        raise InvariantError(f"court holds {s.king} as King, {s.queen} as Queen")
    if any(j.rank != "J" for j in s.jacks) or len(set(s.jacks)) != len(s.jacks):
        raise InvariantError(f"court_jacks holds {s.jacks}")
    if any(not c.is_joker for c in s.jokers) or any(c.rank not in ("K", "Q") for c in s.discard):
        raise InvariantError("court_joker or discard_pile holds the wrong cards")
    if Counter(s.to_discard) - Counter(s.discard):
        raise InvariantError("a monarch waits for discard_pile but is not replaced")
    if s.phase == TURN and s.draw_pile > 0:
        for p in PLAYERS:
            expect = HAND_SIZE
            if p == s.active:
                expect += (DRAW in s.done) - (PLAY in s.done)
            if s.hand_count[p] != expect:
                raise InvariantError(f"{p} holds {s.hand_count[p]} cards, expected {expect}")
    ending_jokers = 1 if v.joker_mode == "first_ends" else 2
    if len(s.jokers) > ending_jokers or (len(s.jokers) == ending_jokers) != (
        s.phase == OVER and s.end_reason.startswith("Joker")
    ):
        raise InvariantError(f"{len(s.jokers)} jokers in court but phase {s.phase}")
    if s.phase != OVER and (s.winner is not None or s.end_reason):
        raise InvariantError("a winner before the end")
