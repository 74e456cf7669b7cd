"""Dukes Up! melds: the validator on the spec's examples (DU-2), the partition search on
valid and invalid tables, and a brute-force cross-check of the search on small tables."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from referee.cards import Card, card, full_deck
from referee.games.dukes_up.melds import can_partition, is_meld, meld_problem, melds_with, partitions


def cards(text: str) -> list[Card]:
    return [card(t) for t in text.split()]


VALID = [
    "8D 9D 10S", "10C JC QH KH AC", "AS 2S 3S 4S", "5S 5H 5D", "QD KS AS", "5S 5H 5D 5C",
    "AC 2H 3C", "9S 10D JS QD KS AD",
]
INVALID = [
    ("5C 6S 7S", "mixes flowers and thorns"),
    ("6H 8H 9H", "ranks not consecutive"),
    ("QS KS AS 2S", "no wrap-around"),
    ("KD AS 2S", "no wrap-around"),
    ("5S 5H", "at least 3 cards"),
    ("5S 6S", "fewer than 3 cards"),
    ("5S 5S 5H", "the same card twice"),
    ("5S 5D 6S", "repeats a rank"),
    ("5S 5H 6S", "mixes flowers and thorns"),
    ("JS QS KS AS 2S 3S", "no wrap-around"),
]


@pytest.mark.parametrize("text", VALID)
def test_valid_melds(text: str) -> None:
    assert meld_problem(cards(text)) is None


@pytest.mark.parametrize(("text", "why"), INVALID)
def test_invalid_melds_say_why(text: str, why: str) -> None:
    problem = meld_problem(cards(text))
    assert problem is not None and why in problem


def test_ace_wrap_variant_allows_wrapping_runs_only() -> None:
    assert is_meld(cards("QS KS AS 2S"), ace_wrap=True)
    assert is_meld(cards("KD AS 2S"), ace_wrap=True)
    assert not is_meld(cards("QS KS 2S"), ace_wrap=True)  # still a gap
    assert not is_meld(cards("5C 6S 7S"), ace_wrap=True)


@pytest.mark.parametrize(("table", "ways"), [
    ("5S 6S 7S", [["5S 6S 7S"]]),
    ("3S 4S 5S 6S 7S 8S", [["3S 4S 5S", "6S 7S 8S"], ["3S 4S 5S 6S 7S 8S"]]),
    ("5C 6C 7C 8C 5H 5D 5S", [["5C 5D 5H 5S", "6C 7C 8C"], ["5C 5D 5S", "5H 6C 7C 8C"],
                              ["5C 6C 7C 8C", "5D 5H 5S"]]),
    ("9C 10C JC QC 5H 5D 5S", [["5D 5H 5S", "9C 10C JC QC"]]),
    ("AS 2S 3S QD KD AD", [["AS 2S 3S", "AD QD KD"], ["AD 2S 3S", "AS QD KD"]]),
    ("5S 6S", []),
    ("AS 2S 3S 4S 5S 7S", []),
    ("KS AS 2S", []),
    ("", [[]]),
])
def test_partitions(table: str, ways: list[list[str]]) -> None:
    found = partitions(cards(table))
    shown = sorted(sorted(" ".join(str(c) for c in sorted(m, key=_order)) for m in way) for way in found)
    assert shown == sorted(sorted(w) for w in ways)


def _order(c: Card) -> tuple[int, str]:
    return (c.value, c.suit)


def test_partition_is_exact_where_greedy_fails() -> None:
    """Taking the longest run first (5S-9S) strands 5D 5H; the search finds the sets."""
    table = cards("5S 6S 7S 8S 9S 5D 5H 6D 6H 7D 7H")
    assert not is_meld(table)
    way = partitions(table, limit=1)
    assert way and all(is_meld(m) for m in way[0])
    assert sorted(c for m in way[0] for c in m) == sorted(table)


def _set_partitions(items: list[Card]) -> Iterator[list[list[Card]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _set_partitions(rest):
        for i in range(len(part)):
            yield part[:i] + [[first, *part[i]]] + part[i + 1:]
        yield [[first], *part]


def _brute_force(table: list[Card], ace_wrap: bool) -> set[frozenset[frozenset[Card]]]:
    return {
        frozenset(frozenset(b) for b in part)
        for part in _set_partitions(table)
        if all(is_meld(b, ace_wrap) for b in part)
    }


def _near(a: Card, b: Card) -> bool:
    gap = abs(a.value - b.value)
    return min(gap, 13 - gap) <= 2


@pytest.mark.parametrize("ace_wrap", [False, True])
def test_search_matches_brute_force_on_small_tables(ace_wrap: bool) -> None:
    """Random small tables biased towards melds: same partitions as trying every split."""
    rng = random.Random(11)
    deck = full_deck(0)
    checked = solvable = 0
    for _ in range(250):
        table: list[Card] = []
        for _ in range(rng.randint(1, 2)):  # one or two real melds ...
            seed = rng.choice([c for c in deck if c not in table])
            pool = [c for c in deck if c not in table and _near(c, seed)]
            options = list(melds_with(seed, pool, ace_wrap))
            if options:
                table += sorted(rng.choice(options))[: 7 - len(table)]
        noise = [c for c in deck if c not in table and _near(c, table[0])]
        table += rng.sample(noise, min(len(noise), rng.randint(0, 2), 7 - len(table)))  # ... and noise
        want = _brute_force(table, ace_wrap)
        got = {frozenset(frozenset(m) for m in way) for way in partitions(table, ace_wrap, limit=10_000)}
        assert got == want, [str(c) for c in table]
        assert can_partition(table, ace_wrap) == bool(want)
        checked += 1
        solvable += bool(want)
    assert checked == 250 and 40 < solvable < 250, solvable
