"""Dukes Up! observations: checking their fields and turning them into candidate moves.

A card movement names zones (``9D hand_red -> meld_2``). Melds are zones ``meld_<n>``: a
movement to an unused id lays a new meld. What a camera cannot see arrives as game types:
``dukes_up`` (both players' dukes turned up together) and ``table`` (the whole table as the
camera's spatial clusters after a rearrangement). A cluster that is not one valid meld is
split by the exact partition search; one reading is adopted and announced, several make
the referee ask which (docs/rules/dukes_up.md: never guess silently).
"""

from __future__ import annotations

from dataclasses import replace
from itertools import product
from typing import Any

import referee.games.dukes_up.moves as mv
from referee.cards import Card, CardError
from referee.core import Move
from referee.errors import IllegalMove, ObservationError
from referee.games.dukes_up.melds import MeldCards, is_meld, partitions, pool_readings, show, sort_cards
from referee.games.dukes_up.state import PLAYERS, DukesState, owner, zone_of

MAX_READINGS = 12  # more ways to read a table than this: ask the players to separate melds
APPEAR_IN = ("table", "castle", "dukes", "discard_pile")  # where a card may come into view


def _cards(value: Any, field: str, prefix: str) -> list[Card]:
    """A list of card texts, or one text joined with ``+`` (the typed form of a cluster)."""
    items = value.split("+") if isinstance(value, str) else value
    if not isinstance(items, list):
        raise ObservationError(f"{prefix}field '{field}': expected a list of cards, got {value!r}")
    try:
        cards = [Card.parse(x) for x in items if x != ""]
    except CardError as e:
        raise ObservationError(f"{prefix}field '{field}': {e}") from None
    if any(c.is_joker or c.is_back for c in cards):
        raise ObservationError(f"{prefix}field '{field}': Dukes Up! has no jokers, and melds are face-up")
    return cards


def clusters(data: dict[str, Any], prefix: str = "") -> list[list[Card]]:
    """The ``melds`` field of a ``table`` observation: a list of clusters (lists of cards, or
    ``5S+6S+7S`` texts); an empty text or list is an empty table."""
    raw = data.get("melds", "")
    if raw in ("", None):
        return []
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        raise ObservationError(f"{prefix}field 'melds': expected a list of clusters, got {raw!r}")
    out = [_cards(x, "melds", prefix) for x in raw]
    seen: set[Card] = set()
    for cluster in out:
        for c in cluster:
            if c in seen:
                raise ObservationError(f"{prefix}field 'melds': {c} appears twice")
            seen.add(c)
    return [c for c in out if c]


def validate_fields(obs_type: str, data: dict[str, Any], prefix: str) -> None:
    if obs_type == "dukes_up":
        for p in PLAYERS:
            if p not in data:
                raise ObservationError(f"{prefix}field '{p}': missing (dukes_up lists both players' dukes)")
            _cards(data[p], p, prefix)
    elif obs_type == "table":
        clusters(data, prefix)


def interpret(state: DukesState, obs_type: str, card: Card | None, src: str | None, dst: str | None,
              data: dict[str, Any], ace_wrap: bool) -> list[Move]:
    if obs_type == "dukes_up":
        black, red = _cards(data["black"], "black", ""), _cards(data["red"], "red", "")
        return [mv.RevealDukes(tuple(black), tuple(red))]
    if obs_type == "table":
        return readings(clusters(data), ace_wrap)
    if obs_type == "end_turn":
        return grouped(state, [mv.EndTurn()], ace_wrap)
    if obs_type == "answer":
        choice = data.get("choice")
        if state.phase == "first":
            if choice in PLAYERS:
                return [mv.ChooseFirst(str(choice))]
            if choice in (1, 2):
                return [mv.ChooseFirst(PLAYERS[int(choice) - 1])]
            raise IllegalMove(f"Answer black or red, not {choice!r}")
        raise IllegalMove(f"No question is open (answer {choice})")
    if obs_type == "appeared":
        assert card is not None and dst is not None
        return grouped(state, appeared(state, card, dst), ace_wrap)
    assert card is not None and src is not None and dst is not None
    return grouped(state, [movement(state, card, src, dst)], ace_wrap)


def appeared(state: DukesState, c: Card, dst: str) -> list[Move]:
    """A card come into view at ``dst`` from nowhere a camera sees: from its owner's hand onto
    the table or among the dukes, the face-down castle turned up where it lies, or a discard
    from the hand or the top of the draw pile (the camera cannot tell which: the referee asks
    when both are legal, since the hand's size depends on it)."""
    kind, p = zone_of(dst)
    if kind == "castle":
        return [movement(state, c, dst, dst)]
    if kind == "discard_pile":
        return [mv.Discard(str(p), "hand", c), mv.Discard(str(p), "draw_pile", c)]
    return [movement(state, c, f"hand_{p or owner(c)}", dst)]


def grouped(state: DukesState, moves: list[Move], ace_wrap: bool) -> list[Move]:
    """A discard or ``end_turn`` validates the table: with cards in the pool (laid on the table,
    their melds unseen) each candidate comes once per reading of the table (``pool_readings``),
    the reading adopted first. One reading: adopted and announced; several: the referee asks;
    none: refused, nothing changes."""
    if not state.pool or state.phase not in ("draw", "play"):
        return moves
    if not any(isinstance(m, (mv.Discard, mv.EndTurn)) for m in moves):
        return moves
    melds = list(state.melds.values())
    ways = pool_readings(melds, state.pool, ace_wrap, limit=MAX_READINGS + 1)
    if not ways:
        raise IllegalMove(f"The table cannot be grouped into valid melds (new: {show(state.pool)})")
    if len(ways) > MAX_READINGS:
        raise IllegalMove(f"Separate the melds: the table can be read more than {MAX_READINGS} ways "
                          "(type table melds=...)")
    return [replace(m, melds=tuple(way)) for m in moves for way in ways]


def movement(state: DukesState, c: Card, a: str, b: str) -> Move:
    """The one move a card movement can mean (the rules then say whether it is legal)."""
    ka, pa = zone_of(a)
    kb, pb = zone_of(b)
    if c.is_joker:
        raise IllegalMove("Dukes Up! is played without jokers")
    if c.is_back:
        if (ka, kb) == ("draw_pile", "hand") and pa == pb:
            return mv.Draw(str(pa))
        if ka == "hand" and kb in ("castle", "dukes") and pa == pb and state.phase == "setup":
            return mv.PlaceDown(str(pa), kb)
        if kb == "hand" and ka in ("castle", "dukes") and pa == pb and state.phase == "setup":
            return mv.PickUp(str(pa), ka)
        if ka == "castle" and kb == "meld":
            return mv.TakeCastle(str(pa), c, b)
        raise IllegalMove("Show the card: only draws and set-up placements are face-down")
    if (ka, kb) == ("draw_pile", "hand"):
        raise IllegalMove("A drawn card stays hidden: report it as BACK")
    if kb == "hand" and ka in ("meld", "table"):
        raise IllegalMove("Table cards cannot return to hand")
    if kb == "table" and ka in ("hand", "dukes", "castle"):
        b = "table"  # laid on the table, its meld unnamed: into the pool (a camera's reading)
        kb = "meld"
    if pa is not None and pb is not None and pa != pb and kb != "discard_pile":
        raise IllegalMove(f"{c} cannot go from {a} to {b}: that is the other player's zone")
    if kb == "discard_pile":
        source = {"hand": "hand", "draw_pile": "draw_pile", "meld": "table", "table": "table"}.get(ka)
        if source is None:
            raise IllegalMove(f"A discard comes from your hand, your draw pile or the table, not {a}")
        if pa is not None and pa != pb:
            raise IllegalMove("Discards go to your own discard pile")
        return mv.Discard(str(pb), source, c)
    pair = (ka, kb)
    if pair == ("discard_pile", "hand"):
        return mv.DrawDiscard(str(pa), c)
    if pair == ("castle", "castle") and a == b:
        return mv.FlipCastle(str(pa), c)
    if pair == ("hand", "meld"):
        return mv.Meld(str(pa), c, b)
    if ka in ("meld", "table") and kb == "meld":
        return mv.Shift(c, b)
    if pair == ("dukes", "meld"):
        return mv.TakeDuke(str(pa), c, b)
    if pair == ("castle", "meld"):
        return mv.TakeCastle(str(pa), c, b)
    if ka in ("meld", "table") and kb == "castle":
        return mv.ReturnCastle(str(pb), c)
    if pair == ("dukes", "hand"):
        return mv.SwitchOut(str(pa), c)
    if pair == ("hand", "dukes"):
        side = state.sides[str(pa)]
        if side.dukes or state.switch_out is not None or state.phase == "setup":
            return mv.SwitchIn(str(pa), c)
        return mv.CreateDuke(str(pa), c)
    raise IllegalMove(f"{c} cannot go from {a} to {b} in Dukes Up!")


def readings(table: list[list[Card]], ace_wrap: bool) -> list[Move]:
    """Every way to read the camera's clusters as valid melds. A valid cluster is one meld;
    an invalid one is split (exact search); one that cannot be split stays as it is (the
    table may be invalid mid-turn; validation refuses it before the discard)."""
    options: list[list[list[MeldCards]]] = []
    for cluster in table:
        if is_meld(cluster, ace_wrap):
            options.append([[tuple(sort_cards(cluster))]])
            continue
        ways = partitions(cluster, ace_wrap, limit=MAX_READINGS + 1)
        if len(ways) > MAX_READINGS:
            raise IllegalMove(f"Separate the melds: {' '.join(map(str, sort_cards(cluster)))} can be "
                              f"read more than {MAX_READINGS} ways")
        options.append(ways or [[tuple(sort_cards(cluster))]])
    total = 1
    for o in options:
        total *= len(o)
    if total > MAX_READINGS:
        raise IllegalMove(f"Separate the melds: the table can be read {total} ways")
    return [mv.Regroup(tuple(m for part in combo for m in part)) for combo in product(*options)]
