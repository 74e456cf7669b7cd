"""Houska Castle playout speed per variant: median playouts/s over repeats, the share of
games that end by the rules, and the Hero's victory share. Prints a table, writes JSON.

    PYTHONPATH=. python bench/houska_castle_playouts.py --games 300 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from referee.config import load_game_config
from referee.games import load_game
from referee.simulate import playout


def configurations() -> list[dict[str, str]]:
    specs = load_game_config("houska_castle").specs
    return [{}] + [{k: str(c).lower()} for k, s in specs.items() for c in s.choices[1:]]


def measure(variant: dict[str, str], games: int, repeats: int, seed: int) -> dict:
    game = load_game("houska_castle", variant)
    rates, by_rules, wins, observations = [], 0, 0, 0
    for r in range(repeats):
        start = time.perf_counter()
        runs = [playout(game, seed + i) for i in range(games)]
        rates.append(games / (time.perf_counter() - start))
        if r == 0:
            by_rules = sum(p.by_rules for p in runs)
            wins = sum(p.winner == "hero" for p in runs)
            observations = sum(len(p.observations) for p in runs)
    rate = statistics.median(rates)
    return {
        "variant": ",".join(f"{k}={v}" for k, v in variant.items()) or "default",
        "playouts_per_s": round(rate, 1),
        "us_per_observation": round(1e6 / (rate * observations / games), 1),
        "ended_by_rules": by_rules / games,
        "hero_wins": wins / games,
        "ratio_to_default": None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="out/bench_houska_castle_playouts.json")
    args = ap.parse_args()
    rows = [measure(v, args.games, args.repeats, args.seed) for v in configurations()]
    base = rows[0]["playouts_per_s"]
    for row in rows:
        row["ratio_to_default"] = round(row["playouts_per_s"] / base, 2)
    print(f"{'variant':45} {'playouts/s':>10} {'us/obs':>7} {'ratio':>6} {'by rules':>8} {'hero wins':>9}")
    for r in rows:
        print(f"{r['variant']:45} {r['playouts_per_s']:10.1f} {r['us_per_observation']:7.1f} "
              f"{r['ratio_to_default']:6.2f} {r['ended_by_rules']:8.0%} {r['hero_wins']:9.1%}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"games": args.games, "repeats": args.repeats, "rows": rows}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
