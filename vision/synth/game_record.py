"""A seeded random game as the referee sees it: observations, announcements, who acted.

The observations come from the game's own Simulator, fed to a Referee as they are made, so
the log is exactly what ``cardref referee`` accepts; the announcements are recorded in the
JSON Lines form that command prints (``obs``: the observation's line number, 0 before it).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from referee.core import Referee
from referee.errors import CardrefError
from referee.games import load_game, simulator
from referee.observations import Observation
from vision.commands.common import emit

MAX_OBSERVATIONS = 20_000


@dataclass(frozen=True)
class Step:
    """One observation and the player whose hand makes it."""

    line: int  # 1-based line number in observations.jsonl
    obs: Observation
    actor: str


@dataclass
class GameRecord:
    game: str
    seed: int
    players: tuple[str, ...]
    initial: dict[str, list[str]]  # physical zones before the first observation, bottom first
    steps: list[Step] = field(default_factory=list)
    announcement_lines: list[str] = field(default_factory=list)
    outcome: str | None = None

    def observation_lines(self) -> list[str]:
        return [s.obs.to_line() for s in self.steps]


def record_game(game_name: str, seed: int, max_observations: int | None = None) -> GameRecord:
    """Play ``game_name`` with ``seed`` until it ends or ``max_observations`` are made."""
    game = load_game(game_name)
    sim = simulator(game, seed)
    ref = Referee(game)
    out = io.StringIO()
    emit(ref.start(), False, 0, out=out)
    # Where the referee has each card at the start (a game that hides its hands puts every
    # unseen card in one zone); the renderer deals the hidden ones out as they are used.
    initial = {z: [str(c) for c in cards] for z, cards in (game.cards_by_zone(ref.state) or {}).items()}
    deck = getattr(sim, "deck", None)  # the simulator's hidden order of the draw pile, top last
    if deck is not None and "draw_pile" in initial:
        initial["draw_pile"] = [str(c) for c in deck]
    record = GameRecord(game.name, seed, tuple(game.players), initial)
    cap = MAX_OBSERVATIONS if max_observations is None else max_observations
    while not game.is_terminal(ref.state) and len(record.steps) < cap:
        for obs in sim.next_observations(ref.state):
            if len(record.steps) >= cap:
                break
            actor = _actor(ref.state, record.players)
            record.steps.append(Step(len(record.steps) + 1, obs, actor))
            said = ref.feed(obs)
            rejects = [a.text for a in said if a.kind == "REJECT"]
            if rejects:
                raise CardrefError(
                    f"{game.name} seed {seed}: the referee rejected {obs.short()}: {rejects[0]}"
                )
            emit(said, False, len(record.steps), out=out)
    record.announcement_lines = out.getvalue().splitlines()
    result = game.outcome(ref.state)
    record.outcome = None if result is None else f"{result.winner or 'draw'}: {result.reason}"
    return record


def _actor(state, players: tuple[str, ...]) -> str:
    """The player to act now (the first player before any turn order is set)."""
    order = getattr(state, "order", None)
    if order:
        return str(order[getattr(state, "turn_index", 0) % len(order)])
    return players[0]
