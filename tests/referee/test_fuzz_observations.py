"""Fuzzed observation streams for all five games (issue 24): a simulated game's own observations
with some replaced by mutants of them (another card, zone, type or field value, a value of the
wrong type) or by arbitrary JSON objects. Whatever comes, the referee answers or refuses with
an ObservationError, never another exception; a refusal or a REJECT changes nothing; and the
game log it writes re-reads into the same referee (nothing lost, resume identical)."""

from __future__ import annotations

import functools
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.cards import CLASSES
from referee.core import Referee
from referee.errors import ObservationError
from referee.gamelog import read_log
from referee.games import GAMES, load_game, simulator
from referee.observations import Observation

ODD_VALUES = [None, -1, 0, 10**12, "", "x", "\u00b2", "JK", "BACK", True, 1.5, [], {}, ["AS", "zz"], {"a": 1}]


@functools.cache
def simulated(name: str, seed: int = 1, count: int = 40) -> tuple[Observation, ...]:
    """The first ``count`` observations of a seeded simulated game, all of them accepted."""
    game = load_game(name)
    ref, sim, out = Referee(game), simulator(game, seed), []
    while len(out) < count and not game.is_terminal(ref.state):
        for obs in sim.next_observations(ref.state):
            assert not any(a.kind == "REJECT" for a in ref.feed(obs)), obs
            out.append(obs)
    return tuple(out)


def json_values() -> st.SearchStrategy:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 60), st.floats(allow_nan=False),
                        st.text(max_size=6), st.sampled_from(CLASSES))
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.text(max_size=5), inner, max_size=3), max_leaves=6)


@st.composite
def mutant(draw, name: str) -> dict:
    """A JSON object near a real observation of the game: one field changed or added."""
    game = load_game(name)
    base = draw(st.sampled_from(simulated(name))).to_json()
    fields = sorted({k for o in simulated(name) for k in o.to_json()} | {"type", "card", "from", "to"})
    key = draw(st.sampled_from(fields))
    plausible = st.one_of(  # values the field could hold: they reach the rules
        st.sampled_from(CLASSES), st.sampled_from(sorted(game.zones)),
        st.sampled_from([o.to_json().get(key) for o in simulated(name)]),
    )
    odd = st.one_of(st.sampled_from(ODD_VALUES), json_values(),
                    st.sampled_from([*game.observation_types, "rename", "answer"]))
    value = draw(st.one_of(plausible, plausible, odd))
    if draw(st.booleans()) and key in base and key != "type":
        del base[key]
    else:
        base[key] = value
    return base


def stream(name: str) -> st.SearchStrategy:
    """The simulated game's observations in order, some replaced by mutants or junk objects."""
    true = simulated(name)
    junk = st.dictionaries(st.sampled_from(["type", "card", "from", "to", "choice", "as", "at", "swap"]),
                           json_values())
    out_of_turn = st.sampled_from(true).map(Observation.to_json)
    other = st.one_of(mutant(name), mutant(name), out_of_turn, junk)
    return st.lists(st.tuples(st.integers(0, len(true) - 1), other), max_size=8).map(
        lambda swaps: _spliced(true, dict(swaps)))


def _spliced(true: tuple[Observation, ...], swaps: dict[int, dict]) -> list:
    return [swaps.get(i, obs) for i, obs in enumerate(true)]


class LinesLog:
    """The lines a GameLog would append, kept in memory (a file with one fsync a line made
    this test ten times slower); written out once and read back by ``read_log``."""

    def __init__(self, game) -> None:
        self.lines = [json.dumps({"type": "header", "format": 1, "game": game.name,
                                  "variants": game.config.variants}, sort_keys=True)]

    def append(self, obs: Observation) -> None:
        self.lines.append(obs.to_line())


def feed_all(name: str, items: list) -> Referee:
    game = load_game(name)
    ref = Referee(game, log=LinesLog(game))
    ref.start()
    for item in items:
        before = ref.snapshot()
        try:
            obs = item if isinstance(item, Observation) else Observation.from_json(item)
            said = ref.feed(obs)
        except ObservationError:
            assert ref.snapshot() == before
            continue
        if any(a.kind == "REJECT" for a in said):
            assert ref.snapshot() == before, f"a REJECT of {item} changed the referee"
    return ref


@pytest.mark.parametrize("name", GAMES)
def test_fuzzed_streams_are_answered_or_refused_and_the_log_resumes(name, tmp_path_factory):
    simulated(name)  # outside the timed examples

    @settings(max_examples=20, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(items=stream(name))
    def check(items):
        ref = feed_all(name, items)
        log = tmp_path_factory.mktemp(name) / "game.jsonl"
        log.write_text("".join(line + "\n" for line in ref.log.lines))
        again = Referee(load_game(name))
        for obs in read_log(log).observations:
            again.feed(obs)
        assert again.snapshot() == ref.snapshot()

    check()
