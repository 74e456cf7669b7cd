"""Dukes Up!: seeded random playouts (cards conserved, never in two zones, every game ends
by the rules), every variant, illegal observations fed at random points (a REJECT never
changes anything), and the observation checks."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from reject_probes import play_with_probes

from referee.cards import CLASSES
from referee.config import other_variants
from referee.core import Referee
from referee.errors import ObservationError
from referee.games import load_game
from referee.games.dukes_up.state import ZONES
from referee.observations import Observation, parse_short
from referee.simulate import playout

ZONE_LIST = sorted(ZONES) + ["meld_1", "meld_2", "meld_3", "meld_9"]
NON_DEFAULT = other_variants("dukes_up")


@pytest.mark.slow
def test_random_playouts_conserve_cards_and_end_by_the_rules() -> None:
    game = load_game("dukes_up")
    ends: Counter = Counter()
    for seed in range(1, 121):
        p = playout(game, seed)  # checks every invariant after every observation
        assert not p.rejects, p.rejects[:3]
        assert not p.invariant_failures, p.invariant_failures[:3]
        assert p.by_rules, f"seed {seed}: {p.reason}"
        ends["castle" if p.stats["castle_taken"] else "exhaustion"] += 1
        ends[p.winner] += 1
    assert ends["castle"] > 80 and ends["exhaustion"] > 0, ends
    assert ends["black"] > 20 and ends["red"] > 20, ends


@pytest.mark.parametrize("variant", NON_DEFAULT, ids=[f"{k}={v}" for d in NON_DEFAULT for k, v in d.items()])
def test_random_playouts_of_every_variant(variant: dict[str, str]) -> None:
    game = load_game("dukes_up", variant)
    for seed in range(1, 13):
        p = playout(game, seed)
        assert not p.rejects and not p.invariant_failures, (p.rejects + p.invariant_failures)[:3]
        assert p.by_rules, f"seed {seed}: {p.reason}"


def test_the_turn_cap_ends_a_game_not_by_the_rules() -> None:
    p = playout(load_game("dukes_up", {"max_turns": "5"}), 1)
    assert not p.by_rules and p.reason == "stopped after 5 turns (max_turns)" and p.stats["turns"] == 5


def _random_observation(rng: random.Random, ref: Referee) -> Observation:
    """Mostly nonsense, partly near-misses built from the cards the referee has seen."""
    s = ref.state
    roll = rng.random()
    if roll < 0.06:
        return Observation("end_turn")
    if roll < 0.1:
        return Observation.answer(rng.choice([1, 2, 3, "black", "red", "x"]))
    if roll < 0.13:
        return Observation.of("dukes_up", black=["7S", "2S"], red=["8D", "JH"])
    seen = [c for cards in s.melds.values() for c in cards]
    for side in s.sides.values():
        seen += side.dukes + side.discard + side.hand_known + ([side.castle_up] if side.castle_up else [])
    if roll < 0.2 and seen:
        table = rng.sample(seen, min(len(seen), rng.randint(1, 8)))
        return Observation.of("table", melds=["+".join(map(str, table))])
    pick = rng.choice(seen) if seen and roll < 0.6 else rng.choice(CLASSES)
    return Observation.move(str(pick), rng.choice(ZONE_LIST), rng.choice(ZONE_LIST))


def test_every_reject_leaves_the_state_unchanged() -> None:
    game = load_game("dukes_up")
    count = play_with_probes(
        game, range(1, 31), _random_observation, 0.15, random.Random(7),
        when=lambda ref: ref.pending is None, on_accepted=game.check_invariants,
    )
    assert count.rejected > 300 and count.accepted > 0, count


@pytest.mark.parametrize(("line", "error"), [
    ("5S deck -> meld_1", "unknown zone 'deck'"),
    ("5S hand_black -> meld_0", "unknown zone 'meld_0'"),
    ("dukes_up black=7S,2S", "field 'red': missing"),
    ("dukes_up black=7S,2X red=8D,JH", "field 'black': not a card"),
    ("table melds=5S+6S+7S,5S+5H+5D", "5S appears twice"),
    ("table melds=5S+JK+7S", "no jokers"),
    ("shuffle player=black", "unknown observation type 'shuffle'"),
])
def test_malformed_observations_are_errors(line: str, error: str) -> None:
    game = load_game("dukes_up")
    with pytest.raises(ObservationError, match=error):
        game.validate(parse_short(line), "game.jsonl:3")
