"""Recovery: the steps the camera missed, searched among the rules' legal moves.

A read lost to an arm or a busy machine merges moves: a card drawn straight onto its
destination seems to skip ``staging`` (which the rules require to be seen), one player's move
and the next player's draw arrive as one table. When no reading of the changes is legal,
:func:`missed_steps` looks for short sequences of legal moves (the game's own ``legal_moves``
and ``apply``, nothing game-specific) from the last agreed table, moving only the cards that
changed, after which the ordinary reading of the changes is accepted. The search is
breadth-first and bounded (``MAX_MISSED`` steps, ``MAX_STATES`` referees tried), so the shortest
explanations come first and the latency stays low.

One kind of turn leaves no card the camera can name: a card drawn and put out of sight before
any read saw it (a Royal Family card drawn and discarded face down while an arm hid
``staging``). Where both the zone drawn from and a hidden zone it may go to moved since the last
read, :func:`blind_steps` offers such a turn with a stand-in card (any card still unseen leaves
the same table); an explanation with one is taken only when none without explains the table.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from referee.cards import Card
from referee.core import Referee
from referee.errors import IllegalMove
from referee.observations import Observation
from vision.table_state import copies_of

MAX_MISSED = 3  # missed steps searched before the changes seen (each a legal move)
MAX_STATES = 300  # referees tried per search (each a feed of a trial copy)
MAX_CHOICES = 4  # explanations offered to the players at most


@dataclass(frozen=True)
class Explanation:
    """One legal way from the last agreed table to this one: every step in order (those the
    camera saw and those it missed), which of them it ``missed``, and the ``outcome`` that
    tells two explanations apart."""

    steps: tuple[Observation, ...]
    missed: tuple[Observation, ...]
    outcome: str
    # Cards that changed which the rules moved along with a step, unobserved (a drawn 2 filed
    # in the discard pile as its victim leaves): the physical table follows.
    carried: tuple[Observation, ...] = ()
    label: str = ""  # what the players are shown, where the steps would not tell them apart
    named: str | None = None  # the card's name this explanation gives, in a question of names
    # Stand-ins for cards drawn and put out of sight that the camera never saw (blind_steps).
    blind: tuple[str, ...] = ()
    # Whether the game is left with a move half made (``Game.awaited_zone``: a flop of three
    # cards two short); a camera reads tables that have settled, so rarely such a one.
    half_made: bool = False

    def describe(self) -> str:
        return self.label or ", ".join(o.short() for o in self.steps)


@dataclass
class RecoveryQuestion:
    """Several legal explanations: the players pick one by its number. ``card``: the name the
    camera read unsurely, when the explanations are that card's likely names (their effects
    differ), rather than moves the camera missed."""

    choices: list[Explanation]
    card: str | None = None

    def title(self) -> str:
        if self.card is not None:
            return f"{self.card} was read unsurely and its name changes the game: which card is it?"
        return "the camera missed moves, which happened?"

    def prompt(self) -> str:
        options = "; ".join(f"{i} {e.describe()}" for i, e in enumerate(self.choices, 1))
        more = " (none of them: press 1, then type a rename)" if self.card is not None else ""
        return f"{self.title()} press {options}{more}"


def card_moves(before: dict[str, list[Card]], after: dict[str, list[Card]]) -> list[tuple[str, str, str]]:
    """(card, from, to) for each card whose zone differs between two referee zone maps."""
    old = Counter((z, str(c)) for z, cs in before.items() for c in cs)
    new = Counter((z, str(c)) for z, cs in after.items() for c in cs)
    left, came = old - new, new - old
    out = []
    for (dst, name), k in came.items():
        for _ in range(k):
            src = next((z for (z, n), j in left.items() if n == name and j > 0), None)
            if src is not None:
                left[(src, name)] -= 1
                out.append((name, src, dst))
    return out


def legal_movements(referee: Referee) -> Iterator[tuple[Any, list[tuple[str, str, str]]]]:
    """For each legal move now, in the rules' order: the state after it and the cards it moves
    (card, from, to). Nothing while the referee waits for an answer."""
    game, state = referee.game, referee.state
    if referee.pending is not None:
        return
    before = game.cards_by_zone(state) or {}
    for move in game.legal_moves(state):
        try:
            after = game.apply(state, move).state
        except IllegalMove:
            continue
        yield after, card_moves(before, game.cards_by_zone(after) or {})


def legal_steps(referee: Referee, cards: set[str]) -> list[Observation]:
    """The card movements of the legal moves now that move only ``cards`` (a draw of another
    card says nothing about this table), one observation each, in the rules' order."""
    game = referee.game
    steps: dict[str, Observation] = {}
    for after, moved in legal_movements(referee):
        if not moved or any(name not in cards for name, _, _ in moved):
            continue
        # Where the rules file a card at once but ask the players to move it there (a joker
        # drawn goes to the joker spot by way of staging), the camera sees it reach the zone
        # the clean-up starts from.
        asked = game.asked_movements(after)
        for name, src, dst in moved:
            via = [z for c, z, _ in asked if c == name and z != src]
            for obs in (Observation.move(name, src, dst), *(Observation.move(name, src, z) for z in via)):
                steps.setdefault(obs.short(), obs)
    return list(steps.values())


def blind_steps(
    referee: Referee, cards: set[str], stirred: frozenset[str], hidden: frozenset[str]
) -> list[tuple[Observation, Observation]]:
    """A turn the camera saw nothing of, where the table says one may have passed: a card none
    of ``cards`` (those that changed) drawn from a hidden zone into view and put into a hidden
    zone next, both zones among those ``stirred`` since the last read (the draw and where it
    went, as one step). Any card still unseen would leave this table: the first the rules allow
    stands for them all (named by nobody, a later sight of it renames it)."""
    if not (stirred & hidden):
        return []
    for _, moved in legal_movements(referee):
        if len(moved) != 1:
            continue
        name, src, dst = moved[0]
        if name in cards or src not in hidden or src not in stirred or dst in hidden:
            continue
        if copies_of(name) > 1:
            continue  # a joker or a card of two decks: its stand-in could be the other copy
        drawn = accepted(referee, Observation.move(name, src, dst))
        if drawn is None:
            continue
        gone = [o for o in legal_steps(drawn, {name}) if o.src == dst and o.dst in hidden & stirred]
        if gone:
            return [(Observation.move(name, src, dst), gone[0])]
    return []


def trial_copy(referee: Referee) -> Referee:
    """A copy to try observations on: without the game log, which only real feeds go to."""
    log, referee.log = referee.log, None
    try:
        return copy.deepcopy(referee)
    finally:
        referee.log = log


def refused(referee: Referee, obs: Observation) -> bool:
    """Feed ``obs`` to ``referee`` (a trial copy, as a rule): whether it refused it."""
    return any(a.kind == "REJECT" for a in referee.feed(obs))


def accepted(referee: Referee, obs: Observation) -> Referee | None:
    trial = trial_copy(referee)
    return None if refused(trial, obs) else trial


Reading = tuple[list[Observation] | None, list[Observation]]


@dataclass(frozen=True)
class Node:
    referee: Referee
    steps: tuple[Observation, ...] = ()
    missed: tuple[Observation, ...] = ()
    carried: tuple[Observation, ...] = ()
    seen: tuple[Observation, ...] = ()  # the readings of the changes still to explain
    blind: tuple[str, ...] = ()  # stand-ins drawn unseen so far (blind_steps)


def missed_steps(
    referee: Referee,
    cards: set[str],
    read: Callable[[Referee, tuple[Observation, ...]], Reading],
    stirred: frozenset[str] = frozenset(),
    hidden: frozenset[str] = frozenset(),
    filled: frozenset[str] = frozenset(),
) -> list[Explanation]:
    """The shortest explanations of this table (distinct outcomes, at most ``MAX_CHOICES``):
    breadth-first from ``referee`` (the last agreed game) over steps that are either a legal
    move of the ``cards`` that changed (one the camera may have missed) or a reading of a
    change it saw, so that the seen and the missed interleave (a clean-up seen, then a draw
    missed). ``read(trial, moved)``, with the cards ``moved`` so far, gives the plan that
    explains the rest of the table (None if the rules refuse every reading) and the seen
    changes' readings to try as the next step. ``stirred``: the zones that moved since the last
    read, ``hidden``: those the camera cannot see into (:func:`blind_steps`); an explanation
    with a turn drawn unseen is offered only where none of the same length names every card,
    and one that leaves a move half made only where none of the same length settles the game.
    ``filled``: zones every explanation must put a card into (a back seen where the game has
    none)."""
    frontier = [Node(referee, seen=tuple(read(referee, ())[1]))]
    tried = 0
    for _ in range(MAX_MISSED):
        found: dict[str, Explanation] = {}
        deeper: list[Node] = []
        for node in frontier:
            before = node.referee.game.cards_by_zone(node.referee.state) or {}
            missed = legal_steps(node.referee, cards)
            shorts = {o.short() for o in missed}
            drawn = blind_steps(node.referee, cards | set(node.blind), stirred, hidden)
            seen_only = [(o,) for o in node.seen if o.short() not in shorts]
            for step in [(o,) for o in missed] + drawn + seen_only:
                if tried >= MAX_STATES:
                    break
                tried += 1
                after = accepted_all(node.referee, list(step))
                if after is None:
                    continue
                moved = card_moves(before, after.game.cards_by_zone(after.state) or {})
                names = {str(o.card) for o in step}
                also = tuple(Observation.move(n, s, d) for n, s, d in moved if n in cards and n not in names)
                steps, carried = (*node.steps, *step), (*node.carried, *also)
                blind = (*node.blind, str(step[0].card)) if step in drawn else node.blind
                unseen = (*node.missed, *step) if step in drawn or step[0].short() in shorts else node.missed
                plan, seen = read(after, (*steps, *carried))
                if plan is not None and unseen and filled <= {o.dst for o in (*steps, *plan)}:
                    end = accepted_all(after, plan)
                    if end is not None:
                        key = end.game.outcome_key(end.state)
                        if key not in found or found[key].blind and not blind:
                            half = end.game.awaited_zone(end.state) is not None
                            found[key] = Explanation(
                                (*steps, *plan), unseen, key, carried, blind=blind, half_made=half
                            )
                deeper.append(Node(after, steps, unseen, carried, tuple(seen), blind))
        if found:
            settled = [e for e in found.values() if not e.half_made] or list(found.values())
            seeing = [e for e in settled if not e.blind] or settled
            return seeing[:MAX_CHOICES]
        frontier = deeper
    return []


def accepted_all(referee: Referee, plan: list[Observation]) -> Referee | None:
    trial = referee
    for obs in plan:
        trial = accepted(trial, obs)
        if trial is None:
            return None
    return trial
