"""RoyalCrush: the game (`game.py`), its state, moves, rules, what the camera sees and simulator."""

from referee.games.royal_crush.game import GAME, SIMULATOR, RoyalCrush

__all__ = ["GAME", "SIMULATOR", "RoyalCrush"]
