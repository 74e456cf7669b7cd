"""Random legal Royal Crush games, as a camera would see them.

The simulator holds the hidden truth (the shuffled draw pile, every hand, the face-down
commitments in the order they were placed) and plays a random legal game against the
referee's state: it deals, rolls, declares, forms alliances (joins, leaves, invitations,
exclusions), commits cards (now and then an illegal one that the reveal sends back),
reveals all at once or card by card, rolls off ties, sweeps the mats and draws. Some
observations are deliberately vague (dice without a roller, a join without a side, a card
seen on a mat) so that the referee asks; the simulator then answers with the truth, by
``answer`` or by repeating the precise observation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import referee.games.royal_crush.moves as mv
from referee.cards import Card
from referee.core import DealingSimulator, Move
from referee.games.royal_crush.state import OVER, ROLLOFF, SIDES, CrushState, is_attack
from referee.observations import Observation

if TYPE_CHECKING:
    from referee.games.royal_crush.game import RoyalCrush

BACK = Card("BACK")
VAGUE = 0.15  # share of observations that leave the referee something to ask


class CrushSimulator(DealingSimulator):
    """A table of random but legal players, with the truth the camera cannot see."""

    game: RoyalCrush

    def __init__(self, game: RoyalCrush, seed: int):
        super().__init__(game, seed, jokers=2)
        self.placed: dict[str, list[Card]] = {}  # face-down cards per slot, placement order
        self.plan: dict[str, list[Card]] = {}  # cards each principal still means to place
        self.conquest_no = -1
        self.alliance_steps = 0
        self.took_back = False

    # ---- driver --------------------------------------------------------------------------
    def next_observations(self, state: CrushState) -> list[Observation]:
        s = state
        if s.phase == OVER:
            return []
        if s.conquest and s.conquest.number != self.conquest_no:
            self.conquest_no = s.conquest.number
            self.placed, self.plan, self.alliance_steps, self.took_back = {}, {}, 0, False
        out: list[Observation] = []
        if self.rng.random() < 0.02:
            p = self.rng.choice(s.players)
            out.append(Observation.of("ladder", player=p, spot=s.ladder[p]))
        step = getattr(self, f"_{s.phase}")
        return out + step(s)

    def _say(self, s: CrushState, obs: Observation, truth: Move, precise: Observation | None = None):
        """``obs``, followed by the answer when the referee will ask about it."""
        options = self.asked(s, obs)
        if not options:
            return [obs]
        moves = [o.move for o in options]
        if truth in moves:
            mine = moves.index(truth)
        else:
            key = self.game.outcome_key(self.game.apply(s, truth).state)
            mine = [o.key for o in options].index(key)
        if precise is not None and self.rng.random() < 0.4:
            return [obs, precise]
        if self.rng.random() < 0.5:
            return [obs, Observation.answer(mine + 1)]
        return [obs, Observation.answer(self.game.choice_label(s, moves[mine]))]

    # ---- deal and dice -------------------------------------------------------------------
    def _deal(self, s: CrushState) -> list[Observation]:
        if all(n == 0 for n in s.hand.values()) and self.rng.random() < 0.3:
            for p in s.players:
                while len(self.hands[p]) < s.hand_size:
                    self.hands[p].append(self.pile.pop(0))
            return [Observation.of("deal")]
        p = self.rng.choice([p for p in s.players if s.hand[p] < s.hand_size])
        self.hands[p].append(self.pile.pop(0))
        return [Observation.move(BACK, "draw_pile", f"hand_{p}")]

    def _first_roll(self, s: CrushState) -> list[Observation]:
        rolled = [p for p in s.rollers if p in s.rolls]
        if rolled and self.rng.random() < 0.05:  # a corrected reading
            p = self.rng.choice(rolled)
            return [Observation.of("dice", player=p, values=self._dice())]
        p = self.rng.choice([p for p in s.rollers if p not in s.rolls])
        values = self._dice()
        precise = Observation.of("dice", player=p, values=values)
        if self.rng.random() < VAGUE:
            return self._say(s, Observation.of("dice", values=values), mv.Roll(p, tuple(values)), precise)
        return [precise]

    def _rolloff(self, s: CrushState) -> list[Observation]:
        q = s.conquest
        if q and any(slot.returned for slot in q.slots.values()) and self.rng.random() < 0.2:
            return self._clear_one(s)  # a card that counted for nothing goes back early
        return self._first_roll(s)

    def _dice(self) -> list[int]:
        return [self.rng.randint(1, 6) for _ in range(self.game.dice_count)]

    # ---- declare and alliances -----------------------------------------------------------
    def _declare(self, s: CrushState) -> list[Observation]:
        q = s.conquest
        assert q
        victim = self.rng.choice([p for p in s.active() if p != q.attacker])
        if self.rng.random() < 0.5:
            return [Observation.of("declare", attacker=q.attacker, victim=victim)]
        return [Observation.of("declare", victim=victim)]

    def _alliances(self, s: CrushState) -> list[Observation]:
        q = s.conquest
        assert q and q.victim
        self.alliance_steps += 1
        g = self.game
        others = [p for p in s.active() if p not in (q.attacker, q.victim)]
        legal = set(g.legal_moves(s))  # the referee says who may join which side
        joins = [(p, side) for p in others for side in SIDES if mv.Join(p, side) in legal]
        r = self.rng.random()
        if self.alliance_steps < 7 and others:
            if joins and r < 0.45:
                p, side = self.rng.choice(joins)
                if self.rng.random() < VAGUE:
                    precise = Observation.of("join", player=p, side=side)
                    return self._say(s, Observation.of("join", player=p), mv.Join(p, side), precise)
                return [Observation.of("join", player=p, side=side)]
            if r < 0.62:
                side = self.rng.choice(SIDES)
                by = q.principal(side)
                assert by
                p = self.rng.choice(others)
                if r < 0.55 and p not in q.invited.get(side, []) and p not in q.excluded.get(side, []):
                    kind, cls = "invite", mv.Invite
                elif r >= 0.55 and p not in q.excluded.get(side, []) and self.rng.random() < 0.5:
                    kind, cls = "exclude", mv.Exclude
                else:
                    kind = ""
                if kind:
                    precise = Observation.of(kind, by=by, player=p)
                    if self.rng.random() < VAGUE:
                        return self._say(s, Observation.of(kind, player=p), cls(by, p), precise)
                    return [precise]
            if q.allies and r < 0.68:
                return [Observation.of("leave", player=self.rng.choice(sorted(q.allies)))]
            if r < 0.75:
                return self._wait(s)
        if q.allies and self.rng.random() < 0.3:
            return self._place(s, self.rng.choice(sorted(q.allies)))
        if not q.allies and self.rng.random() < 0.1:
            return [Observation.of("countdown")]
        return [Observation.of("lock_sides" if self.rng.random() < 0.6 else "end_turn")]

    def _wait(self, s: CrushState) -> list[Observation]:
        p = self.rng.choice(s.players)
        return [Observation.of("ladder", player=p, spot=s.ladder[p])]

    # ---- commitments ---------------------------------------------------------------------
    def _choose_ally_card(self, hand: list[Card]) -> Card:
        joker = self.game.rules.scoring.ally_may_play_joker
        attack = [c for c in hand if is_attack(c) or (c.is_joker and joker)]
        if attack and self.rng.random() < 0.9:
            return self.rng.choice(attack)
        return self.rng.choice(hand)

    def _make_plan(self, p: str) -> list[Card]:
        hand = list(self.hands[p])
        attack = [c for c in hand if is_attack(c)]
        royal = [c for c in hand if not is_attack(c)]
        plan: list[Card] = []
        if attack and self.rng.random() < 0.85:
            plan.append(attack.pop(self.rng.randrange(len(attack))))
        if royal and self.rng.random() < 0.6:
            plan.append(royal.pop(self.rng.randrange(len(royal))))
        elif len(plan) == 1 and attack and self.rng.random() < 0.1:
            plan.append(attack.pop(self.rng.randrange(len(attack))))  # a second attack card: sent back
        elif royal and len(royal) > 1 and not plan and self.rng.random() < 0.1:
            plan += [royal[0], royal[1]]  # two royals: one sent back
        self.rng.shuffle(plan)
        return plan

    def _place(self, s: CrushState, p: str, card: Card | None = None) -> list[Observation]:
        """``p`` puts a face-down card into its slot (or onto its side's mat)."""
        q = s.conquest
        assert q
        c = card if card is not None else self._choose_ally_card(self.hands[p])
        self.hands[p].remove(c)
        self.placed.setdefault(p, []).append(c)
        dst = f"commit_{p}" if self.rng.random() < 0.5 else f"side_{q.side_of(p)}"
        return [Observation.move(BACK, f"hand_{p}", dst)]

    def _commit(self, s: CrushState) -> list[Observation]:
        q = s.conquest
        assert q and q.victim
        g = self.game
        for p in (q.attacker, q.victim):
            if p not in self.plan:
                self.plan[p] = self._make_plan(p)
        allies_left = [p for p in sorted(q.allies) if not self.placed.get(p)]
        principals_left = [p for p in (q.attacker, q.victim) if self.plan[p]]
        legal = set(g.legal_moves(s))
        ready = [p for p in allies_left + principals_left if mv.Commit(p) in legal]
        placed = [p for p, cards in self.placed.items() if cards]
        if placed and not self.took_back and self.rng.random() < 0.04:
            self.took_back = True
            p = self.rng.choice(placed)
            c = self.placed[p].pop()
            self.hands[p].append(c)
            if p in self.plan:
                self.plan[p].append(c)
            src = f"commit_{p}" if self.rng.random() < 0.5 else f"side_{q.side_of(p)}"
            return [Observation.move(BACK, src, f"hand_{p}")]
        if ready:
            p = self.rng.choice(ready)
            if p in q.allies:
                return self._place(s, p)
            return self._place(s, p, self.plan[p].pop())
        if self.rng.random() < 0.5:
            return [Observation.of("countdown" if self.rng.random() < 0.5 else "end_turn")]
        return self._reveal(s)

    def _reveal(self, s: CrushState) -> list[Observation]:
        q = s.conquest
        assert q
        waiting = [p for p, cards in self.placed.items() if cards]
        if not waiting:  # nobody placed anything: the countdown resolves at once
            return [Observation.of("countdown" if self.rng.random() < 0.5 else "end_turn")]
        if self.rng.random() < 0.6:
            data: dict[str, Any] = {p: [str(c) for c in self.placed[p]] for p in sorted(waiting)}
            if self.rng.random() < 0.15:
                data["order"] = "unknown"
            self.placed = {}
            return [Observation.of("reveal", **data)]
        p = self.rng.choice(waiting)
        c = self.placed[p].pop(self.rng.randrange(len(self.placed[p])))
        side = q.side_of(p)
        if self.rng.random() >= VAGUE:
            return [Observation.move(c, f"commit_{p}", f"commit_{p}")]
        obs = Observation.move(c, f"side_{side}", f"side_{side}")
        return self._say(s, obs, mv.Flip(p, c), Observation.move(c, f"commit_{p}", f"commit_{p}"))

    # ---- after the reveal ----------------------------------------------------------------
    def _cleanup(self, s: CrushState) -> list[Observation]:
        return self._clear_one(s)

    def _clear_one(self, s: CrushState) -> list[Observation]:
        q = s.conquest
        assert q
        items = []
        for p, slot in q.slots.items():
            counted = list(slot.shown)
            for c in slot.returned:
                counted.remove(c)
            items += [(p, c, False) for c in counted] + [(p, c, True) for c in slot.returned]
        if s.phase == ROLLOFF:
            items = [i for i in items if i[2]]
        p, c, back = self.rng.choice(items)
        dst = f"hand_{p}" if back else "draw_pile"
        if back:
            self.hands[p].append(c)
        else:
            self.pile.append(c)
        precise = Observation.move(c, f"commit_{p}", dst)
        if self.rng.random() >= VAGUE:
            return [precise]
        mat = f"side_{q.slots[p].side}"
        truth = mv.ReturnCard(p, c) if back else mv.Sweep(p, c)
        return self._say(s, Observation.move(c, mat, dst), truth, precise)

    def _draw(self, s: CrushState) -> list[Observation]:
        p = self.rng.choice(sorted(set(s.drawers)))
        self.hands[p].append(self.pile.pop(0))
        return [Observation.move(BACK, "draw_pile", f"hand_{p}")]

