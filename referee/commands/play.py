"""``cardref play GAME``: a terminal referee. Type what happens on the table, e.g.
``7S draw_pile -> staging``, ``answer clubs`` or ``end_turn``; ``help`` lists the rest."""

from __future__ import annotations

import argparse
import sys

from referee.commands.common import add_game_args, emit, game_from_args, open_referee
from referee.errors import ObservationError
from referee.observations import parse_short

HELP = """Type one observation a line:
  CARD FROM -> TO      a card moved, e.g.  7S draw_pile -> staging
  answer CHOICE        answer the referee's question (a word or its number)
  end_turn             the active player is done
  TYPE key=value ...   game-specific observations (see docs/events.md)
Commands: legal (what may be done now), zones, help, quit"""


def build_parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_game_args(p)
    p.add_argument("--log", metavar="GAME.jsonl",
                   help="append-only game log; an existing log is resumed")
    p.add_argument("--json", action="store_true", help="print announcements as JSON Lines")
    return p


def run(args: argparse.Namespace) -> int:
    game = game_from_args(args)
    ref, replayed = open_referee(game, args.log)
    interactive = sys.stdin.isatty()
    text = not args.json
    if replayed:
        print(f"Resumed {args.log}: {replayed} observations replayed.")
    else:
        emit(ref.start(), text)
    if interactive:
        print("Type 'help' for the input format.")
    while True:
        try:
            line = input("> " if interactive else "")
        except EOFError:
            break
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line in ("quit", "exit"):
            break
        if line == "help":
            print(HELP)
            continue
        if line == "zones":
            print(" ".join(sorted(game.zones)))
            continue
        if line == "legal":
            moves = game.legal_moves(ref.state)
            print(f"{len(moves)} legal moves:" if moves else "no legal moves")
            for m in moves[:40]:
                print(f"  {m.describe()}")
            continue
        try:
            obs = parse_short(line)
            emit(ref.feed(obs), text)
        except ObservationError as e:
            print(f"error: {e}", file=sys.stderr if not interactive else sys.stdout)
        if game.is_terminal(ref.state):
            break
    return 0
