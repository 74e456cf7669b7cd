"""Two random Dukes Up! players, and the hidden truth the camera cannot see.

The simulator keeps both draw piles in order, both hands and the face-down castles. Each
call it looks at the referee's state and its truth, picks one action of the player to move
(random, but greedy enough to take dukes and castles so that games end by the rules), and
returns what a camera would report. A play made of several movements (a castle take with
its guarding dukes, a switch) comes as one batch. When a ``table`` observation can be read
several ways the referee asks, and the simulator answers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations

from referee.cards import Card
from referee.core import Game, Simulator
from referee.games.dukes_up.melds import is_meld, meld_problem, partitions, sort_cards
from referee.games.dukes_up.state import (
    DUKES_AT_SETUP,
    PLAYERS,
    SETUP_DRAW,
    DukesState,
    half_deck,
    other,
    owner,
)
from referee.observations import Observation

MAX_PLAYS = 6
# Relative weights of the kinds of play, when several are possible.
WEIGHTS: dict[str, float] = {
    "castle": 50.0, "take_duke": 4.0, "meld": 3.0, "extend": 2.0, "create_duke": 3.0,
    "shift": 0.4, "regroup": 1.5, "switch": 0.4, "last_stand": 2.0, "stop": 1.5,
}


def _mv(card: Card | str, src: str, dst: str) -> Observation:
    return Observation.move(card, src, dst)


@dataclass
class Plan:
    """A play the simulator may make: its movements and what they do to the hidden hand."""

    kind: str
    observations: list[Observation]
    from_hand: list[Card] = field(default_factory=list)
    to_hand: list[Card] = field(default_factory=list)


class DukesSimulator(Simulator):
    """Plays random legal games of Dukes Up! and reports them as camera observations."""

    def __init__(self, game: Game, seed: int):
        super().__init__(game, seed)
        self.pile: dict[str, list[Card]] = {p: [] for p in PLAYERS}  # top is the end
        self.hand: dict[str, list[Card]] = {p: [] for p in PLAYERS}
        self.castle: dict[str, Card | None] = {p: None for p in PLAYERS}
        self.turn = -1
        self.target = 0
        self.plays = 0
        self.stop = False
        self.ace_wrap = bool(game.v.ace_wrap)

    # ---- the loop ------------------------------------------------------------------------
    def next_observations(self, state: DukesState) -> list[Observation]:
        if state.phase == "over":
            return []
        if state.phase == "setup":
            return self._setup()
        if state.phase == "first":
            return [Observation.answer(self.rng.choice(PLAYERS))]
        p = state.active
        if state.phase == "second_discard":
            return self._second_discard(state, p)
        if state.turn != self.turn:
            self._new_turn(state)
        side = state.sides[p]
        if state.phase == "draw" and state.drawn < self.target and side.draw + len(side.discard) > 0:
            return [self._draw(state, p)]
        if (state.phase == "draw" and not side.dukes and side.castle_down) or state.flip_due:
            card = self.castle[p]
            assert card is not None
            return [_mv(card, f"castle_{p}", f"castle_{p}")]
        if state.last_stand is not None and state.castle_taken is None and self.stop:
            key = state.meld_of(state.last_stand)
            return [_mv(state.last_stand, str(key), f"castle_{p}")]
        if not self.stop:
            plan = self._choose_play(state, p)
            if plan is not None:
                self.plays += 1
                return self._carry_out(state, p, plan)
            self.stop = True
            if state.last_stand is not None and state.castle_taken is None:
                return self.next_observations(state)
        return self._discard(state, p)

    def _new_turn(self, state: DukesState) -> None:
        self.turn, self.plays, self.stop = state.turn, 0, False
        if self.game.v.draw_rule == "fill_up_to_two":
            self.target = state.allowance
        else:
            self.target = self.rng.choices(range(state.allowance + 1),
                                           weights=[1 + 4 * k for k in range(state.allowance + 1)])[0]

    # ---- set-up, draws, discards ---------------------------------------------------------
    def _setup(self) -> list[Observation]:
        out: list[Observation] = []
        dukes: dict[str, list[Card]] = {}
        for p in PLAYERS:
            pile = half_deck(p)
            self.rng.shuffle(pile)
            drawn = [pile.pop() for _ in range(SETUP_DRAW)]
            self.pile[p] = pile
            out += [_mv("BACK", f"draw_pile_{p}", f"hand_{p}")] * SETUP_DRAW
            self.rng.shuffle(drawn)
            self.castle[p], dukes[p], self.hand[p] = drawn[0], drawn[1:1 + DUKES_AT_SETUP], drawn[3:]
            out.append(_mv("BACK", f"hand_{p}", f"castle_{p}"))
            out += [_mv("BACK", f"hand_{p}", f"dukes_{p}")] * DUKES_AT_SETUP
        out.append(Observation.of("dukes_up", **{p: [str(c) for c in dukes[p]] for p in PLAYERS}))
        return out

    def _draw(self, state: DukesState, p: str) -> Observation:
        side = state.sides[p]
        if self.game.v.draw_from_discard and side.discard and self.rng.random() < 0.3:
            card = side.discard[-1]
            self.hand[p].append(card)
            return _mv(card, f"discard_pile_{p}", f"hand_{p}")
        if not self.pile[p]:  # the referee reshuffles on this same draw
            self.pile[p] = list(side.discard)
            self.rng.shuffle(self.pile[p])
        self.hand[p].append(self.pile[p].pop())
        return _mv("BACK", f"draw_pile_{p}", f"hand_{p}")

    def _discard_options(self, state: DukesState, p: str) -> list[tuple[float, Observation]]:
        dst = f"discard_pile_{p}"
        opts: list[tuple[float, Observation]] = [(1.0, _mv(c, f"hand_{p}", dst)) for c in self.hand[p]]
        if self.pile[p]:
            opts.append((0.6, _mv(self.pile[p][-1], f"draw_pile_{p}", dst)))
        for key, cards in state.melds.items():
            for c in cards:
                if owner(c) == p and is_meld([x for x in cards if x != c], self.ace_wrap):
                    opts.append((0.15, _mv(c, key, dst)))
        return opts

    def _discard(self, state: DukesState, p: str) -> list[Observation]:
        if state.castle_taken is not None:
            return [Observation("end_turn")]
        opts = self._discard_options(state, p)
        if not opts:
            return [Observation("end_turn")]
        obs = self.rng.choices([o for _, o in opts], weights=[w for w, _ in opts])[0]
        self._apply_discard(p, obs)
        return [obs]

    def _apply_discard(self, p: str, obs: Observation) -> None:
        assert obs.card is not None
        if obs.src == f"hand_{p}":
            self.hand[p].remove(obs.card)
        elif obs.src == f"draw_pile_{p}":
            self.pile[p].pop()

    def _second_discard(self, state: DukesState, p: str) -> list[Observation]:
        roll = self.rng.random()
        if roll < 0.45:
            opts = self._discard_options(state, p)
            if opts:
                obs = self.rng.choices([o for _, o in opts], weights=[w for w, _ in opts])[0]
                self._apply_discard(p, obs)
                return [obs]
        q = other(p)
        nxt = state.sides[q]
        if roll > 0.8 and not state.final_turn and nxt.hand < 4 and nxt.draw + len(nxt.discard) > 0:
            # the next player simply starts: their first draw ends this turn
            fill = self.game.v.draw_rule == "fill_up_to_two"
            self.turn, self.plays, self.stop = state.turn + 1, 0, False
            self.target = min(2, 4 - nxt.hand) if fill else 1
            if not self.pile[q]:
                self.pile[q] = list(nxt.discard)
                self.rng.shuffle(self.pile[q])
            self.hand[q].append(self.pile[q].pop())
            return [_mv("BACK", f"draw_pile_{q}", f"hand_{q}")]
        return [Observation("end_turn")]

    # ---- plays ---------------------------------------------------------------------------
    def _choose_play(self, state: DukesState, p: str) -> Plan | None:
        if self.plays >= MAX_PLAYS:
            return None
        builders: list[Callable[[DukesState, str], list[Plan]]] = [
            self._castle_take, self._take_duke, self._meld, self._extend, self._create_duke,
            self._shift, self._regroup, self._switch, self._last_stand,
        ]
        if state.last_stand is not None:  # own castle melded: only a castle take may follow
            builders = [self._castle_take]
        plans = [plan for build in builders for plan in build(state, p)]
        kinds = sorted({plan.kind for plan in plans}) + ["stop"]
        kind = self.rng.choices(kinds, weights=[WEIGHTS[k] for k in kinds])[0]
        if kind == "stop":
            return None
        return self.rng.choice([plan for plan in plans if plan.kind == kind])

    def _carry_out(self, state: DukesState, p: str, plan: Plan) -> list[Observation]:
        for c in plan.from_hand:
            self.hand[p].remove(c)
        self.hand[p] += plan.to_hand
        if plan.kind == "castle":
            self.stop = True
        out = list(plan.observations)
        if plan.kind == "regroup":
            out += self._answer_if_asked(state, out[0])
        return out

    def _answer_if_asked(self, state: DukesState, obs: Observation) -> list[Observation]:
        """The referee asks when the table can be read several ways: pick the first reading."""
        return [Observation.answer(1)] if self.asked(state, obs) else []

    def _fresh_ids(self, state: DukesState, n: int) -> list[str]:
        out, k = [], 1
        while len(out) < n:
            if f"meld_{k}" not in state.melds:
                out.append(f"meld_{k}")
            k += 1
        return out

    def _placements(self, state: DukesState, card: Card, hand: list[Card],
                    melds: dict[str, list[Card]]) -> list[tuple[str | None, tuple[Card, ...]]]:
        """Ways to put ``card`` on the table: into an existing meld (no hand card), or into a
        new meld with 2-3 cards of ``hand``."""
        out: list[tuple[str | None, tuple[Card, ...]]] = [
            (key, ()) for key, cards in melds.items() if is_meld([*cards, card], self.ace_wrap)
        ]
        for n in (2, 3):
            for combo in combinations(hand, n):
                if is_meld([card, *combo], self.ace_wrap):
                    out.append((None, combo))
        return out

    def _put_all(self, state: DukesState, p: str, cards: list[tuple[Card, str]], kind: str) -> Plan | None:
        """Place every (card, from zone) with the hand's help, randomly; None if it fails."""
        hand = list(self.hand[p])
        melds = {k: list(v) for k, v in state.melds.items()}
        fresh = iter(self._fresh_ids(state, len(cards)))
        obs: list[Observation] = []
        used: list[Card] = []
        for card, src in cards:
            ways = self._placements(state, card, hand, melds)
            if not ways:
                return None
            key, combo = self.rng.choice(ways)
            if key is None:
                key = next(fresh)
                melds[key] = []
            for h in combo:
                hand.remove(h)
                used.append(h)
                obs.append(_mv(h, f"hand_{p}", key))
            obs.append(_mv(card, src, key))
            melds[key] += [*combo, card]
        return Plan(kind, obs, from_hand=used)

    def _castle_take(self, state: DukesState, p: str) -> list[Plan]:
        q = other(p)
        opp = state.sides[q]
        if opp.castle_up is None or state.castle_taken is not None:
            return []
        cards = [(opp.castle_up, f"castle_{q}")] + [(d, f"dukes_{q}") for d in opp.dukes]
        for _ in range(4):
            plan = self._put_all(state, p, cards, "castle")
            if plan is not None:
                return [plan]
            self.rng.shuffle(cards)
        return []

    def _take_duke(self, state: DukesState, p: str) -> list[Plan]:
        q = other(p)
        plans = []
        for d in state.sides[q].dukes:
            plan = self._put_all(state, p, [(d, f"dukes_{q}")], "take_duke")
            if plan is not None:
                plans.append(plan)
        return plans

    def _meld(self, state: DukesState, p: str) -> list[Plan]:
        hand = self.hand[p]
        plans = []
        key = self._fresh_ids(state, 1)[0]
        for n in (3, 4):
            for combo in combinations(hand, n):
                if is_meld(combo, self.ace_wrap):
                    moves = [_mv(c, f"hand_{p}", key) for c in combo]
                    plans.append(Plan("meld", moves, from_hand=list(combo)))
        return plans

    def _extend(self, state: DukesState, p: str) -> list[Plan]:
        return [
            Plan("extend", [_mv(h, f"hand_{p}", key)], from_hand=[h])
            for h in self.hand[p] for key, cards in state.melds.items() if is_meld([*cards, h], self.ace_wrap)
        ]

    def _create_duke(self, state: DukesState, p: str) -> list[Plan]:
        side = state.sides[p]
        if side.dukes or state.created_duke or not self.hand[p]:
            return []
        h = self.rng.choice(self.hand[p])
        return [Plan("create_duke", [_mv(h, f"hand_{p}", f"dukes_{p}")], from_hand=[h])]

    def _switch(self, state: DukesState, p: str) -> list[Plan]:
        side = state.sides[p]
        if not side.dukes or not self.hand[p] or (self.game.v.no_switch_first_turn and state.turn == 1):
            return []
        d, h = self.rng.choice(side.dukes), self.rng.choice(self.hand[p])
        moves = [_mv(d, f"dukes_{p}", f"hand_{p}"), _mv(h, f"hand_{p}", f"dukes_{p}")]
        if self.rng.random() < 0.5:
            moves.reverse()
        return [Plan("switch", moves, from_hand=[h], to_hand=[d])]

    def _shift(self, state: DukesState, p: str) -> list[Plan]:
        plans = []
        for a, cards in state.melds.items():
            if len(cards) < 4:
                continue
            for c in cards:
                if not is_meld([x for x in cards if x != c], self.ace_wrap):
                    continue
                for b, target in state.melds.items():
                    if b != a and is_meld([*target, c], self.ace_wrap):
                        plans.append(Plan("shift", [_mv(c, a, b)]))
        return plans

    def _regroup(self, state: DukesState, p: str) -> list[Plan]:
        """Two melds (and maybe a hand card) pushed together and split anew, reported as the
        camera's whole table; sometimes as one unsplit cluster for the referee to split."""
        keys = list(state.melds)
        if len(keys) < 2 or self.rng.random() < 0.8:
            return []
        a, b = self.rng.sample(keys, 2)
        extra = [self.rng.choice(self.hand[p])] if self.hand[p] and self.rng.random() < 0.5 else []
        union = [*state.melds[a], *state.melds[b], *extra]
        ways = partitions(union, self.ace_wrap, limit=6)
        if not ways:
            return []
        rest = [sort_cards(v) for k, v in state.melds.items() if k not in (a, b)]
        if meld_problem(union, self.ace_wrap) is not None and len(ways) <= 3 and self.rng.random() < 0.5:
            clusters = [*rest, sort_cards(union)]
        else:
            clusters = [*rest, *(list(m) for m in self.rng.choice(ways))]
        self.rng.shuffle(clusters)
        obs = Observation.of("table", melds=["+".join(map(str, c)) for c in clusters])
        return [Plan("regroup", [obs], from_hand=extra)]

    def _last_stand(self, state: DukesState, p: str) -> list[Plan]:
        side = state.sides[p]
        if not (self.game.v.own_castle_last_stand and state.final_turn and side.castle_up is not None):
            return []
        c = side.castle_up
        return [Plan("last_stand", [_mv(c, f"castle_{p}", key)])
                for key, cards in state.melds.items() if is_meld([*cards, c], self.ace_wrap)]
