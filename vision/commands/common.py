"""Pieces the referee commands share: game arguments, loading, printing announcements."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path

from referee.announcements import Announcement
from referee.config import parse_set_options
from referee.core import Game, Referee
from referee.errors import CardrefError, ObservationError
from referee.gamelog import GameLog, read_log, version_note
from referee.games import GAMES, load_game


def add_game_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=GAMES, help="which game to referee")
    parser.add_argument(
        "--set", dest="overrides", action="append", metavar="KEY=VALUE",
        help="choose a rule variant (see configs/games/GAME.yaml); repeatable",
    )


def add_quiet_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--quiet-s", type=float, metavar="SECONDS",
        help="stillness before the table is read, seconds (default 0.25, or the game's layout's: "
        "Dukes Up! 0.4; longer for players who pause over the cards)",
    )


def checked_quiet(seconds: float) -> float:
    """``--quiet-s`` as given, or a one-line error outside (0, 5] seconds."""
    if not 0 < seconds <= 5:
        raise CardrefError(f"--quiet-s: expected seconds between 0 and 5, got {seconds}")
    return seconds


def quiet_from_args(args: argparse.Namespace) -> dict:
    """``Settings`` keywords for ``--quiet-s`` (none: the layout's or the camera referee's default)."""
    return {} if args.quiet_s is None else {"quiet_s": checked_quiet(args.quiet_s)}


def game_from_args(args: argparse.Namespace) -> Game:
    return load_game(args.game, parse_set_options(args.overrides))


def open_referee(game: Game, log_path: str | None) -> tuple[Referee, int]:
    """A referee, resumed from ``log_path`` if that log exists; returns it and the number of
    observations replayed from the log. A log written under another version of the game's rules
    is resumed all the same, with a one-line warning on stderr."""
    replayed = 0
    if log_path and Path(log_path).exists() and Path(log_path).stat().st_size > 0:
        contents = read_log(log_path)
        if contents.game != game.name:
            raise ObservationError(f"{log_path}: log is of game {contents.game!r}, not {game.name!r}")
        if contents.variants != game.config.variants:
            ours = game.config.variants
            keys = [*contents.variants, *(k for k in ours if k not in contents.variants)]
            key = next(k for k in keys if contents.variants.get(k) != ours.get(k))
            raise ObservationError(
                f"{log_path}:1: field 'variants.{key}': the log was played with "
                f"{contents.variants.get(key)!r}, this game has {ours.get(key)!r} (use --set {key}=...)"
            )
        note = version_note(log_path, contents, game.rules_version)
        if note:
            print(f"warning: {note}", file=sys.stderr, flush=True)
        ref = Referee(game)
        ref.start()
        for obs in contents.observations:
            ref.feed(obs)
        replayed = len(contents.observations)
    else:
        ref = Referee(game)
    if log_path:
        ref.log = GameLog(log_path, game.name, game.config.variants, game.rules_version)
    return ref, replayed


def emit(announcements: Iterable[Announcement], text: bool, obs_index: int | None = None,
         out=None) -> None:
    out = out or sys.stdout
    for a in announcements:
        if text:
            print(a.to_text(), file=out)
        else:
            record = a.to_json()
            if obs_index is not None:
                record["obs"] = obs_index
            print(json.dumps(record, separators=(",", ":")), file=out)
    out.flush()
