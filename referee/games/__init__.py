"""The five games. Each module defines ``GAME`` (a Game subclass) and ``SIMULATOR``."""

from __future__ import annotations

import importlib
from typing import Any

from referee.config import load_game_config
from referee.core import Game, Simulator
from referee.errors import ConfigError

GAMES: tuple[str, ...] = ("royal_family", "royal_shuffle", "houska_castle", "dukes_up", "royal_crush")


def _module(name: str):
    if name not in GAMES:
        raise ConfigError(f"unknown game {name!r} (expected one of {', '.join(GAMES)})")
    try:
        return importlib.import_module(f"referee.games.{name}")
    except ModuleNotFoundError as e:
        if e.name == f"referee.games.{name}":
            raise ConfigError(f"game {name!r} is not implemented yet") from None
        raise


def load_game(name: str, overrides: dict[str, Any] | None = None) -> Game:
    """The game ``name`` configured from ``configs/games/<name>.yaml`` plus overrides."""
    module = _module(name)
    return module.GAME(load_game_config(name, overrides))


def simulator(game: Game, seed: int) -> Simulator:
    return _module(game.name).SIMULATOR(game, seed)
