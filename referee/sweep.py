"""Variant sweeps: the random playouts of every combination of rule variants, on local
processes or a Dask cluster (:mod:`referee.executors`), summed up per combination: the
balance table a game designer asks for (who wins how often, with a 95 % interval).

Every combination plays the same seeds, so two variants are compared on the same deals as far
as their rules let the games run alike. A task is a run of consecutive seeds of one
combination; it loads the game itself, so only names and numbers travel to the workers.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import Counter
from dataclasses import dataclass, field

from referee.config import parse_set_options
from referee.errors import ConfigError
from referee.executors import Workers, completed, executor
from referee.games import load_game
from referee.simulate import playout

Z95 = 1.959964  # the normal quantile of a two-sided 95 % interval


def parse_sweeps(items: list[str]) -> dict[str, list[str]]:
    """``["castle_model=damage_20,hit_points_10"]`` to ``{"castle_model": [...]}``."""
    out: dict[str, list[str]] = {}
    for item in items:
        key, _, values = item.partition("=")
        choices = [v.strip() for v in values.split(",") if v.strip()]
        if not key.strip() or not choices:
            raise ConfigError(f"--sweep {item!r}: expected KEY=VALUE,VALUE,...")
        if key.strip() in out:
            raise ConfigError(f"--sweep {key.strip()}: given twice (list every value in one --sweep)")
        out[key.strip()] = choices
    return out


def combinations(sweeps: dict[str, list[str]]) -> list[dict[str, str]]:
    """Every combination of the swept values, the first key varying slowest."""
    return [dict(zip(sweeps, values, strict=True)) for values in itertools.product(*sweeps.values())]


def label(combo: dict[str, str]) -> str:
    return " ".join(f"{k}={v}" for k, v in combo.items()) or "(defaults)"


@dataclass
class Tally:
    """The playouts of one combination so far."""

    games: int = 0
    observations: int = 0
    winners: Counter = field(default_factory=Counter)
    rejects: list[str] = field(default_factory=list)
    invariant_failures: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.observations += other.observations
        self.winners.update(other.winners)
        self.rejects += other.rejects
        self.invariant_failures += other.invariant_failures


def play_seeds(game: str, overrides: dict[str, str], first: int, count: int) -> Tally:
    """Playouts of seeds ``first .. first+count-1`` of one combination (a task on a worker)."""
    rules = load_game(game, overrides)
    tally = Tally()
    for seed in range(first, first + count):
        p = playout(rules, seed)
        tally.games += 1
        tally.observations += len(p.observations)
        tally.winners[p.winner if p.winner is not None else "draw"] += 1
        tally.rejects += p.rejects
        tally.invariant_failures += p.invariant_failures
    return tally


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``k / n``: right near 0 and 1 and for small n,
    where the plain normal interval goes past the ends."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class SweepResult:
    game: str
    seeds: tuple[int, int]  # first and last
    workers: str
    seconds: float
    rows: list[tuple[dict[str, str], Tally]]

    def sides(self) -> list[str]:
        """Every winner named in any combination (a side, a seat, a team or ``draw``)."""
        named = {w for _, t in self.rows for w in t.winners}
        return sorted(named - {"draw"}) + (["draw"] if "draw" in named else [])

    def as_dicts(self) -> list[dict]:
        out = []
        for combo, t in self.rows:
            wins = {}
            for side in self.sides():
                lo, hi = wilson(t.winners[side], t.games)
                wins[side] = {"games": t.winners[side], "share": round(t.winners[side] / t.games, 4),
                              "ci95": [round(lo, 4), round(hi, 4)]}
            out.append({
                "variants": combo, "games": t.games,
                "mean_observations": round(t.observations / t.games, 2),
                "wins": wins, "rejects": len(t.rejects), "invariant_failures": len(t.invariant_failures),
            })
        return out

    def table(self) -> str:
        """One line per combination: games, mean length, each side's wins with its interval."""
        sides = self.sides()
        head = ["variants", "games", "mean obs",
                *(f"{s} wins % (95 % CI)" if s != "draw" else "draws % (95 % CI)" for s in sides),
                "rejects", "invariants broken"]
        lines = []
        for d in self.as_dicts():
            cells = [label(d["variants"]), str(d["games"]), f"{d['mean_observations']:.1f}"]
            for s in sides:
                w = d["wins"][s]
                cells.append(f"{100 * w['share']:.1f} ({100 * w['ci95'][0]:.1f}-{100 * w['ci95'][1]:.1f})")
            cells += [str(d["rejects"]), str(d["invariant_failures"])]
            lines.append(cells)
        widths = [max(len(r[i]) for r in [head, *lines]) for i in range(len(head))]

        def fmt(row: list[str]) -> str:  # the variants left-aligned, the figures right
            cells = zip(row, widths, strict=True)
            return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(cells))

        return "\n".join([fmt(head), *map(fmt, lines)])


def chunk_size(games: int, combos: int, workers: Workers) -> int:
    """About four tasks a process over the whole sweep, at most 200 playouts each."""
    share = 8 if workers.cluster else workers.processes
    return max(1, min(200, math.ceil(games * combos / (4 * share))))


def sweep(game: str, base: list[str] | None, sweeps: dict[str, list[str]], games: int, seed: int,
          workers: Workers) -> SweepResult:
    """Play ``games`` seeded playouts of every combination of ``sweeps`` (over ``--set`` items
    ``base``) on ``workers``."""
    fixed = parse_set_options(base)
    both = sorted(set(fixed) & set(sweeps))
    if both:
        raise ConfigError(f"--set {both[0]} and --sweep {both[0]}: choose one")
    combos = [{**fixed, **c} for c in combinations(sweeps)]
    for combo in combos:
        load_game(game, combo)  # a wrong key or value is one line here, before any work is sent
    size = chunk_size(games, len(combos), workers)
    tallies = [Tally() for _ in combos]
    start = time.perf_counter()
    with executor(workers) as pool:
        tasks = [((i, first), play_seeds, (game, combo, first, min(size, seed + games - first)))
                 for i, combo in enumerate(combos) for first in range(seed, seed + games, size)]
        for (i, _), future in completed(pool, tasks):
            tallies[i].add(future.result())
    for t in tallies:  # the order the tasks finished in is not the seeds' order
        t.rejects.sort()
        t.invariant_failures.sort()
    shown = [{k: v for k, v in c.items() if k in sweeps} for c in combos]
    return SweepResult(game, (seed, seed + games - 1), workers.describe(), time.perf_counter() - start,
                       list(zip(shown, tallies, strict=True)))
