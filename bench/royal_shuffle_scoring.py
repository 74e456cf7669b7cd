"""Royal Shuffle village scoring time: the exact optimiser on random villages of 5 to 40
cards under random courts. Prints a table and writes JSON. Each row scores ``--villages``
different villages: ``cold`` clears every cache first (the first score of a game), ``warm``
keeps the capacity tables but not the per-village cache (a new card in a village).

    python bench/royal_shuffle_scoring.py [--villages 200] [--seed 1] [--out bench/royal_shuffle_scoring.json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from referee.cards import full_deck
from referee.games.royal_shuffle import scoring

SIZES = (5, 10, 15, 20, 30, 40)
LIMIT_MS = 50.0  # the requirement for a village of 20 cards


def _villages(rng: random.Random, size: int, n: int) -> list[tuple[list, scoring.Court]]:
    deck = [c for c in full_deck(0) if scoring.is_village_card(c)]
    out = []
    for _ in range(n):
        suits = "SHDC"
        court = scoring.Court(rng.choice([None, *suits]), rng.choice([None, *suits]),
                              frozenset(rng.sample(suits, rng.randint(0, 4))))
        out.append((rng.sample(deck, size), court))
    return out


def _time(village, court, cold: bool) -> float:
    scoring._best.cache_clear()
    if cold:
        scoring._maximal.cache_clear()
        scoring._fits.cache_clear()
    start = time.perf_counter()
    scoring.best_settlement(village, court)
    return (time.perf_counter() - start) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--villages", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="bench/royal_shuffle_scoring.json")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    rows = []
    heads = ("cold median ms", "cold max ms", "warm median ms", "warm max ms")
    print(f"{'cards':>5} " + " ".join(f"{h:>{len(h) + 1}}" for h in heads))
    for size in SIZES:
        sample = _villages(rng, size, args.villages)
        cold = [_time(v, c, cold=True) for v, c in sample]
        warm = [_time(v, c, cold=False) for v, c in sample]
        row = {
            "cards": size, "villages": args.villages,
            "cold_median_ms": round(statistics.median(cold), 3), "cold_max_ms": round(max(cold), 3),
            "warm_median_ms": round(statistics.median(warm), 3), "warm_max_ms": round(max(warm), 3),
        }
        rows.append(row)
        print(f"{size:>5} {row['cold_median_ms']:>15.2f} {row['cold_max_ms']:>12.2f} "
              f"{row['warm_median_ms']:>15.2f} {row['warm_max_ms']:>12.2f}")
    twenty = next(r for r in rows if r["cards"] == 20)
    verdict = "within" if twenty["cold_median_ms"] < LIMIT_MS else "OVER"
    print(f"20 cards: cold median {twenty['cold_median_ms']} ms, {verdict} the {LIMIT_MS:.0f} ms limit")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"limit_ms_20_cards": LIMIT_MS, "rows": rows}, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
