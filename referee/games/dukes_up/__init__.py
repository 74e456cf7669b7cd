"""DukesUp: the game (`game.py`), its state, moves, rules, what the camera sees and simulator."""

from referee.games.dukes_up.game import GAME, SIMULATOR, DukesUp

__all__ = ["GAME", "SIMULATOR", "DukesUp"]
