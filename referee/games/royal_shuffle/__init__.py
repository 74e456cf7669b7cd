"""RoyalShuffle: the game (`game.py`), its state, moves, rules, what the camera sees and simulator."""

from referee.games.royal_shuffle.game import GAME, SIMULATOR, RoyalShuffle

__all__ = ["GAME", "SIMULATOR", "RoyalShuffle"]
