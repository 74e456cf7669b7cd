"""Royal Family: players, suits, zones and the state (docs/rules/royal_family.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.cards import Card

PLAYERS = ("black", "red")
HOUSE = {"black": "Darklein", "red": "Bludgein"}
PRIMARY = {"black": "spades", "red": "hearts"}
ALLIANCE = {"black": "clubs", "red": "diamonds"}
SUITS_OF = {"black": ("spades", "clubs"), "red": ("hearts", "diamonds")}
OWNER = {"spades": "black", "clubs": "black", "hearts": "red", "diamonds": "red"}
CASTLE_SUITS = ("spades", "clubs", "hearts", "diamonds")
SUIT_LETTER = {"spades": "S", "clubs": "C", "hearts": "H", "diamonds": "D"}
SUIT_OF_LETTER = {v: k for k, v in SUIT_LETTER.items()}
STATION = {"J": 1, "Q": 2, "K": 3}
FLOPS = ("flop_1", "flop_2", "flop_3")
CASTLE_ZONES = ("castle", "fort", "fort_hits", "castle_damage", "residents", "dungeon")
SHARED_ZONES = ("draw_pile", *FLOPS, "discard_pile", "joker_spot", "staging", "out_of_game")
ZONES: tuple[str, ...] = SHARED_ZONES + tuple(f"{z}_{s}" for s in CASTLE_SUITS for z in CASTLE_ZONES)


def other(player: str) -> str:
    return "red" if player == "black" else "black"


def suit_name(c: Card) -> str:
    return SUIT_OF_LETTER.get(c.suit, "")


@dataclass
class RFState:
    """Everything the referee knows. ``zones`` maps each zone id to its cards, bottom first;
    the draw pile's order is unknown, so ``zones["draw_pile"]`` is kept sorted (a set)."""

    zones: dict[str, list[Card]]
    age: str = "revolution"
    round: int = 1
    order: list[str] = field(default_factory=list)
    turn_index: int = 0
    phase: str = "flop"  # flop | take | staged | surprise | assassinate | bonus | over
    flop_next: int = 1
    flop_cards: list[Card] = field(default_factory=list)  # tops flopped this round
    castle_status: dict[str, str] = field(default_factory=dict)
    surprise_damage: dict[str, int] = field(default_factory=dict)
    hp: dict[str, int] = field(default_factory=dict)
    fort_tracked: dict[str, int] = field(default_factory=dict)  # discard_and_track hits
    staged_from: str | None = None
    bonus: dict | None = None  # open attack: target, enabler, damaging, used bonuses
    expected: list[tuple[str, str, str]] = field(default_factory=list)  # clean-up movements
    passes: int = 0
    second_last_round: str | None = None
    winner: str | None = None
    end_reason: str | None = None
    by_rules: bool = True

    @property
    def active(self) -> str:
        return self.order[self.turn_index]

    def top(self, zone: str) -> Card | None:
        cards = self.zones[zone]
        return cards[-1] if cards else None

    def copy(self) -> RFState:
        new = RFState.__new__(RFState)
        new.__dict__.update(self.__dict__)
        new.zones = {k: v[:] for k, v in self.zones.items()}
        new.order = self.order[:]
        new.flop_cards = self.flop_cards[:]
        new.castle_status = dict(self.castle_status)
        new.surprise_damage = dict(self.surprise_damage)
        new.hp = dict(self.hp)
        new.fort_tracked = dict(self.fort_tracked)
        new.bonus = None if self.bonus is None else {**self.bonus, "used": list(self.bonus["used"])}
        new.expected = self.expected[:]
        return new
