"""Simulated games played step by step, for tests that check the referee's state at every
step, and the 54 cards a game's table holds."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from referee.cards import CLASSES, Card
from referee.core import Game, Referee
from referee.games import simulator


def deck_of_54() -> Counter[Card]:
    """The 52 cards and two jokers."""
    deck = Counter(Card.parse(n) for n in CLASSES if n != "BACK")
    deck[Card.parse("JK")] = 2
    return deck


def steps(game: Game, seeds: tuple[int, ...]) -> Iterator[Referee]:
    """The referee after each batch of observations of each seed's whole simulated game."""
    for seed in seeds:
        ref = Referee(game)
        sim = simulator(game, seed)
        while not game.is_terminal(ref.state):
            for obs in sim.next_observations(ref.state):
                ref.feed(obs)
            yield ref
