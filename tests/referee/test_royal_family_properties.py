"""Seeded random playouts: the referee accepts every legal game, invariants always hold, and
games end (that a rejected observation never changes anything: tests/referee/test_every_game.py)."""

import pytest

from referee.games import load_game
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


@pytest.mark.slow
def test_two_thousand_default_playouts():
    game = load_game("royal_family")
    by_rules = 0
    for seed in range(2000):
        p = playout(game, seed)  # invariants checked after every observation
        assert not p.rejects and not p.invariant_failures, (p.rejects + p.invariant_failures)[:3]
        assert not p.reason.startswith("stopped"), f"seed {seed} did not end: {p.reason}"
        by_rules += p.by_rules
    assert by_rules >= 1900  # the round cap is a safety net, not the usual end


def _name(v: dict) -> str:
    return ",".join(f"{k}={x}" for k, x in v.items()) or "default"


@pytest.mark.slow
@pytest.mark.parametrize("overrides", VARIANTS, ids=_name)
def test_variant_playouts(overrides):
    game = load_game("royal_family", overrides)
    for seed in range(120):
        p = playout(game, 10_000 + seed)
        assert not p.rejects and not p.invariant_failures, (p.rejects + p.invariant_failures)[:3]
        assert not p.reason.startswith("stopped"), f"seed {seed} did not end: {p.reason}"
