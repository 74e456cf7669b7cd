"""Royal Crush scoring: validating a revealed slot (A10) and resolving a conquest (C5).

Pure functions of the revealed cards, so the worked arithmetic of the spec can be checked
without a table: Kings first, then Jokers, the empty-side rule, card powers (Aces last),
totals with the combo doubling, and who won or who rolls off a tie.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.cards import Card
from referee.games.royal_crush.state import SIDES, Resolution, is_attack, low_value, other_side


@dataclass(frozen=True)
class ScoringRules:
    """The variants that change the arithmetic."""

    ally_may_play_joker: bool = False
    two_kings_suppress: bool = False
    combo_mode: bool = False
    combo_scope: str = "side"


def validate_slot(
    cards: list[Card], order_known: bool, principal: bool, rules: ScoringRules
) -> tuple[list[Card], list[Card]]:
    """Split a revealed slot into (counted, returned-to-hand) cards.

    An ally counts one attack card (or a joker with ``ally_may_play_joker``). A principal
    counts at most one attack and one royal card; of two of a kind the first placed stays
    when the camera knows the order, else the lower one.
    """
    if not principal:
        counted, returned = [], []
        for c in cards:
            ok = not counted and (is_attack(c) or (rules.ally_may_play_joker and c.is_joker))
            (counted if ok else returned).append(c)
        return counted, returned
    counted, returned = [], []
    for group in ([c for c in cards if is_attack(c)], [c for c in cards if not is_attack(c)]):
        if not group:
            continue
        keep = 0 if order_known else min(range(len(group)), key=lambda i: (low_value(group[i]), i))
        counted.append(group[keep])
        returned.extend(c for i, c in enumerate(group) if i != keep)
    return counted, returned


def resolve(
    order: list[str], victim: str, sides: dict[str, str], counted: dict[str, list[Card]],
    rules: ScoringRules,
) -> Resolution:
    """Score a conquest. ``order``: the participants clockwise from the attacker (so the
    attacker first); ``sides``: each participant's side before the reveal; ``counted``: the
    cards that count after :func:`validate_slot`."""
    attacker = order[0]
    kings = sum(1 for p in order for c in counted[p] if c.rank == "K")
    suppressed = kings == 1 or (kings >= 2 and rules.two_kings_suppress)
    final = dict(sides)
    switched: list[str] = []
    if not suppressed:
        for p in order:
            if any(c.is_joker for c in counted[p]):
                final[p] = other_side(final[p])
                switched.append(p)
    members = {s: [p for p in order if final[p] == s] for s in SIDES}
    all_win = not members["attacker"] or not members["victim"]

    power: dict[tuple[str, int], int] = {}
    aces: list[tuple[str, int]] = []
    for p in order:
        mine = final[p]
        for i, c in enumerate(counted[p]):
            if is_attack(c):
                power[p, i] = c.value
            elif c.rank == "K":
                power[p, i] = 5 if kings == 1 else 0
            elif suppressed or c.is_joker:
                power[p, i] = 0
            elif c.rank == "J":
                power[p, i] = 3 * len(members[other_side(mine)])
            elif c.rank == "Q":
                power[p, i] = max(
                    (x.value for q in members[mine] if q != p for x in counted[q] if is_attack(x)),
                    default=0,
                )
            else:  # Ace: evaluated last, ignores the opposing Aces
                aces.append((p, i))
    for p, i in aces:
        opposing = other_side(final[p])
        power[p, i] = max(
            (power[q, j] for q in members[opposing] for j, x in enumerate(counted[q]) if x.rank != "A"),
            default=0,
        )

    side_mult = {s: 1 for s in SIDES}
    player_mult = {p: 1 for p in order}
    if rules.combo_mode:
        if rules.combo_scope == "player":
            for p in order:
                if _combo([c for c in counted[p] if not c.is_joker]):
                    player_mult[p] = 2
        else:
            for s in SIDES:
                if _combo([c for p in members[s] for c in counted[p] if not c.is_joker]):
                    side_mult[s] = 2
    totals = {s: 0 for s in SIDES}
    for (p, _i), v in power.items():
        totals[final[p]] += player_mult[p] * v
    totals = {s: side_mult[s] * totals[s] for s in SIDES}
    winner: str | None = None
    reps: dict[str, str] = {}
    if not all_win:
        if totals["attacker"] != totals["victim"]:
            winner = max(SIDES, key=lambda s: totals[s])
        else:
            for s in SIDES:
                principal = next((p for p in (attacker, victim) if p in members[s]), None)
                reps[s] = principal or members[s][0]
    ace_players = [p for p, i in aces] if not suppressed else []
    return Resolution(
        sides=final,
        powers=[(p, c, power[p, i]) for p in order for i, c in enumerate(counted[p])],
        multipliers=side_mult,
        totals=totals,
        kings=kings,
        switched=switched,
        all_win=all_win,
        winner_side=winner,
        tie_reps=reps,
        ace_players=ace_players,
        player_multipliers={p: m for p, m in player_mult.items() if m != 1},
    )


def _combo(cards: list[Card]) -> bool:
    return len(cards) >= 2 and len({c.suit for c in cards}) == 1


def recount(res: Resolution) -> dict[str, int]:
    """Totals recomputed from the stored powers (the arithmetic invariant)."""
    totals = {s: 0 for s in SIDES}
    for p, _c, v in res.powers:
        totals[res.sides[p]] += v * res.player_multipliers.get(p, 1)
    return {s: totals[s] * res.multipliers[s] for s in SIDES}
