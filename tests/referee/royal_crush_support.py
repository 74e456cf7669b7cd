"""Shared helpers of the Royal Crush tests: a table set up by real observations, and a
readable way to feed typed observation lines and check what the referee said."""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.core import Referee
from referee.games import load_game
from referee.observations import parse_short


def table(first: str = "p1", ladders: dict[str, int] | None = None, **variants: str) -> Referee:
    """A referee after the deal and the first-player roll (``first`` rolls highest); the
    ladder tokens then stand on ``ladders`` (a fixture for scenarios that start mid-game)."""
    game = load_game("royal_crush", {k: str(v) for k, v in variants.items()})
    ref = Referee(game)
    ref.start()
    feed(ref, "deal")
    high, low = ("6,6", "1,1") if game.dice_count == 2 else ("6", "1")
    for p in game.players:
        feed(ref, f"dice player={p} values={high if p == first else low}")
    assert ref.state.phase == "declare" and ref.state.conquest.attacker == first
    if ladders:
        ref.state.ladder.update(ladders)
    return ref


def feed(ref: Referee, line: str):
    """Feed one typed observation; returns the announcements."""
    return ref.feed(parse_short(line))


@dataclass
class Step:
    """One typed observation and what the referee must say: ``"KIND: fragment"`` each found
    in an announcement of that kind. A REJECT step must leave the referee unchanged."""

    line: str
    says: list[str] = field(default_factory=list)


def play(ref: Referee, steps: list[Step]) -> list[str]:
    """Feed the steps, checking each one; returns every announcement as ``KIND text``."""
    heard: list[str] = []
    for step in steps:
        before = ref.snapshot()
        notes = feed(ref, step.line)
        texts = [f"{a.kind}: {a.text}" for a in notes]
        heard += texts
        for want in step.says:
            kind, _, fragment = want.partition(": ")
            assert any(a.kind == kind and fragment in a.text for a in notes), (
                f"after {step.line!r} expected {want!r}, heard {texts}"
            )
        rejected = any(a.kind == "REJECT" for a in notes)
        expected = any(w.startswith("REJECT") for w in step.says)
        assert rejected == expected, f"{step.line!r}: rejected={rejected}, heard {texts}"
        if rejected:
            assert ref.snapshot() == before, f"REJECT of {step.line!r} changed the state"
        ref.game.check_invariants(ref.state)
    return heard


def steps(*items) -> list[Step]:
    """``steps("declare victim=p2", ("lock_sides", "ANNOUNCE: Sides locked"), ...)``."""
    out = []
    for item in items:
        if isinstance(item, str):
            out.append(Step(item))
        else:
            line, *says = item
            out.append(Step(line, list(says)))
    return out


def commit_and_reveal(cards: dict[str, list[str]]) -> list[Step]:
    """Face-down placements (allies first, in the given order) and one reveal of them."""
    out = [Step(f"BACK hand_{p} -> commit_{p}") for p, cs in cards.items() for _ in cs]
    shown = " ".join(f"{p}={','.join(cs)}" for p, cs in cards.items() if cs)
    out.append(Step(f"reveal {shown}"))
    return out
