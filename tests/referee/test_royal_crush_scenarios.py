"""The test scenarios RC-1..RC-13 of docs/rules/royal_crush.md, as observation sequences.

Each case sets a table up by real observations (deal, first-player roll; ladder tokens placed
where the scenario starts), feeds typed observations and checks what the referee announces
and the state it ends in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from royal_crush_support import Step, commit_and_reveal, play, steps, table

from referee.cards import Card
from referee.core import Referee
from referee.games import load_game


@dataclass
class Case:
    name: str
    steps: list[Step]
    ladders_before: dict[str, int] = field(default_factory=dict)
    ladders_after: dict[str, int] = field(default_factory=dict)
    variants: dict[str, str] = field(default_factory=dict)
    first: str = "p1"
    phase: str | None = None
    winner: str | None = None


def sweep(*pairs: str) -> list[Step]:
    """Cleanup moves ``"7S p1"`` -> ``7S commit_p1 -> draw_pile``."""
    out = []
    for pair in pairs:
        c, p = pair.split()
        out.append(Step(f"{c} commit_{p} -> draw_pile"))
    return out


def draws(*players: str) -> list[Step]:
    return [Step(f"BACK draw_pile -> hand_{p}") for p in players]


RC1 = Case(
    "RC-1 basic conquest, Jack against one opponent",
    steps(
        ("declare victim=p2", "ANNOUNCE: Conquest 1: p1 attacks p2"),
        ("lock_sides", "ANNOUNCE: Sides locked: attacker p1; victim p2"),
    )
    + commit_and_reveal({"p1": ["7S", "JD"], "p2": ["9H"]})[:-1]
    + steps(
        ("reveal p1=7S,JD p2=9H", "STATE: attacker side: 7S=7 JD=3 = 10", "STATE: victim side: 9H=9 = 9",
         "ANNOUNCE: 10 to 9: the attacker side wins", "DAMAGE: p1 up to 1", "DAMAGE: p2 stays on 0",
         "STATE: Cleanup: put 7S JD 9H under the draw pile"),
    )
    + sweep("7S p1", "JD p1")
    + steps(("9H commit_p2 -> draw_pile", "LEGAL: Draw one card each, clockwise from p1: p1, p2, p3, p4"))
    + draws("p1", "p2", "p3")
    + steps(("BACK draw_pile -> hand_p4", "ANNOUNCE: Conquest 2: p2 attacks")),
    ladders_after={"p1": 1, "p2": 0, "p3": 0, "p4": 0},
    phase="declare",
)

RC2 = Case(
    "RC-2 a King suppresses the Queen",
    steps(
        "declare victim=p2",
        ("join player=p3 side=attacker", "STATE: p3 joins the attacker side (p1)"),
        ("join player=p4 side=victim", "STATE: p4 joins the victim side (p2)"),
        ("lock_sides", "ANNOUNCE: Sides locked: attacker p1 + p3; victim p2 + p4"),
    )
    + commit_and_reveal({"p3": ["6C"], "p4": ["8D"], "p1": ["4S", "KC"], "p2": ["8H", "QH"]})[:-1]
    + steps(
        ("reveal p1=4S,KC p2=8H,QH p3=6C p4=8D",
         "STATE: A King: every other royal card is worth 0",
         "STATE: attacker side: 4S=4 KC=5 6C=6 = 15", "STATE: victim side: 8H=8 QH=0 8D=8 = 16",
         "ANNOUNCE: 15 to 16: the victim side wins",
         "DAMAGE: p1 down to 0", "DAMAGE: p2 up to 1", "DAMAGE: p3 down to 1", "DAMAGE: p4 up to 1"),
    ),
    ladders_before={"p1": 1, "p2": 0, "p3": 2, "p4": 0},
    ladders_after={"p1": 0, "p2": 1, "p3": 1, "p4": 1},
    phase="cleanup",
)

RC2_NO_KING = Case(
    "RC-2 without the King the Queen copies the ally's 8",
    steps("declare victim=p2", "join player=p3 side=attacker", "join player=p4 side=victim", "lock_sides")
    + commit_and_reveal({"p3": ["6C"], "p4": ["8D"], "p1": ["4S"], "p2": ["8H", "QH"]})[:-1]
    + steps(("reveal p1=4S p2=8H,QH p3=6C p4=8D", "STATE: victim side: 8H=8 QH=8 8D=8 = 24",
             "ANNOUNCE: 10 to 24: the victim side wins")),
    ladders_after={"p1": 0, "p2": 1, "p3": 0, "p4": 1},
)

RC3 = Case(
    "RC-3 two Kings cancel",
    steps("declare victim=p2", "lock_sides")
    + commit_and_reveal({"p1": ["9S", "KS"], "p2": ["7H", "KH"]})[:-1]
    + steps(("reveal p1=9S,KS p2=7H,KH", "STATE: Two Kings cancel each other",
             "STATE: attacker side: 9S=9 KS=0 = 9", "STATE: victim side: 7H=7 KH=0 = 7",
             "ANNOUNCE: 9 to 7: the attacker side wins")),
    ladders_after={"p1": 1, "p2": 0},
)

RC4 = Case(
    "RC-4 a Joker without allies empties a side: everyone involved wins",
    steps("declare victim=p2", "lock_sides")
    + commit_and_reveal({"p1": ["5C", "JK"], "p2": ["3D"]})[:-1]
    + steps(("reveal p1=5C,JK p2=3D", "STATE: p1's Joker: p1 switches to the victim side",
             "ANNOUNCE: One side is empty: every participant wins",
             "DAMAGE: p1 up to 1", "DAMAGE: p2 up to 1")),
    ladders_after={"p1": 1, "p2": 1, "p3": 0, "p4": 0},
)

RC4_KING = Case(
    "RC-4 a King blanks the Joker: p1 stays and loses 5 to 8",
    steps("declare victim=p2", "lock_sides")
    + commit_and_reveal({"p1": ["5C", "JK"], "p2": ["3D", "KH"]})[:-1]
    + steps(("reveal p1=5C,JK p2=3D,KH", "STATE: attacker side: 5C=5 JK=0 = 5",
             "STATE: victim side: 3D=3 KH=5 = 8", "ANNOUNCE: 5 to 8: the victim side wins")),
    ladders_before={"p1": 1},
    ladders_after={"p1": 0, "p2": 1},
)

RC5 = Case(
    "RC-5 Joker defection carries the attack card to the victim side",
    steps("declare victim=p2", "join player=p3 side=attacker", "lock_sides")
    + commit_and_reveal({"p3": ["10S"], "p1": ["2D", "JK"], "p2": ["3H"]})[:-1]
    + steps(("reveal p1=2D,JK p2=3H p3=10S", "STATE: p1's Joker: p1 switches to the victim side",
             "STATE: attacker side: 10S=10 = 10", "STATE: victim side: 2D=2 JK=0 3H=3 = 5",
             "ANNOUNCE: 10 to 5: the attacker side wins",
             "DAMAGE: p3 up to 1", "DAMAGE: p1 down to 0", "DAMAGE: p2 down to 0")),
    ladders_before={"p1": 1, "p2": 1},
    ladders_after={"p1": 0, "p2": 0, "p3": 1},
)

RC6 = Case(
    "RC-6 an Ace wins the next turn; then the order goes on with p2",
    steps("declare victim=p2", "lock_sides")
    + commit_and_reveal({"p1": ["3C", "AS"], "p2": ["10H"]})[:-1]
    + steps(("reveal p1=3C,AS p2=10H", "STATE: attacker side: 3C=3 AS=10 = 13",
             "ANNOUNCE: 13 to 10: the attacker side wins", "STATE: p1 won with an Ace: p1 attacks next"))
    + sweep("3C p1", "AS p1", "10H p2")
    + draws("p1", "p2", "p3")
    + steps(("BACK draw_pile -> hand_p4", "ANNOUNCE: Conquest 2: p1 attacks (Ace: extra turn)"),
            "declare victim=p3", "lock_sides")
    + commit_and_reveal({"p1": ["4C"], "p3": ["2H"]})
    + sweep("4C p1", "2H p3")
    + draws("p1", "p2", "p3")
    + steps(("BACK draw_pile -> hand_p4", "ANNOUNCE: Conquest 3: p2 attacks")),
    ladders_after={"p1": 2, "p2": 0, "p3": 0},
    phase="declare",
)

RC7 = Case(
    "RC-7 Ace against Ace ties 15-15; dice decide, re-rolling 7-7",
    steps("declare victim=p2", "lock_sides")
    + commit_and_reveal({"p1": ["6C", "AC"], "p2": ["9D", "AD"]})[:-1]
    + steps(
        ("reveal p1=6C,AC p2=9D,AD", "STATE: attacker side: 6C=6 AC=9 = 15",
         "STATE: victim side: 9D=9 AD=6 = 15", "ANNOUNCE: Tie 15 to 15: roll-off p1 vs p2"),
        ("dice player=p1 values=3,4", "STATE: p1 rolls 3+4 = 7"),
        ("dice player=p2 values=5,2", "ANNOUNCE: Tie at 7: p1 and p2 roll again"),
        ("dice player=p1 values=1,4", "STATE: p1 rolls 1+4 = 5"),
        ("dice player=p2 values=4,5", "ANNOUNCE: p2 wins the roll-off (9): the victim side wins",
         "DAMAGE: p2 up to 1", "STATE: p2 won with an Ace: p2 attacks next"),
    )
    + sweep("6C p1", "AC p1", "9D p2", "AD p2")
    + draws("p1", "p2", "p3")
    + steps(("BACK draw_pile -> hand_p4", "ANNOUNCE: Conquest 2: p2 attacks (Ace: extra turn)")),
    ladders_after={"p1": 0, "p2": 1},
    phase="declare",
)

RC8 = Case(
    "RC-8 Queen copies the best ally card, Jack counts three opponents",
    steps("declare victim=p2", "join player=p3 side=victim", "join player=p4 side=victim",
          ("lock_sides", "ANNOUNCE: Sides locked: attacker p1; victim p2 + p3 + p4"))
    + commit_and_reveal({"p3": ["9S"], "p4": ["4D"], "p1": ["10C", "JH"], "p2": ["2H", "QC"]})[:-1]
    + steps(("reveal p1=10C,JH p2=2H,QC p3=9S p4=4D", "STATE: attacker side: 10C=10 JH=9 = 19",
             "STATE: victim side: 2H=2 QC=9 9S=9 4D=4 = 24", "ANNOUNCE: 19 to 24: the victim side wins",
             "DAMAGE: p1 down to 0", "DAMAGE: p2 up to 1", "DAMAGE: p3 up to 1", "DAMAGE: p4 up to 1")),
    ladders_before={"p1": 1},
    ladders_after={"p1": 0, "p2": 1, "p3": 1, "p4": 1},
)

RC9 = Case(
    "RC-9 joint winners reach 5 together",
    steps("declare victim=p2", "join player=p3 side=attacker", "lock_sides")
    + commit_and_reveal({"p3": ["5D"], "p1": ["9C"], "p2": ["2S"]})[:-1]
    + steps(("reveal p1=9C p2=2S p3=5D", "DAMAGE: p1 up to 5", "DAMAGE: p3 up to 5",
             "RESULT: p1 and p3 win: p1 and p3 reached 5"),
            ("BACK draw_pile -> hand_p1", "REJECT: The game is over")),
    ladders_before={"p1": 4, "p2": 2, "p3": 4},
    ladders_after={"p1": 5, "p2": 1, "p3": 5},
    phase="over",
    winner="p1+p3",
)

RC10 = Case(
    "RC-10 illegal actions are refused, illegal commitments go back to the hand",
    steps(
        ("declare victim=p1", "REJECT: p1 cannot attack itself"),
        "declare victim=p2",
        ("exclude by=p2 player=p3", "STATE: p2 excludes p3 from the victim side"),
        ("join player=p3 side=victim", "REJECT: p2 has excluded you"),
        ("BACK hand_p3 -> side_victim", "REJECT: p2 has excluded you"),
        "join player=p3 side=attacker",
        ("join player=p3 side=victim", "REJECT: p3 is already on the attacker side: nobody joins both sides"),
        "join player=p4 side=victim",
        ("join player=p4 side=attacker", "REJECT: nobody joins both sides"),
        ("BACK hand_p4 -> side_victim", "ANNOUNCE: Sides locked: attacker p1 + p3; victim p2 + p4"),
        ("BACK hand_p4 -> commit_p4", "REJECT: Allies commit exactly one attack card"),
        ("BACK hand_p1 -> commit_p1", "REJECT: Allies commit first: waiting for p3"),
        "BACK hand_p3 -> side_attacker",
        "BACK hand_p1 -> commit_p1",
        "BACK hand_p1 -> commit_p1",
        ("BACK hand_p1 -> commit_p1", "REJECT: at most one attack card and one royal card"),
        "BACK hand_p2 -> commit_p2",
        ("countdown", "STATE: 3-2-1"),
        ("BACK hand_p2 -> commit_p2", "REJECT: The countdown has started"),
        ("reveal p1=7S,9S p2=8C p3=5H p4=QS",
         "STATE: QS counts for nothing (an ally commits one attack card): return it to p4's hand",
         "STATE: 9S counts for nothing (one attack and one royal card): return it to p1's hand",
         "STATE: attacker side: 7S=7 5H=5 = 12", "STATE: victim side: 8C=8 = 8",
         "STATE: Cleanup: put 7S 8C 5H under the draw pile; return 9S to p1's hand, QS to p4's hand"),
        ("QS commit_p4 -> draw_pile", "REJECT: QS counted for nothing: it goes back to p4's hand"),
        ("7S commit_p1 -> hand_p1", "REJECT: 7S counted: it goes under the draw pile"),
        "QS side_victim -> hand_p4",
        "9S commit_p1 -> hand_p1",
    ),
    ladders_after={"p1": 1, "p2": 0, "p3": 1, "p4": 0},
    phase="cleanup",
)

RC11 = Case(
    "RC-11 combo mode doubles a one-suit side",
    steps("declare victim=p2", "lock_sides")
    + commit_and_reveal({"p1": ["6H", "JH"], "p2": ["10S"]})[:-1]
    + steps(("reveal p1=6H,JH p2=10S", "STATE: attacker side: 6H=6 JH=3 x2 combo = 18",
             "ANNOUNCE: 18 to 10: the attacker side wins")),
    variants={"combo_mode": "true"},
    ladders_after={"p1": 1, "p2": 0},
)

RC11_KING = Case(
    "RC-11 combo mode with a King: the blanked Jack still makes the pair",
    steps("declare victim=p2", "lock_sides")
    + commit_and_reveal({"p1": ["6H", "JH"], "p2": ["10S", "KD"]})[:-1]
    + steps(("reveal p1=6H,JH p2=10S,KD", "STATE: attacker side: 6H=6 JH=0 x2 combo = 12",
             "STATE: victim side: 10S=10 KD=5 = 15", "ANNOUNCE: 12 to 15: the victim side wins")),
    variants={"combo_mode": "true"},
    ladders_after={"p1": 0, "p2": 1},
)

RC12 = Case(
    "RC-12 role reversal: the higher count moves down",
    steps("declare victim=p2", "lock_sides")
    + commit_and_reveal({"p1": ["7S", "JD"], "p2": ["9H"]})[:-1]
    + steps(("reveal p1=7S,JD p2=9H", "ANNOUNCE: 10 to 9: the attacker side wins",
             "DAMAGE: p1 stays on 0", "DAMAGE: p2 up to 1")),
    variants={"role_reversal": "true"},
    ladders_after={"p1": 0, "p2": 1},
)

CASES = [RC1, RC2, RC2_NO_KING, RC3, RC4, RC4_KING, RC5, RC6, RC7, RC8, RC9, RC10, RC11, RC11_KING, RC12]


@pytest.mark.parametrize("case", CASES, ids=[c.name.split(" ")[0] + " " + c.name for c in CASES])
def test_scenario(case: Case):
    ref = table(case.first, case.ladders_before, **case.variants)
    play(ref, case.steps)
    for p, spot in case.ladders_after.items():
        assert ref.state.ladder[p] == spot, f"{p} on {ref.state.ladder[p]}, expected {spot}"
    if case.phase:
        assert ref.state.phase == case.phase
    if case.winner:
        out = ref.game.outcome(ref.state)
        assert out is not None and out.winner == case.winner and out.by_rules


def test_rc1_first_player_roll_with_tie():
    game = load_game("royal_crush")
    ref = Referee(game)
    ref.start()
    play(ref, steps(
        ("deal", "ANNOUNCE: Dealt. Each player rolls 2d6"),
        "dice player=p1 values=4,5",
        "dice player=p2 values=5,6",
        "dice player=p3 values=6,5",
        ("dice player=p4 values=1,3", "ANNOUNCE: Tie at 11: p2 and p3 roll again"),
        ("dice player=p1 values=6,6", "REJECT: p1 does not roll now"),
        "dice player=p2 values=3,3",
        ("dice player=p3 values=4,4", "STATE: p3 rolls highest (8) and attacks first",
         "ANNOUNCE: Conquest 1: p3 attacks"),
    ))
    assert ref.state.conquest.attacker == "p3"
    assert ref.state.hand == {"p1": 7, "p2": 7, "p3": 7, "p4": 7} and ref.state.draw_count == 26


def test_rc1_cards_go_under_the_pile_and_every_hand_refills():
    ref = table("p1")
    play(ref, RC1.steps)
    s = ref.state
    assert s.hand == {"p1": 7 - 2 + 1, "p2": 7 - 1 + 1, "p3": 8, "p4": 8}
    assert s.draw_under == [[Card.parse(c) for c in ("7S", "9H", "JD")]]
    assert s.draw_count == 26 + 3 - 4


def test_rc13_no_draw_elimination():
    ref = table("p1", no_draw="true")
    s = ref.state
    assert s.hand == {p: 13 for p in s.players} and s.draw_count == 2
    # p4 has spent all but one card in earlier conquests (face-down, so still unknown).
    s.hand["p4"] = 1
    s.draw_top += 12
    play(ref, steps("declare victim=p2", "join player=p4 side=victim", "lock_sides")
         + commit_and_reveal({"p4": ["6D"], "p1": ["10C"], "p2": ["3S"]})
         + sweep("10C p1", "3S p2")
         + steps(("6D commit_p4 -> draw_pile", "DAMAGE: p4 has no cards left and is out of the game",
                  "ANNOUNCE: Conquest 2: p2 attacks"),
                 ("declare victim=p4", "REJECT: p4 is out of the game and cannot be attacked"),
                 "declare victim=p3",
                 ("join player=p4 side=victim", "REJECT: p4 is out of the game"),
                 "lock_sides")
         + commit_and_reveal({"p2": ["5S"], "p3": ["2C"]})
         + sweep("5S p2")
         + steps(("2C commit_p3 -> draw_pile", "ANNOUNCE: Conquest 3: p3 attacks"),
                 "declare victim=p1", "lock_sides")
         + commit_and_reveal({"p3": ["4S"], "p1": ["3C"]})
         + sweep("4S p3")
         + steps(("3C commit_p1 -> draw_pile", "ANNOUNCE: Conquest 4: p1 attacks")))
    assert s is not ref.state and ref.state.eliminated == ["p4"]
    assert ref.state.hand == {"p1": 11, "p2": 11, "p3": 11, "p4": 0}


def test_rc13_last_player_standing_wins():
    ref = table("p1", players="3", no_draw="true")
    s = ref.state
    s.hand.update({"p2": 1, "p3": 0})
    s.eliminated.append("p3")
    s.draw_top += 13 + 12
    play(ref, steps("declare victim=p2", "lock_sides")
         + commit_and_reveal({"p1": ["8S"], "p2": ["4H"]})
         + sweep("8S p1")
         + steps(("4H commit_p2 -> draw_pile", "DAMAGE: p2 has no cards left",
                  "RESULT: p1 wins: p1 is the last player standing")))
    out = ref.game.outcome(ref.state)
    assert out == ref.game.outcome(ref.state) and out.winner == "p1" and out.by_rules

