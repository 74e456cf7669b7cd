"""Builders for Royal Family test tables: a state laid out by hand, a referee on it."""

from __future__ import annotations

from referee.cards import Card
from referee.core import Referee
from referee.games import load_game
from referee.games.royal_family.state import RFState, other
from referee.observations import Observation, parse_short


def game(**variants):
    return load_game("royal_family", {k: str(v) for k, v in variants.items()})


def table(g, active: str = "black", turn: int = 0, age: str = "revolution",
          status: dict[str, str] | None = None, **zones: str) -> RFState:
    """A mid-game state: ``zones`` maps zone ids to space-separated cards taken from the draw
    pile (or from where they start); castles whose ace is laid out become active."""
    st = g.new_state()
    for zone, text in zones.items():
        for name in text.split():
            c = Card.parse(name)
            src = next(z for z, cs in st.zones.items() if c in cs)
            st.zones[src].remove(c)
            st.zones[zone].append(c)
            if zone.startswith("castle_") and not zone.startswith("castle_damage_"):
                st.castle_status[zone.removeprefix("castle_")] = "active"
    st.castle_status.update(status or {})
    st.order = [active, other(active), active] if turn != 1 else [other(active), active, other(active)]
    st.turn_index = turn
    st.phase = "take"
    st.age = age
    if age == "oppression" and not st.zones["joker_spot"]:
        st.zones["draw_pile"].remove(Card("JK"))
        st.zones["joker_spot"].append(Card("JK"))
    g.check_invariants(st)
    return st


def referee_on(g, st: RFState | None = None) -> Referee:
    ref = Referee(g)
    if st is not None:
        ref.state = st
    return ref


def feed(ref: Referee, *lines: str) -> list:
    """Feed short-form observations; return every announcement as (kind, text)."""
    out = []
    for line in lines:
        obs = parse_short(line) if isinstance(line, str) else line
        out += [(a.kind, a.text) for a in ref.feed(obs)]
    return out


def texts(announcements, kind: str | None = None) -> str:
    return "\n".join(t for k, t in announcements if kind is None or k == kind)


__all__ = ["Observation", "feed", "game", "referee_on", "table", "texts"]
