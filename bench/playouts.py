"""Random playouts per second of one game: the default rules beside every other value of each
variant in ``configs/games/GAME.yaml``. Median over runs (machines are noisy), the ratio to
the default, the game's own mean statistics, and the share of games that end by the rules.
Prints a table and writes JSON.

    python bench/playouts.py royal_crush [--games 200] [--runs 3] [--out bench/royal_crush_playouts.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from referee.config import other_variants
from referee.games import GAMES, load_game
from referee.simulate import simulate


def configurations(game: str) -> list[tuple[str, dict[str, str]]]:
    """The default, then each variant's other values one at a time."""
    return [("default", {})] + [(" ".join(f"{k}={v}" for k, v in o.items()), o) for o in other_variants(game)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("game", choices=GAMES)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="JSON file (default bench/GAME_playouts.json)")
    args = ap.parse_args()
    out = Path(args.out or f"bench/{args.game}_playouts.json")
    rows, base = [], None
    print(f"{'rules':<40} {'playouts/s':>11} {'x default':>10} {'by rules':>9}  mean statistics")
    for label, variants in configurations(args.game):
        game = load_game(args.game, variants)
        rates, summary = [], None
        for _ in range(args.runs):
            start = time.perf_counter()
            summary = simulate(game, args.games, args.seed)
            rates.append(args.games / (time.perf_counter() - start))
            if summary.rejects or summary.invariant_failures:
                raise SystemExit(f"{label}: {(summary.rejects + summary.invariant_failures)[0]}")
        assert summary is not None
        rate = statistics.median(rates)
        base = base or rate
        row = {"rules": label, "variants": variants, "games": args.games, "runs": args.runs,
               "playouts_per_second_median": round(rate, 1), "ratio_to_default": round(rate / base, 2),
               "ended_by_rules": summary.by_rules / args.games, "mean": summary.mean_stats}
        rows.append(row)
        stats = " ".join(f"{k}={v:.2f}" for k, v in summary.mean_stats.items())
        print(f"{label:<40} {rate:>11.1f} {rate / base:>10.2f} {row['ended_by_rules']:>9.0%}  {stats}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
