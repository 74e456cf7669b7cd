"""Seeded random Royal Crush games: the referee never rejects a legal table, cards are never
lost or doubled, every game ends, and a refused observation leaves the referee unchanged.
Random walks through ``legal_moves`` alone: tests/referee/test_every_game.py."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from playthrough import deck_of_54, steps

from referee.cards import CLASSES, Card
from referee.core import Referee
from referee.errors import ObservationError
from referee.games import load_game, simulator
from referee.games.royal_crush.state import SIDES
from referee.observations import Observation
from referee.simulate import playout

# Every variant path, each with its own share of the playouts.
VARIANTS: list[dict[str, str]] = [
    {"players": "3"},
    {"players": "7"},
    {"draw_mode": "only_when_empty"},
    {"draw_mode": "only_when_empty", "empty_hand_refill": "hand_size"},
    {"dice": "1d6"},
    {"alliance": "invite_only"},
    {"ally_may_play_joker": "true"},
    {"ally_may_play_joker": "true", "two_kings_suppress": "true"},
    {"ace_resume": "original_order"},
    {"combo_mode": "true"},
    {"combo_mode": "true", "combo_scope": "player"},
    {"no_draw": "true"},
    {"no_draw": "true", "players": "6"},
    {"no_draw": "true", "players": "3", "no_draw_deal": "even_split"},
    {"no_draw": "true", "no_draw_wipeout": "draw"},
    {"role_reversal": "true"},
    {"commit_order": "any"},
]


def _run(game, seeds) -> tuple[list, Counter]:
    results, totals = [], Counter()
    for seed in seeds:
        p = playout(game, seed)
        assert not p.rejects, p.rejects[:3]
        assert not p.invariant_failures, p.invariant_failures[:3]
        assert not p.reason.startswith("stopped"), p.reason  # the game ended
        results.append(p)
        totals.update({k: v for k, v in p.stats.items() if isinstance(v, int)})
    return results, totals


@pytest.mark.slow
def test_thousand_default_playouts_end_by_the_rules():
    game = load_game("royal_crush")
    results, totals = _run(game, range(1, 1001))
    assert all(p.by_rules for p in results)
    # every rule path of the default game happens somewhere in the thousand games
    for counter in ("ace_turns", "all_win", "joker_switches", "king_suppressions", "kings_cancelled",
                    "ties", "rerolls", "returned_cards"):
        assert totals[counter] > 0, counter
    assert any("+" in (p.winner or "") for p in results), "no joint win"


def _variant_id(v: dict[str, str]) -> str:
    return ",".join(f"{k}={x}" for k, x in v.items())


@pytest.mark.parametrize("variants", VARIANTS, ids=[_variant_id(v) for v in VARIANTS])
def test_variant_playouts(variants):
    game = load_game("royal_crush", variants)
    results, totals = _run(game, range(1, 51))
    assert all(p.by_rules for p in results)
    if variants.get("combo_mode") == "true":
        assert totals["combos"] > 0
    if variants.get("no_draw") == "true":
        assert totals["eliminations"] > 0
    if variants.get("role_reversal") == "true":  # every finished conquest was reversed
        assert all(p.stats["reversals"] == p.stats["conquests"] for p in results if p.by_rules)
    if variants.get("ally_may_play_joker") == "true":
        assert totals["joker_switches"] > 0


def _junk(rng: random.Random, game) -> Observation:
    """A well-formed observation drawn at random: mostly illegal at that moment."""
    players = list(game.players)
    zones = sorted(game.zones)
    kind = rng.choice(["move", "move", "move", "dice", "declare", "join", "leave", "invite", "exclude",
                       "lock_sides", "countdown", "end_turn", "reveal", "ladder", "deal", "answer"])
    if kind == "move":
        c = Card.parse(rng.choice(CLASSES))
        return Observation.move(c, rng.choice(zones), rng.choice(zones))
    if kind == "dice":
        data = {"values": [rng.randint(0, 7) for _ in range(rng.randint(1, 3))]}
        if rng.random() < 0.7:
            data["player"] = rng.choice(players)
        return Observation.of("dice", **data)
    if kind == "declare":
        return Observation.of("declare", victim=rng.choice(players))
    if kind == "join":
        return Observation.of("join", player=rng.choice(players), side=rng.choice(SIDES))
    if kind in ("leave", "invite", "exclude"):
        data = {"player": rng.choice(players)}
        if kind != "leave":
            data["by"] = rng.choice(players)
        return Observation.of(kind, **data)
    if kind == "reveal":
        return Observation.of("reveal", **{p: [rng.choice(CLASSES[:53])] for p in rng.sample(players, 2)})
    if kind == "ladder":
        return Observation.of("ladder", player=rng.choice(players), spot=rng.randint(0, 5))
    if kind == "answer":
        return Observation.answer(rng.randint(1, 3))
    return Observation.of(kind)


@pytest.mark.parametrize("variants", [{}, {"players": "5", "alliance": "invite_only"}, {"no_draw": "true"}])
def test_every_reject_leaves_the_referee_unchanged(variants):
    game = load_game("royal_crush", variants)
    rng = random.Random(7)
    kinds: Counter = Counter()
    for seed in range(300, 360):
        sim = simulator(game, seed)
        ref = Referee(game)
        ref.start()
        while not game.is_terminal(ref.state):
            batch = sim.next_observations(ref.state)
            assert batch
            for obs in batch:
                if rng.random() < 0.25:
                    _probe(ref, _junk(rng, game), kinds)
                for a in ref.feed(obs):
                    kinds[a.kind] += 1
                    assert a.kind != "REJECT", f"seed {seed}: {obs.short()}: {a.text}"
        assert game.outcome(ref.state) is not None
    assert kinds["REJECT"] > 500 and kinds["ASK"] > 20 and kinds["RESULT"] == 60


def _probe(ref: Referee, obs: Observation, kinds: Counter) -> None:
    """Feed one random observation; a REJECT (or a malformed-observation error) must leave
    the referee as it was, a legal one is taken back so the game goes on as simulated."""
    before, state, pending, moves = ref.snapshot(), ref.state, ref.pending, len(ref.history)
    try:
        notes = ref.feed(obs)
    except ObservationError:
        assert ref.snapshot() == before
        return
    if any(a.kind == "REJECT" for a in notes):
        kinds["REJECT"] += 1
        assert ref.snapshot() == before, f"REJECT of {obs.short()} changed the referee"
        assert ref.state is state
        return
    ref.state, ref.pending = state, pending
    del ref.history[moves:]


@pytest.mark.parametrize("variants", [{}, {"players": "3"}])
def test_cards_by_zone_holds_the_deck_with_revealed_cards_in_their_slots(variants):
    """What the camera compares with the table: at every step each of the 54 cards lies in
    exactly one zone, every revealed card in its owner's slot, cards sent back to a hand
    in that hand, and the rest (face-down, held, in the pile) in the draw pile."""
    game = load_game("royal_crush", variants)
    revealed = 0
    for ref in steps(game, (1, 2)):
        zones = game.cards_by_zone(ref.state)
        assert set(zones) == set(game.zones)
        assert Counter(c for cs in zones.values() for c in cs) == deck_of_54()
        q = ref.state.conquest
        shown = {p: slot.shown for p, slot in q.slots.items()} if q else {}
        for p in game.players:
            assert zones[f"commit_{p}"] == shown.get(p, [])
            assert zones[f"hand_{p}"] == ref.state.hand_known[p]
        assert not any(zones[z] for z in ("side_attacker", "side_victim", "dice_tray"))
        revealed += sum(map(len, shown.values()))
    assert revealed > 0
