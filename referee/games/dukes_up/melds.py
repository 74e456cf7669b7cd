"""Dukes Up! melds: is a group of cards a valid run or set, and how can a group split into
valid melds (docs/rules/dukes_up.md).

A **set** is 3-4 cards of one rank. A **run** is 3+ cards of consecutive ranks whose suits
all belong to one group: *thorns* (spades, diamonds) or *flowers* (clubs, hearts). An ace is
low (A-2-3) or high (Q-K-A); K-A-2 wraps around and is allowed only with ``ace_wrap``.

The partition search is exact: it always puts the lowest remaining card into every valid
meld that can hold it and recurses on the rest, memoised on the set of cards left (a
bitmask), so a table is never split greedily into a dead end.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from itertools import combinations, product

from referee.cards import Card

THORNS, FLOWERS = "thorns", "flowers"
GROUP_OF_SUIT: dict[str, str] = {"S": THORNS, "D": THORNS, "C": FLOWERS, "H": FLOWERS}
MIN_MELD = 3
RANK_COUNT = 13

MeldCards = tuple[Card, ...]


def group(card: Card) -> str:
    return GROUP_OF_SUIT[card.suit]


def show(cards: Iterable[Card]) -> str:
    """Cards in a stable readable order: ``5S 6S 7S``."""
    return " ".join(str(c) for c in sort_cards(cards))


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    return sorted(cards, key=lambda c: (c.value, c.suit))


def _consecutive(values: Sequence[int]) -> bool:
    ordered = sorted(values)
    return all(b == a + 1 for a, b in zip(ordered, ordered[1:], strict=False))


def _cyclic_arc(values: set[int]) -> bool:
    """True when the rank values (1..13) form one unbroken arc on the circle K-A-2."""
    if len(values) >= RANK_COUNT:
        return True
    ends = sum(1 for v in values if (v % RANK_COUNT) + 1 not in values)
    return ends == 1


def meld_problem(cards: Sequence[Card], ace_wrap: bool = False) -> str | None:
    """None for a valid run or set; else what is wrong, phrased to follow "meld X ..."."""
    if len(cards) < MIN_MELD:
        return "has fewer than 3 cards (a meld needs at least 3 cards)"
    if len(set(cards)) != len(cards):
        return "holds the same card twice"
    ranks = {c.rank for c in cards}
    if len(ranks) == 1:
        return None  # a set: at most 4 distinct cards share a rank
    if len({group(c) for c in cards}) > 1:
        return "mixes flowers and thorns (a run is all spades/diamonds or all clubs/hearts)"
    if len(ranks) != len(cards):
        return "repeats a rank (a run has one card of each rank)"
    values = [c.value for c in cards]
    if _consecutive(values):
        return None
    if 1 in values and _consecutive([14 if v == 1 else v for v in values]):
        return None
    if 1 in values and _cyclic_arc(set(values)):
        return None if ace_wrap else "wraps around (no wrap-around: an ace is low or high, not both)"
    return "ranks not consecutive"


def is_meld(cards: Sequence[Card], ace_wrap: bool = False) -> bool:
    return meld_problem(cards, ace_wrap) is None


# ---- every valid meld that holds a given card ---------------------------------------------
@cache
def _run_windows(value: int, ace_wrap: bool) -> tuple[tuple[int, ...], ...]:
    """Rank windows (values 1..13, ace 1) of length 3..13 that contain ``value``."""
    return tuple(_windows(value, ace_wrap))


def _windows(value: int, ace_wrap: bool) -> Iterator[tuple[int, ...]]:
    seen: set[frozenset[int]] = set()
    if ace_wrap:
        for length in range(MIN_MELD, RANK_COUNT + 1):
            for start in range(1, RANK_COUNT + 1):
                window = tuple((start - 1 + i) % RANK_COUNT + 1 for i in range(length))
                key = frozenset(window)
                if value in window and key not in seen:
                    seen.add(key)
                    yield window
        return
    # positions 1..14: the ace stands at 1 (low) or 14 (high)
    for lo in range(1, 15):
        for hi in range(lo + MIN_MELD - 1, min(lo + RANK_COUNT - 1, 14) + 1):
            folded = tuple(1 if v == 14 else v for v in range(lo, hi + 1))
            key = frozenset(folded)
            if value in folded and key not in seen and len(key) == len(folded):
                seen.add(key)
                yield folded


def melds_with(card: Card, pool: Iterable[Card], ace_wrap: bool = False) -> Iterator[frozenset[Card]]:
    """Every valid meld made of ``card`` and other cards of ``pool`` (each meld once)."""
    others = [c for c in pool if c != card]
    same = [c for c in others if c.rank == card.rank]
    for size in (2, 3):
        for rest in combinations(same, size):
            yield frozenset((card, *rest))
    by_value: dict[int, list[Card]] = {}
    for c in others:
        if group(c) == group(card):
            by_value.setdefault(c.value, []).append(c)
    for window in _run_windows(card.value, ace_wrap):
        slots = [[card] if v == card.value else by_value.get(v, []) for v in window]
        if all(slots):
            for choice in product(*slots):
                yield frozenset(choice)


# ---- partitions ---------------------------------------------------------------------------
class Partitioner:
    """Splits a group of cards into valid melds, exactly (see the module docstring)."""

    def __init__(self, cards: Iterable[Card], ace_wrap: bool = False):
        self.cards = sort_cards(set(cards))
        self.ace_wrap = ace_wrap
        self.bit = {c: 1 << i for i, c in enumerate(self.cards)}
        self._melds: dict[int, list[int]] = {}
        self._found: dict[int, tuple[tuple[int, ...], ...]] = {}
        self._limit = 0

    def _mask(self, cards: Iterable[Card]) -> int:
        m = 0
        for c in cards:
            m |= self.bit[c]
        return m

    def _melds_of(self, index: int) -> list[int]:
        """Masks of the valid melds whose lowest card is card ``index``."""
        if index not in self._melds:
            card = self.cards[index]
            pool = self.cards[index:]
            self._melds[index] = sorted({self._mask(m) for m in melds_with(card, pool, self.ace_wrap)})
        return self._melds[index]

    def _solve(self, mask: int) -> tuple[tuple[int, ...], ...]:
        if mask == 0:
            return ((),)
        if mask in self._found:
            return self._found[mask]
        lowest = (mask & -mask).bit_length() - 1
        out: list[tuple[int, ...]] = []
        for meld in self._melds_of(lowest):
            if meld & ~mask:
                continue
            for rest in self._solve(mask & ~meld):
                out.append((meld, *rest))
                if len(out) >= self._limit:
                    break
            if len(out) >= self._limit:
                break
        result = tuple(out)
        self._found[mask] = result
        return result

    def partitions(self, limit: int = 1000) -> list[list[MeldCards]]:
        """Up to ``limit`` ways to split all the cards into valid melds (none: impossible)."""
        self._found.clear()
        self._limit = max(1, limit)
        full = (1 << len(self.cards)) - 1
        return [[self._cards_of(m) for m in way] for way in self._solve(full)]

    def _cards_of(self, mask: int) -> MeldCards:
        return tuple(c for c in self.cards if mask & self.bit[c])


def partitions(cards: Iterable[Card], ace_wrap: bool = False, limit: int = 1000) -> list[list[MeldCards]]:
    """Up to ``limit`` ways to split ``cards`` into valid melds."""
    return Partitioner(cards, ace_wrap).partitions(limit)


def can_partition(cards: Iterable[Card], ace_wrap: bool = False) -> bool:
    return bool(partitions(cards, ace_wrap, limit=1))


def pool_readings(melds: Sequence[Sequence[Card]], pool: Iterable[Card], ace_wrap: bool = False,
                  limit: int = 1000) -> list[list[MeldCards]]:
    """Up to ``limit`` ways to group ``pool`` (cards laid on the table, their melds unseen) with
    the table's ``melds``: each meld kept whole, extended by pool cards or not, and the rest of
    the pool split into new melds. With no such way the players must have rearranged melds (a
    move inside the table a camera cannot see): then every partition of the whole table."""
    rest = sort_cards(set(pool))
    kept = [sort_cards(m) for m in melds]
    out: list[list[MeldCards]] = []

    def extend(i: int, left: list[Card], acc: list[MeldCards]) -> None:
        if len(out) >= limit:
            return
        if i == len(kept):
            for way in partitions(left, ace_wrap, limit=limit - len(out)):
                out.append(acc + way)
            return
        for k in range(len(left) + 1):
            for extra in combinations(left, k):
                grown = kept[i] + list(extra)
                if is_meld(grown, ace_wrap):
                    extend(i + 1, [c for c in left if c not in extra], [*acc, tuple(sort_cards(grown))])

    extend(0, rest, [])
    if not out:
        out = partitions([c for m in kept for c in m] + rest, ace_wrap, limit=limit)
    return out
