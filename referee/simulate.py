"""Random legal playouts: a Simulator plays, a Referee checks every observation.

The referee must never reject what the simulator does, and the game's invariants must hold
after every step; either failure is reported with the seed and the observation number.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from referee.core import Game, Referee
from referee.errors import InvariantError
from referee.games import simulator
from referee.observations import Observation

DEFAULT_MAX_OBSERVATIONS = 20_000


@dataclass
class Playout:
    seed: int
    observations: list[Observation]
    winner: str | None
    reason: str
    by_rules: bool
    rejects: list[str] = field(default_factory=list)
    invariant_failures: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)


def playout(game: Game, seed: int, max_observations: int = DEFAULT_MAX_OBSERVATIONS,
            check: bool = True) -> Playout:
    """Play one seeded random game to its end; collect rejects and invariant failures."""
    sim = simulator(game, seed)
    ref = Referee(game)
    ref.start()
    seen: list[Observation] = []
    rejects: list[str] = []
    failures: list[str] = []
    while not game.is_terminal(ref.state) and len(seen) < max_observations:
        for obs in sim.next_observations(ref.state):
            seen.append(obs)
            for a in ref.feed(obs):
                if a.kind == "REJECT":
                    rejects.append(f"seed {seed} observation {len(seen)} ({obs.short()}): {a.text}")
            if check:
                try:
                    game.check_invariants(ref.state)
                except InvariantError as e:
                    failures.append(f"seed {seed} observation {len(seen)} ({obs.short()}): {e}")
        if rejects or failures:
            break
    out = game.outcome(ref.state)
    if out is None:
        winner, reason, by_rules = None, f"stopped after {len(seen)} observations", False
    else:
        winner, reason, by_rules = out.winner, out.reason, out.by_rules
    return Playout(seed, seen, winner, reason, by_rules, rejects, failures, game.stats(ref.state))


@dataclass
class Summary:
    game: str
    games: int
    seconds: float
    winners: Counter
    by_rules: int
    rejects: list[str]
    invariant_failures: list[str]
    mean_stats: dict[str, float]

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "games": self.games,
            "seconds": round(self.seconds, 3),
            "playouts_per_second": round(self.games / self.seconds, 1) if self.seconds else None,
            "winners": {str(k): v for k, v in sorted(self.winners.items(), key=lambda kv: str(kv[0]))},
            "ended_by_rules": self.by_rules,
            "ended_by_cap": self.games - self.by_rules,
            "rejects": len(self.rejects),
            "invariant_failures": len(self.invariant_failures),
            "mean": self.mean_stats,
        }


def simulate(game: Game, games: int, seed: int) -> Summary:
    """Run ``games`` playouts with seeds ``seed, seed+1, ...``."""
    start = time.perf_counter()
    winners: Counter = Counter()
    by_rules = 0
    rejects: list[str] = []
    failures: list[str] = []
    totals: Counter = Counter()
    for i in range(games):
        p = playout(game, seed + i)
        winners[p.winner if p.winner is not None else "draw"] += 1
        by_rules += p.by_rules
        rejects += p.rejects
        failures += p.invariant_failures
        for k, v in p.stats.items():
            if isinstance(v, (int, float)):
                totals[k] += v
    mean = {k: round(v / games, 2) for k, v in totals.items()} if games else {}
    return Summary(game.name, games, time.perf_counter() - start, winners, by_rules, rejects, failures, mean)
