"""Dukes Up!'s state: two colour halves, the shared table of melds, and the turn's bookkeeping.

A card's colour says whose it is for ever (docs/rules/dukes_up.md), so each player's cards are tracked in
that player's :class:`Side`. The referee never sees a hand or a draw pile: ``hidden`` holds
the player's cards not seen since the last shuffle (in the draw pile, the unknown part of
the hand, or the face-down castle); ``hand_known`` the hand cards it has seen (a duke
switched back, a card drawn from the discard pile). Counts are exact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from referee.cards import RANKS, Card

BLACK, RED = "black", "red"
PLAYERS: tuple[str, str] = (BLACK, RED)
SUITS_OF: dict[str, tuple[str, str]] = {BLACK: ("S", "C"), RED: ("H", "D")}
HAND_LIMIT = 4
MAX_DRAW = 2
SETUP_DRAW = 4
DUKES_AT_SETUP = 2
CASTLE_BONUS = 3

PLAYER_ZONES: tuple[str, ...] = ("draw_pile", "discard_pile", "hand", "castle", "dukes")
ZONES: frozenset[str] = frozenset(
    {f"{z}_{p}" for z in PLAYER_ZONES for p in PLAYERS} | {"table"}
)
MELD_ZONE = re.compile(r"meld_[1-9][0-9]{0,3}")


def other(player: str) -> str:
    return RED if player == BLACK else BLACK


def owner(card: Card) -> str:
    """The player whose colour the card is (docs/rules/dukes_up.md: it never changes)."""
    return BLACK if card.suit in SUITS_OF[BLACK] else RED


def half_deck(player: str) -> list[Card]:
    return [Card(r, s) for s in SUITS_OF[player] for r in RANKS]


def zone_of(zone: str) -> tuple[str, str | None]:
    """``hand_black`` -> ("hand", "black"); ``meld_3`` -> ("meld", None); ``table`` -> ("table", None)."""
    if MELD_ZONE.fullmatch(zone):
        return "meld", None
    if zone == "table":
        return "table", None
    kind, _, player = zone.rpartition("_")
    return kind, player


@dataclass(slots=True)
class Side:
    """One player's cards outside the table."""

    hidden: set[Card]
    draw: int = 0
    hand: int = 0
    hand_known: list[Card] = field(default_factory=list)
    discard: list[Card] = field(default_factory=list)  # top is the end
    dukes: list[Card] = field(default_factory=list)
    castle_down: bool = False  # a face-down castle lies in castle_p
    castle_up: Card | None = None  # the face-up castle
    setup_dukes: int = 0  # face-down dukes before the reveal

    def copy(self) -> Side:
        return Side(set(self.hidden), self.draw, self.hand, list(self.hand_known),
                    list(self.discard), list(self.dukes), self.castle_down, self.castle_up,
                    self.setup_dukes)

    @property
    def hand_unknown(self) -> int:
        return self.hand - len(self.hand_known)

    @property
    def has_castle(self) -> bool:
        return self.castle_down or self.castle_up is not None


@dataclass(slots=True)
class DukesState:
    sides: dict[str, Side] = field(
        default_factory=lambda: {p: Side(set(half_deck(p)), draw=13 * 2) for p in PLAYERS}
    )
    phase: str = "setup"  # setup first draw play second_discard over
    active: str = BLACK
    first: str | None = None
    turn: int = 0
    melds: dict[str, list[Card]] = field(default_factory=dict)  # meld id -> cards
    # Cards seen arriving on the table this turn whose meld nobody named (a camera sees the
    # one ``table`` zone, not its clusters): grouped with the melds when the turn is validated.
    pool: list[Card] = field(default_factory=list)
    # ---- this turn ----
    allowance: int = 0  # cards the active player may still draw
    drawn: int = 0
    flip_due: bool = False
    played: bool = False
    created_duke: bool = False
    switch_out: Card | None = None  # own duke gone to the hand, waiting for its replacement
    switch_in: Card | None = None  # hand card put among the dukes, waiting for the old duke
    taken: list[Card] = field(default_factory=list)  # opponent dukes taken this turn
    castle_taken: Card | None = None
    guards: list[Card] = field(default_factory=list)  # opponent dukes when the castle was taken
    last_stand: Card | None = None  # own castle melded on the final turn (variant)
    discards: int = 0
    final_turn: bool = False
    prev_played: bool | None = None  # did the player whose turn just ended play?
    # ---- end ----
    castle_taken_by: str | None = None
    scores: dict[str, int] = field(default_factory=dict)
    winner: str | None = None
    end_reason: str = ""
    by_rules: bool = True
    reshuffles: int = 0

    def copy(self) -> DukesState:
        return DukesState(
            {p: s.copy() for p, s in self.sides.items()}, self.phase, self.active, self.first,
            self.turn, {k: list(v) for k, v in self.melds.items()}, list(self.pool), self.allowance,
            self.drawn,
            self.flip_due, self.played, self.created_duke, self.switch_out, self.switch_in,
            list(self.taken), self.castle_taken, list(self.guards), self.last_stand,
            self.discards, self.final_turn, self.prev_played, self.castle_taken_by,
            dict(self.scores), self.winner, self.end_reason, self.by_rules, self.reshuffles,
        )

    # ---- lookups ----------------------------------------------------------------------
    def meld_of(self, card: Card) -> str | None:
        for key, cards in self.melds.items():
            if card in cards:
                return key
        return None

    def table_cards(self) -> set[Card]:
        """Every card on the table: the melds and the ungrouped pool."""
        return {c for cards in self.melds.values() for c in cards} | set(self.pool)

    def new_meld_id(self) -> str:
        n = 1
        while f"meld_{n}" in self.melds:
            n += 1
        return f"meld_{n}"

    def locate(self, card: Card) -> str:
        """Where the referee last saw ``card`` (for reject reasons)."""
        key = self.meld_of(card)
        if key is not None:
            return key
        if card in self.pool:
            return "table"
        p = owner(card)
        s = self.sides[p]
        if card in s.dukes:
            return f"dukes_{p}"
        if card == s.castle_up:
            return f"castle_{p}"
        if card in s.discard:
            return f"discard_pile_{p}"
        if card in s.hand_known:
            return f"hand_{p}"
        return f"{p}'s hidden cards"
