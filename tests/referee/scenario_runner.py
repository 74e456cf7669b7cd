"""The spec's test scenarios as table-driven cases, played line by line through a referee.

A case is typed observation lines, ``Reject(line, reason)`` for a line the referee must refuse
(with the state unchanged), and dicts of expected state (compared with the game's ``view``);
``says`` lists announcements that must come, in order. Shared by the games' scenario tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from referee.core import Referee
from referee.games import load_game
from referee.observations import parse_short


@dataclass(frozen=True)
class Reject:
    line: str
    reason: str


@dataclass
class Case:
    name: str
    lines: list[Any]
    says: list[tuple[str, str]] = field(default_factory=list)
    variants: dict[str, str] = field(default_factory=dict)


def play_case(
    game_name: str,
    case: Case,
    view: Callable[[Referee], dict[str, Any]],
    ref: Referee | None = None,
    check: bool = True,
    expected: Callable[[dict], dict] = lambda want: want,
) -> tuple[Referee, list[tuple[str, str]]]:
    """Feed the case to ``ref`` (a new referee when None); return it and what it said.
    ``expected`` turns a state dict of the case into the form ``view`` gives."""
    game = load_game(game_name, case.variants)
    said: list[tuple[str, str]] = []
    if ref is None:
        ref = Referee(game)
        said = [(a.kind, a.text) for a in ref.start()]
    for n, item in enumerate(case.lines):
        if isinstance(item, dict):
            got, want = view(ref), expected(item)
            assert {k: got[k] for k in want} == want, f"{case.name}: state after line {n}"
            continue
        line = item.line if isinstance(item, Reject) else item
        before = ref.snapshot()
        out = ref.feed(parse_short(line))
        said += [(a.kind, a.text) for a in out]
        rejects = [a.text for a in out if a.kind == "REJECT"]
        if isinstance(item, Reject):
            assert rejects and item.reason in rejects[0], f"{case.name}: {line!r} gave {rejects}"
            assert ref.snapshot() == before, f"{case.name}: a REJECT changed the state"
        else:
            assert not rejects, f"{case.name}: {line!r} was rejected: {rejects}"
        if check:
            game.check_invariants(ref.state)
    return ref, said


def assert_says(case: Case, said: list[tuple[str, str]]) -> None:
    """Every announcement of ``case.says`` (kind, text fragment) came, in that order."""
    i = 0
    for kind, fragment in case.says:
        while i < len(said) and not (said[i][0] == kind and fragment in said[i][1]):
            i += 1
        assert i < len(said), f"{case.name}: no {kind} '{fragment}' (in order) in {said}"
        i += 1
