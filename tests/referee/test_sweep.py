"""Variant sweeps in one process: the combinations, the Wilson interval, the one-line errors.
(The same sweep on a Dask cluster: tests/vision/test_scale.py.)"""

from __future__ import annotations

import pytest

from referee.errors import ConfigError
from referee.executors import Workers
from referee.sweep import combinations, parse_sweeps, sweep, wilson


def test_wilson_interval_known_values():
    lo, hi = wilson(5, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.2366, 0.7634)
    assert wilson(0, 10)[0] == 0.0 and round(wilson(0, 10)[1], 4) == 0.2775
    assert round(wilson(10, 10)[1], 9) == 1.0 and round(wilson(10, 10)[0], 4) == 0.7225


def test_every_combination_first_key_slowest():
    sweeps = parse_sweeps(["castle_model=damage_20,hit_points_10", "turn_order=flop_color, alternate"])
    assert combinations(sweeps) == [
        {"castle_model": "damage_20", "turn_order": "flop_color"},
        {"castle_model": "damage_20", "turn_order": "alternate"},
        {"castle_model": "hit_points_10", "turn_order": "flop_color"},
        {"castle_model": "hit_points_10", "turn_order": "alternate"},
    ]


@pytest.mark.parametrize(("items", "base", "message"), [
    (["castle_model"], None, "--sweep 'castle_model': expected KEY=VALUE,VALUE,..."),
    (["castle_model=a", "castle_model=b"], None, "--sweep castle_model: given twice"),
    (["castle_model=damage_20,hit_points_10"], ["castle_model=damage_20"],
     "--set castle_model and --sweep castle_model: choose one"),
    (["castle_model=damage_20,hit_points_9"], None,
     "expected one of damage_20, hit_points_10, got 'hit_points_9'"),
])
def test_a_wrong_sweep_is_one_line_before_any_playout(items, base, message):
    with pytest.raises(ConfigError) as e:
        sweep("royal_family", base, parse_sweeps(items), 5, 1, Workers())
    assert message in str(e.value)


def test_a_seat_game_sweep_counts_every_game_once_with_no_rejects():
    result = sweep("royal_crush", None, parse_sweeps(["players=3,5"]), 8, 1, Workers())
    for combo, tally in result.rows:
        assert tally.games == 8 == sum(tally.winners.values()), combo
        assert tally.rejects == [] and tally.invariant_failures == []
    assert "players=5" in result.table() and "rejects" in result.table().splitlines()[0]
