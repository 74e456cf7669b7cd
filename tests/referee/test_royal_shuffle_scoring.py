"""Royal Shuffle village scoring: the spec's worked values, the rules of a legal settlement,
and a brute-force cross-check of the optimiser on small villages."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from referee.cards import Card, full_deck
from referee.games.royal_shuffle.rules import round_score
from referee.games.royal_shuffle.scoring import (
    Court,
    SettlementError,
    best_settlement,
    evaluate,
    is_village_card,
    role,
)


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


def court(text: str = "") -> Court:
    """``KS QH JD JC`` -> the Court those cards make."""
    cs = cards(text)
    king = next((c.suit for c in cs if c.rank == "K"), None)
    queen = next((c.suit for c in cs if c.rank == "Q"), None)
    return Court(king, queen, frozenset(c.suit for c in cs if c.rank == "J"))


# (village, court, exact best score, homeless, derelict) - spec §5 examples and §9 scenarios
WORKED = [
    ("AS 6H 2H 4H", "", Fraction(8), "", ""),  # §5, RS-1
    ("7S", "KS", Fraction(-9), "7S", ""),  # the document's example
    ("AC 7H 2C", "JH", Fraction(15, 2), "", ""),  # RS-3: 7.5 -> 7
    ("7H", "JH", Fraction(-9, 2), "7H", ""),  # RS-3: -4.5 -> -5
    ("AD 6D", "KD JD", Fraction(18), "", ""),  # x4.5 stacked
    ("AS AD 6S 2S 3D 4D", "KS JD", Fraction(33, 2), None, "AD"),  # RS-9: 16.5 -> 16
    ("AS 6C 4H 3C", "QH", Fraction(6), "3C", ""),  # RS-2: the heart child is cared for
    ("AS", "", Fraction(-1), "", "AS"),  # RS-4 derelict
    ("AS 3H 2H", "", Fraction(-5), "2H 3H", "AS"),  # RS-4 orphans
    ("AS 3H 2H 9C", "", Fraction(3), "", "AS"),  # RS-4 children in the tent
    ("9C 2H 3H 4H", "QH", Fraction(4), None, ""),  # RS-4: two in the tent, one homeless
    ("AH 6H 7H", "", Fraction(7), "", ""),  # RS-6
    ("AH 6H 7H 8C", "", Fraction(4), None, ""),  # RS-6 sabotage: one adult homeless
    ("AH 6H 7H 8C", "KC", Fraction(10), "6H", ""),  # RS-6: 8C housed x3, 6H homeless
    ("", "KS QS", Fraction(0), "", ""),  # an empty village scores 0
    ("10S 6S", "QS", Fraction(6), "", ""),  # an adult in a tent: the tent is 0 even x2
]


@pytest.mark.parametrize(("village", "court_text", "score", "homeless", "derelict"), WORKED,
                         ids=[f"{v or 'empty'} / {c or 'no court'}" for v, c, *_ in WORKED])
def test_worked_values(village: str, court_text: str, score: Fraction, homeless: str | None,
                       derelict: str) -> None:
    best = best_settlement(cards(village), court(court_text))
    assert best.score == score
    if homeless is not None:
        assert sorted(map(str, best.homeless)) == sorted(homeless.split())
    assert sorted(map(str, best.derelict)) == sorted(derelict.split())
    # the arrangement shown is legal and scores what the optimiser claims
    assert evaluate(cards(village), dict(best.homes), court(court_text)).score == score


@pytest.mark.parametrize(("score", "floor", "toward_zero"), [
    (Fraction(15, 2), 7, 7), (Fraction(-9, 2), -5, -4), (Fraction(-9), -9, -9),
    (Fraction(33, 2), 16, 16), (Fraction(-1, 4), -1, 0),
])
def test_one_rounding_at_the_end(score: Fraction, floor: int, toward_zero: int) -> None:
    assert round_score(score, "floor") == floor
    assert round_score(score, "toward_zero") == toward_zero


def test_greedy_fill_would_be_wrong() -> None:
    """RS-2: filling the adult with the first children that fit (3C, then nothing) scores 2;
    the optimum cares for the heavier 4H instead."""
    village, c = cards("AS 6C 4H 3C"), court("QH")
    greedy = {Card.parse("6C"): Card.parse("AS"), Card.parse("3C"): Card.parse("6C")}
    assert evaluate(village, greedy, c).score == 2
    assert best_settlement(village, c).score == 6


def test_an_adult_may_stay_homeless_to_keep_a_tent_for_children() -> None:
    # Housing 6S takes the only tent: +3, and it cares for 4H or 5H (4 + 5 > 6): +4 - 4 = 3.
    # Leaving 6S homeless (-3) shelters both hearts children alone in the tent: -3 + 8 = 5.
    best = best_settlement(cards("9C 6S 4H 5H"), court("QH"))
    assert best.score == 5
    assert [str(c) for c in best.homeless] == ["6S"]


@pytest.mark.parametrize(("homes", "reason"), [
    ({"6H": "2H"}, "Adult 6H lives in a house or a tent"),
    ({"2H": "AS"}, "Child 2H lives with an adult or in a tent"),
    ({"6H": "AS", "2H": "6H", "4H": "6H", "3C": "6H"}, "ranks add up to at most 6"),
    ({"2H": "6H"}, "Adult 6H needs a dwelling"),
    ({"6H": "9C", "2H": "9C"}, "Tent 9C has an adult"),
    ({"2H": "9C", "3C": "9C", "4H": "9C"}, "At most 2 children alone in tent 9C"),
    ({"6H": "9C", "7D": "9C"}, "9C holds at most 1 adult"),
    ({"6H": "AS", "7D": "AS", "8S": "AS"}, "AS holds at most 2 adults"),
    ({"AS": "9C"}, "AS is a dwelling"),
    ({"5S": "9C"}, "5S is not in this village"),
])
def test_illegal_arrangements_are_refused_with_the_reason(homes: dict[str, str], reason: str) -> None:
    village = cards("AS 9C 6H 7D 8S 2H 3C 4H")
    with pytest.raises(SettlementError, match=reason):
        evaluate(village, {Card.parse(k): Card.parse(v) for k, v in homes.items()}, Court())


def test_two_adults_in_one_house_each_care_for_their_own_children() -> None:  # A12
    village = cards("AS 6H 6D 4H 2H 5D")
    homes = {"6H": "AS", "6D": "AS", "4H": "6H", "2H": "6H", "5D": "6D"}
    laid = evaluate(village, {Card.parse(k): Card.parse(v) for k, v in homes.items()}, Court())
    assert laid.score == 1 + 3 + 3 + 2 + 2 + 2
    assert best_settlement(village, Court()).score == laid.score


def test_fewest_penalty_cards_among_equal_scores() -> None:
    # 6S cares for 5H (x2: +4, 2D and 3D homeless: -4) or for 2D and 3D (+4, 5H homeless:
    # -4): both score 1 + 3 + 4 - 4 = 4; the second leaves one penalty card, not two, which
    # tie: fewer_penalty_cards_wins relies on.
    best = best_settlement(cards("AS 6S 5H 2D 3D"), court("QH"))
    assert best.score == 4
    assert [str(c) for c in best.homeless] == ["5H"]
    assert best.penalties == 1


# ---- brute force ----------------------------------------------------------------------------
def _all_settlements(village: list[Card], c: Court):
    """Every legal arrangement, by enumerating each adult's and each child's home."""
    houses = [x for x in village if role(x) == "house"]
    tents = [x for x in village if role(x) == "tent"]
    adults = [x for x in village if role(x) == "adult"]
    kids = [x for x in village if role(x) == "child"]
    for adult_homes in itertools.product([None, *houses, *tents], repeat=len(adults)):
        housed = [a for a, h in zip(adults, adult_homes, strict=True) if h is not None]
        for kid_homes in itertools.product([None, *housed, *tents], repeat=len(kids)):
            homes = {a: h for a, h in zip(adults, adult_homes, strict=True) if h is not None}
            homes.update({k: h for k, h in zip(kids, kid_homes, strict=True) if h is not None})
            try:
                yield evaluate(village, homes, c)
            except SettlementError:
                continue


def _by_hand(village: list[Card], homes: dict[Card, Card], c: Court) -> Fraction:
    """The spec's value table, written out independently of the scoring module."""
    total = Fraction(0)
    for x in village:
        m = Fraction(1)
        if c.king == x.suit:
            m *= 3
        if c.queen == x.suit:
            m *= 2
        if x.suit in c.jacks:
            m *= Fraction(3, 2)
        kind = role(x)
        if kind == "house":
            total += m if x in homes.values() and any(role(r) == "adult" and h == x
                                                      for r, h in homes.items()) else -m
        elif kind == "adult":
            total += 3 * m if x in homes else -3 * m
        elif kind == "child":
            total += 2 * m if x in homes else -2 * m
    return total


def test_optimiser_matches_brute_force_on_small_villages() -> None:
    rng = random.Random(2024)
    village_cards = [c for c in full_deck(0) if is_village_card(c)]
    checked = 0
    for _ in range(400):
        size = rng.randint(1, 8)
        village = rng.sample(village_cards, size)
        suits = "SHDC"
        c = Court(rng.choice([None, *suits]), rng.choice([None, *suits]),
                  frozenset(rng.sample(suits, rng.randint(0, 2))))
        options = list(_all_settlements(village, c))
        best = max(s.score for s in options)
        for s in options[:3]:
            assert _by_hand(village, dict(s.homes), c) == s.score
        got = best_settlement(village, c)
        assert got.score == best, f"{' '.join(map(str, village))} with {c.describe()}"
        assert got.penalties == min(s.penalties for s in options if s.score == best)
        checked += len(options)
    assert checked > 2000  # the enumeration really explored alternatives


def test_a_full_village_is_scored() -> None:
    """Every village card of the deck in one village (40 cards). Everyone finds a place, so
    each suit scores 1 + 3 x 3 + 4 x 2 = 18 times its multiplier: 18 x (3 + 2 + 1.5 + 1)."""
    village = [c for c in full_deck(0) if is_village_card(c)]
    best = best_settlement(village, court("KH QS JD"))
    assert best.score == 135 and best.penalties == 0
    assert evaluate(village, dict(best.homes), court("KH QS JD")).score == 135
