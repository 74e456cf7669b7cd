"""Dukes Up!: the spec's test scenarios (DU-1..DU-12) and the protocol's hard cases.

Each case is a real observation sequence in the typed form of ``cardref play``; inline
dicts check the state at that point, ``Reject`` lines must be refused with the given reason
and leave the referee exactly as it was, and ``says`` lists announcements (kind, fragment)
that must appear in this order. Hands are hidden: draws are ``BACK``, and a hand card's
identity is first seen when it is played.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from playthrough import deck_of_54, steps
from scenario_runner import Case, Reject, assert_says, play_case

from referee.cards import card
from referee.core import Referee
from referee.games import load_game
from referee.games.dukes_up.melds import show
from referee.games.dukes_up.state import Side
from referee.observations import parse_short


def setup(black: str, red: str, first: str | None = "black") -> list[Any]:
    """Both players draw 4, place castle and dukes face-down, reveal; ``first`` answers A1."""
    lines: list[Any] = []
    for p in ("black", "red"):
        lines += [f"BACK draw_pile_{p} -> hand_{p}"] * 4
        lines += [f"BACK hand_{p} -> castle_{p}"] + [f"BACK hand_{p} -> dukes_{p}"] * 2
    lines.append(f"dukes_up black={black} red={red}")
    if first:
        lines.append(f"answer {first}")
    return lines


def draw(p: str, n: int = 2) -> list[str]:
    return [f"BACK draw_pile_{p} -> hand_{p}"] * n


def meld(p: str, key: str, *cards: str) -> list[str]:
    return [f"{c} hand_{p} -> {key}" for c in cards]


def view(ref: Referee) -> dict[str, Any]:
    s = ref.state

    def castle(side: Side) -> str | None:
        return "down" if side.castle_down else (str(side.castle_up) if side.castle_up else None)

    out: dict[str, Any] = {
        "phase": s.phase,
        "active": s.active,
        "turn": s.turn,
        "played": s.played,
        "melds": sorted(show(v) for v in s.melds.values()),
        "final_turn": s.final_turn,
        "winner": s.winner,
        "scores": s.scores,
    }
    for p, side in s.sides.items():
        out[f"hand_{p}"] = side.hand
        out[f"dukes_{p}"] = show(side.dukes)
        out[f"castle_{p}"] = castle(side)
        out[f"discard_{p}"] = [str(c) for c in side.discard]
        out[f"draw_{p}"] = side.draw
    return out


def play(case: Case, ref: Referee | None = None, check: bool = True) -> tuple[Referee, list[tuple[str, str]]]:
    return play_case("dukes_up", case, view, ref, check)


# ---- the spec's scenarios ----------------------------------------------------------------
DU1 = setup("7S,2S", "8D,JH", first=None)[:-1] + [
    Reject("dukes_up black=7S,2S,9C red=8D,JH", "Exactly 2 dukes"),
    Reject("dukes_up black=7S,8D red=8D,JH", "8D is not black's"),
    "dukes_up black=7S,2S red=8D,JH",
    {
        "dukes_black": "2S 7S",
        "dukes_red": "8D JH",
        "castle_black": "down",
        "castle_red": "down",
        "hand_black": 1,
        "hand_red": 1,
        "draw_black": 22,
        "phase": "first",
    },
    Reject("9C hand_black -> meld_1", "Answer first: who plays first?"),
    "answer red",
    {"phase": "draw", "active": "red", "turn": 1},
]

# DU-3, DU-4, DU-6 and DU-12 are one game: black loses both dukes, rebuilds one after the
# forced flip, and red takes castle JC with its guard 3C.
CASTLE_GAME = setup("8S,5S", "8D,KH") + [
    *draw("black"),
    "9C hand_black -> discard_pile_black",
    "end_turn",
    *draw("red"),
    *meld("red", "meld_1", "7D", "9D", "10D"),
    "8S dukes_black -> meld_1",
    {"dukes_black": "5S", "melds": ["7D 8S 9D 10D"], "hand_red": 0},
    "QD draw_pile_red -> discard_pile_red",
    {"active": "black", "turn": 3},
    *draw("black"),
    "2C hand_black -> discard_pile_black",
    "end_turn",
    *draw("red"),
    *meld("red", "meld_2", "5H", "5D"),
    "5S dukes_black -> meld_2",
    "KD draw_pile_red -> discard_pile_red",
    {"dukes_black": "", "castle_black": "down", "active": "black", "hand_black": 3},
    *draw("black", 1),
    Reject("9S hand_black -> meld_3", "Flip your castle first"),
    Reject("end_turn", "Flip your castle first"),
    "JC castle_black -> castle_black",
    {"castle_black": "JC", "played": False},
    "3C hand_black -> dukes_black",
    "4C hand_black -> discard_pile_black",
    *draw("red"),
    "QH draw_pile_red -> discard_pile_red",
    "end_turn",
    *draw("black"),
    *meld("black", "meld_3", "9S", "10S", "JS"),
    "6C hand_black -> discard_pile_black",
    *draw("red"),
    {"hand_red": 4},
    *meld("red", "meld_4", "JH", "JD"),
    "JC castle_black -> meld_4",
    Reject("3H hand_red -> discard_pile_red", "Take every duke (3C) in the same turn as the castle"),
    Reject("end_turn", "Take every duke (3C) in the same turn as the castle"),
    *meld("red", "meld_5", "3H", "3D"),
    "3C dukes_black -> meld_5",
    "end_turn",
    {
        "phase": "over",
        "winner": "red",
        "scores": {"black": 7, "red": 15},
        "castle_black": None,
        "dukes_black": "",
        "melds": ["3C 3D 3H", "5D 5H 5S", "7D 8S 9D 10D", "9S 10S JS", "JC JD JH"],
    },
]

DU5 = setup("8S,5S", "8D,KH", first="red") + [
    *draw("red"),
    Reject("BACK castle_black -> meld_1", "A castle can only be taken when face-up"),
    Reject("QC castle_black -> meld_1", "A castle can only be taken when face-up"),
    Reject("8D dukes_red -> meld_1", "Your own dukes cannot go into a meld"),
]

DU7 = setup("8S,5S", "8D,KH", first="red") + [
    *draw("red"),
    "QD draw_pile_red -> discard_pile_red",
    "end_turn",
    *draw("black"),
    "9C hand_black -> discard_pile_black",
    "end_turn",
    {"hand_red": 3, "active": "red"},
    *draw("red", 1),
    Reject("BACK draw_pile_red -> hand_red", "Hand limit 4: you may draw 1"),
]

DU8 = setup("8S,2C", "8D,KH") + [
    *draw("black"),
    *meld("black", "meld_1", "5S", "6S", "7S"),
    Reject("8S dukes_black -> meld_1", "Your own dukes cannot go into a meld"),
    "QS draw_pile_black -> discard_pile_black",
    *draw("red"),
    "8S dukes_black -> meld_1",
    {"melds": ["5S 6S 7S 8S"]},
    "7S meld_1 -> meld_2",
    "8S meld_1 -> meld_2",
    Reject("2H hand_red -> discard_pile_red", "meld 5S 6S has fewer than 3 cards"),
    Reject("8S meld_2 -> hand_red", "Table cards cannot return to hand"),
    "table melds=5S+6S+7S+8S",
    {"melds": ["5S 6S 7S 8S"]},
    "table melds=5S+6S,7S+8S",
    Reject("end_turn", "meld 5S 6S has fewer than 3 cards"),
    Reject("table melds=5S+6S+7S", "Table cards cannot return to hand: 8S"),
    "7S meld_2 -> meld_1",
    "8S meld_2 -> meld_1",
    "2H hand_red -> discard_pile_red",
    {"active": "black", "melds": ["5S 6S 7S 8S"]},
]

DU9 = setup("8S,5S", "8D,KH") + [
    *draw("black"),
    "9C hand_black -> discard_pile_black",
    {"phase": "second_discard", "active": "black"},
    "JC draw_pile_black -> discard_pile_black",
    {"active": "red", "discard_black": ["9C", "JC"], "draw_black": 19, "hand_black": 2},
    *draw("red"),
    *meld("red", "meld_1", "5H", "6H", "7H"),
    "KD draw_pile_red -> discard_pile_red",
    {"active": "black", "phase": "draw"},
    Reject("QD draw_pile_red -> discard_pile_red", "Second discard only if you did not play"),
    Reject("QD hand_red -> discard_pile_red", "Second discard only if you did not play"),
]

DU10 = setup("9S,KC", "8D,JH") + [
    *draw("black"),
    *meld("black", "meld_1", "AS", "2S", "3S"),
    "QC draw_pile_black -> discard_pile_black",
    *draw("red"),
    *meld("red", "meld_2", "9D", "9H"),
    "9S dukes_black -> meld_2",
    "2H hand_red -> discard_pile_red",
    *draw("black"),
    "4S hand_black -> meld_1",
    {"melds": ["9D 9H 9S", "AS 2S 3S 4S"]},
    Reject("2S meld_1 -> discard_pile_black", "Removing 2S leaves AS 3S 4S"),
    Reject("9D meld_2 -> discard_pile_black", "Only your own colour"),
    Reject("9S meld_2 -> discard_pile_black", "Removing 9S leaves 9D 9H"),
    Reject("4S meld_1 -> discard_pile_red", "It is black's turn"),
    Reject("4S hand_black -> discard_pile_red", "Discards go to your own discard pile"),
    "4S meld_1 -> discard_pile_black",
    {"melds": ["9D 9H 9S", "AS 2S 3S"], "discard_black": ["QC", "4S"], "active": "red"},
]

# ---- the protocol's hard cases -------------------------------------------------------------
SWITCH = setup("8S,5S", "8D,KH") + [
    *draw("black"),
    "8S dukes_black -> hand_black",
    Reject("9C hand_black -> meld_1", "Finish the duke switch first"),
    Reject("9C hand_black -> discard_pile_black", "Finish the duke switch first"),
    "9C hand_black -> dukes_black",
    {"dukes_black": "5S 9C", "hand_black": 3, "played": True},
    "4C hand_black -> dukes_black",  # the other order: the new duke first
    Reject("4C dukes_black -> hand_black", "4C just became a duke"),
    "5S dukes_black -> hand_black",
    {"dukes_black": "4C 9C", "hand_black": 3},
    "5S hand_black -> discard_pile_black",
    {"active": "red", "hand_black": 2},
]

REGROUP = setup("5S,2C", "8D,KH") + [
    *draw("black"),
    *meld("black", "meld_1", "9C", "10C", "JC"),
    "QS draw_pile_black -> discard_pile_black",
    *draw("red"),
    *meld("red", "meld_2", "5H", "5D"),
    "5S dukes_black -> meld_2",
    "2H hand_red -> discard_pile_red",
    *draw("black"),
    # one cluster holding both melds and a new QC: only one way to split it
    "table melds=9C+10C+JC+QC+5H+5D+5S",
    {"melds": ["5D 5H 5S", "9C 10C JC QC"], "hand_black": 1, "played": True},
    Reject("table melds=5D+5H+5S,9C+10C+JC+QC+3H", "3H is not yours to play"),
    Reject("table melds=9C+10C+JC+QC+5H+5D+5S+QS", "QS is not in black's hand (it is on discard_pile_black)"),
    "4C hand_black -> discard_pile_black",
    {"active": "red", "hand_black": 0},
]

CASES = [
    Case(
        "DU-1 set-up and reveal",
        DU1,
        says=[
            ("ANNOUNCE", "Dukes Up! black dukes 2S 7S, red dukes 8D JH"),
            ("ASK", "Who plays first?"),
            ("ANNOUNCE", "red plays first"),
        ],
    ),
    Case(
        "DU-3/4/6/12 duke take, forced flip, castle take and scoring",
        CASTLE_GAME,
        says=[
            ("STATE", "red takes black's duke 8S"),
            ("LEGAL", "black has no dukes: flip your castle"),
            ("STATE", "black's castle JC is face-up"),
            ("STATE", "black creates the duke 3C"),
            ("STATE", "red takes black's castle JC"),
            ("STATE", "red takes black's duke 3C"),
            ("RESULT", "red took black's castle JC: black 7, red 15: red wins"),
        ],
    ),
    Case("DU-5 face-down castle", DU5),
    Case("DU-7 hand limit", DU7),
    Case("DU-8 table must be valid", DU8, says=[("STATE", "Table: meld_1 5S 6S | meld_2 7S 8S")]),
    Case("DU-9 double discard", DU9, says=[("LEGAL", "black did not play: discard a second card")]),
    Case("DU-10 discard off the table", DU10),
    Case(
        "switch a duke, both orders",
        SWITCH,
        says=[("STATE", "black switches duke 8S for 9C"), ("STATE", "black switches duke 5S for 4C")],
    ),
    Case(
        "table read by the partition search",
        REGROUP,
        says=[("STATE", "Table: meld_1 5D 5H 5S | meld_2 9C 10C JC QC")],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_scenario(case: Case) -> None:
    _, said = play(case)
    assert_says(case, said)


def test_du11_exhaustion_final_turn_and_scoring() -> None:
    """DU-11's counts (6 black cards on the table, 1 duke, 1 castle) cannot add up to 26 with
    empty piles, so the end of that game is set up directly: black draws its last card."""
    game = load_game("dukes_up")
    ref = Referee(game)
    s = ref.state
    s.phase, s.active, s.turn, s.allowance = "draw", "black", 30, 1
    s.melds = {
        "meld_1": [card(c) for c in ("AS", "2S", "3S", "4S")],
        "meld_2": [card(c) for c in ("JC", "JS", "JH", "JD")],
        "meld_3": [card(c) for c in ("5H", "6H", "7H")],
        "meld_4": [card(c) for c in ("8D", "9D", "10D")],
    }
    black, red = s.sides["black"], s.sides["red"]
    black.hidden, black.draw, black.hand, black.discard = {card("9C"), card("KC"), card("QC")}, 1, 1, []
    black.dukes, black.castle_down = [card("7S")], True
    red.dukes, red.castle_down = [card("KH"), card("QH")], True
    out = ref.feed(parse_short("BACK draw_pile_black -> hand_black"))
    assert [a.text for a in out] == ["Final turn for black: draw and discard piles are empty"]
    assert ref.state.final_turn and ref.state.phase == "play"
    out = ref.feed(parse_short("9C hand_black -> discard_pile_black"))
    assert ref.state.phase == "second_discard"
    out = ref.feed(parse_short("end_turn"))
    assert out[-1].kind == "RESULT" and out[-1].text.endswith("black 8, red 11: red wins")
    assert ref.state.scores == {"black": 8, "red": 11}
    outcome = game.outcome(ref.state)
    assert outcome is not None and outcome.winner == "red" and outcome.by_rules


def test_castle_points_to_taker_moves_the_castle_point() -> None:
    ref, _ = play(Case("taker", CASTLE_GAME[:-1], variants={"castle_points_to": "taker"}))
    assert ref.state.scores == {"black": 6, "red": 16}


def test_an_ambiguous_table_is_asked_about() -> None:
    """9C 10C JC QC beside 9H 9D 9S in one cluster splits three ways: the referee asks."""
    ref, _ = play(
        Case(
            "ambiguous",
            setup("9S,2C", "8D,KH")
            + [
                *draw("black"),
                *meld("black", "meld_1", "9C", "10C", "JC"),
                "QS draw_pile_black -> discard_pile_black",
                *draw("red"),
                *meld("red", "meld_2", "9H", "9D"),
                "9S dukes_black -> meld_2",
                "2H hand_red -> discard_pile_red",
                *draw("black"),
            ],
        )
    )
    out = ref.feed(parse_short("table melds=9C+10C+JC+QC+9H+9D+9S"))
    assert out[0].kind == "ASK" and len(out[0].data["choices"]) == 3
    wanted = "9C+9D+9H+9S/10C+JC+QC"
    assert wanted in out[0].data["choices"]
    rejected = ref.feed(parse_short("4C hand_black -> discard_pile_black"))
    assert rejected[0].kind == "REJECT" and rejected[0].text.startswith("Answer first")
    ref.feed(parse_short(f"answer {wanted}"))
    assert sorted(show(v) for v in ref.state.melds.values()) == ["10C JC QC", "9C 9D 9H 9S"]


def test_fill_rule_and_exhaustion_variants() -> None:
    fill = Case(
        "fill",
        setup("8S,5S", "8D,KH")
        + [
            *draw("black", 1),
            Reject("9C hand_black -> discard_pile_black", "Draw 1 more first"),
            *draw("black", 1),
            "9C hand_black -> discard_pile_black",
        ],
        variants={"draw_rule": "fill_up_to_two"},
    )
    play(fill)


def test_no_switch_on_the_first_turn_and_draw_from_discard() -> None:
    play(
        Case(
            "extra rules",
            setup("8S,5S", "8D,KH")
            + [
                *draw("black"),
                Reject("8S dukes_black -> hand_black", "No duke switch on the first player's first turn"),
                "QS draw_pile_black -> discard_pile_black",
                "end_turn",
                *draw("red"),
                "QD draw_pile_red -> discard_pile_red",
                "KD draw_pile_red -> discard_pile_red",
                Reject(
                    "9C discard_pile_black -> hand_black",
                    "Only the top card of your discard pile may be drawn (top: QS)",
                ),
                "QS discard_pile_black -> hand_black",
                "8S dukes_black -> hand_black",
                "QS hand_black -> dukes_black",
                {"dukes_black": "5S QS", "hand_black": 4, "discard_black": []},
            ],
            variants={"no_switch_first_turn": "true", "draw_from_discard": "true"},
        )
    )


def test_draw_from_discard_takes_the_top_and_draw_pile_discards_go_under() -> None:
    ref, _ = play(
        Case(
            "discard draws",
            setup("8S,5S", "8D,KH")
            + [
                *draw("black"),
                "9C hand_black -> discard_pile_black",
                "QS draw_pile_black -> discard_pile_black",
                {"discard_black": ["QS", "9C"]},
                *draw("red"),
                "QD draw_pile_red -> discard_pile_red",
                "end_turn",
                "9C discard_pile_black -> hand_black",
                {"discard_black": ["QS"], "hand_black": 3},
                "9C hand_black -> discard_pile_black",
                "end_turn",
            ],
            variants={"draw_from_discard": "true"},
        )
    )
    assert ref.state.active == "red"


def test_own_castle_last_stand_must_return() -> None:
    game = load_game("dukes_up", {"own_castle_last_stand": "true"})
    ref = Referee(game)
    s = ref.state
    s.phase, s.active, s.turn, s.allowance = "draw", "black", 30, 1
    s.melds = {"meld_1": [card("8C"), card("9C"), card("10C")]}
    black = s.sides["black"]
    black.castle_up, black.draw, black.hand, black.discard = card("JC"), 1, 0, []
    black.hidden = {card("2S")}
    steps = [
        "BACK draw_pile_black -> hand_black",
        "JC castle_black -> meld_1",
        Reject("2S hand_black -> discard_pile_black", "Return your castle JC to castle_black face-up"),
        "JC meld_1 -> castle_black",
        "2S hand_black -> discard_pile_black",
    ]
    ref, said = play(Case("last stand", steps, variants={"own_castle_last_stand": "true"}), ref, check=False)
    assert ref.state.phase == "over" and ref.state.sides["black"].castle_up == card("JC")
    without = Referee(load_game("dukes_up"))
    without.state = s
    without.feed(parse_short("BACK draw_pile_black -> hand_black"))
    out = without.feed(parse_short("JC castle_black -> meld_1"))
    assert out[0].kind == "REJECT" and "Your own castle cannot go into a meld" in out[0].text


def test_legal_moves_all_apply_and_include_the_hidden_hand() -> None:
    ref, _ = play(Case("start", setup("8S,5S", "8D,KH") + draw("black")))
    game = ref.game
    moves = game.legal_moves(ref.state)
    for m in moves:
        game.apply(ref.state, m)
    names = {type(m).__name__ for m in moves}
    assert {"Meld", "Discard", "SwitchOut", "SwitchIn", "TakeDuke"} <= names
    assert "Draw" not in names and "FlipCastle" not in names and "Shift" not in names
    # three hidden hand cards: any of black's 24 unseen cards into the one new meld
    assert sum(1 for m in moves if type(m).__name__ == "Meld") == 24


def pooled_turn() -> Referee:
    """Black to play, melds 4S 5S 6S and 8S 9S 10S on the table, black's draw pile empty."""
    ref = Referee(load_game("dukes_up"))
    s = ref.state
    s.phase, s.active, s.turn, s.first = "play", "black", 9, "black"
    s.melds = {"meld_1": [card(c) for c in ("4S", "5S", "6S")],
               "meld_2": [card(c) for c in ("8S", "9S", "10S")]}
    for p, dukes, discard in (("black", ("KS", "KC"), "3C"), ("red", ("KH", "KD"), "3H")):
        side = s.sides[p]
        side.dukes, side.discard = [card(d) for d in dukes], [card(discard)]
        side.hidden -= {*side.dukes, *side.discard, *s.table_cards()}
        side.castle_down, side.hand, side.draw = True, 3, len(side.hidden) - 4
    s.sides["black"].draw = 0
    s.sides["black"].hand = len(s.sides["black"].hidden) - 1
    return ref


def test_cards_laid_on_the_table_unnamed_are_grouped_when_the_turn_is_validated() -> None:
    """A camera sees cards arrive on ``table``, not which meld: ``7S hand_black -> table`` goes
    into the turn's pool; the discard validates the table and the pool is read with the melds:
    7S extends either run, so the referee asks (and the discard's source is the hand only: the
    draw pile is empty)."""
    ref = pooled_turn()
    assert not [a for a in ref.feed(parse_short("7S hand_black -> table")) if a.kind == "REJECT"]
    assert ref.state.pool == [card("7S")] and ref.game.cards_by_zone(ref.state)["table"][-1] == card("7S")
    out = ref.feed(parse_short("appeared card=2C to=discard_pile_black"))
    assert out[0].kind == "ASK"
    assert sorted(out[0].data["choices"]) == ["from_hand|4S+5S+6S+7S", "from_hand|7S+8S+9S+10S"]
    out = ref.feed(parse_short("answer from_hand|7S+8S+9S+10S"))
    assert out[0].text == "Table read: meld_2 7S 8S 9S 10S" and not ref.state.pool
    assert sorted(show(v) for v in ref.state.melds.values()) == ["4S 5S 6S", "7S 8S 9S 10S"]
    # a discard off the table read where it is legal only: 4S leaves 5S 6S 7S with 7S low
    ref = pooled_turn()
    ref.feed(parse_short("7S hand_black -> table"))
    out = ref.feed(parse_short("4S table -> discard_pile_black"))
    assert [a.kind for a in out][:2] == ["STATE", "STATE"] and out[0].text == "Table read: meld_1 4S 5S 6S 7S"
    assert sorted(show(v) for v in ref.state.melds.values()) == ["5S 6S 7S", "8S 9S 10S"]
    # no grouping: refused, nothing changes
    ref = pooled_turn()
    ref.feed(parse_short("2C hand_black -> table"))
    out = ref.feed(parse_short("appeared card=7S to=discard_pile_black"))
    assert out[0].kind == "REJECT" and out[0].text == "The table cannot be grouped into valid melds (new: 2C)"
    assert ref.state.pool == [card("2C")]


def test_cards_by_zone_holds_the_52_cards_with_the_seen_ones_where_they_lie() -> None:
    """What the camera compares with the table: at every step each of the 52 cards lies in
    exactly one zone; the melds and the pool on ``table``; discard piles, dukes and a face-up
    castle as the referee has them; every card out of sight in its owner's draw pile."""
    game = load_game("dukes_up")
    deck = deck_of_54()
    del deck[card("JK")]
    for ref in steps(game, (1, 2)):
        s, zones = ref.state, game.cards_by_zone(ref.state)
        assert set(zones) == set(game.zones)
        assert Counter(c for cs in zones.values() for c in cs) == deck
        assert set(zones["table"]) == s.table_cards() and not s.pool
        for p, side in s.sides.items():
            assert zones[f"discard_pile_{p}"] == side.discard and zones[f"dukes_{p}"] == side.dukes
            assert set(zones[f"draw_pile_{p}"]) == side.hidden
            assert zones[f"castle_{p}"] == ([side.castle_up] if side.castle_up else [])
