"""Royal Crush observations: checking their fields and turning them into candidate moves.

A card movement names zones (``hand_p3 -> side_victim``); what a camera cannot see comes as
game observations (``dice``, ``declare``, ``join``, ``reveal`` ...; see docs/rules/royal_crush.md).
Where an observation leaves something open (dice without a roller, a join without a side,
a card leaving a mat where two slots hold it) every reading is a candidate and the core
referee asks which one was meant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import referee.games.royal_crush.moves as mv
from referee.cards import Card, CardError
from referee.core import Move
from referee.errors import IllegalMove, ObservationError
from referee.games.royal_crush.state import ALLIANCES, COMMIT, SIDES, CrushState

if TYPE_CHECKING:
    from referee.games.royal_crush.game import RoyalCrush

# type -> (required fields, optional fields); ``reveal`` takes player ids as its fields.
FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "move": ((), ()),
    "answer": (("choice",), ()),
    "end_turn": ((), ()),
    "deal": ((), ()),
    "dice": (("values",), ("player",)),
    "declare": (("victim",), ("attacker",)),
    "join": (("player",), ("side",)),
    "leave": (("player",), ()),
    "invite": (("player",), ("by",)),
    "exclude": (("player",), ("by",)),
    "lock_sides": ((), ()),
    "countdown": ((), ()),
    "reveal": ((), ("order",)),
    "ladder": (("player", "spot"), ()),
}
PLAYER_FIELDS = ("player", "victim", "attacker", "by")


def _err(loc: str, name: str, text: str) -> ObservationError:
    where = f"{loc}: field '{name}'" if loc else f"field '{name}'"
    return ObservationError(f"{where}: {text}")


def validate_observation(game: RoyalCrush, obs: Any, loc: str = "") -> None:
    """Malformed game observations (missing or unknown fields, unknown players, bad values)
    raise ObservationError naming the field; whether they are legal is the rules' business."""
    required, optional = FIELDS[obs.type]
    data: dict[str, Any] = obs.data
    if obs.type == "move":
        return
    for name in required:
        if name not in data:
            raise _err(loc, name, f"missing (a {obs.type} observation needs {', '.join(required)})")
    allowed = set(required) | set(optional)
    for name, value in data.items():
        if obs.type == "reveal" and name in game.players:
            _cards(value, loc, name)
            continue
        if name not in allowed:
            expected = ", ".join([*required, *optional]) or "no fields"
            if obs.type == "reveal":
                expected = f"player ids ({', '.join(game.players)}) and order"
            raise _err(loc, name, f"not a field of {obs.type!r} (expected {expected})")
        if name in PLAYER_FIELDS and value not in game.players:
            raise _err(loc, name, f"unknown player {value!r} (expected one of {', '.join(game.players)})")
        if name == "side" and value not in SIDES:
            raise _err(loc, name, f"expected attacker or victim, got {value!r}")
        if name == "values":
            _values(value, loc)
        if name == "spot" and (isinstance(value, bool) or not isinstance(value, int)):
            raise _err(loc, name, f"expected a ladder spot 0-5, got {value!r}")
        if name == "order" and value not in ("placed", "unknown"):
            raise _err(loc, name, f"expected placed or unknown, got {value!r}")
    if obs.type == "reveal" and not any(p in data for p in game.players):
        raise _err(loc, "p1", "a reveal lists the cards per player, e.g. {\"p1\": [\"7S\", \"JD\"]}")


def _values(value: Any, loc: str) -> tuple[int, ...]:
    items = value if isinstance(value, list) else [value]
    if not items or any(isinstance(v, bool) or not isinstance(v, int) for v in items):
        raise _err(loc, "values", f"expected die values such as [3, 5], got {value!r}")
    return tuple(items)


def _cards(value: Any, loc: str, name: str) -> tuple[Card, ...]:
    items = value if isinstance(value, list) else [value]
    try:
        return tuple(Card.parse(v) for v in items)
    except CardError as e:
        raise _err(loc, name, str(e)) from None


def _player_of(zone: str, prefix: str) -> str | None:
    return zone[len(prefix):] if zone.startswith(prefix) else None


def interpret_observation(game: RoyalCrush, s: CrushState, obs: Any) -> list[Move]:
    """Candidate moves for one observation, most natural first."""
    d = obs.data
    t = obs.type
    q = s.conquest
    if t == "move":
        return _interpret_move(game, s, obs.card, obs.src, obs.dst)
    if t == "answer":
        raise IllegalMove("No question is open")
    if t == "deal":
        return [mv.DealAll()]
    if t == "dice":
        values = _values(d["values"], "")
        if "player" in d:
            return [mv.Roll(d["player"], values)]
        waiting = [p for p in s.rollers if p not in s.rolls]
        if not waiting:
            raise IllegalMove(f"No dice roll is due now: {game.rules.expect(s)}")
        return [mv.Roll(p, values) for p in waiting]
    if t == "ladder":
        return [mv.CheckLadder(d["player"], d["spot"])]
    if q is None:
        raise IllegalMove(f"Not now: {game.rules.expect(s)}")
    principals = [p for p in (q.attacker, q.victim) if p]
    if t == "declare":
        return [mv.Declare(d.get("attacker", q.attacker), d["victim"])]
    if t == "join":
        sides = [d["side"]] if "side" in d else list(SIDES)
        return [mv.Join(d["player"], side) for side in sides]
    if t == "leave":
        return [mv.Leave(d["player"])]
    if t in ("invite", "exclude"):
        kind = mv.Invite if t == "invite" else mv.Exclude
        by = [d["by"]] if "by" in d else principals
        return [kind(b, d["player"]) for b in by]
    if t == "lock_sides":
        return [mv.LockSides()]
    if t == "countdown":
        return [mv.Countdown()]
    if t == "end_turn":
        if s.phase == ALLIANCES:
            return [mv.LockSides()]
        if s.phase == COMMIT:
            return [mv.Countdown()]
        raise IllegalMove(f"Nothing to end now: {game.rules.expect(s)}")
    if t == "reveal":
        cards = tuple((p, _cards(d[p], "", p)) for p in game.players if p in d)
        return [mv.Reveal(cards, d.get("order", "placed") == "placed")]
    raise IllegalMove(f"{t} is not a Royal Crush observation")


def _interpret_move(game: RoyalCrush, s: CrushState, c: Card, src: str, dst: str) -> list[Move]:
    hand_src, hand_dst = _player_of(src, "hand_"), _player_of(dst, "hand_")
    slot_src, slot_dst = _player_of(src, "commit_"), _player_of(dst, "commit_")
    mat_src, mat_dst = _player_of(src, "side_"), _player_of(dst, "side_")
    if c.is_back:
        if src == "draw_pile" and hand_dst:
            return [mv.DealCard(hand_dst)] if s.phase == "deal" else [mv.Draw(hand_dst)]
        if hand_src and (slot_dst or mat_dst):
            if slot_dst and slot_dst != hand_src:
                raise IllegalMove(f"{hand_src} places cards only in its own slot commit_{hand_src}")
            return [mv.Commit(hand_src, mat_dst)]
        if (slot_src or mat_src) and hand_dst:
            if slot_src and slot_src != hand_dst:
                raise IllegalMove(f"Only {slot_src} takes cards back from commit_{slot_src}")
            return [mv.Uncommit(hand_dst)]
        if src == "draw_pile" and not hand_dst:
            raise IllegalMove(f"Cards from the draw pile go into a hand, not {dst}")
        raise IllegalMove(f"A face-down card does not move from {src} to {dst} in Royal Crush")
    if src == dst and (slot_src or mat_src):
        if slot_src:
            return [mv.Flip(slot_src, c)]
        return _on_mat(s, mat_src, lambda p, slot: slot.facedown > 0, lambda p: mv.Flip(p, c),
                       f"no face-down card on the {mat_src} mat")
    if (slot_src or mat_src) and (dst == "draw_pile" or hand_dst):
        make = (lambda p: mv.Sweep(p, c)) if dst == "draw_pile" else (lambda p: mv.ReturnCard(p, c))
        if slot_src:
            if hand_dst and hand_dst != slot_src:
                raise IllegalMove(f"{c} belongs to {slot_src}: it goes back to hand_{slot_src}")
            return [make(slot_src)]
        moves = _on_mat(s, mat_src, lambda p, slot: c in slot.shown, make, f"{c} is not on the {mat_src} mat")
        if hand_dst:
            moves = [m for m in moves if m.player == hand_dst] or [make(hand_dst)]
        return moves
    if hand_src and (slot_dst or mat_dst):
        raise IllegalMove(f"Commit cards face-down: everyone saw {c}. Take it back and place it face-down")
    if src == "draw_pile":
        raise IllegalMove("Draw face-down: nobody may see the drawn card")
    raise IllegalMove(f"{c} does not move from {src} to {dst} in Royal Crush")


def _on_mat(s: CrushState, side: str, holds, make, missing: str) -> list[Move]:
    """Candidates for a card seen on a side mat: the slots lying there, else (after a Joker
    switch moved a player) the slots of players now counted on that side."""
    q = s.conquest
    if q is None or side not in SIDES:
        raise IllegalMove(missing)
    seats = [p for p in s.clockwise_from(q.attacker) if p in q.slots]
    here = [p for p in seats if q.slots[p].side == side and holds(p, q.slots[p])]
    if not here and q.resolution:
        here = [p for p in seats if q.resolution.sides.get(p) == side and holds(p, q.slots[p])]
    if not here:
        raise IllegalMove(missing)
    return [make(p) for p in here]
