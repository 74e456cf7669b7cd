"""Houska Castle: the spec's test scenarios (HC-1..HC-10) and the protocol's hard cases.

Each case is a real observation sequence in the typed form of ``cardref play``; inline
dicts check the state at that point, ``Reject`` lines must be refused with the given reason
and leave the referee exactly as it was, and ``says`` lists announcements (kind, fragment)
that must appear in this order.
"""

from __future__ import annotations

from typing import Any

import pytest
from scenario_runner import Case, Reject, assert_says, play_case

from referee.core import Referee
from referee.games import load_game
from referee.observations import parse_short


def deal(*hand: str, marker: str = "5S", monster_pile: int = 25) -> list[str]:
    return [f"setup marker={marker} monster_pile={monster_pile}"] + [f"{c} combat_pile -> hand" for c in hand]


def encounter(monster: str, up: str, hidden: str) -> list[str]:
    """Reveal ``monster``; observation: two face-down cards, ``up`` turned up."""
    return [
        f"{monster} monster_pile -> monster_slot",
        "BACK combat_pile -> monster_field",
        "BACK combat_pile -> monster_field",
        f"{up} monster_field -> monster_field",
        {"hidden": 1},
    ]


def cleanup(monster: str, hero: list[str], monster_side: list[str]) -> list[str]:
    return (
        [f"{monster} monster_slot -> combat_pile"]
        + [f"{c} hero_field -> combat_pile" for c in hero]
        + [f"{c} monster_field -> combat_pile" for c in monster_side]
    )


def view(ref: Referee) -> dict[str, Any]:
    s = ref.state
    return {
        "phase": s.phase,
        "hand": sorted(map(str, s.hand)),
        "hp": len(s.hand),
        "sums": s.sums(),
        "max_hp": s.max_hp,
        "buff": {k: v for k, v in s.buff.items() if v},
        "monster_played": s.monster_played,
        "plays_left": s.plays_left(),
        "initial_count": s.initial_count,
        "exchange": s.exchange,
        "hero_points": s.hero_points,
        "rewards": [str(c) for c in s.rewards],
        "artifacts": [str(c) for c in s.artifacts],
        "marker": [str(c) for c in s.marker],
        "combat_pile": s.combat_pile,
        "monster_pile": s.monster_pile,
        "steals": {k: [str(c) for c in v] for k, v in s.steals.items() if v},
        "hidden": s.hidden_count(),
        "result": s.result,
        "defeated": s.defeated,
        "regen_draws": s.regen_draws,
        "hero_field": sorted(str(f.card) for f in s.table if f.zone == "hero_field" and f.card),
        "monster_field": sorted(str(f.card) for f in s.table if f.zone == "monster_field" and f.card),
    }


def play(case: Case) -> tuple[Referee, list[tuple[str, str]]]:
    def expected(want: dict) -> dict:
        return {k: (sorted(v) if k == "hand" else v) for k, v in want.items()}

    return play_case("houska_castle", case, view, expected=expected)


# ---- the spec's scenarios ----------------------------------------------------------------
HC1 = deal("2H", "2S", "4D", "6C", "9H") + [
    {"hand": ["2H", "2S", "4D", "6C", "9H"], "max_hp": 5, "combat_pile": 20, "phase": "reveal"},
    "5C monster_pile -> monster_slot",
    "BACK combat_pile -> monster_field",
    "BACK combat_pile -> monster_field",
    "3C monster_field -> monster_field",
    {"sums": (0, 3), "plays_left": 3, "monster_played": 1, "hidden": 1, "phase": "hero"},
    "6C hand -> hero_field",
    "2H hand -> hero_field",
    {"sums": (10, 3), "phase": "monster"},
    "6D monster_field -> monster_field",
    {"sums": (10, 9), "phase": "cleanup", "monster_played": 2, "initial_count": 2},
    *cleanup("5C", ["6C", "2H"], ["3C", "6D"]),
    {"hand": ["2S", "4D", "9H"], "combat_pile": 23, "phase": "regen"},
]

HC2_DEAL = deal("4D", "5C", "8S", "7C", "2D") + [
    "3D monster_pile -> monster_slot",
    "9S combat_pile -> monster_field",
    "BACK combat_pile -> monster_field",
    "4D hand -> hero_field",
    "5C hand -> hero_field",
    "10C monster_field -> monster_field",
    {"sums": (9, 19), "phase": "hero", "exchange": 2, "plays_left": 1},
    "8S hand -> hero_field",
    {"sums": (17, 19), "phase": "monster"},
    "2S combat_pile -> monster_field",
    {"sums": (17, 21), "monster_played": 3, "plays_left": 0, "exchange": 3},
]

HC3 = (
    deal("JC", "3H", "2S", "7D", "9C")
    + encounter("6S", "4C", "8D")
    + [
        "JC hand -> hero_field",
        {"sums": (11, 0), "phase": "hero"},
        "4C monster_field -> monster_field",
        "3H hand -> hero_field",
        {"sums": (16, 0)},
        "8D monster_field -> monster_field",
        {"sums": (16, 8), "monster_played": 2, "phase": "cleanup"},
    ]
)

HC4 = (
    deal("9H", "6C", "2S", "3D", "4H")
    + encounter("QS", "5D", "7C")
    + [
        {"steals": {"monster": ["QS"]}},
        "9H hand -> monster_field",
        {"sums": (0, 14), "steals": {}},
        "6C hand -> hero_field",
        "7C monster_field -> monster_field",
        {
            "sums": (6, 21),
            "initial_count": 2,
            "monster_played": 2,
            "phase": "hero",
            "exchange": 2,
            "monster_field": ["5D", "7C", "9H"],
        },
    ]
)

HC5 = (
    deal("KS", "3C", "2S", "5D", "9D")
    + encounter("8C", "10D", "QC")
    + [
        "KS hand -> hero_field",
        "4H combat_pile -> hero_field",
        {"sums": (19, 10), "initial_count": 1},
        "3C hand -> hero_field",
        "QC monster_field -> monster_field",
    ]
)

HC6 = HC1 + [
    "AC combat_pile -> artifacts",
    {"max_hp": 6, "buff": {"H": 2, "C": 1}, "artifacts": ["AC"], "regen_draws": 1},
    Reject("no_marker", "6C went back into combat_pile: look again for a 6"),
    Reject("5S max_hp_card -> combat_pile", "First take the new marker"),
    Reject("7H combat_pile -> max_hp_card", "The new Max HP marker must be a 6"),
    "6H combat_pile -> max_hp_card",
    "5S max_hp_card -> combat_pile",
    {"marker": ["6H"], "hp": 3},
    "7S combat_pile -> hand",
    "8S combat_pile -> hand",
    "9S combat_pile -> hand",
    {"hp": 6, "max_hp": 6, "phase": "reveal"},
]

HC7 = (
    deal("2S", "3S", "4S", "9D", "10S", marker="5H")
    + encounter("7H", "8C", "4C")
    + [
        "2S hand -> hero_field",
        "3S hand -> hero_field",
        "4C monster_field -> monster_field",
        {"sums": (5, 12), "exchange": 2},
        "10S hand -> hero_field",
        Reject("AD combat_pile -> monster_field", "An ace drawn for the monster goes to monster_rewards"),
        "AD combat_pile -> monster_rewards",
        {"rewards": ["AD"], "monster_played": 2},
        "5S combat_pile -> monster_field",
        {"sums": (15, 17), "monster_played": 3},
        "9D hand -> hero_field",
        "2C combat_pile -> monster_field",
        {"sums": (24, 19), "phase": "cleanup"},
        *cleanup("7H", ["2S", "3S", "10S", "9D"], ["8C", "4C", "5S", "2C"]),
        {"phase": "rewards"},
        "AD monster_rewards -> artifacts",
        {"buff": {"H": 2, "D": 1}, "max_hp": 6},
        "6D combat_pile -> max_hp_card",
        "5H max_hp_card -> combat_pile",
        "6S combat_pile -> hand",
        "7S combat_pile -> hand",
        "8S combat_pile -> hand",
        "9S combat_pile -> hand",
        "10C combat_pile -> hand",
        {"hp": 6, "phase": "reveal", "artifacts": ["AD"], "rewards": []},
    ]
)

# Encounter 1 costs two cards (no regen); encounter 2 leaves the Hero 8 vs 15, hand empty.
HC8_FIGHT = [
    *encounter("2C", "4D", "5D"),
    "10H hand -> hero_field",
    "9H hand -> hero_field",
    "5D monster_field -> monster_field",
    *cleanup("2C", ["10H", "9H"], ["4D", "5D"]),
    "end_turn",
    *encounter("2D", "8C", "7D"),
    "2S hand -> hero_field",
    "3S hand -> hero_field",
    "7D monster_field -> monster_field",
    "3C hand -> hero_field",
]
HC8_DEAL = deal("2S", "3S", "3C", "10H", "9H")

HC9_REGEN = (
    deal("2H", "2S", "4D", "6C", "9H")
    + encounter("5C", "3C", "6D")
    + [
        "9H hand -> hero_field",
        "end_turn",
        "6D monster_field -> monster_field",
        *cleanup("5C", ["9H"], ["3C", "6D"]),
        "8C combat_pile -> hand",
        Reject("10C combat_pile -> hand", "Hand is full (Max HP 5)"),
    ]
)

CASES = [
    Case(
        "HC-1 document figures 2-5",
        HC1
        + [
            "8C combat_pile -> hand",
            "10C combat_pile -> hand",
            {"hand": ["2S", "4D", "8C", "9H", "10C"], "phase": "reveal", "combat_pile": 21},
        ],
        says=[
            ("ANNOUNCE", "Encounter 1: monster 5C, it may play 5 cards"),
            ("ANNOUNCE", "Hero 0 vs Monster 3; the monster may play 3 more cards"),
            ("ANNOUNCE", "Hero 10 vs Monster 3"),
            ("ANNOUNCE", "Hero 10 vs Monster 9; the monster may play 3 more cards"),
            ("ANNOUNCE", "Hero 10 vs Monster 9: the Hero defeats 5C"),
            ("LEGAL", "Cleanup"),
            ("DAMAGE", "the fight cost 2 HP: HP 3/5"),
            ("LEGAL", "HP Regen: draw up to 2 cards"),
        ],
    ),
    Case(
        "HC-2 monster budget runs out",
        HC2_DEAL
        + [
            "7C hand -> hero_field",
            {"sums": (24, 21), "phase": "cleanup", "hand": ["2D"], "monster_played": 3},
        ],
        says=[
            ("ANNOUNCE", "Hero 9 vs Monster 19: the monster leads; exchange 2"),
            ("ANNOUNCE", "Hero 17 vs Monster 21; the monster may play 0 more cards"),
            ("STATE", "The monster is exhausted (all 3 cards played)"),
            ("ANNOUNCE", "Hero 24 vs Monster 21: the Hero defeats 3D"),
        ],
    ),
    Case(
        "HC-3 Hero Jack",
        HC3,
        says=[
            ("DAMAGE", "JC nullifies 4C: turn it face down"),
            ("LEGAL", "Turn 4C face down"),
            ("ANNOUNCE", "Hero 16 vs Monster 8: the Hero defeats 6S"),
        ],
    ),
    Case(
        "HC-3 a nullified card goes back face down at cleanup",
        HC3
        + [
            "BACK monster_field -> combat_pile",
            {"monster_field": ["8D"]},
        ],
    ),
    Case(
        "HC-4 monster Queen from the monster pile",
        HC4,
        says=[
            ("STATE", "Monster QS will steal the Hero's next card"),
            ("DAMAGE", "QS steals 9H: it now counts for the monster"),
            ("ANNOUNCE", "Hero 6 vs Monster 21: the monster leads; exchange 2"),
        ],
    ),
    Case(
        "HC-4 the stolen card first laid on hero_field, then carried over",
        deal("9H", "6C", "2S", "3D", "4H")
        + encounter("QS", "5D", "7C")
        + [
            "9H hand -> hero_field",
            {"sums": (0, 14)},
            Reject("9H hero_field -> hero_field", "First move 9H under the Queen on monster_field"),
            "9H hero_field -> monster_field",
            "6C hand -> hero_field",
            "7C monster_field -> monster_field",
            {"sums": (6, 21), "initial_count": 2},
        ],
        says=[("LEGAL", "Move 9H under the Queen on monster_field")],
    ),
    Case(
        "HC-5 Hero King and a tie",
        HC5
        + [
            {"sums": (22, 22), "phase": "cleanup", "steals": {}, "initial_count": 2},
        ],
        says=[
            ("STATE", "KS brings a bodyguard"),
            ("STATE", "4H is the bodyguard of KS"),
            ("STATE", "QC will steal the hero's next card"),
            ("ANNOUNCE", "Hero 22 vs Monster 22: the Hero defeats 8C"),
        ],
    ),
    Case(
        "HC-5 with hero_wins_ties false: combat goes on and the next card is stolen",
        HC5
        + [
            {"sums": (22, 22), "phase": "hero", "exchange": 2, "steals": {"monster": ["QC"]}},
            "2S hand -> monster_field",
            {"sums": (22, 24), "phase": "monster"},
            "6S combat_pile -> monster_field",
            {"sums": (22, 30), "exchange": 3},
        ],
        variants={"hero_wins_ties": "false"},
        says=[
            ("ANNOUNCE", "Hero 22 vs Monster 22: the monster leads; exchange 2"),
            ("DAMAGE", "QC steals 2S"),
        ],
    ),
    Case(
        "HC-6 level up at regen",
        HC6,
        says=[
            ("DAMAGE", "Level up with AC: Max HP 6, clubs +1"),
            ("LEGAL", "Level up: take a 6 from combat_pile"),
            ("LEGAL", "Put the old marker 5S at the bottom of combat_pile"),
            ("STATE", "Max HP marker is now 6H"),
            ("STATE", "Shuffle combat_pile"),
            ("LEGAL", "Draw from combat_pile until your hand holds 6 cards"),
            ("LEGAL", "Reveal the top card of monster_pile"),
        ],
    ),
    Case(
        "HC-6 with heal_then_shuffle: the shuffle comes after the heal",
        HC6,
        variants={"levelup_order": "heal_then_shuffle"},
        says=[
            ("STATE", "Max HP marker is now 6H"),
            ("LEGAL", "Draw from combat_pile until your hand holds 6 cards"),
            ("STATE", "Shuffle combat_pile"),
        ],
    ),
    Case(
        "HC-7 ace for the monster",
        HC7,
        says=[
            ("STATE", "AD is a reward under the monster: draw a replacement"),
            ("ANNOUNCE", "Hero 15 vs Monster 17; the monster may play 4 more cards"),
            ("ANNOUNCE", "the Hero defeats 7H"),
            ("LEGAL", "Collect the rewards"),
            ("DAMAGE", "Level up with AD: Max HP 6, diamonds +1"),
        ],
    ),
    Case(
        "HC-8 death and a Hero Point",
        HC8_DEAL
        + [
            "JK hero_points -> hero_points_used",
            {"hero_points": 1, "hp": 5},
            *HC8_FIGHT,
            {"sums": (8, 15), "phase": "death", "hp": 0},
            Reject("7S combat_pile -> hand", "Your hand is empty: use a Hero Point or answer defeat"),
            "JK hero_points -> hero_points_used",
            "6S combat_pile -> hand",
            "7S combat_pile -> hand",
            "8S combat_pile -> hand",
            "9S combat_pile -> hand",
            "10S combat_pile -> hand",
            {"phase": "hero", "exchange": 3, "hero_points": 0, "hp": 5},
        ],
        says=[
            ("STATE", "Your hand is already full: this Hero Point is wasted"),
            ("STATE", "The monster is exhausted (all 2 cards played)"),
            ("ASK", "Hero 8 vs Monster 15 and your hand is empty"),
            ("DAMAGE", "Hero Point used (0 left): heal to Max HP 5"),
            ("LEGAL", "Exchange 3: place 1 card"),
        ],
    ),
    Case(
        "HC-8 death with no Hero Point left",
        HC8_DEAL
        + [
            "JK hero_points -> hero_points_used",
            "JK hero_points -> hero_points_used",
            Reject("JK hero_points -> hero_points_used", "No Hero Points left"),
            *HC8_FIGHT,
            {"phase": "over", "result": "defeat"},
        ],
        says=[("RESULT", "Game over: Hero 8 vs Monster 15 with an empty hand and no Hero Points")],
    ),
    Case(
        "HC-8 declining the Hero Point",
        HC8_DEAL
        + HC8_FIGHT
        + ["answer defeat"]
        + [
            {"result": "defeat", "hero_points": 2},
        ],
        says=[("ASK", "or answer defeat"), ("RESULT", "the Hero declines his Hero Point")],
    ),
    Case(
        "HC-8 death_hero_point mandatory",
        HC8_DEAL
        + HC8_FIGHT
        + [
            Reject("answer defeat", "Use your Hero Point"),
            Reject("end_turn", "Use your Hero Point"),
            "JK hero_points -> hero_points_used",
            {"phase": "hero", "hero_points": 1},
        ],
        variants={"death_hero_point": "mandatory"},
    ),
    Case(
        "HC-9 three cards in the initial attack",
        deal("2H", "2S", "4D", "6C", "9H")
        + encounter("5C", "3C", "6D")
        + [
            "6C hand -> hero_field",
            "2H hand -> hero_field",
            Reject("4D hand -> hero_field", "At most 2 cards in the initial attack"),
        ],
    ),
    Case(
        "HC-9 two cards in exchange 2",
        HC2_DEAL[:-4]
        + [
            "8S hand -> hero_field",
            Reject("7C hand -> hero_field", "One card per exchange"),
        ],
    ),
    Case(
        "HC-9 regen of 3 cards",
        HC2_DEAL
        + [
            "7C hand -> hero_field",
            *cleanup("3D", ["4D", "5C", "8S", "7C"], ["9S", "10C", "2S"]),
            "3H combat_pile -> hand",
            "4H combat_pile -> hand",
            Reject("5H combat_pile -> hand", "HP Regen is at most 2 cards"),
        ],
    ),
    Case("HC-9 regen above Max HP", HC9_REGEN),
    Case(
        "HC-9 a joker on the field",
        deal("2H", "2S", "4D", "6C", "9H")
        + encounter("5C", "3C", "6D")
        + [
            Reject("JK hero_points -> hero_field", "Jokers are Hero Points, not attack cards"),
        ],
    ),
    Case(
        "HC-10 victory",
        deal("2H", "2S", "4D", "6C", "9H", monster_pile=1)
        + encounter("5C", "3C", "6D")
        + [
            "6C hand -> hero_field",
            "2H hand -> hero_field",
            "6D monster_field -> monster_field",
            *cleanup("5C", ["6C", "2H"], ["3C", "6D"]),
            "end_turn",
            {"phase": "over", "result": "victory", "defeated": 1},
        ],
        says=[("RESULT", "Victory! monster_pile is empty: 1 monster defeated, 2 Hero Points left")],
    ),
    # ---- protocol hard cases -------------------------------------------------------------
    Case(
        "both initial cards landed before the steal: the referee asks, answer 9H",
        deal("9H", "6C", "2S", "3D", "4H")
        + encounter("QS", "5D", "7C")
        + [
            "9H hand -> hero_field",
            "6C hand -> hero_field",
            "answer 9H_first",
            "9H hero_field -> monster_field",
            "7C monster_field -> monster_field",
            {"sums": (6, 21)},
        ],
        says=[("ASK", "6C hand -> hero_field: which did you mean?")],
    ),
    Case(
        "the placement order may also be answered by number",
        deal("9H", "6C", "2S", "3D", "4H")
        + encounter("QS", "5D", "7C")
        + [
            "9H hand -> hero_field",
            "6C hand -> hero_field",
            "answer 2",
            {"sums": (11, 11), "hero_field": ["6C", "9H"]},
        ],
    ),
    Case(
        "both initial cards landed before the steal: answer 6C (6C went down first)",
        deal("9H", "6C", "2S", "3D", "4H")
        + encounter("QS", "5D", "7C")
        + [
            "9H hand -> hero_field",
            "6C hand -> hero_field",
            Reject("9H hero_field -> monster_field", "Answer first"),
            "answer 6C_first",
            Reject("9H hero_field -> monster_field", "First move 6C under the Queen"),
            "6C hero_field -> monster_field",
            "7C monster_field -> monster_field",
            {"sums": (11, 18), "initial_count": 2, "hero_field": ["9H"]},
        ],
    ),
    Case(
        "an ace among the observation cards is replaced",
        deal("2H", "2S", "4D", "6C", "9H")
        + [
            "5C monster_pile -> monster_slot",
            "BACK combat_pile -> monster_field",
            "BACK combat_pile -> monster_field",
            "AS monster_field -> monster_field",
            Reject("3C combat_pile -> monster_field", "First move AS to monster_rewards"),
            "AS monster_field -> monster_rewards",
            {"rewards": ["AS"], "hidden": 1, "phase": "observe"},
            Reject("AH combat_pile -> monster_field", "goes to monster_rewards"),
            "AH combat_pile -> monster_rewards",
            "3C combat_pile -> monster_field",
            {"phase": "hero", "monster_played": 1, "rewards": ["AS", "AH"]},
        ],
    ),
    Case(
        "the hidden card is an ace: rewards, and a replacement that counts",
        deal("2H", "2S", "4D", "6C", "9H")
        + encounter("5C", "3C", "6D")[:-2]
        + [
            "3C monster_field -> monster_field",
            "6C hand -> hero_field",
            "2H hand -> hero_field",
            "AH monster_field -> monster_field",
            "AH monster_field -> monster_rewards",
            "7S combat_pile -> monster_field",
            {"monster_played": 2, "sums": (10, 10), "phase": "cleanup"},
        ],
    ),
    Case(
        "the last card of monster_pile is an ace: collect it, then victory",
        deal("2H", "2S", "4D", "6C", "9H", monster_pile=2)
        + encounter("5C", "3C", "6D")
        + [
            "6C hand -> hero_field",
            "2H hand -> hero_field",
            "6D monster_field -> monster_field",
            *cleanup("5C", ["6C", "2H"], ["3C", "6D"]),
            "end_turn",
            "AD monster_pile -> monster_rewards",
            "AD monster_rewards -> artifacts",
            "6H combat_pile -> max_hp_card",
            "5S max_hp_card -> combat_pile",
            "7S combat_pile -> hand",
            "8S combat_pile -> hand",
            "9S combat_pile -> hand",
            {"phase": "over", "result": "victory", "max_hp": 6},
        ],
        says=[("STATE", "AD was the last card of monster_pile"), ("RESULT", "Victory!")],
    ),
    Case(
        "King monster: a third card in the first attack",
        deal("2H", "2S", "4D", "6C", "9H")
        + encounter("KD", "3C", "6D")
        + [
            "9H hand -> hero_field",
            "6C hand -> hero_field",
            "6D monster_field -> monster_field",
            {"phase": "monster", "monster_played": 2},
            "2C combat_pile -> monster_field",
            {"monster_played": 3, "sums": (17, 11), "phase": "cleanup"},
        ],
    ),
    Case(
        "King monster with both_revealed: both observed cards face up",
        deal("2H", "2S", "4D", "6C", "9H")
        + [
            "KD monster_pile -> monster_slot",
            "3C combat_pile -> monster_field",
            "6D combat_pile -> monster_field",
            {"phase": "hero", "monster_played": 2, "hidden": 0},
            "9H hand -> hero_field",
            "6C hand -> hero_field",
            "2C combat_pile -> monster_field",
            {"monster_played": 3, "sums": (17, 11), "phase": "cleanup"},
        ],
        variants={"king_monster_observation": "both_revealed"},
    ),
    Case(
        "standard observation: a second face-up card is refused",
        deal("2H", "2S", "4D", "6C", "9H")
        + [
            "KD monster_pile -> monster_slot",
            "3C combat_pile -> monster_field",
            Reject("6D combat_pile -> monster_field", "Draw the other observation card face down"),
            "BACK combat_pile -> monster_field",
            {"phase": "hero"},
        ],
    ),
    Case(
        "the Hero's bodyguard is an ace: level up mid-fight, then a real bodyguard",
        deal("KS", "3C", "2S", "5D", "9D")
        + encounter("8C", "10D", "QC")
        + [
            "KS hand -> hero_field",
            "AH combat_pile -> artifacts",
            "6H combat_pile -> max_hp_card",
            "5S max_hp_card -> combat_pile",
            "7S combat_pile -> hand",
            "8S combat_pile -> hand",
            {"hp": 6, "max_hp": 6, "buff": {"H": 3}},
            "4H combat_pile -> hero_field",
            {"sums": (20, 10), "initial_count": 1, "phase": "hero"},
        ],
        says=[("DAMAGE", "Level up with AH: Max HP 6, hearts +3")],
    ),
    Case(
        "initial_hero_cards exactly_2: one card is not enough",
        deal("2H", "2S", "4D", "6C", "9H")
        + encounter("5C", "3C", "6D")
        + [
            "9H hand -> hero_field",
            Reject("end_turn", "Place 2 cards in the initial attack"),
            Reject("6D monster_field -> monster_field", "Place 2 cards in the initial attack"),
            "2S hand -> hero_field",
            {"phase": "monster"},
        ],
        variants={"initial_hero_cards": "exactly_2"},
    ),
    Case(
        "a Hero Queen steals the monster's next card (not replaced by default)",
        deal("QH", "2S", "4D", "6C", "9H")
        + encounter("5C", "3C", "6D")
        + [
            "QH hand -> hero_field",
            "end_turn",
            "6D monster_field -> hero_field",
            {"sums": (20, 3), "monster_played": 1, "phase": "cleanup"},
        ],
        says=[("DAMAGE", "QH steals 6D: it now counts for the hero")],
    ),
    Case(
        "replace_stolen_monster_card: the monster plays another card",
        deal("QH", "2S", "4D", "6C", "9H")
        + encounter("5C", "3C", "6D")
        + [
            "QH hand -> hero_field",
            "end_turn",
            "6D monster_field -> monster_field",
            "6D monster_field -> hero_field",
            "10S combat_pile -> monster_field",
            {"sums": (20, 13), "monster_played": 2, "phase": "cleanup"},
        ],
        variants={"replace_stolen_monster_card": "true"},
    ),
    Case(
        "monster Jack: the Hero's lowest effective card, a tie goes to the earliest placed",
        deal("4S", "2H", "9C", "QH", "7C")
        + encounter("9S", "10D", "10C")
        + [
            "4S hand -> hero_field",
            "2H hand -> hero_field",
            "10C monster_field -> monster_field",
            {"sums": (8, 20), "exchange": 2},
            "9C hand -> hero_field",
            "JD combat_pile -> monster_field",
            Reject("2H hero_field -> hero_field", "First turn 4S face down"),
            "4S hero_field -> hero_field",
            {"sums": (13, 31), "exchange": 3},
            "QH hand -> hero_field",
            "5H combat_pile -> hero_field",
            {"sums": (34, 31), "phase": "cleanup", "monster_played": 3},
        ],
        says=[
            ("DAMAGE", "JD nullifies 4S"),
            ("DAMAGE", "QH steals 5H: it now counts for the hero"),
            ("ANNOUNCE", "Hero 34 vs Monster 31: the Hero defeats 9S"),
        ],
    ),
    Case(
        "a monster King brings a bodyguard that counts but uses no allowance",
        deal("4S", "2H", "9C", "8C", "7C")
        + encounter("9S", "10D", "10C")
        + [
            "4S hand -> hero_field",
            "2H hand -> hero_field",
            "10C monster_field -> monster_field",
            "9C hand -> hero_field",
            "KD combat_pile -> monster_field",
            Reject("8C hand -> hero_field", "One card per exchange"),
            Reject("3D combat_pile -> hero_field", "KD's bodyguard goes onto monster_field"),
            "3D combat_pile -> monster_field",
            {"sums": (17, 36), "monster_played": 3, "plays_left": 6, "exchange": 3},
        ],
    ),
    Case(
        "moves that break the protocol are refused with a reason",
        deal("2H", "2S", "4D", "6C", "9H")
        + [
            Reject("AS combat_pile -> hand", "AS is an artifact: put it on artifacts"),
            Reject("5C combat_pile -> hand", "Hand is full (Max HP 5)"),
            Reject("AC monster_pile -> monster_slot", "An ace is not a monster"),
            Reject("2H monster_pile -> monster_slot", "2H cannot be in monster_pile: it is on hand"),
            Reject("KH hero_card -> hero_field", "KH is the Hero"),
            Reject("2H hand -> hero_field", "Cards are played only in the combat phase"),
            Reject("7S hand -> hand", "Only cards on a field are turned over"),
            "5C monster_pile -> monster_slot",
            Reject("6C hand -> hero_field", "Finish the observation first"),
            Reject("answer 1", "No question is open"),
        ],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_scenario(case: Case) -> None:
    _, said = play(case)
    assert_says(case, said)


def test_outcome_of_a_victory_and_a_defeat() -> None:
    ref, _ = play(next(c for c in CASES if c.name == "HC-10 victory"))
    out = ref.game.outcome(ref.state)
    assert out is not None and out.winner == "hero" and out.by_rules
    ref, _ = play(next(c for c in CASES if c.name == "HC-8 death with no Hero Point left"))
    out = ref.game.outcome(ref.state)
    assert out is not None and out.winner == "monster" and out.by_rules
    assert ref.feed(parse_short("end_turn"))[0].kind == "REJECT"


def test_legal_moves_match_what_apply_accepts() -> None:
    """Every listed legal move applies; a few listed draws are exactly the unseen cards."""
    game = load_game("houska_castle")
    ref, _ = play(Case("deal", deal("2H", "2S", "4D", "6C", "9H")))
    moves = game.legal_moves(ref.state)
    for m in moves:
        game.apply(ref.state, m)
    reveals = {str(m.card) for m in moves if type(m).__name__ in ("RevealMonster", "MonsterPileAce")}
    assert len(reveals) == 45 and "2H" not in reveals and "5S" not in reveals
