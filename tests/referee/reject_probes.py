"""Seeded playouts with nonsense and near-miss observations fed at random points: the property
every game's referee must keep, shared by the games' playout tests.

A probe referee shares the playing referee's state object, so a feed that mutated it (instead
of building the next state) shows up; a REJECT must be one announcement with a reason and
leave everything as it was. The game itself goes on with the simulator's true observations,
none of which may be rejected.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from referee.core import Referee, state_json
from referee.games import simulator
from referee.observations import Observation


@dataclass
class Probed:
    rejected: int = 0
    accepted: int = 0


def play_with_probes(
    game: Any,
    seeds: range,
    make_observation: Callable[[random.Random, Referee], Observation | None],
    rate: float,
    rng: random.Random,
    when: Callable[[Referee], bool] = lambda ref: True,
    on_accepted: Callable[[Any], None] | None = None,
    stop_on_accepted: bool = False,
    after_each: Callable[[Any], None] | None = None,
) -> Probed:
    """Play ``seeds``; before a step, with probability ``rate`` (and when ``when(ref)``), feed
    ``make_observation``'s observation (None: skip) to a probe. An accepted probe's state goes
    to ``on_accepted``; ``stop_on_accepted`` ends that game there (the hidden truth of the
    simulator no longer holds). ``after_each`` checks the state after every true observation."""
    count = Probed()
    for seed in seeds:
        sim, ref = simulator(game, seed), Referee(game)
        ref.start()
        while not game.is_terminal(ref.state):
            if when(ref) and rng.random() < rate:
                obs = make_observation(rng, ref)
                if obs is not None:
                    probe = probe_feed(game, ref, obs, f"seed {seed}")
                    if probe is None:
                        count.rejected += 1
                    else:
                        count.accepted += 1
                        if on_accepted:
                            on_accepted(probe.state)
                        if stop_on_accepted:
                            break
            for obs in sim.next_observations(ref.state):
                said = ref.feed(obs)
                assert not [a.text for a in said if a.kind == "REJECT"], f"seed {seed}: {obs.short()}"
                if after_each:
                    after_each(ref.state)
    return count


def probe_feed(game: Any, ref: Referee, obs: Observation, where: str) -> Referee | None:
    """Feed ``obs`` to a referee sharing ``ref``'s state: None if rejected, else the probe."""
    before, before_state = ref.snapshot(), state_json(ref.state)
    probe = Referee(game)
    probe.state, probe.pending = ref.state, ref.pending
    out = probe.feed(obs)
    assert state_json(ref.state) == before_state, f"{where}: {obs.short()} mutated the state"
    if not any(a.kind == "REJECT" for a in out):
        return probe
    assert len(out) == 1 and out[0].text, f"{where}: {obs.short()} -> {out}"
    assert probe.snapshot() == before, f"{where}: REJECT of {obs.short()} changed it"
    return None
