"""Royal Shuffle village scoring (docs/rules/royal_shuffle.md): the best settlement of a village, exactly.

The document says villagers "settle in the most beneficial way", so the referee finds the
best settlement itself; how the cards lie on the table does not matter. A greedy fill is
wrong once multipliers differ by suit (spec RS-2, RS-6), so this is an exact optimiser.

Why it is fast: cards of one role and rank differ only by their multiplier, and houses only
by theirs (tents not at all). A settlement is therefore decided by *how many* adults of each
rank are housed (always the heaviest of that rank), *how many* children of each rank are
cared for by those adults (the heaviest again), and which of the remaining children fill
the free tents (the heaviest of the rest). The optimiser enumerates the first, and for each
the maximal child-count vectors that fit the adults' capacities (computed once per set of
capacities and cached), which is exact because more cared-for children never score less.

Arithmetic: every multiplier is a whole number of halves (x3, x2 and at most one x1.5, as
each suit has one jack), so the search adds half-points as integers and returns a Fraction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache
from itertools import product

from referee.cards import Card
from referee.errors import InvariantError

CHILD_RANKS: tuple[int, ...] = (2, 3, 4, 5)
ADULT_RANKS: tuple[int, ...] = (6, 7, 8)
TENT_RANKS: tuple[int, ...] = (9, 10)
HOUSE_ADULTS = 2  # adults a house holds
TENT_ADULTS = 1
TENT_CHILDREN = 2  # children alone in an adult-free tent
MAX_PER_RANK = 4  # four suits: never more than 4 cards of one rank in a village

HOUSE_VALUE, ADULT_VALUE, CHILD_VALUE = 1, 3, 2


def role(c: Card) -> str:
    """``house``, ``adult``, ``child``, ``tent`` for village cards; ``court`` otherwise."""
    if c.rank == "A":
        return "house"
    v = c.value
    if v in CHILD_RANKS:
        return "child"
    if v in ADULT_RANKS:
        return "adult"
    if v in TENT_RANKS:
        return "tent"
    return "court"


def is_village_card(c: Card) -> bool:
    return role(c) != "court"


@dataclass(frozen=True)
class Court:
    """What the multipliers depend on: the King's suit, the Queen's, the suits of the Jacks."""

    king: str | None = None
    queen: str | None = None
    jacks: frozenset[str] = frozenset()

    def half_multiplier(self, c: Card) -> int:
        """2 x m(c): x3 for the King's suit, x2 for the Queen's, x1.5 for a Jack's (A6)."""
        hm = 2
        if c.suit == self.king:
            hm *= 3
        if c.suit == self.queen:
            hm *= 2
        if c.suit in self.jacks:
            hm = hm * 3 // 2
        return hm

    def multiplier(self, c: Card) -> Fraction:
        return Fraction(self.half_multiplier(c), 2)

    def describe(self) -> str:
        parts = [f"{rank}{suit}" for rank, suit in (("K", self.king), ("Q", self.queen)) if suit]
        parts += [f"J{s}" for s in sorted(self.jacks)]
        return " ".join(parts) or "empty court"


@dataclass(frozen=True)
class Settlement:
    """One arrangement of a village and what it scores.

    ``homes`` pairs each settled card with its host: an adult with its house or tent, a
    child with the adult who cares for it or the tent it shelters in. ``homeless`` lists
    unsettled adults and children (orphans in a derelict house count the same, A9);
    ``derelict`` the houses without an adult.
    """

    score: Fraction
    homes: tuple[tuple[Card, Card], ...] = ()
    homeless: tuple[Card, ...] = ()
    derelict: tuple[Card, ...] = ()

    @property
    def penalties(self) -> int:
        """Cards scoring negative: the tie-break of ``tie: fewer_penalty_cards_wins``."""
        return len(self.homeless) + len(self.derelict)

    def describe(self) -> str:
        """Short text for announcements: who is homeless, which houses are derelict."""
        parts = []
        if self.homeless:
            parts.append("homeless " + " ".join(map(str, self.homeless)))
        if self.derelict:
            parts.append("derelict " + " ".join(map(str, self.derelict)))
        return "; ".join(parts)


class SettlementError(ValueError):
    """An arrangement that breaks the settlement rules (the reason is player-facing)."""


# ---- evaluating one arrangement -------------------------------------------------------------
def evaluate(village: Sequence[Card], homes: Mapping[Card, Card], court: Court) -> Settlement:
    """Score the arrangement ``homes`` (resident -> host); raise SettlementError if illegal.

    Used for ``settlement: as_laid_out``, and to check every optimum the search returns.
    """
    cards = set(village)
    adults_in: dict[Card, list[Card]] = {}
    children_of: dict[Card, list[Card]] = {}
    for resident, host in homes.items():
        if resident not in cards or host not in cards:
            missing = resident if resident not in cards else host
            raise SettlementError(f"{missing} is not in this village")
        kind, host_kind = role(resident), role(host)
        if kind == "adult":
            if host_kind not in ("house", "tent"):
                raise SettlementError(f"Adult {resident} lives in a house or a tent, not with {host}")
            adults_in.setdefault(host, []).append(resident)
        elif kind == "child":
            if host_kind not in ("adult", "tent"):
                raise SettlementError(f"Child {resident} lives with an adult or in a tent, not with {host}")
            children_of.setdefault(host, []).append(resident)
        else:
            raise SettlementError(f"{resident} is a dwelling, it does not move in anywhere")
    for dwelling, adults in adults_in.items():
        limit = HOUSE_ADULTS if role(dwelling) == "house" else TENT_ADULTS
        if len(adults) > limit:
            raise SettlementError(f"{dwelling} holds at most {limit} adult{'s' if limit > 1 else ''}")
    for host, kids in children_of.items():
        if role(host) == "adult":
            if host not in homes:
                raise SettlementError(f"Adult {host} needs a dwelling to care for children")
            if sum(k.value for k in kids) > host.value:
                raise SettlementError(
                    f"{host} cares for children whose ranks add up to at most {host.value}")
        else:
            if host in adults_in:
                raise SettlementError(f"Tent {host} has an adult: it shelters no children alone")
            if len(kids) > TENT_CHILDREN:
                raise SettlementError(f"At most {TENT_CHILDREN} children alone in tent {host}")
    half = 0
    homeless: list[Card] = []
    derelict: list[Card] = []
    for c in sorted(village):
        hm = court.half_multiplier(c)
        kind = role(c)
        if kind == "house":
            if c in adults_in:
                half += HOUSE_VALUE * hm
            else:
                half -= HOUSE_VALUE * hm
                derelict.append(c)
        elif kind in ("adult", "child"):
            value = ADULT_VALUE if kind == "adult" else CHILD_VALUE
            if c in homes:
                half += value * hm
            else:
                half -= value * hm
                homeless.append(c)
    ordered = tuple(sorted(homes.items()))
    return Settlement(Fraction(half, 2), ordered, tuple(homeless), tuple(derelict))


# ---- the optimiser ----------------------------------------------------------------------------
Counts = tuple[int, int, int, int]  # children of rank 2, 3, 4, 5


def _top(vectors: Iterable[Counts]) -> tuple[Counts, ...]:
    """The maximal vectors of a set (none is componentwise below another)."""
    uniq = sorted(set(vectors), key=sum, reverse=True)
    out: list[Counts] = []
    for v in uniq:
        if not any(all(a <= b for a, b in zip(v, w, strict=True)) for w in out):
            out.append(v)
    return tuple(out)


@cache
def _fits(capacity: int) -> tuple[Counts, ...]:
    """The maximal child-count vectors whose ranks add up to at most ``capacity``."""
    ranges = [range(capacity // r + 1) for r in CHILD_RANKS]
    return _top(
        v for v in product(*ranges)  # type: ignore[misc]
        if sum(n * r for n, r in zip(v, CHILD_RANKS, strict=True)) <= capacity
    )


@cache
def _maximal(capacities: tuple[int, ...]) -> tuple[Counts, ...]:
    """The maximal child-count vectors (at most 4 a rank) that adults of these capacities can
    care for. Packable vectors are closed downwards, so these decide the set, and adding an
    adult only needs the maximal vectors before it and the maximal loads of that adult."""
    if not capacities:
        return ((0, 0, 0, 0),)
    return _top(
        tuple(min(a + b, MAX_PER_RANK) for a, b in zip(v, add, strict=True))  # type: ignore[misc]
        for v in _maximal(capacities[:-1])
        for add in _fits(capacities[-1])
    )


def _prefix(weights: Sequence[int]) -> list[int]:
    out = [0]
    for w in weights:
        out.append(out[-1] + w)
    return out


@dataclass(frozen=True)
class _Choice:
    housed: tuple[int, int, int]  # adults housed per rank 6, 7, 8
    cared: Counts  # children cared for by adults per rank 2..5
    key: tuple[int, int]  # (half-points, -penalties): larger is better


def best_settlement(village: Iterable[Card], court: Court) -> Settlement:
    """The highest-scoring settlement (fewest penalty cards among equals); exact."""
    return _best(tuple(sorted(village)), court)


@lru_cache(maxsize=4096)
def _best(village: tuple[Card, ...], court: Court) -> Settlement:
    hm = court.half_multiplier
    houses = sorted((c for c in village if role(c) == "house"), key=hm, reverse=True)
    tents = sum(1 for c in village if role(c) == "tent")
    adults = {r: sorted((c for c in village if c.value == r and role(c) == "adult"), key=hm, reverse=True)
              for r in ADULT_RANKS}
    kids = {r: sorted((c for c in village if c.value == r and role(c) == "child"), key=hm, reverse=True)
            for r in CHILD_RANKS}
    house_w = [hm(c) for c in houses]
    adult_w = {r: [hm(c) for c in cs] for r, cs in adults.items()}
    kid_w = {r: [hm(c) for c in cs] for r, cs in kids.items()}
    house_pre = _prefix(house_w)
    adult_pre = {r: _prefix(w) for r, w in adult_w.items()}
    kid_pre = {r: _prefix(w) for r, w in kid_w.items()}
    n_kids = tuple(len(kid_w[r]) for r in CHILD_RANKS)
    all_kids = sum(n_kids)
    kid_base = -CHILD_VALUE * sum(p[-1] for p in kid_pre.values())
    best: _Choice | None = None
    for housed in product(*(range(len(adults[r]) + 1) for r in ADULT_RANKS)):
        k = sum(housed)
        occupied = min(len(houses), k)
        tents_used = max(0, k - HOUSE_ADULTS * len(houses))
        if tents_used > tents:
            continue
        free_slots = TENT_CHILDREN * (tents - tents_used)
        half = HOUSE_VALUE * (2 * house_pre[occupied] - house_pre[-1])
        for r, h in zip(ADULT_RANKS, housed, strict=True):
            half += ADULT_VALUE * (2 * adult_pre[r][h] - adult_pre[r][-1])
        penalties = (len(houses) - occupied) + sum(len(adults[r]) for r in ADULT_RANKS) - k
        capacities = tuple(r for r, h in zip(ADULT_RANKS, housed, strict=True) for _ in range(h))
        seen: set[Counts] = set()
        for top in _maximal(capacities):
            cared = tuple(min(a, n) for a, n in zip(top, n_kids, strict=True))
            if cared in seen:
                continue
            seen.add(cared)  # type: ignore[arg-type]
            gain = sum(kid_pre[r][a] for r, a in zip(CHILD_RANKS, cared, strict=True))
            rest = sorted((w for r, a in zip(CHILD_RANKS, cared, strict=True) for w in kid_w[r][a:]),
                          reverse=True)[:free_slots]
            settled = sum(cared) + len(rest)
            total = half + kid_base + 2 * CHILD_VALUE * (gain + sum(rest))
            key = (total, -(penalties + all_kids - settled))
            if best is None or key > best.key:
                best = _Choice(housed, cared, key)  # type: ignore[arg-type]
    assert best is not None  # housing nobody is always possible
    homes = _arrange(best, houses, tents_of(village), adults, kids, hm)
    result = evaluate(village, homes, court)
    if result.score * 2 != best.key[0]:
        raise InvariantError(f"settlement of {' '.join(map(str, village))}: rebuilt {result.score} "
                             f"!= optimum {Fraction(best.key[0], 2)}")
    return result


def tents_of(village: Iterable[Card]) -> list[Card]:
    return sorted(c for c in village if role(c) == "tent")


def _arrange(choice: _Choice, houses: list[Card], tents: list[Card], adults: dict[int, list[Card]],
             kids: dict[int, list[Card]], hm) -> dict[Card, Card]:
    """Rebuild one arrangement for an optimal choice (for the announcement and a self-check)."""
    homes: dict[Card, Card] = {}
    housed = [c for r, h in zip(ADULT_RANKS, choice.housed, strict=True) for c in adults[r][:h]]
    # One adult in each of the heaviest houses, then a second adult, then tents.
    slots = houses[: len(housed)] + houses[: max(0, len(housed) - len(houses))]
    slots += tents[: max(0, len(housed) - len(slots))]
    for adult, dwelling in zip(housed, slots, strict=False):
        homes[adult] = dwelling
    cared = [c for r, a in zip(CHILD_RANKS, choice.cared, strict=True) for c in kids[r][:a]]
    room = {a: a.value for a in housed}
    if not _pack(sorted(cared, key=lambda c: -c.value), housed, room, homes):
        raise InvariantError(f"cannot pack {cared} with {housed}")
    free_tents = [t for t in tents if t not in homes.values()]
    rest = sorted((c for r, a in zip(CHILD_RANKS, choice.cared, strict=True) for c in kids[r][a:]),
                  key=hm, reverse=True)
    for i, child in enumerate(rest[: TENT_CHILDREN * len(free_tents)]):
        homes[child] = free_tents[i // TENT_CHILDREN]
    return homes


def _pack(children: list[Card], adults: list[Card], room: dict[Card, int], homes: dict[Card, Card]) -> bool:
    """Place ``children`` with the adults by backtracking (the counts are known to fit)."""
    if not children:
        return True
    child, rest = children[0], children[1:]
    tried: set[int] = set()
    for adult in adults:
        if room[adult] >= child.value and room[adult] not in tried:
            tried.add(room[adult])
            room[adult] -= child.value
            homes[child] = adult
            if _pack(rest, adults, room, homes):
                return True
            room[adult] += child.value
            del homes[child]
    return False
