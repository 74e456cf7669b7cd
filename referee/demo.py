"""``python -m referee.demo``: one seeded simulated Royal Family game, refereed, as text.

Each observation the (simulated) camera makes is printed after ``>``, followed by what the
referee announces. ``make demo`` runs this until the camera pipeline replaces it.
"""

from __future__ import annotations

import argparse
import sys

from referee.core import Referee
from referee.games import load_game, simulator


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m referee.demo", description=__doc__)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--game", default="royal_family")
    args = parser.parse_args(argv)
    game = load_game(args.game)
    sim = simulator(game, args.seed)
    ref = Referee(game)
    for a in ref.start():
        print(a.to_text())
    count = 0
    while not game.is_terminal(ref.state) and count < 20_000:
        for obs in sim.next_observations(ref.state):
            count += 1
            print(f"> {obs.short()}")
            for a in ref.feed(obs):
                print(f"  {a.to_text()}")
    outcome = game.outcome(ref.state)
    print(f"\n{count} observations; result: {outcome.reason if outcome else 'unfinished'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
