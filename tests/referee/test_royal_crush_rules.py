"""Royal Crush rules in detail: the worked arithmetic, validation of revealed slots, what the
camera's observations mean (and when the referee has to ask), hidden-card bookkeeping."""

from __future__ import annotations

import json

import pytest
from royal_crush_support import commit_and_reveal, feed, play, steps, table

from referee.cards import Card
from referee.core import Referee, state_json
from referee.errors import ObservationError
from referee.games import load_game
from referee.games.royal_crush.resolve import ScoringRules, resolve, validate_slot
from referee.observations import Observation, parse_short


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


def score(attack: dict[str, str], victim: dict[str, str], rules: ScoringRules | None = None):
    """Resolve with players listed clockwise from the attacker (attacker first)."""
    sides = {p: "attacker" for p in attack} | {p: "victim" for p in victim}
    counted = {p: cards(t) for p, t in (attack | victim).items()}
    order = sorted(sides, key=lambda p: int(p[1:]))
    order = order[order.index(next(iter(attack))):] + order[: order.index(next(iter(attack)))]
    return resolve(order, next(iter(victim)), sides, counted, rules or ScoringRules())


def power(res, card: str) -> int:
    return next(v for _p, c, v in res.powers if str(c) == card)


@pytest.mark.parametrize(
    "attack, victim, card, expected",
    [
        # section 6 of the spec, worked arithmetic
        ({"p1": "10C JH"}, {"p2": "2H", "p3": "9S", "p4": "4D"}, "JH", 9),  # Jack, 3 opponents
        ({"p1": "7S JD"}, {"p2": "9H"}, "JD", 3),  # Jack, 1 opponent
        ({"p1": "2C QH", "p3": "9S", "p4": "4D"}, {"p2": "5H"}, "QH", 9),  # Queen copies the best ally
        ({"p1": "4S KC"}, {"p2": "8H QH"}, "QH", 0),  # a King blanks the Queen
        ({"p1": "4S KC"}, {"p2": "8H QH"}, "KC", 5),
        ({"p1": "AS"}, {"p2": "10H JD"}, "AS", 10),  # Ace facing 10H and a Jack worth 3
        ({"p1": "QS"}, {"p2": "3H"}, "QS", 0),  # a Queen without teammates
        ({"p1": "AS"}, {"p2": "AD"}, "AS", 0),  # Aces ignore each other
        ({"p1": "9S AS"}, {"p2": "KH"}, "AS", 0),  # a King blanks the Ace
    ],
)
def test_card_powers(attack, victim, card, expected):
    assert power(score(attack, victim), card) == expected


def test_joker_without_allies_empties_a_side():
    res = score({"p1": "5C JK"}, {"p2": "3D"})
    assert res.all_win and res.switched == ["p1"] and res.sides == {"p1": "victim", "p2": "victim"}


def test_jack_counts_opponents_after_a_joker_switch():
    # p3's Joker moves p3 to the attacker side: p2 alone on the victim side -> Jack 3x1
    rules = ScoringRules(ally_may_play_joker=True)
    res = score({"p1": "JH"}, {"p2": "7D", "p3": "JK"}, rules)
    assert res.sides["p3"] == "attacker" and power(res, "JH") == 3


def test_tie_representatives_when_both_principals_share_a_side():
    # p1's Joker takes p1 (and 5C) to the victim side; p3 stays to defend the attacker side
    res = score({"p1": "5C JK", "p3": "7S"}, {"p2": "2D"})
    assert res.totals == {"attacker": 7, "victim": 7} and res.winner_side is None
    assert res.tie_reps == {"attacker": "p3", "victim": "p1"}


@pytest.mark.parametrize(
    "slot, order_known, principal, joker_ally, counted, returned",
    [
        ("QS", True, False, False, "", "QS"),  # an ally's royal counts for nothing
        ("JK", True, False, False, "", "JK"),
        ("JK", True, False, True, "JK", ""),  # ally_may_play_joker
        ("7S 9S", True, True, False, "7S", "9S"),  # two attack cards: the first placed stays
        ("9S 7S", True, True, False, "9S", "7S"),
        ("9S 7S", False, True, False, "7S", "9S"),  # order unknown: the lower stays
        ("KS QH", False, True, False, "QH", "KS"),
        ("KS AH", False, True, False, "AH", "KS"),  # A=1 is lowest among royals ...
        ("AH JK", False, True, False, "JK", "AH"),  # ... but the joker (0) is lower still
        ("8D QD", True, True, False, "8D QD", ""),
    ],
)
def test_validate_slot(slot, order_known, principal, joker_ally, counted, returned):
    rules = ScoringRules(ally_may_play_joker=joker_ally)
    keep, back = validate_slot(cards(slot), order_known, principal, rules)
    assert (keep, back) == (cards(counted), cards(returned))


# ---- observations -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "obj, field",
    [
        ({"type": "declare"}, "victim"),
        ({"type": "declare", "victim": "p9"}, "victim"),
        ({"type": "dice", "values": ["x"]}, "values"),
        ({"type": "dice", "values": [3], "player": "p0"}, "player"),
        ({"type": "join", "player": "p3", "side": "middle"}, "side"),
        ({"type": "join", "player": "p3", "team": "victim"}, "team"),
        ({"type": "reveal", "p1": ["7X"]}, "p1"),
        ({"type": "reveal", "order": "placed"}, "p1"),
        ({"type": "ladder", "player": "p1", "spot": "top"}, "spot"),
        ({"type": "reveal", "p1": "7S", "order": "sideways"}, "order"),
        ({"card": "7S", "from": "hand_p1", "to": "commit_p6"}, "to"),
        ({"type": "shuffle"}, "type"),
    ],
)
def test_malformed_observations_name_the_field(obj, field):
    game = load_game("royal_crush")
    obs = Observation.from_json(obj, "obs.jsonl:3")
    with pytest.raises(ObservationError, match=rf"obs.jsonl:3: field '{field}'"):
        game.validate(obs, "obs.jsonl:3")


def test_zones_follow_the_player_count():
    four, seven = load_game("royal_crush"), load_game("royal_crush", {"players": "7"})
    assert "commit_p7" in seven.zones and "commit_p7" not in four.zones
    assert {"draw_pile", "side_attacker", "side_victim", "dice_tray", "hand_p4", "commit_p4",
            "ladder_p4"} <= four.zones


def test_dice_without_a_roller_asks_who_rolled():
    ref = Referee(load_game("royal_crush"))
    feed(ref, "deal")
    feed(ref, "dice player=p1 values=2,2")
    asked = feed(ref, "dice values=5,5")
    assert [a.kind for a in asked] == ["ASK"] and asked[0].data["choices"] == ["p2", "p3", "p4"]
    before = ref.snapshot()
    assert feed(ref, "declare victim=p2")[0].text.startswith("Answer first")
    assert ref.snapshot() == before
    assert "p3 rolls 5+5" in feed(ref, "answer p3")[0].text
    # an answer by number, then one by repeating the observation with the roller named
    feed(ref, "dice values=1,2")
    assert "p2 rolls 1+2" in feed(ref, "answer 1")[0].text
    feed(ref, "dice values=6,6")  # only p4 left: no question
    assert ref.state.phase == "declare" and ref.state.conquest.attacker == "p4"


def test_a_vague_join_asks_for_the_side_unless_only_one_is_open():
    ref = table("p1")
    feed(ref, "declare victim=p2")
    ask = feed(ref, "join player=p3")
    assert ask[0].kind == "ASK" and ask[0].data["choices"] == ["attacker", "victim"]
    assert "p3 joins the victim side" in feed(ref, "join player=p3 side=victim")[0].text  # a gesture answers
    feed(ref, "exclude by=p2 player=p4")
    assert "p4 joins the attacker side" in feed(ref, "join player=p4")[0].text


def test_a_card_seen_on_a_mat_is_found_in_its_slot():
    ref = table("p1")
    play(ref, steps("declare victim=p2", "join player=p3 side=attacker", "lock_sides",
                    "BACK hand_p3 -> side_attacker", "BACK hand_p1 -> side_attacker",
                    "BACK hand_p2 -> side_victim"))
    asked = feed(ref, "8S side_attacker -> side_attacker")
    assert asked[0].kind == "ASK" and asked[0].data["choices"] == ["p1", "p3"]
    feed(ref, "answer p3")
    play(ref, steps(("reveal p1=6S p2=2D", "ANNOUNCE: 14 to 2: the attacker side wins"),
                    "8S side_attacker -> draw_pile", "6S side_attacker -> draw_pile",
                    "2D side_victim -> draw_pile"))
    assert ref.state.phase == "draw"


@pytest.mark.parametrize(
    "lines, reason",
    [
        (["7S hand_p1 -> commit_p1"], "Commit cards face-down"),
        (["BACK hand_p1 -> commit_p2"], "p1 places cards only in its own slot"),
        (["BACK hand_p3 -> commit_p3"], "p3 is not in this conquest"),
        (["BACK hand_p1 -> side_victim"], "p1 is on the attacker side"),
        (["BACK hand_p1 -> commit_p1", "reveal p1=7S,8S"], "p1 has 1 face-down card(s), the reveal shows 2"),
        (["BACK hand_p1 -> commit_p1", "reveal p1=7S p2=8S"], "p2 has no face-down card to reveal"),
        (["BACK hand_p1 -> commit_p1", "reveal p1=BACK"], "A revealed card must show its face"),
        (["BACK hand_p1 -> commit_p1", "BACK hand_p2 -> commit_p2", "reveal p1=JK p2=5S",
          "JK commit_p1 -> hand_p1"], "JK counted"),
        (["7S draw_pile -> hand_p1"], "Draw face-down"),
        (["BACK draw_pile -> side_attacker"], "Cards from the draw pile go into a hand"),
        (["ladder player=p1 spot=3"], "p1's token belongs on 0, not 3"),
        (["dice player=p1 values=3,3"], "No dice roll is due now"),
        (["answer 1"], "No question is open"),
        (["end_turn", "BACK hand_p1 -> commit_p1", "countdown", "BACK commit_p1 -> hand_p1"],
         "Cards may be taken back only before the countdown"),
    ],
)
def test_refused_observations(lines, reason):
    ref = table("p1")
    setup = ["declare victim=p2"] if lines[0] == "end_turn" else ["declare victim=p2", "lock_sides"]
    play(ref, steps(*setup))
    for line in lines[:-1]:
        play(ref, steps(line))
    before = ref.snapshot()
    notes = feed(ref, lines[-1])
    assert notes[0].kind == "REJECT" and reason in notes[0].text, notes
    assert ref.snapshot() == before


def test_taking_a_card_back_before_the_countdown():
    ref = table("p1")
    play(ref, steps("declare victim=p2", "lock_sides", "BACK hand_p1 -> commit_p1",
                    ("BACK side_attacker -> hand_p1", "STATE: p1 takes a face-down card back")))
    assert ref.state.hand["p1"] == 7 and "p1" not in ref.state.conquest.slots


def test_cards_flipped_one_by_one_keep_the_lower_of_two_attack_cards():
    ref = table("p1")
    play(ref, steps("declare victim=p2", "lock_sides", "BACK hand_p1 -> commit_p1",
                    "BACK hand_p1 -> commit_p1", "BACK hand_p2 -> commit_p2",
                    ("9S commit_p1 -> commit_p1", "STATE: p1 reveals 9S"),
                    "7S commit_p1 -> commit_p1",
                    ("6H commit_p2 -> commit_p2", "STATE: 9S counts for nothing", "ANNOUNCE: 7 to 6")))


# ---- hidden cards ---------------------------------------------------------------------------


def _first_conquest(ref: Referee) -> None:
    """RC-1: 7S JD against 9H; 7S, JD, 9H go under the draw pile; everyone draws."""
    play(ref, steps("declare victim=p2", "lock_sides")
         + commit_and_reveal({"p1": ["7S", "JD"], "p2": ["9H"]})
         + steps("7S commit_p1 -> draw_pile", "JD commit_p1 -> draw_pile", "9H commit_p2 -> draw_pile")
         + steps(*(f"BACK draw_pile -> hand_{p}" for p in ("p1", "p2", "p3", "p4"))))


def test_a_card_under_the_draw_pile_cannot_be_revealed_from_a_hand():
    ref = table("p1")
    _first_conquest(ref)
    play(ref, steps("declare victim=p3", "lock_sides", "BACK hand_p2 -> commit_p2",
                    ("reveal p2=7S", "REJECT: 7S cannot be p2's card: 7S was put under the draw pile"),
                    ("reveal p2=8S", "ANNOUNCE: 8 to 0")))


def test_swept_cards_become_unseen_again_once_drawn():
    ref = table("p1")
    s = ref.state
    s.hand = {p: n + 6 for p, n in s.hand.items()}
    s.hand["p4"] += 2
    s.draw_top = 0  # every unseen card is in a hand
    play(ref, steps("declare victim=p2", "lock_sides")
         + commit_and_reveal({"p1": ["7S"], "p2": ["9H"]})
         + steps("7S commit_p1 -> draw_pile",
                 ("9H commit_p2 -> draw_pile", "LEGAL: Draw one card each, clockwise from p1: p1, p2"),
                 "BACK draw_pile -> hand_p1", "BACK draw_pile -> hand_p2",
                 ("declare victim=p1", "ANNOUNCE: Conquest 2: p2 attacks p1"), "lock_sides")
         + commit_and_reveal({"p2": ["7S"], "p1": ["9H"]}))
    assert ref.state.phase == "cleanup" and ref.state.draw_count == 0


def test_a_returned_card_is_known_to_be_in_its_owners_hand():
    ref = table("p1")
    play(ref, steps("declare victim=p2", "join player=p4 side=victim", "lock_sides")
         + commit_and_reveal({"p4": ["QS"], "p1": ["5S"], "p2": ["4H"]})
         + steps("QS commit_p4 -> hand_p4", "5S commit_p1 -> draw_pile", "4H commit_p2 -> draw_pile")
         + steps(*(f"BACK draw_pile -> hand_{p}" for p in ("p1", "p2", "p3", "p4"))))
    assert ref.state.hand_known["p4"] == [Card.parse("QS")]
    play(ref, steps("declare victim=p4", "lock_sides", "BACK hand_p2 -> commit_p2",
                    "BACK hand_p4 -> commit_p4",
                    ("reveal p2=QS p4=2C", "REJECT: QS cannot be p2's card: QS is known to be in p4's hand"),
                    ("reveal p2=3C p4=QS", "STATE: Revealed: p2 3C; p4 QS")))
    assert ref.state.hand_known["p4"] == []


def test_a_hand_of_known_cards_must_reveal_one_of_them():
    ref = table("p1", no_draw="true")
    s = ref.state
    s.hand["p2"], s.hand_known["p2"] = 1, [Card.parse("QS")]
    s.draw_top += 12
    play(ref, steps("declare victim=p2", "lock_sides", "BACK hand_p1 -> commit_p1",
                    "BACK hand_p2 -> commit_p2",
                    ("reveal p1=5H p2=4C", "REJECT: 4C cannot be p2's card: p2's hidden cards are QS"),
                    ("reveal p1=5H p2=QS", "ANNOUNCE: 5 to 0")))


def test_three_jokers_cannot_appear():
    ref = table("p1", ally_may_play_joker="true")
    play(ref, steps("declare victim=p2", "join player=p3 side=victim", "lock_sides",
                    "BACK hand_p3 -> commit_p3", "BACK hand_p1 -> commit_p1", "BACK hand_p2 -> commit_p2",
                    ("reveal p1=JK p2=JK p3=JK",
                     "REJECT: JK cannot be p3's card: JK is already on the table")))


def test_draws_stop_when_the_pile_is_empty():
    ref = table("p1")
    s = ref.state
    s.hand = {p: 13 for p in s.players}
    s.draw_top = 2
    play(ref, steps("declare victim=p2", ("countdown", "ANNOUNCE: Tie 0 to 0: roll-off p1 vs p2"),
                    "dice player=p1 values=6,6",
                    ("dice player=p2 values=1,1", "LEGAL: Draw one card each, clockwise from p1: p1, p2"),
                    ("BACK draw_pile -> hand_p3", "REJECT: p3 does not draw now"),
                    "BACK draw_pile -> hand_p2",
                    ("BACK draw_pile -> hand_p1", "ANNOUNCE: Conquest 2: p2 attacks")))
    assert ref.state.draw_count == 0


def test_state_is_plain_json_and_announcements_carry_the_ladders():
    ref = table("p1")
    _first_conquest(ref)
    data = json.loads(state_json(ref.state))
    assert data["ladder"] == {"p1": 1, "p2": 0, "p3": 0, "p4": 0}
    assert data["draw_under"] == [["7S", "9H", "JD"]]
    notes = feed(ref, "declare victim=p4")
    assert notes[0].data["ladders"] == data["ladder"] and notes[0].data["attacker"] == "p2"
    assert parse_short(Observation.of("reveal", p1=["7S", "JD"]).short()).data == {"p1": ["7S", "JD"]}


def test_outcome_and_stats_of_a_finished_game():
    ref = table("p1", ladders={"p1": 4})
    play(ref, steps("declare victim=p2", "lock_sides")
         + commit_and_reveal({"p1": ["2C", "AS"], "p2": ["9C"]}))
    out = ref.game.outcome(ref.state)
    assert out.winner == "p1" and out.by_rules and out.reason == "p1 reached 5"
    stats = ref.game.stats(ref.state)
    assert stats["conquests"] == 1 and stats["top_ladder"] == 5
    assert ref.game.legal_moves(ref.state) == []
