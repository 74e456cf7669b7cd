"""``cardref referee GAME --observations FILE.jsonl``: announcements for a logged game."""

from __future__ import annotations

import argparse

from referee.core import Referee
from referee.errors import ObservationError
from referee.observations import read_jsonl
from vision.commands.common import add_game_args, emit, game_from_args, open_referee


def build_parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=__doc__)
    add_game_args(p)
    p.add_argument("--observations", required=True, metavar="FILE.jsonl",
                   help="observations, one JSON object a line (docs/events.md)")
    p.add_argument("--text", action="store_true", help="readable text instead of JSON Lines")
    p.add_argument("--log", metavar="GAME.jsonl",
                   help="append-only game log; if it exists the game resumes from it and the "
                        "observations it already holds are skipped")
    return p


def run(args: argparse.Namespace) -> int:
    game = game_from_args(args)
    # Read and check the whole input first: a malformed line must not leave half a log.
    observations = list(read_jsonl(args.observations))
    checker = Referee(game)
    for n, obs in observations:
        checker.validate(obs, f"{args.observations}:{n}")
    ref, replayed = open_referee(game, args.log)
    if replayed:
        logged = [o.to_json() for o in _logged(args.log)]
        given = [o.to_json() for _, o in observations[:replayed]]
        if logged != given:
            raise ObservationError(
                f"{args.observations}: its first {replayed} observations differ from the log {args.log}"
            )
        if args.text:
            print(f"# resumed from {args.log}: {replayed} observations replayed", flush=True)
    else:
        emit(ref.start(), args.text, 0)
    for n, obs in observations[replayed:]:
        emit(ref.feed(obs, f"{args.observations}:{n}"), args.text, n)
    return 0


def _logged(path: str):
    from referee.gamelog import read_log

    return read_log(path).observations
