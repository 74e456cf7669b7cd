"""The test scenarios RF-1..RF-13 of docs/rules/royal_family.md, one readable case each."""

from rf_helpers import feed, game, referee_on, table, texts

from referee.cards import Card


def test_rf1_opening_order():
    ref = referee_on(game())
    out = feed(ref, "7S draw_pile -> flop_1", "9C draw_pile -> flop_2", "4H draw_pile -> flop_3")
    assert "black 2 red 1 → red first: red, black, red" in texts(out, "ANNOUNCE")
    legal = texts(out, "LEGAL")
    assert legal.startswith("red: draw pile")
    assert "flop_3 4H: Fortify hearts, AttackCastle spades (warning: no damage, red has no resident)" in legal
    assert "flop_1 7S: not takeable" in legal and "flop_2 9C: not takeable" in legal


def test_rf2_joker_in_the_flop():
    ref = referee_on(game())
    out = feed(ref, "5S draw_pile -> flop_1", "8C draw_pile -> flop_2", "JK draw_pile -> flop_3",
               "JK flop_3 -> joker_spot", "3H draw_pile -> flop_3")
    assert ref.state.age == "oppression" and ref.state.zones["joker_spot"] == [Card("JK")]
    assert ref.state.order == ["black", "red", "black"]
    assert "black 2 red 1 → black first" in texts(out)


def test_rf3_joker_drawn_mid_round():
    ref = referee_on(game())
    feed(ref, "7S draw_pile -> flop_1", "9C draw_pile -> flop_2", "4H draw_pile -> flop_3",
         "5H draw_pile -> staging", "5H staging -> fort_hearts")
    out = feed(ref, "JK draw_pile -> staging")
    assert ref.state.age == "oppression" and ref.state.zones["joker_spot"] == [Card("JK")]
    assert "Red (Bludgein) to play (turn 3 of 3" in texts(out)
    assert ref.state.order == ["red", "black", "red"]  # this round's order is unchanged
    out = feed(ref, "JK staging -> joker_spot", "6H draw_pile -> staging", "6H staging -> discard_pile",
               "3H draw_pile -> flop_1", "9D draw_pile -> flop_2", "4S draw_pile -> flop_3")
    assert ref.state.order == ["red", "black", "red"]  # oppression: majority (red) first
    assert "black 1 red 2 → red first" in texts(out)


def test_rf4_second_joker():
    ref = referee_on(game())
    out = feed(ref, "JK draw_pile -> flop_1", "5S draw_pile -> flop_1", "8C draw_pile -> flop_2",
               "JK draw_pile -> flop_3", "3H draw_pile -> flop_3")
    assert ref.state.age == "revolution"
    assert ref.state.zones["discard_pile"].count(Card("JK")) == 2 and not ref.state.zones["joker_spot"]
    assert "black 2 red 1 → red first" in texts(out)
    assert "Second joker" in texts(out)


def test_rf5_fortification_with_persistent_damage():
    g = game()
    st = table(g, "black", castle_spades="AS", castle_hearts="AH", fort_hearts="8H", flop_1="9S")
    ref = referee_on(g, st)
    out = feed(ref, "5S draw_pile -> staging", "5S staging -> fort_hits_hearts")
    assert "3 remaining" in texts(out, "DAMAGE")
    assert g.rules.fort_remaining(ref.state, "hearts") == 3
    feed(ref, "6D draw_pile -> staging", "6D staging -> discard_pile")  # red's turn
    out = feed(ref, "9S flop_1 -> fort_hits_hearts")
    assert "which had 3 left; the other 6 of 9S's 9 are lost" in texts(out, "DAMAGE")
    assert not ref.state.zones["fort_hearts"] and not ref.state.zones["fort_hits_hearts"]
    assert {Card.parse(c) for c in ("8H", "5S", "9S")} <= set(ref.state.zones["discard_pile"])


def test_rf6_destruction_and_win():
    g = game()
    st = table(g, "black", castle_spades="AS", castle_hearts="AH", castle_damage_hearts="9S 6S",
               residents_spades="QS", residents_hearts="JH")
    ref = referee_on(g, st)
    out = feed(ref, "5S draw_pile -> staging", "5S staging -> castle_damage_hearts")
    assert "total 20" in texts(out, "DAMAGE")
    out = feed(ref, "end_turn")  # no bonus
    assert texts(out, "RESULT").startswith("Black (Darklein) wins")
    assert set(ref.state.zones["out_of_game"]) == {Card("A", "H"), Card("J", "H")}
    assert {Card.parse(c) for c in ("9S", "6S", "5S")} <= set(ref.state.zones["discard_pile"])
    assert g.is_terminal(ref.state) and g.outcome(ref.state).winner == "black"


def test_rf7_rescue_without_residents():
    g = game()
    st = table(g, "black", castle_spades="AS", castle_hearts="AH", dungeon_hearts="JS")
    ref = referee_on(g, st)
    out = feed(ref, "7S draw_pile -> staging", "7S staging -> castle_damage_hearts")
    assert "no damage" in texts(out)
    feed(ref, "JS dungeon_hearts -> residents_spades")
    assert ref.state.zones["residents_spades"] == [Card("J", "S")]
    assert Card("7", "S") in ref.state.zones["discard_pile"] and not ref.state.zones["dungeon_hearts"]
    assert ref.state.active == "red"


def test_rf8_hierarchy():
    g = game()
    st = table(g, "black", castle_spades="AS", castle_hearts="AH", residents_spades="JS",
               residents_hearts="QH")
    ref = referee_on(g, st)
    feed(ref, "6S draw_pile -> staging", "6S staging -> castle_damage_hearts")
    before = ref.snapshot()
    out = feed(ref, "QH residents_hearts -> discard_pile")
    assert out == [("REJECT", "A Jack cannot kill a Queen; choose Capture or no bonus")]
    assert ref.snapshot() == before
    feed(ref, "QH residents_hearts -> dungeon_spades")
    assert ref.state.zones["dungeon_spades"] == [Card("Q", "H")]


def test_rf9_assassin_restrictions():
    g = game()
    st = table(g, "black", castle_spades="AS", castle_hearts="AH", flop_2="2D")
    ref = referee_on(g, st)
    before = ref.snapshot()
    out = feed(ref, "2D flop_2 -> discard_pile")
    assert out == [("REJECT", "Opponent has no royal family member; a face-up 2 cannot be taken")]
    assert ref.snapshot() == before
    st = table(g, "black", castle_spades="AS", castle_hearts="AH", flop_2="2D", residents_hearts="KH")
    ref = referee_on(g, st)
    out = feed(ref, "2D flop_2 -> discard_pile")
    assert "assassinates KH" in texts(out)
    assert {Card("2", "D"), Card("K", "H")} <= set(ref.state.zones["discard_pile"])


def test_rf10_surprised():
    g = game()
    st = table(g, "black", castle_spades="AS", castle_hearts="AH")
    ref = referee_on(g, st)
    feed(ref, "2C draw_pile -> staging")
    out = feed(ref, "2C staging -> flop_1")
    assert out == [("REJECT", "A drawn 2 must be resolved and goes face-down")]
    feed(ref, "2C staging -> discard_pile")
    assert ref.state.surprise_damage["spades"] == 1 and g.rules.damage_total(ref.state, "spades") == 1
    assert Card("2", "C") in ref.state.zones["discard_pile"]


def test_rf10_surprised_with_residents_asks_only_when_there_is_a_choice():
    g = game()
    st = table(g, "black", castle_spades="AS", castle_hearts="AH", residents_spades="QS")
    ref = referee_on(g, st)
    out = feed(ref, "2C draw_pile -> staging")
    assert not [t for k, t in out if k == "ASK"], out
    assert "must remove QS, their only resident" in texts(out)
    out = feed(ref, "QS residents_spades -> discard_pile")
    assert "loses QS" in texts(out)
    assert {Card("Q", "S"), Card("2", "C")} <= set(ref.state.zones["discard_pile"])
    st = table(g, "black", castle_spades="AS", castle_hearts="AH", residents_spades="QS JS")
    ref = referee_on(g, st)
    out = feed(ref, "2C draw_pile -> staging")
    asked = [t for k, t in out if k == "ASK"]
    assert len(asked) == 1 and "must remove one resident" in asked[0], out


def test_rf11_alliance_castle():
    g = game()
    st = table(g, "black", castle_spades="AS", castle_hearts="AH", flop_1="AC")
    ref = referee_on(g, st)
    feed(ref, "AC flop_1 -> castle_clubs")
    assert ref.state.castle_status["clubs"] == "held"
    feed(ref, "5H draw_pile -> staging", "5H staging -> discard_pile")  # red
    out = feed(ref, "8C draw_pile -> staging", "8C staging -> fort_clubs")
    assert ("REJECT", "Clubs castle is not active") in out
    feed(ref, "8C staging -> discard_pile")
    feed(ref, "3S draw_pile -> flop_1", "4S draw_pile -> flop_2", "5D draw_pile -> flop_3")  # round 2
    assert ref.state.order[0] == "red"
    feed(ref, "6H draw_pile -> staging", "6H staging -> discard_pile")
    out = feed(ref, "KC draw_pile -> staging", "KC staging -> residents_clubs")
    assert "Clubs castle is now active" in texts(out)
    feed(ref, "7H draw_pile -> staging", "7H staging -> discard_pile")
    out = feed(ref, "9D draw_pile -> staging", "9D staging -> discard_pile",  # round 3, red first
               "3D draw_pile -> flop_1", "4D draw_pile -> flop_2", "6C draw_pile -> flop_3")
    black_turn = ref.state.active == "black"
    if not black_turn:
        feed(ref, "10H draw_pile -> staging", "10H staging -> discard_pile")
    out = feed(ref, "9C draw_pile -> staging", "9C staging -> fort_clubs")
    assert "fortifies clubs with 9C" in texts(out)


def test_rf12_illegal_moves():
    g = game()
    cases = [
        (dict(active="red", flop_1="7S"), "7S flop_1 -> fort_hearts",
         "Troops must match one of your active castles (hearts)"),
        (dict(fort_hearts="4H", flop_1="5S"), "5S flop_1 -> castle_damage_hearts",
         "Attack the fortification first"),
        (dict(dungeon_spades="JH", flop_1="QD"), "QD flop_1 -> dungeon_spades", "Dungeon full"),
        (dict(flop_1="QC"), "QC flop_1 -> castle_spades", "Royals live only in the castle of their suit"),
    ]
    for zones, line, reason in cases:
        st = table(g, castle_spades="AS", castle_hearts="AH", **zones)
        ref = referee_on(g, st)
        before = ref.snapshot()
        assert feed(ref, line) == [("REJECT", reason)], line
        assert ref.snapshot() == before


def test_rf13_hit_points_variant():
    g = game(castle_model="hit_points_10")
    st = table(g, "black", castle_spades="AS", castle_hearts="AH", residents_spades="QS JS")
    ref = referee_on(g, st)
    out = feed(ref, "9S draw_pile -> staging", "9S staging -> castle_damage_hearts")
    assert ref.state.hp["hearts"] == 8
    assert Card("9", "S") in ref.state.zones["discard_pile"]
    assert "loses 2 HP (8 left)" in texts(out, "DAMAGE")
