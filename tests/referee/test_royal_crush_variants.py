"""Each Royal Crush variant changes what the referee does, and the defaults are the ones of
docs/rules/README.md."""

from __future__ import annotations

import re

import pytest
import yaml
from royal_crush_support import commit_and_reveal, feed, play, steps, table

from referee.errors import ConfigError
from referee.games import load_game
from referee.paths import project_root


def _readme_defaults() -> dict[str, str]:
    text = (project_root() / "docs" / "rules" / "README.md").read_text(encoding="utf-8")
    block = re.search(r"royal_crush:\s*\{([^}]*)\}", text)
    assert block, "royal_crush defaults not found in docs/rules/README.md"
    return dict(item.split(": ") for item in re.split(r",\s*", block.group(1).strip()))


def test_defaults_match_the_rules_index():
    game = load_game("royal_crush")
    defaults = _readme_defaults()
    assert len(defaults) == 10
    for key, value in defaults.items():
        got = game.config.variants[key]
        assert str(got).lower() == value, f"{key}: {got} != {value}"


def test_every_variant_has_choices_and_a_reason_and_own_decisions_are_documented():
    raw = yaml.safe_load((project_root() / "configs" / "games" / "royal_crush.yaml").read_text())
    docs = (project_root() / "docs" / "rules" / "royal_crush.md").read_text(encoding="utf-8")
    spec_keys = set(_readme_defaults())
    for key, entry in raw["variants"].items():
        assert entry.get("doc"), key
        assert "choices" in entry or {"default", "min"} <= set(entry), key
        if key not in spec_keys:  # a decision of ours: named in the decisions table
            assert f"| `{key}` |" in docs, key
    with pytest.raises(ConfigError, match="players"):
        load_game("royal_crush", {"players": "8"})


@pytest.mark.parametrize(
    "variants, hand, pile",
    [
        ({}, 7, 54 - 28),
        ({"players": "3"}, 7, 54 - 21),
        ({"players": "7"}, 7, 54 - 49),
        ({"no_draw": "true"}, 13, 2),
        ({"no_draw": "true", "players": "3"}, 13, 15),
        ({"no_draw": "true", "players": "3", "no_draw_deal": "even_split"}, 18, 0),
        ({"no_draw": "true", "players": "5"}, 10, 4),
        ({"no_draw": "true", "players": "7"}, 7, 5),
    ],
)
def test_deal_sizes(variants, hand, pile):
    ref = table("p2", **variants)
    assert set(ref.state.hand.values()) == {hand} and ref.state.draw_count == pile


def test_one_die():
    ref = table("p1", dice="1d6")
    play(ref, steps("declare victim=p2", "countdown",
                    ("dice player=p1 values=3,4", "REJECT: A roll is 1 die value 1-6 (dice: 1d6)"),
                    ("dice player=p1 values=7", "REJECT: A roll is 1 die value"),
                    "dice player=p1 values=5",
                    ("dice player=p2 values=2", "ANNOUNCE: p1 wins the roll-off (5)")))


def test_invite_only_alliances():
    ref = table("p1", alliance="invite_only")
    play(ref, steps("declare victim=p2",
                    ("join player=p3 side=attacker", "REJECT: p1 has not invited p3 (alliance: invite_only)"),
                    ("invite by=p1 player=p3", "STATE: p1 invites p3 to the attacker side"),
                    ("invite by=p1 player=p3", "REJECT: p1 has already invited p3"),
                    ("join player=p3 side=attacker", "STATE: p3 joins the attacker side"),
                    ("join player=p4 side=victim", "REJECT: p2 has not invited p4")))


def test_invitations_are_not_binding_by_default():
    ref = table("p1")
    play(ref, steps("declare victim=p2", "invite by=p1 player=p3",
                    ("join player=p3 side=victim", "STATE: p3 joins the victim side"),
                    ("exclude by=p2 player=p3", "STATE: p3 leaves the victim side (excluded)")))
    assert ref.state.conquest.allies == {}


def _ally_joker(**variants):
    ref = table("p1", **variants)
    play(ref, steps("declare victim=p2", "join player=p3 side=attacker", "lock_sides"))
    return ref


def test_an_allys_joker_counts_nothing_by_default():
    ref = _ally_joker()
    play(ref, commit_and_reveal({"p3": ["JK"], "p1": ["6S"], "p2": ["5H"]})[:-1]
         + steps(("reveal p1=6S p2=5H p3=JK",
                  "STATE: JK counts for nothing (an ally commits one attack card)",
                  "ANNOUNCE: 6 to 5: the attacker side wins")))


def test_ally_may_play_joker_switches_the_ally():
    ref = _ally_joker(ally_may_play_joker="true")
    play(ref, commit_and_reveal({"p3": ["JK"], "p1": ["6S"], "p2": ["5H"]})[:-1]
         + steps(("reveal p1=6S p2=5H p3=JK", "STATE: p3's Joker: p3 switches to the victim side",
                  "ANNOUNCE: 6 to 5: the attacker side wins", "DAMAGE: p3 stays on 0", "DAMAGE: p1 up to 1")))


@pytest.mark.parametrize("suppress, switched", [("false", True), ("true", False)])
def test_two_kings_and_an_allys_joker(suppress, switched):
    ref = _ally_joker(ally_may_play_joker="true", two_kings_suppress=suppress)
    notes = play(ref, commit_and_reveal({"p3": ["JK"], "p1": ["KS"], "p2": ["KH"]}))
    assert any("Two Kings cancel" in n for n in notes)
    assert any("p3's Joker" in n for n in notes) == switched


@pytest.mark.parametrize("resume, third", [("from_ace_player", "p3"), ("original_order", "p2")])
def test_ace_resume(resume, third):
    """p2 (victim) wins with an Ace in p1's conquest: p2 attacks next; then p3, or p2 again."""
    ref = table("p1", ace_resume=resume)
    play(ref, steps("declare victim=p2", "lock_sides")
         + commit_and_reveal({"p1": ["9C"], "p2": ["3S", "AD"]})
         + steps("9C commit_p1 -> draw_pile", "3S commit_p2 -> draw_pile", "AD commit_p2 -> draw_pile")
         + steps(*(f"BACK draw_pile -> hand_{p}" for p in ("p1", "p2", "p3", "p4"))))
    assert ref.state.conquest.attacker == "p2" and ref.state.conquest.ace_turn
    play(ref, steps("declare victim=p4", "lock_sides")
         + commit_and_reveal({"p2": ["2S"], "p4": ["10H"]})
         + steps("2S commit_p2 -> draw_pile", "10H commit_p4 -> draw_pile")
         + steps(*(f"BACK draw_pile -> hand_{p}" for p in ("p1", "p2", "p3", "p4"))))
    assert ref.state.conquest.attacker == third


@pytest.mark.parametrize("scope, total", [("side", 11), ("player", 2 * (6 + 3) + 2)])
def test_combo_scope(scope, total):
    ref = table("p1", combo_mode="true", combo_scope=scope)
    play(ref, steps("declare victim=p2", "join player=p3 side=attacker", "lock_sides")
         + commit_and_reveal({"p3": ["2S"], "p1": ["6H", "JH"], "p2": ["4C"]}))
    assert ref.state.conquest.resolution.totals["attacker"] == total


def test_role_reversal_turns_an_all_win_into_all_lose():
    ref = table("p1", ladders={"p1": 2, "p2": 2}, role_reversal="true")
    play(ref, steps("declare victim=p2", "lock_sides")
         + commit_and_reveal({"p1": ["5C", "JK"], "p2": ["3D"]})[:-1]
         + steps(("reveal p1=5C,JK p2=3D", "ANNOUNCE: One side is empty", "DAMAGE: p1 down to 1",
                  "DAMAGE: p2 down to 1")))


def test_commit_order_any_lets_principals_go_first():
    for order, refused in (("allies_first", True), ("any", False)):
        ref = table("p1", commit_order=order)
        play(ref, steps("declare victim=p2", "join player=p3 side=attacker", "lock_sides"))
        notes = feed(ref, "BACK hand_p1 -> commit_p1")
        assert (notes[0].kind == "REJECT") == refused


@pytest.mark.parametrize("rule, says, winner", [
    ("highest_ladder", "RESULT: p1 wins: everyone ran out of cards at once; highest on the ladder (3)", "p1"),
    ("draw", "RESULT: Nobody wins: every remaining player ran out of cards at once", None),
])
def test_no_draw_wipeout(rule, says, winner):
    ref = table("p1", ladders={"p1": 2, "p2": 1}, players="3", no_draw="true", no_draw_wipeout=rule)
    s = ref.state
    s.hand.update({"p1": 1, "p2": 1, "p3": 0})
    s.eliminated.append("p3")
    s.draw_top += 13 + 12 + 12
    play(ref, steps("declare victim=p2", "lock_sides") + commit_and_reveal({"p1": ["6S"], "p2": ["3C"]})
         + steps("6S commit_p1 -> draw_pile", ("3C commit_p2 -> draw_pile", says)))
    out = ref.game.outcome(ref.state)
    assert out.winner == winner and out.by_rules


@pytest.mark.parametrize("refill, drawn", [("one", 1), ("hand_size", 7)])
def test_only_empty_hands_draw(refill, drawn):
    ref = table("p1", draw_mode="only_when_empty", empty_hand_refill=refill)
    s = ref.state
    s.hand["p2"] = 1
    s.draw_top += 6
    play(ref, steps("declare victim=p2", "lock_sides") + commit_and_reveal({"p1": ["6S"], "p2": ["3C"]})
         + steps("6S commit_p1 -> draw_pile", "3C commit_p2 -> draw_pile"))
    assert ref.state.drawers == ["p2"] * drawn
    play(ref, steps(("BACK draw_pile -> hand_p1", "REJECT: p1 does not draw now"))
         + steps(*["BACK draw_pile -> hand_p2"] * drawn))
    assert ref.state.hand["p2"] == drawn and ref.state.conquest.attacker == "p2"


def test_conquest_cap_ends_the_game_not_by_the_rules():
    ref = table("p1", max_conquests="1")
    play(ref, steps("declare victim=p2", "lock_sides") + commit_and_reveal({"p1": ["6S"], "p2": ["3C"]})
         + steps("6S commit_p1 -> draw_pile", "3C commit_p2 -> draw_pile")
         + steps(*(f"BACK draw_pile -> hand_{p}" for p in ("p1", "p2", "p3")))
         + steps(("BACK draw_pile -> hand_p4", "RESULT: p1 wins: cap of 1 conquests reached")))
    out = ref.game.outcome(ref.state)
    assert out.winner == "p1" and not out.by_rules
