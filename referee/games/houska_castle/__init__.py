"""HouskaCastle: the game (`game.py`), its state, moves, rules, what the camera sees and simulator."""

from referee.games.houska_castle.game import GAME, SIMULATOR, HouskaCastle

__all__ = ["GAME", "SIMULATOR", "HouskaCastle"]
