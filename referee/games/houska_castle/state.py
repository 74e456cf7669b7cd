"""Houska Castle's state: zones, field cards, forced steps and the arithmetic of a fight.

The referee never knows the order of the face-down piles. It keeps the *unseen* cards in
two sets: ``pool`` (never seen since the shuffle: in monster_pile, combat_pile or face-down
on the field) and ``combat_known`` (seen going back into combat_pile: cleanup, old Max HP
markers). A card revealed from monster_pile must come from ``pool``; one drawn from
combat_pile from either set. Counts of both piles are exact.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.cards import RANKS, Card

HERO, MONSTER = "hero", "monster"
FIELD = {HERO: "hero_field", MONSTER: "monster_field"}
SIDE_OF_FIELD = {v: k for k, v in FIELD.items()}
FIELDS = frozenset(FIELD.values())
HERO_CARD = Card("K", "H")
JOKER = Card("JK")

ZONES: frozenset[str] = frozenset(
    {
        "monster_pile", "combat_pile", "hero_card", "hero_points", "hero_points_used",
        "max_hp_card", "artifacts", "hand", "monster_slot", "monster_rewards",
        "monster_field", "hero_field",
    }
)

START_BUFF = {"S": 0, "H": 2, "D": 0, "C": 0}
START_MAX_HP = 5


def other(side: str) -> str:
    return MONSTER if side == HERO else HERO


def rank_text(value: int) -> str:
    """Rank of a Max HP value (6 -> "6")."""
    return RANKS[value - 1]


@dataclass(slots=True)
class FieldCard:
    """A card in a field. ``zone`` is where it lies, ``side`` whose points it adds to: they
    differ only while a steal still has to be carried out (a ``steal`` duty)."""

    seq: int
    card: Card | None  # None: the face-down observation card, identity unknown
    zone: str
    side: str
    role: str  # observation | play | bodyguard | stolen | ace
    face_up: bool
    nullified: bool = False
    monster_play: bool = False  # uses one of the monster's card allowance
    thief: Card | None = None  # the Queen that stole it

    def copy(self) -> FieldCard:
        return FieldCard(self.seq, self.card, self.zone, self.side, self.role, self.face_up,
                         self.nullified, self.monster_play, self.thief)

    @property
    def counting(self) -> bool:
        """Adds points: identity known, not nullified, not an ace on its way to the rewards."""
        return self.card is not None and not self.nullified and self.role != "ace"


@dataclass(frozen=True)
class Duty:
    """A forced step the player must carry out before anything else (in list order).

    kind: heal (draw to Max HP), marker (level-up search for ``rank``), shuffle, bodyguard
    (draw under King ``card`` on ``side``), steal (move ``card`` to the thief's field),
    nullify (turn ``card`` face down), reveal (turn up the hidden observation card),
    monster_play (``forced``: replaces an ace, ignores the allowance), to_rewards (move the
    turned-up ace ``card`` to monster_rewards).
    """

    kind: str
    card: Card | None = None
    side: str | None = None
    rank: int = 0
    forced: bool = False


@dataclass(slots=True)
class HouskaState:
    phase: str = "setup"  # setup deal reveal observe hero monster death cleanup rewards regen over
    max_hp: int = START_MAX_HP
    marker: list[Card] = field(default_factory=list)  # max_hp_card (two cards mid-swap)
    hero_points: int = 2
    hero_points_used: int = 0
    buff: dict[str, int] = field(default_factory=lambda: dict(START_BUFF))
    artifacts: list[Card] = field(default_factory=list)
    hand: list[Card] = field(default_factory=list)
    pool: set[Card] = field(default_factory=set)
    combat_known: set[Card] = field(default_factory=set)
    monster_pile: int = 0
    combat_pile: int = 0
    monster: Card | None = None
    rewards: list[Card] = field(default_factory=list)
    table: list[FieldCard] = field(default_factory=list)  # both fields, in placement order
    steals: dict[str, list[Card]] = field(default_factory=lambda: {HERO: [], MONSTER: []})
    duties: list[Duty] = field(default_factory=list)
    encounter: int = 0
    budget: int = 0
    monster_played: int = 0
    exchange: int = 0
    placed: int = 0  # Hero cards this exchange (stolen ones included, bodyguards not)
    initial_count: int = 0  # Hero cards of the initial attack
    hero_done: bool = False
    regen_draws: int = 0
    final: bool = False  # monster_pile ran out on an ace: victory once the rewards are in
    seq: int = 0
    defeated: int = 0
    exchanges: int = 0
    shuffles: int = 0
    hp_lost: int = 0
    encounter_start_hp: int = 0
    result: str | None = None  # victory | defeat

    def copy(self) -> HouskaState:
        return HouskaState(
            self.phase, self.max_hp, list(self.marker), self.hero_points, self.hero_points_used,
            dict(self.buff), list(self.artifacts), list(self.hand), set(self.pool),
            set(self.combat_known), self.monster_pile, self.combat_pile, self.monster,
            list(self.rewards), [f.copy() for f in self.table],
            {HERO: list(self.steals[HERO]), MONSTER: list(self.steals[MONSTER])},
            list(self.duties), self.encounter, self.budget, self.monster_played, self.exchange,
            self.placed, self.initial_count, self.hero_done, self.regen_draws, self.final,
            self.seq, self.defeated, self.exchanges, self.shuffles, self.hp_lost,
            self.encounter_start_hp, self.result,
        )

    # ---- derived values ----------------------------------------------------------------
    def unseen(self, card: Card) -> bool:
        return card in self.pool or card in self.combat_known

    def hidden_count(self) -> int:
        return sum(1 for f in self.table if f.card is None)

    def value(self, f: FieldCard) -> int:
        """Points of a counting field card for its side: Hero buffs only on the Hero side."""
        assert f.card is not None
        v = f.card.value
        return v + self.buff[f.card.suit] if f.side == HERO else v

    def sums(self) -> tuple[int, int]:
        """(Hero points H, monster points M) of the counting cards (§5.1)."""
        h = m = 0
        for f in self.table:
            if f.counting:
                if f.side == HERO:
                    h += self.value(f)
                else:
                    m += self.value(f)
        return h, m

    def plays_left(self) -> int:
        """The monster's remaining card allowance; cards already committed (the hidden
        observation card, observation cards not yet resolved) are counted as used."""
        committed = self.monster_played + sum(
            1 for f in self.table if f.role == "observation" and not f.monster_play
        )
        return max(0, self.budget - committed)

    def find(self, card: Card) -> FieldCard | None:
        for f in self.table:
            if f.card == card:
                return f
        return None

    def locate(self, card: Card) -> str:
        """A readable place of a card the referee has seen (for reject reasons)."""
        if card == HERO_CARD:
            return "hero_card"
        if card in self.hand:
            return "hand"
        if card in self.artifacts:
            return "artifacts"
        if card in self.marker:
            return "max_hp_card"
        if card in self.rewards:
            return "monster_rewards"
        if card == self.monster:
            return "monster_slot"
        f = self.find(card)
        if f is not None:
            return f.zone
        if card in self.combat_known:
            return "combat_pile"
        return "an unseen pile"
