"""A game in progress as one plain shape, the same for every game: whose turn, the round (or
the game's equivalent), each side's zones and numbers, the shared table, the result in words.

Built only from the public referee API (``cards_by_zone``, ``stats``, ``outcome``, the state's
plain fields), so that the game-night screen and the replay report show any game without
knowing its rules. A *side* is found from the zone names: a suffix (``spades``, ``p1``,
``black``) that shares at least two zone kinds with another suffix (``castle_spades`` and
``castle_hearts``, ``fort_spades`` and ``fort_hearts``) names a side.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from referee.cards import Card
from referee.core import Referee, to_jsonable

NOW_FIELDS = ("age", "round", "turn", "phase")


@dataclass
class ZoneView:
    zone: str
    label: str  # the zone's name without its side (``fort`` for ``fort_spades``)
    cards: list[str]  # bottom first; empty for a hidden zone
    count: int
    value: int  # the cards' values added up (damage cards, a fortification's strength)


@dataclass
class Side:
    name: str
    zones: list[ZoneView] = field(default_factory=list)
    numbers: dict[str, Any] = field(default_factory=dict)  # hp, score, status ... of this side

    @property
    def damage(self) -> int | None:
        """Damage taken: the cards of its damage zones and any damage number kept beside them;
        None for a game without damage."""
        parts = [z.value for z in self.zones if "damage" in z.label]
        parts += [v for k, v in self.numbers.items() if "damage" in k and isinstance(v, int | float)]
        return sum(parts) if parts else None


@dataclass
class Summary:
    game: str
    now: str  # "black to play, round 2, age revolution"
    active: str | None
    fields: dict[str, Any]  # age, round, turn, phase where the game has them
    sides: list[Side]
    table: list[ZoneView]  # zones no side owns
    numbers: dict[str, Any]  # the game's own figures (``Game.stats``)
    over: bool
    result: str  # in words: "black wins: ...", "a draw", "game unfinished"
    question: str | None
    choices: list[str]

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for side, data in zip(self.sides, out["sides"], strict=True):
            data["damage"] = side.damage
        return out

    def tracked(self) -> dict[str, float]:
        """The figures worth following over a game, by name: each side's damage where the
        game has damage, else each side's score (or another figure every side has: a ladder),
        else the game's own numbers."""
        damage = {f"{s.name} damage": s.damage for s in self.sides if s.damage is not None}
        if damage:
            return damage
        common = [k for k, v in self.sides[0].numbers.items() if _number(v)] if self.sides else []
        common = [k for k in common if all(_number(s.numbers.get(k)) for s in self.sides)]
        key = "score" if "score" in common else next(iter(common), None)  # a ladder, hit points
        if key is not None:
            return {f"{s.name} {key}": s.numbers[key] for s in self.sides}
        return {k: v for k, v in self.numbers.items() if _number(v)}


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _plain_field(v: Any) -> bool:
    return isinstance(v, str | int) and not isinstance(v, bool) and v != ""


def side_names(zones: list[str]) -> list[str]:
    """The suffixes of ``zones`` that name sides (see the module's docstring), in zone order."""
    kinds: dict[str, set[str]] = {}
    for z in zones:
        if "_" in z:
            kind, suffix = z.rsplit("_", 1)
            kinds.setdefault(suffix, set()).add(kind)
    names = [
        s for s, k in kinds.items()
        if any(len(k & other) >= 2 for t, other in kinds.items() if t != s)
    ]
    return names


def whose_turn(state: Any) -> str | None:
    """The side or players to move; None before anyone is (the deal, the flop) or where the game
    does not say."""
    try:  # a game names whose turn it is as ``active`` (a player, or the players who act)
        active = getattr(state, "active", None)
        active = active() if callable(active) else active
    except (IndexError, KeyError, ValueError):  # nobody's yet (the deal, the flop)
        return None
    if isinstance(active, list | tuple):
        active = " and ".join(map(str, active))
    return str(active) if active else None


def _side_numbers(plain: dict[str, Any], stats: dict[str, Any], side: str) -> dict[str, Any]:
    """The state's per-side figures: fields that are dicts keyed by side (``hp``, a side's own
    record), and the stats named ``NAME_side``."""
    out: dict[str, Any] = {}
    for key, value in plain.items():
        if isinstance(value, dict) and side in value:
            mine = value[side]
            if isinstance(mine, dict):
                out.update({k: v for k, v in mine.items() if isinstance(v, str | int | float)})
            elif isinstance(mine, str | int | float):
                out[key] = mine
    for key, value in stats.items():
        if key.endswith(f"_{side}"):
            out[key[: -len(side) - 1]] = value
    return out


def _value(cards: list[Card]) -> int:
    return sum(c.value for c in cards if not c.is_joker and not c.is_back)


def result_in_words(game, state) -> tuple[bool, str]:
    if not game.is_terminal(state):
        return False, "game unfinished"
    outcome = game.outcome(state)
    if outcome is None:
        return True, "game over"
    who = f"{outcome.winner} wins" if outcome.winner else "a draw"
    return True, f"{who}: {outcome.reason}" if outcome.reason else who


def summarise(referee: Referee, hidden: frozenset[str] = frozenset()) -> Summary:
    """The referee's game now. ``hidden``: zones whose cards the players cannot see (a hand,
    the draw pile): counted, not listed."""
    game, state = referee.game, referee.state
    zones = game.cards_by_zone(state) or {}
    plain = to_jsonable(state)
    plain = plain if isinstance(plain, dict) else {}
    stats = game.stats(state)
    players = list(getattr(game, "players", ()))
    named = side_names(list(zones))  # players' sides in the game's order, the others as laid out
    sides = sorted(named, key=lambda s: (players.index(s) if s in players else len(players), named.index(s)))
    by_side = {s: Side(s) for s in sides}
    table: list[ZoneView] = []
    for zone, cards in zones.items():
        suffix = zone.rsplit("_", 1)[-1] if "_" in zone else None
        label = zone[: -len(suffix) - 1] if suffix in by_side else zone
        shown = [] if zone in hidden else [str(c) for c in cards]
        view = ZoneView(zone, label, shown, len(cards), _value(cards))
        (by_side[suffix].zones if suffix in by_side else table).append(view)
    for s in sides:
        by_side[s].numbers = _side_numbers(plain, stats, s)
    fields = {name: plain[name] for name in NOW_FIELDS if _plain_field(plain.get(name))}
    active = whose_turn(state)
    over, result = result_in_words(game, state)
    parts = ([f"{active} to play"] if active and not over else []) + [f"{k} {v}" for k, v in fields.items()]
    pending = referee.pending
    return Summary(
        game=game.name,
        now=result if over else (", ".join(parts) or "the game is under way"),
        active=None if over else active,
        fields=fields,
        sides=list(by_side.values()),
        table=table,
        numbers={k: v for k, v in stats.items() if not any(k.endswith(f"_{s}") for s in sides)},
        over=over,
        result=result,
        question=pending.question if pending else None,
        choices=list(pending.labels) if pending else [],
    )
