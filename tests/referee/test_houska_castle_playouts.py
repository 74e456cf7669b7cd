"""Houska Castle: thousands of seeded random playouts, illegal observations fed at random
points, every variant, the default configuration of docs/rules/README.md, and the commands."""

from __future__ import annotations

import copy
import json
import random
import re
import subprocess
import sys
from collections import Counter

import pytest
import yaml
from playthrough import deck_of_54, steps
from reject_probes import play_with_probes

from referee.cards import CLASSES, Card
from referee.config import load_game_config, other_variants
from referee.core import Referee
from referee.errors import ObservationError
from referee.games import load_game, simulator
from referee.games.houska_castle.state import ZONES
from referee.observations import Observation, parse_short
from referee.paths import project_root
from referee.simulate import playout

ZONE_LIST = sorted(ZONES)
NON_DEFAULT = other_variants("houska_castle")


@pytest.mark.slow
def test_random_playouts_conserve_cards_and_end_by_the_rules() -> None:
    game = load_game("houska_castle")
    results: Counter = Counter()
    for seed in range(1, 1201):
        p = playout(game, seed)  # checks every invariant after every observation
        assert not p.rejects, p.rejects[:3]
        assert not p.invariant_failures, p.invariant_failures[:3]
        assert p.by_rules, f"seed {seed}: {p.reason}"
        results[p.winner] += 1
    assert results["hero"] > 30 and results["monster"] > 600, results


@pytest.mark.parametrize("variant", NON_DEFAULT, ids=[f"{k}={v}" for d in NON_DEFAULT for k, v in d.items()])
def test_random_playouts_of_every_variant(variant: dict[str, str]) -> None:
    game = load_game("houska_castle", variant)
    for seed in range(1, 121):
        p = playout(game, seed)
        assert not p.rejects and not p.invariant_failures, (p.rejects + p.invariant_failures)[:3]
        assert p.by_rules


def _random_observation(rng: random.Random, ref: Referee) -> Observation:
    """Mostly nonsense, partly near-misses built from the cards on the table."""
    s = ref.state
    roll = rng.random()
    if roll < 0.08:
        return Observation("end_turn")
    if roll < 0.14:
        return Observation.answer(rng.choice([1, 2, 3, "defeat", "hero_point", "9H", "x"]))
    if roll < 0.17:
        return Observation.of("no_marker")
    if roll < 0.19:
        return Observation.of("setup", marker=rng.choice(["5S", "6H"]), monster_pile=25)
    visible = [*s.hand, *s.marker, *s.rewards, *s.artifacts] + [f.card for f in s.table if f.card]
    card = rng.choice(visible) if visible and roll < 0.6 else rng.choice(CLASSES)
    return Observation.move(str(card), rng.choice(ZONE_LIST), rng.choice(ZONE_LIST))


def test_every_reject_leaves_the_state_unchanged() -> None:
    game = load_game("houska_castle")
    count = play_with_probes(game, range(1, 121), _random_observation, 0.1, random.Random(7))
    assert count.rejected > 800 and count.accepted > 0, count


def test_default_variants_match_the_rules_readme() -> None:
    readme = (project_root() / "docs" / "rules" / "README.md").read_text(encoding="utf-8")
    block = re.search(r"^houska_castle:\s*(\{.*?\})", readme, re.S | re.M)
    assert block, "houska_castle defaults not found in docs/rules/README.md"
    listed = yaml.safe_load(block.group(1))
    defaults = load_game_config("houska_castle").variants
    assert listed == {k: defaults[k] for k in listed}
    assert set(defaults) - set(listed) == {"death_hero_point"}  # our one silent-rule variant


def test_setup_observation_is_validated() -> None:
    game = load_game("houska_castle")
    with pytest.raises(ObservationError, match="field 'marker'"):
        game.validate(parse_short("setup marker=5X"), "obs.jsonl:1")
    with pytest.raises(ObservationError, match="field 'monster_pile'"):
        game.validate(Observation.of("setup", marker="5S", monster_pile="many"))
    with pytest.raises(ObservationError, match="unknown zone 'deck'"):
        game.validate(parse_short("5S deck -> max_hp_card"))


def _simulated_lines(seed: int) -> list[str]:
    """A whole random game as the JSON lines a camera would have written."""
    game = load_game("houska_castle")
    sim = simulator(game, seed)
    ref = Referee(game)
    lines: list[str] = []
    while not game.is_terminal(ref.state):
        for obs in sim.next_observations(ref.state):
            ref.feed(obs)
            lines.append(obs.to_line())
    return lines


def test_cardref_referee_and_simulate_commands(tmp_path) -> None:
    obs_file = tmp_path / "game.jsonl"
    obs_file.write_text("\n".join(_simulated_lines(3)) + "\n")
    run = subprocess.run(
        [sys.executable, "-m", "vision.commands.main", "referee", "houska_castle",
         "--observations", str(obs_file)],
        capture_output=True, text=True, cwd=project_root(), timeout=120,
    )
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in run.stdout.splitlines()]
    assert not [r for r in records if r["kind"] == "REJECT"]
    assert records[-1]["kind"] == "RESULT"
    sim = subprocess.run(
        [sys.executable, "-m", "vision.commands.main", "simulate", "houska_castle", "--games", "30",
         "--seed", "1", "--json"],
        capture_output=True, text=True, cwd=project_root(), timeout=120,
    )
    assert sim.returncode == 0, sim.stderr
    summary = json.loads(sim.stdout)
    assert summary["rejects"] == 0 and summary["invariant_failures"] == 0
    assert summary["ended_by_rules"] == 30


def test_cardref_play_plays_a_whole_game_from_typed_observations() -> None:
    typed = """setup marker=5S monster_pile=1
2H combat_pile -> hand
2S combat_pile -> hand
4D combat_pile -> hand
6C combat_pile -> hand
9H combat_pile -> hand
5C monster_pile -> monster_slot
BACK combat_pile -> monster_field
BACK combat_pile -> monster_field
3C monster_field -> monster_field
9H hand -> hero_field
9H hand -> hero_field
end_turn
6D monster_field -> monster_field
5C monster_slot -> combat_pile
9H hero_field -> combat_pile
3C monster_field -> combat_pile
6D monster_field -> combat_pile
7S combat_pile -> hand
end_turn
"""
    run = subprocess.run(
        [sys.executable, "-m", "vision.commands.main", "play", "houska_castle"],
        input=typed, capture_output=True, text=True, cwd=project_root(), timeout=120,
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout.splitlines()
    assert "[REJECT] 9H is not in your hand (it is on hero_field)" in out
    assert "[ANNOUNCE] Hero 11 vs Monster 9: the Hero defeats 5C (exchange 1)" in out
    assert out[-1] == "[RESULT] Victory! monster_pile is empty: 1 monster defeated, 2 Hero Points left"


def test_cards_by_zone_holds_the_deck_with_face_up_cards_where_they_lie() -> None:
    """What the camera compares with the table: at every step each of the 54 cards lies in
    exactly one zone, the face-up field cards on their field, and every card out of sight
    (both piles, the hidden observation card, nullified cards) in combat_pile."""
    game = load_game("houska_castle")
    nullified = 0
    for ref in steps(game, (1, 2)):
        s = ref.state
        zones = game.cards_by_zone(s)
        assert set(zones) == set(game.zones)
        assert Counter(c for cs in zones.values() for c in cs) == deck_of_54()
        for f in s.table:
            if f.card is not None:
                assert f.card in zones[f.zone if f.face_up else "combat_pile"]
        assert zones["hand"] == s.hand and zones["max_hp_card"] == s.marker
        assert not zones["monster_pile"]
        nullified += sum(f.nullified for f in s.table)
    assert nullified > 0


def test_a_card_appeared_on_a_field_is_drawn_or_turned_up_and_asked_when_both_are_legal() -> None:
    """The camera's ``appeared``: with one observation card face down, a card come up on
    monster_field may be that card turned up or the second one drawn face up: the referee
    asks; with none face down it is a draw."""
    game = load_game("houska_castle")
    with pytest.raises(ObservationError, match="an appeared observation needs card and to"):
        game.validate(parse_short("appeared card=5D to=hand"))
    ref = Referee(game)
    for line in ["setup marker=5S monster_pile=25", "2H combat_pile -> hand", "2S combat_pile -> hand",
                 "4D combat_pile -> hand", "6C combat_pile -> hand", "9H combat_pile -> hand",
                 "5C monster_pile -> monster_slot"]:
        assert not [a for a in ref.feed(parse_short(line)) if a.kind == "REJECT"]
    drawn = copy.deepcopy(ref)
    assert not [a for a in drawn.feed(parse_short("appeared card=3C to=monster_field")) if a.kind == "REJECT"]
    assert drawn.pending is None and type(drawn.history[-1]).__name__ == "FieldDraw"
    ref.feed(parse_short("BACK combat_pile -> monster_field"))
    notes = ref.feed(parse_short("appeared card=3C to=monster_field"))
    assert [a.kind for a in notes] == ["ASK"] and ref.pending.labels == ["turned_up", "drawn"]
    ref.feed(Observation.answer("turned_up"))
    assert ref.state.hidden_count() == 0 and ref.state.find(Card.parse("3C")).face_up
