"""Dukes Up! random playouts per second, default rules beside the variants that change the
length of a game. Prints a table and writes JSON (median of several runs per row).

    python bench/dukes_up_playouts.py [--games 200] [--runs 3] [--out bench/dukes_up_playouts.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from referee.games import load_game
from referee.simulate import simulate

ROWS: list[tuple[str, dict[str, str]]] = [
    ("default", {}),
    ("fill_up_to_two", {"draw_rule": "fill_up_to_two"}),
    ("draw_from_discard", {"draw_from_discard": "true"}),
    ("ace_wrap", {"ace_wrap": "true"}),
    ("exhaustion immediately", {"exhaustion_end": "immediately"}),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="bench/dukes_up_playouts.json")
    args = ap.parse_args()
    rows = []
    base = None
    print(f"{'rules':<22} {'playouts/s':>11} {'x default':>10} {'turns':>10} {'by rules':>9}")
    for label, variants in ROWS:
        game = load_game("dukes_up", variants)
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
        row = {
            "rules": label, "variants": variants, "games": args.games, "runs": args.runs,
            "playouts_per_second_median": round(rate, 1), "ratio_to_default": round(rate / base, 2),
            "mean_turns": summary.mean_stats.get("turns"),
            "ended_by_rules": summary.by_rules / args.games,
        }
        rows.append(row)
        print(f"{label:<22} {rate:>11.1f} {rate / base:>10.2f} {row['mean_turns']:>10} "
              f"{row['ended_by_rules']:>9.0%}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(rows, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
