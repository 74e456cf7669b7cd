"""Royal Shuffle: seeded random playouts of every variant, with nonsense and near-miss
observations fed at random points: 54 cards conserved and never in two zones, every game
ends by the rules, and every REJECT leaves the referee exactly as it was."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from reject_probes import play_with_probes

from referee.cards import CLASSES, Card
from referee.config import other_variants
from referee.core import Referee
from referee.games import load_game
from referee.games.royal_shuffle.state import PLACES, PLAYERS, ZONES, ShuffleState
from referee.observations import Observation
from referee.simulate import playout

ZONE_LIST = sorted(ZONES)
NON_DEFAULT = other_variants("royal_shuffle")


def census(s: ShuffleState) -> Counter:
    """Cards per identity over every zone, counted here independently of the invariants:
    face-up zones by identity, hidden places (pile, hands) as one count."""
    places = [
        [s.king] if s.king else [], [s.queen] if s.queen else [], s.jacks, s.jokers,
        s.villages[PLAYERS[0]], s.villages[PLAYERS[1]], s.discard,
    ]
    seen = Counter(c for zone in places for c in zone)
    seen["hidden"] = s.draw_pile + sum(s.hand_count.values())
    return seen


def assert_conserved(s: ShuffleState) -> None:
    seen = census(s)
    assert sum(seen.values()) == 54, seen
    doubled = [c for c, n in seen.items() if c != "hidden" and n > (2 if c.is_joker else 1)]
    assert not doubled, f"in two zones: {doubled}"
    assert seen["hidden"] == sum(s.unseen.values())


@pytest.mark.slow
def test_random_playouts_end_by_the_rules() -> None:
    game = load_game("royal_shuffle")
    results: Counter = Counter()
    for seed in range(1, 401):
        p = playout(game, seed)  # checks every invariant after every observation
        assert not p.rejects, p.rejects[:3]
        assert not p.invariant_failures, p.invariant_failures[:3]
        assert p.by_rules, f"seed {seed}: {p.reason}"
        results[p.winner] += 1
    assert results["p1"] > 100 and results["p2"] > 100 and results[None] > 5, results


@pytest.mark.parametrize("variant", NON_DEFAULT, ids=[f"{k}={v}" for d in NON_DEFAULT for k, v in d.items()])
def test_random_playouts_of_every_variant(variant: dict[str, str]) -> None:
    game = load_game("royal_shuffle", variant)
    for seed in range(1, 61):
        p = playout(game, seed)
        assert not p.rejects and not p.invariant_failures, (p.rejects + p.invariant_failures)[:3]
        assert p.by_rules, f"seed {seed}: {p.reason}"


def _random_observation(rng: random.Random, s: ShuffleState) -> Observation:
    """Mostly nonsense, partly near-misses built from the cards on the table."""
    roll = rng.random()
    p = rng.choice(PLAYERS)
    if roll < 0.06:
        return Observation("end_turn")
    if roll < 0.1:
        return Observation.answer(rng.choice([1, 2, "flip_village_p1", "x"]))
    if roll < 0.14:
        return Observation.of("hand_count", player=p, count=rng.randint(0, 5))
    if roll < 0.18:
        return Observation.of("hand", player=p, cards=rng.sample(CLASSES[:53], rng.randint(0, 5)))
    if roll < 0.2:
        return Observation.of(rng.choice(["deal", "first"]), **({"player": p} if roll < 0.19 else {}))
    visible = s.face_up()
    card = rng.choice(visible) if visible and roll < 0.5 else rng.choice(CLASSES)
    if roll > 0.9:
        return Observation("placed", Card.parse(str(card)), None, rng.choice(sorted(PLACES)))
    return Observation.move(str(card), rng.choice(ZONE_LIST), rng.choice(ZONE_LIST))


def test_every_reject_leaves_the_state_unchanged() -> None:
    game = load_game("royal_shuffle")

    def observation(rng: random.Random, ref: Referee) -> Observation | None:
        obs = _random_observation(rng, ref.state)
        try:
            game.validate(obs)
        except Exception:  # malformed: refused before the referee sees it
            return None
        return obs

    def accepted(state: ShuffleState) -> None:  # a legal move by chance: checked, then stop
        game.check_invariants(state)
        assert_conserved(state)

    count = play_with_probes(
        game, range(1, 61), observation, 0.25, random.Random(7), when=lambda ref: ref.pending is None,
        on_accepted=accepted, stop_on_accepted=True, after_each=assert_conserved,
    )
    assert count.rejected > 300, count
