"""Royal Shuffle: the spec's test scenarios (RS-1..RS-10), its hard cases and every variant.

Each case is a real observation sequence in the typed form of ``cardref play``; inline dicts
check the state at that point (``scores`` are the announced, rounded scores), ``Reject``
lines must be refused with the given reason and leave the referee exactly as it was, and
``says`` lists announcements (kind, fragment) that must appear in this order.
"""

from __future__ import annotations

from typing import Any

import pytest
from scenario_runner import Case, Reject, assert_says, play_case

from referee.cards import Card, full_deck
from referee.core import Referee
from referee.games.royal_shuffle.rules import places_for

START = ["deal", "first player=p1"]


def turn(p: str, flip: tuple[str, str] | None = None, play: tuple[str, str] | None = None) -> list[str]:
    """One turn in the recommended order: flip, draw, play (``(card, zone)`` pairs)."""
    lines = [f"{flip[0]} draw_pile -> {flip[1]}"] if flip else []
    lines.append(f"BACK draw_pile -> hand_{p}")
    if play:
        lines.append(f"{play[0]} hand_{p} -> {play[1]}")
    return lines


def exhaust_pile(keep: set[str]) -> list[str]:
    """23 turns (p1 first) that empty the draw pile: 46 flips and plays of cards not in
    ``keep``, each to its court zone or its player's own village."""
    pool = [c for c in full_deck(0) if str(c) not in keep]
    lines = list(START)
    for n in range(23):
        p = "p1" if n % 2 == 0 else "p2"
        flip, play = pool[2 * n], pool[2 * n + 1]
        lines += turn(p, (str(flip), _dest(flip, p)), (str(play), _dest(play, p)))
    return lines


def _dest(c: Card, p: str) -> str:
    places = places_for(c)
    return f"village_{p}" if len(places) == 2 else places[0]


def view(ref: Referee) -> dict[str, Any]:
    s = ref.state
    return {
        "scores": {p: pts for p, (pts, _) in ref.game.rules.scores(s).items()},
        "phase": s.phase,
        "active": s.active,
        "done": list(s.done),
        "winner": s.winner,
        "hands": dict(s.hand_count),
        "draw_pile": s.draw_pile,
        "king": str(s.king) if s.king else None,
        "discard": [str(c) for c in s.discard],
        "to_discard": [str(c) for c in s.to_discard],
        "village_p1": sorted(map(str, s.villages["p1"])),
        "village_p2": sorted(map(str, s.villages["p2"])),
        "pending": ref.pending.labels if ref.pending else None,
    }


def play(case: Case) -> tuple[Referee, list[tuple[str, str]]]:
    return play_case("royal_shuffle", case, view)


RS8_KEEP = {"5D", "4C", "5C", "6C", "7C", "8C"}

CASES = [
    Case(
        "RS-1 basic village",
        [
            *START,
            {"phase": "turn", "active": "p1", "hands": {"p1": 4, "p2": 4}, "draw_pile": 46},
            *turn("p1", ("AS", "village_p1"), ("6H", "village_p1")),
            *turn("p2", ("2H", "village_p1"), ("4H", "village_p1")),
            {"scores": {"p1": 8, "p2": 0}, "active": "p1"},
        ],
        says=[
            ("ANNOUNCE", "Turn 1: p1 to flip, draw, play (p1 0, p2 0)"),
            ("ANNOUNCE", "Scores: p1 -1 (derelict AS), p2 0"),
            ("ANNOUNCE", "Turn 2: p2 to flip, draw, play (p1 4, p2 0)"),
            ("ANNOUNCE", "Scores: p1 8, p2 0"),
            ("ANNOUNCE", "Turn 3: p1 to flip, draw, play (p1 8, p2 0)"),
        ],
    ),
    Case(
        "RS-2 the optimiser picks who is homeless",
        [
            *START,
            *turn("p1", ("QH", "court_queen"), ("AS", "village_p1")),
            *turn("p2", ("6C", "village_p1"), ("4H", "village_p1")),
            "3C draw_pile -> village_p1",
            {"scores": {"p1": 6, "p2": 0}},
        ],
        says=[("ANNOUNCE", "Scores: p1 6 (homeless 3C), p2 0")],
    ),
    Case(
        "RS-3 jack rounding (p1's village)",
        [
            *START,
            *turn("p1", ("JH", "court_jacks"), ("AC", "village_p1")),
            *turn("p2", ("7H", "village_p1"), ("2C", "village_p1")),
            {"scores": {"p1": 7, "p2": 0}},
        ],
    ),
    Case(
        "RS-3 jack rounding (p2's homeless 7H: -4.5)",
        [
            *START,
            *turn("p1", ("JH", "court_jacks"), ("7H", "village_p2")),
            {"scores": {"p1": 0, "p2": -5}},
        ],
    ),
    Case(
        "RS-3 rounding toward_zero",
        [
            *START,
            *turn("p1", ("JH", "court_jacks"), ("7H", "village_p2")),
            {"scores": {"p1": 0, "p2": -4}},
        ],
        variants={"rounding": "toward_zero"},
    ),
    Case(
        "RS-4 derelict, orphans, tent",
        [
            *START,
            *turn("p1", ("AS", "village_p1"), ("10D", "village_p2")),
            {"scores": {"p1": -1, "p2": 0}},
            *turn("p2", ("3H", "village_p1"), ("2H", "village_p1")),
            {"scores": {"p1": -5, "p2": 0}},
            "9C draw_pile -> village_p1",
            {"scores": {"p1": 3, "p2": 0}},
        ],
        says=[
            ("ANNOUNCE", "Scores: p1 -5 (homeless 2H 3H; derelict AS), p2 0"),
            ("ANNOUNCE", "Scores: p1 3 (derelict AS), p2 0"),
        ],
    ),
    Case(
        "RS-4 two children in the tent, one homeless",
        [
            *START,
            *turn("p1", ("QH", "court_queen"), ("9C", "village_p1")),
            *turn("p2", ("2H", "village_p1"), ("3H", "village_p1")),
            "4H draw_pile -> village_p1",
            {"scores": {"p1": 4, "p2": 0}},
        ],
    ),
    Case(
        "RS-5 monarch replacement",
        [
            *START,
            *turn("p1", ("KS", "court_king"), ("7S", "village_p1")),
            {"scores": {"p1": -9, "p2": 0}, "king": "KS"},
            "7H draw_pile -> village_p2",
            "BACK draw_pile -> hand_p2",
            Reject("KS court_king -> discard_pile", "KS stays in the court until a new King replaces it"),
            "KH hand_p2 -> court_king",
            {"king": "KH", "discard": ["KS"], "to_discard": ["KS"], "scores": {"p1": -3, "p2": -9}},
            "KS court_king -> discard_pile",
            {"discard": ["KS"], "to_discard": []},
            Reject("KS court_king -> discard_pile", "KS is not a replaced monarch"),
        ],
        says=[
            ("STATE", "KH replaces KS as King: put KS on discard_pile"),
            ("ANNOUNCE", "Scores: p1 -3 (homeless 7S), p2 -9 (homeless 7H)"),
        ],
    ),
    Case(
        "RS-6 sabotage into the opponent's village",
        [
            *START,
            *turn("p1", ("AH", "village_p2"), ("6H", "village_p2")),
            *turn("p2", ("7H", "village_p2"), ("3D", "village_p1")),
            {"scores": {"p1": -2, "p2": 7}},
            "8C hand_p1 -> village_p2",  # the play first: any order (A4)
            {"scores": {"p1": -2, "p2": 4}},
            "KC draw_pile -> court_king",
            {"scores": {"p1": -2, "p2": 10}},
        ],
        says=[("ANNOUNCE", "p2 4 (homeless 6H)"), ("ANNOUNCE", "p2 10 (homeless 6H)")],
    ),
    Case(
        "RS-7 a flipped joker ends the game",
        [
            *START,
            *turn("p1", ("AS", "village_p1"), ("6S", "village_p1")),
            *turn("p2", ("7D", "village_p2"), ("2C", "village_p2")),
            "JK draw_pile -> court_joker",
            {"phase": "over", "winner": "p1", "scores": {"p1": 4, "p2": -5}},
            Reject("BACK draw_pile -> hand_p1", "The game is over"),
        ],
        says=[("RESULT", "Joker flipped: the reign ends: p1 4, p2 -5, p1 wins")],
    ),
    Case(
        "RS-7 equal scores are a draw",
        [
            *START,
            "JK draw_pile -> court_joker",
            {"phase": "over", "winner": None},
        ],
        says=[("RESULT", "Joker flipped: the reign ends: p1 0, p2 0, draw")],
    ),
    Case(
        "RS-8 joker from hand after the pile ran out",
        [
            *exhaust_pile(RS8_KEEP),
            {"draw_pile": 0, "hands": {"p1": 4, "p2": 4}, "active": "p2"},
            Reject("BACK draw_pile -> hand_p2", "The draw pile is empty: there is nothing to draw"),
            "4C hand_p2 -> village_p2",
            "5C hand_p1 -> village_p1",
            "6C hand_p2 -> village_p2",
            "hand player=p2 cards=JK,5D",
            "7C hand_p1 -> village_p1",
            Reject("8C hand_p2 -> village_p2", "8C cannot come from p2's hand: p2 showed 5D JK"),
            "JK hand_p2 -> court_joker",
            {"phase": "over", "hands": {"p1": 2, "p2": 1}},
        ],
        says=[
            ("STATE", "The draw pile is empty: from now on flip and draw are skipped"),
            ("ANNOUNCE", "Turn 24: p2 to play"),
            ("ANNOUNCE", "draw pile empty: no flip, no draw"),
            ("STATE", "p2 shows 5D JK: a joker, the reign ends when it is played"),
            ("RESULT", "Joker played from hand: the reign ends"),
        ],
    ),
    Case(
        "RS-9 stacked multipliers and a derelict house",
        [
            *START,
            *turn("p1", ("KS", "court_king"), ("JD", "court_jacks")),
            *turn("p2", ("AS", "village_p1"), ("AD", "village_p1")),
            *turn("p1", ("6S", "village_p1"), ("2S", "village_p1")),
            *turn("p2", ("3D", "village_p1"), ("4D", "village_p1")),
            {"scores": {"p1": 16, "p2": 0}},
        ],
    ),
    Case(
        "RS-10 illegal moves",
        [
            *START,
            Reject("QC hand_p1 -> village_p1", "Royal cards go to the court"),
            Reject("5D hand_p1 -> court_king", "Number cards and aces go to a village"),
            Reject("JK hand_p1 -> village_p2", "A joker goes to the court (court_joker)"),
            Reject("KD hand_p1 -> court_queen", "KD goes to court_king, not court_queen"),
            "7S draw_pile -> village_p1",
            Reject("8S draw_pile -> village_p1", "Only one flip per turn"),
            Reject("7S hand_p1 -> village_p1", "7S cannot come from p1's hand: it lies on village_p1"),
            "5D hand_p1 -> village_p2",
            Reject("6D hand_p1 -> village_p2", "Only one card from hand per turn"),
            Reject("6D hand_p2 -> village_p2", "It is p1's turn"),
            "BACK draw_pile -> hand_p1",
            {"active": "p2", "done": []},
            Reject("6D hand_p1 -> village_p2", "Only one card from hand per turn: p1's turn is over"),
            Reject(
                "BACK court_king -> hand_p1", "Only a card drawn from draw_pile into a hand moves face down"
            ),
            Reject("9H draw_pile -> hand_p2", "Draw face down"),
            Reject("9H village_p1 -> village_p2", "9H does not move from village_p1 to village_p2"),
        ],
    ),
    # ---- hard cases of spec §8 -----------------------------------------------------------
    Case(
        "flip or play: the referee asks which card was flipped",
        [
            *START,
            "placed card=7S to=village_p1",
            {"pending": ["flip_village_p1", "play_village_p1"]},
            Reject("end_turn", "Answer first"),
            "answer play_village_p1",
            {"hands": {"p1": 3, "p2": 4}, "done": ["play"], "pending": None},
            "placed card=8S to=village_p1",  # the play is done: it can only be the flip
            {"done": ["play", "flip"], "pending": None},
        ],
        says=[("ASK", "placed card=7S to=village_p1: which did you mean?")],
    ),
    Case(
        "a card on the midline: the referee asks whose village",
        [
            *START,
            "7S draw_pile -> village",
            {"pending": ["flip_village_p1", "flip_village_p2"]},
            "7S draw_pile -> village_p2",  # a gesture that only one reading explains
            {"village_p2": ["7S"], "pending": None},
        ],
        says=[("ASK", "7S draw_pile -> village: which did you mean?")],
    ),
    Case(
        "a royal card on the midline is refused",
        [
            *START,
            Reject("KS hand_p1 -> village", "Royal cards go to the court"),
        ],
    ),
    Case(
        "the deal and the draw of lots",
        [
            Reject("7S draw_pile -> village_p1", "Deal 4 cards to each player"),
            "BACK draw_pile -> hand_p2",
            Reject("deal", "The deal has begun"),
            "BACK draw_pile -> hand_p1",
            "BACK draw_pile -> hand_p1",
            "BACK draw_pile -> hand_p1",
            "BACK draw_pile -> hand_p1",
            Reject("BACK draw_pile -> hand_p1", "p1 already has 4 cards"),
            "first player=p2",
            Reject("first player=p1", "p2 was already chosen to start"),
            "BACK draw_pile -> hand_p2",
            "BACK draw_pile -> hand_p2",
            "BACK draw_pile -> hand_p2",
            {"phase": "turn", "active": "p2", "draw_pile": 46},
        ],
        says=[("STATE", "p2 won the draw of lots and starts"), ("ANNOUNCE", "Turn 1: p2 to flip")],
    ),
    Case(
        "hands: counts, shown hands, the end of a turn",
        [
            *START,
            "hand_count player=p1 count=4",
            Reject("hand_count player=p1 count=3", "p1 should hold 4 cards, not 3"),
            Reject("hand player=p1 cards=JK,5D", "p1 holds 4 cards, 2 shown"),
            "hand player=p1 cards=JK,JK,5D,7S",
            Reject("hand player=p2 cards=JK,2C,3C,4C", "JK cannot come from p2's hand: p1 showed it in hand"),
            Reject("JK draw_pile -> court_joker", "JK cannot come from the draw pile: p1 showed it in hand"),
            "end_turn",  # a confirmation at the start of a turn changes nothing
            "7D draw_pile -> village_p1",
            Reject("end_turn", "p1's turn ends by itself; still to do: draw, play"),
        ],
    ),
    # ---- variants ------------------------------------------------------------------------
    Case(
        "step_order strict",
        [
            *START,
            Reject(
                "5D hand_p1 -> village_p1", "Flip first, then draw, then play (step_order: strict): flip now"
            ),
            Reject("BACK draw_pile -> hand_p1", "flip now"),
            "7D draw_pile -> village_p1",
            Reject("5D hand_p1 -> village_p1", "draw now"),
            "BACK draw_pile -> hand_p1",
            "5D hand_p1 -> village_p1",
            {"active": "p2"},
        ],
        variants={"step_order": "strict"},
    ),
    Case(
        "joker_mode second_ends: the first joker is an interim comparison",
        [
            *START,
            *turn("p1", ("JK", "court_joker"), ("AS", "village_p1")),
            {"phase": "turn", "active": "p2", "scores": {"p1": -1, "p2": 0}},
            *turn("p2", ("8H", "village_p2"), ("JK", "court_joker")),
            {"phase": "over", "winner": "p1"},
        ],
        says=[
            ("ANNOUNCE", "Joker flipped: interim comparison p1 0, p2 0, level; the second joker ends"),
            ("RESULT", "Joker played from hand: the reign ends: p1 -1, p2 -3, p1 wins"),
        ],
        variants={"joker_mode": "second_ends"},
    ),
    Case(
        "tie draw",
        [
            *START,
            *turn("p1", ("AS", "village_p1"), ("6S", "village_p1")),  # p1 4, no penalty card
            *turn("p2", ("AD", "village_p2"), ("6D", "village_p2")),
            *turn("p1", ("7D", "village_p2"), ("8D", "village_p2")),  # p2 1 + 3 + 3 - 3 = 4
            "JK draw_pile -> court_joker",
            {"phase": "over", "winner": None, "scores": {"p1": 4, "p2": 4}},
        ],
        says=[("RESULT", "p1 4, p2 4, draw")],
    ),
    Case(
        "tie fewer_penalty_cards_wins",
        [
            *START,
            *turn("p1", ("AS", "village_p1"), ("6S", "village_p1")),
            *turn("p2", ("AD", "village_p2"), ("6D", "village_p2")),
            *turn("p1", ("7D", "village_p2"), ("8D", "village_p2")),  # one homeless adult
            "JK draw_pile -> court_joker",
            {"phase": "over", "winner": "p1", "scores": {"p1": 4, "p2": 4}},
        ],
        says=[("RESULT", "p1 4, p2 4, p1 wins (fewer penalty cards)")],
        variants={"tie": "fewer_penalty_cards_wins"},
    ),
    Case(
        "exhaustion score_immediately",
        [
            *exhaust_pile(RS8_KEEP),
            {"phase": "over"},
        ],
        says=[("RESULT", "The draw pile ran out")],
        variants={"exhaustion": "score_immediately"},
    ),
    Case(
        "layouts are refused when settlement is automatic",
        [
            *START,
            Reject("layout player=p1 6H=AS", "Settlement is automatic"),
        ],
    ),
    Case(
        "settlement as_laid_out",
        [
            *START,
            *turn("p1", ("AS", "village_p1"), ("6H", "village_p1")),
            {"scores": {"p1": -4, "p2": 0}},  # nobody has moved in yet
            "layout player=p1 6H=AS",
            {"scores": {"p1": 4, "p2": 0}},
            *turn("p2", ("2H", "village_p1"), ("5H", "village_p1")),
            {"scores": {"p1": 0, "p2": 0}},
            Reject(
                "layout player=p1 6H=AS 2H=6H 5H=6H", "6H cares for children whose ranks add up to at most 6"
            ),
            "layout player=p1 6H=AS 5H=6H",
            {"scores": {"p1": 4, "p2": 0}},
        ],
        variants={"settlement": "as_laid_out"},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_scenario(case: Case) -> None:
    _, said = play(case)
    assert_says(case, said)
