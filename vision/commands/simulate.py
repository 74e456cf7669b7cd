"""``cardref simulate GAME --games N --seed S``: random legal playouts, checked by the referee.

``--sweep KEY=A,B,...`` (repeatable) plays the same seeds under every combination of the
swept variants, on all cores (``--workers N``) or a Dask cluster (``--cluster ADDRESS``), and
prints per combination the games, their mean length in observations, each side's or seat's
share of wins with a 95 % Wilson interval, and the rejects (which must be 0)."""

from __future__ import annotations

import argparse
import json

from referee.executors import add_worker_args, workers_from_args
from referee.simulate import simulate
from vision.commands.common import add_game_args, game_from_args


def build_parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_game_args(p)
    p.add_argument("--games", type=int, default=100, help="number of playouts (default 100)")
    p.add_argument("--seed", type=int, default=1, help="seed of the first playout (default 1)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--sweep", action="append", metavar="KEY=A,B,...",
                   help="play every combination of these variant values (repeatable; see above)")
    add_worker_args(p, "play a sweep's playouts")
    return p


def run(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise SystemExit("cardref simulate: error: --games must be at least 1")
    if args.sweep:
        return run_sweep(args)
    game = game_from_args(args)
    summary = simulate(game, args.games, args.seed)
    d = summary.as_dict()
    if args.json:
        print(json.dumps(d, indent=2))
    else:
        print(f"game                {d['game']}")
        print(f"games               {d['games']}  (seeds {args.seed}..{args.seed + args.games - 1})")
        print(f"time                {d['seconds']:.1f} s  ({d['playouts_per_second']} playouts/s)")
        for key, value in d["mean"].items():
            print(f"mean {key:<14} {value}")
        wins = ", ".join(f"{k} {v}" for k, v in d["winners"].items())
        print(f"results             {wins}")
        print(f"ended by the rules  {d['ended_by_rules']}   by a cap {d['ended_by_cap']}")
        print(f"rejects             {d['rejects']}")
        print(f"invariant failures  {d['invariant_failures']}")
    for line in (summary.rejects + summary.invariant_failures)[:10]:
        print(f"  ! {line}")
    return 1 if summary.rejects or summary.invariant_failures else 0


def run_sweep(args: argparse.Namespace) -> int:
    from referee.sweep import parse_sweeps, sweep

    result = sweep(args.game, args.overrides, parse_sweeps(args.sweep), args.games, args.seed,
                   workers_from_args(args))
    if args.json:
        print(json.dumps({"game": result.game, "seeds": list(result.seeds), "workers": result.workers,
                          "seconds": round(result.seconds, 2), "combinations": result.as_dicts()}, indent=2))
    else:
        first, last = result.seeds
        print(f"{result.game}: {len(result.rows)} combinations x {args.games} games (seeds {first}..{last}) "
              f"on {result.workers}, {result.seconds:.1f} s")
        print(result.table())
    failures = [line for _, t in result.rows for line in t.rejects + t.invariant_failures]
    for line in failures[:10]:
        print(f"  ! {line}")
    return 1 if failures else 0
