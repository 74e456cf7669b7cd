"""Seeded random playouts: the referee accepts every legal game, invariants always hold,
games end, and a rejected observation never changes anything."""

import random

import pytest

from referee.core import Referee
from referee.games import load_game, simulator
from referee.observations import Observation
from referee.simulate import playout

VARIANTS = [
    {},
    {"castle_model": "hit_points_10"},
    {"troop_range": "3_9"},
    {"turn_order": "alternate"},
    {"fort_damage": "discard_and_track"},
    {"attack_bonus": "any"},
    {"dungeon_capacity": "per_player"},
    {"kidnap_from_draw": "true"},
    {"flop_take_requires_use": "false"},
    {"claim_ace_from": "flop_only"},
    {"damage_enabler": "any_own_castle"},
    {"residentless_attack": "forbidden"},
    {"exhaustion": "draw_game"},
]


def test_two_thousand_default_playouts():
    game = load_game("royal_family")
    by_rules = 0
    for seed in range(2000):
        p = playout(game, seed)  # invariants checked after every observation
        assert not p.rejects and not p.invariant_failures, (p.rejects + p.invariant_failures)[:3]
        assert p.reason, f"seed {seed} did not end"
        by_rules += p.by_rules
    assert by_rules >= 1900  # the round cap is a safety net, not the usual end


def _name(v: dict) -> str:
    return ",".join(f"{k}={x}" for k, x in v.items()) or "default"


@pytest.mark.parametrize("overrides", VARIANTS, ids=_name)
def test_variant_playouts(overrides):
    game = load_game("royal_family", overrides)
    for seed in range(120):
        p = playout(game, 10_000 + seed)
        assert not p.rejects and not p.invariant_failures, (p.rejects + p.invariant_failures)[:3]
        assert game.outcome is not None and p.reason


def _illegal_observations(rng: random.Random, state) -> list[Observation]:
    """Observations that are wrong at this point of the game, of several kinds."""
    zones = sorted(state.zones)
    cards = ["7S", "QH", "2D", "AC", "JK", "10H", "KD", "3C", "AS"]
    out = [Observation.move(rng.choice(cards), rng.choice(zones), rng.choice(zones)) for _ in range(3)]
    out.append(Observation.answer("nonsense"))
    return out


def _play_with_probes(game, seed: int, rng: random.Random) -> int:
    """Play one game, probing with wrong observations; returns the number of rejects seen.
    A probe that happens to be legal changes the game, so that game stops there."""
    sim = simulator(game, seed)
    ref = Referee(game)
    rejects = 0
    for _ in range(3000):
        if game.is_terminal(ref.state):
            break
        for obs in sim.next_observations(ref.state):
            if rng.random() < 0.3:
                for bad in _illegal_observations(rng, ref.state):
                    before = ref.snapshot()
                    out = ref.feed(bad)
                    if not any(a.kind == "REJECT" for a in out):
                        return rejects
                    rejects += 1
                    assert out[0].kind == "REJECT" and len(out) == 1, bad.short()
                    assert ref.snapshot() == before, bad.short()
            ref.feed(obs)
    return rejects


def test_every_reject_leaves_the_state_unchanged():
    game = load_game("royal_family")
    rng = random.Random(5)
    assert sum(_play_with_probes(game, seed, rng) for seed in range(150)) > 1000
