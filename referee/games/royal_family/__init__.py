"""RoyalFamily: the game (`game.py`), its state, moves, rules, what the camera sees and simulator."""

from referee.games.royal_family.game import GAME, SIMULATOR, RoyalFamily

__all__ = ["GAME", "SIMULATOR", "RoyalFamily"]
