"""Royal Crush: the state a referee keeps and the typed moves that change it.

The referee never sees a hand, so the state keeps *counts* for hidden zones and identities
only where they are known: ``hand_known`` holds cards known to sit in a hand (a card
returned at the reveal); the conquest cards swept under the draw pile stay known, batch by
batch (``draw_under``), until the unknown top is used up; revealed cards lie in their slots.
Every other card is *unseen* (:meth:`CrushState.unseen`): in some hand, in the unknown top
of the draw pile or face-down in a slot. It is derived, not stored, so it cannot drift.
Every list whose order means nothing is kept sorted, so that equal situations give equal
JSON (the core compares states to decide whether to ASK).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import chain

from referee.cards import Card, full_deck

SIDES: tuple[str, ...] = ("attacker", "victim")
ATTACK_RANKS: frozenset[str] = frozenset(str(n) for n in range(2, 11))
ROYAL_RANKS: frozenset[str] = frozenset({"J", "Q", "K", "A", "JK"})
LADDER_TOP = 5
DECK_SIZE = 54
DECK_COUNTS: dict[Card, int] = {}
for _c in full_deck(2):
    DECK_COUNTS[_c] = DECK_COUNTS.get(_c, 0) + 1

# Phases, in the order a conquest runs through them.
DEAL, FIRST_ROLL, DECLARE, ALLIANCES, COMMIT, REVEAL, ROLLOFF, CLEANUP, DRAW, OVER = (
    "deal", "first_roll", "declare", "alliances", "commit", "reveal", "rolloff", "cleanup",
    "draw", "over",
)


def other_side(side: str) -> str:
    return "victim" if side == "attacker" else "attacker"


def is_attack(c: Card) -> bool:
    """2-10 are attack cards; J, Q, K, A and the joker are royal cards."""
    return c.rank in ATTACK_RANKS


def low_value(c: Card) -> int:
    """Order for "the lower one stays" (A10): pips, JK 0, A 1, J 11, Q 12, K 13."""
    return c.value


# ---- state ---------------------------------------------------------------------------------


@dataclass
class Slot:
    """One participant's ``commit_pN`` slot on a side mat.

    ``facedown`` cards are still unknown; ``shown`` are the revealed ones in placement order
    (``order_known`` False when they were flipped one by one, so the camera could not tell
    which was placed first). After validation ``returned`` lists the shown cards that go
    back to the hand; both lists shrink as the cleanup moves the cards away.
    """

    side: str
    facedown: int = 0
    shown: list[Card] = field(default_factory=list)
    order_known: bool = True
    returned: list[Card] = field(default_factory=list)

    def clone(self) -> Slot:
        return Slot(self.side, self.facedown, list(self.shown), self.order_known, list(self.returned))


@dataclass
class Resolution:
    """How the revealed cards scored (C5), kept for the announcements, stats and checks."""

    sides: dict[str, str]  # participant -> side after Joker switches
    powers: list[tuple[str, Card, int]]  # (player, card, attack power) of every counted card
    multipliers: dict[str, int]  # side -> x1 / x2 (combo mode, side scope)
    totals: dict[str, int]  # side -> total
    kings: int
    switched: list[str]  # players moved by their Joker
    all_win: bool
    winner_side: str | None  # None until a tie is rolled off (and for the all-win case)
    tie_reps: dict[str, str]  # side -> player who rolls for it
    ace_players: list[str]  # holders of an un-suppressed, counted Ace, clockwise from the attacker
    player_multipliers: dict[str, int] = field(default_factory=dict)  # combo_scope: player

    def clone(self) -> Resolution:
        return Resolution(
            dict(self.sides), list(self.powers), dict(self.multipliers), dict(self.totals),
            self.kings, list(self.switched), self.all_win, self.winner_side, dict(self.tie_reps),
            list(self.ace_players), dict(self.player_multipliers),
        )


@dataclass
class Conquest:
    """One turn: attacker, victim, allies, the commitment slots and how they scored."""

    number: int
    attacker: str
    ace_turn: bool = False  # an Ace won the previous conquest for this attacker
    victim: str | None = None
    allies: dict[str, str] = field(default_factory=dict)  # ally -> side
    excluded: dict[str, list[str]] = field(default_factory=dict)  # side -> barred players
    invited: dict[str, list[str]] = field(default_factory=dict)  # side -> invited players
    slots: dict[str, Slot] = field(default_factory=dict)
    resolution: Resolution | None = None

    def side_of(self, player: str) -> str | None:
        if player == self.attacker:
            return "attacker"
        if player == self.victim:
            return "victim"
        return self.allies.get(player)

    def principal(self, side: str) -> str | None:
        return self.attacker if side == "attacker" else self.victim

    def clone(self) -> Conquest:
        return Conquest(
            self.number, self.attacker, self.ace_turn, self.victim, dict(self.allies),
            {k: list(v) for k, v in self.excluded.items()},
            {k: list(v) for k, v in self.invited.items()},
            {p: s.clone() for p, s in self.slots.items()},
            self.resolution.clone() if self.resolution else None,
        )


@dataclass
class CrushState:
    """Everything that decides the rest of a Royal Crush game, as the referee knows it."""

    players: tuple[str, ...]
    hand_size: int
    phase: str = DEAL
    ladder: dict[str, int] = field(default_factory=dict)
    hand: dict[str, int] = field(default_factory=dict)  # cards in each hidden hand
    hand_known: dict[str, list[Card]] = field(default_factory=dict)  # of those, known ones
    draw_top: int = 0  # unknown cards on top of the draw pile
    draw_under: list[list[Card]] = field(default_factory=list)  # known batches below, top first
    eliminated: list[str] = field(default_factory=list)  # No Draw: out of the game
    rollers: list[str] = field(default_factory=list)  # who rolls in this round of dice
    rolls: dict[str, list[int]] = field(default_factory=dict)
    conquest: Conquest | None = None
    conquests: int = 0  # conquests started
    anchor: str | None = None  # clockwise order continues after this player
    next_attacker: str | None = None
    drawers: list[str] = field(default_factory=list)  # still to draw, clockwise
    winners: list[str] = field(default_factory=list)
    end_reason: str = ""
    by_rules: bool = True
    counters: dict[str, int] = field(default_factory=dict)

    @property
    def draw_count(self) -> int:
        return self.draw_top + sum(len(b) for b in self.draw_under)

    def active(self) -> list[str]:
        """Players still in the game, in seat order."""
        return [p for p in self.players if p not in self.eliminated]

    def clockwise_from(self, start: str) -> list[str]:
        """All players in seat order beginning with ``start``."""
        i = self.players.index(start)
        return list(self.players[i:] + self.players[:i])

    def after(self, player: str) -> str:
        """The next player still in the game clockwise after ``player``."""
        for p in self.clockwise_from(player)[1:]:
            if p not in self.eliminated:
                return p
        return player

    def located(self) -> Counter[Card]:
        """Cards whose place is known: on the table, under the draw pile, in a known hand."""
        parts: list[list[Card]] = [*self.draw_under, *self.hand_known.values()]
        if self.conquest:
            parts += [slot.shown for slot in self.conquest.slots.values()]
        return Counter(chain.from_iterable(parts))

    def unseen(self) -> dict[Card, int]:
        """Cards of unknown place (the deck minus :meth:`located`), with their counts."""
        located = self.located()
        return {c: n - located[c] for c, n in DECK_COUNTS.items() if n > located[c]}

    def bump(self, counter: str, by: int = 1) -> None:
        self.counters[counter] = self.counters.get(counter, 0) + by

    def clone(self) -> CrushState:
        return CrushState(
            self.players, self.hand_size, self.phase, dict(self.ladder), dict(self.hand),
            {p: list(v) for p, v in self.hand_known.items()}, self.draw_top,
            [list(b) for b in self.draw_under], list(self.eliminated), list(self.rollers),
            {p: list(v) for p, v in self.rolls.items()},
            self.conquest.clone() if self.conquest else None, self.conquests, self.anchor,
            self.next_attacker, list(self.drawers), list(self.winners), self.end_reason,
            self.by_rules, dict(self.counters),
        )
