"""Royal Shuffle's state: the court, both villages, hand counts and what is still unseen.

The referee never sees a hand or the order of the draw pile. It keeps the multiset of
*unseen* cards (in the pile or in a hand) and, when a player shows a hand, the cards known
to be there; a card played or flipped must be one that can still be where it comes from.
Scores are never stored: they are derived from the villages and the court (docs/rules/royal_shuffle.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.cards import Card, full_deck
from referee.games.royal_shuffle.scoring import Court

PLAYERS: tuple[str, str] = ("p1", "p2")
DECK_SIZE = 54
HAND_SIZE = 4
JOKER = Card("JK")
BACK = Card("BACK")

# Phases: dealing (and choosing who starts), the turns, and the end.
DEAL, TURN, OVER = "deal", "turn", "over"
# The three steps of a turn, in the recommended order (A4).
FLIP, DRAW, PLAY = "flip", "draw", "play"
STEPS: tuple[str, ...] = (FLIP, DRAW, PLAY)

VILLAGE = {p: f"village_{p}" for p in PLAYERS}
HAND = {p: f"hand_{p}" for p in PLAYERS}
OWNER = {**{v: p for p, v in VILLAGE.items()}, **{h: p for p, h in HAND.items()}}
COURT_ZONES: dict[str, str] = {"K": "court_king", "Q": "court_queen", "J": "court_jacks", "JK": "court_joker"}
# ``village`` is a village whose owner the camera could not tell (a card on the midline).
ANY_VILLAGE = "village"
PLACES: frozenset[str] = frozenset({*VILLAGE.values(), *COURT_ZONES.values(), ANY_VILLAGE})
ZONES: frozenset[str] = frozenset({"draw_pile", "discard_pile", *HAND.values(), *PLACES})


def other(p: str) -> str:
    return PLAYERS[1] if p == PLAYERS[0] else PLAYERS[0]


def fresh_deck() -> dict[Card, int]:
    """All 54 cards as a multiset (the two jokers are one identity)."""
    out: dict[Card, int] = {}
    for c in full_deck(2):
        out[c] = out.get(c, 0) + 1
    return out


@dataclass(slots=True)
class ShuffleState:
    phase: str = DEAL
    first: str | None = None  # who starts (declared after the draw of lots)
    active: str | None = None
    turn: int = 0
    done: list[str] = field(default_factory=list)  # steps taken in this turn
    draw_pile: int = DECK_SIZE
    hand_count: dict[str, int] = field(default_factory=lambda: {p: 0 for p in PLAYERS})
    hand_known: dict[str, list[Card]] = field(default_factory=lambda: {p: [] for p in PLAYERS})
    unseen: dict[Card, int] = field(default_factory=fresh_deck)  # in the pile or a hand
    king: Card | None = None
    queen: Card | None = None
    jacks: list[Card] = field(default_factory=list)
    jokers: list[Card] = field(default_factory=list)  # court_joker
    villages: dict[str, list[Card]] = field(default_factory=lambda: {p: [] for p in PLAYERS})
    discard: list[Card] = field(default_factory=list)
    to_discard: list[Card] = field(default_factory=list)  # replaced monarchs still on the court
    layouts: dict[str, dict[Card, Card]] = field(default_factory=lambda: {p: {} for p in PLAYERS})
    pile_ran_out: bool = False  # the draw pile emptied during this turn
    winner: str | None = None
    end_reason: str = ""

    def copy(self) -> ShuffleState:
        return ShuffleState(
            self.phase, self.first, self.active, self.turn, list(self.done), self.draw_pile,
            dict(self.hand_count), {p: list(v) for p, v in self.hand_known.items()},
            dict(self.unseen), self.king, self.queen, list(self.jacks), list(self.jokers),
            {p: list(v) for p, v in self.villages.items()}, list(self.discard),
            list(self.to_discard), {p: dict(v) for p, v in self.layouts.items()},
            self.pile_ran_out, self.winner, self.end_reason,
        )

    # ---- derived -----------------------------------------------------------------------
    def court(self) -> Court:
        return Court(
            self.king.suit if self.king else None,
            self.queen.suit if self.queen else None,
            frozenset(j.suit for j in self.jacks),
        )

    def face_up(self) -> list[Card]:
        """Every card lying face up (court, villages, discard pile)."""
        court = [c for c in (self.king, self.queen) if c is not None]
        return [*court, *self.jacks, *self.jokers, *self.villages[PLAYERS[0]],
                *self.villages[PLAYERS[1]], *self.discard]

    def unseen_count(self) -> int:
        return sum(self.unseen.values())

    def locate(self, c: Card) -> str | None:
        """Where a face-up card lies (None if it is not face up)."""
        if c == self.king:
            return "court_king"
        if c == self.queen:
            return "court_queen"
        if c in self.jacks:
            return "court_jacks"
        for p, cards in self.villages.items():
            if c in cards:
                return VILLAGE[p]
        if c in self.discard:
            return "discard_pile"
        return None

    def still_to_do(self) -> list[str]:
        """The steps the active player still owes this turn (flip/draw skipped on an empty
        pile, play skipped with an empty hand)."""
        if self.phase != TURN or self.active is None:
            return []
        todo = []
        for step in STEPS:
            if step in self.done:
                continue
            if step in (FLIP, DRAW) and self.draw_pile == 0:
                continue
            if step == PLAY and self.hand_count[self.active] == 0:
                continue
            todo.append(step)
        return todo
