"""The game in one shape for the screen and the report (``referee.summary``), on a seeded
game of each of the five games played to its end by the simulator."""

from __future__ import annotations

import pytest

from referee.core import Referee
from referee.games import load_game, simulator
from referee.summary import side_names, summarise

SIDES = {
    "royal_family": ["spades", "clubs", "hearts", "diamonds"],
    "royal_shuffle": ["p1", "p2"],
    "houska_castle": [],
    "dukes_up": ["black", "red"],
    "royal_crush": ["p1", "p2", "p3", "p4"],
}


def played(name: str, seed: int = 3, cap: int = 2000) -> tuple[Referee, list]:
    """A referee fed a whole simulated game, and the summary after each observation."""
    game = load_game(name)
    sim, ref = simulator(game, seed), Referee(game)
    ref.start()
    summaries = [summarise(ref)]
    while not game.is_terminal(ref.state) and len(summaries) < cap:
        for obs in sim.next_observations(ref.state):
            ref.feed(obs)
            summaries.append(summarise(ref))
    return ref, summaries


@pytest.mark.parametrize("name", list(SIDES))
def test_every_game_summarises_to_the_same_shape(name):
    ref, summaries = played(name)
    first, last = summaries[0], summaries[-1]
    assert [s.name for s in last.sides] == SIDES[name]
    assert first.result == "game unfinished" and not first.over
    outcome = ref.game.outcome(ref.state)
    assert last.over and last.result.startswith(f"{outcome.winner} wins" if outcome.winner else "a draw")
    assert last.now == last.result and last.active is None
    # Every card the referee places is in one zone view, a side's or the table's.
    zones = ref.game.cards_by_zone(ref.state)
    views = [z for s in last.sides for z in s.zones] + last.table
    assert sorted(z.zone for z in views) == sorted(zones)
    assert all(z.count == len(zones[z.zone]) and z.cards == [str(c) for c in zones[z.zone]] for z in views)
    # Something worth plotting changes over the game.
    assert len({tuple(sorted(s.tracked().items())) for s in summaries}) > 1
    assert set(last.to_json()) >= {"now", "sides", "table", "numbers", "result", "question", "choices"}


def test_royal_family_sides_carry_their_castle_damage():
    ref, summaries = played("royal_family", seed=5)
    state = ref.state
    for side in summaries[-1].sides:
        cards = sum(c.value for c in state.zones[f"castle_damage_{side.name}"])
        assert side.damage == cards + state.surprise_damage[side.name]
        assert side.numbers["castle_status"] == state.castle_status[side.name]
    assert any(s.tracked() != summaries[0].tracked() for s in summaries)


def test_hidden_zones_are_counted_not_listed():
    ref, _ = played("royal_family", cap=10)
    s = summarise(ref, hidden=frozenset({"draw_pile"}))
    pile = next(z for z in s.table if z.zone == "draw_pile")
    assert pile.cards == [] and pile.count == len(ref.state.zones["draw_pile"]) > 0


def test_sides_need_two_zone_kinds_in_common():
    zones = ["draw_pile", "discard_pile", "hand_p1", "village_p1", "hand_p2", "village_p2"]
    assert side_names(zones) == ["p1", "p2"]  # not "pile": draw and discard are one kind each
    assert side_names(["hero_field", "monster_field", "monster_pile", "combat_pile"]) == []
